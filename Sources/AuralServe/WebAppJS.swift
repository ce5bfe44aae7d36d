/// The page's script (`/web/app.js`): the microphone over the Realtime WebSocket, the upload with its progress, the history.
/// Plain text, served as it is (`WebAsset`): edit it here; there is no build step.
let webAppJS = #"""
// AuralKit's web page: live transcription from the microphone over OpenAI's Realtime WebSocket, a file sent to
// /v1/audio/transcriptions with its upload's progress, and the server's history. Plain JavaScript: no build step,
// no framework, nothing from another server.
"use strict";

const $ = (id) => document.getElementById(id);
const page = { apiKey: sessionStorage.getItem("auralApiKey") || "", models: [], historyOn: false, live: null, session: null };

// Errors and requests

function showError(message) {
  $("error").textContent = message || "";
  $("error").hidden = !message;
}

class ServerError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function authHeaders() {
  return page.apiKey ? { Authorization: `Bearer ${page.apiKey}` } : {};
}

// The message and code of OpenAI's error JSON, or the body's start when it is not that.
function errorOf(status, text) {
  try {
    const body = JSON.parse(text);
    if (body.error && body.error.message) return [body.error.message, body.error.code];
  } catch (_) { /* not JSON */ }
  return [`The server answered ${status}${text ? ": " + text.slice(0, 200) : ""}.`, null];
}

async function request(path) {
  let response;
  try {
    response = await fetch(path, { headers: authHeaders() });
  } catch (error) {
    throw new ServerError(0, `The server cannot be reached (${error.message}).`, null);
  }
  if (!response.ok) {
    const [message, code] = errorOf(response.status, await response.text());
    if (response.status === 401) $("key-row").hidden = false;
    throw new ServerError(response.status, message, code);
  }
  return response;
}

function useKey() {
  page.apiKey = $("api-key").value.trim();
  sessionStorage.setItem("auralApiKey", page.apiKey);
  showError("");
  loadModels();
  loadHistory();
}

// Times

