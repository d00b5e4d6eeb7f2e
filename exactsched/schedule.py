"""Schedules: where and when each task runs, and their JSON form.

A :class:`Schedule` maps every task id to a :class:`Placement` (processor id,
start, finish). It knows nothing about validity: that is the job of
:func:`exactsched.validate`, the one referee.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from exactsched.errors import ScheduleError

if TYPE_CHECKING:
    from exactsched.problem import Problem

__all__ = ["SCHEDULE_FORMAT", "Placement", "Schedule", "load_schedule"]

SCHEDULE_FORMAT = "exactsched/schedule@1"


@dataclass(frozen=True, slots=True)
class Placement:
    """One task's processor and time interval ``[start, finish)``.

    Examples
    --------
    >>> pl = Placement("p0", 0, 2)
    >>> pl.processor, pl.finish - pl.start
    ('p0', 2)
    >>> Schedule({"t0": pl, "t1": Placement("p1", 2, 5)}).makespan
    5
    >>> from exactsched import solve
    >>> solve("examples/topcuoglu2002.json", "heft").schedule["n1"]
    Placement(processor='p3', start=0, finish=9)
    """

    processor: str
    start: float
    finish: float


class Schedule(Mapping[str, Placement]):
    """An immutable assignment of tasks to processors and start times.

    Parameters
    ----------
    placements : mapping
        Task id -> :class:`Placement`.

    Examples
    --------
    >>> s = Schedule({"a": Placement("p1", 0, 2), "b": Placement("p2", 3, 4)})
    >>> s.makespan
    4
    >>> s.by_processor()["p1"]
    [('a', Placement(processor='p1', start=0, finish=2))]
    """

    __slots__ = ("_placements", "_messages", "_claimed")

    def __init__(
        self,
        placements: Mapping[str, Placement],
        messages: Any = (),
        *,
        claimed_makespan: float | None = None,
    ) -> None:
        self._placements = dict(placements)
        # Message times under the single-port and contention models (exactsched.messages).
        self._messages = tuple(messages)
        # The makespan a document states, judged by exactsched.validate (None: none given).
        self._claimed = claimed_makespan

    @property
    def claimed_makespan(self) -> float | None:
        """The ``makespan`` its document states (None when built otherwise or not given)."""
        return self._claimed

    @property
    def messages(self) -> tuple[Any, ...]:
        """The :class:`~exactsched.messages.Message` times (empty under the delay model)."""
        return self._messages

    def __getitem__(self, task: str) -> Placement:
        return self._placements[task]

    def __iter__(self) -> Iterator[str]:
        return iter(self._placements)

    def __len__(self) -> int:
        return len(self._placements)

    def __repr__(self) -> str:
        return f"Schedule({len(self)} tasks, makespan={self.makespan})"

    @property
    def makespan(self) -> float:
        """The largest finish time (0 for an empty schedule)."""
        return max((p.finish for p in self._placements.values()), default=0)

    def by_processor(self) -> dict[str, list[tuple[str, Placement]]]:
        """Tasks of each used processor, sorted by start (then finish, then id)."""
        lanes: dict[str, list[tuple[str, Placement]]] = {}
        for task, place in self._placements.items():
            lanes.setdefault(place.processor, []).append((task, place))
        for lane in lanes.values():
            lane.sort(key=lambda item: (item[1].start, item[1].finish, item[0]))
        return lanes

    @classmethod
    def from_arrays(
        cls, problem: Problem, processor: np.ndarray, start: np.ndarray, messages: Any = ()
    ) -> Schedule:
        """Build a schedule from per-task processor indices and start times.

        Finish times are ``start + cost`` on the chosen processor. On decimal data
        starts and finishes (and the times of ``messages``) are rounded to the data's grid
        (:func:`exactsched._time_grid.snap`: ``0.2 + 0.1`` finishes at ``0.3``), which
        keeps a valid schedule valid: rounding to the nearest grid value never
        reverses an order and commutes with adding a cost or a delay, which lie on
        the grid. Times that are integers are stored as ``int`` so integer
        instances print exactly.
        """
        from exactsched._time_grid import snap, time_resolution  # it imports the problem

        proc = np.asarray(processor, dtype=np.int64)
        grid = time_resolution(problem)
        begin = snap(np.asarray(start, dtype=float), grid)
        end = snap(begin + problem.cost[np.arange(problem.n_tasks), proc], grid)
        if grid is not None and messages:
            messages = [_snap_message(m, grid) for m in messages]
        return cls(
            {
                task: Placement(problem.proc_ids[p], _tidy(s), _tidy(f))
                for task, p, s, f in zip(
                    problem.task_ids, proc.tolist(), begin.tolist(), end.tolist(), strict=True
                )
            },
            messages,
        )

    def arrays(self, problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Processor index, start and finish of every task in problem order."""
        proc = np.array([problem.proc_index[self[t].processor] for t in problem.task_ids])
        start = np.array([self[t].start for t in problem.task_ids], dtype=float)
        finish = np.array([self[t].finish for t in problem.task_ids], dtype=float)
        return proc, start, finish

    def to_json(self, **extra: Any) -> dict[str, Any]:
        """The ``exactsched/schedule@1`` document; ``extra`` keys are added beside it."""
        doc: dict[str, Any] = {"format": SCHEDULE_FORMAT, "makespan": _tidy(self.makespan)}
        doc.update(extra)
        doc["tasks"] = [
            {"id": t, "processor": p.processor, "start": _tidy(p.start), "finish": _tidy(p.finish)}
            for t, p in self._placements.items()
        ]
        if self._messages:
            doc["messages"] = [m.to_json() for m in self._messages]
        return doc

    @classmethod
    def from_json(cls, document: Any, *, check_makespan: bool = True) -> Schedule:
        """Read a schedule document; structural problems raise :class:`ScheduleError`.

        Only the form is checked here (ids are strings, times finite numbers, a
        task placed once, ``makespan``, if given, the largest finish); whether
        the schedule fits an instance is for :func:`exactsched.validate`. Other
        keys (``method``, ``status``, ...) are ignored.

        Parameters
        ----------
        document : mapping
            A parsed ``exactsched/schedule@1`` document.
        check_makespan : bool
            Refuse a ``makespan`` that is not the largest finish (compared as
            :func:`exactsched.validate` compares times). False keeps it as
            :attr:`claimed_makespan` for :func:`exactsched.validate` to report
            among the other violations (a task left out of a schedule also
            lowers its largest finish; ``exactsched validate`` reads files so).

        Returns
        -------
        Schedule

        Raises
        ------
        ScheduleError
            With a one-line message starting with the JSON path at fault.

        Examples
        --------
        >>> doc = {"format": "exactsched/schedule@1", "makespan": 3,
        ...        "tasks": [{"id": "a", "processor": "p", "start": 1, "finish": 3}]}
        >>> Schedule.from_json(doc)["a"]
        Placement(processor='p', start=1, finish=3)
        >>> Schedule.from_json({**doc, "makespan": 4})
        Traceback (most recent call last):
        ...
        exactsched.errors.ScheduleError: makespan: 4 but the largest finish is 3
        >>> Schedule.from_json({**doc, "makespan": 4}, check_makespan=False).claimed_makespan
        4
        """
        if not isinstance(document, Mapping):
            raise ScheduleError(f"schedule: expected a JSON object, got {_kind(document)}")
        if "format" not in document:
            raise ScheduleError(f"format: missing; expected {SCHEDULE_FORMAT!r}")
        if not isinstance(document["format"], str) or document["format"] != SCHEDULE_FORMAT:
            got = document["format"]
            shown = repr(got) if isinstance(got, str) and len(got) < 60 else _kind(got)
            raise ScheduleError(f"format: expected {SCHEDULE_FORMAT!r}, got {shown}")
        if "tasks" not in document:
            raise ScheduleError("tasks: missing")
        rows = document["tasks"]
        if not isinstance(rows, list | tuple):
            raise ScheduleError(f"tasks: expected a list of placements, got {_kind(rows)}")
        placements: dict[str, Placement] = {}
        for k, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise ScheduleError(f"tasks[{k}]: expected an object, got {_kind(row)}")
            for key in ("id", "processor"):
                value = row.get(key)
                if not isinstance(value, str):  # "" is a valid id (the instance format)
                    raise ScheduleError(f"tasks[{k}].{key}: expected a string, got {_kind(value)}")
            task, proc = row["id"], row["processor"]
            if task in placements:
                raise ScheduleError(f"tasks[{k}].id: task {task!r} placed twice")
            start = _time(row, "start", f"tasks[{k}].start", task)
            finish = _time(row, "finish", f"tasks[{k}].finish", task)
            placements[task] = Placement(proc, start, finish)
        messages: Any = ()
        if "messages" in document:
            from exactsched.messages import messages_from_json

            messages = messages_from_json(document["messages"])
        claimed = _time(document, "makespan", "makespan", None) if "makespan" in document else None
        schedule = cls(placements, messages, claimed_makespan=claimed)
        if check_makespan and claimed is not None:
            from exactsched.validate import makespan_violation

            wrong = makespan_violation(schedule)
            if wrong:
                raise ScheduleError(wrong)
        return schedule


