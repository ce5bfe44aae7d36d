"""The ordinary deployment of `aural serve` (deploy/, docs/serve.md "Deployment"), tested through one address: Debian's
nginx, run as this user with deploy/nginx/aural.conf (its ports substituted; pid, logs and temporary files in a
temporary directory), in front of two real `aural serve` replicas with tiny.en on free loopback ports, started with the
flags of deploy/systemd/aural-serve.env. Through nginx, OpenAI's Python client transcribes (json, verbose_json, and
`stream=true` with its events arriving as the replica sends them), serve-check's Realtime tests run unchanged,
requests spread over both replicas, a large upload streams to a replica as it arrives, and a killed or a draining
replica loses no request. The systemd unit and the Kubernetes manifest are checked as far as this machine can.
Run by scripts/deploy-check."""

import atexit
import http.client
import json
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
import wave

import openai

import test_openai_api as served
from serverproc import ServerProcess, free_port
from test_openai_api import AUDIO, AURAL, ROOT, TWO_CITIES, multipart, read, word_error_rate, words

DEPLOY = os.path.join(ROOT, "deploy")
# Another copy of the site config may be tested in its place, for example one edited for a server of your own.
NGINX_TEMPLATE = os.environ.get("AURAL_NGINX_SITE") or os.path.join(DEPLOY, "nginx", "aural.conf")
UNIT = os.path.join(DEPLOY, "systemd", "aural-serve@.service")
UNIT_ENV = os.path.join(DEPLOY, "systemd", "aural-serve.env")
MANIFEST = os.path.join(DEPLOY, "kubernetes", "aural-serve.yaml")
NGINX = os.environ.get("NGINX_BIN") or shutil.which("nginx") or "/usr/sbin/nginx"
BECKETT = "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better."
API_KEY = "deploy-check-" + secrets.token_hex(12)
DRAIN_SECONDS = 300  # SpeechServer.stop's drainSeconds: how long a replica finishes its work after SIGTERM

LIVE = []  # every ServerProcess started here and not yet stopped, for the cleanup on exit
FOLDERS = []  # every temporary directory made here and not yet removed


def stop_everything():
    """Stops every replica and nginx still running and removes their files: on exit, on a failure, and at once on
    SIGINT, SIGTERM or SIGHUP (Python would otherwise wait for a test's threads before it runs atexit)."""
    while LIVE:
        LIVE.pop().stop(seconds=5)
    while FOLDERS:
        shutil.rmtree(FOLDERS.pop(), ignore_errors=True)


def _exit_on_signal(number, _frame):
    stop_everything()
    os._exit(128 + number)


atexit.register(stop_everything)
for _number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_number, _exit_on_signal)


def started(process):
    LIVE.append(process)
    return process


def stopped(process, seconds=60):
    if process in LIVE:
        LIVE.remove(process)
    process.stop(seconds=seconds)


def env_file():
    """deploy/systemd/aural-serve.env's settings, as systemd's EnvironmentFile= reads them."""
    settings = {}
    with open(UNIT_ENV) as file:
        for line in file:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, value = line.partition("=")
                settings[name] = value
    return settings


def http_request(url, method="GET", body=None, headers=None, timeout=60):
    """(status, body text, headers) of one request, with the deployment's API key unless `headers` says otherwise."""
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"Authorization": f"Bearer {API_KEY}", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def metric(replica, pattern):
    """A number from a replica's own /metrics (asked directly, not through nginx), or 0 when the line is absent."""
    status, body, _ = http_request(replica.url + "/metrics")
    if status != 200:
        raise AssertionError(f"{replica.name}'s /metrics answered {status}: {body}")
    match = re.search(rf"^{pattern} ([0-9.e+-]+)$", body, re.M)
    return float(match.group(1)) if match else 0.0


def transcriptions_answered(replica):
    return metric(replica, re.escape('aural_requests_total{route="/v1/audio/transcriptions",status="200"}'))


