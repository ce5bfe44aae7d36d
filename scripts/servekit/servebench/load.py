"""Concurrent clients against /v1/audio/transcriptions: N threads take the next of a fixed number of requests, each
a recording in turn (round-robin), as a multipart POST with response_format json, as OpenAI's clients send it."""

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

ROUTE = "/v1/audio/transcriptions"
TIMEOUT = 600  # seconds one request may take, queueing included, before it counts as an error


@dataclass
class Result:
    """One request as the client saw it."""

    recording: str
    audio_s: float
    start: float
    """Monotonic clock when the request was sent."""
    end: float
    status: int
    """HTTP status; 0 when the request failed without one (connection refused, timeout)."""
    text: str | None
    error: str | None

    @property
    def latency(self):
        return self.end - self.start

    @property
    def ok(self):
        return self.status == 200 and self.text is not None


def post(url, recording):
    """One transcription request; never raises."""
    request = urllib.request.Request(url + ROUTE, data=recording.body, method="POST",
                                     headers={"Content-Type": recording.content_type})
    start = time.monotonic()
    status, text, error = 0, None, None
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            status, body = response.status, response.read()
        text = json.loads(body)["text"]
    except urllib.error.HTTPError as failure:
        status, error = failure.code, failure.read().decode(errors="replace")[:200]
    except (OSError, ValueError, KeyError) as failure:
        error = f"{type(failure).__name__}: {failure}"[:200]
    return Result(recording.name, recording.seconds, start, time.monotonic(), status, text, error)


def run(url, recordings, clients, requests):
    """`requests` requests from `clients` threads at once; returns every Result, in the order they were sent.

    Request k sends recordings[k % len(recordings)], so every run sends the same audio whatever the concurrency.
    """
    jobs = queue.Queue()
    for k in range(requests):
        jobs.put(recordings[k % len(recordings)])
    results, lock = [], threading.Lock()

    def client():
        while True:
            try:
                recording = jobs.get_nowait()
            except queue.Empty:
                return
            result = post(url, recording)
            with lock:
                results.append(result)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(results, key=lambda r: r.start)
