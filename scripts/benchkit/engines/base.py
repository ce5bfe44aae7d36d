"""What every engine gives the bench."""
import os
from dataclasses import dataclass
from typing import Protocol

# Scripts that the engines' own Python runs (they import faster_whisper). They live in runners/, not next to the
# engine modules, because Python puts a script's folder first on its path, where engines/faster_whisper.py would
# shadow the faster_whisper package.
RUNNERS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runners")


@dataclass
class Run:
    """One transcription by one engine."""

    ok: bool
    wall: float
    """Process wall time in seconds."""
    peak_rss_mib: float | None = None
    load_s: float | None = None
    """Model load time in seconds as the engine reports it; None when it does not."""
    transcribe_s: float | None = None
    """Audio decoding plus transcription in seconds as the engine reports it; None when it does not."""
    text: str | None = None
    note: str = ""
    """For a failed run, why; else what is worth knowing about it (detected language, import time)."""


class Engine(Protocol):
    """An engine the bench can time."""

    name: str
    """Its name on the command line and in the tables (aural, fw-fp32, fw-int8, whisper.cpp)."""

    def unavailable(self, model: str) -> str | None:
        """Why it cannot run `model` here, or None when it can (preparing what it needs, such as a converted model)."""

    def run(self, model: str, beam: int, audio: str) -> Run:
        """Transcribes `audio` once with `model` at beam size `beam`."""
