"""Shared machinery of bl-est, etf and their partition-based variants (Ozkaya et al. 2019).

Two list-scheduling engines over :class:`heuristics.eft.ScheduleBuilder`, each
able to schedule all tasks or only the tasks of one part, under a *policy*
that restricts the processors a task may take:

* :func:`run_bl` -- ready list by static priority (bottom level), each task to
  the candidate processor of **earliest start time** (ties: least finish time,
  i.e. least cost there, then lowest processor index);
* :func:`run_etf` -- at every step the (ready task, candidate processor) pair
  of **earliest start time** over all ready tasks (ties: higher priority, then
  lower task index; then processor as in ``run_bl``).

Policies (``None``: every allowed processor):

* :class:`PartPolicy` -- *-Part: a task whose part already has a placed task
  goes to that part's processor; ``busy=True`` -- *-Busy: a task of a part not
  started yet avoids the *busy* processors (those holding a started,
  unfinished part) unless all of its allowed processors are busy;
* :class:`Pinned` -- the whole-part trial of *-Macro: every task on one
  processor.

When affinity forbids the processor a rule names, the task falls back to the
plain rule over its allowed processors (the part keeps its processor).

``run_etf`` keeps a table ``E[r, q]`` of the earliest start of every ready
task on every processor. A task's data-ready times never change once it is
ready, and a placement on processor ``p`` changes only column ``p`` (its
timeline) -- recomputed for all ready tasks in one vectorised pass of
:func:`heuristics.eft.column_starts` -- plus the rows of tasks with isolation
partners, recomputed whole. The next pair is one masked minimum over the table
(policy masks built vectorised). A step costs ``O(R (P + G))`` numpy work for
``R`` ready tasks and ``G`` idle gaps, not ``R`` calls of the engine.

:func:`macro` maps whole parts: ready parts by decreasing priority (the
largest bottom level of their tasks); each part is scheduled tentatively on
every processor with the inner engine and kept where its last task finishes
earliest (ties: lowest processor index).
"""

from __future__ import annotations

import heapq
import typing
from collections.abc import Callable
from typing import Annotated, Literal

import numpy as np

from exactsched._time_grid import snap
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import Range
from exactsched.schedule import Schedule
from heuristics.eft import (
    ScheduleBuilder,
    column_starts,
    commit_start,
    ready_starts,
    start_on,
)
from heuristics.partition import partition_problem
from heuristics.ranking import upward_rank

__all__ = [
    "PartPolicy",
    "Pinned",
    "run_bl",
    "run_etf",
    "macro",
    "bottom_level",
    "parts_for",
    "schedule",
    "PROCESSOR_CHOICES",
    "ProcessorChoice",
    "processor_choice_is_finish",
]

_INF = float("inf")


