"""aural, the repository's CLI: `aural transcribe --format json` and the `timings` object it writes.

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


def build(root):
    """`swift build -c release --product aural` in `root`; returns a status for the report ("built" or why not)."""
    with open(BUILD_LOG, "w") as log:
        done = subprocess.run(["swift", "build", "-c", "release", "--product", "aural"], cwd=root, stdout=log,
                              stderr=subprocess.STDOUT)
    return "built" if done.returncode == 0 else f"build failed (see {BUILD_LOG})"


def command(binary, model_dir, beam, threads, language, audio, output_dir):
    """The `aural transcribe` command line: JSON into `output_dir`, no progress bar, and the spoken language unless
    `language` is "auto" (then aural detects it)."""
    cmd = [binary, "transcribe", audio, "--model", model_dir, "--beam-size", str(beam), "--threads", str(threads),
           "--format", "json", "--output-dir", output_dir, "--quiet"]
    if language != "auto":
        cmd += ["--language", language]
    return cmd


def read_document(doc):
    """(text, model load seconds, transcription seconds, note) from aural's JSON document; the times are None, and
    the note says so, when the document has no `timings` (an aural older than JSONWriter's timings)."""
    text = doc.get("text")
    timings = doc.get("timings")
    if not isinstance(timings, dict):
        return text, None, None, "no timings in aural's JSON"
    return text, timings.get("model_load_seconds"), timings.get("transcription_seconds"), ""


class Aural:
    """The aural binary at `binary`, which `build_status` says how it was obtained."""

    name = "aural"

    def __init__(self, binary, paths, threads, language, build_status):
        self.binary, self.paths, self.threads = binary, paths, threads
        self.language, self.build_status = language, build_status

    def unavailable(self, model):
        if not os.access(self.binary, os.X_OK):
            return f"{self.binary} missing ({self.build_status})"
        return None

    def run(self, model, beam, audio):
        output_dir = tempfile.mkdtemp(prefix="aural-bench-")
        try:
            timed = run_timed(command(self.binary, self.paths.model(model), beam, self.threads, self.language, audio,
                                      output_dir))
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
