"""The web page of `aural serve` (`/`), driven in headless Chromium (Debian's chromium and chromium-driver, through
selenium) against a real server with tiny.en: the bundled recording is Chromium's fake microphone, sent live over the
Realtime WebSocket; volatile text must show faint before the finals, and the finals must match the book's text; the
session must land in the history, be found by a search and export as SRT exactly as `aural history export` writes
it; a file upload must show its progress, text and segments. A second server with --no-history must still serve the
page, which then says the history is off, and the page must show the errors a user can meet (a refused upload, a
socket that closes, no microphone). Run by scripts/web-check; on a failure the browser's console log is printed."""

import base64
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import wave

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from websockets.sync.client import connect as websocket_connect

from test_openai_api import AUDIO, AURAL, MEDIA, ROOT, TWO_CITIES, Server, multipart, word_error_rate, words

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
BECKETT = "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better."

# The live path's bound. The finals come from the same engine and phrase finals as serve-check's Realtime test, which
# holds tiny.en under 0.2 on this recording; the browser adds only Chromium's resampling of the file to its capture
# rate and the page's float-to-PCM16 conversion, neither of which costs words. A broken path (a wrong rate, swapped
# bytes, lost or repeated chunks) gives a word error rate near 1, so 0.2 separates the two with room for the live
# engine's run-to-run variation on a loaded 2-core machine.
LIVE_WER = 0.2
# The upload is a whole-file transcription, as serve-check's REST tests, which hold it under 0.15.
FILE_WER = 0.15


def fake_microphone_recording(folder):
    """two_cities.wav with 1 s of silence before (the capture starts before the socket is ready) and 4 s after (a
    pause, so the last phrase is final before the test stops the microphone)."""
    path = os.path.join(folder, "two_cities_padded.wav")
    with wave.open(os.path.join(AUDIO, "two_cities.wav"), "rb") as source:
        params = source.getparams()
        frames = source.readframes(params.nframes)
    silence = b"\0" * params.sampwidth * params.nchannels
    with wave.open(path, "wb") as target:
        target.setparams(params)
        target.writeframes(silence * params.framerate + frames + silence * params.framerate * 4)
    return path


def chromium(downloads, microphone=None, allow_microphone=True):
    """Headless Chromium through chromium-driver; `microphone` is a WAV played once as the fake capture device;
    without `allow_microphone`, the page's request for it is denied, as a user who blocks it."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,1600",
                     "--use-fake-ui-for-media-stream" if allow_microphone else "--deny-permission-prompts"]:
        options.add_argument(argument)
    if microphone:
        options.add_argument("--use-fake-device-for-media-stream")
        options.add_argument(f"--use-file-for-fake-audio-capture={microphone}%noloop")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def console_on_failure(test):
    """Prints the browser's console log when the test fails, then fails it."""
    @functools.wraps(test)
    def run(self):
        try:
            test(self)
        except BaseException:
            print(f"\n--- browser console log ({test.__name__}) ---")
            try:
                for entry in self.driver.get_log("browser"):
                    print(f"{entry['level']}: {entry['message']}")
            except Exception as error:  # the browser itself may be what failed
                print(f"(no console log: {error})")
            print("--- end of console log ---")
            raise
    return run


def luminance(css_color):
    red, green, blue = [int(v) for v in re.findall(r"\d+", css_color)[:3]]
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


# Records, for every phrase (item) shown in the live transcript, when it was first seen volatile and when final,
# with its computed colour and style then: what a user saw, whatever the page's code.
OBSERVER = """
window.auralSeen = [];
const seen = new Set();
const look = () => {
  for (const span of document.querySelectorAll('#transcript span')) {
    const key = span.dataset.item + ' ' + span.className;
    if (seen.has(key) || !span.textContent.trim()) continue;
    seen.add(key);
    const style = getComputedStyle(span);
    window.auralSeen.push({item: span.dataset.item, kind: span.className, color: style.color,
                           fontStyle: style.fontStyle, at: performance.now(), text: span.textContent});
  }
};
new MutationObserver(look).observe(document.getElementById('transcript'),
                                   {subtree: true, childList: true, characterData: true, attributes: true});
"""


