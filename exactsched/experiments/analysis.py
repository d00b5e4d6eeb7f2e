"""What a study database says: optima, disputes, gaps and per-method summaries.

Reference values of an instance come from all of its rows:

* **optimum**: the makespan an exact method proved (status ``optimal``), or the
  best valid makespan when it meets the best proven lower bound;
* **disputed**: two proofs that contradict each other -- two ``optimal`` makespans
  more than 1e-9 relative apart, a proven lower bound above a claimed optimum, or a
  validated schedule shorter than a claimed optimum. A disputed instance has no
  optimum: the study never picks one of the claims;
* **best known**: the least valid makespan; **best bound**: the largest proven
  lower bound.

Gaps are relative degradations: ``gap_to_optimum = (makespan - optimum) / optimum``
(0.05 means 5 % longer than optimal), likewise ``gap_to_best`` and
``gap_to_bound`` (an upper bound on the gap to the optimum when it is unknown).

Per method, following McSweeney's report ([1]_, sec. 4.2.2): the share of
instances solved optimally, mean, median and worst gap to the optimum, APD and
WPD (average and worst percentage degradation relative to the best heuristic on
each instance), wins (instances where it is the best heuristic, ties included)
and failures (makespan above the minimal serial time), plus errors, refusals and
mean runtime.

References
----------
.. [1] T. McSweeney, "Scheduling with precedence constraints in high-performance
   computing", PhD continuation report, University of Manchester, 2019.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from exactsched.experiments.store import Store

__all__ = [
    "TOLERANCE",
    "EXPORT_COLUMNS",
    "load_rows",
    "instance_references",
    "summarise",
    "summarise_by",
    "GROUPINGS",
    "ccr_bucket",
    "to_dataframe",
    "label",
]

#: Relative tolerance of "equal makespans".
TOLERANCE = 1e-9

_COMMON = ("time_limit", "workers", "seed", "certify")

#: Columns of ``exactsched results`` (and of :func:`to_dataframe`).
EXPORT_COLUMNS = (
    "instance", "instance_key", "tasks", "processors", "topology", "platform", "ccr",
    "method", "label", "kind", "options", "version", "status", "makespan", "lower_bound",
    "optimum", "best_known", "best_bound", "gap_to_optimum", "gap_to_best", "gap_to_bound",
    "disputed", "speedup", "slr", "failed", "certified", "certified_by", "seconds", "error",
    "finished",
)  # fmt: skip


def label(method: str, options: str | dict[str, Any]) -> str:
    """The display name of a run: the method, with its own options if any.

    Examples
    --------
    >>> label("heft", '{"ranking":"median"}'), label("cpsat", {"time_limit": 5})
    ('heft[ranking=median]', 'cpsat')
    """
    opts = json.loads(options) if isinstance(options, str) else options
    own = {k: v for k, v in sorted(opts.items()) if k not in _COMMON}
    if not own:
        return method
    return f"{method}[{','.join(f'{k}={v}' for k, v in own.items())}]"


def _kinds() -> dict[str, str]:
    from exactsched.registry import available_methods

    return {m.name: m.kind for m in available_methods()}


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-300)


def instance_references(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Optimum, best known, best bound and dispute of one instance's rows.

    Parameters
    ----------
    rows : sequence of dict
        Rows of one instance with ``kind``, ``status``, ``makespan``, ``lower_bound``.

    Returns
    -------
    dict
        ``optimum``, ``best_known``, ``best_bound`` (floats or None) and
        ``disputed`` (None or a one-line reason).

    Examples
    --------
    >>> ex = dict(kind="exact", status="optimal")
    >>> instance_references([{**ex, "method": "a", "makespan": 7, "lower_bound": 7},
    ...                      {**ex, "method": "b", "makespan": 7, "lower_bound": 7}])["optimum"]
    7
    >>> r = instance_references([{**ex, "method": "a", "makespan": 7, "lower_bound": 7},
    ...                          {**ex, "method": "b", "makespan": 8, "lower_bound": 8}])
    >>> r["optimum"], r["disputed"]
    (None, 'a proves 7 optimal, b proves 8 optimal')
    """
    valid = [r for r in rows if r["makespan"] is not None]
    bounded = [r for r in rows if r["lower_bound"] is not None and r["status"] != "invalid"]
    best_known = min((r["makespan"] for r in valid), default=None)
    best_bound = max((r["lower_bound"] for r in bounded), default=None)
    claims = [r for r in valid if r["kind"] == "exact" and r["status"] == "optimal"]
    disputed = None
    for a in claims:
        for b in claims:
            if a["makespan"] < b["makespan"] and not _close(a["makespan"], b["makespan"]):
                disputed = (
                    f"{a['method']} proves {a['makespan']:g} optimal, "
                    f"{b['method']} proves {b['makespan']:g} optimal"
                )
    if disputed is None and claims:
        claim = claims[0]
        short = [r for r in valid if r["makespan"] < claim["makespan"]]
        short = [r for r in short if not _close(r["makespan"], claim["makespan"])]
        high = [r for r in bounded if r["lower_bound"] > claim["makespan"]]
        high = [r for r in high if not _close(r["lower_bound"], claim["makespan"])]
        if short:
            r = min(short, key=lambda r: r["makespan"])
            disputed = (
                f"{claim['method']} proves {claim['makespan']:g} optimal, "
                f"{r['method']} has a valid schedule of {r['makespan']:g}"
            )
        elif high:
            r = max(high, key=lambda r: r["lower_bound"])
            disputed = (
                f"{claim['method']} proves {claim['makespan']:g} optimal, "
                f"{r['method']} proves the lower bound {r['lower_bound']:g}"
            )
    optimum = None
    if disputed is None:
        if claims:
            optimum = claims[0]["makespan"]
        elif (
            best_known is not None
            and best_bound is not None
            and (best_bound >= best_known or _close(best_bound, best_known))
        ):
            optimum = best_known
    return {
        "optimum": optimum,
        "best_known": best_known,
        "best_bound": best_bound,
        "disputed": disputed,
    }


