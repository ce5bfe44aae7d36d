"""faster-whisper (CTranslate2) in float32 (fw-fp32) or int8 (fw-int8), in a Python of its own.

That Python is $FW_PYTHON, else /opt/fwenv/bin/python, else a virtual environment in the bench cache into which
faster-whisper is installed from PyPI the first time. It is the reference engine, never used by aural or its tests.
"""
import json
import os
import re
import subprocess
import sys

from benchkit.engines.base import RUNNERS, Run
from benchkit.process import last_line, run_timed

PACKAGE = "faster-whisper==1.2.1"
SYSTEM_PYTHON = "/opt/fwenv/bin/python"
RUNNER = os.path.join(RUNNERS, "faster_whisper_once.py")
COMPUTE_TYPES = {"fw-fp32": "float32", "fw-int8": "int8"}


def python(environ, cache):
    """The Python that runs faster-whisper, installing it into `cache`/fwenv when neither $FW_PYTHON nor
    /opt/fwenv exists. Raises SystemExit when $FW_PYTHON names nothing executable or the install fails."""
    chosen = environ.get("FW_PYTHON")
    if chosen:
        if not os.access(chosen, os.X_OK):
            raise SystemExit(f"bench: {chosen} not found; set FW_PYTHON to a Python with faster-whisper")
        return chosen
    if os.access(SYSTEM_PYTHON, os.X_OK):
        return SYSTEM_PYTHON
    venv = os.path.join(cache, "fwenv")
    venv_python = os.path.join(venv, "bin", "python")
    if not os.access(venv_python, os.X_OK):
        print(f"bench: installing {PACKAGE} into {venv}", file=sys.stderr, flush=True)
        try:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", PACKAGE], check=True,
                           stdout=sys.stderr)
        except subprocess.CalledProcessError as error:
            raise SystemExit(f"bench: installing {PACKAGE} failed ({error})")
    return venv_python


def command(python_path, model_dir, compute_type, beam, language, audio, threads):
    """The runner's command line (see runners/faster_whisper_once.py)."""
    return [python_path, RUNNER, model_dir, compute_type, str(beam), language, audio, str(threads)]


def read_output(stdout):
    """The runner's BENCH_JSON object, or None when it printed none."""
    match = re.search(r"^BENCH_JSON (.*)$", stdout, re.M)
    return json.loads(match.group(1)) if match else None


class FasterWhisper:
    """faster-whisper under `name` (fw-fp32 or fw-int8)."""

    def __init__(self, name, python_path, paths, threads, language):
        self.name, self.compute_type = name, COMPUTE_TYPES[name]
        self.python, self.paths, self.threads, self.language = python_path, paths, threads, language

    def unavailable(self, model):
        return None

    def run(self, model, beam, audio):
        timed = run_timed(command(self.python, self.paths.model(model), self.compute_type, beam, self.language, audio,
                                  self.threads))
        out = read_output(timed.stdout) if timed.returncode == 0 else None
        if out is None:
            return Run(False, timed.wall, timed.peak_rss_mib, note=last_line(timed.stderr) or "failed")
        return Run(True, timed.wall, timed.peak_rss_mib, out["load_s"], out["transcribe_s"], out["text"],
                   f"lang={out['language']} import={out['import_s']:.2f}s")
