"""Text and Markdown reports of a study (rows of :func:`.analysis.load_rows`)."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from exactsched._output import atomic_write, number_text, printable
from exactsched.experiments.analysis import (
    GROUPINGS,
    row_assumes_identical,
    summarise,
    summarise_by,
)

__all__ = [
    "compare_text",
    "summary_text",
    "communication_text",
    "markdown_report",
    "write_outputs",
]

#: The communication models in the order reports show them.
_MODELS = ("delay", "single-port", "contention")


def _pct(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage; a tiny nonzero one in two significant digits.

    Examples
    --------
    >>> _pct(0.0959), _pct(0.0), _pct(1.1e-10), _pct(None)
    ('9.59%', '0.00%', '1.1e-08%', '-')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf"
    if value != 0 and abs(100 * value) < 0.5 * 10**-digits:
        return f"{100 * value:.2g}%"  # not "0.00%": it is not zero
    return f"{100 * value:.{digits}f}%"


def _num(value: float | None, fmt: str = "exact") -> str:
    """A number; ``exact``: every digit of a makespan (3000000002331, not 3e+12).

    See :func:`exactsched._output.number_text`; ``fmt`` other than ``exact``
    is a format specification.

    Examples
    --------
    >>> _num(3000000002331.0), _num(0.1 + 0.2 + 0.3), _num(0.5, ".4f"), _num(None)
    ('3000000002331', '0.6', '0.5000', '-')
    >>> _num(10000000000001.0), _num(133456789012345.5)
    ('10000000000001', '133456789012345.5')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if fmt != "exact":
        return format(value, fmt)
    return number_text(value)


_SUMMARY_HEAD = (
    "method", "optimum found", "mean gap", "median gap", "worst gap", "vs best known", "APD",
    "WPD", "wins", "> serial time", "refused", "errors", "mean s",
)  # fmt: skip

#: Footnote marker of methods that choose processors as if they were identical.
IDENTICAL_MARK = "*"


def _shown(label: str, row: dict[str, Any]) -> str:
    """``label``, marked when the row (a run or a summary) assumes identical processors."""
    return f"{label} {IDENTICAL_MARK}" if row_assumes_identical(row) else label


def _summary_cells(s: dict[str, Any]) -> list[str]:
    share = "-" if s["share_optimal"] is None else f"{s['optimal']}/{s['with_optimum']}"
    return [
        _shown(s["method"], s),
        share,
        _pct(s["mean_gap"]),
        _pct(s["median_gap"]),
        _pct(s["worst_gap"]),
        str(s.get("to_best_known", 0)),
        _pct(None if s["apd"] is None else s["apd"] / 100),
        _pct(None if s["wpd"] is None else s["wpd"] / 100),
        _num(s["wins"], "d"),
        str(s["failures"]),
        str(s["not_applicable"]),
        str(s["errors"]),
        _num(s["mean_seconds"], ".4f"),
    ]


def summary_legend(summary: Sequence[dict[str, Any]] = ()) -> list[str]:
    """The lines under the summary table saying what each column means."""
    lines = [
        "gap: (makespan - reference) / reference, the reference being the instance's "
        "certified optimum, or its best known makespan where no optimum is certified",
        "vs best known: runs whose gap is to the best known makespan (no certified optimum)",
        "optimum found: runs that reached the certified optimum / runs on instances with one",
        "APD, WPD: average and worst percentage above the best heuristic on each instance; "
        "wins: instances where it is the best heuristic, ties included (McSweeney 2019, 4.2.2)",
        "> serial time: valid schedules longer than the minimal serial time (all tasks on "
        "the one processor that runs them fastest), McSweeney's 'failures'; not errors",
        "refused: the method does not apply to the instance (not-applicable); refused runs "
        "count in no denominator",
        "errors: runs that raised, crashed, ran past their deadline or gave an invalid schedule",
    ]
    if any(map(row_assumes_identical, summary)):
        lines.append(
            f"{IDENTICAL_MARK} picks processors by earliest start as if they were identical: "
            "on heterogeneous processors it ignores what a task costs where"
        )
    return lines