def counted_since(replicas, before, expected):
    """The transcriptions each replica has answered since `before`. A replica counts a request just after it has
    answered it, so this waits up to 5 s for them to add up to `expected`."""
    added = lambda: [transcriptions_answered(r) - b for r, b in zip(replicas, before)]
    wait_until(lambda: sum(added()) >= expected, 5)
    return added()


def transcriptions_running(replica):
    return metric(replica, "aural_transcriptions_running")


def wait_until(condition, seconds, interval=0.05):
    """Polls `condition` until it is true or `seconds` pass; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def repeated_wav(path, times, destination):
    """The recording `times` over, so that it spans several of the engine's 30-second windows."""
    with wave.open(path) as source:
        parameters, frames = source.getparams(), source.readframes(source.getnframes())
    with wave.open(destination, "wb") as target:
        target.setparams(parameters)
        target.writeframes(frames * times)
    return destination


def padded_wav(data, padding):
    """A WAV file with `padding` bytes of a JUNK chunk before its samples: large, yet only its own seconds of audio,
    and its text comes out only if every byte before the samples arrived."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    position = 12
    while data[position:position + 4] != b"data":
        size = int.from_bytes(data[position + 4:position + 8], "little")
        position += 8 + size + (size & 1)
    chunks = data[12:position] + b"JUNK" + padding.to_bytes(4, "little") + bytes(padding) + data[position:]
    return b"RIFF" + (len(chunks) + 4).to_bytes(4, "little") + b"WAVE" + chunks


class Deployment:
    """Two `aural serve` replicas and nginx in front of them, all files in one temporary directory. `url` is nginx's
    one address; `get` is the same as Server.get in test_openai_api, so its tests can run against nginx."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="aural-deploy-check-")
        FOLDERS.append(self.directory)
        self.uploads = os.path.join(self.directory, "uploads")  # the replicas' TMPDIR, where uploads are written
        os.mkdir(self.uploads)
        self.replicas, self.nginx = [], None
        try:
            self.replicas = [self._start_replica(index) for index in (1, 2)]
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.nginx = self._start_nginx()
        except BaseException:
            self.stop()
            raise

    def _start_replica(self, index):
        key_file = os.path.join(self.directory, "api-keys")
        with open(key_file, "w") as file:
            file.write(f"{API_KEY}\n")
        # The unit's own flags (ExecStart= and AURAL_OPTIONS), with tiny.en as the model and a free port.
        arguments = ["--host", "127.0.0.1", "--api-key-file", key_file, *shlex.split(env_file()["AURAL_OPTIONS"])]
        port = free_port()
        return started(ServerProcess(
            f"replica {index}", [AURAL, "serve", "--port", str(port), "--model", "tiny.en", *arguments], port,
            os.path.join(self.directory, f"replica{index}.log"), env={**os.environ, "TMPDIR": self.uploads}))

    def _start_nginx(self):
        write(os.path.join(self.directory, "aural.conf"), site_config(self.port, [r.port for r in self.replicas]))
        write(os.path.join(self.directory, "nginx.conf"), main_config(self.directory))
        command = [NGINX, "-p", self.directory + "/", "-c", os.path.join(self.directory, "nginx.conf"),
                   "-e", os.path.join(self.directory, "error.log")]
        test = subprocess.run(command + ["-t"], capture_output=True, text=True)
        if test.returncode != 0:
            raise RuntimeError(f"nginx -t refuses the config made from {NGINX_TEMPLATE}:\n{test.stderr}")
        return started(ServerProcess("nginx", command + ["-g", "daemon off;"], self.port,
                                     os.path.join(self.directory, "nginx.log"), startup_seconds=15))

    def get(self, path, headers=None):
        return http_request(self.url + path, headers=headers)

    def client(self, max_retries=0):
        return openai.OpenAI(base_url=self.url + "/v1", api_key=API_KEY, max_retries=max_retries, timeout=300)

    def access_log(self):
        """nginx's access log: (method, path, status, [replica ports tried], [their statuses]) per request."""
        entries = []
        with open(os.path.join(self.directory, "access.log")) as file:
            for line in file:
                method, path, status, tried, statuses = line.rstrip("\n").split("\t")
                entries.append((method, path, int(status), [a.rsplit(":", 1)[-1] for a in tried.split(", ")],
                                statuses.split(", ")))
        return entries

    def stop(self):
        for process in [self.nginx, *self.replicas]:
            if process is not None:
                stopped(process)
        shutil.rmtree(self.directory, ignore_errors=True)
        if self.directory in FOLDERS:
            FOLDERS.remove(self.directory)


