import unittest

from servebench import summary
from servebench.load import Result


def result(start, end, status=200, audio_s=10.0, text="words"):
    return Result("beckett", audio_s, start, end, status, text if status == 200 else None,
                  None if status == 200 else "refused")


class PercentileTests(unittest.TestCase):
    def test_interpolates_between_closest_ranks(self):
        self.assertEqual(summary.percentile([4.0, 1.0, 3.0, 2.0], 50), 2.5)
        self.assertAlmostEqual(summary.percentile(list(range(1, 11)), 95), 9.55)
        self.assertEqual(summary.percentile([7.0], 90), 7.0)

    def test_ends_are_the_extremes_and_nothing_is_none(self):
        self.assertEqual(summary.percentile([3.0, 9.0, 1.0], 0), 1.0)
        self.assertEqual(summary.percentile([3.0, 9.0, 1.0], 100), 9.0)
        self.assertIsNone(summary.percentile([], 50))


class RunFiguresTests(unittest.TestCase):
    def test_throughput_is_answered_audio_over_first_send_to_last_answer(self):
        runs = [result(0.0, 2.0), result(0.0, 4.0), result(1.0, 5.0, status=429)]
        figures = summary.run_figures(runs)
        self.assertEqual(figures["throughput"], 20.0 / 5.0)  # the refused request's audio does not count
        self.assertEqual(figures["errors"], 1)
        self.assertEqual(figures["p50"], 3.0)  # latencies of answered requests only: 2 and 4

    def test_a_run_of_failures_has_no_latency(self):
        figures = summary.run_figures([result(0.0, 1.0, status=0)])
        self.assertEqual((figures["throughput"], figures["p50"], figures["errors"]), (0.0, None, 1))

    def test_runs_combine_into_medians_the_highest_peak_and_all_errors(self):
        runs = [dict(throughput=t, p50=t / 10, p95=t / 5, errors=e, peak_rss_mib=m, cpu_cores=1.5)
                for t, e, m in ((10.0, 0, 300.0), (14.0, 1, 350.0), (12.0, 2, 320.0))]
        combined = summary.combine(runs)
        self.assertEqual((combined["throughput"], combined["p50"], combined["p95"]), (12.0, 1.2, 2.4))
        self.assertEqual((combined["peak_rss_mib"], combined["errors"], combined["runs"]), (350.0, 3, 3))

    def test_ratio_is_unknown_without_both_sides(self):
        self.assertEqual(summary.ratio(3.0, 2.0), 1.5)
        self.assertIsNone(summary.ratio(None, 2.0))
        self.assertIsNone(summary.ratio(3.0, 0.0))


class LagTests(unittest.TestCase):
    def test_a_steady_session_keeps_up(self):
        lags = [(t, 1.0 + 0.1 * (t % 2)) for t in range(0, 60, 5)]
        figures = summary.lag_figures(lags)
        self.assertTrue(figures["keeps_up"])
        self.assertLess(abs(figures["growth"]), 0.2)
        self.assertLess(abs(figures["slope_per_min"]), 0.2)

    def test_a_lag_that_grows_over_the_recording_does_not_keep_up_even_under_the_limit(self):
        lags = [(t, 0.2 + 0.02 * t) for t in range(0, 90, 5)]  # 0.2 s at the start, 1.9 s at the end
        figures = summary.lag_figures(lags)
        self.assertLess(figures["p90"], summary.LAG_LIMIT_S)
        self.assertGreater(figures["growth"], summary.GROWTH_LIMIT_S)
        self.assertAlmostEqual(figures["slope_per_min"], 1.2)
        self.assertFalse(figures["keeps_up"])

    def test_a_session_behind_by_more_than_two_seconds_does_not_keep_up(self):
        figures = summary.lag_figures([(t, 2.5) for t in range(10)])
        self.assertEqual((figures["mean"], figures["max"], figures["keeps_up"]), (2.5, 2.5, False))

    def test_a_session_without_phrases_does_not_keep_up(self):
        self.assertFalse(summary.lag_figures([])["keeps_up"])


def item(number, start_ms, end_ms, text, completed_at, stopped_at=None):
    """A phrase's events as aural serve sends them, received at the given monotonic times."""
    ident = f"item_{number}"
    stopped_at = completed_at if stopped_at is None else stopped_at
    return [(completed_at - 1.0, {"type": "input_audio_buffer.speech_started", "item_id": ident,
                                  "audio_start_ms": start_ms}),
            (stopped_at, {"type": "input_audio_buffer.speech_stopped", "item_id": ident, "audio_end_ms": end_ms}),
            (completed_at, {"type": summary.COMPLETED, "item_id": ident, "transcript": text})]


class PhraseLagTests(unittest.TestCase):
    # The session's audio started at t=100 on the monotonic clock and it committed at t=140.
    events = (item(1, 500, 4000, "It was the best of times.", 105.5)
              + item(2, 4200, 9000, "It was the worst of times.", 110.2)
              + item(3, 9000, 9000, "", 111.0)  # an empty item: no text, no lag
              + item(4, 30000, 38000, "Fail better.", 141.0))  # ended by the commit

    def test_lag_runs_from_the_phrase_audio_end_to_its_completed_event(self):
        lags = summary.phrase_lags(self.events, 100.0, 140.0)
        self.assertEqual([end for end, _ in lags], [4.0, 9.0])
        self.assertAlmostEqual(lags[0][1], 1.5)
        self.assertAlmostEqual(lags[1][1], 1.2)

    def test_items_the_commit_ended_are_counted_apart(self):
        self.assertEqual(summary.completed_after(self.events, 140.0), 1)
        self.assertEqual(len(summary.phrase_lags(self.events, 100.0, None)), 3)
        self.assertEqual(summary.completed_after(self.events, None), 0)

    def test_a_session_that_never_started_has_no_lags(self):
        self.assertEqual(summary.phrase_lags(self.events, None, None), [])

    def test_the_transcript_joins_the_completed_texts_in_order(self):
        self.assertEqual(summary.transcript(self.events),
                         "It was the best of times. It was the worst of times. Fail better.")


if __name__ == "__main__":
    unittest.main()
