"""servebench: the program behind scripts/serve-bench.

It runs `aural serve` and faster-whisper-server 0.0.3 one after the other on the same model folder, compute type and
cores, and loads each with 1, 2, 4 and 8 concurrent clients posting the bundled recordings to
/v1/audio/transcriptions; then it runs live sessions through aural's Realtime WebSocket, and records what each server
answers to odd requests. Modules:

- cli: the command line, the run order and the entry's header and notes
- measure: one server's warm-up, load runs, live sessions and odd requests, with its CPU and memory
- servers: starting each server (a copy of the aural binary; the peer in a venv of its own from pinned wheels)
- recordings: the bundled recordings, their durations and references, as upload bodies and 24 kHz PCM
- load: concurrent clients against /v1/audio/transcriptions
- live: Realtime WebSocket sessions paced by the wall clock
- probe: the answers to text/srt/vtt, random bytes, an empty file, an unknown model and a WebSocket handshake
- summary: percentiles, run medians, lag and keep-up (pure)
- report: the Markdown tables (pure)
- tests: unit tests of the pure parts
  (`python3 -m unittest discover -s scripts/servekit/servebench -t scripts/servekit`)

scripts/serve-bench runs it in the Python of aural serve's tests (scripts/setup's serveenv), whose pinned websockets
package is the WebSocket client; benchkit (scripts/benchkit) gives the model and cache paths and the word error rate.
"""
