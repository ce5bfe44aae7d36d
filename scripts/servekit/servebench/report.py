"""The Markdown report, as a dated entry for docs/benchmarks.md. Pure: it formats what cli measured."""

import textwrap

from servebench.servers import AURAL, PEER, PEER_VERSION
from servebench.summary import GROWTH_LIMIT_S, LAG_LIMIT_S, ratio

THROUGHPUT_GOAL = 1.5


def fmt(value, digits=2, suffix=""):
    """`value` with `digits` decimals, or "-" when unknown."""
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def percent(value):
    return "-" if value is None else f"{100 * value:.1f} %"


def load_table(rest):
    """One row per model, concurrency and server; `rest` is {model: {server: {clients: figures}}}."""
    lines = ["| Model | Clients | Server | Audio s per s | p50 s | p95 s | Peak RSS MiB | CPU cores | Other work cores "
             "| Errors | WER two_cities | Same text as warm-up |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for model, servers in rest.items():
        counts = sorted({n for figures in servers.values() for n in figures})
        for n in counts:
            for server, figures in servers.items():
                f = figures.get(n)
                if f is None:
                    continue
                lines.append(f"| {model} | {n} | {server} | {fmt(f['throughput'])} | {fmt(f['p50'])} | "
                             f"{fmt(f['p95'])} | {fmt(f['peak_rss_mib'], 0)} | {fmt(f['cpu_cores'])} | "
                             f"{fmt(f.get('other_cores'))} | {f['errors']} | {percent(f['wer'])} | {f['same_text']} |")
    return lines


def ratio_rows(rest):
    """[(model, clients, aural / peer throughput)] where both servers ran."""
    rows = []
    for model, servers in rest.items():
        if AURAL not in servers or PEER not in servers:
            continue
        for n, f in sorted(servers[AURAL].items()):
            other = servers[PEER].get(n)
            if other is not None:
                rows.append((model, n, ratio(f["throughput"], other["throughput"])))
    return rows


def ratio_table(rows):
    lines = ["| Model | Clients | Throughput aural / peer | p50 latency aural / peer | Goal >= 1.5x |",
             "|---|---|---|---|---|"]
    for model, n, r, latency in rows:
        met = "-" if r is None else ("met" if r >= THROUGHPUT_GOAL else "not met")
        lines.append(f"| {model} | {n} | {fmt(r)} | {fmt(latency)} | {met} |")
    return lines


def live_table(sessions):
    """One row per live session: each a dict with index, order, audio_s, lag figures, by_commit, wer, error."""
    lines = ["| Session | Recordings | Audio s | Phrases | Lag mean s | Lag p90 s | Lag max s | Growth s | "
             "Slope s/min | WER | Keeps up |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sessions:
        lag = s["lag"]
        keeps = "yes" if lag["keeps_up"] and not s["error"] else "no"
        if s["error"]:
            keeps += f" ({s['error']})"
        lines.append(f"| {s['index'] + 1} | {', '.join(s['order'])} | {s['audio_s']:.1f} | {lag['phrases']} "
                     f"(+{s['by_commit']} at commit) | {fmt(lag['mean'])} | {fmt(lag['p90'])} | {fmt(lag['max'])} | "
                     f"{fmt(lag['growth'])} | {fmt(lag['slope_per_min'])} | {percent(s['wer'])} | {keeps} |")
    return lines


def live_paragraph(model, result):
    """What the live run did and what the server used meanwhile."""
    return (f"Live: {len(result['sessions'])} Realtime WebSocket sessions at once on aural serve ({model}, "
            f"{result['compute_type']}), each sending its recordings at {result['rate']} Hz in 100 ms chunks paced by "
            f"the wall clock, then {result['tail_s']:.0f} s of silence and a commit. Server CPU "
            f"{fmt(result['cpu_cores'])} cores ({fmt(result['cpu_per_session_pct'], 0)} % of a core per session; "
            f"other work {fmt(result.get('other_cores'))} cores meanwhile); peak RSS {fmt(result['peak_rss_mib'], 0)} "
            f"MiB (idle before the sessions: {fmt(result['rss_before_mib'], 0)} MiB, 2 s after them: "
            f"{fmt(result.get('rss_after_mib'), 0)} MiB); /metrics meanwhile: "
            f"{result['metrics']}. {PEER} {PEER_VERSION}: {result['peer']}.")


def probe_table(probes):
    """`probes` is {server: [(case, answer)]} with the same cases in the same order."""
    servers = list(probes)
    lines = ["| Request | " + " | ".join(servers) + " |", "|---|" + "---|" * len(servers)]
    cases = [case for case, _ in probes[servers[0]]]
    for i, case in enumerate(cases):
        lines.append(f"| {case} | " + " | ".join(probes[s][i][1] for s in servers) + " |")
    return lines


def goals(rest_ratios, rest, live):
    """Plain lines: is each goal of issue 34 met?"""
    lines = []
    known = [r for _, _, r, _ in rest_ratios if r is not None]
    if known:
        worst = min(known)
        lines.append(f"- Throughput >= {THROUGHPUT_GOAL}x the peer at every concurrency: "
                     f"{'met' if worst >= THROUGHPUT_GOAL else 'not met'} (lowest ratio {worst:.2f}).")
    for model, servers in rest.items():
        figures = servers.get(AURAL)
        peaks = [p for f in (figures or {}).values() for p in f.get("peaks", [])]
        if peaks:
            flat = max(peaks) <= 1.15 * min(peaks)
            first = ", ".join(f"{p:.0f}" for p in figures[min(figures)]["peaks"])
            idle = f"idle after the warm-up {figures[min(figures)]['idle_rss_mib']:.0f} MiB; " \
                if figures[min(figures)].get("idle_rss_mib") else ""
            lines.append(f"- Memory flat in the number of clients ({model}, aural): {'met' if flat else 'not met'} "
                         f"({idle}peak RSS {min(peaks):.0f}-{max(peaks):.0f} MiB over every run from {min(figures)} "
                         f"to {max(figures)} clients, in the order of the runs at {min(figures)} client(s): {first} "
                         "MiB; flat is every run's peak within 15 % of the lowest).")
    for model, result in live.items():
        sessions = result["sessions"]
        if result["peak_rss_mib"] is not None and result["rss_before_mib"]:
            each = (result["peak_rss_mib"] - result["rss_before_mib"]) / max(1, len(sessions))
            flat = result["peak_rss_mib"] <= 1.15 * result["rss_before_mib"]
            lines.append(f"- Memory flat in the number of live sessions ({model}): {'met' if flat else 'not met'} "
                         f"({result['rss_before_mib']:.0f} MiB idle, {result['peak_rss_mib']:.0f} MiB at peak with "
                         f"{len(sessions)} sessions: {each:.0f} MiB more per session; flat is within 15 %).")
        ok = sum(1 for s in sessions if s["lag"]["keeps_up"] and not s["error"])
        lines.append(f"- {len(sessions)} live sessions keeping up on {result['cores']} cores with {model} "
                     f"{result['compute_type']} (lag p90 < {LAG_LIMIT_S:.0f} s, growth <= {GROWTH_LIMIT_S} s): "
                     f"{'met' if ok == len(sessions) else 'not met'} ({ok} of {len(sessions)} keep up).")
    return lines


def markdown(header, rest, live, probes, notes):
    """The whole entry: `header` lines (title and bullets), the load table, the ratios, the live sessions, the
    newcomer's checks, the goals and `notes`."""
    rows = ratio_rows(rest)
    with_latency = []
    for model, n, r in rows:
        a, p = rest[model][AURAL][n], rest[model][PEER][n]
        with_latency.append((model, n, r, ratio(a["p50"], p["p50"])))
    out = list(header) + [""] + load_table(rest)
    if with_latency:
        out += [""] + ratio_table(with_latency)
    for model, result in live.items():
        out += ["", live_paragraph(model, result), ""] + live_table(result["sessions"])
    if probes:
        out += ["", "What each server answers (json and verbose_json carry the text; the others as shown):", ""]
        out += probe_table(probes)
    out += ["", "Goals (issue 34):"] + goals(with_latency, rest, live)
    if notes:
        out += [""] + [f"- {n}" for n in notes]
    return "\n".join(wrap(line) for line in out) + "\n"


def wrap(line, width=120):
    """A prose line folded at `width` as the docs are (a bullet's continuation indented by two); tables and headings
    as they are."""
    if line.startswith(("|", "#")) or len(line) <= width:
        return line
    indent = "  " if line.startswith("- ") else ""
    return textwrap.fill(line, width=width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