class PartPolicy:
    """Processor restriction of *-Part (``busy=False``) and *-Busy (``busy=True``).

    Parameters
    ----------
    problem : Problem
    labels : numpy.ndarray
        ``(n,)`` part of every task.
    busy : bool
        Also keep new parts off busy processors (*-Busy).
    """

    def __init__(self, problem: Problem, labels: np.ndarray, *, busy: bool) -> None:
        k = int(labels.max()) + 1 if len(labels) else 0
        self.allowed = problem.allowed
        self.labels = np.asarray(labels, dtype=np.int64)
        self.part = self.labels.tolist()
        self.proc = np.full(k, -1, dtype=np.int64)  # the processor of each started part
        self.left = np.bincount(self.labels, minlength=k).tolist()  # unplaced tasks per part
        self.busy = busy
        self.n_busy = np.zeros(problem.n_processors, dtype=np.int64)  # started, unfinished parts
        self.counted = [False] * k

    def candidates(self, task: int) -> int | np.ndarray | None:
        """The processor (int) or mask of processors ``task`` may take now (None: all allowed)."""
        q = int(self.proc[self.part[task]])
        allowed = self.allowed[task]
        if q >= 0:
            # A part's processor the task may not run on: the plain rule over its
            # allowed processors, as documented (the busy filter is for new parts only;
            # an outside audit, session 17).
            return q if allowed[q] else None
        if self.busy:
            free = (self.n_busy == 0) & allowed
            if free.any():
                return free
        return None

    def masks(self, tasks: np.ndarray) -> np.ndarray:
        """``(m, P)`` candidate masks of many tasks at once (as :meth:`candidates`)."""
        allowed = self.allowed[tasks]
        q = self.proc[self.labels[tasks]]
        rows = np.arange(len(tasks))
        pinned = (q >= 0) & allowed[rows, np.maximum(q, 0)]
        out = allowed.copy()
        if self.busy:  # tasks of parts not started yet avoid the busy processors
            free = allowed & (self.n_busy == 0)[None, :]
            use = free.any(axis=1) & (q < 0)
            out[use] = free[use]
        if pinned.any():
            out[pinned] = False
            out[rows[pinned], q[pinned]] = True
        return out

    def placed(self, task: int, processor: int) -> None:
        """Record a placement (a part starts, or finishes and frees its processor)."""
        k = self.part[task]
        self.left[k] -= 1
        if self.proc[k] < 0:
            self.proc[k] = processor
            if self.busy and self.left[k] > 0:
                self.n_busy[processor] += 1
                self.counted[k] = True
        elif self.counted[k] and self.left[k] == 0:
            self.n_busy[self.proc[k]] -= 1
            self.counted[k] = False


class Pinned:
    """Every task on one processor (the *-Macro trial), or where allowed if not there."""

    def __init__(self, problem: Problem, processor: int) -> None:
        self.allowed = problem.allowed
        self.q = processor

    def candidates(self, task: int) -> int | None:
        return self.q if self.allowed[task, self.q] else None

    def masks(self, tasks: np.ndarray) -> np.ndarray:
        allowed = self.allowed[tasks]
        out = allowed.copy()
        here = allowed[:, self.q]
        out[here] = False
        out[here, self.q] = True
        return out

    def placed(self, task: int, processor: int) -> None:
        pass


Policy = PartPolicy | Pinned | None


def _choose(
    est: np.ndarray,
    cost: np.ndarray,
    mask: np.ndarray | None,
    finish: bool = False,
    resolution: float | None = None,
) -> tuple[int, float]:
    """Candidate processor of least start, then least cost (= least finish), then index.

    ``finish=True`` (the ``processor_choice="earliest-finish"`` adaptation): the
    candidate of least finish ``est + cost`` (on decimal data rounded to the grid of
    ``resolution``, so exact ties stay ties), then lowest index.
    """
    if finish:
        f = snap(est + cost, resolution)
        f = f if mask is None else np.where(mask, f, _INF)
        p = int(np.argmin(f))
        return p, float(est[p])
    e = est if mask is None else np.where(mask, est, _INF)
    m = float(e.min())
    tied = np.flatnonzero(e == m)
    if len(tied) == 1:
        return int(tied[0]), m
    return int(tied[int(np.argmin(cost[tied]))]), m


def _member(part_of: list[int] | None, part: int) -> Callable[[int], bool]:
    if part_of is None:
        return lambda j: True
    return lambda j: part_of[j] == part


