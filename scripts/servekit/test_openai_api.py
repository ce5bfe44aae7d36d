"""aural serve through OpenAI's own Python client: every response format, streaming, the models list, and every bad
input getting OpenAI's error JSON while the server keeps answering. Each test class starts a real `aural serve`
(tiny.en, the bundled recordings) on a free loopback port. Run by scripts/serve-check."""

import base64
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request
import wave

import openai

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AURAL = os.environ.get("AURAL_BIN", os.path.join(ROOT, ".build", "release", "aural"))
AUDIO = os.path.join(ROOT, "fixtures", "audio")
MEDIA = os.path.join(ROOT, "fixtures", "media")

# The book's words, as Tests/TestSupport/ReferenceTranscripts.swift has them.
TWO_CITIES = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, "
    "it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of "
    "Darkness, it was the spring of hope, it was the winter of despair, we had everything before us, we had nothing "
    "before us, we were all going direct to Heaven, we were all going direct the other way - in short, the period "
    "was so far like the present period, that some of its noisiest authorities insisted on its being received, for "
    "good or for evil, in the superlative degree of comparison only.")


def words(text):
    return re.findall(r"[a-z0-9']+", text.lower())


def word_error_rate(reference, hypothesis):
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1] / len(ref)


def read(folder, name):
    with open(os.path.join(folder, name), "rb") as file:
        return file.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """An `aural serve` process on a free port, stopped with SIGTERM."""

    def __init__(self, *arguments):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [AURAL, "serve", "--port", str(self.port), "--model", "tiny.en", *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"aural serve exited: {self.process.stderr.read()}")
            try:
                if self.get("/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("aural serve did not answer /health within 60 s")

    def get(self, path, headers=None):
        request = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), dict(error.headers)

    def post(self, path, body, content_type, headers=None):
        request = urllib.request.Request(
            self.url + path, data=body, method="POST", headers={"Content-Type": content_type, **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), dict(error.headers)

    def metric(self, name):
        body = self.get("/metrics")[1]
        match = re.search(rf"^{name} ([0-9.e+-]+)$", body, re.M)
        return float(match.group(1)) if match else None

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()


def multipart(fields, file_name=None, file_bytes=None):
    """A multipart/form-data body by hand, for requests the openai client will not send."""
    boundary = "auralserveboundary7"
    parts = []
    for name, value in fields:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    if file_name is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
            'Content-Type: application/octet-stream\r\n\r\n'.encode() + file_bytes + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class OpenAIClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--max-upload-mb", "20")
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key="unused", max_retries=0)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def transcribe(self, path, **options):
        options.setdefault("model", "whisper-1")
        with open(path, "rb") as file:
            return self.client.audio.transcriptions.create(file=file, **options)

    def test_json_is_the_books_text(self):
        result = self.transcribe(os.path.join(AUDIO, "two_cities.wav"))
        self.assertLess(word_error_rate(TWO_CITIES, result.text), 0.15, result.text)
        self.assertEqual(result.usage.seconds, 45)  # 44.3 s, billed in whole seconds rounded up

    def test_text_srt_and_vtt(self):
        text = self.transcribe(os.path.join(AUDIO, "two_cities.wav"), response_format="text")
        self.assertLess(word_error_rate(TWO_CITIES, text), 0.15, text)
        srt = self.transcribe(os.path.join(AUDIO, "two_cities.wav"), response_format="srt")
        self.assertRegex(srt, r"^1\n00:00:0\d,\d{3} --> 00:00:\d\d,\d{3}\n")
        self.assertLess(word_error_rate(TWO_CITIES, re.sub(r"\d+\n[\d:,]+ --> [\d:,]+\n", " ", srt)), 0.15, srt)
        vtt = self.transcribe(os.path.join(AUDIO, "two_cities.wav"), response_format="vtt")
        self.assertTrue(vtt.startswith("WEBVTT\n"), vtt)
        self.assertRegex(vtt, r"\n00:00:0\d\.\d{3} --> 00:00:\d\d\.\d{3}\n")

    def test_verbose_json_with_segments_and_words(self):
        result = self.transcribe(
            os.path.join(AUDIO, "two_cities.wav"), response_format="verbose_json",
            timestamp_granularities=["word", "segment"])
        self.assertEqual(result.language, "english")
        self.assertAlmostEqual(result.duration, 44.3, delta=0.5)
        self.assertGreater(len(result.segments), 2)
        self.assertLess(word_error_rate(TWO_CITIES, " ".join(s.text for s in result.segments)), 0.15)
        self.assertGreaterEqual(len(result.words), 0.85 * len(words(TWO_CITIES)))
        previous = 0.0
        for word in result.words:
            self.assertLessEqual(word.start, word.end, word)
            self.assertGreaterEqual(word.start, previous - 0.01, word)
            previous = word.start
        self.assertLessEqual(result.words[-1].end, result.duration + 0.01)
        first = next(w for w in result.words if words(w.word) == ["it"])
        self.assertLess(first.start, 2.0, "the first word starts near the recording's start")

    def test_segments_only_by_default_words_only_when_asked(self):
        result = self.transcribe(os.path.join(AUDIO, "beckett.wav"), response_format="verbose_json")
        self.assertTrue(result.segments)
        self.assertIsNone(result.words)
        result = self.transcribe(
            os.path.join(AUDIO, "beckett.wav"), response_format="verbose_json", timestamp_granularities=["word"])
        self.assertTrue(result.words)
        self.assertIsNone(result.segments)

    def test_streaming_deltas_add_up_to_the_done_text(self):
        with open(os.path.join(AUDIO, "two_cities.wav"), "rb") as file:
            stream = self.client.audio.transcriptions.create(model="whisper-1", file=file, stream=True)
            events = list(stream)
        deltas = [e for e in events if e.type == "transcript.text.delta"]
        done = [e for e in events if e.type == "transcript.text.done"]
        self.assertGreater(len(deltas), 2)
        self.assertEqual(len(done), 1)
        self.assertEqual(events[-1].type, "transcript.text.done")
        self.assertEqual("".join(d.delta for d in deltas).strip(), done[0].text)
        self.assertLess(word_error_rate(TWO_CITIES, done[0].text), 0.15)

    def test_other_containers_and_codecs(self):
        for name in ["two_cities.flac", "two_cities.m4a"]:
            result = self.transcribe(os.path.join(MEDIA, name))
            self.assertLess(word_error_rate(TWO_CITIES, result.text), 0.15, name)

    def test_translation_to_english(self):
        with open(os.path.join(AUDIO, "espeak_de.wav"), "rb") as file:
            result = self.client.audio.translations.create(model="base", file=file)
        german = self.transcribe(os.path.join(AUDIO, "espeak_de.wav"), model="base", language="de")
        self.assertTrue(result.text.strip())
        self.assertNotEqual(words(result.text), words(german.text), "the translation is not the German transcript")
        self.assertTrue({"the", "is", "a", "and", "of", "to", "in", "it", "you", "i"} & set(words(result.text)), result.text)

    def test_models_list_names_the_installed_models(self):
        names = [m.id for m in self.client.models.list()]
        self.assertIn("tiny.en", names)

    def test_unknown_model_is_not_found(self):
        with self.assertRaises(openai.NotFoundError) as caught:
            self.transcribe(os.path.join(AUDIO, "beckett.wav"), model="no-such-model")
        self.assertEqual(caught.exception.code, "model_not_found")
        self.assertIn("tiny.en", caught.exception.message)

    def test_bad_fields_name_the_field(self):
        cases = [
            ({"response_format": "docx"}, "response_format"),
            ({"temperature": 2}, "temperature"),
            ({"timestamp_granularities": ["word"]}, "timestamp_granularities[]"),
            ({"language": "de"}, "language"),  # tiny.en is English-only
            ({"language": "english please"}, "language"),
        ]
        for options, param in cases:
            with self.assertRaises(openai.BadRequestError, msg=options) as caught:
                self.transcribe(os.path.join(AUDIO, "beckett.wav"), **options)
            self.assertEqual(caught.exception.param, param, options)
            self.assertEqual(caught.exception.type, "invalid_request_error")
        self.assertEqual(self.server.get("/health")[0], 200)


