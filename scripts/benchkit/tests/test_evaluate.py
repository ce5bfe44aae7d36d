import json
import os
import tempfile
import unittest

from benchkit import evaluate, stats


def item(id, lang, text="a b"):
    return dict(id=id, lang=lang, text=text, audio=f"data/{id}.wav", path=f"/d/data/{id}.wav")


class ManifestTests(unittest.TestCase):
    def test_reads_each_line_and_resolves_the_audio_path(self):
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "manifest.jsonl"), "w", encoding="utf-8") as fh:
                fh.write(json.dumps(dict(id="x", audio="data/x.wav", text="大学", lang="zh")) + "\n\n")
            (x,) = evaluate.read_manifest(directory)
        self.assertEqual((x["id"], x["text"], x["path"]), ("x", "大学", os.path.join(directory, "data/x.wav")))

    def test_english_models_only_get_english_recordings(self):
        items = [item("a", "en"), item("b", "de"), item("c", "en")]
        self.assertEqual([(m, i["id"]) for m, i in evaluate.jobs(items, ["tiny.en", "base"])],
                         [("tiny.en", "a"), ("tiny.en", "c"), ("base", "a"), ("base", "b"), ("base", "c")])


class ScoreTests(unittest.TestCase):
    def test_words_with_the_bench_normaliser(self):
        self.assertEqual(evaluate.score("HE COULD WAIT NO LONGER", " He could wait, no longer.", "en"), ("wer", 0, 5))
        self.assertEqual(evaluate.score("Der Raum wurde schöner", "der raum wurde schoner", "de"), ("wer", 1, 4))
        self.assertEqual(evaluate.score("IN EIGHTEEN THIRTEEN", "In 1813.", "en"), ("wer", 2, 3))

    def test_characters_for_chinese(self):
        self.assertEqual(evaluate.score("大学生利用漏洞", "大学生，利用漏动。", "zh"), ("cer", 1, 7))

    def test_a_failed_run_has_no_errors(self):
        self.assertEqual(evaluate.score("a b c", None, "en"), ("wer", None, 3))

    def test_distance_counts_each_edit_once(self):
        self.assertEqual(stats.distance(list("kitten"), list("sitting")), 3)
        self.assertEqual(stats.distance([], ["a"]), 1)


class OverallTests(unittest.TestCase):
    def test_corpus_level_rates_per_model_engine_and_unit(self):
        rows = [dict(model="base", engine="fw-int8", unit="wer", errors=1, length=4),
                dict(model="base", engine="fw-int8", unit="wer", errors=0, length=6),
                dict(model="base", engine="fw-int8", unit="wer", errors=None, length=3),
                dict(model="base", engine="fw-int8", unit="cer", errors=2, length=8),
                dict(model="base", engine="aural-fp32", unit="wer", errors=3, length=10)]
        totals = {(t["engine"], t["unit"]): t for t in evaluate.overall(rows)}
        self.assertEqual((totals["fw-int8", "wer"]["rate"], totals["fw-int8", "wer"]["files"],
                          totals["fw-int8", "wer"]["failed"]), (0.1, 2, 1))
        self.assertEqual(totals["fw-int8", "cer"]["rate"], 0.25)
        self.assertEqual(totals["aural-fp32", "wer"]["rate"], 0.3)

    def test_tables(self):
        rows = [dict(id="a", lang="en", model="tiny.en", engine="fw-fp32", unit="wer", errors=1, length=4,
                     hypothesis=" A | b", note=""),
                dict(id="b", lang="en", model="tiny.en", engine="aural-int8", unit="wer", errors=None, length=2,
                     hypothesis=None, note="exit 1")]
        self.assertEqual(evaluate.per_file_table(rows)[2:], ["| a | en | tiny.en | fw-fp32 | wer | 1 / 4 | 0.250 | A / b |",
                                                             "| b | en | tiny.en | aural-int8 | wer | - / 2 | - | (exit 1) |"])
        self.assertEqual(evaluate.overall_table(evaluate.overall(rows))[2:],
                         ["| tiny.en | fw-fp32 | wer | 1 | 1 / 4 | 0.2500 | 0 |",
                          "| tiny.en | aural-int8 | wer | 0 | 0 / 0 | - | 1 |"])


if __name__ == "__main__":
    unittest.main()
