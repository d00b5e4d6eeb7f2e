"""Plots of schedules and studies (matplotlib, the ``plot`` extra).

* :func:`gantt_chart`: one row per processor, tasks as labelled boxes at their
  scheduled times, idle time as the hatched background of a row, and each data
  transfer between two processors as an arrow from the sender's finish to the
  data's arrival on the receiver's row;
* :func:`performance_profile`: for each method, the share of instances on which
  its makespan (or runtime) is within a factor ``tau`` of the best (Dolan and More
  2002, as in the seed slides of Ozkaya et al., IPDPS 2019);
* :func:`gap_distributions`: the gap to the optimum of each heuristic, one box each;
* :func:`gap_against`: mean gap to the reference (as the report's tables) against CCR
  or instance size;
* :func:`study_plots`: all of the study plots into a folder.

Every function returns the matplotlib Figure (the Agg backend: no display needed).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from exactsched._output import atomic_write, number_text, printable
from exactsched.errors import MethodError, ScheduleError
from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = [
    "gantt_chart",
    "performance_profile",
    "gap_distributions",
    "gap_against",
    "study_plots",
]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MethodError('plots need matplotlib: pip install "exactsched[plot]"') from None
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def gantt_chart(problem: Problem, schedule: Schedule, *, title: str | None = None) -> Any:
    """A Gantt chart of ``schedule``: processors as rows, tasks labelled.

    Each task is a ``Rectangle`` whose ``gid`` is ``"task:"`` and the task id, spanning
    ``[start, finish]`` on its processor's row (row ``k`` is centred on
    ``y = k``, processors in instance order from the top). The y tick labels
    are the processor ids. Idle time shows as the hatched grey band behind a
    row; a data transfer between processors is an arrow from the sender's
    finish to the arrival time on the receiver's row (``gid`` ``"comm:src->dst"``).

    When the schedule carries message times (``single-port`` and
    ``contention`` instances, :mod:`exactsched.messages`), the resources the
    messages hold get their own rows below the processors: under
    ``single-port`` a send and a receive row per processor that communicates
    (one ``port`` row each when the instance is not duplex), under
    ``contention`` one row per link a message uses, named as the route names
    it (``"p0->p1"``). Each message is a ``Rectangle`` on each of its rows,
    ``gid`` ``"msg:src->dst@row"`` (``row`` the row's label), and its arrow
    ends at its arrival. Delay schedules are drawn as before.

    The title, task and processor labels are plain text (a ``$`` is not math;
    a control character in a name shows as its escape, ``\\n``); the ``gid``
    of each patch keeps the exact id after its prefix (``task:``, ``zero:``,
    ``comm:``, ``msg:``), so no id is empty and none is one of matplotlib's own
    (``patch_1``: an SVG held two elements of that id).

    Raises
    ------
    ScheduleError
        If the schedule puts a task on a processor the instance does not have.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> p = Problem.from_lists([[2, 2], [2, 2]], [(0, 1, 1)])
    >>> s = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p1", 3, 5)})
    >>> fig = gantt_chart(p, s)
    >>> ax = fig.axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['p0', 'p1']
    >>> [(r.get_gid(), float(r.get_x()), float(r.get_width())) for r in ax.patches
    ...  if r.get_gid() in ("task:t0", "task:t1")]
    [('task:t0', 0.0, 2.0), ('task:t1', 3.0, 2.0)]
    """
    plt = _pyplot()
    from matplotlib.patches import FancyArrowPatch, Rectangle

    n_procs = problem.n_processors
    span = float(schedule.makespan or 1.0)
    row = {p: k for k, p in enumerate(problem.proc_ids)}
    for task, place in schedule.items():
        if place.processor not in row:
            raise ScheduleError(
                f"task {task}: processor {place.processor!r} is not a processor of the instance"
            )
    lanes = _message_lanes(problem, schedule)
    n_rows = n_procs + len({lane for lane, _, _, _ in lanes})
    fig, ax = plt.subplots(
        figsize=(min(16, 6 + 0.1 * problem.n_tasks), 1.6 + 0.45 * n_rows), layout="constrained"
    )
    for k in range(n_procs):
        ax.add_patch(
            Rectangle(
                (0, k - 0.4),
                span,
                0.8,
                facecolor="#f2f2f2",
                edgecolor="none",
                hatch="//",
                zorder=0,
                label="idle" if k == 0 else None,
            )  # fmt: skip
        )
    cmap = plt.get_cmap("tab20")
    for i, task in enumerate(problem.task_ids):
        place = schedule.get(task)
        if place is None:
            continue
        y = row[place.processor]
        width = float(place.finish) - float(place.start)
        ax.add_patch(
            Rectangle(
                (float(place.start), y - 0.35),
                width,
                0.7,
                facecolor=cmap(i % 20),
                edgecolor="black",
                linewidth=0.6,
                zorder=2,
                gid=f"task:{task}",
            )  # fmt: skip
        )
        if width > 0:
            ax.text(
                float(place.start) + width / 2, y, printable(task), ha="center", va="center",
                fontsize=7, clip_on=True, zorder=3, parse_math=False,
            )  # fmt: skip
        else:  # a zero-length task occupies nothing: a diamond where it happens
            ax.plot(
                [float(place.start)], [y], marker="D", markersize=5, color=cmap(i % 20),
                markeredgecolor="black", markeredgewidth=0.6, zorder=3, gid=f"zero:{task}",
            )  # fmt: skip
            ax.text(
                float(place.start), y + 0.3, printable(task), ha="center", va="bottom",
                fontsize=6, clip_on=True, zorder=3, parse_math=False,
            )  # fmt: skip
    labels = list(problem.proc_ids)
    lane_row: dict[str, int] = {}
    for lane, _, _, _ in lanes:
        if lane not in lane_row:
            lane_row[lane] = n_procs + len(lane_row)
            labels.append(lane)
    if lane_row:
        ax.axhline(n_procs - 0.5, color="grey", linewidth=0.8, zorder=1)
    for lane, message, start, finish in lanes:
        y = lane_row[lane]
        ax.add_patch(
            Rectangle(
                (start, y - 0.3), finish - start, 0.6, facecolor="tab:red", alpha=0.35,
                edgecolor="tab:red", linewidth=0.6, zorder=2,
                gid=f"msg:{message.src}->{message.dst}@{lane}",
            )
        )  # fmt: skip
        if finish > start:
            ax.text(
                (start + finish) / 2, y, printable(f"{message.src}>{message.dst}"), ha="center",
                va="center", fontsize=6, clip_on=True, zorder=3, parse_math=False,
            )  # fmt: skip
    arrival = {(m.src, m.dst): float(m.finish) for m in schedule.messages}
    n_edges = len(problem.edge_src)
    for e in range(n_edges):
        src, dst = problem.task_ids[problem.edge_src[e]], problem.task_ids[problem.edge_dst[e]]
        a, b = schedule.get(src), schedule.get(dst)
        if a is None or b is None or a.processor == b.processor:
            continue
        p, q = problem.proc_index[a.processor], problem.proc_index[b.processor]
        end = arrival.get((src, dst))
        if end is None:
            end = float(a.finish) + float(problem.comm(e, p, q))
        arrow = FancyArrowPatch(
            (float(a.finish), row[a.processor]),
            (end, row[b.processor]),
            arrowstyle="-|>", mutation_scale=8, color="tab:red", linewidth=0.8,
            alpha=0.7, zorder=4, gid=f"comm:{src}->{dst}",
        )  # fmt: skip
        ax.add_patch(arrow)
    ax.set_yticks(range(len(labels)), labels=[printable(x) for x in labels])
    for tick in ax.get_yticklabels():
        tick.set_parse_math(False)  # ids are plain text, "$" included
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(0, span * 1.01)
    ax.set_xlabel("time")
    ax.set_ylabel("processor" if not lane_row else "processor / port or link")
    ax.set_title(
        title
        or f"{printable(problem.name or 'schedule')}: makespan {number_text(schedule.makespan)}",
        parse_math=False,
    )
    ax.plot([], [], color="tab:red", label="data transfer (arrival)")
    if lane_row:
        ax.add_patch(Rectangle((0, 0), 0, 0, facecolor="tab:red", alpha=0.35, label="message"))
    # Below the axes, under the x label: the constrained layout stacks the two.
    fig.legend(loc="outside lower center", ncols=2, fontsize=7, frameon=False)
    return fig


def _message_lanes(problem: Problem, schedule: Schedule) -> list[tuple[str, Any, float, float]]:
    """``(row label, message, start, finish)`` of every message on every row it holds.

    Under ``contention`` a message holds each link of its route (rows named by
    link, in order of their first use, ties by name); otherwise (``single-port``)
    the sender's send port and the receiver's receive port (``"p0 send"``,
    ``"p1 recv"``; ``"p0 port"`` for both when the instance is not duplex), rows
    in processor order. Messages of tasks the schedule does not place are skipped.
    """
    messages = schedule.messages
    if not messages:
        return []
    out: list[tuple[str, Any, float, float]] = []
    if any(m.links for m in messages):
        for m in messages:
            out += [(h.link, m, float(h.start), float(h.finish)) for h in m.links]
        first: dict[str, tuple[float, str]] = {}
        for lane, _, start, _ in out:
            first[lane] = min(first.get(lane, (start, lane)), (start, lane))
        out.sort(key=lambda item: (first[item[0]], item[2]))
        return out
    order = {p: k for k, p in enumerate(problem.proc_ids)}
    duplex = problem.duplex
    ports = []
    for m in messages:
        a, b = schedule.get(m.src), schedule.get(m.dst)
        if a is None or b is None:
            continue
        send, recv = ("send", "recv") if duplex else ("port", "port")
        ports.append(((order.get(a.processor, -1), send != "send"), f"{a.processor} {send}", m))
        ports.append(((order.get(b.processor, -1), recv == "recv"), f"{b.processor} {recv}", m))
    ports.sort(key=lambda item: (item[0], float(item[2].start)))
    return [(lane, m, float(m.start), float(m.finish)) for _, lane, m in ports]


def _by_instance(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict]]:
    table: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        table[r["instance_key"]][r["label"]] = r
    return table


def _comparable(
    table: dict[str, dict[str, dict]], labels: Sequence[str]
) -> tuple[dict[str, dict[str, dict]], int]:
    """The instances every method of ``labels`` has a counted row on, and how many are not.

    A refusal (``not-applicable``) counts in no table's denominator, and a
    missing row is no run: neither is a failure to draw.
    """
    kept = {
        key: runs
        for key, runs in table.items()
        if all(m in runs and runs[m].get("status") != "not-applicable" for m in labels)
    }
    return kept, len(table) - len(kept)


def performance_profile(
    rows: Sequence[dict[str, Any]],
    *,
    metric: str = "makespan",
    tau_max: float | None = None,
    title: str | None = None,
) -> Any:
    """Performance profiles of the makespan or the runtime (Dolan and More 2002).

    For method ``m`` the curve is ``rho_m(tau)``: the share of instances on which
    ``value_m <= tau * best``, ``best`` the least value of any method on the
    instance; a method without a schedule on an instance (an error, an invalid
    schedule) never reaches it. Higher is better; ``rho_m(1)`` is the share of
    instances where ``m`` is best. Only instances where every drawn method has
    a row the tables count are drawn: a method never run on an instance, or
    one that refused it, has no result there to fail, so the profile would
    contradict the tables (the title says how many instances were left out).
    Each method is one ``Line2D`` labelled with its name. ``metric="seconds"``
    profiles the runtime (times below a microsecond count as one; log axis).

    Examples
    --------
    >>> rows = [dict(instance_key="a", label="x", makespan=10.0),
    ...         dict(instance_key="a", label="y", makespan=12.0)]
    >>> fig = performance_profile(rows, tau_max=1.5)
    >>> {l.get_label(): (float(l.get_ydata()[0]), float(l.get_ydata()[-1]))
    ...  for l in fig.axes[0].lines}
    {'x': (1.0, 1.0), 'y': (0.0, 1.0)}
    """
    import numpy as np

    plt = _pyplot()
    labels = sorted({r["label"] for r in rows})
    table, left_out = _comparable(_by_instance(rows), labels)
    runtime = metric == "seconds"

    def value(r: dict[str, Any]) -> float | None:
        if r["makespan"] is None:  # no schedule: never within any factor
            return None
        return max(r["seconds"], 1e-6) if runtime else r["makespan"]

    ratios: dict[str, list[float]] = {m: [] for m in labels}
    for runs in table.values():
        values = {m: value(r) for m, r in runs.items()}
        found = [v for v in values.values() if v is not None]
        if not found:
            # Every method failed here: a failure of each, counted as the docs say
            # (the shares were of the other instances only; an outside audit).
            for m in labels:
                ratios[m].append(math.inf)
            continue
        best = min(found)
        for m in labels:
            v = values.get(m)
            if v is None:
                ratios[m].append(math.inf)
            elif best > 0:
                ratios[m].append(v / best)
            else:
                ratios[m].append(1.0 if v <= 0 else math.inf)
    finite = [x for v in ratios.values() for x in v if math.isfinite(x)]
    if runtime:
        top = tau_max or max(2.0, max(finite, default=1.0) * 1.1)
        taus = np.geomspace(1.0, top, 400)
    else:
        top = tau_max or max(1.05, min(4.0, max(finite, default=1.0) * 1.02))
        taus = np.linspace(1.0, top, 400)
    fig, ax = _figure_with_legend(plt, len(labels))
    styles = ["-", "--", "-.", ":"]
    colour = _colours(rows)
    for k, m in enumerate(sorted(labels, key=lambda m: -_area(ratios[m], taus))):
        v = np.sort(np.asarray(ratios[m], dtype=float))
        rho = np.searchsorted(v, taus * (1 + 1e-12), side="right") / max(1, len(v))
        ax.step(taus, rho, where="post", label=printable(m), linestyle=styles[(k // 10) % 4],
                color=colour[m])  # fmt: skip
    if runtime:
        ax.set_xscale("log")
    ax.set_xlim(1.0, top)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel(rf"$\tau$ ({metric} / least {metric} on the instance)")
    ax.set_ylabel(r"share of instances within $\tau$ of the best")
    what = "runtime" if runtime else "makespan"
    left = f", {left_out} left out: not run or refused by some method" if left_out else ""
    ax.set_title(
        title
        or f"Performance profiles of the {what} ({len(table)} instances{left}; higher is better)",
        parse_math=False,
    )
    ax.grid(alpha=0.3)
    _legend(fig, len(labels))
    return fig


#: Legend entries per column beside a plot.
LEGEND_ROWS = 22


def _colours(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One colour per method label of the study, the same in every figure (an outside
    audit: a method changed colour between the profile and the gap plots).

    Labels in sorted order take the colours of matplotlib's ``tab20`` in turn (then
    again, past 20); every figure of one study reads the same rows, so the same map.
    """
    import matplotlib as mpl

    palette = mpl.colormaps["tab20"]
    labels = sorted({str(r["label"]) for r in rows})
    return {m: palette(k % 20) for k, m in enumerate(labels)}


def _figure_with_legend(plt: Any, entries: int, width: float = 8.5) -> tuple[Any, Any]:
    """A figure tall and wide enough for a legend of ``entries`` beside the axes."""
    columns = max(1, math.ceil(entries / LEGEND_ROWS))
    height = max(4.5, 0.2 * min(entries, LEGEND_ROWS) + 1.2)
    return plt.subplots(figsize=(width + 1.6 * (columns - 1), height), layout="constrained")


def _legend(fig: Any, entries: int) -> Any:
    """Every entry, outside the axes on the right, in columns (the layout makes room)."""
    if not entries:
        return None
    legend = fig.legend(
        loc="outside right upper", fontsize=7, ncols=max(1, math.ceil(entries / LEGEND_ROWS))
    )
    for text in legend.get_texts():
        text.set_parse_math(False)
    return legend


def _area(values: list[float], taus: Any) -> float:
    import numpy as np

    v = np.sort(np.asarray(values, dtype=float))
    return float((np.searchsorted(v, taus, side="right") / max(1, len(v))).sum())


def _reference_gap(row: dict[str, Any]) -> float | None:
    """A row's gap to its reference, as the tables give it.

    Rows made by hand without a ``gap`` column give their gap to the optimum.
    """
    return row["gap"] if "gap" in row else row.get("gap_to_optimum")


def _unbounded(rows: Sequence[dict[str, Any]], gap: str) -> set[str]:
    """The heuristics with an infinite ``gap`` on some instance (a reference of 0)."""

    def value(r: dict[str, Any]) -> float | None:
        return _reference_gap(r) if gap == "gap" else r.get(gap)

    return {r["label"] for r in rows if r["kind"] != "exact" and value(r) == math.inf}


def _note_unbounded(ax: Any, unbounded: set[str]) -> None:
    """Name on the chart the heuristics left out for an infinite gap (a reference of 0).

    A log axis cannot show them, and leaving them out silently would hide the
    worst. They are left out whole: their finite gaps alone would draw a mean
    the tables (where the mean is infinite) contradict.
    """
    left = sorted(printable(m) for m in unbounded)
    if left:
        shown = ", ".join(left[:6]) + (f" and {len(left) - 6} more" if len(left) > 6 else "")
        ax.text(0.01, 0.98, f"not drawn, infinite gap (optimum 0): {shown}",
                transform=ax.transAxes, va="top", fontsize=8, parse_math=False)  # fmt: skip


def gap_distributions(rows: Sequence[dict[str, Any]], *, title: str | None = None) -> Any:
    """Box plots of each heuristic's gap to the optimum (percent), best median first.

    Only instances with a certified optimum count; the x tick labels are the
    methods. The y axis is symmetric-logarithmic (linear below 1 %), so gaps of
    0.5 % and 20,000 % are both readable.

    Examples
    --------
    >>> rows = [dict(instance_key="a", label="x", kind="heuristic", optimum=1.0,
    ...              gap_to_optimum=g) for g in (0.0, 0.01, 200.0)]
    >>> gap_distributions(rows).axes[0].get_yscale()
    'symlog'
    """
    import statistics

    plt = _pyplot()
    gaps: dict[str, list[float]] = defaultdict(list)
    unbounded = _unbounded(rows, "gap_to_optimum")
    for r in rows:
        g = r.get("gap_to_optimum")
        if r["kind"] != "exact" and g is not None and r["label"] not in unbounded:
            gaps[r["label"]].append(100 * g)
    labels = sorted(gaps, key=lambda m: (statistics.median(gaps[m]), statistics.fmean(gaps[m])))
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(labels) + 2), 4.5), layout="constrained")
    if labels:
        ax.boxplot(
            [gaps[m] for m in labels], tick_labels=[printable(m) for m in labels], showmeans=True
        )
        ax.tick_params(axis="x", rotation=60, labelsize=8)
        for tick in ax.get_xticklabels():
            tick.set_parse_math(False)
    # Gaps span 0 % to thousands of percent: linear up to 1 %, logarithmic above.
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("gap to the certified optimum (%, log scale above 1 %)")
    _note_unbounded(ax, unbounded)
    n = len({r["instance_key"] for r in rows if r.get("optimum") is not None})
    ax.set_title(
        title or f"Gap to the optimum per heuristic ({n} instances with a certified optimum)",
        parse_math=False,
    )
    ax.grid(axis="y", alpha=0.3)
    return fig