class BadInputTests(unittest.TestCase):
    """Inputs the openai client would not send, by hand: each gets OpenAI's error JSON and the server keeps going."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--max-upload-mb", "1")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def assertError(self, response, status, param=None, contains=None):
        code, body, _ = response
        self.assertEqual(code, status, body)
        error = json.loads(body)["error"]
        self.assertEqual(set(error), {"message", "type", "param", "code"}, body)
        self.assertEqual(error["param"], param, body)
        if contains:
            self.assertIn(contains, error["message"])
        self.assertEqual(self.server.get("/health")[0], 200, "the server still answers")

    def transcribe(self, fields, file_name=None, file_bytes=None):
        body, content_type = multipart(fields, file_name, file_bytes)
        return self.server.post("/v1/audio/transcriptions", body, content_type)

    def test_no_file(self):
        self.assertError(self.transcribe([("model", "whisper-1")]), 400, "file", "field named 'file'")

    def test_empty_file(self):
        self.assertError(self.transcribe([("model", "whisper-1")], "empty.wav", b""), 400, "file", "empty")

    def test_random_bytes(self):
        noise = bytes((i * 7919 + 13) % 256 for i in range(50_000))
        self.assertError(self.transcribe([("model", "whisper-1")], "noise.wav", noise), 400, "file", "could not be decoded")

    def test_text_file(self):
        self.assertError(self.transcribe([], "notes.txt", b"hello, this is not audio\n" * 100), 400, "file")

    def test_truncated_file(self):
        data = read(MEDIA, "beckett.mp3")
        code, body, _ = self.transcribe([("response_format", "text")], "cut.mp3", data[: len(data) // 3])
        # A cut MP3 decodes up to the cut, as FFmpeg reads it: the words before it, or a clear error.
        self.assertIn(code, (200, 400), body)
        if code == 400:
            self.assertError((code, body, {}), 400, "file")
        self.assertEqual(self.server.get("/health")[0], 200)

    def test_upload_over_the_limit(self):
        self.assertError(self.transcribe([], "big.wav", b"\0" * 1_500_000), 413, None, "limit")

    def test_not_multipart(self):
        self.assertError(self.server.post("/v1/audio/transcriptions", b'{"file": 1}', "application/json"), 400, None,
                         "multipart/form-data")

    def test_malformed_multipart(self):
        body = b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF"  # no end
        code, response_body, _ = self.server.post("/v1/audio/transcriptions", body, "multipart/form-data; boundary=b")
        self.assertEqual(code, 400, response_body)
        self.assertEqual(self.server.get("/health")[0], 200)

    def test_unknown_route_and_wrong_method(self):
        self.assertError(self.server.get("/v1/audio/speech"), 404)
        self.assertError(self.server.get("/v1/audio/transcriptions"), 405)

    def test_client_that_leaves_mid_stream(self):
        body, content_type = multipart([("stream", "true")], "two_cities.m4a", read(MEDIA, "two_cities.m4a"))
        with socket.create_connection(("127.0.0.1", self.server.port)) as connection:
            connection.sendall(
                f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            received = b""
            connection.settimeout(60)
            while b"transcript.text.delta" not in received:  # the first segment's event, then the client leaves
                chunk = connection.recv(65536)
                self.assertTrue(chunk, received)
                received += chunk
        self.assertEqual(self.server.get("/health")[0], 200)
        result = self.transcribe([("response_format", "text")], "beckett.wav", read(AUDIO, "beckett.wav"))
        self.assertEqual(result[0], 200, result[1])


class ServingTests(unittest.TestCase):
    def test_api_key(self):
        server = Server("--api-key", "sesame")
        try:
            client = openai.OpenAI(base_url=server.url + "/v1", api_key="wrong", max_retries=0)
            with self.assertRaises(openai.AuthenticationError):
                client.models.list()
            client = openai.OpenAI(base_url=server.url + "/v1", api_key="sesame", max_retries=0)
            with open(os.path.join(AUDIO, "beckett.wav"), "rb") as file:
                self.assertTrue(client.audio.transcriptions.create(model="whisper-1", file=file).text)
            self.assertEqual(server.get("/health")[0], 200, "health needs no key, for load balancers")
        finally:
            server.stop()

    def test_full_queue_is_refused_with_retry_after_and_sigterm_finishes_work(self):
        server = Server("--max-concurrent", "1", "--queue", "0")
        try:
            long_body = multipart([("response_format", "text")], "two_cities.flac", read(MEDIA, "two_cities.flac"))
            first = {}
            thread = threading.Thread(target=lambda: first.update(
                response=server.post("/v1/audio/transcriptions", *long_body)))
            thread.start()
            deadline = time.time() + 30
            while server.metric("aural_transcriptions_running") != 1 and time.time() < deadline:
                time.sleep(0.02)
            self.assertEqual(server.metric("aural_transcriptions_running"), 1)
            code, body, headers = server.post("/v1/audio/transcriptions", *long_body)
            self.assertEqual(code, 429, body)
            self.assertEqual(json.loads(body)["error"]["code"], "rate_limit_exceeded")
            self.assertEqual(headers.get("Retry-After"), "5")
            server.process.send_signal(signal.SIGTERM)  # while the first still runs
            thread.join(timeout=120)
            code, body, _ = first["response"]
            self.assertEqual(code, 200, "the request in progress is finished, not dropped")
            self.assertLess(word_error_rate(TWO_CITIES, body), 0.15)
            self.assertEqual(server.process.wait(timeout=30), 0)
        finally:
            server.stop()

    def test_a_taken_port_is_a_clear_error(self):
        server = Server()
        try:
            taken = subprocess.run([AURAL, "serve", "--port", str(server.port)], capture_output=True, text=True,
                                   timeout=60)
            self.assertNotEqual(taken.returncode, 0)
            self.assertIn(f"Cannot listen on 127.0.0.1:{server.port}", taken.stderr)
        finally:
            server.stop()


def pcm16_at(path, rate):
    """A mono 16-bit WAV's samples resampled linearly to `rate`, as 16-bit little-endian bytes."""
    with wave.open(path) as file:
        assert file.getnchannels() == 1 and file.getsampwidth() == 2
        source_rate = file.getframerate()
        frames = file.readframes(file.getnframes())
    samples = memoryview(frames).cast("h")
    count = len(samples) * rate // source_rate
    out = bytearray(count * 2)
    view = memoryview(out).cast("h")
    for i in range(count):
        position = i * source_rate / rate
        low = int(position)
        high = min(low + 1, len(samples) - 1)
        view[i] = int(samples[low] + (samples[high] - samples[low]) * (position - low))
    return bytes(out)


