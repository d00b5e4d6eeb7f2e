"""HBMCT: rank groups of independent tasks, each scheduled by a group policy.

Contract
--------
``hbmct(problem, *, group_policy="bmct", ranking="mean", insertion=True) ->
Schedule`` implements the Hybrid Balanced Minimum Completion Time heuristic of
Sakellariou and Zhao [1]_, as described in sec. 2.3.6 and 4.7 of McSweeney's
report [2]_:

1. rank the tasks by upward rank (``ranking``, default HEFT's mean weights) and
   list them in non-increasing rank order (a topological order, see
   :func:`priority_order`);
2. cut the list into *rank groups* (:func:`rank_groups`): walk down the list
   and start a new group whenever a task has a predecessor in the current
   group, so each group is a set of independent tasks and every task of a
   group has a higher rank than every task of the later groups;
3. schedule the groups in order, each with an independent-task policy
   (:func:`schedule_group`): ``"bmct"`` (Balanced Minimum Completion Time, the
   paper's), ``"met"``, ``"min-min"``, ``"max-min"`` (report sec. 4.7) or
   ``"eft"`` (HEFT's rule task by task, which makes HBMCT plain HEFT).
   ``initial="eft"`` starts BMCT from HEFT's assignment instead of MET's
   (report sec. 4.7).

The helpers are public because PETS and levelized HEFT
(:mod:`heuristics.pets`) reuse them to schedule their levels.

Generalisation to the networked model (the paper is silent on all of it):

* every time is the engine's (:class:`heuristics.eft.ScheduleBuilder`):
  multi-hop communication ``arc_unit * hops[p, q]``, insertion, and placed
  isolation partners blocking their interval on every processor;
* order pairs are precedence arcs: they cut groups like data edges do;
* affinity: a task is only ever tried on its allowed processors;
* single-port and contention: messages to one processor's tasks may wait for
  messages to another's on shared ports and links, so a candidate move is
  judged on the whole group realised again (as with isolation pairs inside a
  group), never on the two lanes it changes;
* BMCT never un-places a task: a candidate assignment of the group is
  *realised* on a copy of the builder taken before the group, so every
  schedule it looks at, and the one it keeps, satisfies every rule;
* processor types: MET's "fastest processor" is ambiguous when several
  processors share the least cost (two-type CPU-GPU nodes always do);
  McSweeney picked one at random [2]_ (sec. 4.7), we take the one with the
  least finish time given the group tasks already assigned (then the lowest
  index), which is deterministic.

Complexity: grouping is ``O(n + e)``; ``met``/``eft`` are HEFT's cost;
``min-min``/``max-min`` recompute the finish times of the group's remaining
tasks after every placement, ``O(g^2 P)`` engine queries for a group of ``g``
tasks; ``bmct`` realises ``O(g P)`` candidate assignments per move (each
``O(g)`` placements, only two processors' tasks when the group has no
isolation pair inside, on a copy of the partial schedule), a move strictly
decreasing the sorted vector of processor finish times, so it terminates.
The processor finish times are kept across groups, and a group of one task
(every group of a chain) is balanced from one engine query without copying
anything, so a chain costs ``O(n log n + e P)`` like HEFT (20,000 tasks in
3.8 s, 50,000 in 11 s, ``benchmarks/hbmct_chain.py``; it was quadratic).

References
----------
.. [1] R. Sakellariou, H. Zhao, "A hybrid heuristic for DAG scheduling on
   heterogeneous systems", 13th Heterogeneous Computing Workshop (IPDPS
   2004), doi:10.1109/IPDPS.2004.1303065
.. [2] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", continuation report, University of
   Manchester, 2019, sec. 2.3.6 and 4.7.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Annotated

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, register
from exactsched.schedule import Schedule
from heuristics.eft import ScheduleBuilder
from heuristics.ranking import Weighting, upward_rank

__all__ = ["GROUP_POLICIES", "priority_order", "rank_groups", "schedule_group", "hbmct"]

GROUP_POLICIES: tuple[str, ...] = ("bmct", "met", "min-min", "max-min", "eft")
_INITIAL = ("met", "eft")

GroupPolicy = Annotated[str, OneOf(GROUP_POLICIES)]
"""Annotation of a group ``policy`` option: one of :data:`GROUP_POLICIES`."""


def priority_order(problem: Problem, priority: Sequence[float] | np.ndarray) -> np.ndarray:
    """The order in which a ready-list scheduler takes the tasks for ``priority``.

    Repeatedly the ready task (all predecessors taken) of highest priority,
    ties to the lowest index. When ``priority`` already respects precedence
    (as ``rank_u`` does with positive weights) this is the list sorted by
    non-increasing priority; otherwise it is still a topological order.

    Parameters
    ----------
    problem : Problem
    priority : array_like
        ``(n,)`` priorities, larger first.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` task indices.

    Raises
    ------
    MethodError
        If ``priority`` has the wrong shape or contains nan.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=1)
    >>> priority_order(p, [0.0, 5.0, 1.0]).tolist()
    [2, 0, 1]
    """
    prio = np.asarray(priority, dtype=float)
    n = problem.n_tasks
    if prio.shape != (n,):
        raise MethodError(f"priority: shape {prio.shape}, expected ({n},)")
    if np.isnan(prio).any():
        raise MethodError("priority: contains nan")
    neg = (-prio).tolist()
    remaining = np.diff(problem.pred_ptr).tolist()
    succ_ptr = problem.succ_ptr.tolist()
    succ = problem.arc_dst[problem.succ_arcs].tolist()
    heap = [(neg[i], i) for i in range(n) if remaining[i] == 0]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        i = heapq.heappop(heap)[1]
        order.append(i)
        for j in succ[succ_ptr[i] : succ_ptr[i + 1]]:
            remaining[j] -= 1
            if remaining[j] == 0:
                heapq.heappush(heap, (neg[j], j))
    return np.array(order, dtype=np.int64)


def rank_groups(problem: Problem, order: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """Cut a topological priority list into groups of independent tasks.

    Walking down ``order``, a task joins the current group unless one of its
    predecessors (data edge or order pair) is in it, in which case it opens a
    new group [1]_.

    Parameters
    ----------
    problem : Problem
    order : array_like
        A topological order of all tasks, highest priority first.

    Returns
    -------
    list of numpy.ndarray
        The groups, in order; each lists its tasks in priority order.

    Examples
    --------
    >>> p = Problem.from_lists([1] * 4, [(0, 1), (0, 2), (1, 3)], n_processors=1)
    >>> [g.tolist() for g in rank_groups(p, [0, 1, 2, 3])]
    [[0], [1, 2], [3]]

    References
    ----------
    .. [1] Sakellariou, Zhao, IPDPS 2004, sec. 3.
    """
    group_of = np.full(problem.n_tasks, -1, dtype=np.int64)
    groups: list[list[int]] = []
    current = -1
    for i in np.asarray(order, dtype=np.int64).tolist():
        preds = problem.predecessors(i)
        if current < 0 or (len(preds) and (group_of[preds] == current).any()):
            groups.append([])
            current += 1
        groups[current].append(i)
        group_of[i] = current
    return [np.array(g, dtype=np.int64) for g in groups]


def schedule_group(
    builder: ScheduleBuilder,
    tasks: Sequence[int] | np.ndarray,
    policy: str = "bmct",
    *,
    initial: str = "met",
) -> ScheduleBuilder:
    """Place a group of independent, ready tasks with an independent-task policy.

    Parameters
    ----------
    builder : ScheduleBuilder
        Partial schedule in which every predecessor of every task of the group
        is placed. The policies place into it and return it, except ``"bmct"``
        on two or more tasks, which leaves it untouched and returns a new
        builder: always continue with the returned one.
    tasks : array_like
        The group, highest priority first (ties in every policy go to the
        earlier task here, then to the lowest processor index).
    policy : str
        One of :data:`GROUP_POLICIES`:

        * ``"eft"``: each task in turn on its least-finish-time processor;
        * ``"met"``: each task in turn on its fastest allowed processor (ties:
          least finish time);
        * ``"min-min"`` / ``"max-min"``: repeatedly place the task whose least
          finish time over the processors is smallest / largest, there [2]_;
        * ``"bmct"``: MET, then move tasks off the processor that finishes last
          while that lowers it [1]_ (see Notes).
    initial : {"met", "eft"}
        BMCT's starting assignment: MET (the paper's, default) or each task in
        turn on its least-finish-time processor, the alternative McSweeney
        tried (report sec. 4.7). Ignored by the other policies.

    Returns
    -------
    ScheduleBuilder
        A builder with the whole group placed.

    Raises
    ------
    MethodError
        For an unknown policy or starting assignment.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [2, 3]], n_processors=2)
    >>> b = schedule_group(ScheduleBuilder(p), [0, 1, 2], "met")
    >>> b.proc.tolist(), b.makespan
    ([0, 0, 0], 6.0)
    >>> b = schedule_group(ScheduleBuilder(p), [0, 1, 2], "bmct")
    >>> b.proc.tolist(), b.makespan
    ([1, 0, 0], 4.0)

    Notes
    -----
    BMCT [1]_ as implemented here. Let ``EST(t, q)`` be the earliest start of
    ``t`` on ``q`` in the builder before the group. An *assignment* maps each
    group task to an allowed processor; it is realised on a copy of that
    builder by placing the tasks in non-decreasing ``EST`` on their processor
    (ties: priority order), each at its earliest start, so insertion,
    communication and isolation stay exact. ``FT(q)`` is the latest finish on
    ``q`` after realisation. Start from MET; then repeatedly take the
    processor ``M`` with the largest ``FT`` (lowest index on ties) and its
    group tasks in non-decreasing mean ``EST``; for the first task that can
    move, move it to the processor ``M'`` with the least new ``FT(M')``
    among those with ``FT(M') < FT(M)`` whose move also lowers the vector of
    finish times sorted in non-increasing order (lexicographically). Without
    isolation pairs inside the group that second test is the paper's
    requirement that removing the task lowers ``FT(M)``; it guarantees
    termination in every case. Stop when no task of ``M`` can move.

    References
    ----------
    .. [1] Sakellariou, Zhao, IPDPS 2004, sec. 3 (BMCT).
    .. [2] T. D. Braun et al., "A comparison of eleven static heuristics for
       mapping a class of independent tasks onto heterogeneous distributed
       computing systems", JPDC 61(6), 810-837, 2001.
    """
    return _schedule_group(builder, tasks, policy, initial, None)


def _schedule_group(
    builder: ScheduleBuilder,
    tasks: Sequence[int] | np.ndarray,
    policy: str,
    initial: str,
    ft: np.ndarray | None,
) -> ScheduleBuilder:
    """:func:`schedule_group`; ``ft`` is the builder's ``(P,)`` latest finish per processor.

    ``ft`` (None: computed, ``O(n)``) lets :func:`hbmct` keep it across groups,
    so that a group costs ``O(g)`` engine work plus its moves, not ``O(n)``.
    """
    group = np.asarray(tasks, dtype=np.int64)
    if policy not in GROUP_POLICIES:
        raise MethodError(
            f"group_policy: unknown policy {policy!r}; known: {', '.join(GROUP_POLICIES)}"
        )
    if initial not in _INITIAL:
        raise MethodError(f"initial: must be one of {', '.join(_INITIAL)}, not {initial!r}")
    if len(group) == 0:
        return builder
    if policy == "eft":
        for t in group.tolist():
            est, fin = builder.eft(t)
            p = int(fin.argmin())
            builder.place(t, p, start=float(est[p]))
        return builder
    if policy == "met":
        for t in group.tolist():
            p = _met_processor(builder, t)
            builder.place(t, p)
        return builder
    if policy in ("min-min", "max-min"):
        return _min_min(builder, group, largest=policy == "max-min")
    if ft is None:
        ft = _finish_per_processor(builder)
    if len(group) == 1:
        return _bmct_one(builder, int(group[0]), initial, ft)
    return _bmct(builder, group, initial, ft)


def _met_processor(builder: ScheduleBuilder, task: int) -> int:
    """Fastest allowed processor of ``task``; ties: least finish time, then lowest index."""
    cost = builder.problem.cost[task]
    fastest = np.flatnonzero(cost == cost.min())
    if len(fastest) == 1:
        return int(fastest[0])
    fin = builder.eft(task)[1]
    return int(fastest[np.argmin(fin[fastest])])


def _min_min(builder: ScheduleBuilder, group: np.ndarray, *, largest: bool) -> ScheduleBuilder:
    remaining = group.tolist()
    while remaining:
        # Recomputed after each placement: isolation can move any processor's times.
        fin = np.array([builder.eft(t)[1] for t in remaining])
        best = fin.min(axis=1)
        k = int(best.argmax() if largest else best.argmin())
        t = remaining.pop(k)
        est, _ = builder.eft(t)
        p = int(fin[k].argmin())
        builder.place(t, p, start=float(est[p]))
    return builder


def _finish_per_processor(builder: ScheduleBuilder) -> np.ndarray:
    """``(P,)`` latest finish of the placed tasks on each processor (0 if none)."""
    ft = np.zeros(builder.problem.n_processors)
    placed = builder.proc >= 0
    np.maximum.at(ft, builder.proc[placed], builder.finish[placed])
    return ft


def _lex_less(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` sorted non-increasingly is lexicographically below ``b`` sorted so."""
    sa, sb = np.sort(a)[::-1], np.sort(b)[::-1]
    diff = np.flatnonzero(sa != sb)
    return bool(len(diff) and sa[diff[0]] < sb[diff[0]])


def _bmct_one(
    base: ScheduleBuilder, task: int, initial: str, ft_base: np.ndarray
) -> ScheduleBuilder:
    """BMCT on a group of one task, placed into ``base`` (the chains' case).

    The same moves as :func:`_bmct`, read off one :meth:`ScheduleBuilder.eft`
    call: on ``q`` the task finishes at ``fin[q]``, so realising an assignment
    is ``max(ft_base[q], fin[q])``, with no copy of the builder.
    """
    est, fin = base.eft(task)
    if initial == "met":  # as _met_processor, reusing ``fin``
        cost = base.problem.cost[task]
        fastest = np.flatnonzero(cost == cost.min())
        where = int(fastest[np.argmin(fin[fastest])])
    else:
        where = int(fin.argmin())
    ft = ft_base.copy()
    ft[where] = max(ft[where], fin[where])
    allowed = np.flatnonzero(base.problem.allowed[task]).tolist()
    while True:
        worst = int(ft.argmax())
        # Only a task on the processor that finishes last may move, and only if
        # leaving it lowers that processor's finish.
        if where != worst or not ft_base[worst] < ft[worst]:
            break
        best_ft, best = np.inf, None
        for q in allowed:
            if q == worst:
                continue
            new = ft.copy()
            new[worst] = ft_base[worst]
            new[q] = max(ft_base[q], fin[q])
            if new[q] < ft[worst] and new[q] < best_ft and _lex_less(new, ft):
                best_ft, best = new[q], (q, new)
        if best is None:
            break
        where, ft = best
    base.place(task, where, start=float(est[where]))
    ft_base[where] = max(ft_base[where], fin[where])
    return base


def _group_finish(ft_base: np.ndarray, state: ScheduleBuilder, group: np.ndarray) -> np.ndarray:
    """``(P,)`` latest finish per processor after placing (part of) ``group`` into a copy."""
    ft = ft_base.copy()
    placed = group[state.proc[group] >= 0]
    np.maximum.at(ft, state.proc[placed], state.finish[placed])
    return ft


def _mean_allowed(table: np.ndarray) -> np.ndarray:
    """Row means of the finite entries (divided first if the sum would overflow)."""
    finite = np.isfinite(table)
    values = np.where(finite, table, 0.0)
    count = finite.sum(axis=1)
    with np.errstate(over="ignore"):
        mean = values.sum(axis=1) / count
    if not np.isfinite(mean).all():
        mean = (values / count[:, None]).sum(axis=1)
    return mean


def _bmct(
    base: ScheduleBuilder, group: np.ndarray, initial: str, ft_base: np.ndarray
) -> ScheduleBuilder:
    problem = base.problem
    g = len(group)
    est_tab = np.array([base.eft(t)[0] for t in group.tolist()])  # (g, P), inf off-affinity
    mean_est = _mean_allowed(est_tab)
    in_group = set(group.tolist())
    # Lanes are independent unless isolation pairs join tasks of the group, or
    # messages of one lane wait for another's on shared ports or links.
    coupled = problem.communication != "delay" or any(
        q in in_group for t in group.tolist() for q in problem.isolation_partners(t).tolist()
    )

    def realise(assign: np.ndarray, rows: np.ndarray | None = None) -> ScheduleBuilder:
        b = base.copy()
        ks = np.arange(g) if rows is None else rows
        for k in ks[np.lexsort((ks, est_tab[ks, assign[ks]]))].tolist():
            b.place(int(group[k]), int(assign[k]))
        return b

    # MET (ties: least finish time given the tasks assigned so far), or EFT.
    assign = np.empty(g, dtype=np.int64)
    trial = base.copy()
    for k, t in enumerate(group.tolist()):
        if initial == "met":
            assign[k] = _met_processor(trial, t)
        else:
            assign[k] = int(trial.eft(t)[1].argmin())
        trial.place(t, int(assign[k]))
    state = realise(assign)
    ft = _group_finish(ft_base, state, group)
    examine = np.lexsort((np.arange(g), mean_est))  # non-decreasing mean EST
    while True:
        worst = int(ft.argmax())
        moved = False
        for k in examine[assign[examine] == worst].tolist():
            t = int(group[k])
            best_ft, best = np.inf, None
            if not coupled:
                # Processors are independent: only the lanes of M and M' change.
                rest = np.flatnonzero(assign == worst)
                rest = rest[rest != k]
                ft_m = _group_finish(ft_base, realise(assign, rest), group)[worst]
                if not ft_m < ft[worst]:
                    continue
            for q in np.flatnonzero(problem.allowed[t]).tolist():
                if q == worst:
                    continue
                cand = assign.copy()
                cand[k] = q
                if coupled:
                    new = _group_finish(ft_base, realise(cand), group)
                else:
                    lane = np.flatnonzero(cand == q)
                    new = ft.copy()
                    new[worst] = ft_m
                    new[q] = _group_finish(ft_base, realise(cand, lane), group)[q]
                if new[q] < ft[worst] and new[q] < best_ft and _lex_less(new, ft):
                    best_ft, best = new[q], (q, cand)
            if best is not None:
                assign = best[1]
                state = realise(assign)
                ft = _group_finish(ft_base, state, group)
                moved = True
                break
        if not moved:
            ft_base[:] = ft
            return state


@register(
    "hbmct",
    kind="heuristic",
    description="Hybrid BMCT: upward-rank groups of independent tasks, each balanced by BMCT",
    source="Sakellariou and Zhao, 13th Heterogeneous Computing Workshop (IPDPS), 2004",
)
def hbmct(
    problem: Problem,
    *,
    group_policy: GroupPolicy = "bmct",
    initial: Annotated[str, OneOf(_INITIAL)] = "met",
    ranking: Weighting = "mean",
    insertion: bool = True,
) -> Schedule:
    """Schedule rank groups of independent tasks, each with an independent-task policy.

    Parameters
    ----------
    problem : Problem
    group_policy : str
        One of :data:`GROUP_POLICIES` (default ``"bmct"``, the paper's).
    initial : {"met", "eft"}
        BMCT's starting assignment (see :func:`schedule_group`); default
        ``"met"``, the paper's.
    ranking : str
        Weighting of the upward rank (see :data:`heuristics.ranking.WEIGHTINGS`);
        default ``"mean"`` as in the paper; McSweeney also tried ``"nc"``.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown group policy, starting assignment or weighting.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = hbmct(p)
    >>> s.makespan, validate(p, s)
    (76, [])
    >>> hbmct(p, group_policy="eft").makespan  # one task at a time: HEFT
    80

    Notes
    -----
    See the module docstring for the algorithm, its generalisation and its
    cost, and :func:`schedule_group` for BMCT.

    References
    ----------
    .. [1] Sakellariou, Zhao, IPDPS 2004.
    .. [2] McSweeney, continuation report, 2019, sec. 2.3.6 and 4.7.
    """
    if group_policy not in GROUP_POLICIES:
        raise MethodError(
            f"group_policy: unknown policy {group_policy!r}; known: {', '.join(GROUP_POLICIES)}"
        )
    if initial not in _INITIAL:
        raise MethodError(f"initial: must be one of {', '.join(_INITIAL)}, not {initial!r}")
    order = priority_order(problem, upward_rank(problem, ranking))
    builder = ScheduleBuilder(problem, insertion=insertion)
    # Latest finish per processor, kept up to date by BMCT group after group.
    ft = np.zeros(problem.n_processors) if group_policy == "bmct" else None
    for group in rank_groups(problem, order):
        builder = _schedule_group(builder, group, group_policy, initial, ft)
    return builder.to_schedule()
