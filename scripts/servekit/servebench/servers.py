"""The two servers the bench compares, started the same way: on a free loopback port, the same CTranslate2 model
folder, compute type and beam size, pinned to the same cores, one at a time."""

import json
import os
import shutil
import subprocess
import sys

from serverproc import ServerProcess, free_port

AURAL = "aural"
PEER = "faster-whisper-server"
PEER_VERSION = "0.0.3"
REQUIREMENTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench-requirements.txt")
# The name the peer's config gives the model: its transcription route reads the model from a `model_name` form field
# that defaults to this, and ignores the `model` field OpenAI's clients send.
PEER_MODEL_NAME = "whisper-1"


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def copy_aural(binary, directory):
    """A copy of the aural binary in `directory`, so that a rebuild during a run does not change what runs."""
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"serve-bench: {binary} not found (swift build -c release --product aural, or set AURAL_BIN)")
    copy = os.path.join(directory, "aural")
    shutil.copy2(binary, copy)
    return copy


def peer_python(environ, cache):
    """The Python with faster-whisper-server: $FWS_PYTHON, else a venv in the bench cache (fwsenv) made on first use
    from bench-requirements.txt, every wheel checked against its hash."""
    chosen = environ.get("FWS_PYTHON")
    if chosen:
        if not os.access(chosen, os.X_OK):
            raise SystemExit(f"serve-bench: {chosen} not found; set FWS_PYTHON to a Python with faster-whisper-server")
        return chosen
    venv = os.path.join(cache, "fwsenv")
    python = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, "requirements.txt")
    if os.access(python, os.X_OK) and _same_file(marker, REQUIREMENTS):
        return python
    log(f"serve-bench: installing {PEER} {PEER_VERSION} (pinned, hashed) into {venv}")
    try:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", REQUIREMENTS],
                       check=True, stdout=sys.stderr)
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"serve-bench: installing {PEER} failed ({error})")
    shutil.copyfile(REQUIREMENTS, marker)
    return python


def _same_file(a, b):
    try:
        with open(a, "rb") as x, open(b, "rb") as y:
            return x.read() == y.read()
    except OSError:
        return False


class Setup:
    """What both servers get: the model folder, compute type, beam size and cores."""

    def __init__(self, paths, model, compute_type, beam, cpus, workdir):
        self.paths, self.model, self.compute_type, self.beam = paths, model, compute_type, beam
        self.cpus, self.workdir = cpus, workdir

    def start(self, name, program):
        """Starts server `name` (AURAL or PEER) and returns its running ServerProcess; `program` is the copy of the
        aural binary, or the Python that has the peer."""
        port = free_port()
        log_path = os.path.join(self.workdir, f"{name}-{self.model}.log")
        if name == AURAL:
            command = [program, "serve", "--host", "127.0.0.1", "--port", str(port), "--model", self.model,
                       "--compute-type", self.compute_type, "--beam-size", str(self.beam)]
            environ = dict(os.environ, AURALKIT_MODELS_DIR=self.paths.models)
        else:
            command = [os.path.join(os.path.dirname(program), PEER), "--config", self.peer_config(), "--host",
                       "127.0.0.1", "--port", str(port), "--log-level", "warning"]
            environ = dict(os.environ)
        log(f"serve-bench: starting {name}: {' '.join(command)}")
        return ServerProcess(name, command, port, log_path, env=environ, cpus=self.cpus)

    def peer_config(self):
        """The peer's model config (YAML, written as JSON, which YAML reads): the same folder, compute type, thread
        count and beam size as aural's."""
        config = {"models": [{
            "name": PEER_MODEL_NAME, "path": self.paths.model(self.model),
            "model_options": {"device": "cpu", "compute_type": self.compute_type, "cpu_threads": len(self.cpus)},
            "transcribe_options": {"beam_size": self.beam}}]}
        path = os.path.join(self.workdir, f"{PEER}-{self.model}.yaml")
        with open(path, "w") as fh:
            json.dump(config, fh, indent=1)
        return path