class RealtimeServerTests(unittest.TestCase):
    """A server of its own, started with `server_arguments` and reached with `api_key`, and Realtime connections to it
    through the openai client."""

    server_arguments = ()
    api_key = "none"

    @classmethod
    def setUpClass(cls):
        cls.server = Server(*cls.server_arguments)
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key=cls.api_key, max_retries=0)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def connect(self):
        return self.client.realtime.connect(model="whisper-1", extra_query={"intent": "transcription"})


class RealtimeTests(RealtimeServerTests):
    """OpenAI's Realtime transcription over WebSocket, through the openai client's realtime connection."""

    server_arguments = ("--api-key", "sesame")
    api_key = "sesame"

    def test_a_recording_sent_in_real_time_comes_back_as_items(self):
        audio = pcm16_at(os.path.join(AUDIO, "two_cities.wav"), 24000)
        chunk = 24000 * 2 // 10  # 100 ms
        events = []
        committed = threading.Event()
        with self.connect() as connection:
            watchdog = threading.Timer(180, connection.close)  # a server that stops answering fails the test
            watchdog.start()
            connection.session.update(session={"type": "transcription", "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": 24000},
                "transcription": {"model": "tiny.en", "language": "en"}}}})

            def send():
                started = time.time()
                for index, offset in enumerate(range(0, len(audio), chunk)):
                    connection.input_audio_buffer.append(audio=base64.b64encode(audio[offset:offset + chunk]).decode())
                    time.sleep(max(0.0, started + (index + 1) * 0.1 - time.time()))
                time.sleep(1.0)
                connection.input_audio_buffer.commit()
                committed.set()

            sender = threading.Thread(target=send)
            sender.start()
            while True:  # until the item that answers the commit
                event = connection.recv()
                events.append(event)
                if committed.is_set() and event.type == "conversation.item.input_audio_transcription.completed":
                    break
            sender.join()
            watchdog.cancel()
        types = [e.type for e in events]
        self.assertEqual(types[0], "session.created")
        self.assertIn("session.updated", types)
        completed = [e for e in events if e.type == "conversation.item.input_audio_transcription.completed" and e.transcript]
        self.assertGreaterEqual(len(completed), 2, types)
        self.assertLess(word_error_rate(TWO_CITIES, " ".join(e.transcript for e in completed)), 0.2,
                        [e.transcript for e in completed])
        for item in completed:
            own = [e for e in events if getattr(e, "item_id", None) == item.item_id]
            kinds = [e.type for e in own]
            self.assertEqual(kinds[0], "input_audio_buffer.speech_started", kinds)
            self.assertLess(kinds.index("input_audio_buffer.speech_stopped"), kinds.index(item.type))
            deltas = "".join(e.delta for e in own if e.type.endswith(".delta"))
            self.assertEqual(deltas, item.transcript)  # one delta with the phrase's final text, as whisper-1 sends
            start = own[0].audio_start_ms
            stop = next(e for e in own if e.type == "input_audio_buffer.speech_stopped").audio_end_ms
            self.assertTrue(0 <= start <= stop <= 45000, (start, stop))

    def live_sessions(self):
        body = self.server.get("/metrics", headers={"Authorization": "Bearer sesame"})[1]
        return float(re.search(r"^aural_live_sessions ([0-9.]+)$", body, re.M).group(1))

    def test_bad_events_get_error_events_and_the_session_goes_on(self):
        with self.connect() as connection:
            self.assertEqual(connection.recv().type, "session.created")
            connection.send_raw("{not json")
            error = connection.recv()
            self.assertEqual((error.type, error.error.code), ("error", "invalid_json"))
            connection.send_raw(json.dumps({"type": "response.create"}))
            self.assertEqual(connection.recv().error.code, "invalid_event_type")
            connection.send_raw(json.dumps({"type": "input_audio_buffer.append", "audio": "***"}))
            self.assertEqual(connection.recv().error.param, "audio")
            connection.input_audio_buffer.commit()
            self.assertEqual(connection.recv().error.code, "input_audio_buffer_commit_empty")
            connection.send_raw(json.dumps({"type": "transcription_session.update",
                                            "session": {"input_audio_format": "g711_ulaw"}}))
            self.assertEqual(connection.recv().error.code, "invalid_value")
            connection.send_raw(json.dumps({"type": "transcription_session.update",
                                            "session": {"input_audio_transcription": {"language": "en"}}}))
            self.assertEqual(connection.recv().type, "transcription_session.updated")
        self.assertEqual(self.server.get("/health")[0], 200)

    def test_metrics_count_open_sessions(self):
        with self.connect() as connection:
            self.assertEqual(connection.recv().type, "session.created")
            self.assertEqual(self.live_sessions(), 1)
        deadline = time.time() + 10
        while self.live_sessions() != 0 and time.time() < deadline:  # the close reaches the server asynchronously
            time.sleep(0.1)
        self.assertEqual(self.live_sessions(), 0)

    def test_a_wrong_key_is_refused_at_the_handshake(self):
        client = openai.OpenAI(base_url=self.server.url + "/v1", api_key="wrong", max_retries=0)
        with self.assertRaises(Exception) as caught:
            with client.realtime.connect(model="whisper-1", extra_query={"intent": "transcription"}) as connection:
                connection.recv()
        self.assertIn("401", str(caught.exception))


