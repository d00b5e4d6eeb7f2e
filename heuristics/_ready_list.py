"""Ready-list machinery shared by the dynamic-priority heuristics (private helper).

Contract
--------
Two drivers, both on the shared engine :class:`heuristics.eft.ScheduleBuilder`
(so affinity, order pairs, isolation pairs, hop-based communication and
insertion are honoured exactly as by HEFT):

* :func:`immediate_schedule` -- *immediate mode* (Braun et al.'s MCT, MET,
  OLB): the ready tasks are taken one at a time in first-in first-out order
  (the order in which they became ready; tasks released by the same placement,
  and the entry tasks, by increasing index), and ``choose`` picks each task's
  processor from its earliest start and finish times on every processor.
* :func:`batch_schedule` -- *batch mode* (min-min, max-min, sufferage, DLS,
  the ETF step of DSC-GLB-ETF): at every step ``pick`` sees the earliest start
  of **every** ready task on **every** processor, as a ``(k, P)`` table whose
  rows are the ready tasks in increasing index order, and returns one
  (task, processor) pair to place. With ``rounds=True`` the tasks that a
  placement makes ready wait until every task of the current set is placed
  (Braun et al.'s batch over the tasks ready at each round's start).

The table of :func:`batch_schedule` is kept exact incrementally (class
:class:`ReadyTable`). Placing a task on processor ``p`` in ``[s, f)`` only
shrinks the set of feasible starts of the other ready tasks on ``p`` (and, for
its isolation partners, on every processor); a task whose recorded earliest
slot does not clash with ``[s, f)`` keeps it, because removing starts other
than the minimum leaves the minimum unchanged. So only the rows whose slot on
``p`` clashes with ``[s, f)`` and the rows of the placed task's isolation
partners are recomputed. Without insertion the processor's tail just moved to
``f``, so a start ``e`` on ``p`` becomes ``max(e, f)`` in place; only tasks
with isolation partners, which may be pushed further, are recomputed.
Data-ready times of a ready task never change, because all its predecessors
are already placed.

Cost: ``O(e P)`` for data-ready times, plus ``O(k P)`` numpy work per step for
the table lookups of ``pick`` (``k`` ready tasks), plus one engine query per
recomputed row.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from exactsched._time_grid import snap
from exactsched.problem import Problem
from exactsched.schedule import Schedule
from heuristics.eft import ScheduleBuilder, commit_start

__all__ = [
    "ReadyTable",
    "batch_schedule",
    "completion_times",
    "first_min",
    "immediate_schedule",
]

ChooseFn = Callable[[int, np.ndarray, np.ndarray], int]
PickFn = Callable[[np.ndarray, np.ndarray], tuple[int, int]]


def immediate_schedule(problem: Problem, choose: ChooseFn, *, insertion: bool = False) -> Schedule:
    """Immediate-mode ready-list scheduling: first in, first out; ``choose`` the processor.

    Parameters
    ----------
    problem : Problem
    choose : callable
        ``choose(task, est, eft) -> processor`` with the ``(P,)`` earliest start
        and finish times of ``task`` (``inf`` outside its affinity); the task is
        then placed at its earliest start on that processor.
    insertion : bool
        Insertion-based placement (default False: after the last task).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[2, 1], [1, 3]], [(0, 1, 0)])
    >>> s = immediate_schedule(p, lambda t, est, eft: int(eft.argmin()))
    >>> s.makespan, validate(p, s)
    (2, [])
    """
    builder = ScheduleBuilder(problem, insertion=insertion)
    step = 0
    heap = [(0, i) for i in builder.ready_tasks().tolist()]
    heapq.heapify(heap)
    while heap:
        task = heapq.heappop(heap)[1]
        est, eft = builder.eft(task)
        p = int(choose(task, est, eft))
        step += 1
        for j in commit_start(builder, task, p, float(est[p])):
            heapq.heappush(heap, (step, j))
    return builder.to_schedule()


class ReadyTable:
    """Earliest starts of every ready task on every processor, kept exact as tasks are placed.

    Parameters
    ----------
    builder : ScheduleBuilder
        An empty (or partial) schedule; the table starts with its ready tasks.
    rounds : bool
        Hold the tasks that placements make ready until the table is empty,
        then release them all (:meth:`release`): mapping in rounds, each over
        the tasks ready at its start (default False: they join at once).

    Attributes
    ----------
    builder : ScheduleBuilder
    est : numpy.ndarray
        ``(n, P)`` earliest starts; only the rows of ready tasks are meaningful.

    Examples
    --------
    >>> from exactsched import Problem
    >>> t = ReadyTable(ScheduleBuilder(Problem.from_lists([[2, 3], [1, 1]], [(0, 1, 4)])))
    >>> t.ready().tolist(), t.est[0].tolist()
    ([0], [0.0, 0.0])
    >>> t.place(0, 0)
    >>> t.ready().tolist(), t.est[1].tolist()
    ([1], [2.0, 6.0])
    """

    def __init__(self, builder: ScheduleBuilder, *, rounds: bool = False) -> None:
        self.builder = builder
        self.rounds = bool(rounds)
        self._pending: list[int] = []
        problem = builder.problem
        self._cost = problem.cost
        self.est = np.full((problem.n_tasks, problem.n_processors), np.inf)
        # The ready tasks as a sorted array (replaced, never modified in place, so
        # ready() can hand it out) and as a mask for membership tests.
        self._ready = np.zeros(0, dtype=np.int64)
        self._is_ready = np.zeros(problem.n_tasks, dtype=bool)
        iso_ptr = problem.iso_ptr.tolist()
        partners = problem.iso_partners.tolist()
        self._iso = [partners[iso_ptr[i] : iso_ptr[i + 1]] for i in range(problem.n_tasks)]
        self._has_iso = np.diff(problem.iso_ptr) > 0
        self._add(builder.ready_tasks().tolist())

    def ready(self) -> np.ndarray:
        """The ready tasks, increasing index (do not modify the array)."""
        return self._ready

    def __len__(self) -> int:
        return len(self._ready)

    def release(self) -> bool:
        """Make the held tasks ready (with ``rounds``); whether there were any."""
        held, self._pending = self._pending, []
        self._add(held)
        return bool(held)

    def _row(self, task: int) -> None:
        b = self.builder
        d = self._cost[task]
        self.est[task] = b._earliest(task, b._data_ready(task), d)

    def _add(self, tasks: list[int]) -> None:
        if not tasks:
            return
        for t in tasks:
            self._row(t)
        new = np.asarray(tasks, dtype=np.int64)
        self._is_ready[new] = True
        self._ready = np.sort(np.concatenate([self._ready, new]))

    def place(self, task: int, processor: int) -> None:
        """Place a ready ``task`` at its earliest start on ``processor``; update the table."""
        start = float(self.est[task, processor])
        cost = float(self._cost[task, processor])
        released = commit_start(self.builder, task, processor, start)
        finish = float(self.builder.finish[task])  # as the builder records it
        rows = self._ready
        rows = np.delete(rows, np.searchsorted(rows, task))
        self._ready = rows
        self._is_ready[task] = False
        if len(rows) and self.builder._net is not None:
            # Messages booked on ports or links (single-port, contention models) can
            # delay the data of any ready task: recompute every row.
            for t in rows.tolist():
                self._row(t)
        elif len(rows):
            col = self.est[rows, processor]
            if self.builder.insertion:
                d = self._cost[rows, processor]
                # Positive costs occupy time even when `finish == start` in floats (a
                # cost below half an ulp): such a task is the point [s, s]. A row's
                # slot is stale if it overlaps the new interval, or if it is such a
                # point at the new task's start or finish (the gap edge it sat on may
                # be gone), which a recomputation settles.
                point = col + d == col
                touch = point & ((col == start) | (col == finish))
                clash = (
                    ((col < finish) & (snap(col + d, self.builder._s.grid) > start) | touch)
                    & (d > 0)
                    & (cost > 0)
                )
            elif cost > 0:
                # The tail of the processor moved to `finish`: a start there becomes
                # max(old start, finish), unless isolation partners push it further.
                clash = (col < finish) & self._has_iso[rows]
                self.est[rows, processor] = np.maximum(col, finish)
            else:
                # A zero-cost task occupies nothing: the tail stays (as in the builder).
                clash = np.zeros(len(rows), dtype=bool)
            stale = set(rows[clash].tolist())
            if cost > 0:
                stale.update(q for q in self._iso[task] if self._is_ready[q])
            for t in sorted(stale):
                self._row(t)
        if self.rounds:
            self._pending.extend(released)
        else:
            self._add(released)


def batch_schedule(
    problem: Problem, pick: PickFn, *, insertion: bool = False, rounds: bool = False
) -> Schedule:
    """Batch-mode ready-list scheduling: ``pick`` a (task, processor) pair among all ready tasks.

    Parameters
    ----------
    problem : Problem
    pick : callable
        ``pick(tasks, est) -> (row, processor)``: ``tasks`` are the ready tasks
        in increasing index order, ``est`` their ``(k, P)`` earliest starts
        (``inf`` outside affinity); the chosen task ``tasks[row]`` is placed at
        ``est[row, processor]``.
    insertion : bool
        Insertion-based placement (default False: after the last task).
    rounds : bool
        Map in rounds (see :class:`ReadyTable`): tasks made ready during a
        round wait for the next one (default False).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[1, 2], [3, 1]], n_processors=2)
    >>> def earliest_finish(tasks, est):
    ...     eft = est + p.cost[tasks]
    ...     row, q = np.unravel_index(np.argmin(eft), eft.shape)
    ...     return int(row), int(q)
    >>> s = batch_schedule(p, earliest_finish)
    >>> [(t, pl.processor, pl.start) for t, pl in sorted(s.items())], validate(p, s)
    ([('t0', 'p0', 0), ('t1', 'p1', 0)], [])
    """
    table = ReadyTable(ScheduleBuilder(problem, insertion=insertion), rounds=rounds)
    while len(table) or table.release():
        tasks = table.ready()
        row, p = pick(tasks, table.est[tasks])
        table.place(int(tasks[row]), int(p))
    return table.builder.to_schedule()


def first_min(values: np.ndarray) -> tuple[int, int]:
    """Row and column of the least entry of a 2-D array; ties: lowest row, then column.

    Examples
    --------
    >>> first_min(np.array([[3.0, 1.0], [1.0, 0.5]]))
    (1, 1)
    """
    row, col = np.unravel_index(int(np.argmin(values)), values.shape)
    return int(row), int(col)


def completion_times(
    cost: np.ndarray, tasks: np.ndarray, est: np.ndarray, resolution: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Completion times of the ready tasks and each one's best processor.

    Parameters
    ----------
    cost : numpy.ndarray
        ``(n, P)`` costs of the problem.
    tasks : numpy.ndarray
        ``(k,)`` ready tasks.
    est : numpy.ndarray
        ``(k, P)`` their earliest starts.
    resolution : float, optional
        The problem's :func:`~exactsched._time_grid.time_resolution`: completion
        times on decimal data are rounded to the grid, so exact ties stay ties.

    Returns
    -------
    eft : numpy.ndarray
        ``(k, P)`` earliest completion times (``inf`` outside affinity).
    best : numpy.ndarray
        ``(k,)`` processor of least completion time of each task (ties: lowest index).
    least : numpy.ndarray
        ``(k,)`` that least completion time.

    Examples
    --------
    >>> eft, best, least = completion_times(np.array([[1.0, 2.0]]), np.array([0]),
    ...                                     np.array([[3.0, 0.0]]))
    >>> eft.tolist(), best.tolist(), least.tolist()
    ([[4.0, 2.0]], [1], [2.0])
    """
    eft = snap(est + cost[tasks], resolution)
    best = np.argmin(eft, axis=1)
    least = eft[np.arange(len(tasks)), best]
    return eft, best, least