def _table(
    head: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool, left: Sequence[int] = (0,)
) -> str:
    """Rows under ``head``: aligned columns, or a Markdown table; every cell through
    :func:`~exactsched._output.printable` (a name holding ``|`` or a newline)."""
    head = [printable(x, markdown) for x in head]
    rows = [[printable(x, markdown) for x in r] for r in rows]
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

    A legend under the table says what each column means
    (:func:`summary_legend`); then, per exact method, how many of its proven
    optima were certified.
    """
    if not rows:
        return "no results"
    summary = summarise(rows)
    table = _table(_SUMMARY_HEAD, [_summary_cells(s) for s in summary], markdown)
    legend = summary_legend(summary)
    if markdown:
        # Escaped: a legend line starting "> " or "* " is not a quote or a nested list.
        table += "\n\n" + "\n".join(f"- {printable(line, True)}" for line in legend)
    else:
        import textwrap

        table += "\n\n" + "\n".join(
            textwrap.fill(line, 100, subsequent_indent="    ") for line in legend
        )
    notes = []
    for s in summary:
        if s["kind"] == "exact" and (s["proofs"] or s["refuted"]):
            # A claim no witness confirmed is reported feasible: it is no proven optimum.
            untried = s["proofs"] - s["certified"]
            parts = [f"{s['certified']} certified"]
            parts += [f"{untried} not attempted"] if untried else []
            line = f"{printable(s['method'])}: {s['proofs']} proven optima, {', '.join(parts)}"
            if s["refuted"]:
                line += f"; {s['refuted']} claimed, NOT certified (reported feasible)"
            notes.append(line)
    return table + ("\n\n" + "\n".join(notes) if notes else "")


def _instance_table(rows: Sequence[dict[str, Any]]) -> str:
    ref = rows[0]
    platform = printable(ref["platform"])
    head = f"{_named(ref)} ({ref['tasks']} tasks, {platform}, CCR {ref['ccr']:.3g})"
    if ref["disputed"]:
        head += f"\n  DISPUTED (no optimum): {printable(ref['disputed'])}"
    if ref["optimum"] is not None:
        head += (
            f"\n  reference: optimum {_num(ref['optimum'])} "
            f"(certified: {ref['optimum_certified_by']})"
        )
    elif ref["best_known"] is not None:
        head += (
            f"\n  reference: best known {_num(ref['best_known'])} (no certified optimum; "
            f"best lower bound {_num(ref['best_bound'])})"
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
        gap = "" if r["makespan"] is None else _pct(r["gap"])
        note = r["error"] or ""
        if r["kind"] == "exact" and r["status"] != "optimal" and r["lower_bound"] is not None:
            note = f"bound {_num(r['lower_bound'])}" + (f"; {note}" if note else "")
        if r["optimum"] is None and r["gap_to_bound"] is not None and r["gap_to_bound"] > 0:
            note = f"<={_pct(r['gap_to_bound'])} above the optimum" + (f"; {note}" if note else "")
        if r["certified"] is not None:
            note = ("certified" if r["certified"] else "NOT certified") + (
                f"; {note}" if note else ""
            )
        body.append(
            [_shown(r["label"], r), r["status"], _num(r["makespan"]), gap,
             _num(r["seconds"], ".4f"), note]
        )  # fmt: skip
    what = "optimum" if ref["optimum"] is not None else "best known"
    head_row = ["method", "status", "makespan", f"gap to {what}", "seconds", "note"]
    table = _table(head_row, body, False, left=(0, 1, 5))
    legend = (
        "  <=x%: no certified optimum; the makespan is at most x% above it "
        "(its gap to the best proven lower bound)"
    )
    text = head + "\n\n" + "\n".join("  " + line for line in table.splitlines())
    return text + ("\n" + legend if any("<=" in row[5] for row in body) else "")


def compare_text(
    rows: Sequence[dict[str, Any]], outcome: Any = None, per_instance: int = 3
) -> str:
    """What ``compare`` prints: each instance's table (up to ``per_instance``), then a summary."""
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    parts = []
    n_models = len({r.get("communication") or "delay" for r in rows}) or 1
    if len(by_instance) <= per_instance * n_models:
        # One instance's models side by side, in the order delay, single-port, contention.
        order = {m: k for k, m in enumerate(_MODELS)}
        groups = sorted(by_instance.values(), key=lambda g: (
            str(g[0]["instance"]), g[0].get("base_key") or "",
            order.get(g[0].get("communication") or "delay", len(order))))  # fmt: skip
        parts += [_instance_table(group) for group in groups]
    known = sum(1 for g in by_instance.values() if g[0]["optimum"] is not None)
    disputed = [g[0] for g in by_instance.values() if g[0]["disputed"]]
    lines = [f"{len(by_instance)} instance(s), certified optimum known for {known}"]
    firsts = [g[0] for g in by_instance.values()]
    best_known = sum(1 for f in firsts if f["optimum"] is None and f["best_known"] is not None)
    if best_known:
        lines[0] += f" (gaps of {best_known} other(s) to the best known)"
    if known + best_known < len(by_instance):
        lines[0] += f" ({len(by_instance) - known - best_known} with no valid schedule)"
    if outcome is not None:
        lines[0] += (
            f"; {outcome.ran} run(s) now, {outcome.skipped} from the database"
            f"{f', {outcome.errors} error(s)' if outcome.errors else ''}"
            f" ({outcome.seconds:.1f} s)"
        )
    for d in disputed:
        lines.append(f"DISPUTED {_named(d)}: {printable(d['disputed'])}")
    parts.append("\n".join(lines))
    models = communication_text(rows)
    if models:
        parts.append(models)
    parts.append(summary_text(rows))
    return "\n\n".join(parts)