class PageTestCase(unittest.TestCase):
    server_arguments = ()

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="aural-web-check-")
        cls.downloads = os.path.join(cls.folder, "downloads")
        os.mkdir(cls.downloads)
        cls.history = os.path.join(cls.folder, "history.sqlite3")
        cls.microphone = fake_microphone_recording(cls.folder)
        cls.server = Server(*[a.replace("HISTORY", cls.history) for a in cls.server_arguments])
        cls.driver = chromium(cls.downloads, cls.microphone)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def open_page(self):
        self.driver.get(self.server.url + "/")
        self.wait(lambda d: d.find_element(By.ID, "history-status").text, "the history's status line")
        self.wait(lambda d: len(Select(d.find_element(By.ID, "model")).options) > 0, "the model picker")
        Select(self.driver.find_element(By.ID, "model")).select_by_value("tiny.en")
        self.driver.execute_script(OBSERVER)

    def wait(self, condition, what, timeout=30):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.2).until(condition)
        except TimeoutException:
            self.fail(f"waited {timeout} s for {what}; the error box says: {self.error_box()!r}")

    def error_box(self):
        box = self.driver.find_element(By.ID, "error")
        return box.text if box.is_displayed() else ""

    def text_of(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def final_text(self):
        return " ".join(s.text for s in self.driver.find_elements(By.CSS_SELECTOR, "#transcript .final"))

    def listen(self, until_words, timeout):
        """Starts the microphone, waits for finals holding `until_words` words (or for them to stop growing once the
        recording is over), stops, and returns the final text shown."""
        self.driver.find_element(By.ID, "live-start").click()
        self.wait(lambda d: "Listening" in self.text_of("live-status"), "the live session to start")
        started, last, last_change = time.time(), "", time.time()
        while time.time() - started < timeout:
            self.assertEqual(self.error_box(), "", "an error shown while listening")
            text = self.final_text()
            if text != last:
                last, last_change = text, time.time()
            if len(words(text)) >= until_words or (time.time() - started > 52 and time.time() - last_change > 8):
                break
            time.sleep(0.5)
        self.driver.find_element(By.ID, "live-stop").click()
        self.wait(lambda d: self.text_of("live-status").startswith("Stopped"), "the live session to stop")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "#transcript .volatile"), [],
                         "volatile text left after the session ended")
        return self.final_text()

    def upload(self, path):
        """Uploads a file through the page and waits for its answer; returns the status line."""
        self.driver.find_element(By.ID, "file").send_keys(path)
        self.driver.find_element(By.ID, "upload").click()
        self.wait(lambda d: self.text_of("upload-status").startswith(("Done", "Refused", "Failed")), "the upload's answer", 120)
        return self.text_of("upload-status")

    def history_sessions(self):
        status, body, _ = self.server.get("/v1/history?limit=1000")
        self.assertEqual(status, 200, body)
        return json.loads(body)["data"]