function formatTime(seconds) {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${(seconds - minutes * 60).toFixed(1).padStart(4, "0")}`;
}

function formatDuration(seconds) {
  const whole = Math.round(seconds || 0);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function fillSegments(table, segments) {
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const segment of segments) {
    const row = body.insertRow();
    for (const [text, className] of [[formatTime(segment.start), "time"], [formatTime(segment.end), "time"], [segment.text.trim(), ""]]) {
      const cell = row.insertCell();
      cell.textContent = text;
      cell.className = className;
    }
  }
}

// Models and languages

const languageNames = new Intl.DisplayNames([navigator.language || "en", "en"], { type: "language" });

function languageName(code) {
  try {
    return languageNames.of(code) || code;
  } catch (_) {
    return code;
  }
}

async function loadModels() {
  try {
    page.models = (await (await request("/v1/models")).json()).data;
  } catch (error) {
    showError(`The models could not be listed: ${error.message}`);
    return;
  }
  const chosen = localStorage.getItem("auralModel");
  $("model").replaceChildren(...page.models.map((model) => new Option(model.id, model.id)));
  if (page.models.some((model) => model.id === chosen)) $("model").value = chosen;
  fillLanguages();
}

// The chosen model's languages: English alone for an English-only model.
function fillLanguages() {
  const model = page.models.find((each) => each.id === $("model").value);
  const codes = model ? model.languages : ["en"];
  const previous = $("language").value || localStorage.getItem("auralLanguage") || "en";
  const options = codes.map((code) => new Option(`${languageName(code)} (${code})`, code));
  options.sort((a, b) => a.text.localeCompare(b.text));
  $("language").replaceChildren(...options);
  $("language").value = codes.includes(previous) ? previous : codes.includes("en") ? "en" : codes[0];
}

// Live: microphone → AudioWorklet (16-bit PCM, 100 ms chunks) → /v1/realtime → volatile and final text

function liveStatus(text) {
  $("live-status").textContent = text;
}

function setLiveControls(running) {
  $("live-start").disabled = running;
  $("live-stop").disabled = !running;
  $("model").disabled = running;
  $("language").disabled = running;
}

async function startLive() {
  showError("");
  if (!navigator.mediaDevices || !window.AudioWorkletNode) {
    showError("This browser cannot record here: the microphone needs a secure page (https, or http on localhost) and AudioWorklet.");
    return;
  }
  const live = { pending: [], ready: false, stopping: false, sent: 0 };
  page.live = live;
  setLiveControls(true);
  liveStatus("Starting the microphone…");
  $("transcript").replaceChildren();
  try {
    live.context = new AudioContext();
    if (live.context.sampleRate > 48000) { // the Realtime socket takes 8 to 48 kHz
      live.context.close();
      live.context = new AudioContext({ sampleRate: 48000 });
    }
    await live.context.audioWorklet.addModule("/web/pcm-worklet.js");
    live.stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    });
  } catch (error) {
    endLive(live);
    showError(microphoneProblem(error));
    return;
  }
  const source = live.context.createMediaStreamSource(live.stream);
  live.node = new AudioWorkletNode(live.context, "pcm16-chunker", {
    channelCount: 1, channelCountMode: "explicit", channelInterpretation: "speakers",
  });
  live.node.port.onmessage = (event) => sendAudio(live, event.data);
  source.connect(live.node);
  live.node.connect(live.context.destination); // silent (the worklet writes no output), but connected so it runs
  openSocket(live);
}

function microphoneProblem(error) {
  if (error.name === "NotAllowedError") return "The microphone is blocked: allow this page to use it (the icon in the address bar), then start again.";
  if (error.name === "NotFoundError") return "No microphone was found: connect one, then start again.";
  return `The microphone could not be started: ${error.message}`;
}

function openSocket(live) {
  const query = new URLSearchParams({ intent: "transcription", volatile: "true" });
  if (page.historyOn) query.set("history", "true");
  const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/v1/realtime?${query}`;
  // A browser cannot set Authorization on a WebSocket: the key goes as OpenAI's browser subprotocol.
  live.socket = page.apiKey ? new WebSocket(url, [`openai-insecure-api-key.${page.apiKey}`]) : new WebSocket(url);
  live.socket.onmessage = (message) => onLiveEvent(live, JSON.parse(message.data));
  live.socket.onclose = (event) => {
    if (!live.stopping) {
      showError(`The live connection closed (code ${event.code}${event.reason ? ": " + event.reason : ""}). The server refused it (a wrong API key?), stopped, or cannot be reached. Start again to go on.`);
    }
    endLive(live);
  };
}

function onLiveEvent(live, event) {
  switch (event.type) {
    case "session.created":
      live.socket.send(JSON.stringify({
        type: "session.update",
        session: { type: "transcription", audio: { input: {
          format: { type: "audio/pcm", rate: live.context.sampleRate },
          transcription: { model: $("model").value, language: $("language").value },
        } } },
      }));
      break;
    case "session.updated":
      live.ready = true;
      liveStatus("Listening…");
      for (const chunk of live.pending.splice(0)) sendAudio(live, chunk);
      break;
    case "aural.transcription.volatile":
      showItem(event.item_id, event.text, false);
      break;
    case "conversation.item.input_audio_transcription.completed":
      showItem(event.item_id, event.transcript, true);
      if (live.committed && !$("transcript").querySelector(".volatile")) live.socket.close(1000);
      break;
    case "aural.history.session":
      live.historySession = event.session_id;
      break;
    case "error":
      showError(event.error.message);
      break;
  }
}

function sendAudio(live, buffer) {
  if (live.stopping) return;
  if (!live.ready) {
    if (live.pending.length < 600) live.pending.push(buffer); // up to a minute while the session starts
    return;
  }
  if (live.socket.readyState !== WebSocket.OPEN) return;
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  live.socket.send(JSON.stringify({ type: "input_audio_buffer.append", audio: btoa(binary) }));
  live.sent += 1;
}