def _models(rows: Sequence[dict[str, Any]]) -> list[str]:
    found = {r.get("communication") or "delay" for r in rows}
    return [m for m in _MODELS if m in found] + sorted(found - set(_MODELS))


def communication_text(rows: Sequence[dict[str, Any]], markdown: bool = False) -> str:
    """How the communication model moves the optimum, and each method's gap per model.

    Empty unless the rows hold a model other than ``delay``. Per instance (rows
    of one ``base_key``) the reference under each model (its certified optimum,
    or its best known makespan marked ``~``) and its ratio to the reference
    under ``delay``; overall, the geometric mean, least and largest ratio. Then
    each method's mean gap under each model, ``n/a`` where it refused every
    instance of that model, with the reasons listed.

    Examples
    --------
    >>> base = dict(kind="exact", label="cpsat", method="cpsat", base_key="b",
    ...             instance="i", status="optimal", error=None, gap=0.0, makespan=8,
    ...             gap_to_optimum=0.0, failed=False, seconds=0.1)
    >>> rows = [{**base, "communication": "delay", "instance_key": "d", "optimum": 8,
    ...          "reference": 8},
    ...         {**base, "communication": "contention", "instance_key": "c", "optimum": 9,
    ...          "reference": 9, "makespan": 9}]
    >>> for line in communication_text(rows).splitlines()[2:5]:
    ...     print(line)
    instance  delay  contention  contention/delay
    i             8           9             1.125
    contention/delay over 1 instance(s): geometric mean 1.125, least 1.125, largest 1.125
    """
    models = _models(rows)
    if models == ["delay"] or not rows:
        return ""
    by_base: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        by_base[r.get("base_key") or r["instance_key"]].setdefault(
            r.get("communication") or "delay", r
        )
    others = [m for m in models if m != "delay"] if "delay" in models else []
    body = []
    ratios: dict[str, list[float]] = defaultdict(list)
    for refs in by_base.values():
        first = next(iter(refs.values()))
        cells = [first["instance"]]
        for m in models:
            cells.append(_reference(refs.get(m)))
        base = refs.get("delay", {}).get("reference")
        for m in others:
            value = refs.get(m, {}).get("reference")
            if base and value is not None:
                ratios[m].append(value / base)
                cells.append(f"{value / base:.4g}")
            else:
                cells.append("-")
        body.append(cells)
    head = ["instance", *models, *(f"{m}/delay" for m in others)]
    title = (
        "Communication models: reference makespan per model (certified optimum; =x proven "
        "optimal by an exact method but not certified; ~x best known, above the best "
        "proven bound) and its ratio to delay"
    )
    out = [title, "", _table(head, body, markdown)]
    for m in others:
        values = ratios[m]
        if values:
            mean = math.exp(sum(math.log(v) for v in values) / len(values))
            out.append(
                f"{'- ' if markdown else ''}{printable(m, markdown)}/delay over {len(values)} "
                f"instance(s): geometric mean {mean:.4g}, least {min(values):.4g}, "
                f"largest {max(values):.4g}"
            )
    out += ["", "Mean gap of each method under each model (n/a: refused every instance)", ""]
    per_model = {m: {s["method"]: s for s in summarise([r for r in rows if (
        r.get("communication") or "delay") == m])} for m in models}  # fmt: skip
    labels = [s["method"] for s in summarise(rows)]
    gaps = []
    refused: list[str] = []
    for name in labels:
        cells = [name]
        for m in models:
            s = per_model[m].get(name)
            if s is None:
                cells.append("-")
            elif s["applicable"] == 0:
                cells.append("n/a")
                reason = next((r["error"] for r in rows if r["label"] == name and (
                    r.get("communication") or "delay") == m and r["error"]), None)  # fmt: skip
                refused.append(f"{name} under {m}: {reason or 'refused'}")
            else:
                cells.append(_pct(s["mean_gap"]))
        gaps.append(cells)
    out.append(_table(["method", *models], gaps, markdown))
    if refused:
        out += ["", "refused (n/a):"]
        out += [f"{'- ' if markdown else '  '}{printable(line, markdown)}" for line in refused]
    return "\n".join(out)