def run_bl(
    builder: ScheduleBuilder,
    priority: np.ndarray,
    policy: Policy = None,
    initial: list[int] | None = None,
    part_of: list[int] | None = None,
    part: int = -1,
    finish: bool = False,
) -> None:
    """bl-est: highest priority ready task first (ties lowest index), earliest start.

    Schedules every task readied from ``initial`` (default: the ready tasks of
    ``builder``) that belongs to ``part`` (every task when ``part_of`` is None).
    ``finish=True``: each task to the candidate processor of earliest finish.
    """
    neg = (-np.asarray(priority, dtype=float)).tolist()
    start = builder.ready_tasks().tolist() if initial is None else initial
    heap = [(neg[t], t) for t in start]
    heapq.heapify(heap)
    cost = builder.problem.cost
    member = _member(part_of, part)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        t = pop(heap)[1]
        cand = None if policy is None else policy.candidates(t)
        if isinstance(cand, int):
            p, s = cand, start_on(builder, t, cand)  # one processor: O(in-degree), not O(P)
        else:
            p, s = _choose(ready_starts(builder, t), cost[t], cand, finish, builder._s.grid)
        ready = commit_start(builder, t, p, s)
        if policy is not None:
            policy.placed(t, p)
        for j in ready:
            if member(j):
                push(heap, (neg[j], j))


class _ReadyTable:
    """Earliest starts ``E[r, q]`` of every ready task ``tasks[r]`` on every processor.

    Data-ready times ``D`` never change once a task is ready; a placement on
    processor ``p`` changes column ``p`` only (recomputed for all rows in one
    vectorised pass, which ignores isolation partners), except for tasks with a
    *placed* isolation partner, whose rows are recomputed whole (a partner pushes
    starts on every processor). A task whose partners are all unplaced is not
    pushed by them: recomputing every row with a partner after every placement made
    ETF 8-12 times slower with isolation pairs (an outside audit).
    """

    def __init__(self, builder: ScheduleBuilder, priority: np.ndarray) -> None:
        problem = builder.problem
        self.b = builder
        self.prio = np.asarray(priority, dtype=float)
        self.has_iso = np.diff(problem.iso_ptr) > 0
        self.near_placed = np.zeros(problem.n_tasks, dtype=bool)  # a partner is placed
        n_procs = problem.n_processors
        cap = 64
        self.tasks = np.zeros(cap, dtype=np.int64)
        self.D = np.zeros((cap, n_procs))
        self.E = np.zeros((cap, n_procs))
        self.rowmin = np.zeros(cap)  # E.min(axis=1), kept up to date
        self.size = 0
        self.row: dict[int, int] = {}

    def add(self, t: int) -> None:
        if self.size == len(self.tasks):
            grow = len(self.tasks)
            self.tasks = np.concatenate([self.tasks, np.zeros(grow, dtype=np.int64)])
            self.D = np.concatenate([self.D, np.zeros_like(self.D)])
            self.E = np.concatenate([self.E, np.zeros_like(self.E)])
            self.rowmin = np.concatenate([self.rowmin, np.zeros_like(self.rowmin)])
        r = self.size
        self.tasks[r] = t
        self.D[r] = self.b.data_ready(t)
        self.E[r] = self.b.earliest_start(t, self.D[r])
        self.rowmin[r] = self.E[r].min()
        self.row[t] = r
        self.size += 1

    def remove(self, t: int) -> None:
        r = self.row.pop(t)
        last = self.size - 1
        if r != last:
            u = int(self.tasks[last])
            self.tasks[r], self.D[r], self.E[r] = u, self.D[last], self.E[last]
            self.rowmin[r] = self.rowmin[last]
            self.row[u] = r
        self.size = last

    def update(self, p: int, placed: int | None = None) -> None:
        """Refresh after the placement of ``placed`` on processor ``p``.

        ``placed`` None: every row with an isolation partner is recomputed whole.
        """
        if placed is not None:
            self.near_placed[self.b._s.iso[placed]] = True
        m = self.size
        if not m:
            return
        tasks = self.tasks[:m]
        if self.b._net is not None:
            # Messages booked on ports or links (single-port, contention models) can
            # delay the data of any ready task: recompute every row.
            for r, t in enumerate(tasks.tolist()):
                self.D[r] = self.b.data_ready(t)
                self.E[r] = self.b.earliest_start(t, self.D[r])
                self.rowmin[r] = self.E[r].min()
            return
        old = self.E[:m, p].copy()
        new = column_starts(self.b, tasks, self.D[:m, p], p)
        self.E[:m, p] = new
        # Starts only grow: a row minimum moves only where it sat in column p.
        moved = np.flatnonzero((new != old) & (old == self.rowmin[:m]))
        if len(moved):
            self.rowmin[moved] = self.E[moved].min(axis=1)
        pushed = self.has_iso if placed is None else self.near_placed
        for r in np.flatnonzero(pushed[tasks]).tolist():
            self.E[r] = self.b.earliest_start(int(tasks[r]), self.D[r])
            self.rowmin[r] = self.E[r].min()

    def best(self, policy: Policy, finish: bool = False) -> tuple[int, int, float]:
        """The (task, processor, start) of least start; ties as documented in :func:`run_etf`.

        ``finish=True``: the same task, on its candidate processor of least finish.
        """
        m = self.size
        tasks = self.tasks[:m]
        if policy is None:
            e, rowmin = self.E[:m], self.rowmin[:m]
        else:
            e = np.where(policy.masks(tasks), self.E[:m], _INF)
            rowmin = e.min(axis=1)
        s = float(rowmin.min())
        rows = np.flatnonzero(rowmin == s)
        if len(rows) > 1:
            # Larger priority first, then lower task index (no sort: ties can be many).
            pr = self.prio[tasks[rows]]
            rows = rows[pr == pr.max()]
            rows = rows[np.argmin(tasks[rows], keepdims=True)]
        r = int(rows[0])
        t = int(tasks[r])
        if finish:
            q = int(np.argmin(snap(e[r] + self.b.problem.cost[t], self.b._s.grid)))
            return t, q, float(e[r, q])
        tied = np.flatnonzero(e[r] == s)
        p = int(tied[0]) if len(tied) == 1 else int(tied[np.argmin(self.b.problem.cost[t, tied])])
        return t, p, s


