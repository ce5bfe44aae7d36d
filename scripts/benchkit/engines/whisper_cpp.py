"""whisper.cpp's whisper-cli, when $WHISPER_CPP_CLI names one.

whisper.cpp is built outside this repository by whoever runs the bench; the bench only runs it. Its ggml models are
converted once from the same CTranslate2 folders (same weights) with ct2_to_ggml.py ($CT2_TO_GGML, default
../shared/tools/ct2_to_ggml.py next to the repository) into the bench cache as ggml-<model>.bin.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from benchkit.engines.base import RUNNERS, Run
from benchkit.process import failure, last_line, run_timed

CONVERTER_RUNNER = os.path.join(RUNNERS, "ct2_to_ggml_with_fw_filters.py")


def command(cli, ggml_model, audio, threads, beam, language, output_prefix):
    """whisper-cli's command line: text into `output_prefix`.txt; `language` may be "auto"."""
    return [cli, "-m", ggml_model, "-f", audio, "-t", str(threads), "-bs", str(beam), "-l", language, "-otxt",
            "-of", output_prefix]


def read_timings(stderr):
    """(load seconds, transcription seconds) from whisper-cli's timing summary on standard error ("load time =
    12.34 ms", "total time = …"); transcription is total minus load. None where a line is missing."""
    def seconds(label):
        match = re.search(label + r"\s*=\s*([0-9.]+)\s*ms", stderr)
        return float(match.group(1)) / 1000.0 if match else None

    load, total = seconds("load time"), seconds("total time")
    return load, (total - load if total is not None and load is not None else None)


def openblas_environment(environ, cpu_flags):
    """`environ` with OPENBLAS_CORETYPE set as aural's engine sets it (OpenBLAS.swift): SkylakeX with AVX-512, else
    Haswell with AVX2 and FMA; a value already set wins. Debian 12's OpenBLAS otherwise falls back to its SSE3
    kernel on CPUs it does not know, which would slow a whisper.cpp built with OpenBLAS for no reason."""
    env = dict(environ)
    if "OPENBLAS_CORETYPE" not in env:
        if {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= cpu_flags:
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
        elif {"avx2", "fma"} <= cpu_flags:
            env["OPENBLAS_CORETYPE"] = "Haswell"
    return env


def cpu_flags(cpuinfo="/proc/cpuinfo"):
    """The first processor's flags; empty when they cannot be read."""
    try:
        with open(cpuinfo) as fh:
            return set(next(line for line in fh if line.startswith("flags")).split(":", 1)[1].split())
    except (OSError, StopIteration, IndexError):
        return set()


class WhisperCpp:
    """whisper-cli at `cli` (None when $WHISPER_CPP_CLI is unset); models converted by `converter` run with
    `python_path` (the faster-whisper Python, which has numpy)."""

    name = "whisper.cpp"

    def __init__(self, cli, converter, python_path, paths, threads, language, environ):
        self.cli, self.converter, self.python, self.paths = cli, converter, python_path, paths
        self.threads, self.language = threads, language
        self.env = openblas_environment(environ, cpu_flags())

    def ggml(self, model):
        return os.path.join(self.paths.cache, f"ggml-{model}.bin")

    def unavailable(self, model):
        if not self.cli:
            return "WHISPER_CPP_CLI not set"
        if not os.access(self.cli, os.X_OK):
            return f"{self.cli} is not executable"
        path = self.ggml(model)
        if os.path.exists(path):
            return None
        if not self.converter or not os.path.exists(self.converter):
            return "no ggml model and no ct2_to_ggml.py (set CT2_TO_GGML)"
        print(f"bench: converting {model} to {path}", file=sys.stderr, flush=True)
        os.makedirs(self.paths.cache, exist_ok=True)
        partial = path + ".tmp"
        done = subprocess.run([self.python, CONVERTER_RUNNER, self.converter, self.paths.model(model), partial],
                              capture_output=True, text=True)
        if done.returncode != 0 or not os.path.exists(partial):
            return "conversion failed: " + (last_line(done.stderr) or "?")
        os.replace(partial, path)
        return None

    def run(self, model, beam, audio):
        output_dir = tempfile.mkdtemp(prefix="wcpp-bench-")
        try:
            prefix = os.path.join(output_dir, "out")
            timed = run_timed(command(self.cli, self.ggml(model), audio, self.threads, beam, self.language, prefix),
                              env=self.env)
            text = None
            if os.path.exists(prefix + ".txt"):
                with open(prefix + ".txt", encoding="utf-8") as fh:
                    text = " ".join(line.strip() for line in fh)
        finally:
            shutil.rmtree(output_dir, ignore_errors=True)
        if timed.returncode != 0:
            return Run(False, timed.wall, timed.peak_rss_mib, note=failure(timed.returncode, timed.stderr))
        load, transcribe = read_timings(timed.stderr)
        return Run(True, timed.wall, timed.peak_rss_mib, load, transcribe, text)