class WebPageWithHistory(PageTestCase):
    server_arguments = ("--history", "HISTORY")

    @console_on_failure
    def test_live_microphone_upload_and_history(self):
        self.open_page()
        self.assertEqual(Select(self.driver.find_element(By.ID, "language")).options[0].get_attribute("value"), "en")
        self.assertEqual(len(Select(self.driver.find_element(By.ID, "language")).options), 1,
                         "an English-only model offers English only")
        self.assertIn("Nothing yet", self.text_of("history-status"))

        # Live: the finals against the book, volatile text faint before them.
        shown = self.listen(until_words=len(words(TWO_CITIES)), timeout=120)
        error_rate = word_error_rate(TWO_CITIES, shown)
        print(f"\nlive: word error rate {error_rate:.3f}: {shown}")
        self.assertLess(error_rate, LIVE_WER, shown)
        self.check_volatile_before_final()
        live_id = int(re.search(r"session (\d+)", self.text_of("live-status")).group(1))
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history-list > li")) == 1, "the live session in the list")
        self.assertIn("Live (aural serve)", self.text_of("history-list"))

        # A file: its upload's progress, its text and segments, and its history session.
        flac = os.path.join(MEDIA, "two_cities.flac")
        status = self.upload(flac)
        self.assertTrue(status.startswith("Done"), status)
        progress = self.driver.find_element(By.ID, "upload-progress")
        total, loaded = float(progress.get_attribute("max")), float(progress.get_attribute("value"))
        self.assertGreater(total, os.path.getsize(flac), "the progress bar's total is the upload's size (set by its progress events)")
        self.assertEqual(loaded, total, "the progress bar reached the end")
        self.assertLess(word_error_rate(TWO_CITIES, self.text_of("file-text")), FILE_WER, self.text_of("file-text"))
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#file-segments tbody tr")
        self.assertGreater(len(rows), 2)
        starts = [self.seconds(row.find_elements(By.TAG_NAME, "td")[0].text) for row in rows]
        self.assertEqual(starts, sorted(starts), "segment times in order")
        self.assertLess(starts[0], 2.0)
        upload_id = int(re.search(r"session (\d+)", status).group(1))
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history-list > li")) == 2, "the upload in the list")

        # Search: the sessions whose text holds the word, with it marked.
        self.driver.find_element(By.ID, "history-query").send_keys("wisdom")
        self.driver.find_element(By.CSS_SELECTOR, "#history-search button[type=submit]").click()
        self.wait(lambda d: "match" in self.text_of("history-status"), "the search's answer")
        found = {int(b.get_attribute("data-session")) for b in self.driver.find_elements(By.CSS_SELECTOR, "#history-list button")}
        expected = {upload_id} | ({live_id} if "wisdom" in words(shown) else set())
        self.assertEqual(found, expected)
        marks = self.driver.find_elements(By.CSS_SELECTOR, "#history-list mark")
        self.assertTrue(marks and all(m.text.lower() == "wisdom" for m in marks), [m.text for m in marks])

        # Open the live session: its text is the finals the page showed; export it as SRT.
        self.driver.find_element(By.ID, "history-all").click()
        # The search's list may also hold two sessions, so wait for the status line of the whole list.
        self.wait(lambda d: self.text_of("history-status").startswith("Newest first")
                  and len(d.find_elements(By.CSS_SELECTOR, "#history-list > li")) == 2, "the whole list again")
        self.driver.find_element(By.CSS_SELECTOR, f"#history-list button[data-session='{live_id}']").click()
        self.wait(lambda d: self.text_of("detail-title").startswith(f"Session {live_id}"), "the session to open")
        self.assertEqual(words(self.text_of("detail-text")), words(shown), "the stored session is what the page showed")
        self.driver.find_element(By.CSS_SELECTOR, "#history-detail button[data-format=srt]").click()
        srt_path = os.path.join(self.downloads, f"aural-{live_id}.srt")
        self.wait(lambda d: os.path.exists(srt_path) and os.path.getsize(srt_path) > 0, "the SRT download")
        with open(srt_path, encoding="utf-8") as file:
            srt = file.read()
        cli = subprocess.run([AURAL, "history", "export", "--history", self.history, "--format", "srt", str(live_id)],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(srt, cli, "the page's SRT is the one 'aural history export' writes")
        self.assertRegex(srt, r"^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n")
        self.assertEqual(words(re.sub(r"\d+\n[\d:,]+ --> [\d:,]+\n", " ", srt)), words(shown))

    def check_volatile_before_final(self):
        seen = self.driver.execute_script("return window.auralSeen")
        volatile = [s for s in seen if s["kind"] == "volatile"]
        final = [s for s in seen if s["kind"] == "final"]
        self.assertTrue(volatile, "no volatile text was shown")
        self.assertLess(min(s["at"] for s in volatile), min(s["at"] for s in final), "volatile text came before the first final")
        before = [f for f in final if any(v["item"] == f["item"] and v["at"] < f["at"] for v in volatile)]
        self.assertGreaterEqual(len(before), len(final) / 2, "most phrases were volatile before they were final")
        for shown_volatile in volatile:
            self.assertEqual(shown_volatile["fontStyle"], "italic")
            self.assertGreater(luminance(shown_volatile["color"]), luminance(final[0]["color"]) + 60,
                               (shown_volatile["color"], final[0]["color"]))

    @staticmethod
    def seconds(clock):
        minutes, seconds = clock.split(":")
        return int(minutes) * 60 + float(seconds)

    def test_plain_api_clients_are_not_recorded_and_see_only_openais_events(self):
        before = len(self.history_sessions())
        with open(os.path.join(AUDIO, "beckett.wav"), "rb") as file:
            body, content_type = multipart([("model", "tiny.en")], "beckett.wav", file.read())
        status, text, headers = self.server.post("/v1/audio/transcriptions", body, content_type)
        self.assertEqual(status, 200, text)
        self.assertNotIn("Aural-History-Session", headers)
        events = self.realtime_events("")
        self.assertFalse([e for e in events if e.startswith("aural.")], events)
        self.assertIn("conversation.item.input_audio_transcription.completed", events)
        events = self.realtime_events("&volatile=true")
        self.assertIn("aural.transcription.volatile", events)
        self.assertNotIn("aural.history.session", events)
        self.assertEqual(len(self.history_sessions()), before, "nothing was recorded without history=true")
        status, text, headers = self.server.post("/v1/audio/transcriptions?history=true", body, content_type)
        self.assertEqual(status, 200, text)
        session = json.loads(self.server.get(f"/v1/history/{headers['Aural-History-Session']}")[1])
        self.assertEqual(words(session["text"]), words(BECKETT))
        self.assertEqual(session["session"]["source"], "beckett.wav (upload)")

    def realtime_events(self, options):
        """The event types a client gets for beckett.wav sent in real time (100 ms every 100 ms), then committed."""
        with wave.open(os.path.join(AUDIO, "beckett.wav"), "rb") as recording:
            rate, audio = recording.getframerate(), recording.readframes(recording.getnframes())
        url = f"ws://127.0.0.1:{self.server.port}/v1/realtime?intent=transcription{options}"
        types = []
        with websocket_connect(url, open_timeout=30, max_size=None) as socket:
            socket.send(json.dumps({"type": "session.update", "session": {"type": "transcription", "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": rate}, "transcription": {"model": "tiny.en", "language": "en"}}}}}))
            chunk, started = rate // 10 * 2, time.time()
            for index, offset in enumerate(range(0, len(audio), chunk)):
                socket.send(json.dumps({"type": "input_audio_buffer.append",
                                        "audio": base64.b64encode(audio[offset:offset + chunk]).decode()}))
                time.sleep(max(0.0, started + (index + 1) * 0.1 - time.time()))
            socket.send(json.dumps({"type": "input_audio_buffer.commit"}))
            # Until every phrase begun is completed and one has text (a commit that comes before the first words are
            # heard gets an empty item at once; the phrases follow).
            deadline, open_items, heard = time.time() + 120, set(), False
            while not heard or open_items:
                event = json.loads(socket.recv(timeout=max(0.1, deadline - time.time())))
                types.append(event["type"])
                self.assertNotEqual(event["type"], "error", event)
                if event["type"] == "input_audio_buffer.speech_started":
                    open_items.add(event["item_id"])
                if event["type"] == "conversation.item.input_audio_transcription.completed":
                    open_items.discard(event["item_id"])
                    heard = heard or bool(event["transcript"])
        return types

    def test_history_routes_answer_bad_requests_with_openais_errors(self):
        for path, status, param in [("/v1/history/999999", 404, "id"), ("/v1/history/abc", 400, "id"),
                                    ("/v1/history?limit=0", 400, "limit"), ("/v1/history/1/export?format=doc", 400, "format")]:
            code, body, _ = self.server.get(path)
            self.assertEqual(code, status, (path, body))
            self.assertEqual(json.loads(body)["error"]["param"], param, body)
        code, body, _ = self.server.post("/v1/audio/transcriptions?history=maybe", b"", "multipart/form-data; boundary=x")
        self.assertEqual((code, json.loads(body)["error"]["param"]), (400, "history"), body)
        with self.assertRaises(Exception) as refused:
            websocket_connect(f"ws://127.0.0.1:{self.server.port}/v1/realtime?intent=transcription&volatile=maybe", open_timeout=30)
        self.assertIn("400", str(refused.exception))
        self.assertEqual(self.server.get("/health")[0], 200)


