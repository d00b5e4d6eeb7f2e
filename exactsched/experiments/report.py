"""Text and Markdown reports of a study (rows of :func:`.analysis.load_rows`)."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from exactsched.experiments.analysis import GROUPINGS, summarise, summarise_by

__all__ = ["compare_text", "summary_text", "markdown_report", "write_outputs"]


def _pct(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf"
    return f"{100 * value:.{digits}f}%"


def _num(value: float | None, fmt: str = "g") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return format(value, fmt)


_SUMMARY_HEAD = (
    "method", "optimal", "mean gap", "median gap", "worst gap", "APD %", "WPD %", "wins",
    "fails", "n/a", "errors", "mean s",
)  # fmt: skip


def _summary_cells(s: dict[str, Any]) -> list[str]:
    share = "-" if s["share_optimal"] is None else f"{s['optimal']}/{s['with_optimum']}"
    return [
        s["method"],
        share,
        _pct(s["mean_gap"]),
        _pct(s["median_gap"]),
        _pct(s["worst_gap"]),
        _num(s["apd"], ".2f"),
        _num(s["wpd"], ".2f"),
        _num(s["wins"], "d"),
        str(s["failures"]),
        str(s["not_applicable"]),
        str(s["errors"]),
        _num(s["mean_seconds"], ".4f"),
    ]


def _table(
    head: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool, left: Sequence[int] = (0,)
) -> str:
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]

    def fmt(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        text = "  ".join(str(x).ljust(w) if k in left else str(x).rjust(w) for k, (x, w) in pairs)
        return text.rstrip()

    return "\n".join([fmt(head), *(fmt(r) for r in rows)])


def summary_text(rows: Sequence[dict[str, Any]], markdown: bool = False) -> str:
    """The per-method summary table (see :func:`~exactsched.experiments.analysis.summarise`).

    Columns: optimal (instances solved optimally / instances with a known
    optimum), mean, median and worst gap to the optimum, APD and WPD (percent
    above the best heuristic), wins, failures (above the minimal serial time),
    refusals (n/a), errors and mean seconds per run; then, per exact method, how
    many of its proven optima were certified.
    """
    if not rows:
        return "no results"
    summary = summarise(rows)
    table = _table(_SUMMARY_HEAD, [_summary_cells(s) for s in summary], markdown)
    notes = []
    for s in summary:
        if s["kind"] == "exact" and s["proofs"]:
            untried = s["proofs"] - s["certified"] - s["refuted"]
            parts = [f"{s['certified']} certified"]
            parts += [f"{s['refuted']} NOT certified"] if s["refuted"] else []
            parts += [f"{untried} not attempted"] if untried else []
            notes.append(f"{s['method']}: {s['proofs']} proven optima, {', '.join(parts)}")
    return table + ("\n\n" + "\n".join(notes) if notes else "")


def _instance_table(rows: Sequence[dict[str, Any]]) -> str:
    ref = rows[0]
    head = f"{ref['instance']} ({ref['tasks']} tasks, {ref['platform']}, CCR {ref['ccr']:.3g})"
    if ref["disputed"]:
        head += f"\n  DISPUTED: {ref['disputed']}"
    elif ref["optimum"] is not None:
        head += f"\n  optimum {ref['optimum']:g}"
    else:
        head += (
            f"\n  optimum unknown: best known {_num(ref['best_known'])}, "
            f"best bound {_num(ref['best_bound'])}"
        )
    body = []
    ordered = sorted(
        rows,
        key=lambda r: (
            r["kind"] != "exact",
            r["makespan"] is None,
            r["makespan"] or 0,
            r["label"],
        ),
    )
    for r in ordered:
        if r["makespan"] is None:
            gap = ""
        elif r["gap_to_optimum"] is not None:
            gap = _pct(r["gap_to_optimum"])
        else:
            gap = f"<={_pct(r['gap_to_bound'])}"
        note = r["error"] or ""
        if r["kind"] == "exact" and r["status"] != "optimal" and r["lower_bound"] is not None:
            note = f"bound {r['lower_bound']:g}" + (f"; {note}" if note else "")
        if r["certified"] is not None:
            note = ("certified" if r["certified"] else "NOT certified") + (
                f"; {note}" if note else ""
            )
        body.append(
            [r["label"], r["status"], _num(r["makespan"]), gap, _num(r["seconds"], ".4f"), note]
        )
    head_row = ["method", "status", "makespan", "gap", "seconds", "note"]
    table = _table(head_row, body, False, left=(0, 1, 5))
    return head + "\n\n" + "\n".join("  " + line for line in table.splitlines())


def compare_text(
    rows: Sequence[dict[str, Any]], outcome: Any = None, per_instance: int = 3
) -> str:
    """What ``compare`` prints: each instance's table (up to ``per_instance``), then a summary."""
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    parts = []
    if len(by_instance) <= per_instance:
        parts += [_instance_table(group) for group in by_instance.values()]
    known = sum(1 for g in by_instance.values() if g[0]["optimum"] is not None)
    disputed = [g[0] for g in by_instance.values() if g[0]["disputed"]]
    lines = [f"{len(by_instance)} instance(s), optimum known for {known}"]
    if outcome is not None:
        lines[0] += (
            f"; {outcome.ran} run(s) now, {outcome.skipped} from the database"
            f"{f', {outcome.errors} error(s)' if outcome.errors else ''}"
            f" ({outcome.seconds:.1f} s)"
        )
    for d in disputed:
        lines.append(f"DISPUTED {d['instance']}: {d['disputed']}")
    parts.append("\n".join(lines))
    parts.append(summary_text(rows))
    return "\n\n".join(parts)