class IdleSocketTests(RealtimeServerTests):
    """A Realtime socket that sends nothing for --idle-timeout seconds is closed by the server; one that talks is not."""

    server_arguments = ("--idle-timeout", "2")

    def test_a_quiet_socket_is_closed_and_a_talking_one_is_not(self):
        with self.connect() as talking, self.connect() as quiet:
            self.assertEqual(talking.recv().type, "session.created")
            self.assertEqual(quiet.recv().type, "session.created")
            opened = time.time()
            watchdog = threading.Timer(10, quiet.close)  # a server that never closes it fails below, on the code
            watchdog.start()
            self.addCleanup(watchdog.cancel)
            for _ in range(8):  # 4 s of messages, each under the limit after the one before
                talking.send_raw(json.dumps({"type": "input_audio_buffer.clear"}))
                self.assertEqual(talking.recv().type, "input_audio_buffer.cleared")
                time.sleep(0.5)
            with self.assertRaises(Exception) as closed:
                quiet.recv()
            self.assertLess(time.time() - opened, 10)
            self.assertIn("1008", str(closed.exception))
            talking.send_raw(json.dumps({"type": "input_audio_buffer.clear"}))
            self.assertEqual(talking.recv().type, "input_audio_buffer.cleared")
        self.assertEqual(self.server.get("/health")[0], 200)