class WebPageWithoutHistory(PageTestCase):
    server_arguments = ("--no-history",)

    @console_on_failure
    def test_the_page_works_and_says_history_is_off(self):
        self.open_page()
        self.assertIn("History is off", self.text_of("history-status"))
        self.assertFalse(self.driver.find_element(By.ID, "history-search").is_displayed())
        status, body, _ = self.server.get("/v1/history")
        self.assertEqual((status, json.loads(body)["error"]["code"]), (404, "history_disabled"), body)
        with open(os.path.join(AUDIO, "beckett.wav"), "rb") as file:
            form, content_type = multipart([("model", "tiny.en")], "beckett.wav", file.read())
        status, body, headers = self.server.post("/v1/audio/transcriptions?history=true", form, content_type)
        self.assertEqual(status, 200, body)
        self.assertIn("--no-history", headers.get("Aural-History-Error", ""), headers)

        # Live: the first phrases come, and nothing is saved.
        shown = self.listen(until_words=12, timeout=60)
        self.assertGreaterEqual(len(words(shown)), 12, shown)
        self.assertEqual(words(shown)[:6], words(TWO_CITIES)[:6], shown)
        self.assertEqual(self.text_of("live-status"), "Stopped.")

        status = self.upload(os.path.join(AUDIO, "beckett.wav"))
        self.assertTrue(status.startswith("Done") and "history" not in status, status)
        self.assertEqual(words(self.text_of("file-text")), words(BECKETT))

    @console_on_failure
    def test_the_page_shows_a_refused_upload_and_a_closed_socket(self):
        self.open_page()
        not_audio = os.path.join(self.folder, "notes.wav")
        with open(not_audio, "wb") as file:
            file.write(b"these bytes are not audio" * 100)
        self.assertTrue(self.upload(not_audio).startswith("Refused"))
        self.assertIn("could not be decoded", self.error_box())

        self.driver.find_element(By.ID, "live-start").click()
        self.wait(lambda d: "Listening" in self.text_of("live-status"), "the live session to start")
        self.server.process.send_signal(signal.SIGKILL)  # the server goes away mid-session
        self.server.process.wait()
        self.wait(lambda d: "live connection closed" in self.error_box(), "the page to say the socket closed")
        self.wait(lambda d: not d.find_element(By.ID, "live-start").get_attribute("disabled"), "Start to be usable again")
        self.server.stop()
        type(self).server = Server(*self.server_arguments)  # for the tests after this one