def write(path, text):
    with open(path, "w") as file:
        file.write(text)


def site_config(port, replica_ports):
    """deploy/nginx/aural.conf with nginx's port and the replicas' ports substituted."""
    with open(NGINX_TEMPLATE) as file:
        text = file.read()
    replacements = [("    listen 80;\n", f"    listen 127.0.0.1:{port};\n")]
    replacements += [(f"    server 127.0.0.1:{default} ", f"    server 127.0.0.1:{actual} ")
                     for default, actual in zip((8081, 8082), replica_ports)]
    for old, new in replacements:
        if text.count(old) != 1:
            raise RuntimeError(f"{NGINX_TEMPLATE} should have {old.strip()!r} once; deploy-check substitutes it")
        text = text.replace(old, new)
    return text


def main_config(directory):
    """A main nginx.conf for nginx run by this user: everything it writes goes to `directory`."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    # As root, nginx would run its workers as `nobody`, which cannot enter the temporary directory: keep this user.
    user_line = f"user {user};\n" if os.geteuid() == 0 else ""
    paths = "\n".join(f"    {kind}_temp_path {directory}/{kind}_temp;" for kind in
                      ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"{user_line}worker_processes 1;\npid {directory}/nginx.pid;\nerror_log {directory}/error.log notice;\n"
            "events { worker_connections 256; }\n"
            "http {\n"
            "    log_format deploycheck '$request_method\\t$uri\\t$status\\t$upstream_addr\\t$upstream_status';\n"
            f"    access_log {directory}/access.log deploycheck;\n"
            f"{paths}\n"
            f"    include {directory}/aural.conf;\n"
            "}\n")


_shared = None


def shared_deployment():
    """One deployment for the tests that leave it as they found it, made on first use."""
    global _shared
    if _shared is None:
        _shared = Deployment()
    return _shared


def tearDownModule():
    global _shared
    if _shared is not None:
        _shared.stop()
        _shared = None


class ThroughNginx(unittest.TestCase):
    """OpenAI's client against nginx's one address, the replicas behind it."""

    @classmethod
    def setUpClass(cls):
        cls.deployment = shared_deployment()
        cls.client = cls.deployment.client()

    def transcribe(self, path, client=None, **options):
        options.setdefault("model", "whisper-1")
        with open(path, "rb") as file:
            return (client or self.client).audio.transcriptions.create(file=file, **options)

    def test_health_answers_through_nginx_and_metrics_stay_per_replica(self):
        self.assertEqual(self.deployment.get("/health", headers={"Authorization": ""})[:2], (200, "ok\n"))
        self.assertEqual(self.deployment.get("/metrics")[0], 404, "scrape each replica, not the balancer")
        status, body, _ = self.deployment.get("/v1/audio/speech")
        self.assertEqual(status, 404)
        self.assertIn("No route", json.loads(body)["error"]["message"], "aural's own error JSON comes through")

    def test_json_and_verbose_json(self):
        result = self.transcribe(os.path.join(AUDIO, "two_cities.wav"))
        self.assertLess(word_error_rate(TWO_CITIES, result.text), 0.15, result.text)
        self.assertEqual(result.usage.seconds, 45)
        result = self.transcribe(os.path.join(AUDIO, "two_cities.wav"), response_format="verbose_json",
                                 timestamp_granularities=["word", "segment"])
        self.assertEqual(result.language, "english")
        self.assertAlmostEqual(result.duration, 44.3, delta=0.5)
        self.assertGreater(len(result.segments), 2)
        self.assertGreaterEqual(len(result.words), 0.85 * len(words(TWO_CITIES)))
        self.assertLess(word_error_rate(TWO_CITIES, " ".join(w.word for w in result.words)), 0.15)

    def test_the_api_key_goes_through_and_a_wrong_one_is_refused(self):
        wrong = openai.OpenAI(base_url=self.deployment.url + "/v1", api_key="wrong", max_retries=0)
        with self.assertRaises(openai.AuthenticationError):
            self.transcribe(os.path.join(AUDIO, "beckett.wav"), client=wrong)
        self.assertEqual(self.deployment.get("/v1/models", headers={"Authorization": ""})[0], 401)
        self.assertIn("tiny.en", [m.id for m in self.client.models.list()])

    def stream(self, url, path):
        """The events of a `stream=true` transcription, each with the time it arrived."""
        client = openai.OpenAI(base_url=url + "/v1", api_key=API_KEY, max_retries=0, timeout=300)
        arrivals = []
        with open(path, "rb") as file:
            for event in client.audio.transcriptions.create(model="whisper-1", file=file, stream=True):
                arrivals.append((time.monotonic(), event))
        return arrivals

    @staticmethod
    def pauses(arrivals):
        """The time between each event and the next."""
        return [b[0] - a[0] for a, b in zip(arrivals, arrivals[1:])]

    def test_streamed_events_arrive_as_the_replica_sends_them(self):
        path = repeated_wav(os.path.join(AUDIO, "two_cities.wav"), 2,
                            os.path.join(self.deployment.directory, "two_cities_twice.wav"))  # three windows
        direct = self.stream(self.deployment.replicas[0].url, path)
        proxied = self.stream(self.deployment.url, path)
        kinds = [(e.type, getattr(e, "delta", None)) for _, e in proxied]
        self.assertEqual(kinds, [(e.type, getattr(e, "delta", None)) for _, e in direct])
        self.assertEqual(kinds[-1][0], "transcript.text.done")
        self.assertGreater(len(kinds), 4)
        # The replica sends a 30-second window's segments at once, then pauses while it decodes the next window.
        # nginx must keep those pauses where they are: buffering, it holds events back (at least the last before
        # each pause) until more data comes, so they arrive after the pause instead of before it.
        direct_pauses, proxied_pauses = self.pauses(direct), self.pauses(proxied)
        windows = [i for i, pause in enumerate(direct_pauses) if pause > 0.5 * max(direct_pauses)]
        self.assertGreaterEqual(len(windows), 2, f"the replica should pause between windows: {direct_pauses}")
        for i in windows:
            self.assertGreater(proxied_pauses[i], 0.25 * direct_pauses[i],
                               f"through nginx, event {i + 1} ({kinds[i]}) should arrive before the pause, not after: "
                               f"{[round(p, 2) for p in proxied_pauses]} vs {[round(p, 2) for p in direct_pauses]}")
        done = proxied[-1][1]
        self.assertLess(word_error_rate(TWO_CITIES + " " + TWO_CITIES, done.text), 0.2, done.text)

    def test_requests_spread_over_both_replicas(self):
        replicas = self.deployment.replicas
        before = [transcriptions_answered(r) for r in replicas]
        for _ in range(4):
            self.assertEqual(words(self.transcribe(os.path.join(AUDIO, "beckett.wav")).text), words(BECKETT))
        added = counted_since(replicas, before, 4)
        self.assertEqual(sum(added), 4, added)
        self.assertTrue(all(count >= 1 for count in added), f"every replica should get some: {added}")

    def test_a_large_upload_streams_to_the_replica_as_it_arrives(self):
        body, content_type = multipart([("response_format", "text")], "padded.wav",
                                       padded_wav(read(AUDIO, "beckett.wav"), 60_000_000))
        connection = http.client.HTTPConnection("127.0.0.1", self.deployment.port, timeout=120)
        try:
            connection.putrequest("POST", "/v1/audio/transcriptions")
            for name, value in [("Content-Type", content_type), ("Content-Length", str(len(body))),
                                ("Authorization", f"Bearer {API_KEY}")]:
                connection.putheader(name, value)
            connection.endheaders()
            connection.send(body[:40_000_000])  # then the client pauses: nginx must already have passed most on
            arrived = wait_until(lambda: self.largest_file(self.deployment.uploads) >= 30_000_000, 30)
            self.assertTrue(arrived, "the replica has not received the first 30 MB: nginx holds the upload back "
                                     f"or refused it (its last request: {self.deployment.access_log()[-1:]})")
            self.assertEqual(self.largest_file(os.path.join(self.deployment.directory, "client_body_temp")), 0)
            connection.send(body[40_000_000:])
            response = connection.getresponse()
            text = response.read().decode()
            self.assertEqual(response.status, 200, text)
            self.assertEqual(words(text), words(BECKETT))
        finally:
            connection.close()
        self.assertTrue(wait_until(lambda: not os.listdir(self.deployment.uploads), 10), "uploads are deleted")

    @staticmethod
    def largest_file(folder):
        sizes = [os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)] if os.path.isdir(folder) else []
        return max(sizes, default=0)

    def post_head_only(self, content_length):
        """A POST that announces `content_length` bytes and sends none: the limits are checked on the header."""
        connection = http.client.HTTPConnection("127.0.0.1", self.deployment.port, timeout=30)
        try:
            connection.request("POST", "/v1/audio/transcriptions", headers={
                "Content-Type": "multipart/form-data; boundary=x", "Content-Length": str(content_length),
                "Authorization": f"Bearer {API_KEY}"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())["error"]
        finally:
            connection.close()

    def test_uploads_over_the_limit_get_413_as_json(self):
        status, error = self.post_head_only(101_000_000)  # over aural's 100 MB, under nginx's 100 MiB: aural answers
        self.assertEqual((status, error["code"]), (413, "request_too_large"), error)
        self.assertIn("limit", error["message"])
        status, error = self.post_head_only(150_000_000)  # over both: nginx answers, in the same form
        self.assertEqual((status, error["code"], error["type"]), (413, "request_too_large", "invalid_request_error"))
        self.assertEqual(self.deployment.get("/health")[0], 200)


class RealtimeThroughNginx(served.RealtimeTests):
    """serve-check's Realtime tests, unchanged, with nginx in place of the server: a recording sent in real time over
    one WebSocket comes back as items, bad events get error events, and a wrong key is refused at the handshake."""

    @classmethod
    def setUpClass(cls):
        cls.server = shared_deployment()
        cls.client = cls.server.client()

    @classmethod
    def tearDownClass(cls):
        pass  # the shared deployment is stopped at the end of the module

    def test_metrics_count_open_sessions(self):
        self.skipTest("/metrics is per replica and not proxied: scrape each replica")


class KilledReplica(unittest.TestCase):
    """A replica that dies (SIGKILL): nginx sends its requests to the other, POSTs included, since none had begun."""

    def setUp(self):
        self.deployment = Deployment()
        self.addCleanup(self.deployment.stop)

    def test_requests_still_succeed_through_the_other(self):
        victim, survivor = self.deployment.replicas
        before = transcriptions_answered(survivor)
        victim.process.kill()
        victim.process.wait()
        client = self.deployment.client(max_retries=0)  # no retries by the client: nginx must do it
        for _ in range(4):
            with open(os.path.join(AUDIO, "beckett.wav"), "rb") as file:
                self.assertEqual(words(client.audio.transcriptions.create(model="whisper-1", file=file).text),
                                 words(BECKETT))
        self.assertIn("tiny.en", [m.id for m in client.models.list()])
        self.assertEqual(self.deployment.get("/health")[:2], (200, "ok\n"))
        self.assertEqual(counted_since([survivor], [before], 4), [4])
        retried = [e for e in self.deployment.access_log()
                   if e[0] == "POST" and e[3] == [str(victim.port), str(survivor.port)] and e[4][-1] == "200"]
        self.assertTrue(retried, f"a POST should have tried the dead replica first: {self.deployment.access_log()}")


class DrainingReplica(unittest.TestCase):
    """A replica stopped with SIGTERM (a restart, a rolling update): it finishes and answers the transcription it is
    running, nginx sends what arrives meanwhile to the other, and the replica exits 0."""

    def setUp(self):
        self.deployment = Deployment()
        self.addCleanup(self.deployment.stop)

    def long_transcription(self, path, results, index):
        body, content_type = multipart([("response_format", "text")], "long.wav", read(*os.path.split(path)))
        results[index] = http_request(self.deployment.url + "/v1/audio/transcriptions", "POST", body,
                                      {"Content-Type": content_type}, timeout=300)

    def test_running_work_finishes_and_new_work_goes_to_the_other(self):
        replicas = self.deployment.replicas
        path = repeated_wav(os.path.join(AUDIO, "two_cities.wav"), 2,
                            os.path.join(self.deployment.directory, "two_cities_twice.wav"))
        results, threads = {}, []
        for index in range(2):  # one on each replica: nginx gives the second to the one with fewer connections
            threads.append(threading.Thread(target=self.long_transcription, args=(path, results, index)))
            threads[-1].start()
            self.assertTrue(wait_until(lambda: sum(transcriptions_running(r) for r in replicas) == index + 1, 30))
        self.assertEqual([transcriptions_running(r) for r in replicas], [1, 1])
        draining, other = replicas
        draining.process.send_signal(signal.SIGTERM)
        self.assertTrue(wait_until(lambda: http_request(draining.url + "/health")[0] == 503, 10))
        for _ in range(4):
            self.assertEqual(self.deployment.get("/v1/models")[0], 200)
        with open(os.path.join(AUDIO, "beckett.wav"), "rb") as file:  # OpenAI's client retries a 503
            text = self.deployment.client(max_retries=2).audio.transcriptions.create(model="whisper-1", file=file).text
        self.assertEqual(words(text), words(BECKETT))
        for thread in threads:
            thread.join(timeout=300)
        for index in range(2):
            status, body, _ = results[index]
            self.assertEqual(status, 200, body)
            self.assertLess(word_error_rate(TWO_CITIES + " " + TWO_CITIES, body), 0.2, body)
        self.assertEqual(draining.process.wait(timeout=60), 0)
        passed_on = [e for e in self.deployment.access_log() if e[:2] == ("GET", "/v1/models") and e[4] == ["503", "200"]]
        self.assertTrue(passed_on, f"a GET that met the draining replica should have gone on: {self.deployment.access_log()}")
        self.assertTrue(all(e[3][-1] == str(other.port) for e in passed_on))


class DeploymentFiles(unittest.TestCase):
    """The systemd unit and the Kubernetes manifest, checked as far as this machine can: systemd-analyze verify,
    the flags against `aural serve --help`, and the manifest's structure (no Kubernetes cluster here)."""

    @classmethod
    def setUpClass(cls):
        help_text = subprocess.run([AURAL, "serve", "--help"], capture_output=True, text=True, check=True).stdout
        cls.serve_flags = set(re.findall(r"--([a-z][a-z-]+)", help_text))

    def unit_text(self):
        with open(UNIT) as file:
            return file.read()

    def test_the_unit_verifies(self):
        analyze = shutil.which("systemd-analyze")
        if analyze is None:
            self.skipTest("systemd-analyze is not installed")
        with tempfile.TemporaryDirectory() as folder:
            unit = os.path.join(folder, "aural-serve@.service")
            write(unit, self.unit_text().replace("/usr/local/bin/aural", AURAL))  # the binary where it is here
            result = subprocess.run([analyze, "verify", unit], capture_output=True, text=True)
        complaints = [line for line in (result.stdout + result.stderr).splitlines() if "aural-serve" in line]
        self.assertEqual(complaints, [])
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_the_unit_uses_flags_aural_serve_has_and_waits_for_the_drain(self):
        text = self.unit_text()
        exec_start = re.search(r"^ExecStart=(.*)$", text, re.M).group(1)
        settings = env_file()
        for variable in set(re.findall(r"\$\{?([A-Z_]+)\}?", exec_start)):
            self.assertIn(variable, settings, f"ExecStart uses ${variable}, which {UNIT_ENV} does not set")
        flags = set(re.findall(r"--([a-z-]+)", exec_start + " " + settings["AURAL_OPTIONS"]))
        self.assertLessEqual(flags, self.serve_flags)
        self.assertIn("api-key-file", flags)
        self.assertRegex(exec_start, r"--host 127\.0\.0\.1 ")
        stop = re.search(r"^TimeoutStopSec=(\d+)s?$", text, re.M)
        self.assertGreater(int(stop.group(1)), DRAIN_SECONDS)
        self.assertRegex(text, r"(?m)^KillSignal=SIGTERM$")
        self.assertRegex(text, r"(?m)^Restart=on-failure$")

    def test_upload_limits_agree(self):
        with open(NGINX_TEMPLATE) as file:
            nginx_mib = int(re.search(r"client_max_body_size (\d+)m;", file.read()).group(1))
        aural_mb = int(re.search(r"--max-upload-mb[ =](\d+)", env_file()["AURAL_OPTIONS"]).group(1))
        container = self.manifest_documents()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
        self.assertIn(f"--max-upload-mb={aural_mb}", container["args"])
        # nginx must let through everything aural accepts, and not much more (aural's 413 says what to do).
        self.assertGreaterEqual(nginx_mib * 1024 * 1024, aural_mb * 1_000_000)
        self.assertLess(nginx_mib * 1024 * 1024, aural_mb * 1_000_000 * 1.1)

    def manifest_documents(self):
        """The manifest's documents by kind, parsed by Debian's python3-yaml (the venv has no YAML parser)."""
        script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        result = subprocess.run(["/usr/bin/python3", "-c", script, MANIFEST], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, f"{result.stderr} (apt-get install python3-yaml)")
        documents = json.loads(result.stdout)
        return {d["kind"]: d for d in documents}

    def test_the_kubernetes_manifest(self):
        documents = self.manifest_documents()
        deployment, service = documents["Deployment"], documents["Service"]
        self.assertEqual((deployment["apiVersion"], service["apiVersion"]), ("apps/v1", "v1"))
        spec = deployment["spec"]
        labels = spec["template"]["metadata"]["labels"]
        self.assertEqual(spec["replicas"], 2)
        self.assertLessEqual(spec["selector"]["matchLabels"].items(), labels.items())
        self.assertLessEqual(service["spec"]["selector"].items(), labels.items())
        self.assertEqual(service["spec"].get("sessionAffinity", "None"), "None")
        pod = spec["template"]["spec"]
        container = pod["containers"][0]
        self.assertEqual(container["command"], ["aural"])
        flags = {a[2:].split("=")[0] for a in container["args"] if a.startswith("--")}
        self.assertLessEqual(flags, self.serve_flags)
        self.assertIn("--host=0.0.0.0", container["args"])
        port_names = {p["name"]: p["containerPort"] for p in container["ports"]}
        self.assertIn(f"--port={port_names['http']}", container["args"])
        self.assertIn(service["spec"]["ports"][0]["targetPort"], port_names)
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            self.assertEqual(container[probe]["httpGet"], {"path": "/health", "port": "http"}, probe)
        self.assertEqual(container["resources"]["requests"]["cpu"], "2")
        self.assertEqual(container["resources"]["limits"], container["resources"]["requests"])
        pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        self.assertGreater(pod["terminationGracePeriodSeconds"], DRAIN_SECONDS + pause)
        volumes = {v["name"]: v for v in pod["volumes"]}
        for mounted in pod["initContainers"] + pod["containers"]:
            for mount in mounted["volumeMounts"]:
                self.assertIn(mount["name"], volumes)
        key_file = next(a.split("=", 1)[1] for a in container["args"] if a.startswith("--api-key-file="))
        key_mount = next(m for m in container["volumeMounts"] if key_file.startswith(m["mountPath"] + "/"))
        self.assertIn("secret", volumes[key_mount["name"]])
        claim = volumes["models"]["persistentVolumeClaim"]["claimName"]
        self.assertEqual(documents["PersistentVolumeClaim"]["metadata"]["name"], claim)


if __name__ == "__main__":
    unittest.main()
