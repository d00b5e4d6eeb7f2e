"""Schedules: where and when each task runs, and their JSON form.

A :class:`Schedule` maps every task id to a :class:`Placement` (processor id,
start, finish). It knows nothing about validity: that is the job of
:func:`exactsched.validate`, the one referee.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from exactsched.errors import ScheduleError

if TYPE_CHECKING:
    from exactsched.problem import Problem

__all__ = ["SCHEDULE_FORMAT", "Placement", "Schedule", "load_schedule"]

SCHEDULE_FORMAT = "exactsched/schedule@1"


@dataclass(frozen=True, slots=True)
class Placement:
    """One task's processor and time interval ``[start, finish)``."""

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

    __slots__ = ("_placements",)

    def __init__(self, placements: Mapping[str, Placement]) -> None:
        self._placements = dict(placements)

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
        cls, problem: Problem, processor: np.ndarray, start: np.ndarray
    ) -> Schedule:
        """Build a schedule from per-task processor indices and start times.

        Finish times are ``start + cost`` on the chosen processor. Times that are
        integers are stored as ``int`` so integer instances print exactly.
        """
        proc = np.asarray(processor, dtype=np.int64)
        begin = np.asarray(start, dtype=float)
        end = begin + problem.cost[np.arange(problem.n_tasks), proc]
        return cls(
            {
                task: Placement(problem.proc_ids[p], _tidy(s), _tidy(f))
                for task, p, s, f in zip(
                    problem.task_ids, proc.tolist(), begin.tolist(), end.tolist(), strict=True
                )
            }
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
        return doc

    @classmethod
    def from_json(cls, document: Any) -> Schedule:
        """Read a schedule document; structural problems raise :class:`ScheduleError`.

        Only the form is checked here (ids are strings, times finite numbers);
        whether the schedule fits an instance is for :func:`exactsched.validate`.
        """
        if not isinstance(document, Mapping):
            raise ScheduleError("schedule: expected a JSON object")
        if document.get("format") != SCHEDULE_FORMAT:
            raise ScheduleError(
                f"format: expected {SCHEDULE_FORMAT!r}, got {document.get('format')!r}"
            )
        rows = document.get("tasks")
        if not isinstance(rows, list):
            raise ScheduleError("tasks: expected a list of placements")
        placements: dict[str, Placement] = {}
        for k, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise ScheduleError(f"tasks[{k}]: expected an object")
            task, proc = row.get("id"), row.get("processor")
            if not isinstance(task, str) or not isinstance(proc, str):
                raise ScheduleError(f"tasks[{k}]: 'id' and 'processor' must be strings")
            if task in placements:
                raise ScheduleError(f"tasks[{k}]: task {task!r} placed twice")
            times = []
            for key in ("start", "finish"):
                value = row.get(key)
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ScheduleError(f"tasks[{k}].{key}: expected a number for task {task!r}")
                if not math.isfinite(value):
                    raise ScheduleError(f"tasks[{k}].{key}: not finite for task {task!r}")
                times.append(value)
            placements[task] = Placement(proc, times[0], times[1])
        return cls(placements)


def load_schedule(path: str | os.PathLike[str]) -> Schedule:
    """Read a schedule JSON file; every failure is a one-line :class:`ScheduleError`."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScheduleError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ScheduleError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ScheduleError(f"{path}: cannot read file: {exc}") from None
    return Schedule.from_json(document)


def _tidy(value: float) -> float | int:
    """Integers stay integers in output; other floats are unchanged."""
    if isinstance(value, int):
        return value
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)