def _reference(row: dict[str, Any] | None) -> str:
    """The reference of an instance: ``280`` certified, ``=286`` proven (the best
    bound meets it) but not certified, ``~324`` best known above the best bound."""
    if row is None or row.get("reference") is None:
        return "-"
    if row.get("optimum") is not None:
        return _num(row["reference"])
    bound = row.get("best_bound")
    proven = bound is not None and not row.get("disputed") and bound >= row["reference"]
    return ("=" if proven else "~") + _num(row["reference"])


def _named(row: dict[str, Any], markdown: bool = False) -> str:
    """The instance's name, with its communication model unless ``delay``, as it may be
    shown on a terminal or, with ``markdown``, in Markdown (:func:`printable`)."""
    model = row.get("communication") or "delay"
    name = row["instance"] if model == "delay" else f"{row['instance']} [{model}]"
    return printable(name, markdown)


def markdown_report(
    rows: Sequence[dict[str, Any]], plots: Sequence[str] = (), note: str | None = None
) -> str:
    """A Markdown report: overview, per-method table, tables by size, topology, CCR and
    platform, disputed instances, errors, and links to ``plots``.

    ``note`` (:func:`~exactsched.experiments.analysis.unfinished_note`) says the
    study is incomplete, first thing under the title.
    """
    from exactsched import __version__

    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    firsts = [g[0] for g in by_instance.values()]
    known = sum(1 for f in firsts if f["optimum"] is not None)
    configs = sorted({r["config"] for r in rows if r.get("config") and r["kind"] == "exact"})
    exact = sorted({r["label"] for r in rows if r["kind"] == "exact"})
    limits = sorted({_limit(r) for r in rows if r["kind"] == "exact"} - {None})
    sizes = [f["tasks"] for f in firsts if f["tasks"] is not None]
    out = ["# Optimality-gap study", ""]
    if note:
        out += [f"**Incomplete study:** {printable(note, markdown=True)}.", ""]

    def md(text: Any) -> str:
        return printable(text, markdown=True)

    out.append(
        f"{len(firsts)} instances ({min(sizes, default=0)}-{max(sizes, default=0)} tasks; "
        f"topologies: {md(', '.join(sorted({str(f['topology']) for f in firsts})))}), "
        f"{len({r['label'] for r in rows})} methods, exact: {md(', '.join(exact)) or 'none'}"
        + (f" (time limit {', '.join(f'{x:g}' for x in limits)} s)" if limits else "")
        + f". {_known_text(firsts, known)} exactsched {__version__}."
    )
    if configs:
        out += ["", "Exact runs: " + "; ".join(md(c) for c in configs) + "."]
    out += [
        "",
        "Gap = (makespan - reference) / reference, the reference being the instance's "
        "certified optimum, or its best known makespan where no optimum is certified "
        "(an uncertified proof is not used). The legend under the table gives each column.",
        "",
        "## Per method",
        "",
        summary_text(rows, markdown=True),
    ]
    models = communication_text(rows, markdown=True)
    if models:
        out += ["", "## Communication models", "", models]
    disputed = [f for f in firsts if f["disputed"]]
    if disputed:
        out += ["", "## Disputed instances", ""]
        out += [
            f"- {_named(f, True)} (`{f['instance_key']}`): {md(f['disputed'])}" for f in disputed
        ]
    open_ = [f for f in firsts if f["optimum"] is None and f["best_known"] is not None]
    if open_:
        out += ["", "## Instances without a certified optimum (gaps to the best known)", ""]
        out += [
            f"- {_named(f, True)}: best known {_num(f['best_known'])}, best lower bound "
            f"{_num(f['best_bound'])}" for f in open_[:50]
        ]  # fmt: skip
        if len(open_) > 50:
            out.append(f"- ... and {len(open_) - 50} more")
    for title, group in GROUPINGS.items():
        table = _grouped(rows, group, _ORDERS.get(title))
        if table:
            out += ["", f"## By {title}", "",
                    "Mean gap to the reference (share of runs that found the certified optimum).",
                    "", table]  # fmt: skip
    errors = [r for r in rows if r["status"] in ("error", "invalid", "not-applicable")]
    if errors:
        out += ["", "## Errors and refusals", ""]
        for r in errors[:50]:
            out.append(f"- {_named(r, True)} {md(r['label'])} ({r['status']}): {md(r['error'])}")
        if len(errors) > 50:
            out.append(f"- ... and {len(errors) - 50} more (`exactsched results DB --csv`)")
    if plots:
        out += ["", "## Plots", ""]
        # <...>: a destination with blanks or parentheses ("my plots (v2)/x.png") stays one
        out += [f"![{os.path.basename(p)}](<{p}>)" for p in plots]
    return "\n".join(out) + "\n"


