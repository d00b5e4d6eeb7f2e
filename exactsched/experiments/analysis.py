"""What a study database says: optima, disputes, gaps and per-method summaries.

Reference values of an instance come from the rows of one study configuration
(:func:`load_rows` with ``keys``) or from every row of the database:

* **optimum**: a *certified* optimum -- the makespan an exact method proved
  (status ``optimal``) and independent witnesses certified
  (:func:`models.certify.certify`), or a validated makespan that meets the
  analytical lower bound (:func:`exactsched.lower_bound`, stored with every
  heuristic row). An uncertified proof is never an optimum;
* **disputed**: answers that contradict each other (:func:`models.certify.agree`):
  two proven optima that differ, or a proven lower bound above a valid makespan
  (an optimum above a valid schedule is one). On integer and decimal data the
  comparison is on the data's grid: answers one grid step apart or more
  disagree, whatever the magnitude; on other data they must be within 1e-9
  relative. A disputed instance has no optimum: the study never picks a claim;
* **best known**: the least valid makespan; **best bound**: the largest proven
  lower bound.

**Gap** (one definition in exactsched, McSweeney's percentage deviation as a
fraction, :func:`exactsched.result.relative_gap`):
``gap = (makespan - reference) / reference``, the reference being the certified
optimum where there is one and the best known makespan otherwise
(``reference_kind`` says which); 0.05 means 5 % longer. ``gap_to_optimum``,
``gap_to_best`` and ``gap_to_bound`` are the same ratio to each reference
(``gap_to_bound`` bounds the gap to the unknown optimum from above).

Per method, following McSweeney's report ([1]_, sec. 4.2.2): the share of
runs that found the certified optimum, mean, median and worst gap, APD and
WPD (average and worst percentage degradation relative to the best heuristic on
each instance), wins (instances where it is the best heuristic, ties included)
and failures (makespan above the minimal serial time), plus errors, refusals and
mean runtime. Refusals (``not-applicable``) count in no denominator.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from exactsched.experiments.store import Store, damaged_database, shown_reads, superseded_reads

__all__ = [
    "TOLERANCE",
    "run_assumes_identical",
    "row_assumes_identical",
    "config",
    "EXPORT_COLUMNS",
    "load_rows",
    "superseded_keys",
    "unfinished_note",
    "instance_references",
    "communication_of",
    "summarise",
    "summarise_by",
    "GROUPINGS",
    "ccr_bucket",
    "to_dataframe",
    "label",
]

#: Relative tolerance of "equal makespans".
TOLERANCE = 1e-9

_COMMON = ("time_limit", "workers", "seed", "certify", "code")

#: Columns of ``exactsched results`` (and of :func:`to_dataframe`).
EXPORT_COLUMNS = (
    "instance", "instance_key", "base_key", "communication", "tasks", "processors",
    "topology", "platform", "ccr", "method", "label", "kind", "options", "version", "config",
    "status", "makespan",
    "lower_bound", "optimum", "optimum_certified_by", "best_known", "best_bound", "reference",
    "reference_kind", "gap", "gap_to_optimum", "gap_to_best", "gap_to_bound", "disputed",
    "speedup", "slr", "failed", "certified", "certified_by", "seconds", "error",
    "finished", "source", "assumes_identical_processors",
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


def config(options: str | dict[str, Any], version: str) -> str:
    """The configuration of a run beyond its label: common options and version.

    Two rows of one label (method and own options) and instance differ only in
    this; a study reports the rows of one configuration.

    Examples
    --------
    >>> config('{"certify":null,"seed":0,"time_limit":2,"workers":1}', "0.1.0")
    'time_limit=2 workers=1 seed=0 certify=default exactsched=0.1.0'
    >>> config("{}", "0.1.0")
    'exactsched=0.1.0'
    >>> config('{"time_limit":1.0000001}', "0.1.0")
    'time_limit=1.0000001 exactsched=0.1.0'
    """
    opts = json.loads(options) if isinstance(options, str) else options
    parts = []
    for key in _COMMON:
        if key in opts:
            value = opts[key]
            if value is None:
                shown = "default"
            elif isinstance(value, float):
                shown = _exact(value)  # every digit: 1 and 1.0000001 are two configurations
            else:
                shown = json.dumps(value)
            parts.append(f"{key}={shown}")
    return " ".join([*parts, f"exactsched={version}"])


def _kinds() -> dict[str, str]:
    from exactsched.registry import available_methods

    return {m.name: m.kind for m in available_methods()}


def run_assumes_identical(method: str, options: str | dict[str, Any] | None = None) -> bool:
    """Whether a run of ``method`` with ``options`` picks processors as if identical.

    See :meth:`exactsched.registry.MethodInfo.run_assumes_identical`; False for a
    method no longer registered.

    Examples
    --------
    >>> run_assumes_identical("olb", '{"seed": 0}')
    True
    >>> run_assumes_identical("olb", '{"processor_choice": "earliest-finish"}')
    False
    >>> run_assumes_identical("heft"), run_assumes_identical("no-such-method")
    (False, False)
    """
    from exactsched.registry import get_method

    try:
        info = get_method(method)
    except Exception:  # noqa: BLE001  (a method no longer registered)
        return False
    return info.run_assumes_identical(options)


def row_assumes_identical(row: dict[str, Any]) -> bool:
    """A row's ``assumes_identical_processors``, from its method and options if absent."""
    if "assumes_identical_processors" in row:
        return bool(row["assumes_identical_processors"])
    name = row.get("name") or row.get("method") or row.get("label", "")
    return run_assumes_identical(name, row.get("options"))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-300)