def _degradation(value: float | None, reference: float | None) -> float | None:
    """``(value - reference) / reference``, 0 within the tolerance, None if either is None."""
    if value is None or reference is None:
        return None
    if reference <= 0:
        return 0.0 if value <= 0 else math.inf
    if _close(value, reference):
        return 0.0
    return (value - reference) / reference


def load_rows(db: str | os.PathLike[str] | Store, *, latest: bool = False) -> list[dict]:
    """Every run of a study with the instance columns and the derived ones.

    Parameters
    ----------
    db : path or Store
    latest : bool
        Keep one row per (instance, label): the latest finished (what summaries use).

    Returns
    -------
    list of dict
        Keys :data:`EXPORT_COLUMNS` (plus ``mst``).
    """
    store = db if isinstance(db, Store) else Store(_existing(db))
    try:
        instances = {i["key"]: i for i in store.instances()}
        kinds = _kinds()
        rows = []
        for run in store.runs():
            inst = instances.get(run["instance"], {})
            rows.append(
                {
                    **run,
                    "instance": inst.get("name") or run["instance"],
                    "instance_key": run["instance"],
                    "tasks": inst.get("tasks"),
                    "processors": inst.get("processors"),
                    "topology": inst.get("topology"),
                    "platform": inst.get("platform"),
                    "ccr": inst.get("ccr"),
                    "mst": inst.get("mst"),
                    "label": label(run["method"], run["options"]),
                    "kind": kinds.get(run["method"], "unknown"),
                }
            )
    finally:
        if not isinstance(db, Store):
            store.close()
    if latest:
        newest: dict[tuple[str, str], dict] = {}
        for r in rows:
            k = (r["instance_key"], r["label"])
            if k not in newest or (r["finished"] or "") >= (newest[k]["finished"] or ""):
                newest[k] = r
        rows = sorted(newest.values(), key=lambda r: (r["instance_key"], r["label"]))
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    for group in by_instance.values():
        ref = instance_references(group)
        for r in group:
            r.update(ref)
            m = r["makespan"]
            r["gap_to_optimum"] = _degradation(m, ref["optimum"])
            r["gap_to_best"] = _degradation(m, ref["best_known"])
            r["gap_to_bound"] = _degradation(m, ref["best_bound"])
    return [{**{c: r.get(c) for c in EXPORT_COLUMNS}, "mst": r.get("mst")} for r in rows]


def _existing(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    from exactsched.errors import InstanceError

    if str(path) != ":memory:" and not os.path.isfile(path):
        raise InstanceError(f"{path}: no such study database")
    return path


def ccr_bucket(ccr: float | None) -> str:
    """The CCR class of the report: ``<0.2``, ``0.2-0.5``, ``0.5-2``, ``2-5``, ``>=5``.

    Examples
    --------
    >>> ccr_bucket(0.1), ccr_bucket(1.0), ccr_bucket(10)
    ('<0.2', '0.5-2', '>=5')
    """
    if ccr is None:
        return "?"
    for edge, name in ((0.2, "<0.2"), (0.5, "0.2-0.5"), (2.0, "0.5-2"), (5.0, "2-5")):
        if ccr < edge:
            return name
    return ">=5"


#: The groupings of the report: title and the function of a row giving its group.
GROUPINGS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "size (tasks)": lambda r: r["tasks"],
    "topology": lambda r: r["topology"],
    "CCR": lambda r: ccr_bucket(r["ccr"]),
    "platform": lambda r: r["platform"],
}


