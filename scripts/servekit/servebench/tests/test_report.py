import unittest

from servebench import report, summary
from servebench.servers import AURAL, PEER


def figures(throughput, p50, peak, errors=0):
    return dict(throughput=throughput, p50=p50, p95=p50 * 1.5, cpu_cores=1.9, peak_rss_mib=peak, errors=errors,
                wer=0.012, same_text="12 of 12", error_samples=[], peaks=[peak - 10, peak], idle_rss_mib=100.0)


def session(index, lags, error=None):
    return dict(index=index, order=["two_cities", "beckett"], audio_s=54.3, lag=summary.lag_figures(lags),
                by_commit=1, wer=0.02, error=error, late_send_s=0.0)


REST = {"tiny.en": {
    AURAL: {1: figures(30.0, 2.0, 250.0), 8: figures(31.0, 12.0, 262.0)},
    PEER: {1: figures(15.0, 3.0, 330.0), 8: figures(25.0, 20.0, 340.0)}}}
LIVE = {"tiny.en": dict(
    sessions=[session(0, [(t, 1.0) for t in range(5, 50, 5)]), session(1, [(t, 3.0) for t in range(5, 50, 5)])],
    cpu_cores=1.2, cpu_per_session_pct=60.0, peak_rss_mib=300.0, rss_before_mib=250.0, rate=24000, tail_s=3.0,
    metrics="max aural_transcriptions_running 0", compute_type="int8", cores=2, peer="refused: 403")}
PROBES = {AURAL: [("response_format=text", "200 text/plain: Ever tried.")],
          PEER: [("response_format=text", "400 application/json: {\"detail\": …}")]}


class ReportTests(unittest.TestCase):
    def test_ratios_pair_the_servers_at_each_concurrency(self):
        self.assertEqual(report.ratio_rows(REST), [("tiny.en", 1, 2.0), ("tiny.en", 8, 1.24)])
        self.assertEqual(report.ratio_rows({"tiny.en": {AURAL: REST["tiny.en"][AURAL]}}), [])

    def test_goals_say_plainly_which_are_not_met(self):
        text = report.markdown(["### a title"], REST, LIVE, PROBES, ["a note"])
        self.assertTrue(text.startswith("### a title\n"))
        self.assertTrue(text.endswith("- a note\n"))
        text = " ".join(text.split())  # prose is folded at 120 columns
        self.assertIn("at every concurrency: not met (lowest ratio 1.24)", text)
        self.assertIn("clients (tiny.en, aural): met (idle after the warm-up 100 MiB; peak RSS 240-262 MiB over "
                      "every run from 1 to 8 clients, in the order of the runs at 1 client(s): 240, 250 MiB", text)
        self.assertIn("live sessions (tiny.en): not met (250 MiB idle, 300 MiB at peak with 2 sessions: 25 MiB more "
                      "per session", text)
        self.assertIn("2 live sessions keeping up on 2 cores with tiny.en int8", text)
        self.assertIn("not met (1 of 2 keep up)", text)
        self.assertIn("| tiny.en | 8 | 1.24 | 0.60 | not met |", text)
        self.assertIn("| response_format=text | 200 text/plain: Ever tried. | 400 application/json", text)

    def test_every_table_row_has_as_many_cells_as_its_header(self):
        text = report.markdown(["### a title"], REST, LIVE, PROBES, [])
        table = []
        for line in text.splitlines() + [""]:
            if line.startswith("|"):
                table.append(line.count("|"))
            elif table:
                self.assertEqual(len(set(table)), 1, table)
                table = []

    def test_memory_that_grows_run_after_run_is_not_flat(self):
        rest = {"tiny.en": {AURAL: {1: dict(figures(30.0, 2.0, 800.0), peaks=[600.0, 800.0])}}}
        self.assertIn("clients (tiny.en, aural): not met", " ".join(report.markdown([], rest, {}, {}, []).split()))

    def test_prose_is_folded_at_120_columns_and_tables_are_not(self):
        text = report.markdown(["### a title", "- " + "word " * 60], REST, LIVE, PROBES, [])
        prose = [line for line in text.splitlines() if not line.startswith("|")]
        self.assertTrue(all(len(line) <= 120 for line in prose), prose)
        self.assertIn("\n  word", text)
        self.assertTrue(any(len(line) > 120 for line in text.splitlines() if line.startswith("|")))

    def test_a_failed_session_does_not_keep_up_whatever_its_lags(self):
        row = report.live_table([session(0, [(5, 0.5)], error="no answer to the final commit within 60 s")])[-1]
        self.assertIn("| no (no answer to the final commit within 60 s) |", row)


if __name__ == "__main__":
    unittest.main()
