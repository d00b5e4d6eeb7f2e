"""The referee: checks a schedule against its problem, independently of any method.

This module deliberately shares no code with the schedulers (it reads the raw
arrays of :class:`~exactsched.problem.Problem` and nothing else), so a bug in a
heuristic or a model cannot hide a bug here.

Rules (``docs/instance-format.md``, "Schedules"): every task placed once on a
processor it may run on, ``finish = start + cost`` and ``start >= 0``; no two
tasks on one processor overlap (touching is allowed); every edge waits for its
communication delay; every order pair waits for the finish; no isolation pair
overlaps in time; a document's ``makespan``, if given, is its largest finish
(not judged when a task is left out, which is reported instead).

Exactness. Every number a comparison reads (start, finish, cost, latency,
bandwidth, data, hops) is first read as the decimal it prints as (Python's
shortest round-trip ``repr``). When all of them are *exact decimals*, i.e.
have at most 15 significant digits (not counting the zeros that only place the
point, so ``9007199254751000`` has 13 and ``5e-324`` one; every integer below
2**53 is one too, and so are times a person or a correctly rounded sum writes
down), the comparison is made exactly, in integer arithmetic after scaling by a
common power of ten, however many places that takes: there is no slack at all,
whatever the size of the other times in the schedule. A
time with 16 or 17 significant digits is a floating-point artefact (``0.1 +
0.2`` is ``0.30000000000000004``); a comparison that reads one is made in
floating point with the *float noise* of the two quantities compared as its only
slack: ``x <= y`` is violated when ``x - y > 8 ulp(max(|x|, |y|))``
(:data:`NOISE_ULPS`): every rule is local (a start against one end or one
arrival), so a correctly computed float time differs from the referee's
evaluation of the same expression by a few roundings, however long the
schedule. A 16-digit time therefore buys no more than a correctly computed
float needs (at 1e12 an ulp is 1.2e-4: a slack of 1e-9 relative, as before, hid
1000 units there, and one of ``(4 n + 2)`` ulps a whole task among many at 1e15). The
shortest ``repr`` of a float near an exact decimal ``d`` (within a few units
in the last place) is ``d`` itself only when it *is* ``d`` rounded, so a
correctly computed time is never mistaken for a different exact decimal.
An exact comparison that fails is confirmed on the binary floats a schedule is
written in, and stands only if it fails there too, in both of two readings of the
same expression (``start + cost``, or an arrival ``end + hops * (latency + data /
bandwidth)``): its exact value rounded to the nearest float, and its IEEE
evaluation on the floats of the data (the sum ``Schedule.from_arrays`` and the
list schedulers compute off a decimal grid; on decimal data they write the exact
decimal, :mod:`exactsched._time_grid`). The two can differ from each other by a unit in the
last place, since the floats of the data are not their decimals: ``85.1156893939394
+ 4.90247619047619`` is ``90.01816558441559`` in decimals, which rounds to the
float ``90.01816558441558``, while the float sum is ``90.0181655844156``; both
are correct finishes, ``90.0181655844157`` is not. On integer data below 2**53
every sum is a float, so this changes nothing; it spares only differences that
no float schedule can express (a start of 2e6 and a cost of 1e-10 end at
2000000.0000000001, which is no float) or that come from rounding a sum once.

Speed. Every rule reads some ``x < y`` (a start before an end or an arrival),
and both readings above need ``x < y`` in floating point to find a violation. So
the comparisons are screened in floating point first, and the exact reading (the
costly part: ``repr`` of every number) is made only when some comparison is not
settled by ``x >= y``; a valid schedule written by a list scheduler usually never
needs it (5,000 tasks x 50 processors: 9 ms instead of 55 ms). The verdict and every
message are the same either way (``tests/test_validate.py``).

Zero-length tasks (cost 0 on their processor) occupy no processor time: their
empty interval overlaps nothing, on a processor or in an isolation pair, so they
may start inside another task; edges and order pairs bind them as written
(``docs/instance-format.md``, "Zero-length tasks"). Only a cost of exactly 0 does
that: a positive cost below half a unit in the last place of the start
(``start + cost == start`` in floating point) still occupies its processor, and
such a task starting strictly inside another (or inside an isolation partner: the
pair is judged like two tasks of one processor) is an overlap (moving it out takes
far more than a rounding error), while touching is allowed as usual.

Times in messages are printed exactly (12 significant digits, more when needed).
A start or finish that is not a finite number (NaN, inf, None) is a violation.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from exactsched.errors import ScheduleError
from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = [
    "validate",
    "assert_valid",
    "makespan_violation",
    "float_noise",
    "NOISE_ULPS",
    "EXACT_DIGITS",
]

EXACT_DIGITS = 15
"""Significant digits up to which a number is read as an exact decimal."""


def validate(
    problem: Problem | Mapping[str, Any] | str | os.PathLike[str],
    schedule: Schedule | Mapping[str, Any] | str | os.PathLike[str],
    *,
    tol: float | None = None,
) -> list[str]:
    """Every violation of the schedule rules, as readable sentences.

    Parameters
    ----------
    problem : Problem, mapping or path
        The instance (a :class:`Problem`, an instance document or a JSON file).
    schedule : Schedule, mapping or path
        The schedule (a :class:`Schedule`, an ``exactsched/schedule@1``
        document, e.g. ``Result.to_json()``, or a JSON file).
    tol : float, optional
        An absolute slack for every time comparison, in floating point,
        instead of the exact and relative comparisons described in the module
        docstring (``tol=0.0``: plain floating-point comparisons, under which a
        finish written as the decimal ``0.3`` is not ``0.2 + 0.1``; the project's
        schedules on decimal data write such decimals, see
        :mod:`exactsched._time_grid`).

    Returns
    -------
    list of str
        Empty when the schedule is valid.

    Raises
    ------
    InstanceError, ScheduleError
        When ``problem`` or ``schedule`` is a document or file that cannot be
        read, or ``tol`` is not None or a finite number >= 0.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> p = Problem.from_lists([[2, 2], [1, 1]], [(0, 1, 3)])
    >>> ok = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p0", 2, 3)})
    >>> validate(p, ok)
    []
    >>> bad = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p1", 4, 5)})
    >>> for violation in validate(p, bad):
    ...     print(violation)  # doctest: +NORMALIZE_WHITESPACE
    edge t0 -> t1: t1 starts at 4 on p1 but the data arrive at 5
    (t0 finishes at 2 on p0, communication 3)
    >>> validate(p, ok.to_json()) == validate(p, ok)   # a schedule document
    True
    """
    tol = _check_tol(tol)
    problem = _as_problem(problem)
    schedule = _as_schedule(schedule)
    problems: list[str] = []
    ids = problem.task_ids
    n = problem.n_tasks
    known = problem.task_index
    for task in schedule:
        if task not in known:
            problems.append(f"task {task}: not in the instance")

    # Per task: processor, start, finish as given, cost there; ``ok`` once placed legally.
    proc = np.full(n, -1, dtype=np.int64)
    start = np.zeros(n)
    finish = np.zeros(n)
    rows: list[tuple[int, str, Any, Any]] = []
    unscheduled: list[int] = []
    for i, task in enumerate(ids):
        if task not in schedule:
            problems.append(f"task {task}: not scheduled")
            unscheduled.append(i)
            continue
        pl = schedule[task]
        if pl.processor not in problem.proc_index:
            problems.append(f"task {task}: unknown processor {pl.processor}")
            continue
        p = problem.proc_index[pl.processor]
        if not problem.allowed[i, p]:
            problems.append(f"task {task}: may not run on processor {pl.processor} (affinity)")
            continue
        # NaN would pass every comparison below: refuse what is not a finite time.
        if _is_plain_finite(pl.start) and _is_plain_finite(pl.finish):
            bad = []
        else:
            bad = [k for k in ("start", "finish") if not _is_finite_time(getattr(pl, k))]
        if bad:
            problems.extend(
                f"task {task}: {k} {getattr(pl, k)!r} is not a finite number" for k in bad
            )
            continue
        proc[i], start[i], finish[i] = p, float(pl.start), float(pl.finish)
        rows.append((i, task, pl.start, pl.finish))
    ok = proc >= 0
    cost = np.zeros(n)
    cost[ok] = problem.cost[ok.nonzero()[0], proc[ok]]
    end = start + cost  # the finish every later rule reads (start + cost, as the rules say)

    # The exact numbers are built only when a comparison needs them (_Screen).
    num = _Screen(problem, proc, start, finish, cost, ok, tol)
    negative = start < (-tol if tol is not None else 0.0)  # exact or not: any start below 0
    wrong = num.finish_violations()
    for i, task, s, f in rows:
        if negative[i]:
            problems.append(f"task {task}: starts at {_t(s)} < 0")
        if wrong[i]:
            problems.append(
                f"task {task}: finish {_t(f)} is not start {_t(s)} "
                f"+ cost {_t(cost[i])} on {problem.proc_ids[proc[i]]}"
            )

    # Rule 1: no overlap on a processor. Sorting by (start, end) puts zero-length tasks
    # first, so comparing each task with the latest end so far is enough, but for one
    # thing: an end read with the float noise can hide a later exact end that ties with
    # it in floating point (1e15 + 0.2 and 1e15 + 0.30000000000000004 both round to
    # 1e15 + 0.25). So a task the holder does not refute is also compared with the
    # earlier tasks still running in floating point (rarely more than the holder).
    placed = np.flatnonzero(ok)
    rank = np.zeros(n, dtype=np.int64)  # lanes in the order their processors first appear
    lanes, first = np.unique(proc[placed], return_index=True)
    rank[placed] = np.argsort(np.argsort(first))[np.searchsorted(lanes, proc[placed])]
    by_lane = placed[np.lexsort((end[placed], start[placed], rank[placed]))]
    by_lane = by_lane[num.lanes_to_check(by_lane, rank)].tolist()
    lane, holder, running = -1, -1, []
    for i in by_lane:
        if rank[i] != lane:
            lane, holder, running = rank[i], -1, []
        running = [j for j in running if end[j] > start[i]]  # a float x >= y never violates
        if num.positive(i):
            over = holder if holder >= 0 and num.less_end(i, holder) else -1
            if over < 0:
                over = next((j for j in running if j != holder and num.less_end(i, j)), -1)
            if over >= 0:
                problems.append(
                    f"processor {problem.proc_ids[proc[i]]}: {ids[over]} [{_t(start[over])}, "
                    f"{_t(end[over])}) overlaps {ids[i]} [{_t(start[i])}, {_t(end[i])})"
                )
            running.append(i)
        if holder < 0 or num.later_end(i, holder):
            holder = i

    # Rule 2: edges wait for their data.
    src, dst = problem.edge_src.astype(np.int64), problem.edge_dst.astype(np.int64)
    both = ok[src] & ok[dst]
    late = num.edge_violations(src, dst, both)
    for e in np.flatnonzero(late).tolist():
        a, b = int(src[e]), int(dst[e])
        delay = num.delay_float(e)
        problems.append(
            f"edge {ids[a]} -> {ids[b]}: {ids[b]} starts at {_t(start[b])} on "
            f"{problem.proc_ids[proc[b]]} but the data arrive at {_t(end[a] + delay)} "
            f"({ids[a]} finishes at {_t(end[a])} on {problem.proc_ids[proc[a]]}, "
            f"communication {_t(delay)})"
        )

    # Rule 3: order pairs wait for the finish.
    osrc, odst = problem.order_src.astype(np.int64), problem.order_dst.astype(np.int64)
    keep = ok[osrc] & ok[odst]
    keep &= start[odst] < end[osrc]  # a start at or after the end never violates
    early = np.zeros(len(osrc), dtype=bool)
    if keep.any():
        early[keep] = num.less_vec(osrc[keep], odst[keep])
    for k in np.flatnonzero(early).tolist():
        a, b = int(osrc[k]), int(odst[k])
        problems.append(
            f"order {ids[a]} -> {ids[b]}: {ids[b]} starts at {_t(start[b])} before "
            f"{ids[a]} finishes at {_t(end[a])}"
        )

    # Rule 4: isolation pairs never overlap in time, on any processors. Judged as rule 1
    # judges a lane: the later of the two by (start, end) must not start before the other
    # ends. (Also asking the earlier to start before the later ends let a task shorter
    # than the float noise start strictly inside its partner: an outside audit.)
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if not (ok[a] and ok[b]):
            continue
        first, later = (a, b) if (start[a], end[a]) <= (start[b], end[b]) else (b, a)
        if start[later] >= end[first]:
            continue  # touching or apart never violates
        if num.positive(a) and num.positive(b) and num.less_end(later, first):
            problems.append(
                f"isolation {ids[a]} / {ids[b]}: [{_t(start[a])}, {_t(end[a])}) and "
                f"[{_t(start[b])}, {_t(end[b])}) overlap in time"
            )

    # Rule 6: ports and links under the single-port and contention models.
    if problem.communication != "delay":
        from exactsched.validate_comm import message_violations

        problems.extend(message_violations(problem, schedule, proc, tol=tol))

    # A document's stated makespan is its largest finish. Not judged when a task is left
    # out: that lowers the largest finish, and "not scheduled" is the fault to report.
    wrong = makespan_violation(schedule, tol=tol) if len(unscheduled) == 0 else None
    if wrong:
        problems.append(wrong)
    return problems


def makespan_violation(schedule: Schedule, *, tol: float | None = None) -> str | None:
    """Whether the makespan a schedule document states is not its largest finish.

    Compared like every time of :func:`validate`: exactly on exact decimals,
    else within the float noise (``tol``: an absolute slack).

    Parameters
    ----------
    schedule : Schedule
        Its :attr:`~Schedule.claimed_makespan` is read (None: nothing to check).
    tol : float, optional

    Returns
    -------
    str or None
        The violation, or None.

    Examples
    --------
    >>> doc = {"format": "exactsched/schedule@1", "makespan": 5000000001499,
    ...        "tasks": [{"id": "a", "processor": "p", "start": 0, "finish": 5000000001166}]}
    >>> makespan_violation(Schedule.from_json(doc, check_makespan=False))
    'makespan: 5000000001499 but the largest finish is 5000000001166'
    """
    claimed = schedule.claimed_makespan
    if claimed is None:
        return None
    actual = schedule.makespan
    x, y = float(claimed), float(actual)
    if tol is not None:
        wrong = abs(x - y) > tol
    else:
        # Exact decimals must be the same decimal, i.e. the same float; others get the slack.
        exact = bool(_exact_places(np.array([x, y]))[0].all())
        wrong = x != y if exact else abs(x - y) > float_noise(x, y)
    return f"makespan: {_t(x)} but the largest finish is {_t(y)}" if wrong else None


class _Numbers:
    """The times and data of one check, in floating point and, where exact, scaled integers.

    ``s``, ``e`` (start and start + cost) and ``f`` (finish as given) are object
    arrays of Python integers, all scaled by ``scale = 10**places``; ``ex_s``,
    ``ex_e`` and ``ex_f`` say where they are exact. Comparisons use them when
    every number read is exact, else the floats within the float noise.
    """

    def __init__(
        self,
        problem: Problem,
        proc: np.ndarray,
        start: np.ndarray,
        finish: np.ndarray,
        cost: np.ndarray,
        ok: np.ndarray,
        tol: float | None,
    ) -> None:
        self.problem, self.proc, self.tol = problem, proc, tol
        self.start, self.finish, self.cost = start, finish, cost
        self.end = start + cost
        src, dst = problem.edge_src.astype(np.int64), problem.edge_dst.astype(np.int64)
        hop = np.zeros(len(src))
        both = ok[src] & ok[dst]
        hop[both] = problem.hops[proc[src[both]], proc[dst[both]]]
        self.hop = hop
        self.lat, self.bw = float(problem.latency), float(problem.bandwidth)
        self.data = problem.edge_data.astype(float)
        if tol is not None:  # floating point throughout: nothing is exact
            self.ex_s = self.ex_f = self.ex_e = np.zeros(len(start), dtype=bool)
            self.ex_edge = self.zero_comm = np.zeros(len(src), dtype=bool)
            self.s = self.f = self.e = np.zeros(len(start), dtype=object)
            return
        groups = [start, finish, cost, hop, self.data, np.array([self.lat, self.bw])]
        exact = [_exact_places(g) for g in groups]
        used = [
            places[mask & live]
            for (mask, places), live in zip(
                exact,
                [ok, ok, ok, both, both, np.ones(2, dtype=bool)],
                strict=True,
            )
        ]
        self.places = max((int(u.max()) for u in used if len(u)), default=0)
        scaled = [
            _scaled(g, mask, self.places) for g, (mask, _) in zip(groups, exact, strict=True)
        ]
        (mask_s, mask_f, mask_c, mask_h, mask_d, mask_n) = (m for m, _ in exact)
        self.s, self.f = scaled[0], scaled[1]
        self.ex_s, self.ex_f = mask_s & ok, mask_f & ok
        self.ex_e = self.ex_s & mask_c
        self.e = np.zeros(len(start), dtype=object)
        self.e[self.ex_e] = scaled[0][self.ex_e] + scaled[2][self.ex_e]
        self.h, self.d = scaled[3], scaled[4]
        self.l_, self.b_ = scaled[5][0], scaled[5][1]
        self.ex_net = bool(mask_n.all())
        # An edge inside one processor (or across zero hops) reads no network number:
        # only its two tasks' times decide it, so they alone must be exact.
        self.zero_comm = both & (hop == 0)
        self.ex_edge = (
            both
            & (self.zero_comm | (mask_h & mask_d & self.ex_net))
            & self.ex_e[src]
            & self.ex_s[dst]
        )

    # ---- scalar comparisons ------------------------------------------------------------

    def slack(self, x: float, y: float) -> float:
        """The slack of comparing ``x`` and ``y``: ``tol``, or their float noise."""
        if self.tol is not None:
            return self.tol
        return float_noise(float(x), float(y))

    def less(self, xe: Any, ye: Any, x: float, y: float, exact: bool) -> bool:
        """``x < y`` beyond the slack (exactly when ``exact``).

        ``x`` and ``y`` are the floats: ``y`` is the IEEE evaluation of the
        expression whose exact value is ``ye``. An exact violation must also
        hold on the correctly rounded ``ye`` and on ``y`` to stand.
        """
        if exact:
            return bool(xe < ye) and self._float(xe) < self._float(ye) and x < y
        return x < y - self.slack(x, y)

    def finish_violations(self) -> np.ndarray:
        """Placed tasks whose finish is not their start plus their cost."""
        exact = self.ex_f & self.ex_e
        out = np.zeros(len(self.start), dtype=bool)
        out[exact] = self.f[exact] != self.e[exact]
        for i in np.flatnonzero(out & exact).tolist():  # confirm on the floats, both ways
            f = self._float(self.f[i])
            out[i] = f != self._float(self.e[i]) and f != self.end[i]
        loose = ~exact & (self.proc >= 0)
        f, e = self.finish[loose], self.end[loose]
        out[loose] = np.abs(f - e) > self._slack_vec(f, e)
        return out

    def positive(self, i: int) -> bool:
        """Whether task ``i`` has a positive length (zero-length tasks overlap nothing).

        A property of the data, not of rounding: a positive cost below half a
        unit in the last place of the start (``start + cost == start`` in
        floating point) still occupies the processor, so such a task may touch
        another task but not start strictly inside it.
        """
        return bool(self.cost[i] > 0)

    def less_end(self, i: int, holder: int) -> bool:
        """Whether ``i`` starts before ``holder`` ends."""
        exact = bool(self.ex_s[i] and self.ex_e[holder])
        return self.less(self.s[i], self.e[holder], self.start[i], self.end[holder], exact)

    def later_end(self, i: int, holder: int) -> bool:
        """Whether ``i`` ends after ``holder`` (which end holds the lane; no slack)."""
        if self.ex_e[i] and self.ex_e[holder]:
            return bool(self.e[i] > self.e[holder])
        return bool(self.end[i] > self.end[holder])

    # ---- vectorised comparisons ----------------------------------------------------------

    def less_vec(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``start[b] < end[a]`` beyond the slack, for index arrays ``a`` and ``b``."""
        exact = self.ex_e[a] & self.ex_s[b]
        out = np.zeros(len(a), dtype=bool)
        out[exact] = self.s[b[exact]] < self.e[a[exact]]
        for k in np.flatnonzero(out & exact).tolist():  # confirm on the floats, both ways
            x = self._float(self.s[b[k]])
            out[k] = x < self._float(self.e[a[k]]) and x < self.end[a[k]]
        loose = ~exact
        x, y = self.start[b[loose]], self.end[a[loose]]
        out[loose] = x < y - self._slack_vec(x, y)
        return out

    def delay_float(self, e: int) -> float:
        if self.hop[e] == 0:
            return 0.0
        return float(self.hop[e] * (self.lat + self.data[e] / self.bw))

    def edge_violations(self, src: np.ndarray, dst: np.ndarray, both: np.ndarray) -> np.ndarray:
        """Edges whose destination starts before the data arrive."""
        out = np.zeros(len(src), dtype=bool)
        local = self.ex_edge & both & self.zero_comm
        if local.any():  # no delay: start_b >= end_a, as for an order pair
            k = np.flatnonzero(local)
            out[k] = self.less_vec(src[k], dst[k])
        exact = self.ex_edge & both & ~self.zero_comm
        if exact.any():
            # start_b >= end_a + hop (lat + data / bw), everything scaled by D = 10**places:
            # (s'_b - e'_a) * D * bw' >= hop' * (lat' * bw' + data' * D).
            scale = 10**self.places
            a, b = src[exact], dst[exact]
            lhs = (self.s[b] - self.e[a]) * (scale * self.b_)
            rhs = self.h[exact] * (self.l_ * self.b_ + self.d[exact] * scale)
            out[exact] = lhs < rhs
            for k in np.flatnonzero(out & exact).tolist():  # confirm on the floats
                arrival = Fraction(  # e_a + hop (lat + data / bw), unscaled
                    self.e[src[k]] * scale * self.b_
                    + self.h[k] * (self.l_ * self.b_ + self.d[k] * scale),
                    scale * scale * self.b_,
                )
                x = self._float(self.s[dst[k]])
                out[k] = x < float(arrival) and x < self.end[src[k]] + self.delay_float(k)
        loose = both & ~self.ex_edge
        if loose.any():
            a, b = src[loose], dst[loose]
            hop = self.hop[loose]
            delay = np.where(hop == 0, 0.0, hop * (self.lat + self.data[loose] / self.bw))
            x, y = self.start[b], self.end[a] + delay
            out[loose] = x < y - self._slack_vec(x, y)
        return out

    def _float(self, scaled: Any) -> float:
        """The float nearest to a scaled exact value (correctly rounded)."""
        return float(Fraction(int(scaled), 10**self.places))

    def _slack_vec(self, x: np.ndarray, y: np.ndarray) -> Any:
        if self.tol is not None:
            return self.tol
        return _noise_vec(x, y)


