"""A witness-proven lower bound for a claim that no witness certified in time.

When the witnesses of :func:`models.certify.certify` cannot refute the claim's
makespan less one grid step within their time, the claim falls back to the
foundation bound (:func:`models.certify.settle`), which may be far below it:
on tiled Cholesky N = 6 on 28 CPU cores + 4 GPUs ``cpsat`` proves 21712 in
22 s, the interval-free witness refutes 21000 in 17-25 s but not 21711 in 60 s,
and the foundation bound is 13790. Refutation gets steeply harder near the
optimum, so lower targets are decided in a fraction of that time.

:func:`bound_ladder` asks the same witness, on the same integer data, about
lower targets by bisection between the witness's own bound
(:func:`models._refute.witness_bound`) and the failed target: a refuted target
``t`` proves every schedule of the original data at least ``(t + 1) /
resolution`` long (the data are the original ones or rounded down, a
relaxation; :mod:`models._refute`). Each attempt gets half the time left, so a
time out leaves time for a lower target. A witness schedule met at some
target ends the ladder and is returned: the caller validates it and, when it is
shorter than the claim, reports a caught false proof.

The bound rests on the witness's verdicts alone, never on the method's proof or
the engine's bound, so it holds whether the claim is true or not.

Examples
--------
>>> from exactsched import Problem
>>> from models._refute import grid_data, refute_cpsat
>>> p = Problem.from_lists([4, 4, 4, 4], n_processors=2)
>>> step = bound_ladder(p, refute_cpsat, grid_data(p, 1), 7, seconds=5)
>>> step.target, step.bound
(7, Fraction(8, 1))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactsched.problem import Problem
from exactsched.schedule import Schedule
from models._refute import Floored, Verdict, witness_bound

__all__ = ["LadderResult", "bound_ladder", "MIN_SLICE"]

#: The ladder stops when less than this many seconds are left for an attempt.
MIN_SLICE = 0.05


@dataclass(frozen=True)
class LadderResult:
    """What :func:`bound_ladder` proved or found.

    Attributes
    ----------
    target : int or None
        The largest refuted target (model units), None when none was refuted.
    bound : Fraction or None
        ``(target + 1) / resolution``: no schedule of the original data is shorter.
    schedule : Schedule or None
        A witness schedule met at some target (re-timed, not yet validated).
    tried : list of dict
        Each attempt: ``target``, ``outcome``, ``seconds``.
    """

    target: int | None
    bound: Fraction | None
    schedule: Schedule | None = None
    tried: list[dict[str, Any]] = field(default_factory=list)


def bound_ladder(
    problem: Problem,
    witness: Callable[..., Verdict],
    data: Floored,
    failed: int,
    *,
    seconds: float,
    seed: int = 0,
    workers: int = 1,
) -> LadderResult:
    """Refute the largest target below ``failed`` that ``witness`` decides in ``seconds``.

    Parameters
    ----------
    problem : Problem
        The problem the witness decides (the delay relaxation for message models).
    witness : callable
        ``witness(problem, data, target, time_limit=, seed=, workers=) -> Verdict``,
        a CP-SAT witness of :mod:`models._refute` or :mod:`models._refute_cumulative`.
    data : Floored
        The witness's integer data.
    failed : int
        A target the witness did not refute: targets below it are tried.
    seconds : float
        Time for every attempt together.
    seed, workers : int
        As for the witness.

    Returns
    -------
    LadderResult
        Bisection between the witness's own bound and ``failed - 1``: a refuted
        target raises the floor, a time out lowers the ceiling; it stops at the first
        schedule found (a relaxation's schedule says nothing of the targets above).
    """
    started = time.perf_counter()
    low = witness_bound(problem, data)  # no schedule is shorter: target low - 1 is refuted
    best = low - 1 if low > 0 else None
    high = failed - 1
    tried: list[dict[str, Any]] = []
    schedule = None
    while low <= high:
        left = seconds - (time.perf_counter() - started)
        if left < MIN_SLICE:
            break
        middle = (low + high) // 2
        verdict = witness(
            problem, data, middle, time_limit=max(MIN_SLICE, left / 2), seed=seed, workers=workers
        )
        tried.append(
            {"target": middle, "outcome": verdict.outcome, "seconds": round(verdict.seconds, 6)}
        )
        if verdict.outcome == "refuted":
            best, low = middle, middle + 1
        elif verdict.outcome == "found":
            schedule = verdict.schedule
            break
        elif verdict.seconds < MIN_SLICE / 10:
            break  # declined (a model too slow to build): less time will not help
        else:
            high = middle - 1
    if best is None:
        return LadderResult(None, None, schedule, tried)
    bound = Fraction(best + 1) / Fraction(repr(data.resolution))
    return LadderResult(best, bound, schedule, tried)
