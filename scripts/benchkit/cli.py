"""scripts/bench: compare AuralKit's aural CLI with faster-whisper (CTranslate2, float32 and int8) and, when
available, whisper.cpp, on the same audio, models, beam sizes and thread count (2).

Per engine and configuration it runs each transcription N times as a separate process under GNU time and reports
the median wall time, the transcription time and model load time each engine reports, real-time factors, peak RSS
and the word error rate against faster-whisper float32's text, then the ratios of each aural mode (float32, int8)
to faster-whisper fp32, int8 and whisper.cpp, aural's best mode / faster-whisper int8 per cell, and a start-up table
(time to a first token and peak RSS per engine). The environment line names the CPU and the load average. Results go
to the terminal and to bench-results/ (gitignored) as Markdown and CSV.
"""
import argparse
import datetime
import os
import platform
import shutil
import signal
import sys

from benchkit import audio, report, stats
from benchkit.engines import aural, faster_whisper, whisper_cpp
from benchkit.paths import THREADS, Paths
from benchkit.process import TIME

ENGINES = ("aural-fp32", "aural-int8", "fw-fp32", "fw-int8", "whisper.cpp")

EPILOG = """\
audio:
  short  fixtures/audio/two_cities.wav (44 s), converted once to 16 kHz mono
  long   the real recordings concatenated to 600 s, 16 kHz mono (ten-minutes.wav in the bench cache)

engines:
  aural-fp32   .build/release/aural --compute-type float32 (aural-int8: --compute-type int8, same float16 folder),
  aural-int8   built first with `swift build -c release --product aural` unless --no-build
               (the build log goes to /tmp/aural-bench-build.log);
               when it is missing or fails, that is reported and the other engines still run. Times come from the
               `timings` object of `aural transcribe --format json` (model_load_seconds, transcription_seconds).
               An aural without --compute-type runs aural-fp32 without the flag and skips aural-int8.
  fw-fp32/int8 faster-whisper 1.2.1 with cpu_threads=2 in $FW_PYTHON, else /opt/fwenv/bin/python, else a venv in the
               bench cache installed from PyPI on first use; load time is the WhisperModel() constructor,
               transcription time covers decode_audio + transcribe.
  whisper.cpp  only when $WHISPER_CPP_CLI names a whisper-cli binary built outside this repository; ggml models are
               converted once from the CTranslate2 folders with ct2_to_ggml.py. A whisper.cpp built with OpenBLAS
               runs the OpenBLAS kernel aural picks unless OPENBLAS_CORETYPE is set.

start-up    unless --no-startup: per model and engine, the wall time from process start to exit on the first second
            of beckett.wav ("Ever try.") at beam 1 (load + one encoder window + the first few tokens) and its peak
            RSS, median of --runs. --audio none measures only this.

--omp-wait sets OMP_WAIT_POLICY for faster-whisper (CTranslate2) and whisper.cpp, which both use OpenMP. On a machine
that other work keeps busy, spinning OpenMP threads slow whisper.cpp down up to 4x (passive helps); on an idle machine
keep the default. Compare engines only on an idle machine: the report records the load average.

environment: AURALKIT_MODELS_DIR, AURALKIT_BENCH_CACHE, AURAL_BIN (another aural binary; build it yourself and pass
--no-build), FW_PYTHON, WHISPER_CPP_CLI, CT2_TO_GGML, XDG_CACHE_HOME.
"""


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def comma_list(convert=str):
    def parse(value):
        try:
            return [convert(v) for v in value.split(",") if v]
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error))
    return parse


def engine_list(value):
    names = comma_list()(value)
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown engine {', '.join(unknown)} (choose from {', '.join(ENGINES)})")
    return names


def parser():
    """The command line, the same as the bash script's before it."""
    p = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n\n")[0].replace("\n", " "),
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", type=comma_list(), default="tiny.en,base", help="installed models (default %(default)s)")
    p.add_argument("--audio", choices=["short", "long", "both", "none"], default="both",
                   help="recordings (default both; none: the start-up table only)")
    p.add_argument("--runs", type=int, default=3, help="runs per configuration; the median is reported (default 3)")
    p.add_argument("--beams", type=comma_list(int), default="1,5", help="beam sizes (default %(default)s)")
    p.add_argument("--language", default="en", help="spoken language passed to every engine, or auto (default en)")
    p.add_argument("--engines", type=engine_list, default=",".join(ENGINES), help="default %(default)s")
    p.add_argument("--no-build", action="store_true", help="use the aural binary as it is")
    p.add_argument("--no-startup", action="store_true", help="skip the start-up (time to first token) table")
    p.add_argument("--omp-wait", choices=["default", "passive", "active"], default="default",
                   help="OMP_WAIT_POLICY for the OpenMP engines (default: leave unset)")
    return p


def cpu_model(cpuinfo="/proc/cpuinfo"):
    """The CPU's model name, for the report."""
    try:
        with open(cpuinfo) as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def make_engines(args, paths, build_status):
    """The engines asked for, in the order ENGINES lists them."""
    fw_python = None
    if any(n not in aural.COMPUTE_TYPES for n in args.engines):
        fw_python = faster_whisper.python(os.environ, paths.cache)
    engines = []
    for name in ENGINES:
        if name not in args.engines:
            continue
        if name in aural.COMPUTE_TYPES:
            engines.append(aural.Aural(name, paths.aural, paths, THREADS, args.language, build_status))
        elif name in faster_whisper.COMPUTE_TYPES:
            engines.append(faster_whisper.FasterWhisper(name, fw_python, paths, THREADS, args.language))
        else:
            converter = os.environ.get("CT2_TO_GGML") or os.path.join(os.path.dirname(paths.root), "shared", "tools",
                                                                      "ct2_to_ggml.py")
            engines.append(whisper_cpp.WhisperCpp(os.environ.get("WHISPER_CPP_CLI"), converter, fw_python, paths,
                                                  THREADS, args.language, os.environ))
    return engines