def _known_text(firsts: Sequence[dict[str, Any]], known: int) -> str:
    """What the gaps are to: certified optima, best known makespans, or nothing."""
    n = len(firsts)
    best = sum(1 for f in firsts if f["optimum"] is None and f["best_known"] is not None)
    text = f"Certified optimum known for {known} of {n} instance{'s' if n != 1 else ''}"
    if best:
        others = f"{best} other{'s' if best != 1 else ''}"
        text += f"; the gaps of {others} are to the best known makespan"
    if known + best < n:
        none = n - known - best
        text += f"; {none} {'have' if none != 1 else 'has'} no valid schedule (no gap)"
    return text + "."


def _limit(row: dict[str, Any]) -> float | None:
    import json

    value = json.loads(row["options"]).get("time_limit")
    return None if value is None else float(value)


#: Groups in their natural order, not as text ("<0.2" sorts after "2-5").
_ORDERS = {
    "CCR": ["<0.2", "0.2-0.5", "0.5-2", "2-5", ">=5", "?"],
    "communication model": list(_MODELS),
}


def _grouped(rows: Sequence[dict[str, Any]], group: Any, order: list[str] | None = None) -> str:
    groups = summarise_by(rows, group)
    if len(groups) < 1:
        return ""
    labels = [s["method"] for s in summarise(rows)]
    keys = list(groups)
    if order is not None:
        keys.sort(key=lambda k: (order.index(k) if k in order else len(order), str(k)))
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
    rows: Sequence[dict[str, Any]],
    *,
    report: str | None = None,
    plots: str | None = None,
    note: str | None = None,
) -> list[str]:
    """Write the plots into ``plots`` and the Markdown report to ``report``; the paths written.

    Each file is written whole or not at all (:func:`~exactsched._output.atomic_write`):
    a failure such as a full disk leaves no truncated report or plot behind.
    ``note`` says in the report that the study is incomplete (see :func:`markdown_report`).
    """
    written: list[str] = []
    images: list[str] = []
    if plots:
        from exactsched.experiments.plots import study_plots

        images = study_plots(rows, plots)
        written += images
    if report:
        base = os.path.dirname(os.path.abspath(report))
        links = [os.path.relpath(os.path.abspath(p), base) for p in images]
        with atomic_write(report, "w", encoding="utf-8") as fh:
            fh.write(markdown_report(rows, links, note))
        written.append(report)
    return written