def load_schedule(path: str | os.PathLike[str], *, check_makespan: bool = True) -> Schedule:
    """Read a schedule JSON file; every failure is a one-line :class:`ScheduleError`.

    Parameters
    ----------
    path : str or path-like
    check_makespan : bool
        As in :meth:`Schedule.from_json`.

    Returns
    -------
    Schedule

    Raises
    ------
    ScheduleError
        When the file cannot be read, is not JSON (with line and column) or is
        not a schedule document (see :meth:`Schedule.from_json`).

    Examples
    --------
    >>> import json, os, tempfile
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "heft.json")
    >>> with open(path, "w") as f:
    ...     json.dump(exactsched.solve(p, "heft").to_json(), f)
    >>> s = load_schedule(path)
    >>> s.makespan, exactsched.validate(p, s)
    (80, [])
    >>> with open(path, "w") as f:
    ...     _ = f.write("{")
    >>> try:
    ...     load_schedule(path)
    ... except ScheduleError as err:
    ...     print(str(err).replace(path, "heft.json"))  # doctest: +ELLIPSIS
    heft.json: invalid JSON at line 1, column 2: ...
    >>> tmp.cleanup()
    """
    from exactsched.instance import _read_json

    return Schedule.from_json(_read_json(path, ScheduleError), check_makespan=check_makespan)


