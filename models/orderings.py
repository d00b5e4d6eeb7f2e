"""Network-aware task orderings after Kong: count, enumerate, cost, search, promote isolation.

Kong [1]_ builds the space of legal task orderings of a program as an integer
set (isl), prunes it with dependence, scheduling and isolation edges, costs
every point by the network distance its execution path travels on a mesh or a
fat tree, and takes the lexicographic minimum; the slides report 317 s for 10
tasks on a parametric mesh. This module does the same exploration on an
exactsched instance, much faster, and connects it to the list schedulers:

* :func:`ordering_counts` -- the sizes of Kong's tables (complete ``n^n``,
  factorial ``n!``, semi-legal, legal), legal counted without enumerating;
* :func:`isl_set` / :func:`isl_text` -- the space as an isl set, in Kong's
  encoding or the faster position encoding;
* :func:`iter_orderings` -- the legal orderings, streamed in lexicographic order;
* :func:`ordering_costs` -- the network cost or list-schedule makespan of many
  orderings at once (numpy);
* :func:`best_ordering` -- lexicographic minimum of (cost, ordering) by a
  streaming enumeration in bounded memory;
* :func:`best_priority_list` -- the least makespan any priority list gives the
  list scheduler, found and proven by branch and bound past enumeration;
* :func:`priority_list_gap` -- HEFT's makespan vs. the best priority list vs.
  the optimum: how much of HEFT's gap is prioritisation and how much is
  processor selection (McSweeney's question, thesis report 4.2.2);
* :func:`promote_isolation` -- Kong's "isolate dependences": the isolation pairs
  turned into order pairs in the direction of the best ordering.

What "legal" means: an ordering is a sequence of all tasks; it is legal when
every data edge and order pair goes forward. An isolation pair is Kong's
disjunction "a before b or b before a", which every ordering meets, so
isolation pairs never change the legal count (in Kong's tables they pruned the
non-permutation points his sum-constrained space kept). They matter for the
costs: the makespan of an ordering respects them (partners never overlap),
and promotion fixes their direction.

References
----------
.. [1] M. Kong, "Polyhedral Network Aware Task Scheduling", 9th Annual
   Concurrent Collections Workshop (CnC'17), College Station, TX, 2017.
.. [2] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002. doi:10.1109/71.993206
.. [3] H. McSweeney, thesis continuation report (seed 002 of this project),
   sec. 4.2.2.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem, require_problem
from exactsched.schedule import Schedule

from ._ordering_cost import (
    BatchSchedule,
    network_costs,
    ordering_priority,
    pair_costs,
    require_delay_model,
    resolve_mapping,
)
from ._ordering_search import branch_and_bound, priority_ordering, tree_minimum
from ._ordering_space import (
    count_legal,
    isl_count,
    isl_orderings,
    isl_set,
    isl_text,
    iter_orderings,
    ordering_counts,
    semi_legal_count,
)

__all__ = [
    "OBJECTIVES",
    "BestOrdering",
    "best_ordering",
    "best_priority_list",
    "count_legal",
    "estimate_seconds",
    "isl_count",
    "isl_orderings",
    "isl_set",
    "isl_text",
    "iter_orderings",
    "ordering_costs",
    "ordering_counts",
    "ordering_schedule",
    "priority_list_gap",
    "promote_isolation",
    "resolve_mapping",
    "semi_legal_count",
]

OBJECTIVES = ("network", "makespan")
"""Costs of an ordering: Kong's network path cost, or the list schedule's makespan."""

# Throughput measured on the shared 2-core machine, in orderings x tasks per second, for
# the time estimate the CLI prints when it refuses to enumerate: enumeration with network
# costs, and the direct per-row makespan evaluator (the shared-prefix tree is often far
# faster, but not always: it gains only where partial schedules coincide).
_RATE = {"network": 1.0e7, "makespan": 1.5e5}


@dataclass(frozen=True)
class BestOrdering:
    """The best ordering of an instance for one objective.

    Attributes
    ----------
    order : tuple of str
        Task ids in order.
    indices : numpy.ndarray
        The same ordering as task indices.
    cost : float
        Its cost.
    objective : str
    count : int
        Orderings evaluated (all legal ones for enumeration; prefixes generated
        for the branch and bound).
    proven : bool
        Whether no legal ordering has a lower cost.
    lower_bound : float
    seconds : float
    ties : int
        Orderings of least cost (enumeration only; 0 otherwise).
    stopped : str or None
        Why an unproven search stopped: ``"time limit"`` or ``"memory"`` (the
        branch and bound's cap); None otherwise.

    Examples
    --------
    >>> from exactsched import Problem
    >>> p = Problem.from_lists([[2, 3], [3, 1], [1, 2]], [(0, 1, 4), (0, 2, 1)])
    >>> b = best_ordering(p, "makespan")
    >>> b.order, b.cost, b.proven, b.count, b.ties
    (('t0', 't1', 't2'), 5.0, True, 2, 1)
    >>> ordering_schedule(p, b.indices).makespan  # the schedule it stands for
    5
    """

    order: tuple[str, ...]
    indices: np.ndarray = field(repr=False)
    cost: float
    objective: str
    count: int
    proven: bool = True
    lower_bound: float = float("nan")
    seconds: float = 0.0
    ties: int = 0
    stopped: str | None = None


def _check_objective(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise MethodError(f"objective: must be 'network' or 'makespan', not {objective!r}")


def _mapping_or_none(problem: Problem, mapping: Any, objective: str) -> np.ndarray | None:
    if objective == "network":
        return resolve_mapping(problem, mapping)
    return None if mapping is None else resolve_mapping(problem, mapping)


def ordering_costs(
    problem: Problem,
    orderings: np.ndarray,
    objective: str = "network",
    *,
    mapping: Any = None,
    weight: str = "hops",
    insertion: bool = True,
) -> np.ndarray:
    """Cost of each of many legal orderings, all at once.

    Parameters
    ----------
    problem : Problem
    orderings : numpy.ndarray
        ``(rows, n)`` legal orderings (task indices), e.g. from :func:`iter_orderings`;
        entries that are booleans or not integral (1.9) are refused, not truncated.
    objective : {"network", "makespan"}
        ``"network"``: the sum of ``hops`` between the processors of
        consecutive tasks under ``mapping`` (``weight="data"``: each pair
        weighted by the per-hop delay of the arc between them, Kong's path
        cost). ``"makespan"``: the list schedule that places the tasks in this
        order, each on its least finish time processor (insertion-based EFT as
        in HEFT [2]_) or on ``mapping`` when given.
    mapping : Schedule, mapping, sequence or None
        See :func:`resolve_mapping`; required for ``"network"`` unless
        affinity pins every task.
    weight : {"hops", "data"}
    insertion : bool
        Insertion-based placement for the makespan.

    Returns
    -------
    numpy.ndarray
        ``(rows,)`` float costs.

    Raises
    ------
    MethodError
        On a row that is no legal ordering of task indices, a mapping that
        :func:`resolve_mapping` refuses, or a network cost that overflows the
        largest float (naming the path that overflows).

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> o = next(iter_orderings(p))
    >>> ordering_costs(p, o[:3], "makespan").tolist()
    [88.0, 80.0, 88.0]
    """
    problem = require_problem(problem, "ordering_costs")
    _check_objective(objective)
    o = _index_rows(problem, orderings)
    _check_legal(problem, o)
    m = _mapping_or_none(problem, mapping, objective)
    if objective == "network":
        pair = pair_costs(problem, m, weight)
        return _finite_network(problem, o, pair, network_costs(o, pair))
    batch = BatchSchedule(problem, len(o), insertion=insertion)
    for k in range(o.shape[1]):
        batch.step(o[:, k], None if m is None else m[o[:, k]])
    return batch.makespan()


def _finite_network(
    problem: Problem, orderings: np.ndarray, pair: np.ndarray, costs: np.ndarray
) -> np.ndarray:
    """``costs``, unless one overflowed: then refuse, naming the path that overflows.

    The loader refuses times that overflow, but network costs add hops alone: 1e308
    hops between three processors make every path cost inf, where no least cost can be
    told apart (an outside audit: an assertion in :func:`best_ordering`, and ``inf``
    reported as the best cost by the isl engine). The first overflowing row is named:
    the lexicographically first such ordering, in :func:`best_ordering` on either engine.
    """
    bad = np.flatnonzero(~np.isfinite(costs))
    if not len(bad):
        return costs
    row = np.asarray(orderings[int(bad[0])], dtype=np.int64)
    with np.errstate(over="ignore"):
        partial = np.cumsum(pair[row[:-1], row[1:]])
    k = int(np.flatnonzero(~np.isfinite(partial))[0]) + 1  # the path row[:k + 1] overflows
    ids = [repr(problem.task_ids[t]) for t in row[: k + 1].tolist()]
    path = " -> ".join(ids if len(ids) <= 6 else [*ids[:2], "...", *ids[-2:]])
    raise MethodError(
        f"network cost: the path {path} ({k} steps) costs more than the largest float "
        "(1.8e308); scale the hops or the data down"
    )


def _check_legal(problem: Problem, o: np.ndarray) -> None:
    """Refuse a row that is not a legal ordering: each task once, every arc forwards.

    A row of repeated or out-of-range tasks would otherwise be costed (or fail in
    numpy); one against an arc would get the cost of an order no schedule has.
    """
    n = problem.n_tasks
    if len(o) == 0:
        return
    if o.min() < 0 or o.max() >= n:
        raise MethodError(f"orderings: task indices must lie in 0..{n - 1}")
    pos = np.full(o.shape, -1, dtype=np.int64)
    rows = np.arange(len(o))[:, None]
    pos[rows, o] = np.arange(n)[None, :]
    if (pos < 0).any():
        row = int(np.flatnonzero((pos < 0).any(axis=1))[0])
        raise MethodError(f"orderings: row {row} does not hold each of the {n} tasks once")
    src, dst = problem.arc_src, problem.arc_dst
    if len(src):
        back = pos[:, src] > pos[:, dst]
        if back.any():
            row, arc = (int(v[0]) for v in np.nonzero(back))
            ids = problem.task_ids
            raise MethodError(
                f"orderings: row {row} puts task {ids[dst[arc]]!r} before its predecessor "
                f"{ids[src[arc]]!r} (not a legal ordering)"
            )


def ordering_schedule(
    problem: Problem, ordering: Any, *, mapping: Any = None, insertion: bool = True
) -> Schedule:
    """The list schedule of one legal ordering, built by :mod:`heuristics.eft`.

    Parameters
    ----------
    problem : Problem
    ordering : sequence of int or str
        Task indices or ids, in order; a boolean or non-integral index is refused.
    mapping : optional
        Fixed processors (:func:`resolve_mapping`); default least finish time.
    insertion : bool

    Returns
    -------
    Schedule
        Tasks placed in ``ordering``, each at its (insertion-based) earliest finish.

    Raises
    ------
    MethodError
        If the ordering is not a legal ordering of the instance (naming the
        task at fault, quoted), or holds an unknown id or a bad index.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> s = ordering_schedule(p, [0, 1, 2, 4, 3, 5, 6, 8, 7, 9])
    >>> s.makespan, exactsched.validate(p, s)
    (73, [])
    """
    problem = require_problem(problem, "ordering_schedule")
    from heuristics.eft import ScheduleBuilder, list_schedule

    o = _as_indices(problem, ordering)
    if mapping is None:
        return list_schedule(problem, ordering_priority(o), insertion=insertion)
    m = resolve_mapping(problem, mapping)
    builder = ScheduleBuilder(problem, insertion=insertion)
    for t in o.tolist():
        builder.place(t, int(m[t]))
    return builder.to_schedule()


def _task_index(problem: Problem, item: Any, what: str) -> int:
    """The task index ``item`` stands for: an id, or an integral index in range.

    ``int()`` would truncate 1.9 to 1 and read True as 1: an ordering that is not
    the one meant would be costed, so those are refused (an outside audit).
    """
    if isinstance(item, str):
        if item not in problem.task_index:
            raise MethodError(f"{what}: unknown task {item!r}")
        return problem.task_index[item]
    shown = item.item() if isinstance(item, np.generic) else item  # 1.5, not np.float64(1.5)
    if isinstance(item, bool | np.bool_) or not isinstance(
        item, int | np.integer | float | np.floating
    ):
        raise MethodError(f"{what}: {shown!r} is not a task index")
    if isinstance(item, float | np.floating) and not float(item).is_integer():
        raise MethodError(f"{what}: task index {shown!r} is not an integer")
    n = problem.n_tasks
    if not 0 <= item < n:
        raise MethodError(f"{what}: task index {shown!r} outside 0..{n - 1}")
    return int(item)


def _index_rows(problem: Problem, orderings: Any) -> np.ndarray:
    """``orderings`` as an ``(rows, n)`` ``int64`` array of task indices, or refuse it.

    Integer arrays pass as they are; anything else (bool, float and object
    arrays, nested lists) is read entry by entry with :func:`_task_index`.
    """
    n = problem.n_tasks
    if isinstance(orderings, np.ndarray) and orderings.dtype.kind in "iu":
        o = orderings.astype(np.int64, copy=False)
    else:
        try:
            # dtype=object keeps True and 1.9 as they are; a plain asarray makes them 1.
            o = np.array(orderings, dtype=object)
        except ValueError:
            raise MethodError(f"orderings: ragged rows, expected (rows, {n})") from None
    if o.ndim != 2 or o.shape[1] != n:
        raise MethodError(f"orderings: shape {o.shape}, expected (rows, {n})")
    if o.dtype == object:
        out = np.empty(o.shape, dtype=np.int64)
        for (r, k), item in np.ndenumerate(o):
            if isinstance(item, str):  # rows of indices here, not of ids
                raise MethodError(f"orderings: {item!r} is not a task index")
            out[r, k] = _task_index(problem, item, "orderings")
        o = out
    return o


def _as_indices(problem: Problem, ordering: Any) -> np.ndarray:
    """Task indices of an ordering given by ids or indices; checks that it is legal."""
    n = problem.n_tasks
    o = np.array([_task_index(problem, t, "ordering") for t in ordering], dtype=np.int64)
    if sorted(o.tolist()) != list(range(n)):
        raise MethodError(f"ordering: must hold each of the {n} tasks once")
    pos = np.empty(n, dtype=np.int64)
    pos[o] = np.arange(n)
    bad = np.flatnonzero(pos[problem.arc_src] > pos[problem.arc_dst])
    if len(bad):
        a = int(bad[0])
        ids = problem.task_ids
        # Quoted as ordering_costs does: an empty or spaced id stays visible.
        raise MethodError(
            f"ordering: {ids[problem.arc_dst[a]]!r} comes before its predecessor "
            f"{ids[problem.arc_src[a]]!r}"
        )
    return o


def estimate_seconds(count: int, n_tasks: int, objective: str = "network") -> float:
    """Rough upper estimate of the time to enumerate and cost ``count`` orderings.

    Examples
    --------
    >>> estimate_seconds(0, 10)
    0.0
    """
    _check_objective(objective)
    return count * max(n_tasks, 1) / _RATE[objective]


def best_ordering(
    problem: Problem,
    objective: str = "network",
    *,
    mapping: Any = None,
    weight: str = "hops",
    insertion: bool = True,
    chunk: int = 1 << 15,
    limit: int | None = None,
    engine: str = "dp",
) -> BestOrdering:
    """Lexicographic minimum of (cost, ordering) over every legal ordering.

    Network cost: streams :func:`iter_orderings` block by block (memory
    ``O(n^2 * chunk)``), costs each block with :func:`network_costs`, and keeps
    the first least cost. Makespan: the same lexicographic enumeration as a
    tree of prefixes whose partial schedules are built once and shared by their
    children, prefixes with equal partial schedules merged (see
    :func:`models._ordering_search.tree_minimum`); tests check it against
    :func:`ordering_costs` on every ordering. Blocks come in lexicographic
    order, so ties go to the lexicographically smallest ordering (by task
    index), as isl's ``lexmin`` of Kong's ``(cost, t1, ..., tn)`` would.

    Parameters
    ----------
    problem : Problem
    objective, mapping, weight, insertion
        As :func:`ordering_costs`.
    chunk : int
        Orderings per block.
    limit : int, optional
        Refuse (MethodError, with the count) when more orderings are legal.
    engine : {"dp", "isl"}
        ``"dp"`` (default): the enumeration above. ``"isl"``: the points of the
        position-encoded isl set (:func:`isl_set`, :func:`isl_orderings`),
        sorted and costed by :func:`ordering_costs`: every ordering in memory
        and orders of magnitude slower; a cross-check of the enumeration.

    Returns
    -------
    BestOrdering

    Raises
    ------
    MethodError
        Over ``limit``; or, on either engine, when a network cost overflows the
        largest float (no least cost could be told apart), naming the path of
        the lexicographically first ordering that overflows.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> b = best_ordering(p, "makespan")
    >>> b.cost, b.order, b.ties
    (73.0, ('n1', 'n2', 'n3', 'n5', 'n4', 'n6', 'n7', 'n9', 'n8', 'n10'), 24)
    """
    _check_objective(objective)
    if engine not in ("dp", "isl"):
        raise MethodError(f"engine: unknown {engine!r} (dp or isl)")
    if objective == "makespan":
        require_delay_model(problem)  # before counting against the limit
    t0 = time.perf_counter()
    if limit is not None:
        count = count_legal(problem, engine=engine)
        if count > limit:
            raise MethodError(
                f"orderings: {count} legal orderings, over the limit {limit} (about "
                f"{estimate_seconds(count, problem.n_tasks, objective):.3g} s to enumerate)"
            )
    m = _mapping_or_none(problem, mapping, objective)
    pair = pair_costs(problem, m, weight) if objective == "network" else None
    key = cost_key(problem, pair)
    if engine == "isl":
        rows = isl_orderings(isl_set(problem))  # lexicographic order, like the enumeration
        costs = np.concatenate(
            [
                ordering_costs(
                    problem, rows[k : k + chunk], objective, mapping=m, weight=weight,
                    insertion=insertion,
                )
                for k in range(0, len(rows), chunk)
            ]
        )  # fmt: skip
        keys = key(costs)
        at = int(np.argmin(keys))
        best_cost, best_row = float(costs[at]), rows[at]
        ties, total = int((keys == keys[at]).sum()), len(rows)
    elif objective == "makespan":
        # Shared prefixes and merged equal partial schedules: every ordering is costed,
        # orders of magnitude faster than scheduling each one from scratch.
        best_cost, best_row, ties, total = tree_minimum(
            problem, mapping=m, insertion=insertion, chunk=max(1, chunk // 4), key=key
        )
    else:
        assert pair is not None
        best_key, best_cost, best_row, ties, total = np.inf, np.inf, None, 0, 0
        for block in iter_orderings(problem, chunk=chunk):
            costs = _finite_network(problem, block, pair, network_costs(block, pair))
            keys = key(costs)
            total += len(block)
            low = float(keys.min())
            if low < best_key:
                at = int(np.argmin(keys))
                best_key, best_cost, best_row, ties = low, float(costs[at]), block[at].copy(), 0
            if low == best_key:
                ties += int((keys == low).sum())
    assert best_row is not None  # every DAG has a legal ordering
    best_cost = _reported_cost(best_cost, cost_resolution(problem, pair))
    return BestOrdering(
        order=tuple(problem.task_ids[t] for t in best_row.tolist()),
        indices=best_row.astype(np.int64),
        cost=best_cost,
        objective=objective,
        count=total,
        proven=True,
        lower_bound=best_cost,
        seconds=time.perf_counter() - t0,
        ties=ties,
    )


def best_priority_list(
    problem: Problem,
    *,
    mapping: Any = None,
    insertion: bool = True,
    time_limit: float | None = 60.0,
    lower_bound: float | None = None,
    exact_time_limit: float | None = None,
    stop_at_bound: bool = True,
) -> BestOrdering:
    """The best priority list of the EFT list scheduler, by branch and bound over prefixes.

    The least makespan over all legal orderings of the list schedule that
    places tasks in that order (:func:`ordering_costs` with ``"makespan"``),
    found without enumerating: prefixes are pruned by lower bounds and
    duplicate partial schedules (see :mod:`models._ordering_search`). The
    first incumbent is HEFT's rank order.

    Parameters
    ----------
    problem : Problem
    mapping : optional
        Fixed processors; default least finish time (insertion EFT).
    insertion : bool
    time_limit : float or None
        Seconds; past it the best list found is returned with ``proven=False``.
    lower_bound : float, optional
        A known lower bound of every schedule, e.g. a proven CP-SAT optimum;
        default :func:`exactsched.lower_bound`. Reaching it ends the search.
    exact_time_limit : float, optional
        First run CP-SAT (two workers, seed 0) for this many seconds and use
        its proven lower bound: no priority list beats the optimum, so a list
        that reaches it is proven best at once. ``seconds`` includes this run.
    stop_at_bound : bool
        False: run to the end and return the lexicographically smallest best
        list (what :func:`best_ordering` returns; on integer and decimal data
        exactly, as both compare on the grid; on float data off a grid, a best
        list of the same cost, as a rounding in a prefix bound can prune a tie).

    Returns
    -------
    BestOrdering
        ``count`` is the number of prefixes generated.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> b = best_priority_list(p)
    >>> b.cost, b.proven
    (73.0, True)
    """
    problem = require_problem(problem, "best_priority_list")
    require_delay_model(problem)  # before the CP-SAT run that would be wasted
    m = None if mapping is None else resolve_mapping(problem, mapping)
    t0 = time.perf_counter()
    if exact_time_limit is not None and exact_time_limit > 0:
        import exactsched

        exact = exactsched.solve(problem, "cpsat", time_limit=exact_time_limit, workers=2, seed=0)
        bound = float(exact.lower_bound)
        lower_bound = bound if lower_bound is None else max(lower_bound, bound)
        if time_limit is not None:
            time_limit = max(0.0, time_limit - (time.perf_counter() - t0))
    r = branch_and_bound(
        problem,
        mapping=m,
        insertion=insertion,
        time_limit=time_limit,
        lower_bound=lower_bound,
        stop_at_bound=stop_at_bound,
        resolution=cost_resolution(problem),
    )
    return BestOrdering(
        order=tuple(problem.task_ids[t] for t in r.ordering.tolist()),
        indices=r.ordering,
        cost=r.makespan,
        objective="makespan",
        count=r.nodes,
        proven=r.proven,
        lower_bound=r.lower_bound,
        seconds=time.perf_counter() - t0,
        stopped=r.stopped,
    )


def priority_list_gap(
    problem: Problem, *, time_limit: float = 60.0, workers: int | None = None, seed: int = 0
) -> dict[str, Any]:
    """HEFT vs. the best priority list vs. the CP-SAT optimum.

    ``heft - best_list`` is the part of HEFT's gap due to its rank order
    (prioritisation); ``best_list - optimum`` the part no priority list can
    remove with least finish time processor selection.

    Parameters
    ----------
    problem : Problem
    time_limit : float
        Seconds for each of the two searches (the best list, CP-SAT).
    workers : int, optional
        CP-SAT threads.
    seed : int

    Returns
    -------
    dict
        ``heft``, ``heft_order`` (task ids), ``best_list``, ``best_list_order``,
        ``best_list_proven``, ``optimum``, ``optimum_proven``, ``lower_bound``.

    Examples
    --------
    >>> import exactsched
    >>> g = priority_list_gap(exactsched.load_instance("examples/topcuoglu2002.json"),
    ...                       time_limit=30, workers=1)
    >>> g["heft"], g["best_list"], g["optimum"], g["optimum_proven"]
    (80.0, 73.0, 73.0, True)
    """
    problem = require_problem(problem, "priority_list_gap")
    import exactsched
    from heuristics.heft import heft_priority

    exact = exactsched.solve(problem, "cpsat", time_limit=time_limit, workers=workers, seed=seed)
    proven = exact.status == exactsched.Status.OPTIMAL
    heft_order = priority_ordering(problem, heft_priority(problem))
    heft = float(ordering_costs(problem, heft_order[None, :], "makespan")[0])
    best = best_priority_list(
        problem, time_limit=time_limit, lower_bound=exact.lower_bound if proven else None
    )
    return {
        "heft": heft,
        "heft_order": [problem.task_ids[t] for t in heft_order.tolist()],
        "best_list": best.cost,
        "best_list_order": list(best.order),
        "best_list_proven": best.proven,
        "optimum": float(exact.makespan),
        "optimum_proven": proven,
        "lower_bound": float(exact.lower_bound),
    }


def cost_key(
    problem: Problem, pair: np.ndarray | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """What orderings' costs are compared by: the costs, or their grid units.

    On decimal data, a cost is read as the grid value it stands for
    (``rint(cost * 10**places)``), so that two orderings whose exact costs are
    equal tie even when their float sums differ by a rounding (tasks of 0.1,
    0.2 and 0.3 in any order cost 0.6 or 0.6000000000000001). The grid is the
    data's (:func:`models._grid.data_grid`) for makespans, that of the pair
    costs ``pair`` (the values a network cost adds up) for network costs, and
    only where the floats hold it (their rounding stays far below half a step).
    Integer data below 2**53 are exact already, and data off a grid are
    compared as they are.

    Examples
    --------
    >>> p = Problem.from_lists([0.1, 0.2, 0.3], n_processors=1)
    >>> cost_key(p)(np.array([0.6, 0.6000000000000001])).tolist()
    [6.0, 6.0]
    """
    resolution = cost_resolution(problem, pair)
    if resolution is None:
        return lambda costs: costs
    return lambda costs: np.rint(np.asarray(costs, dtype=float) * resolution)


def cost_resolution(problem: Problem, pair: np.ndarray | None = None) -> float | None:
    """Grid units per unit of cost (``10**places``) where :func:`cost_key` uses a grid.

    Examples
    --------
    >>> cost_resolution(Problem.from_lists([0.1, 0.25], n_processors=1))
    100.0
    >>> cost_resolution(Problem.from_lists([1, 2], n_processors=1)) is None
    True
    """
    if pair is not None:
        return _pair_resolution(pair, problem.n_tasks)
    from models._grid import data_grid

    grid = data_grid(problem)
    return float(grid.resolution) if grid.kind == "decimal" and grid.held else None


def _reported_cost(cost: float, resolution: float | None) -> float:
    """A least cost as the grid value it stands for (0.3, not 0.30000000000000004)."""
    if resolution is None or not np.isfinite(cost):
        return cost
    return float(np.rint(cost * resolution)) / resolution


def _pair_resolution(pair: np.ndarray, n: int) -> float | None:
    """``10**places`` of the decimal pair costs, if their sums stay held; else None.

    None on integers (exact already), on values that are no short decimal
    (``0.1 * 3`` is ``0.30000000000000004``), and when ``n`` additions of the
    largest value could round by a quarter step.
    """
    from decimal import Decimal

    from models._grid import _places

    values = np.unique(pair[np.isfinite(pair)])
    places = [_places(Decimal(repr(float(v)))) for v in values.tolist()]
    if any(p is None for p in places) or not any(places):
        return None
    resolution = 10.0 ** max(p for p in places if p is not None)
    total = n * float(np.abs(values).max(initial=0.0)) * resolution
    return resolution if total * (4 * n + 2) < 2.0**50 else None


def promote_isolation(problem: Problem, ordering: Any) -> dict[str, Any]:
    """Kong's "isolate dependences": turn every isolation pair into an order pair.

    Each pair ``{a, b}`` becomes the order pair ``[a, b]`` when ``a`` comes
    first, else ``[b, a]``, and the isolation list is removed. "First" is the
    position in a legal ordering (Kong's orderings are execution paths), or,
    given a schedule, the earlier start (ties: earlier finish, then the position
    in a topological order): a list schedule may run a task before one listed
    ahead of it, and directing the pairs by time keeps that schedule valid for
    the new instance, except where a zero-length task lies strictly inside its
    partner's interval (isolation allows it, as an empty interval overlaps
    nothing, but no order pair does: either direction then rejects that
    schedule). That order respects every arc (a zero-cost task and its
    zero-cost successor can share start and finish; the task index once directed
    such a pair against their arc and wrote a cyclic instance), so the pairs
    added never close a cycle. The result
    is an instance document (the input's, with those changes) that any method
    can solve: every schedule of it is a schedule of the original instance.

    Parameters
    ----------
    problem : Problem
    ordering : sequence of int or str, or Schedule
        A legal ordering (task indices or ids), or a valid schedule.

    Returns
    -------
    dict
        An ``exactsched/instance@1`` document.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=2, isolation=[(2, 1)])
    >>> promote_isolation(p, [0, 1, 2])["order"]
    [['t1', 't2']]
    """
    problem = require_problem(problem, "promote_isolation")
    n = problem.n_tasks
    if isinstance(ordering, Schedule):
        _, start, finish = ordering.arrays(problem)
        topo = np.empty(n, dtype=np.int64)
        topo[problem.topological_order] = np.arange(n)
        o = np.lexsort((topo, finish, start))
    else:
        o = _as_indices(problem, ordering)
    pos = np.empty(n, dtype=np.int64)
    pos[o] = np.arange(n)
    ids = problem.task_ids
    doc = problem.to_json()
    order = [list(pair) for pair in doc.get("order", [])]
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        first, second = (a, b) if pos[a] < pos[b] else (b, a)
        pair = [ids[first], ids[second]]
        if pair not in order:
            order.append(pair)
    doc.pop("isolation", None)
    if order:
        doc["order"] = order
    if doc.get("name"):
        doc["name"] = f"{doc['name']} (isolation promoted)"
    return doc