def grid_step(problem: Any) -> float | None:
    """The grid step of the instance's data (1 on integers), None for data off a grid.

    Examples
    --------
    >>> from exactsched import Problem
    >>> grid_step(Problem.from_lists([[2, 3]], [])), grid_step(Problem.from_lists([[0.5]], []))
    (1.0, 0.1)
    >>> grid_step(Problem.from_lists([[1 / 3]], [])) is None
    True
    """
    try:
        from models.certify import _grid  # the grid certification refutes on

        resolution, on_grid = _grid(problem)
    except (ImportError, AttributeError):  # pragma: no cover - another certify layout
        resolution, on_grid = 1.0, problem.is_integral
    return 1.0 / resolution if on_grid else None


def _agreement(rows: Sequence[dict[str, Any]], step: Callable[[], float | None]) -> Any:
    """:func:`models.certify.agree` on the rows' answers, on the data's grid.

    ``step()`` gives the grid step (asked only when two answers differ by less
    than the float tolerance, where the grid decides).
    """
    from exactsched.result import Result, Status
    from models.certify import agree

    statuses = {s.value: s for s in Status}

    def bound(r: dict[str, Any]) -> float | None:
        # A proof without its bound still claims its makespan as one.
        if r["lower_bound"] is None and r["status"] == "optimal":
            return r["makespan"]
        return r["lower_bound"]

    results = [
        Result(r["label"], statuses[r["status"]], None, r["makespan"], bound(r), 0.0)
        for r in rows
        if r["status"] in statuses and (r["makespan"] is not None or r["lower_bound"] is not None)
    ]
    values = sorted({float(v) for r in results for v in (r.makespan, r.lower_bound)
                     if v is not None})  # fmt: skip
    rel_tol = TOLERANCE
    # Relative at every magnitude, as agree() compares (a flat 1e-9 below 1 was no
    # tolerance for answers of 1e-10).
    near = any(b != a and b - a <= TOLERANCE * max(abs(a), abs(b))
               for a, b in zip(values, values[1:], strict=False))  # fmt: skip
    if near:
        unit = step()
        if unit is not None:
            # On the grid: one step apart is a different answer, less is float noise.
            rel_tol = 0.5 * unit / (max(abs(v) for v in values) or 1.0)
    verdict = agree(results, rel_tol=rel_tol)
    if verdict.status == "disputed" and near:
        # agree's reasons print "3e+12 but 3e+12": say which digits differ.
        verdict = replace(verdict, reasons=(_reason(results, rel_tol) or verdict.reasons[0],))
    return verdict


def _exact(value: float) -> str:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e16:
        return str(int(value))
    return repr(float(value))


