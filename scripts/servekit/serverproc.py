"""Running a speech server for a test or a benchmark: a free loopback port, the process started with its output in a
log file (never an undrained pipe), a wait for `GET /health`, SIGTERM to stop it; and what the process tree uses
(resident memory and CPU time, read from /proc). Standard library only, so any Python here can import it."""

import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A server started with `command` (which must listen on `port`), its standard output and error in `log_path`.

    It gets a process group of its own, so that stopping it also stops anything it started. `cpus`, when given, is
    the set of CPUs it may run on (sched_setaffinity), the same for every server a benchmark compares.
    """

    def __init__(self, name, command, port, log_path, env=None, cpus=None, startup_seconds=120):
        self.name, self.port, self.log_path = name, port, log_path
        self.url = f"http://127.0.0.1:{port}"
        self._log = open(log_path, "w")
        affinity = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                        env=env, start_new_session=True, preexec_fn=affinity)
        try:
            self._wait_for_health(startup_seconds)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self):
        return self.process.pid

    def _wait_for_health(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with status {self.process.returncode}: {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5) as response:
                    if response.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer /health within {seconds} s: {self.log_tail()}")

    def log_tail(self, lines=5):
        """The last lines the server printed, for an error message."""
        self._log.flush()
        try:
            with open(self.log_path, errors="replace") as fh:
                return " | ".join(line.strip() for line in fh.readlines()[-lines:])
        except OSError:
            return ""

    def stop(self, seconds=60):
        """SIGTERM, then SIGKILL to the whole group after `seconds`. Safe to call twice."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # anything left in its group
        except ProcessLookupError:
            pass
        self.process.wait()
        self._log.close()


def _children():
    """{parent pid: [child pids]} for every process now."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def descendants(pid):
    """`pid` and every process below it."""
    tree, found, todo = _children(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(tree.get(current, []))
    return found


def rss_kib(pid):
    """Resident memory of one process in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


def cpu_seconds(pid):
    """User plus system CPU seconds of one process (its threads included, and its children it has waited for)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # Fields after the command: state is [0], so utime, stime, cutime, cstime are [11]..[14].
    return sum(int(v) for v in fields[11:15]) / TICKS


def system_busy_seconds():
    """CPU seconds every core has spent busy since boot (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICKS


class TreeMonitor:
    """Polls the memory of a process tree every `interval` seconds on a thread of its own, keeping the peak since the
    last `reset()`; `cpu()` is the tree's CPU seconds so far. Stop it with `close()`."""

    def __init__(self, pid, interval=0.05):
        self.pid, self.interval = pid, interval
        self._lock = threading.Lock()
        self._peak = 0
        self._pids = descendants(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self):
        last_scan = time.monotonic()
        while not self._stop.wait(self.interval):
            if time.monotonic() - last_scan > 1.0:  # a new child is rare; rescan the tree once a second
                self._pids, last_scan = descendants(self.pid), time.monotonic()
            total = sum(rss_kib(p) for p in self._pids)
            with self._lock:
                self._peak = max(self._peak, total)

    def reset(self):
        """Starts a new peak from the memory in use now."""
        with self._lock:
            self._peak = sum(rss_kib(p) for p in self._pids)

    def peak_mib(self):
        """The largest resident memory of the tree since the last reset, in MiB."""
        with self._lock:
            return self._peak / 1024

    def now_mib(self):
        """The tree's resident memory now, in MiB."""
        return sum(rss_kib(p) for p in descendants(self.pid)) / 1024

    def cpu(self):
        """The tree's CPU seconds so far."""
        return sum(cpu_seconds(p) for p in descendants(self.pid))

    def close(self):
        self._stop.set()
        self._thread.join()
