"""Medians over runs, word error rate and the aural / other ratios. Pure functions, no I/O."""
import re
import statistics

# aural's modes, and the engines each is compared with, in the order the ratio table lists them.
AURALS = ("aural-fp32", "aural-int8")
OTHERS = ("fw-fp32", "fw-int8", "whisper.cpp")
# The engine aural's best mode is held against (issue 12: at most 0.7x its time in every cell).
TARGET = "fw-int8"
# The engine whose text is the reference for the word error rate.
REFERENCE = "fw-fp32"


def median(values):
    """The median of the values that are not None; None when there are none."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def words(text):
    """The words WER compares: lower-cased runs of letters (any script), digits and apostrophes; punctuation is
    dropped."""
    return re.findall(r"(?:[^\W_]|')+", text.lower())


def characters(text):
    """The characters CER compares (for Chinese, which has no spaces): lower-cased letters and digits of any
    script; spaces and punctuation are dropped."""
    return [c for c in text.lower() if c.isalnum()]


def distance(reference, hypothesis):
    """Levenshtein distance between two token lists (substitutions, insertions and deletions, each 1)."""
    row = list(range(len(hypothesis) + 1))
    for i in range(1, len(reference) + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, len(hypothesis) + 1):
            above = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (reference[i - 1] != hypothesis[j - 1]))
            diagonal = above
    return row[len(hypothesis)]


def wer(reference, hypothesis):
    """Word error rate of `hypothesis` against `reference` (word-level Levenshtein distance over the reference's
    word count); None when either text is missing. An empty reference gives 0 for an empty hypothesis, else 1."""
    if reference is None or hypothesis is None:
        return None
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return distance(ref, hyp) / len(ref)


def summarize(runs, audio_seconds):
    """The row fields for one engine/config from its successful runs (a list of `engines.Run`, at least one):
    medians of wall, transcription and load time, real-time factors, the largest peak RSS, and the last run's
    text and note."""
    wall = median(r.wall for r in runs)
    transcribe = median(r.transcribe_s for r in runs)
    last = runs[-1]
    rss = [r.peak_rss_mib for r in runs if r.peak_rss_mib is not None]
    return dict(status="ok", runs=len(runs), wall_s=wall, transcribe_s=transcribe,
                load_s=median(r.load_s for r in runs),
                rtf=None if transcribe is None else transcribe / audio_seconds, rtf_wall=wall / audio_seconds,
                peak_rss_mib=max(rss) if rss else None, note=last.note,
                walls=" ".join(f"{r.wall:.2f}" for r in runs), text=(last.text or "")[:200], full_text=last.text)


def add_wer(rows):
    """Sets wer_vs_fw_fp32 on every successful row of one audio/model/beam group, against fw-fp32's text."""
    reference = next((r.get("full_text") for r in rows if r["engine"] == REFERENCE and r["status"] == "ok"), None)
    for r in rows:
        if r["status"] == "ok":
            r["wer_vs_fw_fp32"] = wer(reference, r.get("full_text"))


def _same_cell(a, b):
    return a["audio"] == b["audio"] and a["model"] == b["model"] and a["beam"] == b["beam"]


def ratios(rows):
    """aural / other for every aural row (each mode) that has an `other` row with the same audio, model and beam.

    time_ratio compares transcription times, or wall times when either engine did not report one (basis says
    which); wall_ratio compares wall times; rss_ratio peak memory (None when the other's is unknown).
    """
    result = []
    for a in rows:
        if a["engine"] not in AURALS or a["status"] != "ok":
            continue
        for other in OTHERS:
            o = next((x for x in rows if x["engine"] == other and x["status"] == "ok" and _same_cell(x, a)), None)
            if o is None:
                continue
            t_a, t_o, basis = a.get("transcribe_s"), o.get("transcribe_s"), "transcribe"
            if t_a is None or t_o is None:
                t_a, t_o, basis = a["wall_s"], o["wall_s"], "wall"
            rss_ratio = None
            if o.get("peak_rss_mib") and a.get("peak_rss_mib") is not None:
                rss_ratio = a["peak_rss_mib"] / o["peak_rss_mib"]
            result.append(dict(audio=a["audio"], model=a["model"], beam=a["beam"], engine=a["engine"], vs=other,
                               time_ratio=t_a / t_o, wall_ratio=a["wall_s"] / o["wall_s"], basis=basis,
                               rss_ratio=rss_ratio))
    return result


def best_ratios(rows, target=TARGET):
    """Per audio/model/beam cell: aural's fastest mode by median wall time (model load included, as issue 12
    measures) against `target`'s wall time, with the transcription-time ratio of the same pair (None when either
    did not report one). Cells where no aural mode or the target did not run are left out."""
    result = []
    cells = []
    for r in rows:
        key = (r["audio"], r["model"], r["beam"])
        if key not in cells:
            cells.append(key)
    for audio, model, beam in cells:
        cell = [r for r in rows if (r["audio"], r["model"], r["beam"]) == (audio, model, beam) and r["status"] == "ok"]
        modes = [r for r in cell if r["engine"] in AURALS]
        other = next((r for r in cell if r["engine"] == target), None)
        if not modes or other is None:
            continue
        best = min(modes, key=lambda r: r["wall_s"])
        time_ratio = None
        if best.get("transcribe_s") is not None and other.get("transcribe_s"):
            time_ratio = best["transcribe_s"] / other["transcribe_s"]
        result.append(dict(audio=audio, model=model, beam=beam, best=best["engine"], vs=target,
                           wall_ratio=best["wall_s"] / other["wall_s"], time_ratio=time_ratio))
    return result