def _reason(results: Sequence[Any], rel_tol: float) -> str | None:
    """The first contradiction among ``results``, every digit shown."""

    def apart(a: float, b: float) -> bool:
        return abs(a - b) > rel_tol * max(abs(a), abs(b))

    optima = [r for r in results if r.status.value == "optimal" and r.makespan is not None]
    for k, a in enumerate(optima):
        for b in optima[k + 1 :]:
            if apart(a.makespan, b.makespan):
                return (
                    f"{a.method} proves {_exact(a.makespan)} but {b.method} proves "
                    f"{_exact(b.makespan)}"
                )
    for a in results:
        for b in results:
            if a is b or a.lower_bound is None or b.makespan is None:
                continue
            if a.lower_bound > b.makespan and apart(a.lower_bound, b.makespan):
                return (
                    f"{a.method}'s bound {_exact(a.lower_bound)} is above {b.method}'s "
                    f"valid makespan {_exact(b.makespan)}"
                )
    return None


def _stepper(problem: Any) -> Callable[[], float | None]:
    """A function giving :func:`grid_step` of ``problem`` (a Problem or its JSON
    document, parsed on the first call), computed once."""
    cache: list[float | None] = []

    def step() -> float | None:
        if not cache:
            found = problem
            if isinstance(found, str):
                from exactsched.instance import load_instance

                found = load_instance(json.loads(found))
            cache.append(None if found is None else grid_step(found))
        return cache[0]

    return step


def instance_references(
    rows: Sequence[dict[str, Any]],
    problem: Any = None,
    *,
    step: Callable[[], float | None] | None = None,
) -> dict[str, Any]:
    """Optimum, best known, best bound and dispute of one instance's rows.

    Parameters
    ----------
    rows : sequence of dict
        Rows of one instance with ``label`` (or ``method``), ``kind``, ``status``,
        ``makespan``, ``lower_bound`` and ``certified``.
    problem : Problem or str, optional
        The instance (or its JSON document, parsed only if needed), for the grid
        of its data (see :func:`grid_step`); without it answers within 1e-9
        relative agree.
    step : callable, optional
        Gives the grid step instead of ``problem`` (see :func:`_stepper`).

    Returns
    -------
    dict
        ``optimum`` (the certified optimum or None), ``optimum_certified_by``,
        ``best_known``, ``best_bound``, ``reference`` and ``reference_kind``
        (``"optimum"``, ``"best known"`` or None), and ``disputed`` (None or a
        one-line reason).

    Examples
    --------
    >>> ex = dict(kind="exact", status="optimal", certified=True)
    >>> instance_references([{**ex, "method": "a", "makespan": 7, "lower_bound": 7},
    ...                      {**ex, "method": "b", "makespan": 7, "lower_bound": 7}])["optimum"]
    7
    >>> r = instance_references([{**ex, "method": "a", "makespan": 7, "lower_bound": 7},
    ...                          {**ex, "method": "b", "makespan": 8, "lower_bound": 8}])
    >>> r["optimum"], r["reference_kind"], r["disputed"]
    (None, 'best known', 'a proves 7 but b proves 8')

    An uncertified proof is no optimum: gaps are to the best known makespan.

    >>> r = instance_references([{**ex, "method": "a", "makespan": 7, "lower_bound": 7,
    ...                           "certified": None}])
    >>> r["optimum"], r["reference"], r["reference_kind"]
    (None, 7, 'best known')
    """
    rows = [{**r, "label": r.get("label") or r["method"]} for r in rows]
    valid = [r for r in rows if r["makespan"] is not None]
    bounded = [r for r in rows if r["lower_bound"] is not None and r["status"] != "invalid"]
    best_known = min((r["makespan"] for r in valid), default=None)
    best_bound = max((r["lower_bound"] for r in bounded), default=None)
    step = step or _stepper(problem)
    verdict = _agreement([r for r in rows if r["status"] != "invalid"], step)
    disputed = verdict.reasons[0] if verdict.status == "disputed" else None
    infeasible = [r for r in rows if r["status"] == "infeasible"]
    if disputed is None and infeasible and valid:
        # Every valid instance has a schedule: a validated one refutes the claim.
        shortest = min(valid, key=lambda r: r["makespan"])
        disputed = (
            f"{infeasible[0]['label']} says infeasible but {shortest['label']}'s schedule"
            f" of makespan {_exact(shortest['makespan'])} is valid"
        )
    optimum = certified_by = None
    if disputed is None:
        claims = [
            r for r in valid
            if r["kind"] == "exact" and r["status"] == "optimal" and r.get("certified") is True
        ]  # fmt: skip
        # The analytical bound every heuristic row carries, met by a validated
        # schedule. Only a heuristic's: an unknown method's bound may be a claim.
        analytic = [r["lower_bound"] for r in bounded if r["kind"] == "heuristic"]
        if claims:
            optimum = claims[0]["makespan"]
            certified_by = (
                ",".join(
                    sorted(
                        {w for r in claims for w in (r.get("certified_by") or "").split(",") if w}
                    )
                )
                or "certified"
            )
        elif (
            best_known is not None
            and analytic
            and (
                # met up to float noise; on grid data, less than half a step below
                max(analytic) >= best_known or _degradation(best_known, max(analytic), step) == 0.0
            )
        ):
            optimum, certified_by = best_known, "lower bound"
    reference = optimum if optimum is not None else best_known
    return {
        "optimum": optimum,
        "optimum_certified_by": certified_by,
        "best_known": best_known,
        "best_bound": best_bound,
        "reference": reference,
        "reference_kind": None if reference is None else (
            "optimum" if optimum is not None else "best known"),
        "disputed": disputed,
    }  # fmt: skip


