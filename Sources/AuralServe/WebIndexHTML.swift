/// The page at `/`: its markup (the controls, the live transcript, the file's result, the history).
/// Plain text, served as it is (`WebAsset`): edit it here; there is no build step.
let webIndexHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AuralKit</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/web/style.css">
<script src="/web/app.js" defer></script>
</head>
<body>
<header>
  <h1>AuralKit</h1>
  <p>Speech to text on this server: live from your microphone, from a file, and the history.</p>
</header>
<main>
  <div id="error" role="alert" hidden></div>

  <section aria-labelledby="settings-title">
    <h2 id="settings-title">Settings</h2>
    <div class="row">
      <label>Model <select id="model"></select></label>
      <label>Language <select id="language"></select></label>
    </div>
    <form class="row" id="key-row" hidden>
      <label>This server wants an API key <input id="api-key" type="password" autocomplete="off" spellcheck="false"></label>
      <button type="submit">Use key</button>
    </form>
  </section>

  <section aria-labelledby="live-title">
    <h2 id="live-title">Live</h2>
    <div class="row">
      <button id="live-start" type="button">Start microphone</button>
      <button id="live-stop" type="button" disabled>Stop</button>
      <span id="live-status" role="status"></span>
    </div>
    <p id="transcript" aria-live="polite" aria-label="Live transcript"></p>
    <p class="note">Grey italic words may still change; black words are final.</p>
  </section>

  <section aria-labelledby="file-title">
    <h2 id="file-title">File</h2>
    <div class="row">
      <label>Audio or video file <input id="file" type="file" accept="audio/*,video/*"></label>
      <button id="upload" type="button">Transcribe</button>
    </div>
    <div class="row">
      <progress id="upload-progress" max="1" value="0" aria-labelledby="upload-status"></progress>
      <span id="upload-status" role="status"></span>
    </div>
    <div id="file-result" hidden>
      <p id="file-text"></p>
      <table id="file-segments"><caption>Segments</caption><thead><tr><th scope="col">Start</th><th scope="col">End</th><th scope="col">Text</th></tr></thead><tbody></tbody></table>
    </div>
  </section>

  <section aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <p id="history-status" role="status"></p>
    <form id="history-search" class="row" role="search">
      <label>Search <input id="history-query" type="search"></label>
      <button type="submit">Search</button>
      <button id="history-all" type="button">Show all</button>
    </form>
    <ul id="history-list"></ul>
    <article id="history-detail" hidden aria-labelledby="detail-title">
      <h3 id="detail-title"></h3>
      <p id="detail-meta"></p>
      <div class="row">
        Export: <button type="button" data-format="txt">Text</button>
        <button type="button" data-format="srt">SRT</button>
        <button type="button" data-format="vtt">WebVTT</button>
      </div>
      <p id="detail-text"></p>
      <table id="detail-segments"><caption>Segments</caption><thead><tr><th scope="col">Start</th><th scope="col">End</th><th scope="col">Text</th></tr></thead><tbody></tbody></table>
    </article>
  </section>
</main>
</body>
</html>
"""#
