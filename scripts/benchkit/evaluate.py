"""scripts/eval: word error rate (character error rate for Chinese) of aural and faster-whisper on a directory of
recordings with reference transcripts, per file and overall, per model and compute type.

The directory holds manifest.jsonl, one JSON object per recording: `id`, `audio` (a path relative to the directory),
`text` (the reference), `lang` (an ISO code; "zh" is scored by characters). The development set in ../shared/eval
has this layout; it is not part of the repository. Models: tiny.en on the English recordings and base on all of
them, beam 5 (faster-whisper's default), the recording's language given to every engine. Engines are the bench's
(aural-fp32, aural-int8, fw-fp32, fw-int8), each run once per recording as a separate process.

Text is compared with the bench's normaliser (`stats.words`: lower case, punctuation dropped; `stats.characters` for
Chinese). Overall scores are corpus-level: the edit distances summed over the recordings, divided by the summed
reference lengths, separately for the word-scored and character-scored recordings.
"""
import argparse
import datetime
import json
import os
import sys

from benchkit import report, stats
from benchkit.engines import aural, faster_whisper
from benchkit.paths import THREADS, Paths

ENGINES = ("aural-fp32", "aural-int8", "fw-fp32", "fw-int8")
BEAM = 5
CHARACTER_LANGUAGES = ("zh",)


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def read_manifest(directory):
    """The recordings of `directory`/manifest.jsonl as dicts, each with `path` (the audio's absolute path) added."""
    items = []
    with open(os.path.join(directory, "manifest.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                item = json.loads(line)
                items.append(dict(item, path=os.path.join(directory, item["audio"])))
    return items


def jobs(items, models):
    """(model, item) pairs to run: English-only models (names ending in .en) on the English recordings, the others
    on every recording, in manifest order per model."""
    return [(model, item) for model in models for item in items if not model.endswith(".en") or item["lang"] == "en"]


def score(reference, hypothesis, lang):
    """(unit, errors, reference length) for one recording: unit "cer" over characters for CHARACTER_LANGUAGES,
    else "wer" over words; errors is None when there is no hypothesis."""
    unit, tokens = ("cer", stats.characters) if lang in CHARACTER_LANGUAGES else ("wer", stats.words)
    ref = tokens(reference)
    if hypothesis is None:
        return unit, None, len(ref)
    return unit, stats.distance(ref, tokens(hypothesis)), len(ref)


def overall(rows):
    """Corpus-level scores per (model, engine, unit): dicts with files, errors, length, rate (errors / length) and
    failed (recordings without a hypothesis, left out of the sums)."""
    totals = {}
    for r in rows:
        key = (r["model"], r["engine"], r["unit"])
        t = totals.setdefault(key, dict(model=key[0], engine=key[1], unit=key[2], files=0, errors=0, length=0,
                                        failed=0))
        if r["errors"] is None:
            t["failed"] += 1
            continue
        t["files"] += 1
        t["errors"] += r["errors"]
        t["length"] += r["length"]
    for t in totals.values():
        t["rate"] = t["errors"] / t["length"] if t["length"] else None
    return list(totals.values())


def per_file_table(rows):
    """Markdown lines: one per recording, model and engine."""
    lines = ["| id | lang | model | engine | unit | errors / length | rate | hypothesis |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rate = None if r["errors"] is None or not r["length"] else r["errors"] / r["length"]
        hypothesis = r["hypothesis"] if r["hypothesis"] is not None else f"({r['note']})"
        lines.append(f"| {r['id']} | {r['lang']} | {r['model']} | {r['engine']} | {r['unit']} | "
                     f"{'-' if r['errors'] is None else r['errors']} / {r['length']} | {report.fmt(rate, 3)} | "
                     f"{hypothesis.strip().replace('|', '/')[:80]} |")
    return lines


def overall_table(totals):
    """Markdown lines: one per model, engine and unit."""
    lines = ["| model | engine | unit | files | errors / length | rate | failed |", "|---|---|---|---|---|---|---|"]
    for t in totals:
        lines.append(f"| {t['model']} | {t['engine']} | {t['unit']} | {t['files']} | {t['errors']} / {t['length']} | "
                     f"{report.fmt(t['rate'], 4)} | {t['failed']} |")
    return lines


def make_engine(name, language, paths, fw_python, build_status):
    if name in aural.COMPUTE_TYPES:
        return aural.Aural(name, paths.aural, paths, THREADS, language, build_status)
    return faster_whisper.FasterWhisper(name, fw_python, paths, THREADS, language)


def evaluate(directory, models, engine_names, paths, build_status="not built (scripts/eval never builds)"):
    """Runs every job with every engine; returns the per-file rows."""
    items = read_manifest(directory)
    fw_python = None
    if any(n in faster_whisper.COMPUTE_TYPES for n in engine_names):
        fw_python = faster_whisper.python(os.environ, paths.cache)
    rows = []
    skipped = set()
    for model, item in jobs(items, models):
        for name in engine_names:
            engine = make_engine(name, item["lang"], paths, fw_python, build_status)
            row = dict(id=item["id"], lang=item["lang"], model=model, engine=name)
            reason = engine.unavailable(model)
            if reason:
                if (name, model) not in skipped:
                    log(f"eval: skip {name} {model}: {reason}")
                    skipped.add((name, model))
                continue
            run = engine.run(model, BEAM, item["path"])
            unit, errors, length = score(item["text"], run.text if run.ok else None, item["lang"])
            rows.append(dict(row, unit=unit, errors=errors, length=length, hypothesis=run.text if run.ok else None,
                             note=run.note, wall_s=run.wall))
            log(f"eval: {model} {name} {item['id']}: {unit} {errors}/{length} wall={run.wall:.2f}s")
    return rows


def parser():
    p = argparse.ArgumentParser(prog="scripts/eval", description=__doc__.split("\n\n")[0].replace("\n", " "),
                                epilog="environment: AURALKIT_MODELS_DIR, AURAL_BIN (default .build/release/aural; "
                                       "build it first), FW_PYTHON, AURALKIT_BENCH_CACHE, XDG_CACHE_HOME.")
    p.add_argument("directory", help="the recordings' directory (manifest.jsonl and the audio), e.g. ../shared/eval")
    p.add_argument("--models", default="tiny.en,base", help="installed models (default %(default)s)")
    p.add_argument("--engines", default=",".join(ENGINES), help="default %(default)s")
    p.add_argument("--output", help="also write the report (Markdown) and a .jsonl of the rows next to it")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    engine_names = [n for n in args.engines.split(",") if n]
    unknown = [n for n in engine_names if n not in ENGINES]
    if unknown:
        parser().error(f"unknown engine {', '.join(unknown)} (choose from {', '.join(ENGINES)})")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = Paths.from_environment(root, os.environ)
    started = datetime.datetime.now()
    rows = evaluate(args.directory, [m for m in args.models.split(",") if m], engine_names, paths)
    totals = overall(rows)
    text = "\n".join([f"# AuralKit accuracy ({started.isoformat(timespec='seconds')}, {args.directory}, beam {BEAM}, "
                      f"aural={paths.aural})", ""] + overall_table(totals) + [""] + per_file_table(rows)) + "\n"
    print(text)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        with open(os.path.splitext(args.output)[0] + ".jsonl", "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return 0