def _degradation(
    value: float | None,
    reference: float | None,
    step: Callable[[], float | None] | None = None,
) -> float | None:
    """:func:`exactsched.result.relative_gap`, and 0 for float noise.

    Noise is a difference within 1e-9 relative; with ``step`` (the data's grid,
    see :func:`grid_step`) only a difference below half a grid step is noise, so
    on integer data 3,000,000,002,331 is not 3,000,000,001,998 however close.
    A positive makespan against a reference of 0 is ``inf`` (``relative_gap``
    has no finite ratio and says None): a study counts that run as unboundedly
    worse, it does not leave it out of its means and worst gaps.

    Examples
    --------
    >>> _degradation(10.0, 0.0), _degradation(0.0, 0.0), _degradation(None, 0.0)
    (inf, 0.0, None)
    """
    from exactsched.result import relative_gap

    if (
        value is not None
        and reference is not None
        and value != reference
        and _close(value, reference)
    ):
        unit = None if step is None else step()
        if unit is None or abs(value - reference) < 0.5 * unit:
            return 0.0
    if value is not None and reference is not None and value < reference:
        # Below its reference (a contradicted bound): no gap, never a "proven" 0.0.
        return None
    gap = relative_gap(value, reference)
    if gap is None and value is not None and reference is not None and value > reference:
        return math.inf
    return gap


