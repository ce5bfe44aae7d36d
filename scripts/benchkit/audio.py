"""The recordings the engines transcribe, converted once to 16 kHz mono 16-bit WAV with sox."""
import os
import subprocess

# The 10-minute file repeats these real recordings (fixtures/audio) and is cut at 600 s.
LONG_PARTS = ("beckett", "two_cities", "endgame_nagg_nell")
LONG_SECONDS = 600


def duration(path):
    """The length of an audio file in seconds (soxi)."""
    return float(subprocess.run(["soxi", "-D", path], capture_output=True, text=True, check=True).stdout)


def prepare(which, fixtures, cache):
    """Returns {"short": path, "long": path} (the keys `which` asks for: short, long, both or none), converting the
    fixtures into `cache` when the files are not there yet.

    short is fixtures/audio/two_cities.wav (44 s); long is the recordings in LONG_PARTS concatenated to 600 s.
    """
    os.makedirs(cache, exist_ok=True)
    audios = {}
    if which in ("short", "both"):
        audios["short"] = converted("two_cities", fixtures, cache)
    if which in ("long", "both"):
        path = os.path.join(cache, "ten-minutes.wav")
        if not os.path.exists(path):
            parts = [converted(name, fixtures, cache) for name in LONG_PARTS]
            repeats = int(LONG_SECONDS // sum(duration(p) for p in parts)) + 1
            _sox(*(parts * repeats), path, "trim", "0", str(LONG_SECONDS))
        audios["long"] = path
    return audios


CLIP_SECONDS = 1


def clip(fixtures, cache):
    """The first CLIP_SECONDS of beckett.wav at 16 kHz mono (beckett-1s.wav in `cache`), for the start-up time: it
    starts with speech at once ("Ever try."), so every engine decodes a few text tokens."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"beckett-{CLIP_SECONDS}s.wav")
    if not os.path.exists(path):
        _sox(converted("beckett", fixtures, cache), path, "trim", "0", str(CLIP_SECONDS))
    return path


def converted(name, fixtures, cache):
    """fixtures/NAME.wav as 16 kHz mono 16-bit WAV in `cache` (NAME-16k.wav), converted once."""
    path = os.path.join(cache, name + "-16k.wav")
    if not os.path.exists(path):
        source = os.path.join(fixtures, name + ".wav")
        if not os.path.exists(source):
            raise SystemExit(f"bench: {source} is missing; scripts/setup makes the fixtures (make demo and make test "
                             "run it), so run it once in this checkout")
        _sox(source, "-D", "-r", "16000", "-c", "1", "-b", "16", path)
    return path


def _sox(*args):
    subprocess.run(["sox", "-R"] + list(args), check=True)
