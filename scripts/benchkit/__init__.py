"""benchkit: the program behind scripts/bench.

It times aural against faster-whisper (float32 and int8) and whisper.cpp on the same audio, models, beam sizes and
thread count, and writes a Markdown table and CSV files. Modules:

- cli: the command line and the run loop
- paths: where the models, the cache and the aural binary are
- process: running one engine process under GNU time
- audio: preparing the 16 kHz mono recordings
- stats: medians, word error rate, aural / other ratios (pure)
- report: the Markdown table and the files in bench-results/ (pure apart from writing)
- engines: one module per engine: command line, output parsing, availability
- runners: the scripts the engines' own Python runs (faster-whisper, the ggml conversion)
- tests: unit tests of the pure parts (`python3 -m unittest discover scripts/benchkit`)

Only the standard library is used; faster-whisper runs in its own Python (engines/faster_whisper.py).
"""
