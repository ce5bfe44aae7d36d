import unittest

from benchkit import stats
from benchkit.engines.base import Run


def row(engine, status="ok", audio="short", model="tiny.en", beam=1, **fields):
    return dict(audio=audio, model=model, beam=beam, engine=engine, status=status, **fields)


class MedianTests(unittest.TestCase):
    def test_odd_and_even_counts(self):
        self.assertEqual(stats.median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(stats.median([4.0, 1.0, 2.0, 3.0]), 2.5)

    def test_skips_missing_values(self):
        self.assertEqual(stats.median([None, 5.0, None, 1.0, 3.0]), 3.0)

    def test_none_when_nothing_is_known(self):
        self.assertIsNone(stats.median([]))
        self.assertIsNone(stats.median([None, None]))


class WordErrorRateTests(unittest.TestCase):
    def test_normaliser_drops_case_and_punctuation_but_keeps_apostrophes(self):
        self.assertEqual(stats.words(" It was the best of times, it WAS the worst—of times; don't 1859."),
                         ["it", "was", "the", "best", "of", "times", "it", "was", "the", "worst", "of", "times",
                          "don't", "1859"])

    def test_identical_texts_differ_only_in_form(self):
        self.assertEqual(stats.wer("Hello, world.", " hello world"), 0.0)

    def test_counts_substitutions_insertions_and_deletions(self):
        reference = "the quick brown fox jumps"
        self.assertAlmostEqual(stats.wer(reference, "the quick red fox jumps"), 1 / 5)
        self.assertAlmostEqual(stats.wer(reference, "the quick brown fox jumps high"), 1 / 5)
        self.assertAlmostEqual(stats.wer(reference, "quick brown fox"), 2 / 5)
        self.assertAlmostEqual(stats.wer(reference, ""), 1.0)

    def test_missing_or_empty_reference(self):
        self.assertIsNone(stats.wer(None, "text"))
        self.assertIsNone(stats.wer("text", None))
        self.assertEqual(stats.wer("", ""), 0.0)
        self.assertEqual(stats.wer("...", "words"), 1.0)


class SummaryTests(unittest.TestCase):
    def test_medians_real_time_factors_and_largest_memory(self):
        runs = [Run(True, 10.0, 300.0, 0.5, 8.0, "first", "a"), Run(True, 12.0, 320.0, 0.7, 9.0, "second", "b"),
                Run(True, 11.0, None, 0.6, 10.0, "third", "c")]
        s = stats.summarize(runs, audio_seconds=40.0)
        self.assertEqual((s["wall_s"], s["transcribe_s"], s["load_s"]), (11.0, 9.0, 0.6))
        self.assertAlmostEqual(s["rtf"], 9.0 / 40.0)
        self.assertAlmostEqual(s["rtf_wall"], 11.0 / 40.0)
        self.assertEqual(s["peak_rss_mib"], 320.0)
        self.assertEqual((s["runs"], s["walls"], s["full_text"], s["note"]), (3, "10.00 12.00 11.00", "third", "c"))

    def test_unreported_times_stay_unknown(self):
        s = stats.summarize([Run(True, 5.0)], audio_seconds=10.0)
        self.assertIsNone(s["transcribe_s"])
        self.assertIsNone(s["rtf"])
        self.assertIsNone(s["peak_rss_mib"])
        self.assertEqual(s["rtf_wall"], 0.5)

    def test_wer_against_faster_whisper_float32(self):
        group = [row("aural-fp32", full_text="a b c d"), row("fw-fp32", full_text="a b c e"),
                 row("fw-int8", status="failed")]
        stats.add_wer(group)
        self.assertEqual(group[0]["wer_vs_fw_fp32"], 0.25)
        self.assertEqual(group[1]["wer_vs_fw_fp32"], 0.0)
        self.assertNotIn("wer_vs_fw_fp32", group[2])


class RatioTests(unittest.TestCase):
    def test_transcription_time_ratios_per_matching_configuration(self):
        rows = [row("aural-fp32", wall_s=10.0, transcribe_s=8.0, peak_rss_mib=200.0),
                row("fw-fp32", wall_s=12.0, transcribe_s=10.0, peak_rss_mib=400.0),
                row("fw-int8", wall_s=8.0, transcribe_s=4.0, peak_rss_mib=None),
                row("fw-fp32", beam=5, wall_s=1.0, transcribe_s=1.0, peak_rss_mib=1.0),
                row("whisper.cpp", status="skipped")]
        ratios = stats.ratios(rows)
        self.assertEqual([(q["engine"], q["vs"], q["basis"]) for q in ratios],
                         [("aural-fp32", "fw-fp32", "transcribe"), ("aural-fp32", "fw-int8", "transcribe")])
        self.assertAlmostEqual(ratios[0]["time_ratio"], 0.8)
        self.assertAlmostEqual(ratios[0]["wall_ratio"], 10.0 / 12.0)
        self.assertAlmostEqual(ratios[0]["rss_ratio"], 0.5)
        self.assertAlmostEqual(ratios[1]["time_ratio"], 2.0)
        self.assertIsNone(ratios[1]["rss_ratio"])

    def test_wall_time_when_an_engine_reports_no_transcription_time(self):
        rows = [row("aural-fp32", wall_s=9.0, transcribe_s=None, peak_rss_mib=1.0),
                row("whisper.cpp", wall_s=3.0, transcribe_s=2.0, peak_rss_mib=1.0)]
        (q,) = stats.ratios(rows)
        self.assertEqual((q["basis"], q["time_ratio"]), ("wall", 3.0))

    def test_no_ratios_without_a_successful_aural_row(self):
        self.assertEqual(stats.ratios([row("aural-fp32", status="failed"), row("fw-fp32", wall_s=1.0)]), [])


    def test_each_aural_mode_gets_its_ratios(self):
        rows = [row("aural-fp32", wall_s=10.0, transcribe_s=8.0), row("aural-int8", wall_s=6.0, transcribe_s=4.0),
                row("fw-int8", wall_s=8.0, transcribe_s=5.0)]
        self.assertEqual([(q["engine"], q["vs"], q["time_ratio"]) for q in stats.ratios(rows)],
                         [("aural-fp32", "fw-int8", 1.6), ("aural-int8", "fw-int8", 0.8)])


class BestModeTests(unittest.TestCase):
    def test_fastest_aural_mode_by_wall_time_against_faster_whisper_int8_per_cell(self):
        rows = [row("aural-fp32", wall_s=10.0, transcribe_s=8.0), row("aural-int8", wall_s=6.0, transcribe_s=4.0),
                row("fw-fp32", wall_s=5.0, transcribe_s=4.0), row("fw-int8", wall_s=8.0, transcribe_s=5.0),
                row("aural-fp32", beam=5, wall_s=9.0, transcribe_s=None), row("aural-int8", beam=5, status="skipped"),
                row("fw-int8", beam=5, wall_s=12.0, transcribe_s=10.0),
                row("aural-fp32", model="base", wall_s=1.0), row("fw-int8", model="base", status="failed")]
        best = stats.best_ratios(rows)
        self.assertEqual([(q["beam"], q["best"], q["vs"]) for q in best], [(1, "aural-int8", "fw-int8"),
                                                                            (5, "aural-fp32", "fw-int8")])
        self.assertAlmostEqual(best[0]["wall_ratio"], 0.75)
        self.assertAlmostEqual(best[0]["time_ratio"], 0.8)
        self.assertAlmostEqual(best[1]["wall_ratio"], 0.75)
        self.assertIsNone(best[1]["time_ratio"])


if __name__ == "__main__":
    unittest.main()