def summarise(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-method summary of rows from :func:`load_rows` (``latest=True``).

    Returns
    -------
    list of dict
        One per label, exact methods first, then by APD: ``method``, ``kind``,
        ``runs``, ``with_optimum`` (instances with a known optimum), ``optimal``,
        ``share_optimal``, ``mean_gap``, ``median_gap``, ``worst_gap`` (fractions),
        ``apd``, ``wpd`` (percent), ``wins``, ``failures``, ``not_applicable``,
        ``errors``, ``mean_seconds``, and for proofs: ``proofs`` (runs with status
        ``optimal``), ``certified`` and ``refuted`` (runs whose certification
        succeeded or failed; see :attr:`exactsched.Result.certified`).

    Examples
    --------
    >>> rows = [dict(instance_key="i", label="h1", kind="heuristic", makespan=10.0,
    ...              gap_to_optimum=0.0, optimum=10.0, failed=False, status="feasible",
    ...              seconds=0.1),
    ...         dict(instance_key="i", label="h2", kind="heuristic", makespan=11.0,
    ...              gap_to_optimum=0.1, optimum=10.0, failed=False, status="feasible",
    ...              seconds=0.3)]
    >>> [(s["method"], s["share_optimal"], s["apd"], s["wins"]) for s in summarise(rows)]
    [('h1', 1.0, 0.0, 1), ('h2', 0.0, 10.0, 0)]
    """
    rows = list(rows)
    best_heuristic: dict[str, float] = {}
    for r in rows:
        if r["kind"] != "exact" and r["makespan"] is not None:
            k = r["instance_key"]
            best_heuristic[k] = min(best_heuristic.get(k, math.inf), r["makespan"])
    by_label: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_label[r["label"]].append(r)
    out = []
    for name, group in by_label.items():
        kind = group[0]["kind"]
        gaps = [r["gap_to_optimum"] for r in group if r["gap_to_optimum"] is not None]
        known = [r for r in group if r["optimum"] is not None]
        optimal = sum(1 for r in known if r["gap_to_optimum"] == 0.0)
        degr = []
        wins = 0
        if kind != "exact":
            for r in group:
                if r["makespan"] is None:
                    continue
                ref = best_heuristic[r["instance_key"]]
                d = _degradation(r["makespan"], ref)
                degr.append(100 * d if d is not None else math.nan)
                wins += r["makespan"] <= ref or _close(r["makespan"], ref)
        secs = [r["seconds"] for r in group if r["seconds"] is not None]
        out.append(
            {
                "method": name,
                "kind": kind,
                "runs": len(group),
                "with_optimum": len(known),
                "optimal": optimal,
                "share_optimal": optimal / len(known) if known else None,
                "mean_gap": statistics.fmean(gaps) if gaps else None,
                "median_gap": statistics.median(gaps) if gaps else None,
                "worst_gap": max(gaps) if gaps else None,
                "apd": statistics.fmean(degr) if degr else None,
                "wpd": max(degr) if degr else None,
                "wins": wins if kind != "exact" else None,
                "failures": sum(1 for r in group if r["failed"]),
                "not_applicable": sum(1 for r in group if r["status"] == "not-applicable"),
                "errors": sum(1 for r in group if r["status"] in ("error", "invalid")),
                "mean_seconds": statistics.fmean(secs) if secs else None,
                "proofs": sum(1 for r in group if r["status"] == "optimal"),
                "certified": sum(1 for r in group if r.get("certified") is True),
                "refuted": sum(1 for r in group if r.get("certified") is False),
            }
        )
    out.sort(key=lambda s: (s["kind"] != "exact", _key(s["apd"]), s["method"]))
    return out


def _key(value: float | None) -> float:
    return math.inf if value is None or math.isnan(value) else value


def summarise_by(
    rows: Iterable[dict[str, Any]], group: Callable[[dict[str, Any]], Any]
) -> dict[Any, list[dict[str, Any]]]:
    """:func:`summarise` within each group of rows (``group(row)`` its key), keys sorted.

    APD and wins are relative to the best heuristic of each instance, which
    is the same whatever the grouping (a group holds whole instances).
    """
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in rows:
        groups[group(r)].append(r)
    return {k: summarise(groups[k]) for k in sorted(groups, key=lambda k: (str(type(k)), k))}


def to_dataframe(db: str | os.PathLike[str] | Store, *, latest: bool = False) -> Any:
    """The rows of a study as a pandas DataFrame (pandas is an optional dependency).

    Columns :data:`EXPORT_COLUMNS`; see :func:`load_rows`.

    Raises
    ------
    ImportError
        If pandas is not installed (with a line saying how to install it).
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas installed in CI
        raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
    rows = load_rows(db, latest=latest)
    return pd.DataFrame(rows, columns=[*EXPORT_COLUMNS, "mst"])
