"""Percentiles, per-run figures and their medians, and a live session's lag and whether it keeps up. Pure functions."""

import math
import statistics

# A live session keeps up when its lag's 90th percentile is under this many seconds (issue 33)...
LAG_LIMIT_S = 2.0
# ...and the lag of its last third of phrases is at most this much above that of its first third.
GROWTH_LIMIT_S = 0.5
COMPLETED = "conversation.item.input_audio_transcription.completed"


def percentile(values, p):
    """The p-th percentile (0-100) of `values` by linear interpolation between closest ranks; None when empty."""
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * p / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def run_figures(results):
    """One load run's figures from its `load.Result`s: audio seconds transcribed per wall second (successful
    requests' audio over first send to last answer), latency p50/p95 of the successful requests, and errors."""
    done = [r for r in results if r.ok]
    wall = max(r.end for r in results) - min(r.start for r in results) if results else 0.0
    latencies = [r.latency for r in done]
    audio = sum(r.audio_s for r in done)
    return dict(throughput=audio / wall if wall > 0 else None, p50=percentile(latencies, 50),
                p95=percentile(latencies, 95), errors=len(results) - len(done), audio_s=audio, wall_s=wall)


def _median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def combine(runs):
    """The figures for one server and concurrency from its runs (each a `run_figures` dict, plus peak_rss_mib,
    cpu_cores and other_cores): medians of throughput, p50, p95, the server's CPU and other work's, the largest peak
    memory, and the errors of all runs."""
    peaks = [r["peak_rss_mib"] for r in runs if r.get("peak_rss_mib") is not None]
    return dict(throughput=_median(r["throughput"] for r in runs), p50=_median(r["p50"] for r in runs),
                p95=_median(r["p95"] for r in runs), cpu_cores=_median(r.get("cpu_cores") for r in runs),
                other_cores=_median(r.get("other_cores") for r in runs),
                peak_rss_mib=max(peaks) if peaks else None, peaks=peaks, errors=sum(r["errors"] for r in runs),
                runs=len(runs),
                throughputs=[r["throughput"] for r in runs])


def ratio(a, b):
    """a / b, or None when either is unknown or b is 0."""
    return a / b if a is not None and b else None


def lag_figures(lags):
    """A live session's phrase lags, given as (audio end in seconds, lag in seconds) in the order of the audio:
    mean, p90 and max lag, the growth (mean lag of the last third of phrases minus that of the first third; 0 with
    fewer than three phrases), the least-squares slope of lag over audio time (seconds of lag per minute of audio),
    and whether the session keeps up (p90 under LAG_LIMIT_S and growth at most GROWTH_LIMIT_S)."""
    if not lags:
        return dict(phrases=0, mean=None, p90=None, max=None, growth=None, slope_per_min=None, keeps_up=False)
    values = [lag for _, lag in lags]
    third = len(lags) // 3
    growth = statistics.mean(values[-third:]) - statistics.mean(values[:third]) if third else 0.0
    slope = None
    if len(lags) >= 2:
        xs = [end for end, _ in lags]
        mean_x, mean_y = statistics.mean(xs), statistics.mean(values)
        spread = sum((x - mean_x) ** 2 for x in xs)
        if spread > 0:
            slope = 60 * sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, values)) / spread
    p90 = percentile(values, 90)
    return dict(phrases=len(lags), mean=statistics.mean(values), p90=p90, max=max(values), growth=growth,
                slope_per_min=slope, keeps_up=p90 < LAG_LIMIT_S and growth <= GROWTH_LIMIT_S)


def transcript(events):
    """The transcripts of a live session's completed items, in order, joined; `events` are (time, event dict)."""
    return " ".join(e["transcript"] for _, e in events if e.get("type") == COMPLETED and e.get("transcript"))


def phrase_lags(events, started, committed):
    """(audio end s, lag s) of every item with text completed before `committed` (None: the session never committed),
    sorted by audio end. The lag is the completed event's arrival minus (`started` + the item's `audio_end_ms`, from
    its speech_stopped event), all on the monotonic clock of `events` (a list of (time received, event dict))."""
    if started is None:
        return []
    ends = {e["item_id"]: e["audio_end_ms"] / 1000 for _, e in events
            if e.get("type") == "input_audio_buffer.speech_stopped"}
    lags = []
    for t, e in events:
        if e.get("type") == COMPLETED and e.get("transcript") and e.get("item_id") in ends \
                and (committed is None or t < committed):
            end = ends[e["item_id"]]
            lags.append((end, t - (started + end)))
    return sorted(lags)


def completed_after(events, committed):
    """How many items with text completed at or after `committed` (None: the session never committed)."""
    if committed is None:
        return 0
    return sum(1 for t, e in events if e.get("type") == COMPLETED and e.get("transcript") and t >= committed)