def run_etf(
    builder: ScheduleBuilder,
    priority: np.ndarray,
    policy: Policy = None,
    initial: list[int] | None = None,
    part_of: list[int] | None = None,
    part: int = -1,
    finish: bool = False,
) -> None:
    """ETF: the ready (task, processor) pair of earliest start first.

    Ties: larger ``priority``, then lower task index; the processor as in
    :func:`run_bl`. ``finish=True``: the task so chosen goes to its candidate
    processor of earliest finish instead. Same scope arguments as :func:`run_bl`. Each step costs
    one vectorised pass over the ready tasks on the processor just used and
    one ``O(R P)`` minimum (``R`` ready tasks), instead of a rescan of every
    ready task on every processor with the engine.
    """
    start = builder.ready_tasks().tolist() if initial is None else initial
    member = _member(part_of, part)
    if isinstance(policy, Pinned):
        _run_etf_pinned(builder, priority, policy, start, member)
        return
    table = _ReadyTable(builder, priority)
    for t in start:
        table.add(t)
    while table.size:
        t, p, s = table.best(policy, finish)
        ready = commit_start(builder, t, p, s)
        if policy is not None:
            policy.placed(t, p)
        table.remove(t)
        table.update(p, t)
        for j in ready:
            if member(j):
                table.add(j)