class WyomingTests(unittest.TestCase):
    """Home Assistant's exchange, through the wyoming package's own client."""

    @classmethod
    def setUpClass(cls):
        cls.wyoming_port = free_port()
        cls.server = Server("--wyoming", str(cls.wyoming_port))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def exchange(self, events):
        import asyncio
        from wyoming.client import AsyncTcpClient

        async def run():
            async with AsyncTcpClient("127.0.0.1", self.wyoming_port) as client:
                for event in events:
                    await client.write_event(event.event())
                return await asyncio.wait_for(client.read_event(), timeout=120)

        return asyncio.run(run())

    def test_describe_lists_the_models(self):
        from wyoming.info import Describe, Info

        info = Info.from_event(self.exchange([Describe()]))
        self.assertEqual(info.asr[0].name, "aural")
        models = {m.name: m for m in info.asr[0].models}
        self.assertEqual(models["tiny.en"].languages, ["en"])
        self.assertIn("de", models["base"].languages)

    def test_home_assistants_exchange_gives_the_transcript(self):
        from wyoming.asr import Transcribe, Transcript
        from wyoming.audio import AudioChunk, AudioStart, AudioStop

        audio = pcm16_at(os.path.join(AUDIO, "beckett.wav"), 22050)  # a rate the engine must convert
        chunk = 2048
        events = [Transcribe(name="tiny.en", language="en"), AudioStart(rate=22050, width=2, channels=1)]
        events += [AudioChunk(rate=22050, width=2, channels=1, audio=audio[i:i + chunk]) for i in range(0, len(audio), chunk)]
        events.append(AudioStop())
        transcript = Transcript.from_event(self.exchange(events))
        self.assertEqual(words(transcript.text), words("Ever tried. Ever failed. No matter. Try again. Fail again. Fail better."))

    def test_audio_stop_without_audio_is_an_error(self):
        from wyoming.audio import AudioStop

        event = self.exchange([AudioStop()])
        self.assertEqual((event.type, event.data["code"]), ("error", "no-audio"))
        self.assertEqual(self.server.get("/health")[0], 200)


if __name__ == "__main__":
    unittest.main()
