"""Live sessions through OpenAI's Realtime transcription WebSocket (/v1/realtime), several at once, each sending its
recordings in 100 ms chunks paced by the wall clock, as a microphone would: the audio at time t of the recording is
sent at session start + t (rounded up to the chunk), then a few seconds of silence, then a commit.

A phrase's lag is the time from its audio end (the `audio_end_ms` of its `speech_stopped` event: its last word's end)
to its `…transcription.completed` event, on the wall clock. Phrases that only the final commit ended are left out of
the lag (they wait for the commit, not for the server)."""

import base64
import json
import re
import threading
import time
import urllib.request
from dataclasses import dataclass, field

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from servebench import summary
from servebench.summary import COMPLETED

CHUNK_S = 0.1
TAIL_SILENCE_S = 3.0
ANSWER_TIMEOUT_S = 60  # after the commit, for the session's last items


@dataclass
class Session:
    """One live session as the client saw it."""

    index: int
    order: list
    """The recordings it sent, by name, in order."""
    audio_s: float
    events: list = field(default_factory=list)
    """(monotonic time received, event dict), in order."""
    started: float | None = None
    """Monotonic time of the audio's start: the audio at t seconds was sent at started + t (rounded up to a chunk)."""
    committed: float | None = None
    finished: bool = False
    """True when the server answered the final commit and closed every item."""
    late_send_s: float = 0.0
    """The most the client itself fell behind the wall clock when sending a chunk."""
    error: str | None = None

    def text(self):
        """The transcripts of its completed items, in order, joined."""
        return summary.transcript(self.events)

    def lags(self):
        """(audio end s, lag s) of every phrase with text completed before the commit, in the order of the audio."""
        return summary.phrase_lags(self.events, self.started, self.committed)

    def by_commit(self):
        """Items with text that completed only after the final commit."""
        return summary.completed_after(self.events, self.committed)


def _open_items(events):
    started = {e["item_id"] for _, e in events if e.get("type") == "input_audio_buffer.speech_started"}
    done = {e["item_id"] for _, e in events if e.get("type") == COMPLETED}
    return started - done


def _receive(ws, session, lock):
    try:
        for message in ws:
            with lock:
                session.events.append((time.monotonic(), json.loads(message)))
    except (ConnectionClosed, ValueError):
        pass


def _update(ws, model, language, rate):
    """Sends the session's format and model; returns None when the server confirms it, else what it answered."""
    first = json.loads(ws.recv(timeout=30))
    if first.get("type") != "session.created":
        return f"first event {first.get('type')}"
    ws.send(json.dumps({"type": "session.update", "session": {"type": "transcription", "audio": {"input": {
        "format": {"type": "audio/pcm", "rate": rate}, "transcription": {"model": model, "language": language}}}}}))
    reply = json.loads(ws.recv(timeout=30))
    return None if reply.get("type") == "session.updated" else json.dumps(reply)[:200]


def _send_paced(ws, session, audio, rate):
    chunk = int(rate * CHUNK_S) * 2
    session.started = time.monotonic()
    for index, offset in enumerate(range(0, len(audio), chunk)):
        due = session.started + (index + 1) * CHUNK_S
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            session.late_send_s = max(session.late_send_s, -delay)
        ws.send(json.dumps({"type": "input_audio_buffer.append",
                            "audio": base64.b64encode(audio[offset:offset + chunk]).decode()}))


def run_session(url, session, audio, model, language, rate, delay):
    """Runs one session (audio: its PCM16 at `rate`, silence already appended) after `delay` seconds; fills in
    `session`, never raises."""
    time.sleep(delay)
    lock = threading.Lock()
    try:
        with connect(url.replace("http://", "ws://") + "/v1/realtime?intent=transcription", open_timeout=30,
                     max_size=None) as ws:
            problem = _update(ws, model, language, rate)
            if problem:
                session.error = f"session.update: {problem}"
                return
            receiver = threading.Thread(target=_receive, args=(ws, session, lock))
            receiver.start()
            _send_paced(ws, session, audio, rate)
            session.committed = time.monotonic()
            ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
            deadline = session.committed + ANSWER_TIMEOUT_S
            while time.monotonic() < deadline and not session.finished:
                time.sleep(0.1)
                with lock:
                    answered = any(t >= session.committed and e.get("type") in (COMPLETED, "error")
                                   for t, e in session.events)
                    session.finished = answered and not _open_items(session.events)
            ws.close()
            receiver.join()
        codes = [e.get("error", {}).get("code") for _, e in session.events if e.get("type") == "error"]
        if codes:
            session.error = f"error events from the server: {', '.join(map(str, codes))}"[:200]
        elif not session.finished:
            session.error = f"no answer to the final commit within {ANSWER_TIMEOUT_S} s"
    except Exception as failure:  # a refused handshake, a dropped connection: reported, not raised
        session.error = f"{type(failure).__name__}: {failure}"[:200]


def metrics_sampler(url, stop, samples, interval=2.0):
    """Reads the server's /metrics every `interval` seconds until `stop` is set, appending
    {name: value} of its unlabelled gauges (transcriptions running, queue depth, …) to `samples`."""
    while not stop.wait(interval):
        try:
            with urllib.request.urlopen(url + "/metrics", timeout=5) as response:
                body = response.read().decode()
        except OSError:
            continue
        samples.append({m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) ([0-9.eE+-]+)$", body, re.M)})


def run(url, sessions, audios, model, language, rate, stagger_s=0.25):
    """Runs `sessions` (Session objects, audio in `audios` by index) at once, the i-th starting i × stagger_s seconds
    after the first; returns the /metrics samples taken meanwhile."""
    stop, samples = threading.Event(), []
    sampler = threading.Thread(target=metrics_sampler, args=(url, stop, samples))
    sampler.start()
    threads = [threading.Thread(target=run_session, args=(url, s, audios[s.index], model, language, rate,
                                                          s.index * stagger_s)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    sampler.join()
    return samples