// One phrase (an item): faint while volatile, solid once final; an empty final removes it. A phrase that starts
// with punctuation (a sentence's period, final after the words before it) follows them without a space.
function showItem(id, text, final) {
  let span = [...$("transcript").children].find((each) => each.dataset.item === id);
  if (!span) {
    span = document.createElement("span");
    span.dataset.item = id;
    $("transcript").append(span);
  }
  if (final && !text.trim()) {
    span.remove();
    return;
  }
  span.className = final ? "final" : "volatile";
  span.textContent = (/^[.,!?;:…]/.test(text.trim()) ? "" : " ") + text.trim();
}

// Stops the microphone, then asks for the last phrase to be final (commit) and closes once it is.
function stopLive() {
  const live = page.live;
  if (!live) return;
  live.stopping = true;
  stopAudio(live);
  liveStatus("Finishing the last phrase…");
  if (live.socket && live.socket.readyState === WebSocket.OPEN && live.sent > 0) {
    live.socket.send(JSON.stringify({ type: "input_audio_buffer.commit" }));
    live.committed = true;
    live.timer = setTimeout(() => live.socket.close(1000), 15000);
  } else if (live.socket && live.socket.readyState !== WebSocket.CLOSED) {
    live.socket.close(1000);
  } else {
    endLive(live);
  }
}

function stopAudio(live) {
  if (live.stream) live.stream.getTracks().forEach((track) => track.stop());
  if (live.context && live.context.state !== "closed") live.context.close();
}

function endLive(live) {
  live.stopping = true;
  stopAudio(live);
  clearTimeout(live.timer);
  if (page.live !== live) return;
  page.live = null;
  setLiveControls(false);
  liveStatus(live.historySession ? `Stopped; saved in the history as session ${live.historySession}.` : "Stopped.");
  if (page.historyOn) loadHistory($("history-query").value.trim());
}

// A file: XMLHttpRequest, for its upload progress

function uploadStatus(text) {
  $("upload-status").textContent = text;
}

function uploadFile() {
  showError("");
  const file = $("file").files[0];
  if (!file) {
    showError("Choose an audio or video file first.");
    return;
  }
  const form = new FormData();
  form.append("file", file);
  form.append("model", $("model").value);
  form.append("language", $("language").value);
  form.append("response_format", "verbose_json");
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/audio/transcriptions" + (page.historyOn ? "?history=true" : ""));
  for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
  const progress = $("upload-progress");
  progress.value = 0;
  $("upload").disabled = true;
  $("file-result").hidden = true;
  uploadStatus(`Uploading ${file.name}…`);
  xhr.upload.onprogress = (event) => {
    if (!event.lengthComputable) return;
    progress.max = event.total;
    progress.value = event.loaded;
    uploadStatus(`Uploading: ${Math.round((100 * event.loaded) / event.total)} % of ${(event.total / 1e6).toFixed(1)} MB`);
  };
  xhr.upload.onload = () => uploadStatus("Uploaded; transcribing…");
  xhr.onerror = () => {
    $("upload").disabled = false;
    uploadStatus("Failed.");
    showError("The upload failed: the server could not be reached or closed the connection.");
  };
  xhr.onload = () => finishUpload(xhr);
  xhr.send(form);
}

function finishUpload(xhr) {
  $("upload").disabled = false;
  if (xhr.status !== 200) {
    const [message] = errorOf(xhr.status, xhr.responseText);
    if (xhr.status === 401) $("key-row").hidden = false;
    uploadStatus("Refused.");
    showError(message);
    return;
  }
  const result = JSON.parse(xhr.responseText);
  $("file-text").textContent = result.text;
  fillSegments($("file-segments"), result.segments || []);
  $("file-result").hidden = false;
  const saved = xhr.getResponseHeader("Aural-History-Session");
  const failed = xhr.getResponseHeader("Aural-History-Error");
  uploadStatus(`Done: ${formatDuration(result.duration)} of audio${saved ? `, saved in the history as session ${saved}` : ""}.`);
  if (failed) showError(`The transcript was not saved in the history: ${failed}`);
  if (saved) loadHistory($("history-query").value.trim());
}

