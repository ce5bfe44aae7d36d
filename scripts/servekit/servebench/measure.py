"""Measuring one server: its warm-up, the load runs at each concurrency, the live sessions (aural only), and the
odd requests, with the server's CPU and memory and how busy the rest of the machine was meanwhile."""

import contextlib
import os
import time

from benchkit.paths import THREADS
from benchkit.stats import wer
from serverproc import TreeMonitor, cpu_seconds, system_busy_seconds

from servebench import live, load, probe, recordings, report, summary
from servebench.servers import AURAL, log


class Meter:
    """The server tree's CPU, the rest of the machine's and the wall time over one stretch of work."""

    def __init__(self, monitor):
        self.monitor = monitor
        self.server, self.machine = monitor.cpu(), system_busy_seconds()
        self.own, self.start = cpu_seconds(os.getpid()), time.monotonic()

    def read(self):
        """(wall s, server cores, cores busy with other work: neither the server nor this client)."""
        wall = max(time.monotonic() - self.start, 1e-6)
        server = self.monitor.cpu() - self.server
        own = cpu_seconds(os.getpid()) - self.own
        other = system_busy_seconds() - self.machine - server - own
        return wall, server / wall, max(0.0, other / wall)


def measure_load(url, monitor, recordings_, warm, args, others):
    """{clients: figures} for one server; `warm` is its warm-up text per recording."""
    figures = {}
    book = recordings.REFERENCES
    for n in args.clients:
        runs, errors, wers, same, answers = [], [], [], 0, 0
        for i in range(args.runs):
            monitor.reset()
            meter = Meter(monitor)
            results = load.run(url, recordings_, n, args.requests)
            wall, cores, other = meter.read()
            others.append(other)
            run = summary.run_figures(results)
            run.update(peak_rss_mib=monitor.peak_mib(), cpu_cores=cores, other_cores=other)
            runs.append(run)
            for r in results:
                if r.ok:
                    answers += 1
                    same += r.text == warm.get(r.recording)
                    if r.recording in book:
                        wers.append(wer(book[r.recording], r.text))
                elif len(errors) < 3:
                    errors.append(f"{r.status} {r.error}")
            log(f"serve-bench: {n} clients run {i + 1}/{args.runs}: {report.fmt(run['throughput'])} audio s/s, "
                f"p50 {report.fmt(run['p50'])} s, errors {run['errors']}, "
                f"peak {run['peak_rss_mib']:.0f} MiB, server {cores:.2f} cores, other work {other:.2f} cores")
        combined = summary.combine(runs)
        combined.update(wer=sum(wers) / len(wers) if wers else None, same_text=f"{same} of {answers}",
                        error_samples=errors)
        figures[n] = combined
    return figures


def warm_up(url, recordings_):
    """One request per recording; {name: text}. Raises RuntimeError when one fails."""
    texts = {}
    for r in recordings_:
        result = load.post(url, r)
        if not result.ok:
            raise RuntimeError(f"warm-up {r.name}: {result.status} {result.error}")
        texts[r.name] = result.text
        log(f"serve-bench: warm-up {r.name} ({r.seconds:.1f} s) in {result.latency:.2f} s: {result.text[:60]!r}")
    return texts


def live_sessions(recordings_, count, workdir, rate):
    """`count` sessions and their audio: session i sends every recording, starting with the i-th (so the sessions'
    phrases do not end together), then TAIL_SILENCE_S of silence, as PCM16 at `rate`."""
    pcm = {r.name: recordings.pcm(r, workdir, rate) for r in recordings_}
    silence = bytes(int(rate * live.TAIL_SILENCE_S) * 2)
    sessions, audios = [], {}
    for i in range(count):
        mine = [recordings_[(i + k) % len(recordings_)] for k in range(len(recordings_))]
        audios[i] = b"".join(pcm[r.name] for r in mine) + silence
        sessions.append(live.Session(i, [r.name for r in mine], sum(r.seconds for r in mine)))
    return sessions, audios


