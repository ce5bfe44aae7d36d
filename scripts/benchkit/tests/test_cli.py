import contextlib
import io
import unittest

import tempfile

from benchkit import audio, cli, process
from benchkit.engines.base import Run
from benchkit.paths import Paths


class CommandLineTests(unittest.TestCase):
    def test_defaults_match_the_bash_script_it_replaced(self):
        args = cli.parser().parse_args([])
        self.assertEqual((args.models, args.audio, args.runs, args.beams, args.language, args.engines, args.no_build,
                          args.omp_wait, args.no_startup),
                         (["tiny.en", "base"], "both", 3, [1, 5], "en",
                          ["aural-fp32", "aural-int8", "fw-fp32", "fw-int8", "whisper.cpp"], False, "default", False))

    def test_lists(self):
        args = cli.parser().parse_args(["--engines", "aural-int8,fw-fp32", "--audio", "short", "--runs", "1", "--models",
                                        "tiny.en", "--beams", "5", "--no-build", "--omp-wait", "passive"])
        self.assertEqual((args.engines, args.models, args.beams, args.runs),
                         (["aural-int8", "fw-fp32"], ["tiny.en"], [5], 1))

    def test_start_up_only(self):
        self.assertEqual(cli.parser().parse_args(["--audio", "none"]).audio, "none")
        self.assertEqual(audio.prepare("none", "/nonexistent/fixtures", tempfile.gettempdir()), {})

    def test_missing_fixtures_say_to_run_the_setup(self):
        with tempfile.TemporaryDirectory() as cache, self.assertRaises(SystemExit) as raised:
            audio.prepare("short", "/nonexistent/fixtures", cache)
        self.assertIn("/nonexistent/fixtures/two_cities.wav is missing; scripts/setup makes the fixtures",
                      str(raised.exception))

    def test_unknown_engine_or_beam_is_a_usage_error(self):
        for argv in (["--engines", "aural-fp32,whisper"], ["--engines", "aural"], ["--beams", "1,five"]):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                cli.parser().parse_args(argv)


class StartupTests(unittest.TestCase):
    class Engine:
        """An engine that reports fixed runs (the bench's Engine protocol), to check the table's arithmetic."""

        def __init__(self, name, walls, reason=None):
            self.name, self.walls, self.reason = name, list(walls), reason

        def unavailable(self, model):
            return self.reason

        def run(self, model, beam, audio):
            wall = self.walls.pop(0)
            return Run(wall is not None, wall or 0.0, 100.0 + (wall or 0), 0.1, 0.2, " It was", "" if wall else "boom")

    def test_median_wall_largest_memory_and_why_an_engine_did_not_run(self):
        engines = [self.Engine("aural-fp32", [0.5, 0.3, 0.4]), self.Engine("aural-int8", [], "no --compute-type"),
                   self.Engine("fw-int8", [1.0, None])]
        with contextlib.redirect_stderr(io.StringIO()):
            rows = cli.startup(engines, ["tiny.en"], "/c/clip.wav", 3)
        self.assertEqual([(r["engine"], r["status"]) for r in rows],
                         [("aural-fp32", "ok"), ("aural-int8", "skipped"), ("fw-int8", "failed")])
        self.assertEqual((rows[0]["startup_s"], rows[0]["load_s"], rows[0]["peak_rss_mib"], rows[0]["note"]),
                         (0.4, 0.1, 100.5, "It was"))
        self.assertEqual(rows[1]["note"], "no --compute-type")


class PathTests(unittest.TestCase):
    def test_defaults_under_the_cache_home(self):
        p = Paths.from_environment("/repo", {"XDG_CACHE_HOME": "/xdg"})
        self.assertEqual((p.models, p.cache, p.aural), ("/xdg/auralkit/models", "/xdg/auralkit/bench",
                                                        "/repo/.build/release/aural"))
        self.assertEqual(p.model("tiny.en"), "/xdg/auralkit/models/tiny.en")

    def test_environment_overrides(self):
        p = Paths.from_environment("/repo", {"AURALKIT_MODELS_DIR": "/m", "AURALKIT_BENCH_CACHE": "/b",
                                             "AURAL_BIN": "/bin/aural"})
        self.assertEqual((p.models, p.cache, p.aural), ("/m", "/b", "/bin/aural"))


class ProcessTests(unittest.TestCase):
    def test_peak_memory_from_a_gnu_time_report(self):
        report = '\tCommand being timed: "aural"\n\tMaximum resident set size (kbytes): 327680\n\tExit status: 0\n'
        self.assertEqual(process.peak_rss_mib(report), 320.0)
        self.assertIsNone(process.peak_rss_mib("Command exited with non-zero status 1\n"))

    def test_failure_note(self):
        self.assertEqual(process.failure(1, "Usage: …\nerror: no such model\n"), "exit 1: error: no such model")
        self.assertEqual(process.failure(139, ""), "exit 139")

    def test_last_line(self):
        self.assertEqual(process.last_line("a\nerror: model not found\n\n"), "error: model not found")
        self.assertEqual(process.last_line(""), "")
        self.assertEqual(process.last_line("x" * 200, limit=5), "xxxxx")


if __name__ == "__main__":
    unittest.main()
