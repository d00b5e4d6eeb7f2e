"""Messages on ports and links for the shared placement engine (private helper).

Under the ``single-port`` and ``contention`` models (``docs/instance-format.md``,
"Communication models") :class:`heuristics.eft.ScheduleBuilder` asks this
module for a task's data-ready time on each processor, and books the task's
incoming messages when the task is placed. This is the contention-aware list
scheduling of Sinnen and Sousa [1]_ (Sinnen's book [2]_, sec. 7.4): before a
processor is chosen for task ``j``, the messages of ``j``'s incoming edges are
scheduled *tentatively* for every candidate processor ``q``, each stage of a
route in the earliest slot of its port(s) or link that is free and starts no
earlier than the previous stage ends (insertion: a message may use an idle
interval between messages already booked); the data-ready time on ``q`` is
the latest arrival. Placing ``j`` on ``q`` books exactly those messages.

Incoming messages are scheduled in order of their sender's finish time (ties:
edge order), each in the earliest slot left by the ones before it. Local
edges and routes without stages (zero hops) deliver at the sender's finish;
order pairs wait for the finish only. Zero-length stages hold nothing.

References
----------
.. [1] O. Sinnen, L. A. Sousa, "Communication contention in task scheduling",
   IEEE TPDS 16(6), 503-515, 2005. doi:10.1109/TPDS.2005.64
.. [2] O. Sinnen, "Task Scheduling for Parallel Systems", Wiley, 2007, ch. 7.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

import numpy as np

from exactsched.messages import LinkTime, Message
from exactsched.problem import Problem

if TYPE_CHECKING:
    from heuristics.eft import ScheduleBuilder

__all__ = ["MessageNetwork", "replay"]

Tentative = dict[int, list[tuple[float, float]]]


class MessageNetwork:
    """The busy intervals of every port or link, and the booked messages."""

    __slots__ = (
        "problem", "routing", "n_edges", "starts", "ends", "booked", "in_arcs", "_rt", "_grid"
    )  # fmt: skip

    def __init__(self, problem: Problem) -> None:
        from exactsched._time_grid import time_resolution

        self.problem = problem
        # On decimal data every stage starts and ends on the data's grid: times are
        # rounded to it (0.1 + 0.2 ends at 0.3, as the validator reads it).
        self._grid = time_resolution(problem)
        self.routing = problem.routing
        self.n_edges = len(problem.edge_src)
        self.starts: dict[int, list[float]] = {}
        self.ends: dict[int, list[float]] = {}
        # Edge -> (p, q, [(start, finish) per stage]).
        self.booked: dict[int, tuple[int, int, list[tuple[float, float]]]] = {}
        ptr = problem.pred_ptr.tolist()
        arcs = problem.pred_arcs.tolist()
        src = problem.arc_src.tolist()
        unit = problem.arc_unit.tolist()
        # Per task: (arc, source task, cost per unit of weight, is a data edge).
        self.in_arcs = [
            [(a, src[a], unit[a], a < self.n_edges) for a in arcs[ptr[j] : ptr[j + 1]]]
            for j in range(problem.n_tasks)
        ]
        n_procs = problem.n_processors
        self._rt: list[list[Any]] = [[None] * n_procs for _ in range(n_procs)]

    def copy(self) -> MessageNetwork:
        other = object.__new__(MessageNetwork)
        other.problem, other.routing, other.n_edges = self.problem, self.routing, self.n_edges
        other.in_arcs, other._rt, other._grid = self.in_arcs, self._rt, self._grid
        other.starts = {k: list(v) for k, v in self.starts.items()}
        other.ends = {k: list(v) for k, v in self.ends.items()}
        other.booked = dict(self.booked)
        return other

    # ---- queries -----------------------------------------------------------------------

    def ready(self, builder: ScheduleBuilder, task: int) -> np.ndarray:
        """``(P,)`` data-ready times of ``task`` (0 outside its affinity: masked later)."""
        out = np.zeros(self.problem.n_processors)
        for q in np.flatnonzero(self.problem.allowed[task]).tolist():
            out[q] = self._plan(builder, task, q, None)
        return out

    def ready_on(self, builder: ScheduleBuilder, task: int, q: int) -> float:
        """The data-ready time of ``task`` on processor ``q``."""
        return self._plan(builder, task, q, None)

    # ---- updates -----------------------------------------------------------------------

    def book(self, builder: ScheduleBuilder, task: int, q: int, start: float) -> None:
        """Book the incoming messages of ``task`` placed on ``q`` at ``start``."""
        plan: list[tuple[int, int, list[tuple[float, float]]]] = []
        arrival = self._plan(builder, task, q, plan)
        if arrival > start + 1e-9 * max(1.0, abs(start)):
            raise ValueError(
                f"task {self.problem.task_ids[task]}: start {start:g} is before its messages "
                f"arrive at {arrival:g} (the start was computed before another placement)"
            )
        for e, p, times in plan:
            for (res, _, _), (s, f) in zip(self.routing.route(p, q), times, strict=True):
                if f > s:
                    for r in res:
                        _occupy(self.starts.setdefault(r, []), self.ends.setdefault(r, []), s, f)
            self.booked[e] = (p, q, times)

    def messages(self) -> list[Message]:
        """The booked messages, in edge order, as schedule entries."""
        pb = self.problem
        ids = pb.task_ids
        links = pb.communication == "contention"
        out = []
        for e in sorted(self.booked):
            p, q, times = self.booked[e]
            route = self.routing.route(p, q)
            pairs = zip(route, times, strict=True)
            hops = tuple(LinkTime(name, s, f) for (_, _, name), (s, f) in pairs) if links else ()
            a, b = int(pb.edge_src[e]), int(pb.edge_dst[e])
            out.append(Message(ids[a], ids[b], _tidy(times[0][0]), _tidy(times[-1][1]), hops))
        return out

    # ---- internals ---------------------------------------------------------------------

    def _plan(
        self,
        builder: ScheduleBuilder,
        task: int,
        q: int,
        plan: list[Any] | None,
    ) -> float:
        """Schedule the incoming messages of ``task`` on ``q`` tentatively; their arrival."""
        finish, proc = builder.finish, builder.proc
        table = self._rt
        ready = 0.0
        remote = []
        for a, i, u, is_edge in self.in_arcs[task]:
            f = float(finish[i])
            route = None
            if is_edge:
                p = int(proc[i])
                route = table[p][q]
                if route is None:
                    route = table[p][q] = self.routing.route(p, q)
            if route:
                remote.append((f, a, p, u, route))
            elif f > ready:
                ready = f
        if not remote:
            return ready
        remote.sort(key=lambda item: (item[0], item[1]))
        tentative: Tentative = {}
        grid = self._grid
        for f, a, p, u, route in remote:
            r = f
            times = []
            for res, weight, _ in route:
                dur = _on_grid(weight * u, grid)
                if dur > 0:
                    s = self._slot(res, r, dur, tentative)
                    end = _on_grid(s + dur, grid)
                    for k in res:
                        tentative.setdefault(k, []).append((s, end))
                else:
                    s = end = r
                times.append((s, end))
                r = end
            if plan is not None:
                plan.append((a, p, times))
            if r > ready:
                ready = r
        return ready

    def _slot(self, res: tuple[int, ...], r: float, dur: float, tentative: Tentative) -> float:
        """Earliest ``t >= r`` with ``[t, t + dur)`` free on every resource of ``res``."""
        grid = self._grid

        def end(t: float) -> float:  # t + dur, on the grid when there is one
            return _on_grid(t + dur, grid)

        if len(res) == 1 and not tentative:  # the common case: one link, nothing tentative
            starts = self.starts.get(res[0])
            if not starts:
                return r
            ends = self.ends[res[0]]
            i = bisect_right(ends, r)
            n = len(starts)
            t = r
            while i < n and starts[i] < end(t):
                t = ends[i]
                i += 1
            return t
        t = r
        moved = True
        while moved:
            moved = False
            for k in res:
                starts = self.starts.get(k)
                if starts:
                    ends = self.ends[k]
                    i = bisect_right(ends, t)  # the first interval ending after t
                    n = len(starts)
                    while i < n and starts[i] < end(t):
                        t = ends[i]  # intervals are disjoint and sorted: jump past it
                        moved = True
                        i += 1
                for s, f in tentative.get(k, ()):
                    if s < end(t) and t < f:
                        t = f
                        moved = True
        return t


def _occupy(starts: list[float], ends: list[float], s: float, f: float) -> None:
    """Add ``[s, f)`` to a resource's busy intervals, merged with those it touches.

    Only the union of busy time matters to :meth:`_slot`; messages booked back to
    back became one long run of intervals that every later query walked through
    one by one (ETF under contention grew as n**3: an outside audit).

    >>> starts, ends = [0.0, 5.0], [2.0, 6.0]
    >>> _occupy(starts, ends, 2.0, 5.0); starts, ends
    ([0.0], [6.0])
    >>> _occupy(starts, ends, 8.0, 9.0); starts, ends
    ([0.0, 8.0], [6.0, 9.0])
    """
    i = bisect_left(starts, s)
    if i > 0 and ends[i - 1] >= s:  # touches (or covers) the interval before
        i -= 1
        ends[i] = max(ends[i], f)
    else:
        starts.insert(i, s)
        ends.insert(i, f)
    while i + 1 < len(starts) and starts[i + 1] <= ends[i]:  # and those after
        ends[i] = max(ends[i], ends.pop(i + 1))
        starts.pop(i + 1)


def _on_grid(value: float, grid: float | None) -> float:
    """``value`` rounded to the nearest multiple of ``1 / grid`` (as it is without one).

    :func:`exactsched._time_grid.snap` for one Python float, without numpy's
    per-call cost in the inner loop of the message slots.
    """
    return value if grid is None else round(value * grid) / grid


def _tidy(value: float) -> float | int:
    from exactsched.schedule import _tidy as tidy

    return tidy(value)


def replay(problem: Problem, schedule: Any) -> Any:
    """Re-time a schedule under ``problem``'s communication model, keeping its decisions.

    Every task keeps its processor and its place in its processor's order (tasks
    are placed in order of their start in ``schedule``, ties by finish then
    topological order, each appended after its processor's last task), and its
    incoming messages are booked as the engine books them. This is how a
    schedule computed under the delay model fares on a network that contends.

    Examples
    --------
    >>> from exactsched import Problem, solve, validate
    >>> base = Problem.from_lists([1, 1, 1], [(0, 1, 4), (0, 2, 4)], n_processors=3,
    ...     network={"topology": "mesh", "dims": [1, 3]}, affinity={1: [1], 2: [2]})
    >>> delay = solve(base, "heft").schedule
    >>> contended = base.with_communication("contention")
    >>> again = replay(contended, delay)
    >>> delay.makespan, again.makespan, validate(contended, again)
    (10, 14, [])
    """
    from heuristics.eft import ScheduleBuilder

    rank = np.empty(problem.n_tasks, dtype=np.int64)
    rank[problem.topological_order] = np.arange(problem.n_tasks)
    ids = problem.task_ids
    order = sorted(
        range(problem.n_tasks),
        key=lambda j: (schedule[ids[j]].start, schedule[ids[j]].finish, rank[j]),
    )
    builder = ScheduleBuilder(problem, insertion=False)
    for j in order:
        builder.place(j, problem.proc_index[schedule[ids[j]].processor])
    return builder.to_schedule()
