"""scripts/serve-bench: aural serve against faster-whisper-server 0.0.3 on the same model folder, compute type and
cores, one server at a time: 1, 2, 4 and 8 concurrent clients posting the bundled recordings to
/v1/audio/transcriptions (audio seconds per wall second, p50/p95 latency, peak RSS of the server's process tree, CPU,
errors, WER against the book's text), N live sessions through aural's Realtime WebSocket (lag, CPU, RSS, WER), and
what each server answers to odd requests. Prints a Markdown entry for docs/benchmarks.md and writes it to
bench-results/."""

import argparse
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from benchkit.cli import comma_list
from benchkit.paths import THREADS, Paths
from benchkit.stats import wer

from servebench import probe, recordings, report
from servebench.measure import bench_server
from servebench.servers import AURAL, PEER, PEER_VERSION, Setup, copy_aural, log, peer_python

EPILOG = f"""\
Each server runs alone, pinned to the same {THREADS} CPUs: aural serve (a copy of $AURAL_BIN, else
.build/release/aural, with --model, --compute-type and --beam-size; one transcription at a time, with every core), then
{PEER} {PEER_VERSION} (from scripts/servekit/bench-requirements.txt, installed on first use into
the bench cache's fwsenv, or $FWS_PYTHON) with a config naming the same CTranslate2 folder, compute_type, cpu_threads
and beam_size. A warm-up request per recording first (the peer loads its model then). Per concurrency, --runs runs
of --requests requests; request k sends recording k mod 3 (two_cities 44 s, endgame_nagg_nell 28 s, beckett 10 s).
Reported: medians over runs of throughput and p50/p95 latency, the largest peak RSS (the process tree, polled every
50 ms), the server's CPU cores, errors of all runs, the word error rate of two_cities against the book's text (the one
recording with a reference written by people), and how many answers had the same text as that server's warm-up.

--live N runs N Realtime sessions at once on a fresh aural serve after its load runs (so their memory is measured
from a server that has only loaded its model); the peer has no live endpoint in 0.0.3 (its answer to the handshake
is reported). A live session's WER is against the book for two_cities and against the
same server's file transcription for the others, as scripts/live-bench takes them.

A benchmark, not a test: run it on a quiet machine. The report says how busy the rest of the machine was.
environment: AURAL_BIN, AURALKIT_MODELS_DIR, AURALKIT_BENCH_CACHE, FWS_PYTHON, XDG_CACHE_HOME.
"""


def server_list(value):
    names = comma_list()(value)
    unknown = [n for n in names if n not in (AURAL, PEER)]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"choose from {AURAL}, {PEER}")
    return names


