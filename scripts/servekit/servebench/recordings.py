"""The bundled English recordings (fixtures/audio, made by scripts/setup) as the clients send them: upload bodies for
/v1/audio/transcriptions and 24 kHz 16-bit PCM for the Realtime WebSocket, with their durations and references."""

import os
import subprocess
import wave
from dataclasses import dataclass

from test_openai_api import TWO_CITIES, multipart

# The English recordings, longest first (the espeak_* files are other languages, which tiny.en cannot transcribe).
NAMES = ("two_cities", "endgame_nagg_nell", "beckett")
# References as people wrote them; the other recordings have none in the repository.
REFERENCES = {"two_cities": TWO_CITIES}
LIVE_RATE = 24000  # what OpenAI's Realtime clients send


@dataclass(frozen=True)
class Recording:
    name: str
    path: str
    seconds: float
    body: bytes
    """A multipart/form-data upload of the file with model, response_format=json and language."""
    content_type: str


def load(fixtures, language, model_field="whisper-1"):
    """The recordings in NAMES from `fixtures`, or SystemExit naming the missing file."""
    recordings = []
    for name in NAMES:
        path = os.path.join(fixtures, name + ".wav")
        if not os.path.exists(path):
            raise SystemExit(f"serve-bench: {path} is missing; scripts/setup makes the fixtures")
        with wave.open(path) as fh:
            seconds = fh.getnframes() / fh.getframerate()
        with open(path, "rb") as fh:
            data = fh.read()
        fields = [("model", model_field), ("response_format", "json"), ("language", language)]
        body, content_type = multipart(fields, name + ".wav", data)
        recordings.append(Recording(name, path, seconds, body, content_type))
    return recordings


def pcm(recording, directory, rate=LIVE_RATE):
    """The recording as 16-bit little-endian mono PCM at `rate` (converted once by SoX into `directory`)."""
    out = os.path.join(directory, f"{recording.name}-{rate}.raw")
    if not os.path.exists(out):
        subprocess.run(["sox", "-R", recording.path, "-t", "raw", "-r", str(rate), "-c", "1", "-b", "16",
                        "-e", "signed-integer", "-L", out], check=True)
    with open(out, "rb") as fh:
        return fh.read()