def gap_against(
    rows: Sequence[dict[str, Any]], key: str = "ccr", *, top: int = 8, title: str | None = None
) -> Any:
    """Mean gap (percent) of each heuristic against ``ccr`` or ``tasks``.

    The gap is to the reference, as in the report's tables: the certified
    optimum, else the best known makespan (the y label says so). CCR is
    grouped into the classes of
    :func:`~exactsched.experiments.analysis.ccr_bucket` (categorical axis);
    sizes are plotted at their task counts. The ``top`` heuristics of least
    mean gap are drawn, one line each, labelled; those with an infinite gap
    are named, not drawn (see :func:`_note_unbounded`).
    """
    import statistics

    from exactsched.experiments.analysis import ccr_bucket

    plt = _pyplot()
    order = ["<0.2", "0.2-0.5", "0.5-2", "2-5", ">=5"]
    cells: dict[str, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    unbounded = _unbounded(rows, "gap")
    for r in rows:
        g = _reference_gap(r)
        if r["kind"] == "exact" or g is None or r["label"] in unbounded:
            continue
        x = ccr_bucket(r["ccr"]) if key == "ccr" else r[key]
        cells[r["label"]][x].append(100 * g)
    overall = {m: statistics.fmean(v for xs in c.values() for v in xs) for m, c in cells.items()}
    chosen = sorted(overall, key=lambda m: overall[m])[:top]
    fig, ax = _figure_with_legend(plt, len(chosen))
    colour = _colours(rows)
    for m in chosen:
        xs = sorted(cells[m], key=lambda x: order.index(x) if key == "ccr" else x)
        pos = [order.index(x) for x in xs] if key == "ccr" else xs
        means = [statistics.fmean(cells[m][x]) for x in xs]
        ax.plot(pos, means, marker="o", label=printable(m), color=colour[m])
    if key == "ccr":
        ax.set_xticks(range(len(order)), labels=order)
        ax.set_xlabel("CCR (communication-to-computation ratio)")
    else:
        ax.set_xlabel("tasks" if key == "tasks" else key)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(bottom=0)
    ax.set_ylabel(
        "mean gap to the reference: certified optimum, else best known\n(%, log above 1 %)"
    )
    _note_unbounded(ax, unbounded)
    ax.set_title(
        title or f"Mean gap to the reference against {'CCR' if key == 'ccr' else key}",
        parse_math=False,
    )
    ax.grid(alpha=0.3)
    _legend(fig, len(chosen))
    return fig


def study_plots(rows: Sequence[dict[str, Any]], folder: str | os.PathLike[str]) -> list[str]:
    """Write ``profile.png``, ``profile_runtime.png``, ``gaps.png``, ``gap_vs_ccr.png``
    and ``gap_vs_size.png``.

    Returns the paths written. The folder is created if missing. Each image is
    written whole or not at all (:func:`~exactsched._output.atomic_write`).
    """
    plt = _pyplot()
    os.makedirs(folder, exist_ok=True)
    figures = {
        "profile.png": performance_profile(rows),
        "profile_runtime.png": performance_profile(rows, metric="seconds"),
        "gaps.png": gap_distributions(rows),
        "gap_vs_ccr.png": gap_against(rows, "ccr"),
        "gap_vs_size.png": gap_against(rows, "tasks"),
    }
    paths = []
    try:
        for name, fig in figures.items():
            path = os.path.join(folder, name)
            with atomic_write(path, "wb") as fh:
                fig.savefig(fh, format="png", dpi=110, bbox_inches="tight")
            paths.append(path)
    finally:
        for fig in figures.values():
            plt.close(fig)
    return paths
