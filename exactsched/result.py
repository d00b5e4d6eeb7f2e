"""The one result object every method returns, exact or heuristic."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from exactsched.schedule import Schedule, _tidy

__all__ = ["Status", "Result", "relative_gap"]


class Status(StrEnum):
    """What a method knows about its answer.

    Members
    -------
    OPTIMAL
        The makespan is proven optimal (``lower_bound == makespan``).
    FEASIBLE
        A valid schedule; its optimality is not proven (heuristics always say this).
    INFEASIBLE
        Proven that no valid schedule exists. No valid instance is infeasible (running
        the tasks one at a time in topological order satisfies every rule), so exact
        methods report it only for side constraints a caller adds.
    UNKNOWN
        No schedule and no proof, e.g. the time limit ran out first.

    Examples
    --------
    >>> from exactsched import solve
    >>> solve("examples/topcuoglu2002.json", "heft").status
    <Status.FEASIBLE: 'feasible'>
    >>> str(Status.OPTIMAL), Status("unknown") is Status.UNKNOWN, Status.FEASIBLE == "feasible"
    ('optimal', True, True)
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


def relative_gap(makespan: float | None, reference: float | None) -> float | None:
    """``(makespan - reference) / reference``: how much longer than the reference.

    The one definition of a gap in exactsched (McSweeney's percentage deviation,
    as a fraction). The reference is the proven lower bound in
    :attr:`Result.gap`, and the certified optimum or the best known makespan in
    a study (``exactsched compare``). 0 when both are 0 (and never negative: a
    makespan at or below the reference has gap 0); None if either is missing or
    when the reference is 0 and the makespan positive (no finite ratio).

    Examples
    --------
    >>> relative_gap(80, 72)  # 8 above 72: 11.1 % longer than the bound
    0.1111111111111111
    >>> relative_gap(0, 0)
    0.0
    >>> relative_gap(5, 0) is None
    True
    """
    if makespan is None or reference is None:
        return None
    if reference <= 0:
        return 0.0 if makespan <= 0 else None
    return max(0.0, (makespan - reference) / reference)


@dataclass(frozen=True)
class Result:
    """Outcome of running one method on one problem.

    Attributes
    ----------
    method : str
        Registry name of the method.
    status : Status
    schedule : Schedule or None
        The best schedule found (None when infeasible or unknown).
    makespan : float or None
        Makespan of ``schedule`` on the original data.
    lower_bound : float or None
        A proven lower bound on the optimal makespan. It may be passed as a
        zero-argument callable: it is then computed on its first read (and
        kept), so a heuristic's ``solve`` does not pay for bounds nobody reads.
    seconds : float
        Wall-clock time of the method.
    stats : mapping
        Method-specific statistics (solver branches, options used, ...).
    certified : bool or None
        For an ``OPTIMAL`` result: True when independent witnesses refuted every
        shorter makespan, False when a refutation failed, None when not attempted.
    certified_by : tuple of str
        The witnesses that refuted a shorter makespan (e.g. ``("milp",)``).

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> r = solve(load_instance("examples/topcuoglu2002.json"), "heft")
    >>> r.method, r.status.value, r.makespan, r.lower_bound, round(r.gap, 4)
    ('heft', 'feasible', 80, 58, 0.3793)
    >>> r.schedule["n1"]
    Placement(processor='p3', start=0, finish=9)
    >>> doc = r.to_json()  # a schedule document with the result's fields
    >>> doc["format"], doc["status"], len(doc["tasks"])
    ('exactsched/schedule@1', 'feasible', 10)
    """

    method: str
    status: Status
    schedule: Schedule | None
    makespan: float | None
    lower_bound: float | None
    seconds: float
    stats: Mapping[str, Any] = field(default_factory=dict)
    certified: bool | None = None
    certified_by: tuple[str, ...] = ()

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name == "lower_bound" and callable(value):  # lazy bound: compute once, keep
            value = value()
            object.__setattr__(self, "lower_bound", value)
        return value

    @property
    def gap(self) -> float | None:
        """``(makespan - lower_bound) / lower_bound``: at most this much above the optimum.

        See :func:`relative_gap`.
        """
        return relative_gap(self.makespan, self.lower_bound)

    def to_json(self) -> dict[str, Any]:
        """The schedule document plus ``method``, ``status``, bound, gap and seconds."""
        extra: dict[str, Any] = {
            "method": self.method,
            "status": self.status.value,
            "lower_bound": None if self.lower_bound is None else _tidy(self.lower_bound),
            "gap": self.gap,
            "certified": self.certified,
            "certified_by": list(self.certified_by),
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
        }
        if self.schedule is None:
            return {"format": "exactsched/schedule@1", "makespan": None, **extra, "tasks": []}
        return self.schedule.to_json(**extra)
