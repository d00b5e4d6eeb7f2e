"""The shared engine of every listing heuristic: insertion-based earliest finish times.

Contract
--------
:class:`ScheduleBuilder` holds a partial schedule and answers, for one task,
its earliest start and finish time on *every* processor at once
(:meth:`ScheduleBuilder.eft`, two ``(P,)`` arrays), honouring the whole model
of ``docs/instance-format.md``:

* affinity: processors outside a task's affinity get ``inf``;
* data edges wait ``finish(i) + arc_unit * hops[p, q]`` (multi-hop networks),
  order pairs wait for the finish only (every predecessor must be placed);
* insertion: a task goes into the earliest idle gap of a processor at or after
  its data-ready time that is long enough, else after the processor's last
  task (``insertion=False``: always after the last task);
* isolation: an already placed isolation partner blocks its interval on every
  processor, not only its own;
* intervals are half-open, so touching is allowed and a zero-cost task fits
  anywhere: its earliest start is its data-ready time, even inside a busy
  interval, and it never occupies a processor. Only a cost of exactly 0 does
  that: a positive cost below half an ulp of its start (``start + cost ==
  start`` in floats) still occupies its processor as the point ``[s, s]``
  (as :func:`exactsched.validate` reads it), which may touch other tasks or
  share their start but never lies strictly inside one, and no other task may
  span it;
* decimal data: every computed time (data ready, finish, the end tested against
  a gap or an isolation partner) is rounded to the data's decimal grid when
  floats hold it (:mod:`exactsched._time_grid`), so ``0.2 + 0.1`` fits the slot
  ``[0.2, 0.3)`` and exact ties between processors stay ties.

:func:`list_schedule` is the ready-list scheduler built on it: it repeatedly
takes the ready task of highest priority (ties: lowest task index), so any
priority order yields a valid schedule, and puts it on the processor chosen by
``select`` (default: least earliest finish time, ties lowest processor index).

Costs. ``data_ready`` is one vectorised max over the incoming arcs
(``O(in-degree * P)``), so a list scheduler is ``O(e * P)`` plus the gap
search. Idle gaps live in two padded ``P x G`` arrays (starts and ends, grown
by doubling); a per-processor longest gap and latest gap end rule out most
processors in ``O(P)``, and the remaining rows are searched in one vectorised
pass. Appending after the last task, the common case, is ``O(P)``. Isolation
partners take a slower iterative path that only runs for tasks that have
placed partners.

References
----------
.. [1] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002, sec. 4.2 (insertion-based policy). doi:10.1109/71.993206
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = [
    "ScheduleBuilder",
    "list_schedule",
    "min_eft",
    "ready_starts",
    "commit_start",
    "column_starts",
    "start_on",
]

_INITIAL_GAP_SLOTS = 4


class _Static:
    """Read-only data of a problem, shared by its builders and their copies; never mutated."""

    __slots__ = (
        "n",
        "n_procs",
        "cost",
        "allowed",
        "hops",
        "in_ptr",
        "in_src",
        "in_unit",
        "succ",
        "n_pred",
        "restricted",
        "has_zero",
        "iso",
        "grid",
    )

    def __init__(self, problem: Problem) -> None:
        n = problem.n_tasks
        self.n = n
        self.n_procs = problem.n_processors
        self.cost = problem.cost
        self.allowed = problem.allowed
        self.hops = np.ascontiguousarray(problem.hops, dtype=float)
        # Arcs grouped by destination, so the arcs into j are one contiguous slice.
        self.in_ptr = problem.pred_ptr.tolist()
        self.in_src = problem.arc_src[problem.pred_arcs]
        self.in_unit = problem.arc_unit[problem.pred_arcs].astype(float)
        # Distinct successors (the format allows at most one arc per pair, but be safe).
        pairs = np.unique(problem.arc_src.astype(np.int64) * n + problem.arc_dst)
        src, dst = np.divmod(pairs, n) if n else (pairs, pairs)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
        dst_l, ptr_l = dst.tolist(), ptr.tolist()
        self.succ = [dst_l[ptr_l[i] : ptr_l[i + 1]] for i in range(n)]
        self.n_pred = np.bincount(dst, minlength=n).tolist()
        self.restricted = (~problem.allowed.all(axis=1)).tolist()
        self.has_zero = (problem.cost == 0).any(axis=1).tolist()
        iso_ptr = problem.iso_ptr.tolist()
        partners = problem.iso_partners.tolist()
        self.iso = [partners[iso_ptr[i] : iso_ptr[i + 1]] for i in range(n)]
        # Decimal data: computed times are rounded to the data's grid (exactsched._time_grid).
        self.grid = time_resolution(problem)


_STATIC_CACHE: list[tuple[Problem, _Static]] = []
_STATIC_CACHE_SIZE = 8


def _static_for(problem: Problem) -> _Static:
    """The read-only data of ``problem``, cached for the last few problems (by identity).

    Building it is ``O(n + e)`` Python work (about 17 ms for 5000 tasks and
    25,000 arcs), worth sharing between the many builders one study creates.
    The cache holds the problems themselves, so an ``id`` is never reused.
    """
    for cached, static in _STATIC_CACHE:
        if cached is problem:
            return static
    static = _Static(problem)
    _STATIC_CACHE.insert(0, (problem, static))
    del _STATIC_CACHE[_STATIC_CACHE_SIZE:]
    return static


class ScheduleBuilder:
    """Partial schedule of a list scheduler; insertion-based EFT on all processors at once.

    Parameters
    ----------
    problem : Problem
        The instance to schedule.
    insertion : bool
        Let tasks fill idle gaps between already placed tasks (default True,
        HEFT's insertion-based policy); False appends after the last task.

    Attributes
    ----------
    problem : Problem
    insertion : bool
    proc : numpy.ndarray
        ``(n,)`` processor index of each task, -1 while unplaced.
    start, finish : numpy.ndarray
        ``(n,)`` start and finish times, nan while unplaced.

    Examples
    --------
    >>> from exactsched import Problem
    >>> p = Problem.from_lists([[2, 3], [1, 1]], [(0, 1, 4)])
    >>> b = ScheduleBuilder(p)
    >>> b.eft(0)[1].tolist()
    [2.0, 3.0]
    >>> b.place(0, 0)
    >>> b.data_ready(1).tolist()
    [2.0, 6.0]
    >>> est, eft = b.eft(1)
    >>> eft.tolist()
    [3.0, 7.0]
    >>> b.place(1, 0)
    >>> b.makespan, b.to_schedule()["t1"]
    (3.0, Placement(processor='p0', start=2, finish=3))
    """

    def __init__(self, problem: Problem, *, insertion: bool = True) -> None:
        self.problem = problem
        self.insertion = bool(insertion)
        self._s = _static_for(problem)
        n, n_procs = problem.n_tasks, problem.n_processors
        self.proc = np.full(n, -1, dtype=np.int64)
        self.start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self._remaining = list(self._s.n_pred)  # unplaced predecessors per task
        self._n_placed = 0
        self._last: tuple[int, int, np.ndarray] | None = None
        self._keep_last = False  # list_schedule sets it while a select callback runs
        # Timeline of each processor: the end of its last busy interval, and its
        # idle gaps before that, kept unsorted in slots 0..n_gaps-1 of each row;
        # empty slots hold [inf, -inf) so that nothing fits them.
        self._avail = np.zeros(n_procs)
        self._gs = np.full((n_procs, _INITIAL_GAP_SLOTS), np.inf)
        self._ge = np.full((n_procs, _INITIAL_GAP_SLOTS), -np.inf)
        self._n_gaps = np.zeros(n_procs, dtype=np.int64)
        # Longest gap of each processor, read with two ulps of its end to spare: the
        # fit test is ``start + d <= end``, and ``a + d == b`` in floats does not
        # imply ``b - a >= d``, so the plain length could rule out an exact fit.
        self._max_len = np.full(n_procs, -np.inf)
        self._last_end = np.full(n_procs, -np.inf)  # latest gap end of each processor
        # Ports or links under the single-port and contention models (None: delay).
        self._net = None
        if problem.communication != "delay":
            from heuristics._contention import MessageNetwork

            self._net = MessageNetwork(problem)

    # ---- queries ---------------------------------------------------------------------

    @property
    def makespan(self) -> float:
        """Largest finish time of the tasks placed so far (0 when none is)."""
        return float(np.nanmax(self.finish)) if self._n_placed else 0.0

    @property
    def available(self) -> np.ndarray:
        """``(P,)`` end of the last busy interval of each processor (a copy)."""
        return self._avail.copy()

    def gaps(self, processor: int) -> list[tuple[float, float]]:
        """Idle gaps ``[start, end)`` of ``processor`` before its last task, sorted.

        Examples
        --------
        >>> from exactsched import Problem
        >>> b = ScheduleBuilder(Problem.from_lists([1, 1], n_processors=1))
        >>> b.place(0, 0, start=2.0)
        >>> b.gaps(0)
        [(0.0, 2.0)]
        """
        k = int(self._n_gaps[processor])
        return sorted(
            zip(self._gs[processor, :k].tolist(), self._ge[processor, :k].tolist(), strict=True)
        )

    def is_placed(self, task: int) -> bool:
        """Whether ``task`` has been placed."""
        return bool(self.proc[task] >= 0)

    def ready_tasks(self) -> np.ndarray:
        """Unplaced tasks whose predecessors (edges and order pairs) are all placed."""
        remaining = np.asarray(self._remaining, dtype=np.int64)
        return np.flatnonzero((remaining == 0) & (self.proc < 0))

    def data_ready(self, task: int) -> np.ndarray:
        """``(P,)`` earliest start of ``task`` on each processor allowed by its incoming arcs.

        For a data edge from ``i`` on processor ``p`` this is
        ``finish(i) + arc_unit * hops[p, q]`` on processor ``q``; for an order
        pair ``finish(i)``; 0 for an entry task.

        Raises
        ------
        ValueError
            If a predecessor of ``task`` is not placed yet.
        """
        s = self._s
        src = s.in_src[s.in_ptr[task] : s.in_ptr[task + 1]]
        if len(src) and self.proc[src].min() < 0:
            missing = self.problem.task_ids[int(src[np.argmin(self.proc[src])])]
            raise ValueError(
                f"task {self.problem.task_ids[task]}: predecessor {missing} is not placed"
            )
        return self._data_ready(task)

    def _data_ready(self, task: int) -> np.ndarray:
        """:meth:`data_ready` without the check that the predecessors are placed."""
        s = self._s
        a, b = s.in_ptr[task], s.in_ptr[task + 1]
        if a == b:
            return np.zeros(s.n_procs)
        src = s.in_src[a:b]
        where = self.proc[src]
        if b - a == 1:
            plain = self.finish[src[0]] + s.in_unit[a] * s.hops[where[0]]
        else:
            # One gather of hop rows for all predecessors: (k, P), then max over k.
            plain = (self.finish[src][:, None] + s.in_unit[a:b, None] * s.hops[where]).max(axis=0)
        plain = snap(plain, s.grid)
        if self._net is not None:
            # Messages summed hop by hop can lose a transfer below half a unit in the
            # last place at each hop; the data still take the whole delay to arrive.
            return np.maximum(self._net.ready(self, task), plain)
        return plain

    def eft(self, task: int) -> tuple[np.ndarray, np.ndarray]:
        """Earliest start and finish of ``task`` on every processor.

        Returns
        -------
        est, eft : numpy.ndarray
            ``(P,)`` arrays; ``inf`` on processors outside the task's affinity.

        Raises
        ------
        ValueError
            If a predecessor of ``task`` is not placed yet.

        Notes
        -----
        With insertion, the start on processor ``q`` is the least ``t >=
        data_ready[q]`` such that ``[t, t + cost)`` lies in an idle gap of
        ``q`` or after its last task, and overlaps no placed isolation partner
        of ``task`` on any processor.
        """
        d = self._s.cost[task]
        est = self._earliest(task, self.data_ready(task), d)
        if self._keep_last:
            # A copy (callers may modify theirs), so list_schedule can reuse it after select.
            self._last = (task, self._n_placed, est.copy())
        return est, snap(est + d, self._s.grid)

    def earliest_start(self, task: int, ready: np.ndarray) -> np.ndarray:
        """``(P,)`` earliest starts of ``task`` at or after a given data-ready time.

        The search of :meth:`eft` (idle gaps or after the last task, isolation
        partners, affinity), fed any ``(P,)`` data-ready time instead of the one
        of the placed predecessors: for a lookahead that estimates a child whose
        other parents are not placed yet.

        Examples
        --------
        >>> from exactsched import Problem
        >>> b = ScheduleBuilder(Problem.from_lists([[2, 2], [1, 1]]))
        >>> b.place(0, 0)
        >>> b.earliest_start(1, np.array([1.0, 1.0])).tolist()
        [2.0, 1.0]
        """
        ready = np.asarray(ready, dtype=float)
        return self._earliest(task, ready, self._s.cost[task])

    # ---- updates ---------------------------------------------------------------------

    def place(self, task: int, processor: int, start: float | None = None) -> None:
        """Put ``task`` on ``processor``, at its earliest start there or at ``start``.

        Parameters
        ----------
        task, processor : int
            Indices.
        start : float, optional
            Default: the earliest start of :meth:`eft` on ``processor``. A
            given start is checked against the timeline, the arcs and the
            isolation partners.

        Raises
        ------
        ValueError
            If the task is already placed, the processor is outside its
            affinity, a predecessor is unplaced, or ``start`` breaks a rule.
        """
        ids = self.problem.task_ids
        if self.proc[task] >= 0:
            raise ValueError(f"task {ids[task]}: already placed")
        if not self._s.allowed[task, processor]:
            raise ValueError(
                f"task {ids[task]}: may not run on processor "
                f"{self.problem.proc_ids[processor]} (affinity)"
            )
        if start is None:
            start = float(self.eft(task)[0][processor])
        else:
            start = float(start)
            self._check_start(task, processor, start)
        self._commit(task, processor, start)

    def copy(self) -> ScheduleBuilder:
        """An independent copy (shares only read-only data with this builder)."""
        other = object.__new__(ScheduleBuilder)
        other.problem = self.problem
        other.insertion = self.insertion
        other._s = self._s
        for name in ("proc", "start", "finish", "_avail", "_gs", "_ge", "_n_gaps"):
            setattr(other, name, getattr(self, name).copy())
        other._max_len = self._max_len.copy()
        other._last_end = self._last_end.copy()
        other._remaining = list(self._remaining)
        other._n_placed = self._n_placed
        other._last = None
        other._keep_last = False
        other._net = self._net.copy() if self._net is not None else None
        return other

    def to_schedule(self) -> Schedule:
        """The finished schedule.

        Raises
        ------
        ValueError
            If some task is not placed.
        """
        if self._n_placed < self._s.n:
            first = int(np.argmin(self.proc))
            raise ValueError(f"task {self.problem.task_ids[first]}: not placed")
        messages = self._net.messages() if self._net is not None else ()
        return Schedule.from_arrays(self.problem, self.proc, self.start, messages)

    # ---- internals -------------------------------------------------------------------

    def _earliest(self, task: int, ready: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Earliest start at or after ``ready`` on every processor (timeline + isolation)."""
        est = self._timeline_earliest(task, ready, d)
        if self._s.iso[task]:
            est = self._isolation_earliest(task, est, d)
        return est

    def _timeline_earliest(self, task: int, ready: np.ndarray, d: np.ndarray) -> np.ndarray:
        est = np.maximum(self._avail, ready)
        if self.insertion:
            # A gap of processor q can hold the task only if it is long enough and
            # ends late enough: two O(P) tests rule out most processors.
            # (Both in the fit test's own terms, so no gap that fits is ruled out.)
            cand = (self._max_len >= d) & (snap(ready + d, self._s.grid) <= self._last_end)
            if cand.any():
                rows = np.flatnonzero(cand)
                width = int(self._n_gaps[rows].max())
                if len(rows) == len(cand):
                    gs, ge, r, dd = self._gs[:, :width], self._ge[:, :width], ready, d
                else:
                    gs, ge = self._gs[rows, :width], self._ge[rows, :width]
                    r, dd = ready[rows], d[rows]
                begin = np.maximum(gs, r[:, None])
                begin[snap(begin + dd[:, None], self._s.grid) > ge] = np.inf
                est[rows] = np.minimum(est[rows], begin.min(axis=1))
            if self._s.has_zero[task]:
                zero = d == 0
                est[zero] = ready[zero]  # occupies nothing, so it may start anywhere
        if self._s.restricted[task]:
            est[~self._s.allowed[task]] = np.inf
        return est

    def _isolation_earliest(self, task: int, est: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Push starts past the intervals of placed isolation partners, on every processor.

        Alternates two steps until nothing moves: jump past every partner
        interval the candidate ``[t, t + d)`` overlaps, then take the earliest
        timeline start from there. Both steps only move ``t`` forward, and each
        jump lands on a partner's finish, so it ends after at most one round
        per partner and gap.
        """
        # Every placed partner of positive cost blocks, even one whose float finish
        # equals its start (it may still not lie strictly inside this task).
        partners = [q for q in self._s.iso[task] if self._occupies(q)]
        if not partners:
            return est
        bs, bf = self.start[partners], self.finish[partners]
        active = (d > 0) & np.isfinite(est)
        while True:
            end = snap(est + d, self._s.grid)
            clash = (bs < end[:, None]) & (bf > est[:, None]) & active[:, None]
            moved = clash.any(axis=1)
            if not moved.any():
                return est
            jump = np.where(clash, bf, -np.inf).max(axis=1)
            est = self._timeline_earliest(task, np.where(moved, jump, est), d)

    def _check_start(self, task: int, processor: int, start: float) -> None:
        ids = self.problem.task_ids
        if not start >= 0:
            raise ValueError(f"task {ids[task]}: start {start} is negative")
        ready = float(self.data_ready(task)[processor])
        if start < ready:
            raise ValueError(
                f"task {ids[task]}: start {start:g} is before its data are ready at {ready:g}"
            )
        cost = float(self._s.cost[task, processor])
        finish = snap(start + cost, self._s.grid)
        if cost > 0:  # positive cost occupies time, even below half an ulp of its start
            for q in self._s.iso[task]:
                if self._occupies(q) and self.start[q] < finish and start < self.finish[q]:
                    raise ValueError(f"task {ids[task]}: overlaps its isolation partner {ids[q]}")

    def _commit(self, task: int, processor: int, start: float) -> list[int]:
        """Record the placement; return the tasks it makes ready."""
        if self._net is not None:
            self._net.book(self, task, processor, start)
        cost = float(self._s.cost[task, processor])
        finish = snap(start + cost, self._s.grid)
        if cost > 0:  # not `finish > start`: a sub-ulp cost still occupies [start, start]
            self._occupy(processor, start, finish)
        self.proc[task] = processor
        self.start[task] = start
        self.finish[task] = finish
        self._n_placed += 1
        remaining = self._remaining
        ready = []
        for j in self._s.succ[task]:
            remaining[j] -= 1
            if remaining[j] == 0:
                ready.append(j)
        return ready

    def _occupy(self, p: int, s: float, f: float) -> None:
        """Mark ``[s, f)`` busy on processor ``p`` (splitting the idle gap it lies in)."""
        avail = self._avail[p]
        if s >= avail:
            if s > avail:
                self._add_gap(p, avail, s)
            self._avail[p] = f
            return
        k = int(self._n_gaps[p])
        gs, ge = self._gs[p], self._ge[p]
        hit = np.flatnonzero((gs[:k] <= s) & (ge[:k] >= f))
        if not len(hit) and s == f and not self._inside(p, s):
            return  # a sub-ulp task where two busy intervals touch: it changes no gap
        if not len(hit):
            raise ValueError(
                f"processor {self.problem.proc_ids[p]}: [{s:g}, {f:g}) overlaps a placed task"
            )
        g = int(hit[0])
        a, b = gs[g], ge[g]
        # Remove gap g by moving the last gap into its slot.
        gs[g], ge[g] = gs[k - 1], ge[k - 1]
        gs[k - 1], ge[k - 1] = np.inf, -np.inf
        self._n_gaps[p] = k - 1
        if s > a:
            self._add_gap(p, a, s)
        if f < b:
            self._add_gap(p, f, b)
        k = int(self._n_gaps[p])
        gs, ge = self._gs[p], self._ge[p]  # again: _add_gap may have grown the arrays
        if k:
            self._max_len[p] = _spared(ge[:k] - gs[:k], ge[:k]).max()
            self._last_end[p] = ge[:k].max()
        else:
            self._max_len[p] = self._last_end[p] = -np.inf

    def _occupies(self, q: int) -> bool:
        """Whether placed task ``q`` occupies time: a positive cost, however small."""
        p = int(self.proc[q])
        return p >= 0 and bool(self._s.cost[q, p] > 0)

    def _inside(self, p: int, t: float) -> bool:
        """Whether a placed task of positive cost on ``p`` holds ``t`` strictly inside."""
        on = np.flatnonzero(self.proc == p)
        busy = self._s.cost[on, p] > 0
        return bool(((self.start[on] < t) & (t < self.finish[on]) & busy).any())

    def _add_gap(self, p: int, a: float, b: float) -> None:
        k = int(self._n_gaps[p])
        if k == self._gs.shape[1]:
            # Grow every row by doubling; the new slots are empty.
            pad = np.full(self._gs.shape, np.inf)
            self._gs = np.concatenate([self._gs, pad], axis=1)
            self._ge = np.concatenate([self._ge, -pad], axis=1)
        self._gs[p, k] = a
        self._ge[p, k] = b
        self._n_gaps[p] = k + 1
        length = (b - a) + 2 * math.ulp(b)  # _spared, for one finite gap end
        if length > self._max_len[p]:
            self._max_len[p] = length
        if b > self._last_end[p]:
            self._last_end[p] = b


def _spared(length: float | np.ndarray, end: float | np.ndarray) -> float | np.ndarray:
    """A gap's length with two ulps of its end added (see ``ScheduleBuilder._max_len``).

    >>> a, d = 3668.4220774072655, 2858.4670664823175
    >>> b = a + d
    >>> b - a >= d, bool(_spared(b - a, b) >= d)
    (False, True)
    """
    return length + 2 * np.spacing(np.abs(end))


def min_eft(builder: ScheduleBuilder, task: int) -> int:
    """HEFT's processor selection: least earliest finish time, ties lowest index.

    Examples
    --------
    >>> from exactsched import Problem
    >>> min_eft(ScheduleBuilder(Problem.from_lists([[3, 2, 2]])), 0)
    1
    """
    return int(np.argmin(builder.eft(task)[1]))


def list_schedule(
    problem: Problem,
    priority: np.ndarray,
    *,
    insertion: bool = True,
    select: Callable[[ScheduleBuilder, int], int] | None = None,
) -> Schedule:
    """Ready-list scheduling: highest-priority ready task first, on the processor ``select`` picks.

    Parameters
    ----------
    problem : Problem
    priority : array_like
        ``(n,)`` priorities; larger goes first, ties go to the lower task index.
        Only ready tasks compete, so any priority gives a valid schedule.
    insertion : bool
        Insertion-based placement (default True).
    select : callable, optional
        ``select(builder, task) -> processor``; the task is then placed at its
        earliest start there. Default: least earliest finish time, ties lowest
        processor index.

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        If ``priority`` has the wrong shape or contains nan.

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[2, 3], [1, 1], [4, 2]], [(0, 1, 4), (0, 2, 1)])
    >>> s = list_schedule(p, [3.0, 1.0, 2.0])
    >>> s.makespan, validate(p, s)
    (5, [])
    """
    prio = np.asarray(priority, dtype=float)
    if prio.shape != (problem.n_tasks,):
        raise MethodError(f"priority: shape {prio.shape}, expected ({problem.n_tasks},)")
    if np.isnan(prio).any():
        raise MethodError("priority: contains nan")
    builder = ScheduleBuilder(problem, insertion=insertion)
    neg = (-prio).tolist()
    heap = [(neg[i], i) for i in builder.ready_tasks().tolist()]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    # The ready list guarantees placed predecessors: skip eft's check.
    commit, earliest, data_ready = builder._commit, builder._earliest, builder._data_ready
    cost = problem.cost
    builder._keep_last = select is not None
    while heap:
        task = pop(heap)[1]
        if select is None:
            d = cost[task]
            est = earliest(task, data_ready(task), d)
            p = int(snap(est + d, builder._s.grid).argmin())
            ready = commit(task, p, float(est[p]))
        else:
            p = int(select(builder, task))
            if not 0 <= p < problem.n_processors or not problem.allowed[task, p]:
                raise MethodError(
                    f"select: processor {p} is not allowed for task {problem.task_ids[task]}"
                )
            last = builder._last
            if last is not None and last[0] == task and last[1] == builder._n_placed:
                est = last[2]  # select just computed it; nothing was placed since
            else:
                est = builder.eft(task)[0]
            ready = commit(task, p, float(est[p]))
        for j in ready:
            push(heap, (neg[j], j))
    builder._keep_last = False
    return builder.to_schedule()


def ready_starts(builder: ScheduleBuilder, task: int) -> np.ndarray:
    """``(P,)`` earliest starts of a *ready* task, without re-checking its predecessors.

    The fast path of :meth:`ScheduleBuilder.eft` for list schedulers that only
    ask about tasks of their ready list (every predecessor placed); ``inf``
    outside the task's affinity. Pair it with :func:`commit_start`.

    Examples
    --------
    >>> from exactsched import Problem
    >>> b = ScheduleBuilder(Problem.from_lists([[2, 3], [1, 1]], [(0, 1, 4)]))
    >>> ready_starts(b, 0).tolist()
    [0.0, 0.0]
    """
    return builder._earliest(task, builder._data_ready(task), builder._s.cost[task])


def commit_start(builder: ScheduleBuilder, task: int, processor: int, start: float) -> list[int]:
    """Place a ready task at a start taken from :func:`ready_starts`; return the tasks it readies.

    Unlike :meth:`ScheduleBuilder.place`, nothing is re-checked: ``start``
    must be the earliest start on ``processor`` computed since the last
    placement (or any later start the timeline and partners leave free).

    Examples
    --------
    >>> from exactsched import Problem
    >>> b = ScheduleBuilder(Problem.from_lists([[2, 3], [1, 1]], [(0, 1, 4)]))
    >>> commit_start(b, 0, 1, float(ready_starts(b, 0)[1]))
    [1]
    """
    return builder._commit(task, processor, float(start))


def column_starts(
    builder: ScheduleBuilder, tasks: np.ndarray, ready: np.ndarray, processor: int
) -> np.ndarray:
    """Earliest starts of many ready tasks on one processor, in one vectorised pass.

    Parameters
    ----------
    builder : ScheduleBuilder
    tasks : array_like
        ``(m,)`` task indices.
    ready : array_like
        ``(m,)`` their data-ready times on ``processor`` (column ``processor``
        of :meth:`ScheduleBuilder.data_ready`).
    processor : int

    Returns
    -------
    numpy.ndarray
        ``(m,)`` the starts :meth:`ScheduleBuilder.earliest_start` gives on
        ``processor`` (idle gaps, zero-cost tasks, affinity), **ignoring
        isolation partners**: callers recompute tasks with placed partners
        with :meth:`ScheduleBuilder.earliest_start`. Costs ``O(m G)`` for
        ``G`` idle gaps on the processor (in bounded chunks).

    Examples
    --------
    >>> from exactsched import Problem
    >>> b = ScheduleBuilder(Problem.from_lists([[2], [1], [3]]))
    >>> b.place(0, 0, start=2.0)
    >>> column_starts(b, [1, 2], [0.0, 0.0], 0).tolist()
    [0.0, 4.0]
    """
    s = builder._s
    tasks = np.asarray(tasks, dtype=np.int64)
    ready = np.asarray(ready, dtype=float)
    d = s.cost[tasks, processor]
    est = np.maximum(builder._avail[processor], ready)
    if builder.insertion and len(tasks):
        k = int(builder._n_gaps[processor])
        shortest = d.min() if k else 0.0
        if k and builder._max_len[processor] >= shortest:
            gs = builder._gs[processor, :k]
            ge = builder._ge[processor, :k]
            # Only gaps long enough for the shortest task and ending late enough
            # for the earliest ready time can hold any of them.
            useful = (_spared(ge - gs, ge) >= shortest) & (
                snap(ready.min() + shortest, s.grid) <= ge
            )
            gs, ge = gs[useful], ge[useful]
            k = len(gs)
            step = max(1, 2_000_000 // max(k, 1))
            for lo in range(0, len(tasks) if k else 0, step):
                r, dd = ready[lo : lo + step], d[lo : lo + step]
                begin = np.maximum(gs[None, :], r[:, None])
                begin[snap(begin + dd[:, None], s.grid) > ge[None, :]] = np.inf
                est[lo : lo + step] = np.minimum(est[lo : lo + step], begin.min(axis=1))
        zero = d == 0
        est[zero] = ready[zero]  # occupies nothing, as in ScheduleBuilder.eft
    est[~s.allowed[tasks, processor]] = np.inf
    return est


def start_on(builder: ScheduleBuilder, task: int, processor: int) -> float:
    """Earliest start of a *ready* task on one processor (isolation partners included).

    Equal to ``ready_starts(builder, task)[processor]`` at ``O(in-degree + G)``
    instead of ``O(P)`` work.

    Examples
    --------
    >>> from exactsched import Problem
    >>> b = ScheduleBuilder(Problem.from_lists([[2, 2], [1, 1]], [(0, 1, 4)]))
    >>> b.place(0, 0)
    >>> start_on(b, 1, 0), start_on(b, 1, 1)
    (2.0, 6.0)
    """
    s = builder._s
    if s.iso[task]:
        return float(ready_starts(builder, task)[processor])
    a, b = s.in_ptr[task], s.in_ptr[task + 1]
    if a == b:
        ready = 0.0
    else:
        src = s.in_src[a:b]
        ready = snap(
            float(
                (builder.finish[src] + s.in_unit[a:b] * s.hops[builder.proc[src], processor]).max()
            ),
            s.grid,
        )
        if builder._net is not None:  # messages wait too, never less than the delay
            ready = max(ready, builder._net.ready_on(builder, task, processor))
    if not s.allowed[task, processor]:
        return float("inf")
    # column_starts for one task, in scalars (this is the hot path of pinned tasks).
    d = float(s.cost[task, processor])
    if builder.insertion and d == 0:
        return ready
    est = max(float(builder._avail[processor]), ready)
    if (
        builder.insertion
        and builder._max_len[processor] >= d
        and snap(ready + d, s.grid) <= builder._last_end[processor]
    ):
        k = int(builder._n_gaps[processor])
        begin = np.maximum(builder._gs[processor, :k], ready)
        fits = snap(begin + d, s.grid) <= builder._ge[processor, :k]
        if fits.any():
            est = min(est, float(begin[fits].min()))
    return est