def measure_live(url, monitor, recordings_, file_texts, args, model, workdir, others):
    """The live section's figures for aural serve."""
    rate = recordings.LIVE_RATE
    sessions, audios = live_sessions(recordings_, args.live, workdir, rate)
    rss_before = monitor.now_mib()
    monitor.reset()
    meter = Meter(monitor)
    samples = live.run(url, sessions, audios, model, args.language, rate)
    wall, cores, other = meter.read()
    others.append(other)
    peak = monitor.peak_mib()
    time.sleep(2.0)  # the sessions' sockets are closed; what stays in memory after them
    rss_after = monitor.now_mib()
    rows = []
    for s in sessions:
        reference = " ".join(recordings.REFERENCES.get(name) or file_texts[name] for name in s.order)
        lag = summary.lag_figures(s.lags())
        rows.append(dict(index=s.index, order=s.order, audio_s=s.audio_s, lag=lag, by_commit=s.by_commit(),
                         wer=wer(reference, s.text()) if s.events else None, error=s.error,
                         late_send_s=s.late_send_s))
        log(f"serve-bench: live session {s.index + 1}: {lag['phrases']} phrases, lag mean {report.fmt(lag['mean'])} "
            f"p90 {report.fmt(lag['p90'])} s, WER {report.percent(rows[-1]['wer'])}, client late by at most "
            f"{s.late_send_s:.2f} s{', ' + s.error if s.error else ''}")
    gauges = {}
    for sample in samples:
        for name, value in sample.items():
            if "running" in name or "queue" in name or "session" in name:
                gauges[name] = max(gauges.get(name, value), value)
    return dict(sessions=rows, cpu_cores=cores, cpu_per_session_pct=100 * cores / max(1, args.live),
                peak_rss_mib=peak, rss_before_mib=rss_before, rss_after_mib=rss_after, rate=rate,
                tail_s=live.TAIL_SILENCE_S,
                metrics=", ".join(f"max {k} {v:g}" for k, v in sorted(gauges.items())) or "no samples",
                compute_type=args.compute_type, cores=THREADS, gauges=gauges, other_cores=other)


@contextlib.contextmanager
def running(setup, name, binary, results):
    """Server `name` started, with a monitor of its process tree; None when it did not start (noted in `results`).
    Stops it afterwards; a RuntimeError inside (a failed warm-up) is noted, not raised."""
    try:
        server = setup.start(name, binary)
    except RuntimeError as error:
        log(f"serve-bench: {error}")
        results["notes"].append(f"{name} did not start: {error}")
        yield None
        return
    monitor = TreeMonitor(server.pid)
    try:
        yield server, monitor
    except RuntimeError as error:
        log(f"serve-bench: {name}: {error}")
        results["notes"].append(f"{name} ({setup.model}): {error}")
    finally:
        monitor.close()
        server.stop()


def bench_server(setup, name, binary, recordings_, args, results, others):
    """Measures server `name`: the load runs and the odd requests on one process, then the live sessions (aural
    only) on a fresh one, so that their memory is measured from a server that has only loaded its model."""
    with running(setup, name, binary, results) as started:
        if started is None:
            return
        server, monitor = started
        warm = warm_up(server.url, recordings_)
        results["file_texts"].setdefault(setup.model, {})[name] = warm
        idle = monitor.now_mib()
        figures = measure_load(server.url, monitor, recordings_, warm, args, others)
        for f in figures.values():
            f["idle_rss_mib"] = idle
        results["rest"].setdefault(setup.model, {})[name] = figures
        if not args.no_probe and setup.model == args.models[0]:
            with open(recordings_[-1].path, "rb") as fh:
                results["probes"][name] = probe.run(server.url, fh.read())
    warm = results["file_texts"].get(setup.model, {}).get(name)
    if name != AURAL or args.live <= 0 or warm is None:
        return
    with running(setup, name, binary, results) as started:
        if started is not None:
            server, monitor = started
            results["live"][setup.model] = measure_live(server.url, monitor, recordings_, warm, args, setup.model,
                                                        setup.workdir, others)