def load_rows(
    db: str | os.PathLike[str] | Store,
    *,
    latest: bool = False,
    keys: Iterable[tuple[str, str, str]] | None = None,
    version: str | None = None,
    superseded: bool = False,
) -> list[dict]:
    """Rows of a study with the instance columns and the derived ones.

    Parameters
    ----------
    db : path or Store
        A path is opened read-only (:class:`Store` with ``readonly=True``).
    latest : bool
        Kept for compatibility: every row is one results key (instance, method,
        options, version), so there is nothing to drop.
    keys : iterable of (instance, method, options), optional
        Only these runs (with ``version``): the rows of one study configuration,
        which alone then give the optimum, best known and dispute of each
        instance. Default: every row; labels that occur under several
        configurations then carry the differing settings (``cpsat{time_limit=1}``).
    version : str, optional
        Only rows of this exactsched version.
    superseded : bool
        Without ``keys``, also the rows of *superseded* instances: contents
        that no file holds any more. Every time a sweep reads a file it
        records the file's own content (before any ``--platform`` or
        ``--communication`` override) and, with ``--platform FILE``, that
        file's content; a read is *current* when both are what their files
        held at their latest read (also a sweep that reused stored rows). An
        instance is superseded when it has rows and reads but no current read:
        so an edited file's old content is left out whatever the edit changed
        (tasks, processors, its communication model), under every override it
        was run with, and so are the rows made on an edited platform file; the
        same file under two overrides keeps both; a content held by two files
        stays current while one of them holds it; a file reverted A -> B -> A
        shows A; a generated instance (no file) is always current. Left out by
        default, so a whole-database report does not mix an edited instance's
        old results into the new ones. Instances of the same name from
        different files are all current; their names then carry the start of
        their key, ``x [3f2a9c01]``. A file a later sweep found gone (in a
        folder it scanned, or moved: its content read at another path) holds
        nothing any more, so a moved and then edited file's old content is
        superseded too; a file that is back is current again. This is decided
        by the sweeps: reading a study never looks at the disk, so a file
        deleted with no sweep since keeps its rows.

    Returns
    -------
    list of dict
        Keys :data:`EXPORT_COLUMNS` (plus ``mst``);
        ``assumes_identical_processors`` says whether this run, with its
        options, picks processors as if identical (:func:`run_assumes_identical`).
        ``instance`` is the name of
        the newest current read of the row's instance (the newest read for a
        superseded one), ``source`` that read's file (None for a generated
        instance). On a disputed instance ``best_bound`` and ``gap_to_bound``
        are None (a bound above a valid makespan bounds nothing), and a
        makespan below its reference never has a gap of 0: its gap is None.

    Raises
    ------
    InstanceError
        If the database is damaged (text, JSON or a schedule that cannot be
        decoded; see :func:`~exactsched.experiments.store.damaged_database`).

    Examples
    --------
    A study of HEFT on one instance, stored in a temporary folder:

    >>> import os, tempfile
    >>> from exactsched.experiments import run_sweep
    >>> tmp = tempfile.TemporaryDirectory()
    >>> db = os.path.join(tmp.name, "study.sqlite")
    >>> out = run_sweep(["examples/topcuoglu2002.json"], "heft", exact="none",
    ...                 db=db, jobs=1, progress="none")
    >>> out.store.close()
    >>> [row] = load_rows(db)
    >>> row["method"], row["status"], row["makespan"], row["lower_bound"], row["tasks"]
    ('heft', 'feasible', 80.0, 58.0, 10)
    >>> row["reference_kind"], row["gap_to_best"], round(row["gap_to_bound"], 4)
    ('best known', 0.0, 0.3793)
    >>> tmp.cleanup()
    """
    store = db if isinstance(db, Store) else Store(_existing(db), readonly=True)
    wanted = None if keys is None else set(keys)
    with damaged_database(store.path):
        try:
            rows, instances = _joined_rows(store, wanted, version, superseded or keys is not None)
        finally:
            if not isinstance(db, Store):
                store.close()
        return _derived(rows, instances, distinguish=wanted is None)


