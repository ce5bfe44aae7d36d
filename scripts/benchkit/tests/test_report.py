import csv
import datetime
import json
import os
import tempfile
import unittest

from benchkit import report

ROWS = [
    dict(audio="short", audio_s=44.05, model="tiny.en", beam=1, engine="aural-fp32", status="ok", runs=1, wall_s=3.456,
         transcribe_s=2.5, load_s=0.25, rtf=0.05675, rtf_wall=0.0784, peak_rss_mib=312.4, wer_vs_fw_fp32=0.0,
         note="", walls="3.46", text=" It was", full_text=" It was the best of times"),
    dict(audio="short", audio_s=44.05, model="tiny.en", beam=1, engine="fw-fp32", status="ok", runs=1, wall_s=5.0,
         transcribe_s=3.125, load_s=0.5, rtf=0.0709, rtf_wall=0.1135, peak_rss_mib=600.0, wer_vs_fw_fp32=0.0,
         note="lang=en import=0.80s", walls="5.00", text=" It was", full_text=" It was the best of times"),
    dict(audio="short", audio_s=44.05, model="tiny.en", beam=1, engine="whisper.cpp", status="skipped",
         note="WHISPER_CPP_CLI not set"),
]
RATIOS = [dict(audio="short", model="tiny.en", beam=1, engine="aural-fp32", vs="fw-fp32", time_ratio=0.8, wall_ratio=0.6912,
               basis="transcribe", rss_ratio=0.5207)]


class TableTests(unittest.TestCase):
    def test_results_table_formats_each_column(self):
        self.assertEqual(report.results_table(ROWS), [
            "| audio | model | beam | engine | status | wall_s | transcribe_s | load_s | rtf | rtf_wall | peak_rss_mib "
            "| wer_vs_fw_fp32 | note |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            "| short | tiny.en | 1 | aural-fp32 | ok | 3.46 | 2.50 | 0.25 | 0.057 | 0.078 | 312 | 0.000 |  |",
            "| short | tiny.en | 1 | fw-fp32 | ok | 5.00 | 3.12 | 0.50 | 0.071 | 0.114 | 600 | 0.000 "
            "| lang=en import=0.80s |",
            "| short | tiny.en | 1 | whisper.cpp | skipped |  |  |  |  |  |  |  | WHISPER_CPP_CLI not set |",
        ])

    def test_pipes_in_notes_do_not_break_the_table(self):
        (line,) = report.results_table([dict(engine="aural-fp32", note="exit 1: a | b")])[2:]
        self.assertTrue(line.endswith("| exit 1: a / b |"))

    def test_ratio_table(self):
        self.assertEqual(report.ratio_table(RATIOS), [
            "",
            "| audio | model | beam | aural | / | time ratio | basis | wall ratio | RSS ratio |",
            "|---|---|---|---|---|---|---|---|---|",
            "| short | tiny.en | 1 | aural-fp32 | fw-fp32 | 0.80 | transcribe | 0.69 | 0.52 |",
        ])
        (blank, note) = report.ratio_table([])
        self.assertEqual((blank, note[:25]), ("", "(no aural / other ratios:"))

    def test_markdown_layout(self):
        text = report.markdown("ENV", ROWS, RATIOS)
        lines = text.split("\n")
        self.assertEqual(lines[:5], ["# AuralKit benchmark", "", "ENV", "", report.LEGEND])
        self.assertEqual(lines[6], report.results_table(ROWS)[0])
        self.assertTrue(text.endswith("| 0.52 |\n"))

    def test_best_mode_table(self):
        best = [dict(audio="long", model="base", beam=5, best="aural-int8", vs="fw-int8", wall_ratio=0.6449,
                     time_ratio=None)]
        self.assertEqual(report.best_table(best)[-3:], [
            "| audio | model | beam | best aural | / | wall ratio | time ratio |", "|---|---|---|---|---|---|---|",
            "| long | base | 5 | aural-int8 | fw-int8 | 0.64 | - |"])
        self.assertEqual(report.best_table([]), [])

    def test_startup_table_after_the_others(self):
        startup = [dict(model="tiny.en", engine="aural-fp32", status="ok", startup_s=0.4567, load_s=0.12,
                        peak_rss_mib=150.6, note="It was"),
                   dict(model="tiny.en", engine="aural-int8", status="skipped", note="this aural has no --compute-type")]
        lines = report.startup_table(startup)
        self.assertEqual(lines[:2], ["", report.STARTUP_LEGEND])
        self.assertEqual(lines[-2:], ["| tiny.en | aural-fp32 | ok | 0.46 | 0.12 | 151 | It was |",
                                      "| tiny.en | aural-int8 | skipped |  |  |  | this aural has no --compute-type |"])
        text = report.markdown("ENV", ROWS, RATIOS, startup=startup)
        self.assertTrue(text.endswith("| this aural has no --compute-type |\n"))
        self.assertLess(text.index("| RSS ratio |"), text.index(report.STARTUP_LEGEND))

    def test_environment_line(self):
        line = report.environment_line(
            datetime.datetime(2026, 12, 1, 7, 5, 9, 123), runs=1, threads=2, load_start=1.5, load_end=2.25, cores=2,
            language="en", omp_wait="default", aural="/r/.build/release/aural", build_status="built",
            audios={"short": ("/c/two_cities-16k.wav", 44.04)}, cpu="Some CPU")
        self.assertEqual(line, "2026-12-01T07:05:09 runs=1 threads=2 loadavg(1 min) at start=1.50 end=2.25 (nproc=2) "
                               "language=en omp_wait=default aural=/r/.build/release/aural (built) "
                               "audio: short=two_cities-16k.wav (44.0 s) cpu=Some CPU")


class WriteTests(unittest.TestCase):
    def test_writes_markdown_csv_texts_and_ratios(self):
        with tempfile.TemporaryDirectory() as directory:
            path = report.write(directory, "20261201-070509", "# md\n", ROWS, RATIOS)
            self.assertEqual(path, os.path.join(directory, "bench-20261201-070509.md"))
            self.assertEqual(sorted(os.listdir(directory)), [
                "bench-20261201-070509-ratios.csv", "bench-20261201-070509-texts.jsonl", "bench-20261201-070509.csv",
                "bench-20261201-070509.md"])
            with open(os.path.join(directory, "bench-20261201-070509.csv"), newline="") as fh:
                rows = list(csv.DictReader(fh))
            self.assertEqual(list(rows[0].keys()), report.CSV_KEYS)
            self.assertEqual([r["engine"] for r in rows], ["aural-fp32", "fw-fp32", "whisper.cpp"])
            with open(os.path.join(directory, "bench-20261201-070509-texts.jsonl")) as fh:
                texts = [json.loads(line) for line in fh]
            self.assertEqual(texts[0], dict(audio="short", model="tiny.en", beam=1, engine="aural-fp32",
                                            full_text=" It was the best of times"))
            self.assertEqual(len(texts), 2)

    def test_writes_the_startup_rows(self):
        startup = [dict(model="base", engine="fw-int8", status="ok", startup_s=1.5, load_s=0.3, peak_rss_mib=200.0,
                        note="It was")]
        with tempfile.TemporaryDirectory() as directory:
            report.write(directory, "s", "# md\n", ROWS, RATIOS, startup)
            with open(os.path.join(directory, "bench-s-startup.csv"), newline="") as fh:
                (row,) = list(csv.DictReader(fh))
            self.assertEqual((row["engine"], row["startup_s"], row["peak_rss_mib"]), ("fw-int8", "1.5", "200.0"))


if __name__ == "__main__":
    unittest.main()
