import os
import tempfile
import unittest

from benchkit.engines import aural, faster_whisper, whisper_cpp


class AuralTests(unittest.TestCase):
    def test_command_passes_every_option_explicitly(self):
        self.assertEqual(
            aural.command("/r/aural", "/m/tiny.en", 5, 2, "en", "/c/a.wav", "/tmp/out"),
            ["/r/aural", "transcribe", "/c/a.wav", "--model", "/m/tiny.en", "--beam-size", "5", "--threads", "2",
             "--format", "json", "--output-dir", "/tmp/out", "--quiet", "--language", "en"])

    def test_auto_language_lets_aural_detect_it(self):
        self.assertNotIn("--language", aural.command("/r/aural", "/m/base", 1, 2, "auto", "/c/a.wav", "/tmp/out"))

    def test_compute_type_is_passed_when_given(self):
        self.assertEqual(aural.command("/r/aural", "/m/base", 1, 2, "en", "/c/a.wav", "/o", "int8")[-2:],
                         ["--compute-type", "int8"])
        self.assertNotIn("--compute-type", aural.command("/r/aural", "/m/base", 1, 2, "en", "/c/a.wav", "/o"))

    def test_engine_names_map_to_compute_types(self):
        self.assertEqual(aural.COMPUTE_TYPES, {"aural-fp32": "float32", "aural-int8": "int8"})

    def test_an_aural_without_compute_type_runs_float32_only(self):
        # A stand-in binary whose --help has no --compute-type (the aural before issue 12).
        with tempfile.TemporaryDirectory() as directory:
            binary = os.path.join(directory, "aural")
            with open(binary, "w") as fh:
                fh.write("#!/bin/sh\necho 'Usage: aural transcribe <audio> [--model <name>] [--beam-size <n>]'\n")
            os.chmod(binary, 0o755)
            fp32 = aural.Aural("aural-fp32", binary, None, 2, "en", "built")
            int8 = aural.Aural("aural-int8", binary, None, 2, "en", "built")
            self.assertIsNone(fp32.unavailable("tiny.en"))
            self.assertIsNone(fp32.compute_type_flag())
            self.assertEqual(int8.unavailable("tiny.en"), "this aural has no --compute-type")
            with open(binary, "w") as fh:
                fh.write("#!/bin/sh\necho '  --compute-type <float32|int8|auto>'\n")
            self.assertEqual(aural.Aural("aural-int8", binary, None, 2, "en", "built").compute_type_flag(), "int8")

    def test_reads_text_and_timings_from_the_json_document(self):
        # The shape JSONWriter documents (Sources/AuralKit/Writers/JSONWriter.swift), timings included.
        doc = {"duration": 2.5, "language": "en", "language_probability": 0.94,
               "segments": [{"id": 0, "start": 0, "end": 2.5, "text": " Hello there."}],
               "text": " Hello there.",
               "timings": {"model_load_seconds": 0.21, "transcription_seconds": 1.75}}
        self.assertEqual(aural.read_document(doc), (" Hello there.", 0.21, 1.75, ""))

    def test_a_document_without_timings_says_so(self):
        text, load, transcribe, note = aural.read_document({"text": " Hi."})
        self.assertEqual((text, load, transcribe), (" Hi.", None, None))
        self.assertEqual(note, "no timings in aural's JSON")


class FasterWhisperTests(unittest.TestCase):
    def test_command_runs_the_runner_with_the_engine_python(self):
        self.assertEqual(
            faster_whisper.command("/v/bin/python", "/m/base", "int8", 5, "auto", "/c/a.wav", 2),
            ["/v/bin/python", faster_whisper.RUNNER, "/m/base", "int8", "5", "auto", "/c/a.wav", "2"])
        self.assertTrue(os.path.exists(faster_whisper.RUNNER))

    def test_engine_names_map_to_compute_types(self):
        self.assertEqual(faster_whisper.COMPUTE_TYPES, {"fw-fp32": "float32", "fw-int8": "int8"})

    def test_reads_the_runner_line_among_other_output(self):
        out = 'warning: something\nBENCH_JSON {"load_s": 0.5, "transcribe_s": 3.0, "text": " Hi", "language": "en"}\n'
        self.assertEqual(faster_whisper.read_output(out)["transcribe_s"], 3.0)
        self.assertIsNone(faster_whisper.read_output("Traceback ...\n"))

    def test_python_from_the_environment_must_exist(self):
        with self.assertRaises(SystemExit):
            faster_whisper.python({"FW_PYTHON": "/nonexistent/python"}, "/tmp")


class WhisperCppTests(unittest.TestCase):
    def test_command(self):
        self.assertEqual(
            whisper_cpp.command("/w/whisper-cli", "/c/ggml-base.bin", "/c/a.wav", 2, 5, "en", "/tmp/x/out"),
            ["/w/whisper-cli", "-m", "/c/ggml-base.bin", "-f", "/c/a.wav", "-t", "2", "-bs", "5", "-l", "en", "-otxt",
             "-of", "/tmp/x/out"])

    def test_reads_load_and_total_time_from_the_timing_summary(self):
        stderr = ("whisper_print_timings:     load time =   120.50 ms\n"
                  "whisper_print_timings:      mel time =    30.00 ms\n"
                  "whisper_print_timings:    total time =  4120.50 ms\n")
        load, transcribe = whisper_cpp.read_timings(stderr)
        self.assertAlmostEqual(load, 0.1205)
        self.assertAlmostEqual(transcribe, 4.0)
        self.assertEqual(whisper_cpp.read_timings("no summary"), (None, None))

    def test_openblas_kernel_follows_the_cpu_flags_unless_set(self):
        avx512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"}
        self.assertEqual(whisper_cpp.openblas_environment({}, avx512)["OPENBLAS_CORETYPE"], "SkylakeX")
        self.assertEqual(whisper_cpp.openblas_environment({}, {"avx2", "fma"})["OPENBLAS_CORETYPE"], "Haswell")
        self.assertNotIn("OPENBLAS_CORETYPE", whisper_cpp.openblas_environment({}, {"sse3"}))
        self.assertEqual(whisper_cpp.openblas_environment({"OPENBLAS_CORETYPE": "Zen"}, avx512)["OPENBLAS_CORETYPE"],
                         "Zen")

    def test_cpu_flags_from_cpuinfo(self):
        with tempfile.NamedTemporaryFile("w", suffix=".cpuinfo", delete=False) as fh:
            fh.write("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu avx2 fma\n\nprocessor\t: 1\nflags\t\t: fpu\n")
        try:
            self.assertEqual(whisper_cpp.cpu_flags(fh.name), {"fpu", "avx2", "fma"})
        finally:
            os.remove(fh.name)
        self.assertEqual(whisper_cpp.cpu_flags("/nonexistent/cpuinfo"), set())


if __name__ == "__main__":
    unittest.main()