def _joined_rows(
    store: Store,
    wanted: set[tuple[str, str, str]] | None,
    version: str | None,
    keep_superseded: bool,
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The stored runs joined with their instance's columns (see :func:`load_rows`)."""
    instances = {i["key"]: i for i in store.instances()}
    models = {k: communication_of(i.get("document")) for k, i in instances.items()}
    kinds = _kinds()
    runs = list(store.runs())
    reads = store.reads()
    shown = shown_reads(reads)
    stale = set() if keep_superseded else superseded_reads(reads, runs)
    rows = []
    for run in runs:
        if run["instance"] in stale:
            continue
        if version is not None and run["version"] != version:
            continue
        key = (run["instance"], run["method"], run["options"])
        if wanted is not None and key not in wanted:
            continue
        inst = instances.get(run["instance"], {})
        model, base = models.get(run["instance"], ("delay", run["instance"]))
        read = shown.get(run["instance"])
        name = read.name if read is not None and read.name else inst.get("name")
        rows.append(
            {
                **run,
                "instance": name or run["instance"],
                "source": (read.source or None) if read is not None else None,
                "instance_key": run["instance"],
                "base_key": base,
                "communication": model,
                "tasks": inst.get("tasks"),
                "processors": inst.get("processors"),
                "topology": inst.get("topology"),
                "platform": inst.get("platform"),
                "ccr": inst.get("ccr"),
                "mst": inst.get("mst"),
                "label": label(run["method"], run["options"]),
                "config": config(run["options"], run["version"]),
                # As stored with the run; a registry lookup only for older rows.
                "kind": run.get("kind") or kinds.get(run["method"], "unknown"),
                # This run, with its options (processor_choice=earliest-finish lifts it).
                "assumes_identical_processors": run_assumes_identical(
                    run["method"], run["options"]
                ),
            }
        )
    return rows, instances


def _derived(
    rows: list[dict[str, Any]], instances: dict[str, dict[str, Any]], *, distinguish: bool
) -> list[dict]:
    """Labels told apart, then each instance's references and each row's gaps."""
    if distinguish:
        _distinguish(rows)
    _name_apart(rows)
    rows.sort(key=lambda r: (r["instance_key"], r["label"]))
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_instance[r["instance_key"]].append(r)
    for key, group in by_instance.items():
        step = _stepper(instances.get(key, {}).get("document"))
        ref = instance_references(group, step=step)
        if ref["disputed"]:
            # A bound some valid schedule contradicts bounds nothing: not exported.
            ref = {**ref, "best_bound": None}
        for r in group:
            r.update(ref)
            m = r["makespan"]
            r["gap"] = _degradation(m, ref["reference"], step)
            r["gap_to_optimum"] = _degradation(m, ref["optimum"], step)
            r["gap_to_best"] = _degradation(m, ref["best_known"], step)
            r["gap_to_bound"] = _degradation(m, ref["best_bound"], step)
    return [{**{c: r.get(c) for c in EXPORT_COLUMNS}, "mst": r.get("mst")} for r in rows]


def superseded_keys(db: str | os.PathLike[str] | Store) -> set[str]:
    """Keys of the superseded instances of a study (see ``superseded`` of :func:`load_rows`).

    Examples
    --------
    >>> superseded_keys(Store(":memory:"))
    set()
    """
    store = db if isinstance(db, Store) else Store(_existing(db), readonly=True)
    try:
        return superseded_reads(store.reads(), list(store.runs()))
    finally:
        if not isinstance(db, Store):
            store.close()


def respelt_note(store: Store, shown: Iterable[str]) -> str | None:
    """One line when stored instances ``shown`` hold one content under several keys.

    A study written by an exactsched that keyed an instance by its spelling
    (``"bandwidth": 1.0`` and ``1`` were two keys before the canonical spelling,
    :func:`~exactsched.experiments.instances.canonical_spelling`) counts such an
    instance once per key until a sweep reads its files again (an outside audit).

    Examples
    --------
    >>> respelt_note(Store(":memory:"), []) is None
    True
    """
    from exactsched.experiments.instances import canonical_spelling, content_key

    wanted = set(shown)
    groups: dict[str, list[str]] = {}
    for inst in store.instances():
        if inst["key"] not in wanted or not inst.get("document"):
            continue
        try:
            key = content_key(canonical_spelling(json.loads(inst["document"])))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a document this version cannot read: nothing to compare
        groups.setdefault(key, []).append(inst["key"])
    twice = [keys for keys in groups.values() if len(keys) > 1]
    if not twice:
        return None
    keys = ", ".join("/".join(k[:8] for k in sorted(g)) for g in twice[:3])
    return (
        f"{sum(len(g) for g in twice)} stored instances are {len(twice)} content(s) spelt "
        f"in several ways ({keys}{', ...' if len(twice) > 3 else ''}), keyed apart by an "
        "older exactsched: each counts once per key until compare reads their files again"
    )


def unfinished_note(
    store: Store, keys: Iterable[tuple[str, str, str]] | None = None, version: str | None = None
) -> str | None:
    """One line saying what a study has not finished, or None when it is complete.

    Runs claimed and not finished (a sweep stopped, or one still running) and
    planned runs never started (see :meth:`Store.unfinished`): the means of
    such a study are over the runs that happened to finish, not final.

    Examples
    --------
    >>> store = Store(":memory:")
    >>> store.add_plan([("i", "heft", "{}")], "1")
    >>> unfinished_note(store)
    '1 planned run was never started; rerun compare to finish the study'
    >>> store.close()
    """
    with damaged_database(store.path):
        claimed, not_started = store.unfinished(keys, version)
    parts = []
    if claimed:
        owners = ", ".join(f"{n} by {owner}" for owner, n in sorted(claimed.items()))
        n = sum(claimed.values())
        parts.append(
            f"{n} run{'s were' if n != 1 else ' was'} started and not finished"
            f" (interrupted or still running: {owners})"
        )
    if not_started:
        s = "s were" if not_started != 1 else " was"
        parts.append(f"{not_started} planned run{s} never started")
    if not parts:
        return None
    return "; ".join(parts) + "; rerun compare to finish the study"


def _name_apart(rows: list[dict[str, Any]]) -> None:
    """Instances of one name and different contents get the start of their key."""
    keys: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        keys[r["instance"]].add(r["base_key"])
    for r in rows:
        if len(keys[r["instance"]]) > 1:
            r["instance"] = f"{r['instance']} [{r['base_key'][:8]}]"


def _distinguish(rows: list[dict[str, Any]]) -> None:
    """Give labels found under several configurations the settings that differ."""
    configs: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        configs[r["label"]].add(r["config"])
    for r in rows:
        seen = configs[r["label"]]
        if len(seen) < 2:
            continue
        split = [c.split() for c in seen]
        mine = r["config"].split()
        differ = [part for part in mine if not all(part in other for other in split)]
        r["label"] = f"{r['label']}{{{','.join(differ)}}}"


def communication_of(document: str | dict[str, Any] | None) -> tuple[str, str]:
    """The communication model of an instance document and its *base key*.

    The base key is a content hash of the document without its name and
    without ``network.communication`` and ``network.duplex``: one instance run
    under several models (``compare --communication``) has one base key and a
    different :func:`~exactsched.experiments.instances.instance_key` per model.

    Examples
    --------
    >>> from exactsched import Problem
    >>> from exactsched.experiments.instances import canonical_json
    >>> p = Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=4,
    ...                        network={"topology": "mesh", "dims": [2, 2]})
    >>> model, key = communication_of(canonical_json(p.with_communication("contention")))
    >>> model, key == communication_of(canonical_json(p))[1]
    ('contention', True)
    """
    from exactsched.experiments.instances import content_key

    if document is None:
        return "delay", ""
    doc = json.loads(document) if isinstance(document, str) else dict(document)
    doc.pop("name", None)
    platform = doc.get("platform")
    model = "delay"
    if isinstance(platform, str):  # a bare preset name: as with_communication spells it
        platform = {"preset": platform}
    if isinstance(platform, dict):
        platform = dict(platform)
        network = dict(platform.get("network") or {})
        model = str(network.pop("communication", "delay"))
        network.pop("duplex", None)
        if network:
            platform["network"] = network
        else:
            platform.pop("network", None)
        doc["platform"] = platform
    return model, content_key(doc)


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
    "communication model": lambda r: r["communication"],
}