def _run_etf_pinned(
    builder: ScheduleBuilder,
    priority: np.ndarray,
    policy: Pinned,
    start: list[int],
    member: Callable[[int], bool],
) -> None:
    """:func:`run_etf` under :class:`Pinned` (a *-Macro trial): scalar starts on one processor.

    The same choice as the table (least start, larger priority, lower index;
    a task the processor may not run takes its best allowed processor), with
    one :func:`heuristics.eft.start_on` per ready task and step: the ready
    tasks of one part are few, and the table's ``O(P)`` rows would dominate.
    """
    prio = np.asarray(priority, dtype=float)
    cost = builder.problem.cost
    q = policy.q
    here = policy.allowed[:, q]
    has_iso = np.diff(builder.problem.iso_ptr) > 0
    tasks: list[int] = []
    ready_q: list[float] = []  # data-ready time on q, fixed once a task is ready

    def add(t: int) -> None:
        tasks.append(t)
        ready_q.append(float(builder.data_ready(t)[q]) if here[t] else 0.0)

    for t in start:
        add(t)
    while tasks:
        if builder._net is not None:  # booked messages may delay any ready task's data
            ready_q[:] = [float(builder.data_ready(t)[q]) if here[t] else 0.0 for t in tasks]
        arr = np.asarray(tasks, dtype=np.int64)
        # Starts on q of every ready task in one pass; partners and strangers apart.
        est = column_starts(builder, arr, np.asarray(ready_q), q)
        where = np.full(len(arr), q, dtype=np.int64)
        for r in np.flatnonzero(~here[arr] | has_iso[arr]).tolist():
            t = int(arr[r])
            if here[t]:
                est[r] = start_on(builder, t, q)
            else:
                where[r], est[r] = _choose(ready_starts(builder, t), cost[t], None)
        rows = np.flatnonzero(est == est.min())
        if len(rows) > 1:
            pr = prio[arr[rows]]
            rows = rows[pr == pr.max()]
            rows = rows[np.argmin(arr[rows], keepdims=True)]
        r = int(rows[0])
        t = tasks.pop(r)
        ready_q.pop(r)
        for j in commit_start(builder, t, int(where[r]), float(est[r])):
            if member(j):
                add(j)


def macro(
    problem: Problem,
    priority: np.ndarray,
    labels: np.ndarray,
    engine: Callable[..., None],
    *,
    insertion: bool = True,
) -> Schedule:
    """*-Macro: map whole parts, each on the processor where its last task finishes first.

    Parts become ready when every part with an arc into them is mapped; the
    ready part of largest priority (its tasks' largest ``priority``; ties
    lowest part number) is scheduled tentatively with ``engine`` on a copy of
    the schedule for every processor allowed for at least one of its tasks,
    every task on that processor (or, if affinity forbids it, by the plain
    rule), and the copy whose part finishes earliest is kept (ties: lowest
    processor index).

    Raises
    ------
    MethodError
        If the partition's quotient graph has a cycle.
    """
    n = problem.n_tasks
    builder = ScheduleBuilder(problem, insertion=insertion)
    if n == 0:
        return builder.to_schedule()
    k = int(labels.max()) + 1
    members = [np.flatnonzero(labels == x) for x in range(k)]
    prio = np.full(k, -_INF)
    np.maximum.at(prio, labels, np.asarray(priority, dtype=float))
    a, b = labels[problem.arc_src], labels[problem.arc_dst]
    internal = a == b
    # Predecessors inside the own part: the part's first ready tasks have none.
    inner_pred = np.bincount(problem.arc_dst[internal], minlength=n)
    pairs = np.unique(np.stack([a[~internal], b[~internal]], axis=1), axis=0)
    indeg = np.bincount(pairs[:, 1], minlength=k).tolist() if len(pairs) else [0] * k
    succ: list[list[int]] = [[] for _ in range(k)]
    for x, y in pairs.tolist():
        succ[x].append(y)
    heap = [(-float(prio[x]), x) for x in range(k) if indeg[x] == 0]
    heapq.heapify(heap)
    part_of = labels.tolist()
    mapped = 0
    while heap:
        x = heapq.heappop(heap)[1]
        mapped += 1
        tasks = members[x]
        if len(tasks):
            initial = tasks[inner_pred[tasks] == 0].tolist()
            best, best_finish = None, _INF
            for q in np.flatnonzero(problem.allowed[tasks].any(axis=0)).tolist():
                trial = builder.copy()
                engine(trial, priority, Pinned(problem, q), initial, part_of, x)
                finish = float(trial.finish[tasks].max())
                if finish < best_finish:
                    best, best_finish = trial, finish
            builder = best
        for y in succ[x]:
            indeg[y] -= 1
            if indeg[y] == 0:
                heapq.heappush(heap, (-float(prio[y]), y))
    if mapped < k:
        raise MethodError("partition: the quotient graph has a cycle")
    return builder.to_schedule()