def _kind(value: Any) -> str:
    """The JSON kind of a value, for messages (never its possibly huge text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _time(row: Mapping[str, Any], key: str, where: str, task: str | None) -> float:
    """A finite number at ``row[key]`` (booleans are not numbers)."""
    about = f" for task {task!r}" if task is not None else ""
    if key not in row:
        raise ScheduleError(f"{where}: missing{about}")
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScheduleError(f"{where}: expected a number{about}, got {_kind(value)}")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        finite = False
    if not finite:
        raise ScheduleError(f"{where}: not a finite number{about}")
    return value


def _tidy(value: float) -> float | int:
    """Integers stay integers in output, whole floats below 2**53 become them; others floats.

    An integer beyond 2**53 that is exactly a float (the ceiling of a float bound)
    is written as that float, as the makespan beside it is (1e+300, not 301 digits).
    """
    if isinstance(value, int):
        if abs(value) < 2**53:
            return value
        try:
            return float(value) if float(value) == value else value
        except OverflowError:  # beyond the float range: the exact integer
            return value
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _snap_message(message: Any, grid: float) -> Any:
    """``message`` with every time rounded to the data's grid (``_time_grid.snap``)."""
    from exactsched._time_grid import snap
    from exactsched.messages import LinkTime, Message

    def t(value: float) -> float | int:
        return _tidy(snap(float(value), grid))

    links = tuple(LinkTime(k.link, t(k.start), t(k.finish)) for k in message.links)
    return Message(message.src, message.dst, t(message.start), t(message.finish), links)