def parser():
    about = __doc__.split("\n\n")[0].replace("\n", " ").split(": ", 1)[1]
    p = argparse.ArgumentParser(prog="scripts/serve-bench", description=about, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", type=comma_list(), default=["tiny.en"], help="installed models (default tiny.en)")
    p.add_argument("--compute-type", default="int8", choices=["int8", "float32"], help="default %(default)s")
    p.add_argument("--beam", type=int, default=5, help="beam size for both servers (default 5, both servers' own)")
    p.add_argument("--language", default="en", help="language field of every request (default en)")
    p.add_argument("--clients", type=comma_list(int), default=[1, 2, 4, 8], help="concurrencies (default 1,2,4,8)")
    p.add_argument("--requests", type=int, default=12, help="requests per run (default 12: each recording 4 times)")
    p.add_argument("--runs", type=int, default=3, help="runs per concurrency; medians are reported (default 3)")
    p.add_argument("--live", type=int, default=4, metavar="N", help="live sessions at once (default 4; 0: none)")
    p.add_argument("--servers", type=server_list, default=[AURAL, PEER], help=f"default {AURAL},{PEER}")
    p.add_argument("--no-probe", action="store_true", help="skip the odd requests")
    return p


def cpu_description():
    """lscpu's model name and whether the CPU has AVX-512 (with VNNI)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        name = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        name = "unknown CPU"
    with open("/proc/cpuinfo") as fh:
        flags = next((line.split(":", 1)[1].split() for line in fh if line.startswith("flags")), [])
    if "avx512f" in flags:
        return f"{name}, AVX-512 ({'with' if 'avx512_vnni' in flags else 'without'} VNNI)"
    return f"{name}, no AVX-512 ({'AVX2' if 'avx2' in flags else 'no AVX2'})"


def aural_build(paths):
    """Which aural ran: the binary's modification time and the checkout's commit, noting uncommitted Sources/."""
    try:
        built = datetime.datetime.fromtimestamp(os.path.getmtime(paths.aural))
        head = subprocess.run(["git", "-C", paths.root, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", paths.root, "status", "--porcelain", "--", "Sources"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return paths.aural
    return (f"{os.path.relpath(paths.aural, paths.root)} built {built:%Y-%m-%d %H:%M}, checkout at {head}"
            + (" with uncommitted changes in Sources/" if dirty else ""))


def header(started, args, cpus, recordings_, others, load_before, load_after, build):
    busy = max(others) if others else 0.0
    mean = sum(others) / len(others) if others else 0.0
    audio = ", ".join(f"{r.name} {r.seconds:.1f} s" for r in recordings_)
    state = ("The machine was quiet" if busy < 0.1 else f"Other work was running on the machine: {mean:.2f} cores "
             f"busy outside the server and this client on average, {busy:.2f} at most over a run")
    command = "scripts/serve-bench " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    return [f"### {started:%Y-%m-%d %H:%M}: aural serve against {PEER} {PEER_VERSION} (serve-bench)", "",
            f"- Machine: {cpu_description()}, {os.cpu_count()} cores; each server alone, pinned to CPUs "
            f"{','.join(map(str, sorted(cpus)))}. {state} (load average {load_before:.2f} at start, "
            f"{load_after:.2f} at end).",
            f"- Command: `{command.strip()}`: {', '.join(args.models)}, {args.compute_type}, beam {args.beam}, "
            f"language {args.language}; {args.requests} requests per run, median of {args.runs} runs; the "
            f"recordings round-robin ({audio}) as multipart POSTs with response_format json. aural: {build}."]


def main(argv=None):
    args = parser().parse_args(argv)
    if not shutil.which("sox") or not shutil.which("lscpu"):
        raise SystemExit("serve-bench: sox and lscpu are needed (apt-get install sox util-linux)")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    paths = Paths.from_environment(root, os.environ)
    for model in args.models:
        if not os.path.isdir(paths.model(model)):
            raise SystemExit(f"serve-bench: no model folder {paths.model(model)} (scripts/setup installs tiny.en)")
    recordings_ = recordings.load(os.path.join(root, "fixtures", "audio"), args.language)
    cpus = set(sorted(os.sched_getaffinity(0))[:THREADS])
    workdir = tempfile.mkdtemp(prefix="serve-bench-")
    started, load_before = datetime.datetime.now(), os.getloadavg()[0]
    results = dict(rest={}, live={}, probes={}, file_texts={}, notes=[])
    build = aural_build(paths)
    others = []
    try:
        binaries = {}
        if AURAL in args.servers:
            binaries[AURAL] = copy_aural(paths.aural, workdir)
        if PEER in args.servers:
            binaries[PEER] = peer_python(os.environ, paths.cache)
        for model in args.models:
            setup = Setup(paths, model, args.compute_type, args.beam, cpus, workdir)
            for name in args.servers:
                bench_server(setup, name, binaries[name], recordings_, args, results, others)
    except KeyboardInterrupt:
        log("serve-bench: interrupted")
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    peer_ws = dict(results["probes"].get(PEER, [])).get(probe.WEBSOCKET_CASE)
    for result in results["live"].values():
        result["peer"] = f"its answer to the same handshake: {peer_ws}" if peer_ws else "not probed (--no-probe)"
    text = report.markdown(header(started, args, cpus, recordings_, others, load_before, os.getloadavg()[0],
                                  build),
                           results["rest"], results["live"], results["probes"], notes(results))
    print("\n" + text)
    out = os.path.join(root, "bench-results")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"serve-bench-{started:%Y%m%d-%H%M%S}.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    log(f"serve-bench: wrote {os.path.relpath(path, root)}")
    return 0


def notes(results):
    """Failures, and how the two servers' texts of each recording differ (word error rate of aural's warm-up text
    against the peer's)."""
    lines = list(results["notes"])
    for model, texts in results["file_texts"].items():
        if AURAL in texts and PEER in texts:
            differences = ", ".join(f"{name} {100 * wer(texts[PEER][name], texts[AURAL][name]):.1f} %"
                                    for name in texts[AURAL])
            lines.append(f"Word difference of aural's text from the peer's ({model}): {differences}.")
    for model, result in results["live"].items():
        gauges = result["gauges"]
        if gauges.get("aural_transcriptions_running") == 0:
            counted = (f"; aural_live_sessions reached {gauges['aural_live_sessions']:g}"
                       if "aural_live_sessions" in gauges else "")
            lines.append(f"While {len(result['sessions'])} live sessions ran ({model}), /metrics showed no file "
                         f"transcription running (aural_transcriptions_running 0){counted}: live sessions do not "
                         "take the file requests' slots, so a file request would run beside them with every core.")
        late = max((s["late_send_s"] for s in result["sessions"]), default=0.0)
        if late > 0.2:
            lines.append(f"The client itself fell {late:.2f} s behind the wall clock sending live audio ({model}): "
                         "the lags include that.")
    for model, servers in results["rest"].items():
        for server, figures in servers.items():
            for n, f in figures.items():
                if f["error_samples"]:
                    lines.append(f"{server} {model} at {n} clients: errors such as {'; '.join(f['error_samples'])}")
    return lines