class WebPageWithAPIKey(PageTestCase):
    server_arguments = ("--no-history", "--api-key", "sesame")

    @console_on_failure
    def test_the_page_asks_for_the_key_and_uses_it_everywhere(self):
        self.driver.get(self.server.url + "/")
        self.wait(lambda d: d.find_element(By.ID, "key-row").is_displayed(), "the page to ask for the key")
        self.assertIn("Incorrect or missing API key", self.error_box())
        self.driver.find_element(By.ID, "api-key").send_keys("sesame\n")
        self.wait(lambda d: len(Select(d.find_element(By.ID, "model")).options) > 0, "the models, with the key")
        self.wait(lambda d: "History is off" in self.text_of("history-status"), "the history's status, with the key")
        Select(self.driver.find_element(By.ID, "model")).select_by_value("tiny.en")
        self.assertEqual(self.error_box(), "")
        shown = self.listen(until_words=6, timeout=60)  # the WebSocket, with the key as a subprotocol
        self.assertEqual(words(shown)[:6], words(TWO_CITIES)[:6], shown)
        self.assertTrue(self.upload(os.path.join(AUDIO, "beckett.wav")).startswith("Done"))
        self.assertEqual(words(self.text_of("file-text")), words(BECKETT))


class WebPageWithoutMicrophone(unittest.TestCase):
    """Chromium with no fake device, on a machine without a microphone, asked to deny the page one."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="aural-web-check-")
        cls.server = Server("--no-history")
        cls.driver = chromium(cls.folder, microphone=None, allow_microphone=False)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)

    @console_on_failure
    def test_a_missing_or_blocked_microphone_is_said(self):
        self.driver.get(self.server.url + "/")
        WebDriverWait(self.driver, 30).until(lambda d: d.find_element(By.ID, "history-status").text)
        self.driver.find_element(By.ID, "live-start").click()
        WebDriverWait(self.driver, 30).until(lambda d: d.find_element(By.ID, "error").is_displayed())
        self.assertRegex(self.driver.find_element(By.ID, "error").text,
                         r"^(No microphone was found|The microphone is blocked)")
        self.assertFalse(self.driver.find_element(By.ID, "live-start").get_attribute("disabled"))


if __name__ == "__main__":
    unittest.main()