def bottom_level(problem: Problem, ranking: str) -> np.ndarray:
    """The bottom level ``bl(i)`` of eq. (1) of [1]_ on the weighted DAG of ``ranking``.

    ``bl`` is the upward rank: node weight plus the longest weighted path below.

    References
    ----------
    .. [1] Ozkaya et al., IPDPS 2019, slide 8, eq. (1).
    """
    from heuristics.heft import check_ranking

    check_ranking(ranking)
    return upward_rank(problem, ranking)


def parts_for(problem: Problem, alpha: int, epsilon: float) -> np.ndarray:
    """``K = alpha * P`` acyclic parts of the tasks (:func:`partition_problem`).

    Raises
    ------
    MethodError
        If ``alpha`` is not a positive integer or ``epsilon`` is negative.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, int | np.integer) or alpha < 1:
        raise MethodError(f"alpha: must be a positive integer, not {alpha!r}")
    if not isinstance(epsilon, int | float) or not 0 <= epsilon < _INF:
        raise MethodError(f"epsilon: must be a finite number >= 0, not {epsilon!r}")
    return partition_problem(problem, int(alpha) * problem.n_processors, epsilon=float(epsilon))


def schedule(
    problem: Problem,
    *,
    engine: str,
    variant: str,
    ranking: str,
    insertion: bool,
    alpha: int = 2,
    epsilon: float = 0.1,
    processor_choice: str = "earliest-start",
) -> Schedule:
    """Run ``engine`` ("bl" or "etf") in ``variant`` ("plain", "part", "busy", "macro").

    ``processor_choice`` is ``"earliest-start"`` (the papers' rule) or
    ``"earliest-finish"`` (the project's heterogeneous adaptation, see
    :data:`PROCESSOR_CHOICES`); the macro variant pins every task of a part
    to one processor and has no choice to make.
    """
    finish = processor_choice_is_finish(processor_choice)
    priority = bottom_level(problem, ranking)
    run = run_bl if engine == "bl" else run_etf
    if variant == "plain":
        builder = ScheduleBuilder(problem, insertion=bool(insertion))
        run(builder, priority, finish=finish)
        return builder.to_schedule()
    labels = parts_for(problem, alpha, epsilon)
    if variant == "macro":
        return macro(problem, priority, labels, run, insertion=bool(insertion))
    builder = ScheduleBuilder(problem, insertion=bool(insertion))
    run(builder, priority, PartPolicy(problem, labels, busy=variant == "busy"), finish=finish)
    return builder.to_schedule()


Alpha = Annotated[int, Range(1)]
"""Annotation of the ``alpha`` option (parts per processor): an integer >= 1, as
:func:`parts_for` checks it."""

ProcessorChoice = Literal["earliest-start", "earliest-finish"]
PROCESSOR_CHOICES: tuple[str, ...] = typing.get_args(ProcessorChoice)
"""Values of the ``processor_choice`` option of the rules that assume identical processors.

``"earliest-start"`` is the published rule; ``"earliest-finish"`` is the
project's adaptation to unlike processors: among the processors the rule
allows, the one where the task *finishes* first (ties: lowest index).
"""


def processor_choice_is_finish(choice: str) -> bool:
    """Whether ``choice`` is ``"earliest-finish"``; refuses any other than the two values.

    Raises
    ------
    MethodError
        For a value not in :data:`PROCESSOR_CHOICES`.

    Examples
    --------
    >>> processor_choice_is_finish("earliest-finish")
    True
    >>> processor_choice_is_finish("fastest")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: processor_choice: expected ... got 'fastest'
    """
    if choice not in PROCESSOR_CHOICES:
        raise MethodError(
            f"processor_choice: expected 'earliest-start' or 'earliest-finish', got {choice!r}"
        )
    return choice == "earliest-finish"