def markdown_report(rows: Sequence[dict[str, Any]], plots: Sequence[str] = ()) -> str:
    """A Markdown report: overview, per-method table, tables by size, topology, CCR and
    platform, disputed instances, errors, and links to ``plots``."""
    from exactsched import __version__

    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    firsts = [g[0] for g in by_instance.values()]
    known = sum(1 for f in firsts if f["optimum"] is not None)
    exact = sorted({r["label"] for r in rows if r["kind"] == "exact"})
    limits = sorted({_limit(r) for r in rows if r["kind"] == "exact"} - {None})
    sizes = [f["tasks"] for f in firsts if f["tasks"] is not None]
    out = ["# Optimality-gap study", ""]
    out.append(
        f"{len(firsts)} instances ({min(sizes, default=0)}-{max(sizes, default=0)} tasks; "
        f"topologies: {', '.join(sorted({str(f['topology']) for f in firsts}))}), "
        f"{len({r['label'] for r in rows})} methods, exact: {', '.join(exact) or 'none'}"
        + (f" (time limit {', '.join(f'{x:g}' for x in limits)} s)" if limits else "")
        + f". Optimum known for {known} of {len(firsts)} instances. exactsched {__version__}."
    )
    out += [
        "",
        "Gaps are to the proven optimum: (makespan - optimum) / optimum. APD and WPD are the "
        "average and worst percentage by which a heuristic exceeds the best heuristic on each "
        "instance, wins count instances where it is the best heuristic (ties included), "
        "fails the makespans above the minimal serial time (McSweeney's report, 4.2.2).",
        "",
        "## Per method",
        "",
        summary_text(rows, markdown=True),
    ]
    disputed = [f for f in firsts if f["disputed"]]
    if disputed:
        out += ["", "## Disputed instances", ""]
        out += [f"- `{f['instance']}` (`{f['instance_key']}`): {f['disputed']}" for f in disputed]
    for title, group in GROUPINGS.items():
        table = _grouped(rows, group)
        if table:
            out += ["", f"## By {title}", "", "Mean gap to the optimum (share solved optimally).",
                    "", table]  # fmt: skip
    errors = [r for r in rows if r["status"] in ("error", "invalid", "not-applicable")]
    if errors:
        out += ["", "## Errors and refusals", ""]
        for r in errors[:50]:
            out.append(f"- `{r['instance']}` {r['label']} ({r['status']}): {r['error']}")
        if len(errors) > 50:
            out.append(f"- ... and {len(errors) - 50} more (`exactsched results DB --csv`)")
    if plots:
        out += ["", "## Plots", ""]
        out += [f"![{os.path.basename(p)}]({p})" for p in plots]
    return "\n".join(out) + "\n"


def _limit(row: dict[str, Any]) -> float | None:
    import json

    value = json.loads(row["options"]).get("time_limit")
    return None if value is None else float(value)


def _grouped(rows: Sequence[dict[str, Any]], group: Any) -> str:
    groups = summarise_by(rows, group)
    if len(groups) < 1:
        return ""
    labels = [s["method"] for s in summarise(rows)]
    keys = list(groups)
    body = []
    for name in labels:
        cells = [name]
        for k in keys:
            s = next((s for s in groups[k] if s["method"] == name), None)
            if s is None or s["mean_gap"] is None:
                cells.append("-")
            else:
                cells.append(f"{_pct(s['mean_gap'], 1)} ({_pct(s['share_optimal'], 0)})")
        body.append(cells)
    return _table(["method", *(str(k) for k in keys)], body, True)


def write_outputs(
    rows: Sequence[dict[str, Any]], *, report: str | None = None, plots: str | None = None
) -> list[str]:
    """Write the plots into ``plots`` and the Markdown report to ``report``; the paths written."""
    written: list[str] = []
    images: list[str] = []
    if plots:
        from exactsched.experiments.plots import study_plots

        images = study_plots(rows, plots)
        written += images
    if report:
        base = os.path.dirname(os.path.abspath(report))
        links = [os.path.relpath(os.path.abspath(p), base) for p in images]
        with open(report, "w", encoding="utf-8") as fh:
            fh.write(markdown_report(rows, links))
        written.append(report)
    return written
