"""The Markdown report and the files in bench-results/. Everything but `write` is pure."""
import csv
import json
import os

# Columns of the results table, in order.
HEADER = ["audio", "model", "beam", "engine", "status", "wall_s", "transcribe_s", "load_s", "rtf", "rtf_wall",
          "peak_rss_mib", "wer_vs_fw_fp32", "note"]
# Columns of bench-<stamp>.csv.
CSV_KEYS = ["audio", "audio_s", "model", "beam", "engine", "status", "runs", "wall_s", "walls", "transcribe_s",
            "load_s", "rtf", "rtf_wall", "peak_rss_mib", "wer_vs_fw_fp32", "note", "text"]
LEGEND = ("wall_s: median process wall time; transcribe_s: audio decoding plus transcription, without model load, "
          "as each engine reports it; rtf = transcribe_s / audio seconds; peak_rss_mib: max over runs; "
          "wer_vs_fw_fp32: word error rate against faster-whisper fp32's text at the same beam.")


def fmt(value, digits=2):
    """A number with `digits` decimals, or "-" for None."""
    return "-" if value is None else f"{value:.{digits}f}"


def _digits(column):
    if column.startswith("rtf") or column == "wer_vs_fw_fp32":
        return 3
    return 0 if column == "peak_rss_mib" else 2


def results_table(rows):
    """The Markdown table of `rows` (dicts keyed by HEADER), one line per engine/config."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        cells = []
        for column in HEADER:
            value = r.get(column)
            if isinstance(value, float):
                value = fmt(value, _digits(column))
            cells.append("" if value is None else str(value).replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def ratio_table(ratios):
    """The Markdown table of `stats.ratios`, preceded by a blank line; a note instead when there are none."""
    if not ratios:
        return ["", "(no aural / other ratios: aural and another engine did not both run on any configuration)"]
    lines = ["", "| audio | model | beam | aural | / | time ratio | basis | wall ratio | RSS ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for q in ratios:
        lines.append(f"| {q['audio']} | {q['model']} | {q['beam']} | {q['engine']} | {q['vs']} | "
                     f"{q['time_ratio']:.2f} | {q['basis']} | {q['wall_ratio']:.2f} | {fmt(q['rss_ratio'])} |")
    return lines


def best_table(best):
    """The Markdown table of `stats.best_ratios` (aural's fastest mode / fw-int8 per cell), preceded by a blank
    line and a title; nothing when there are none."""
    if not best:
        return []
    lines = ["", "aural's best mode / fw-int8 per cell (goal of issue 12: wall ratio <= 0.70 everywhere):", "",
             "| audio | model | beam | best aural | / | wall ratio | time ratio |", "|---|---|---|---|---|---|---|"]
    for q in best:
        lines.append(f"| {q['audio']} | {q['model']} | {q['beam']} | {q['best']} | {q['vs']} | "
                     f"{q['wall_ratio']:.2f} | {fmt(q['time_ratio'])} |")
    return lines


# Columns of the start-up table.
STARTUP_HEADER = ["model", "engine", "status", "startup_s", "load_s", "peak_rss_mib", "note"]
STARTUP_LEGEND = ("start-up: startup_s is the median wall time from process start to exit on the first second of "
                  "beckett.wav at beam 1 (process start, model load, one 30 s encoder window and the few tokens of "
                  "\"Ever try.\": the time to a first token, within a few decoder steps); load_s is the model load the "
                  "engine reports; peak_rss_mib the largest resident set of those runs.")


def startup_table(rows):
    """The Markdown start-up table (rows keyed by STARTUP_HEADER), preceded by a blank line and the legend;
    nothing when there are no rows."""
    if not rows:
        return []
    lines = ["", STARTUP_LEGEND, "", "| " + " | ".join(STARTUP_HEADER) + " |", "|" + "---|" * len(STARTUP_HEADER)]
    for r in rows:
        cells = []
        for column in STARTUP_HEADER:
            value = r.get(column)
            if isinstance(value, float):
                value = fmt(value, 0 if column == "peak_rss_mib" else 2)
            cells.append("" if value is None else str(value).replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(environment, rows, ratios, best=(), startup=()):
    """The whole report: title, the `environment` line, the legend, the results and ratio tables, then aural's best
    mode against fw-int8 and the start-up table when given; ends with a newline."""
    return "\n".join(["# AuralKit benchmark", "", environment, "", LEGEND, ""]
                     + results_table(rows) + ratio_table(ratios) + best_table(best) + startup_table(startup)) + "\n"


def environment_line(started, runs, threads, load_start, load_end, cores, language, omp_wait, aural, build_status,
                     audios, cpu):
    """One line saying when and how the bench ran; `audios` maps short/long to (path, seconds)."""
    audio = ", ".join(f"{k}={os.path.basename(path)} ({seconds:.1f} s)" for k, (path, seconds) in audios.items())
    return (f"{started.isoformat(timespec='seconds')} runs={runs} threads={threads} "
            f"loadavg(1 min) at start={load_start:.2f} end={load_end:.2f} (nproc={cores}) "
            f"language={language} omp_wait={omp_wait} aural={aural} ({build_status}) "
            f"audio: {audio} cpu={cpu}")


def write(directory, stamp, text, rows, ratios, startup=()):
    """Writes bench-<stamp>.md, .csv, -texts.jsonl (each engine's full text), -ratios.csv and -startup.csv (when
    there are such rows) into `directory`; returns the Markdown file's path."""
    os.makedirs(directory, exist_ok=True)
    base = os.path.join(directory, f"bench-{stamp}")
    with open(base + ".md", "w", encoding="utf-8") as fh:
        fh.write(text)
    with open(base + ".csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_KEYS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    with open(base + "-texts.jsonl", "w", encoding="utf-8") as fh:
        for r in rows:
            if r.get("full_text") is not None:
                fh.write(json.dumps({k: r[k] for k in ("audio", "model", "beam", "engine", "full_text")},
                                    ensure_ascii=False) + "\n")
    if ratios:
        with open(base + "-ratios.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(ratios[0].keys()))
            writer.writeheader()
            writer.writerows(ratios)
    if startup:
        with open(base + "-startup.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=STARTUP_HEADER, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(startup)
    return base + ".md"