def measure(engine, model, beam, audio_key, audio_path, audio_seconds, runs):
    """One table row: `engine` on one configuration, `runs` times (stopping at the first failure)."""
    row = dict(audio=audio_key, audio_s=round(audio_seconds, 2), model=model, beam=beam, engine=engine.name)
    reason = engine.unavailable(model)
    if reason:
        log(f"bench: skip {engine.name} {model} beam{beam} {audio_key}: {reason}")
        return dict(row, status="skipped", note=reason)
    results = []
    for i in range(runs):
        r = engine.run(model, beam, audio_path)
        log(f"bench: {audio_key} {model} beam{beam} {engine.name} run {i + 1}/{runs}: "
            f"{'ok' if r.ok else 'FAILED'} wall={r.wall:.2f}s rss={report.fmt(r.peak_rss_mib, 0)}MiB {r.note}")
        results.append(r)
        if not r.ok:
            return dict(row, status="failed", note=r.note)
    return dict(row, **stats.summarize(results, audio_seconds))


def startup(engines, models, clip_path, runs):
    """The start-up table's rows: per model and engine, `runs` transcriptions of the clip at beam 1."""
    rows = []
    for model in models:
        for engine in engines:
            row = dict(model=model, engine=engine.name)
            reason = engine.unavailable(model)
            if reason:
                rows.append(dict(row, status="skipped", note=reason))
                continue
            results = []
            for i in range(runs):
                r = engine.run(model, 1, clip_path)
                log(f"bench: start-up {model} {engine.name} run {i + 1}/{runs}: {'ok' if r.ok else 'FAILED'} "
                    f"wall={r.wall:.2f}s rss={report.fmt(r.peak_rss_mib, 0)}MiB")
                results.append(r)
                if not r.ok:
                    break
            if not results[-1].ok:
                rows.append(dict(row, status="failed", note=results[-1].note))
                continue
            summary = stats.summarize(results, 1.0)
            rows.append(dict(row, status="ok", startup_s=summary["wall_s"], load_s=summary["load_s"],
                             peak_rss_mib=summary["peak_rss_mib"], note=(results[-1].text or "").strip()[:40]))
    return rows


def bench(args, paths, build_status):
    """Runs every configuration and writes the report; returns the Markdown text."""
    if args.omp_wait != "default":
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait.upper()
    cores = os.cpu_count() or 1
    load_start = os.getloadavg()[0]
    if load_start > 0.5 * cores:
        log(f"bench: warning: load average {load_start:.2f} on {cores} cores; timings will be noisy")
    started = datetime.datetime.now()
    audios = audio.prepare(args.audio, os.path.join(paths.root, "fixtures", "audio"), paths.cache)
    seconds = {key: audio.duration(path) for key, path in audios.items()}
    engines = make_engines(args, paths, build_status)

    rows = []
    for key, path in audios.items():
        for model in args.models:
            for beam in args.beams:
                group = [measure(e, model, beam, key, path, seconds[key], args.runs) for e in engines]
                stats.add_wer(group)
                rows += group
    ratios = stats.ratios(rows)
    best = stats.best_ratios(rows)
    startup_rows = []
    if not args.no_startup:
        clip_path = audio.clip(os.path.join(paths.root, "fixtures", "audio"), paths.cache)
        startup_rows = startup(engines, args.models, clip_path, args.runs)

    environment = report.environment_line(
        started, args.runs, THREADS, load_start, os.getloadavg()[0], cores, args.language, args.omp_wait,
        paths.aural, build_status, {k: (p, seconds[k]) for k, p in audios.items()}, cpu_model())
    text = report.markdown(environment, rows, ratios, best, startup_rows)
    print("\n" + text)
    written = report.write(os.path.join(paths.root, "bench-results"), started.strftime("%Y%m%d-%H%M%S"), text, rows,
                           ratios, startup_rows)
    log(f"bench: wrote {os.path.relpath(written, paths.root)} and its .csv")
    return text


def check_tools():
    """GNU time (for peak memory) and sox (to convert the recordings), or exit saying which package to install."""
    if not os.access(TIME, os.X_OK):
        raise SystemExit(f"bench: {TIME} is missing (apt-get install time)")
    if not shutil.which("sox") or not shutil.which("soxi"):
        raise SystemExit("bench: sox is missing (apt-get install sox)")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    check_tools()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = Paths.from_environment(root, os.environ)
    build_status = "not built (--no-build)" if args.no_build else "not built (not asked for)"
    try:
        if not args.no_build and any(n in aural.COMPUTE_TYPES for n in args.engines):
            log("bench: swift build -c release --product aural ...")
            build_status = aural.build(root)
            if build_status != "built":
                log(f"bench: aural {build_status}; continuing with the other engines")
                with open(aural.BUILD_LOG, errors="replace") as fh:
                    log("".join(fh.readlines()[-5:]).rstrip())
        bench(args, paths, build_status)
    except KeyboardInterrupt:
        log("bench: interrupted")
        return 130
    return 0
