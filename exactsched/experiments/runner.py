"""One run of a study: a method on an instance, turned into a database row.

:func:`execute` is what a pool process or a Dask worker calls. It never raises:
a method that refuses the instance (``MethodError``) gives a row with status
``not-applicable`` and the reason, any other exception a row with status
``error`` and the message, and a schedule the referee (:func:`exactsched.validate`)
rejects a row with status ``invalid`` and the first violation, so a sweep always
goes on. Crashes and time-outs of the whole process are caught one level up, by
the pool (:mod:`exactsched.experiments.pool`).
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from exactsched.experiments.fingerprint import outside_fingerprint
from exactsched.metrics import _over_path
from exactsched.problem import Problem

__all__ = ["Task", "execute", "error_row", "RUN_STATUSES", "run_options"]

#: Statuses of a row: the four of :class:`exactsched.Status`, then the sweep's own.
RUN_STATUSES = (
    "optimal",
    "feasible",
    "infeasible",
    "unknown",
    "not-applicable",
    "invalid",
    "error",
)

_CACHE_SIZE = 32


@dataclass(frozen=True)
class _Prepared:
    """A problem with what every run on it needs, computed once per process.

    Why: :func:`exactsched.solve` recomputes the lower bounds on every call
    (about 20 ms on 50 tasks, more than most heuristics take), and the SLR
    needs the optimistic critical path; a sweep runs many methods per instance.
    """

    problem: Problem
    lower_bound: float
    critical_path: float
    mst: float


_problems: OrderedDict[str, _Prepared] = OrderedDict()


@dataclass(frozen=True)
class Task:
    """One (instance, method, options) run, self-contained so it can travel to a worker.

    Attributes
    ----------
    instance : str
        The instance key (:func:`~exactsched.experiments.instances.instance_key`).
    document : str
        The instance as JSON, parsed by the worker (and cached by key).
    method : str
        Registry name.
    kind : str
        ``"exact"`` or ``"heuristic"``.
    options : dict
        The options of the results key: method options plus, for exact methods,
        ``time_limit``, ``workers``, ``seed`` and ``certify``; ``seed`` for a
        heuristic that takes one.
    threads : int
        Cores the run occupies (the solver's workers; 1 for a heuristic).
    deadline : float or None
        Seconds after which the pool kills the run (None: never).
    """

    instance: str
    document: str
    method: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    threads: int = 1
    deadline: float | None = None

    @property
    def options_key(self) -> str:
        """The options as canonical JSON (part of the results key)."""
        return json.dumps(self.options, sort_keys=True, separators=(",", ":"))


def run_options(
    info: Any,
    options: dict[str, Any],
    *,
    time_limit: float | None,
    workers: int | None,
    seed: int,
    certify: bool | None,
) -> dict[str, Any]:
    """The options that identify a run of method ``info`` (see :attr:`Task.options`).

    Heuristics ignore the time limit, workers and certification, so these are left
    out of their key: changing the exact method's limit does not rerun them.

    Examples
    --------
    >>> from exactsched import get_method
    >>> run_options(get_method("heft"), {}, time_limit=5, workers=2, seed=0, certify=None)
    {}
    >>> run_options(get_method("random-eft"), {}, time_limit=5, workers=2, seed=3, certify=None)
    {'seed': 3}
    >>> sorted(run_options(get_method("cpsat"), {}, time_limit=5, workers=2, seed=0,
    ...                    certify=None))
    ['certify', 'seed', 'time_limit', 'workers']
    """
    out = dict(options)
    # One value, one key: 60 (Python) and 60.0 (the CLI) are the same time limit.
    seconds = None if time_limit is None else float(time_limit)
    if info.kind == "exact":
        out.update(
            time_limit=seconds,
            workers=None if workers is None else int(workers),
            seed=int(seed),
            certify=certify,
        )
    elif "seed" in info.options:
        out["seed"] = int(seed)
    # A method a user's script registered: its code is not in the version's
    # fingerprint, so its own is in its key (an edited script reruns its rows).
    code = outside_fingerprint([info.func]) if getattr(info, "func", None) else ""
    if code:
        out["code"] = code
    return out


def _prepared(task: Task) -> _Prepared:
    cached = _problems.get(task.instance)
    if cached is not None:
        _problems.move_to_end(task.instance)
        return cached
    from exactsched.bounds import lower_bound, optimistic_critical_path
    from exactsched.instance import load_instance
    from exactsched.metrics import minimal_serial_time

    problem = load_instance(json.loads(task.document))
    prepared = _Prepared(
        problem,
        float(lower_bound(problem)),
        float(optimistic_critical_path(problem)),
        float(minimal_serial_time(problem)),
    )
    _problems[task.instance] = prepared
    if len(_problems) > _CACHE_SIZE:
        _problems.popitem(last=False)
    return prepared


def _run(prep: _Prepared, task: Task) -> Any:
    """The method's :class:`~exactsched.Result` (not validated: :func:`execute` does it).

    Every method goes through :func:`exactsched.solve`; the problem is kept
    across runs (see :class:`_Prepared`), so its lower bounds, cached in it, are
    computed once per instance.
    """
    from exactsched.registry import solve

    opts = dict(task.options)
    opts.pop("code", None)  # the key's fingerprint of a script's method, not an option
    common = {k: opts.pop(k) for k in ("time_limit", "workers", "seed", "certify") if k in opts}
    return solve(prep.problem, task.method, check=False, **common, **opts)


def error_row(status: str, message: str, seconds: float = 0.0) -> dict[str, Any]:
    """A row for a run that gave no usable result."""
    return {
        "status": status,
        "makespan": None,
        "lower_bound": None,
        "certified": None,
        "certified_by": None,
        "speedup": None,
        "slr": None,
        "failed": None,
        "seconds": seconds,
        "error": message,
        "schedule": None,
        "stats": None,
    }


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


#: In a Dask worker: a method a client's script registered and shipped
#: (:mod:`exactsched.experiments._dask_methods`) -> the client's fingerprint of its code.
SHIPPED: dict[str, str] = {}


def code_of(method: str) -> str:
    """What computed a run of ``method`` in this process: the results version, and the
    method's own fingerprint when a script registered it (``"unregistered"`` when this
    process does not know the method). The sweep compares it with its key's
    (:func:`expected_code`): a Dask worker started before an edit runs other code.

    Examples
    --------
    >>> code_of("heft") == expected_code({})
    True
    >>> code_of("no-such-method").endswith("/unregistered")
    True
    """
    from exactsched._sources import changed_since_import
    from exactsched.errors import MethodError
    from exactsched.experiments.fingerprint import results_version
    from exactsched.registry import get_method

    if changed_since_import():  # the code in memory is no longer the files' hash
        return f"{results_version()}/sources-changed-since-import"
    try:
        info = get_method(method)
    except MethodError:
        return f"{results_version()}/unregistered"
    if method in SHIPPED:  # the client's own function, sent to this worker
        return f"{results_version()}/{SHIPPED[method]}"
    return f"{results_version()}/{outside_fingerprint([info.func])}"


def expected_code(options: dict[str, Any]) -> str:
    """:func:`code_of` as the results key of a run with ``options`` expects it."""
    from exactsched.experiments.fingerprint import results_version

    return f"{results_version()}/{options.get('code', '')}"


def execute(task: Task) -> dict[str, Any]:
    """Run one task and return its row (never raises).

    Returns
    -------
    dict
        ``status`` (one of :data:`RUN_STATUSES`), ``makespan``, ``lower_bound``,
        ``certified``, ``certified_by``, ``speedup``, ``slr``, ``failed``,
        ``seconds`` (the method's own time), ``error`` (None or one line),
        ``schedule`` (the schedule document as JSON text), ``stats`` (JSON text)
        and ``ran_by`` (:func:`code_of`, not stored: the sweep checks it).

    Examples
    --------
    >>> from exactsched.experiments.instances import canonical_json, instance_key
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/mesh-isolation.json")
    >>> t = Task(instance_key(p), canonical_json(p), "minimal-serial", "heuristic")
    >>> row = execute(t)
    >>> row["status"], row["error"][:14]
    ('not-applicable', 'minimal-serial')
    >>> execute(Task(instance_key(p), canonical_json(p), "heft", "heuristic"))["status"]
    'feasible'
    """
    row = _execute(task)
    row["ran_by"] = code_of(task.method)
    return row


def _execute(task: Task) -> dict[str, Any]:
    from exactsched.errors import MethodError
    from exactsched.validate import validate

    started = time.perf_counter()
    try:
        prep = _prepared(task)
        problem = prep.problem
        result = _run(prep, task)
    except MethodError as exc:
        return error_row("not-applicable", _one_line(exc), time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001  (any bug in a method becomes a row)
        message = _one_line(f"{type(exc).__name__}: {exc}")
        return error_row("error", message, time.perf_counter() - started)
    row = error_row(result.status.value, None, result.seconds)  # type: ignore[arg-type]
    row["lower_bound"] = result.lower_bound
    row["certified"] = result.certified
    row["certified_by"] = ",".join(result.certified_by) or None
    row["stats"] = json.dumps(dict(result.stats), default=repr, sort_keys=True)
    if result.schedule is None:
        return row
    try:
        violations = validate(problem, result.schedule)
    except Exception as exc:  # noqa: BLE001  (a malformed schedule: the method's fault)
        violations = [f"{type(exc).__name__}: {exc}"]
    if violations:
        row.update(status="invalid", error=_one_line(f"invalid schedule: {violations[0]}"))
        return row
    makespan = float(result.schedule.makespan)
    # The metrics of exactsched.metrics, from the values cached per instance.
    cp, mst = prep.critical_path, prep.mst
    row.update(
        makespan=makespan,
        speedup=mst / makespan if makespan > 0 else math.inf,
        slr=_over_path(makespan, cp),
        failed=bool(makespan > mst * (1 + 1e-12)),
        schedule=json.dumps(result.schedule.to_json(), separators=(",", ":")),
    )
    return row