def summarise(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-method summary of rows from :func:`load_rows`.

    Parameters
    ----------
    rows : iterable of dict
        Rows of :func:`load_rows`.

    Returns
    -------
    list of dict
        One per label, exact methods first, then by APD: ``method``, ``kind``,
        ``runs``, ``applicable`` (runs less refusals: the denominator of every
        share), ``with_optimum`` (applicable runs on instances with a certified
        optimum), ``optimal`` (of those, runs that found it), ``share_optimal``,
        ``mean_gap``, ``median_gap``, ``worst_gap`` (fractions, each run's
        :func:`~exactsched.result.relative_gap` to its instance's reference),
        ``to_best_known`` (runs whose reference is the best known makespan, no
        certified optimum), ``apd``, ``wpd`` (percent), ``wins``, ``failures``,
        ``not_applicable``, ``errors``, ``mean_seconds``,
        ``assumes_identical_processors`` (the label's runs pick processors as
        if identical: :func:`run_assumes_identical`), and for proofs:
        ``proofs`` (runs with status ``optimal``), ``certified`` and ``refuted``
        (runs whose certification succeeded or failed; see
        :attr:`exactsched.Result.certified`: a failed one is reported ``feasible``,
        so it is not among the proofs).

    Examples
    --------
    >>> rows = [dict(instance_key="i", label="h1", kind="heuristic", makespan=10.0,
    ...              gap=0.0, gap_to_optimum=0.0, optimum=10.0, reference_kind="optimum",
    ...              failed=False, status="feasible", seconds=0.1),
    ...         dict(instance_key="i", label="h2", kind="heuristic", makespan=11.0,
    ...              gap=0.1, gap_to_optimum=0.1, optimum=10.0, reference_kind="optimum",
    ...              failed=False, status="feasible", seconds=0.3)]
    >>> [(s["method"], s["share_optimal"], s["apd"], s["wins"]) for s in summarise(rows)]
    [('h1', 1.0, 0.0, 1), ('h2', 0.0, 10.0, 0)]
    """
    if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
        got = type(rows).__name__
        raise TypeError(f"summarise: expected rows (a list of dicts, see load_rows), got {got}")
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
        applicable = [r for r in group if r["status"] != "not-applicable"]
        gaps = [r["gap"] for r in applicable if r.get("gap") is not None]
        known = [r for r in applicable if r["optimum"] is not None]
        optimal = sum(1 for r in known if r.get("gap_to_optimum") == 0.0)
        degr = []
        wins = 0
        if kind != "exact":
            for r in group:
                if r["makespan"] is None:
                    continue
                ref = best_heuristic[r["instance_key"]]
                d = _degradation(r["makespan"], ref, _integers(r["makespan"], ref))
                degr.append(100 * d if d is not None else math.nan)
                wins += d == 0.0
        secs = [r["seconds"] for r in group if r["seconds"] is not None]
        out.append(
            {
                "method": name,
                "name": group[0].get("method", name),
                "kind": kind,
                # One label is one method with one set of options: its runs agree.
                "assumes_identical_processors": any(map(row_assumes_identical, group)),
                "runs": len(group),
                "applicable": len(applicable),
                "with_optimum": len(known),
                "optimal": optimal,
                "share_optimal": optimal / len(known) if known else None,
                "mean_gap": statistics.fmean(gaps) if gaps else None,
                "median_gap": statistics.median(gaps) if gaps else None,
                "worst_gap": max(gaps) if gaps else None,
                "to_best_known": sum(
                    1
                    for r in applicable
                    if r.get("gap") is not None and r.get("reference_kind") == "best known"
                ),  # fmt: skip
                "apd": statistics.fmean(degr) if degr else None,
                "wpd": max(degr) if degr else None,
                "wins": wins if kind != "exact" else None,
                "failures": sum(1 for r in group if r["failed"]),
                "not_applicable": len(group) - len(applicable),
                "errors": sum(1 for r in group if r["status"] in ("error", "invalid")),
                "mean_seconds": statistics.fmean(secs) if secs else None,
                "proofs": sum(1 for r in group if r["status"] == "optimal"),
                "certified": sum(1 for r in group if r.get("certified") is True),
                "refuted": sum(1 for r in group if r.get("certified") is False),
            }
        )
    out.sort(key=lambda s: (s["kind"] != "exact", _key(s["apd"]), s["method"]))
    return out


def _integers(a: float, b: float) -> Callable[[], float | None]:
    """A grid step for :func:`_degradation`: 1 when both numbers are integers.

    Makespans on integer data are exact integers, so two different ones are
    never float noise, however large (the rows do not carry the instance's grid).
    """
    unit = 1.0 if float(a).is_integer() and float(b).is_integer() else None
    return lambda: unit


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

    Parameters
    ----------
    db : str, path or Store
        The study database.
    latest : bool
        As in :func:`load_rows`.

    Returns
    -------
    pandas.DataFrame
        One row per stored run, with the instance's minimal serial time ``mst``.

    Raises
    ------
    ImportError
        If pandas is not installed (with a line saying how to install it).

    Examples
    --------
    A study of HEFT on one instance, stored in a temporary folder:

    >>> import os, tempfile
    >>> from exactsched.experiments import run_sweep
    >>> tmp = tempfile.TemporaryDirectory()
    >>> db = os.path.join(tmp.name, "study.sqlite")
    >>> run_sweep(["examples/topcuoglu2002.json"], "heft", exact="none",
    ...           db=db, jobs=1, progress="none").store.close()
    >>> df = to_dataframe(db)
    >>> df.shape[0], list(df.columns) == [*EXPORT_COLUMNS, "mst"]
    (1, True)
    >>> df[["method", "status", "makespan", "mst"]].to_dict("records")
    [{'method': 'heft', 'status': 'feasible', 'makespan': 80.0, 'mst': 127.0}]
    >>> tmp.cleanup()
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas installed in CI
        raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
    rows = load_rows(db, latest=latest)
    return pd.DataFrame(rows, columns=[*EXPORT_COLUMNS, "mst"])
