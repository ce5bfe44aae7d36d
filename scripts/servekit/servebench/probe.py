"""What a server answers to requests a newcomer would try (issue 34): the response formats, random bytes, an empty
file, an unknown model, and a Realtime WebSocket handshake. Each answer is summed up as status, content type and
whether the body is OpenAI's error JSON ({"error": {"message", …}} at the top level)."""

import json
import random
import textwrap
import urllib.error
import urllib.request

from test_openai_api import multipart
from websockets.sync.client import connect

from servebench.load import ROUTE

FORMATS = ("json", "verbose_json", "text", "srt", "vtt")
WEBSOCKET_CASE = "WebSocket /v1/realtime"


def _post(url, fields, name, data):
    body, content_type = multipart(fields, name, data)
    request = urllib.request.Request(url + ROUTE, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode(errors="replace")
    except OSError as error:  # no HTTP answer at all
        return 0, "", f"no answer: {error}"


def _short(text, width=100):
    return textwrap.shorten(text, width, placeholder=" …")


def describe(status, content_type, body):
    """One table cell: the status, the media type, and what the body is."""
    media = content_type.split(";")[0].strip() or "no type"
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and parsed["error"].get("message"):
        what = f"OpenAI error JSON: {_short(parsed['error']['message'])}"
    elif isinstance(parsed, dict) and "text" in parsed:
        extra = sorted(k for k in parsed if k != "text")
        what = "JSON with text" + (f", {', '.join(extra)}" if extra else "")
        if isinstance(parsed.get("segments"), list) and parsed["segments"]:
            what += "; segment words: " + ("yes" if parsed["segments"][0].get("words") or parsed.get("words") else "no")
    else:
        what = _short(body) or "empty body"
    return f"{status} {media}: {what}".replace("|", "/")


def websocket(url):
    """What a Realtime WebSocket handshake at /v1/realtime?intent=transcription gets: its first event, or the
    refusal."""
    try:
        with connect(url.replace("http://", "ws://") + "/v1/realtime?intent=transcription", open_timeout=10) as ws:
            return f"open; first event {json.loads(ws.recv(timeout=10)).get('type')}"
    except Exception as failure:
        return _short(f"refused: {failure}").replace("|", "/")


def run(url, wav, model_field="whisper-1"):
    """[(case, answer)] for the server at `url`; `wav` is a short recording's bytes."""
    answers = []
    for fmt in FORMATS:
        answers.append((f"response_format={fmt}", describe(*_post(url, [("model", model_field),
                                                                        ("response_format", fmt)], "a.wav", wav))))
    noise = random.Random(34).randbytes(20000)
    answers.append(("20 kB of random bytes", describe(*_post(url, [("model", model_field)], "noise.wav", noise))))
    answers.append(("an empty file", describe(*_post(url, [("model", model_field)], "empty.wav", b""))))
    answers.append(("model=no-such-model", describe(*_post(url, [("model", "no-such-model")], "a.wav", wav))))
    answers.append((WEBSOCKET_CASE, websocket(url)))
    return answers
