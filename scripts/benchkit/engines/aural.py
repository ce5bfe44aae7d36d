"""aural, the repository's CLI: `aural transcribe --format json` and the `timings` object it writes.

Two engines: aural-fp32 (`--compute-type float32`) and aural-int8 (`--compute-type int8`), both on the same float16
model folder. An aural without `--compute-type` (before issue 12) runs aural-fp32 without the flag (its only, float
path) and skips aural-int8.

JSONWriter (Sources/AuralKit/Writers/JSONWriter.swift) documents the fields read here: `text` is the whole transcript;
`timings` holds `model_load_seconds` (reading the model folder) and `transcription_seconds` (decoding the audio file
and transcribing it), both in seconds of wall time.
"""
import json
import os
import shutil
import subprocess
import tempfile

from benchkit.engines.base import Run
from benchkit.process import failure, run_timed

BUILD_LOG = "/tmp/aural-bench-build.log"
COMPUTE_TYPES = {"aural-fp32": "float32", "aural-int8": "int8"}


def build(root):
    """`swift build -c release --product aural` in `root`; returns a status for the report ("built" or why not)."""
    with open(BUILD_LOG, "w") as log:
        done = subprocess.run(["swift", "build", "-c", "release", "--product", "aural"], cwd=root, stdout=log,
                              stderr=subprocess.STDOUT)
    return "built" if done.returncode == 0 else f"build failed (see {BUILD_LOG})"


def command(binary, model_dir, beam, threads, language, audio, output_dir, compute_type=None):
    """The `aural transcribe` command line: JSON into `output_dir`, no progress bar, the spoken language unless
    `language` is "auto" (then aural detects it), and `--compute-type` unless `compute_type` is None."""
    cmd = [binary, "transcribe", audio, "--model", model_dir, "--beam-size", str(beam), "--threads", str(threads),
           "--format", "json", "--output-dir", output_dir, "--quiet"]
    if language != "auto":
        cmd += ["--language", language]
    if compute_type is not None:
        cmd += ["--compute-type", compute_type]
    return cmd


def has_compute_type(help_text):
    """Whether `aural transcribe --help` output offers --compute-type."""
    return "--compute-type" in help_text


def help_text(binary):
    """`binary transcribe --help`'s output (standard output and error), or "" when it cannot run."""
    try:
        done = subprocess.run([binary, "transcribe", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def read_document(doc):
    """(text, model load seconds, transcription seconds, note) from aural's JSON document; the times are None, and
    the note says so, when the document has no `timings` (an aural older than JSONWriter's timings)."""
    text = doc.get("text")
    timings = doc.get("timings")
    if not isinstance(timings, dict):
        return text, None, None, "no timings in aural's JSON"
    return text, timings.get("model_load_seconds"), timings.get("transcription_seconds"), ""


class Aural:
    """The aural binary at `binary` under `name` (aural-fp32 or aural-int8); `build_status` says how the binary was
    obtained."""

    def __init__(self, name, binary, paths, threads, language, build_status):
        self.name, self.compute_type = name, COMPUTE_TYPES[name]
        self.binary, self.paths, self.threads = binary, paths, threads
        self.language, self.build_status = language, build_status
        self._flag = None  # whether the binary takes --compute-type; asked once

    def compute_type_flag(self):
        """The --compute-type value to pass, or None for an aural without the option (float32 only)."""
        if self._flag is None:
            self._flag = has_compute_type(help_text(self.binary))
        return self.compute_type if self._flag else None

    def unavailable(self, model):
        if not os.access(self.binary, os.X_OK):
            return f"{self.binary} missing ({self.build_status})"
        if self.compute_type != "float32" and self.compute_type_flag() is None:
            return "this aural has no --compute-type"
        return None

    def run(self, model, beam, audio):
        output_dir = tempfile.mkdtemp(prefix="aural-bench-")
        try:
            timed = run_timed(command(self.binary, self.paths.model(model), beam, self.threads, self.language, audio,
                                      output_dir, self.compute_type_flag()))
            if timed.returncode != 0:
                return Run(False, timed.wall, timed.peak_rss_mib, note=failure(timed.returncode, timed.stderr))
            # aural names the transcript after the audio file: DIR/<name>.json
            transcript = os.path.join(output_dir, os.path.splitext(os.path.basename(audio))[0] + ".json")
            if not os.path.exists(transcript):
                return Run(False, timed.wall, timed.peak_rss_mib, note=f"no {os.path.basename(transcript)} written")
            with open(transcript, encoding="utf-8") as fh:
                text, load, transcribe, note = read_document(json.load(fh))
        finally:
            shutil.rmtree(output_dir, ignore_errors=True)
        return Run(True, timed.wall, timed.peak_rss_mib, load, transcribe, text, note)
