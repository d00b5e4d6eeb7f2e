"""The referee's message rules under the ``single-port`` and ``contention`` models.

Called by :func:`exactsched.validate` when the instance's network says
``"communication": "single-port"`` or ``"contention"``
(``docs/instance-format.md``, "Communication models"). Like the rest of the
referee it shares no code with the schedulers: it reads the problem, its
:class:`~topologies.routing.Routing` (the fixed routes the format defines) and
the schedule's :class:`~exactsched.messages.Message` times, and checks

1. every remote message (a data edge whose tasks sit on processors with a
   non-empty route) has times, with one entry per link of its route under
   ``contention``, named as the route names them;
2. each stage lasts ``weight * (latency + data / bandwidth)``;
3. the message starts no earlier than its sender finishes, and each link no
   earlier than the previous link of the route ends (store-and-forward);
4. the receiver starts no earlier than the message arrives (the end of its
   last stage);
5. no port or link is held by two messages at once (touching is allowed;
   zero-length stages hold nothing).

Numbers are read and compared as in :mod:`exactsched.validate`: exactly (as
fractions) when every number read is an exact decimal of at most 15 significant
digits (read from its float, by the same function),
a violation standing only if it survives rounding to floats and also holds on
the IEEE evaluation of the same sums (``f`` of :class:`_Num`); otherwise within
the float noise of the two numbers (:func:`exactsched.validate.float_noise`); with
``tol`` in floating point with that absolute slack.

Examples
--------
>>> from exactsched import Placement, Problem, Schedule, validate
>>> from exactsched.messages import LinkTime, Message
>>> net = {"topology": "mesh", "dims": [1, 3], "communication": "contention"}
>>> p = Problem.from_lists([2, 1, 1], [(0, 2, 3), (1, 2, 3)], n_processors=3,
...                        network=net)
>>> tasks = {"t0": Placement("p0", 0, 2), "t1": Placement("p1", 0, 1),
...          "t2": Placement("p2", 8, 9)}
>>> via = (LinkTime("p0->p1", 2, 5), LinkTime("p1->p2", 5, 8))
>>> ok = [Message("t0", "t2", 2, 8, via), Message("t1", "t2", 1, 4, (LinkTime("p1->p2", 1, 4),))]
>>> validate(p, Schedule(tasks, ok))
[]
>>> late = (LinkTime("p0->p1", 2, 5), LinkTime("p1->p2", 6, 9))
>>> bad = [Message("t0", "t2", 2, 9, late), Message("t1", "t2", 4, 7, (LinkTime("p1->p2", 4, 7),))]
>>> for violation in validate(p, Schedule(tasks, bad)):
...     print(violation)
edge t0 -> t2: t2 starts at 8 on p2 but the message arrives at 9
link p1->p2: message t1 -> t2 [4, 7) overlaps message t0 -> t2 [6, 9)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from exactsched.problem import Problem
from exactsched.schedule import Schedule
from exactsched.validate import _exact_decimal, float_noise

__all__ = ["message_violations"]


class _Num:
    """A float and, when it is an exact decimal, the same number as a fraction."""

    __slots__ = ("f", "x")

    def __init__(self, f: float, x: Fraction | None) -> None:
        self.f, self.x = f, x

    def __add__(self, other: _Num) -> _Num:
        x = self.x + other.x if self.x is not None and other.x is not None else None
        return _Num(self.f + other.f, x)


def _num(value: Any, exact: bool = True) -> _Num:
    """Read a time or datum as :mod:`exactsched.validate` reads it.

    Exact when its float prints as an exact decimal (:func:`~exactsched.validate._decimal`);
    read from the float, never from the integer a file wrote: past 2**53 a
    JSON integer of 16-17 digits is float noise like the same number written
    with ``.0`` (an outside audit found the two verdicts differed).

    Examples
    --------
    >>> _num(9007199254740992).x is None, _num(9007199254751000).x   # 16 digits, 13
    (True, Fraction(9007199254751000, 1))
    >>> _num(5e-324).x == Fraction(5, 10**324), _num(0.1 + 0.2).x is None
    (True, True)
    """
    f = float(value)
    return _Num(f, _exact_decimal(f) if exact else None)


class _Cmp:
    def __init__(self, tol: float | None) -> None:
        self.tol = tol

    def less(self, a: _Num, b: _Num) -> bool:
        """``a < b`` beyond the slack (``tol``, or the float noise of the two)."""
        if self.tol is not None:
            return a.f < b.f - self.tol
        if a.x is not None and b.x is not None:  # and confirmed on both float readings
            return a.x < b.x and float(a.x) < float(b.x) and a.f < b.f
        return a.f < b.f - float_noise(a.f, b.f)

    def differ(self, a: _Num, b: _Num) -> bool:
        return self.less(a, b) or self.less(b, a)


def message_violations(
    problem: Problem, schedule: Schedule, proc: np.ndarray, *, tol: float | None = None
) -> list[str]:
    """The message rules of the module docstring, as readable sentences.

    Parameters
    ----------
    problem : Problem
        Its ``communication`` is ``"single-port"`` or ``"contention"``.
    schedule : Schedule
    proc : numpy.ndarray
        ``(n,)`` processor index of each task placed legally, -1 for the others
        (whose faults :func:`exactsched.validate` reports already).
    tol : float, optional
        As in :func:`exactsched.validate`.

    Returns
    -------
    list of str
    """
    out: list[str] = []
    if problem.communication == "delay":
        return out
    cmp = _Cmp(tol)
    exact = tol is None
    ids, pids = problem.task_ids, problem.proc_ids
    routing = problem.routing
    contention = problem.communication == "contention"
    by_edge = {(m.src, m.dst): m for m in schedule.messages}
    used: set[tuple[str, str]] = set()
    lat = _num(problem.latency, exact)
    bw = _num(problem.bandwidth, exact)
    holds: dict[int, list[tuple[float, _Num, _Num, str]]] = {}
    for e in range(len(problem.edge_src)):
        a, b = int(problem.edge_src[e]), int(problem.edge_dst[e])
        p, q = int(proc[a]), int(proc[b])
        if p < 0 or q < 0:
            continue
        route = routing.route(p, q)
        if not route:
            continue
        key = (ids[a], ids[b])
        label = f"{ids[a]} -> {ids[b]}"
        msg = by_edge.get(key)
        if msg is None:
            out.append(
                f"edge {label}: no message times ({ids[a]} on {pids[p]}, {ids[b]} on {pids[q]}, "
                f"{problem.communication} model)"
            )
            continue
        used.add(key)
        names = [name for _, _, name in route]
        if contention:
            given = [h.link for h in msg.links]
            if given != names:
                out.append(
                    f"message {label}: links {given} are not the route {names} "
                    f"from {pids[p]} to {pids[q]}"
                )
                continue
            times = [(_num(h.start, exact), _num(h.finish, exact)) for h in msg.links]
            m_start, m_finish = _num(msg.start, exact), _num(msg.finish, exact)
            first, last = times[0], times[-1]
            if cmp.differ(m_start, first[0]) or cmp.differ(m_finish, last[1]):
                out.append(
                    f"message {label}: start {_t(msg.start)} and finish {_t(msg.finish)} are "
                    f"not those of its first and last link"
                )
        else:
            if msg.links:
                out.append(f"message {label}: lists links, but the model is single-port")
                continue
            times = [(_num(msg.start, exact), _num(msg.finish, exact))]
        data = _num(problem.edge_data[e], exact)
        if bw.x is not None and data.x is not None and lat.x is not None:
            unit = _Num(
                problem.latency + problem.edge_data[e] / problem.bandwidth, lat.x + data.x / bw.x
            )
        else:
            unit = _Num(float(problem.latency + problem.edge_data[e] / problem.bandwidth), None)
        pl_a, pl_b = schedule[ids[a]], schedule[ids[b]]
        end_a = _num(pl_a.start, exact) + _num(problem.cost[a, p], exact)
        before, before_label = end_a, f"{ids[a]} finishes"
        for (res, weight, name), (s, f) in zip(route, times, strict=True):
            # A stage's weight (its hops on a matrix network) is read as the decimal it
            # prints as, like every other datum: 0.1 hops is 1/10, not its binary value.
            w = _num(weight, exact).x
            both = unit.x is not None and w is not None
            dur = _Num(weight * unit.f, w * unit.x if both else None)
            where = f"link {name}" if contention else f"ports {name}"
            if cmp.differ(f, s + dur):
                out.append(
                    f"message {label}: {where} holds [{_t(s.f)}, {_t(f.f)}) but the "
                    f"transfer lasts {_t(dur.f if dur.x is None else float(dur.x))}"
                )
            if cmp.less(s, before):
                out.append(
                    f"message {label}: {where} starts at {_t(s.f)} before {before_label} "
                    f"at {_t(before.f)}"
                )
            before, before_label = f, f"{where} ends"
            if f.f > s.f:
                for r in res:
                    holds.setdefault(r, []).append((s.f, s, f, label))
        if cmp.less(_num(pl_b.start, exact), before):
            out.append(
                f"edge {label}: {ids[b]} starts at {_t(pl_b.start)} on {pids[q]} but the "
                f"message arrives at {_t(before.f)}"
            )
    unplaced = _unplaced(problem, proc) if len(used) < len(schedule.messages) else set()
    for m in schedule.messages:
        if (m.src, m.dst) not in used and (m.src, m.dst) not in unplaced:
            out.append(
                f"message {m.src} -> {m.dst}: not a remote edge of this schedule "
                f"(no edge, or its tasks share a processor or need no message)"
            )
    names = routing.resources
    for r, items in holds.items():
        items.sort(key=lambda it: (it[0], it[2].f))
        holder = None
        for item in items:
            if holder is not None and cmp.less(item[1], holder[2]):
                out.append(
                    f"{'link' if contention else 'port'} {names[r]}: message {holder[3]} "
                    f"[{_t(holder[1].f)}, {_t(holder[2].f)}) overlaps message {item[3]} "
                    f"[{_t(item[1].f)}, {_t(item[2].f)})"
                )
            if holder is None or item[2].f > holder[2].f:
                holder = item
    return out


def _unplaced(problem: Problem, proc: np.ndarray) -> set[tuple[str, str]]:
    """Edges with a task not legally placed (their messages are not judged)."""
    ids = problem.task_ids
    return {
        (ids[a], ids[b])
        for a, b in zip(problem.edge_src.tolist(), problem.edge_dst.tolist(), strict=True)
        if proc[a] < 0 or proc[b] < 0
    }


def _t(value: float) -> str:
    for digits in (12, 15, 17):
        text = f"{float(value):.{digits}g}"
        if float(text) == float(value):
            break
    return text