class _Screen:
    """The comparisons of one check, screened in floating point first.

    Every rule reads ``x < y`` (a start before an end or an arrival), which
    :class:`_Numbers` decides exactly or with the relative slack; both ways it
    needs ``x < y`` in floating point (an exact violation is confirmed on the
    floats, the slack only widens the margin). So ``x >= y`` (and ``finish ==
    start + cost`` for the finishes) is never a violation. The costly exact
    reading (:class:`_Numbers`, of every number) is built only when some
    comparison is not settled that way, and it then decides only the
    comparisons left (lanes: the processors where one is left); each
    comparison's verdict depends on its own numbers alone, not on the others.
    """

    def __init__(
        self,
        problem: Problem,
        proc: np.ndarray,
        start: np.ndarray,
        finish: np.ndarray,
        cost: np.ndarray,
        ok: np.ndarray,
        tol: float | None,
    ) -> None:
        self._args = (problem, proc, start, finish, cost, ok, tol)
        self.proc, self.start, self.finish, self.cost = proc, start, finish, cost
        self.end = start + cost
        self._numbers: _Numbers | None = None

    @property
    def exact(self) -> _Numbers:
        """The exact numbers, built on first use."""
        if self._numbers is None:
            self._numbers = _Numbers(*self._args)
        return self._numbers

    def finish_violations(self) -> np.ndarray:
        if not np.any((self.finish != self.end) & (self.proc >= 0)):
            return np.zeros(len(self.start), dtype=bool)
        return self.exact.finish_violations()

    def lanes_to_check(self, by_lane: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """Mask over ``by_lane`` of the lanes where a task starts before an earlier end.

        ``by_lane`` lists the placed tasks by lane, start and end; a lane in
        which every task of positive length starts at or after the latest
        float end before it has no overlap under any reading.
        """
        if len(by_lane) == 0:
            return np.zeros(0, dtype=bool)
        lane = rank[by_lane]
        ends = self.end[by_lane]
        new = np.r_[True, lane[1:] != lane[:-1]]
        # latest end before each task within its lane (-inf at a lane's first task)
        shifted = np.where(new, -np.inf, np.r_[-np.inf, ends[:-1]])
        segment = np.cumsum(new) - 1
        latest = _segmented_max(shifted, segment)
        suspect = (self.start[by_lane] < latest) & (self.cost[by_lane] > 0)
        bad_lanes = np.unique(segment[suspect])
        return np.isin(segment, bad_lanes)

    def edge_violations(self, src: np.ndarray, dst: np.ndarray, both: np.ndarray) -> np.ndarray:
        problem = self._args[0]
        hop = np.zeros(len(src))
        hop[both] = problem.hops[self.proc[src[both]], self.proc[dst[both]]]
        lat, bw = float(problem.latency), float(problem.bandwidth)
        data = problem.edge_data.astype(float)
        delay = np.where(hop == 0, 0.0, hop * (lat + data / bw))
        suspect = both & (self.start[dst] < self.end[src] + delay)  # as delay_float adds
        if not suspect.any():
            return np.zeros(len(src), dtype=bool)
        return self.exact.edge_violations(src, dst, suspect)

    def __getattr__(self, name: str) -> Any:
        # positive, less_end, later_end, less_vec, delay_float: the exact reading
        return getattr(self.exact, name)


def _segmented_max(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Running maximum of ``values`` restarted at every new ``segment`` (sorted ids).

    Examples
    --------
    >>> _segmented_max(np.array([1.0, 3.0, 2.0, 0.0, 5.0]), np.array([0, 0, 0, 1, 1])).tolist()
    [1.0, 3.0, 3.0, 0.0, 5.0]
    """
    out = values.copy()
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    bounds = np.r_[starts, len(values)]
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        np.maximum.accumulate(out[a:b], out=out[a:b])
    return out


#: Units in the last place a comparison of float times allows (:func:`float_noise`).
NOISE_ULPS = 8


def float_noise(x: float, y: float) -> float:
    """The slack of comparing two float times ``x`` and ``y``: a few units in the last place.

    :data:`NOISE_ULPS` units in the last place of the larger magnitude. Each rule
    is local (a start against one end, or one arrival: ``end + hops * (latency +
    data / bandwidth)``), so a correctly computed float time differs from the
    referee's evaluation of the same expression by a few roundings, however long
    the schedule; a slack growing with the number of tasks (``(4n + 2)`` ulps)
    let two tasks of cost 5 share a slot at 1e15 among ten tasks (a regression
    audit). Also the slack of the message checks (:mod:`exactsched.validate_comm`).

    Examples
    --------
    >>> float_noise(0.3, 0.30000000000000004)   # 8 ulps of 0.3
    4.440892098500626e-16
    >>> float_noise(1e15, 1e15)                 # a task of cost 5 is 40 ulps there
    1.0
    """
    return NOISE_ULPS * math.ulp(max(abs(x), abs(y)))


def _noise_vec(x: Any, y: Any) -> Any:
    """:func:`float_noise` of arrays of pairs."""
    return NOISE_ULPS * np.spacing(np.maximum(np.abs(x), np.abs(y)))


def _exact_places(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which values are exact decimals, and their decimal places (0 for integers).

    Examples
    --------
    >>> mask, places = _exact_places(np.array([3.0, 2.5, 0.1 + 0.2, 1e-7, 1e17, 1e17 + 16]))
    >>> mask.tolist(), places.tolist()
    ([True, True, False, True, True, False], [0, 1, 0, 7, 0, 0])
    >>> mask, places = _exact_places(np.array([9007199254751000.0, 1e-61, 5e-324]))
    >>> mask.tolist(), places.tolist()
    ([True, True, True], [0, 61, 324])
    """
    v = np.asarray(values, dtype=float)
    mask = np.isfinite(v)
    places = np.zeros(len(v), dtype=np.int64)
    # Integers below 2**53 are exact (so are their sums there); others by their digits.
    small_whole = mask & (np.abs(np.where(mask, v, 0.0)) < 2.0**53)
    small_whole &= v == np.floor(np.where(small_whole, v, 0.0))
    k_fast, _ = _fast_decimals(v, mask & ~small_whole)
    places[k_fast >= 0] = k_fast[k_fast >= 0]
    for k in np.flatnonzero(mask & ~small_whole & (k_fast < 0)).tolist():
        decimal = _decimal(float(v[k]))
        if decimal is None:
            mask[k] = False
        else:
            places[k] = max(-decimal[1], 0)
    return mask, places


def _fast_decimals(v: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Places ``k`` (-1: undecided) and digits ``N`` of values that print as ``N * 10**-k``.

    For ``v`` with ``N = round(v * 10**k)`` and ``N / 10**k == v``, both exact
    floats with ``|v| * 10**k < 2**52``, the shortest ``repr`` of ``v`` is ``N *
    10**-k`` (it lies within an ulp, below ``10**-k``, of that multiple); the
    least such ``k`` has no trailing zero in ``N``. Kept when ``N`` has at most
    :data:`EXACT_DIGITS` digits, so these are :func:`_decimal`'s exact decimals,
    read in numpy instead of one ``repr`` each; the rest are left to it.

    Examples
    --------
    >>> k, n = _fast_decimals(np.array([2.5, 0.1 + 0.2, 1e-7, 123.456]), np.ones(4, dtype=bool))
    >>> k.tolist(), n.tolist()
    ([1, -1, 7, 3], [25.0, 0.0, 1.0, 123456.0])
    """
    k_of = np.full(len(v), -1, dtype=np.int64)
    digits = np.zeros(len(v))
    left = which & np.isfinite(v)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(1, 16):
            if not left.any():
                break
            r = 10.0**k
            whole = np.round(v * r)
            hit = left & (np.abs(v) * r < 2.0**52) & (whole / r == v)
            hit &= np.abs(whole) < 10.0**EXACT_DIGITS
            k_of[hit], digits[hit] = k, whole[hit]
            left &= ~hit
    return k_of, digits


def _decimal(value: float) -> tuple[int, int] | None:
    """``(m, k)`` with ``value`` printing as ``m * 10**k``, when it is an exact decimal.

    Exact: finite and at most :data:`EXACT_DIGITS` significant digits in its
    shortest ``repr``, counted without the zeros that only place the point
    (``9007199254751000.0`` is ``9007199254751 * 10**3``: 13 digits, not 17),
    whatever its exponent (``5e-324`` has one); integers below 2**53 always.

    Examples
    --------
    >>> _decimal(9007199254751000.0), _decimal(5e-324), _decimal(-0.025), _decimal(0.1 + 0.2)
    ((9007199254751, 3), (5, -324), (-25, -3), None)
    >>> _decimal(1234567890123456.0), _decimal(1.5e16), _decimal(9007199254740994.0)
    ((1234567890123456, 0), (15, 15), None)
    """
    if not math.isfinite(value):
        return None
    if value.is_integer() and abs(value) < 2.0**53:
        return int(value), 0
    mantissa, _, exponent = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("-")
    significant = digits.strip("0")
    if len(significant) > EXACT_DIGITS:
        return None
    trailing = len(digits) - len(digits.rstrip("0"))  # zeros that only place the point
    m = int(significant or "0")
    return (-m if value < 0 else m), int(exponent or 0) - len(fraction) + trailing


def _exact_decimal(value: float) -> Fraction | None:
    """The exact decimal ``value`` prints as (:func:`_decimal`), or None (float noise).

    The one reading of a number shared with :mod:`exactsched.validate_comm`.

    Examples
    --------
    >>> _exact_decimal(2.5), _exact_decimal(1e-61) == Fraction(1, 10**61), _exact_decimal(2.0**53)
    (Fraction(5, 2), True, None)
    """
    decimal = _decimal(value)
    if decimal is None:
        return None
    m, k = decimal
    return Fraction(m * 10**k) if k >= 0 else Fraction(m, 10**-k)


def _scaled(values: np.ndarray, mask: np.ndarray, places: int) -> np.ndarray:
    """``values * 10**places`` as exact Python integers where ``mask`` (0 elsewhere)."""
    out = np.zeros(len(values), dtype=object)
    scale = 10**places
    v = np.asarray(values, dtype=float)
    # Integers below 2**53 are the decimals they print as; larger ones go through repr.
    whole = mask & (np.abs(np.where(mask, v, 0.0)) < 2.0**53)
    whole &= v == np.floor(np.where(whole, v, 0.0))
    if whole.any():
        out[whole] = np.array([int(x) * scale for x in v[whole].tolist()], dtype=object)
    rest = mask & ~whole
    k_fast, digits = _fast_decimals(v, rest)
    for k in np.flatnonzero(rest).tolist():
        if 0 <= k_fast[k] <= places:  # prints as digits * 10**-k_fast
            out[k] = int(digits[k]) * 10 ** (places - int(k_fast[k]))
        else:
            out[k] = int(Fraction(repr(float(v[k]))) * scale)
    return out


def _check_tol(tol: Any) -> float | None:
    """``tol`` as a float: None, or a finite number >= 0 (a nan slack passed everything)."""
    if tol is None:
        return None
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not math.isfinite(tol):
        raise ScheduleError(f"tol: expected None or a finite number >= 0, got {tol!r}")
    if tol < 0:
        raise ScheduleError(f"tol: expected None or a finite number >= 0, got {tol!r}")
    return float(tol)


def _as_problem(problem: Any) -> Problem:
    if isinstance(problem, Problem):
        return problem
    from exactsched.instance import load_instance

    return load_instance(problem)


def _as_schedule(schedule: Any) -> Schedule:
    if isinstance(schedule, Schedule):
        return schedule
    if isinstance(schedule, Mapping):
        if "format" in schedule or "tasks" in schedule:
            return Schedule.from_json(schedule, check_makespan=False)
        raise ScheduleError("schedule: expected a Schedule, a schedule document or a file path")
    if isinstance(schedule, str | os.PathLike):
        from exactsched.schedule import load_schedule

        return load_schedule(schedule, check_makespan=False)
    raise ScheduleError(
        f"schedule: expected a Schedule, a schedule document or a file path, "
        f"got {type(schedule).__name__}"
    )


def assert_valid(problem: Problem, schedule: Schedule) -> None:
    """Raise :class:`ScheduleError` listing the violations if the schedule is invalid.

    Parameters
    ----------
    problem : Problem, mapping or path
    schedule : Schedule, mapping or path
        As in :func:`validate`.

    Returns
    -------
    None

    Raises
    ------
    ScheduleError
        With every violation :func:`validate` finds, joined by ``"; "``.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> p = Problem.from_lists([[2, 2], [1, 1]], [(0, 1, 3)])
    >>> ok = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p0", 2, 3)})
    >>> assert_valid(p, ok)  # nothing happens
    >>> bad = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p1", 4, 5)})
    >>> assert_valid(p, bad)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.ScheduleError: invalid schedule: edge t0 -> t1: t1 starts at 4 on p1 ...
    """
    problems = validate(problem, schedule)
    if problems:
        raise ScheduleError(f"invalid schedule: {'; '.join(problems)}")


def _is_time(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _is_plain_finite(value: object) -> bool:
    """A finite float or a plain int (the common case, without the ABC checks)."""
    kind = type(value)
    return kind is int or (kind is float and math.isfinite(value))  # type: ignore[arg-type]


def _is_finite_time(value: object) -> bool:
    return _is_time(value) and math.isfinite(value)  # type: ignore[arg-type]


def _t(value: float) -> str:
    """12 significant digits, or as many as it takes to show the value exactly.

    Examples
    --------
    >>> _t(2.5), _t(1e12 + 1), _t(2.300000000001), _t(0.1 + 0.2)
    ('2.5', '1000000000001', '2.300000000001', '0.30000000000000004')
    """
    for digits in (12, 15, 17):
        text = f"{float(value):.{digits}g}"
        if float(text) == float(value):
            break
    return text