// History: list, search, open, export

async function loadHistory(query) {
  const parameters = new URLSearchParams({ limit: "50" });
  if (query) parameters.set("query", query);
  let sessions;
  try {
    sessions = (await (await request(`/v1/history?${parameters}`)).json()).data;
  } catch (error) {
    if (error.code !== "history_disabled") {
      showError(`The history could not be read: ${error.message}`);
      return;
    }
    page.historyOn = false;
    $("history-status").textContent = "History is off on this server (it was started with --no-history): nothing transcribed here is kept.";
    $("history-search").hidden = true;
    $("history-list").replaceChildren();
    $("history-detail").hidden = true;
    return;
  }
  page.historyOn = true;
  $("history-search").hidden = false;
  $("history-status").textContent = query
    ? `${sessions.length} session${sessions.length === 1 ? "" : "s"} match “${query}”.`
    : sessions.length ? "Newest first; live sessions and files transcribed on this page are kept." : "Nothing yet: live sessions and files transcribed on this page are kept here.";
  $("history-list").replaceChildren(...sessions.map(historyItem));
}

function historyItem(session) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.session = session.id;
  const when = new Date(session.started_at * 1000).toLocaleString();
  button.textContent = `${when} · ${formatDuration(session.duration)} · ${session.source}: ${session.preview || "(no words)"}`;
  button.onclick = () => openSession(session.id);
  item.append(button);
  if (session.matches) {
    const list = document.createElement("ul");
    list.className = "matches";
    list.append(...session.matches.map(matchLine));
    item.append(list);
  }
  return item;
}

// A matching phrase with its matching words marked.
function matchLine(match) {
  const line = document.createElement("li");
  line.append(`${formatTime(match.start)} `);
  let at = 0;
  for (const [from, to] of match.highlights) {
    const mark = document.createElement("mark");
    mark.textContent = match.text.slice(from, to);
    line.append(match.text.slice(at, from), mark);
    at = to;
  }
  line.append(match.text.slice(at));
  return line;
}

async function openSession(id) {
  let transcript;
  try {
    transcript = await (await request(`/v1/history/${id}`)).json();
  } catch (error) {
    showError(`Session ${id} could not be opened: ${error.message}`);
    return;
  }
  const session = transcript.session;
  page.session = session.id;
  $("detail-title").textContent = `Session ${session.id}: ${session.source}`;
  $("detail-meta").textContent = [
    new Date(session.started_at * 1000).toLocaleString(), formatDuration(session.duration),
    session.language && languageName(session.language), session.model,
  ].filter(Boolean).join(" · ");
  $("detail-text").textContent = transcript.text;
  fillSegments($("detail-segments"), transcript.segments);
  $("history-detail").hidden = false;
}

// Downloads the open session as the server's writers render it (with the key, so through a blob).
async function exportSession(format) {
  try {
    const blob = await (await request(`/v1/history/${page.session}/export?format=${format}`)).blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `aural-${page.session}.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  } catch (error) {
    showError(`The export failed: ${error.message}`);
  }
}

// Start

$("live-start").onclick = startLive;
$("live-stop").onclick = stopLive;
$("upload").onclick = uploadFile;
$("key-row").onsubmit = (event) => {
  event.preventDefault();
  useKey();
};
$("api-key").value = page.apiKey;
$("model").onchange = () => {
  localStorage.setItem("auralModel", $("model").value);
  fillLanguages();
};
$("language").onchange = () => localStorage.setItem("auralLanguage", $("language").value);
$("history-search").onsubmit = (event) => {
  event.preventDefault();
  loadHistory($("history-query").value.trim());
};
$("history-all").onclick = () => {
  $("history-query").value = "";
  loadHistory("");
};
for (const button of $("history-detail").querySelectorAll("button[data-format]")) {
  button.onclick = () => exportSession(button.dataset.format);
}
loadModels();
loadHistory("");
"""#
