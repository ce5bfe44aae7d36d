"""One faster-whisper transcription, run by the Python that has faster-whisper (not part of the benchkit package).

Usage: python faster_whisper_once.py MODEL_DIR COMPUTE_TYPE BEAM LANGUAGE|auto AUDIO THREADS
Prints one line "BENCH_JSON {...}" with import_s, load_s (the WhisperModel constructor), transcribe_s
(decode_audio plus transcribe, segments consumed), text and language.
"""
import json
import sys
import time

start = time.perf_counter()
from faster_whisper import WhisperModel, decode_audio  # noqa: E402 (the import is timed)

import_s = time.perf_counter() - start
model_dir, compute_type, beam, language, audio_path, threads = sys.argv[1:7]
start = time.perf_counter()
model = WhisperModel(model_dir, device="cpu", compute_type=compute_type, cpu_threads=int(threads))
load_s = time.perf_counter() - start
start = time.perf_counter()
audio = decode_audio(audio_path)
segments, info = model.transcribe(audio, beam_size=int(beam), language=None if language == "auto" else language)
text = "".join(s.text for s in segments)
transcribe_s = time.perf_counter() - start
print("BENCH_JSON " + json.dumps({"import_s": import_s, "load_s": load_s, "transcribe_s": transcribe_s,
                                  "text": text, "language": info.language}))
