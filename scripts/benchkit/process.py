"""Running one engine process under GNU time, for its wall time and peak memory."""
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

TIME = "/usr/bin/time"


@dataclass
class Timed:
    """What one timed process did."""

    returncode: int
    wall: float
    """Seconds from start to exit, measured here."""
    peak_rss_mib: float | None
    """Maximum resident set size in MiB, as GNU time reports it; None when it did not."""
    stdout: str
    stderr: str


def run_timed(cmd, env=None):
    """Runs `cmd` under `/usr/bin/time -v` with no standard input and returns a `Timed`.

    The process gets its own process group, so that an interrupted bench also ends the engine under time.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time", delete=False) as report:
        report_path = report.name
    try:
        start = time.perf_counter()
        proc = subprocess.Popen([TIME, "-v", "-o", report_path] + list(cmd), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        try:
            out, err = proc.communicate()
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        wall = time.perf_counter() - start
        with open(report_path, encoding="utf-8", errors="replace") as fh:
            rss = peak_rss_mib(fh.read())
    finally:
        os.remove(report_path)
    return Timed(proc.returncode, wall, rss, out, err)


def peak_rss_mib(time_report):
    """The "Maximum resident set size (kbytes)" of a `time -v` report, in MiB; None when absent."""
    for line in time_report.splitlines():
        if "Maximum resident set size" in line:
            return int(line.rsplit(":", 1)[1]) / 1024.0
    return None


def failure(returncode, output):
    """A failed run's note: its exit status and the last line it printed ("exit 1: error: …")."""
    line = last_line(output)
    return f"exit {returncode}: {line}" if line else f"exit {returncode}"


def last_line(text, limit=120):
    """The last non-empty line of `text` (an error message, usually), cut to `limit` characters."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:limit] if lines else ""
