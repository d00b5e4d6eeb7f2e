"""The decimal grid that every time of a list schedule lies on, when floats can hold it.

On data written with a few decimals (costs ``0.1``, ``2.675``) every start and
finish of a schedule built by placing tasks as early as they fit is a sum of
costs and delays, hence a multiple of ``10**-k``. Float sums blur that grid by
an ulp (``0.2 + 0.1`` is ``0.30000000000000004``), which is enough to decide that
a task of ``0.1`` does not fit the idle slot ``[0.2, 0.3)`` it exactly fills, or
to break a tie between two processors the wrong way. Rounding every computed
time to the nearest grid value (:func:`snap`) gives the float of the exact
decimal time, so equal decimals compare equal, as the validator reads them.

:func:`time_resolution` says when that rounding is exact: every cost, every
per-hop unit ``latency + data / bandwidth`` (read exactly: the problem's float
sum may be an ulp off) and every hop count stands for a decimal of at most
:data:`MAX_PLACES` places, and the longest schedule time in grid units stays
below ``2**46``, so the few roundings of one computed time (each at most an ulp,
1/64 of a step) stay far below half a grid step. Integer data need no rounding
(their sums are exact below ``2**53``) and get None, as do data off any such
grid, which keep their plain float sums. Under the single-port and contention
models every stage of a message lasts ``weight * unit`` (a fat tree's links weigh
``1/2``), so the weights' places count too, and message times are rounded
like task times (``heuristics._contention``, :meth:`exactsched.Schedule.from_arrays`).

A different question from :mod:`models._grid`, which decides, for certification,
how far apart two makespans must be to differ (up to 12 places, with its own
tolerance for float data); this module only decides when rounding computed
times is exact, with a tighter limit.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from exactsched.bounds import longest_serial_time
from exactsched.problem import Problem

__all__ = ["MAX_PLACES", "time_resolution", "snap"]

#: Decimal places up to which a time grid is used (a step of ``10**-12``, as the
#: certification's grid, :data:`models._grid.MAX_PLACES`).
MAX_PLACES = 12
# Longest time in grid units for which the float error of a computed time stays far
# below half a step: an arrival adds up to about 5 roundings (latency + data /
# bandwidth, times hops, plus the finish, times the resolution), each at most an ulp,
# which is 1/64 of a step below 2**46 units (at 2**50 an ulp is 1/4 step and an
# audit found arrivals rounded down a step).
_HELD_UNITS = 2.0**46


def _common_places(values: np.ndarray) -> int | None:
    """Least ``k`` such that every value is the float of a multiple of ``10**-k``."""
    values = values[np.isfinite(values)]
    for k in range(MAX_PLACES + 1):
        r = 10.0**k
        whole = np.round(values * r)
        if np.all(whole / r == values) and np.all(np.abs(whole) < _HELD_UNITS):
            return k
    return None


def _fraction_places(value: Fraction) -> int | None:
    """Decimal places of an exact rational, None if it has no finite decimal."""
    den, k = value.denominator, 0
    while den % 10 == 0:
        den //= 10
        k += 1
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return k + max(twos, fives) if den == 1 else None


def _unit_places(problem: Problem) -> int | None:
    """Places of every per-hop unit ``latency + data / bandwidth``, read exactly.

    The problem's float unit can be off its decimal by an ulp (``0.1 + 0.7`` is
    ``0.7999999999999999``); rounding the times removes that ulp, so what counts
    is the exact decimal of the sum, decided from latency, data and bandwidth,
    never from the float unit: a latency of ``8e-17`` vanishes in ``1.1 + 8e-17``,
    whose float looks like one decimal place (an audit).
    """
    if len(problem.edge_data) == 0 or not np.any(np.asarray(problem.hops) > 0):
        return 0  # no message ever travels (one processor, zero hops): units never count
    latency, bandwidth = float(problem.latency), float(problem.bandwidth)
    data = np.unique(np.asarray(problem.edge_data, dtype=float))
    if bandwidth == 1:
        k_data, k_latency = _common_places(data), _common_places(np.array([latency]))
        return None if k_data is None or k_latency is None else max(k_data, k_latency)
    lat, bw = Fraction(repr(latency)), Fraction(repr(bandwidth))
    places = 0
    for value in data.tolist():
        k = _fraction_places(lat + Fraction(repr(value)) / bw)
        if k is None or k > MAX_PLACES:
            return None
        places = max(places, k)
    return places


def time_resolution(problem: Problem) -> float | None:
    """Grid units per time unit (``10.0**k``) of ``problem``'s schedule times, or None.

    None on integer data (exact already) and on data that no decimal grid of
    at most :data:`MAX_PLACES` places holds (module docstring). Cached per
    problem.

    Examples
    --------
    >>> time_resolution(Problem.from_lists([[0.1, 0.2], [2.675, 1]], [(0, 1, 0.5)]))
    1000.0
    >>> time_resolution(Problem.from_lists([[1, 2]])) is None  # integers add up exactly
    True
    >>> time_resolution(Problem.from_lists([[0.1 + 0.2]])) is None  # no grid: 17 digits
    True
    """
    cache = problem._cache
    if "time_resolution" not in cache:
        cache["time_resolution"] = _time_resolution(problem)
    resolution: float | None = cache["time_resolution"]
    return resolution


def _time_resolution(problem: Problem) -> float | None:
    cost = np.asarray(problem.cost, dtype=float)
    hops = problem.delay_multiples  # under ports and links a stage lasts weight * unit
    k_cost, k_unit, k_hops = _common_places(cost), _unit_places(problem), _common_places(hops)
    if k_cost is None or k_unit is None or k_hops is None:
        return None
    k = max(k_cost, k_unit + k_hops)
    if k == 0 or k > MAX_PLACES:
        return None
    resolution = 10.0**k
    if not longest_serial_time(problem) * resolution < _HELD_UNITS:
        return None
    return resolution


def snap(values: Any, resolution: float | None) -> Any:
    """``values`` rounded to the nearest multiple of ``1 / resolution`` (unchanged if None).

    Infinities and NaN pass through. The result is the float nearest to the
    exact decimal: ``rint(v * r)`` is an exact integer and ``/ r`` rounds once.

    Examples
    --------
    >>> snap(0.2 + 0.1, 10.0), snap(np.array([0.1 + 0.7, np.inf]), 10.0).tolist()
    (0.3, [0.8, inf])
    >>> snap(0.30000000000000004, None)
    0.30000000000000004
    """
    if resolution is None:
        return values
    if isinstance(values, float):
        return float(np.rint(values * resolution) / resolution)
    return np.rint(values * resolution) / resolution
