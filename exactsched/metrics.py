"""Quality metrics of a schedule (McSweeney's report, sec. 4.1).

References
----------
.. [1] T. McSweeney, "Scheduling with precedence constraints in high-performance
   computing", PhD continuation report, University of Manchester, 2019, sec. 4.1.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from exactsched.bounds import critical_path_bound, optimistic_critical_path
from exactsched.errors import MethodError
from exactsched.problem import Problem, require_problem

__all__ = ["minimal_serial_time", "speedup", "schedule_length_ratio", "slr_cp_min", "failed"]


def minimal_serial_time(problem: Problem) -> float:
    """Least total time of running every task on one processor ([1]_, MST).

    Only processors every task may use count; ``inf`` if there is none.
    Isolation and order pairs are always satisfiable by one processor.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    float
        The least, over processors allowed for every task, of the summed costs.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`Problem`.

    Examples
    --------
    >>> minimal_serial_time(Problem.from_lists([[2, 4], [3, 1]]))
    5.0
    """
    problem = require_problem(problem, "minimal_serial_time")
    usable = problem.allowed.all(axis=0)
    if not usable.any():
        return float("inf")
    return float(problem.cost[:, usable].sum(axis=0).min())


def speedup(problem: Problem, makespan: float) -> float:
    """Minimal serial time over makespan (larger is better).

    Parameters
    ----------
    problem : Problem
    makespan : float
        A schedule's makespan (a finite number >= 0).

    Returns
    -------
    float
        :func:`minimal_serial_time` over ``makespan``; ``inf`` for a makespan of 0.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`Problem`.
    MethodError
        If ``makespan`` is not a finite number >= 0.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> minimal_serial_time(p), speedup(p, 80)  # HEFT's makespan is 80
    (127.0, 1.5875)
    """
    problem, makespan = _checked(problem, makespan, "speedup")
    return minimal_serial_time(problem) / makespan if makespan > 0 else float("inf")


def schedule_length_ratio(problem: Problem, makespan: float) -> float:
    """Makespan over the optimistic-finish-time critical path ([1]_, SLR; >= 1).

    Parameters
    ----------
    problem : Problem
    makespan : float
        As :func:`speedup`.

    Returns
    -------
    float
        ``makespan`` over :func:`~exactsched.bounds.optimistic_critical_path`
        (1 for an empty schedule of a path of length 0, else ``inf`` there).

    Raises
    ------
    TypeError, MethodError
        As :func:`speedup`.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> round(schedule_length_ratio(p, 80), 3)  # HEFT's makespan is 80
    1.481
    """
    problem, makespan = _checked(problem, makespan, "schedule_length_ratio")
    return _over_path(makespan, optimistic_critical_path(problem))


def slr_cp_min(problem: Problem, makespan: float) -> float:
    """Makespan over the least costs along ``CP_MIN`` (Topcuoglu et al. 2002, SLR).

    The HEFT paper's SLR: its denominator is the critical path of least costs
    without communication (:func:`~exactsched.bounds.critical_path_bound`), so it
    is at least :func:`schedule_length_ratio`, which also counts the least
    communication; use this one to compare with the papers' figures.

    Parameters
    ----------
    problem : Problem
    makespan : float
        As :func:`speedup`.

    Returns
    -------
    float
        ``makespan`` over :func:`~exactsched.bounds.critical_path_bound`.

    Raises
    ------
    TypeError, MethodError
        As :func:`speedup`.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> round(slr_cp_min(p, 80), 3), round(schedule_length_ratio(p, 80), 3)
    (1.951, 1.481)
    """
    problem, makespan = _checked(problem, makespan, "slr_cp_min")
    return _over_path(makespan, critical_path_bound(problem))


def _checked(problem: Any, makespan: Any, where: str) -> tuple[Problem, float]:
    """The arguments of a metric: a :class:`Problem` and a finite makespan >= 0 (a float)."""
    problem = require_problem(problem, where)
    if (
        isinstance(makespan, bool)
        or not isinstance(makespan, numbers.Real)
        or not 0 <= makespan < math.inf
    ):
        raise MethodError(f"{where}: makespan must be a finite number >= 0, got {makespan!r}")
    return problem, float(makespan)


def _over_path(makespan: float, cp: float) -> float:
    """``makespan / cp``; a path of length 0 gives 1 for an empty schedule, else inf."""
    return makespan / cp if cp > 0 else (1.0 if makespan == 0 else float("inf"))


def failed(problem: Problem, makespan: float) -> bool:
    """Whether the makespan exceeds the minimal serial time ([1]_: a "failure").

    Parameters
    ----------
    problem : Problem
    makespan : float
        As :func:`speedup`.

    Returns
    -------
    bool
        True when ``makespan`` exceeds :func:`minimal_serial_time` by more than a
        relative ``1e-12`` (float noise of the serial sum).

    Raises
    ------
    TypeError, MethodError
        As :func:`speedup`.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> minimal_serial_time(p), failed(p, 80), failed(p, 127), failed(p, 128)
    (127.0, False, False, True)
    """
    problem, makespan = _checked(problem, makespan, "failed")
    return bool(makespan > minimal_serial_time(problem) * (1 + 1e-12))
