"""Integer data for the CP-SAT model: scaling, rounding and the numbers CP-SAT can hold.

CP-SAT works on 64-bit integers. :func:`scale_data` multiplies costs and
delays by a *resolution* and rounds them up, so every schedule of the scaled
data, divided by the resolution and re-timed, is valid on the original data.
The scaled optimum exceeds ``resolution * OPT`` by less than the rounding
along one path (``slack``), so ``(scaled bound - slack) / resolution`` is a
valid bound on the original optimum, and a scaled proof is a proof on the
original data only when the scaling was exact.

With ``limit``, the resolution is lowered (by powers of ten, below 1 if need
be) until the scaled sum of every largest cost and delay -- which bounds every
time variable and, times the largest capacity, every linear row of the model --
is at most ``limit``: costs of ``1e17`` are then solved at a coarser grid with
a valid bound instead of overflowing CP-SAT's ``int64`` domains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, localcontext

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem
from models._grid import exact_units

__all__ = ["ScaledData", "scale_data", "ceil_tol", "scale_up"]

# Largest scaled value aimed at when data must be rounded.
_TARGET_SCALE = 1e6
# Relative distance to an integer below which a scaled value is that integer
# (decimal data such as 0.7 * 10 = 7.000000000000001).
_TOL = 1e-9


def ceil_tol(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """Round up, except values within a relative 1e-9 of an integer; and whether all were.

    The tolerance is relative to the value itself, so a positive value is never
    rounded to zero (a cost of ``1e-10`` at resolution 10 becomes 1, not 0).

    Examples
    --------
    >>> ceil_tol(np.array([7.000000000000001, 2.5]))
    (array([7., 3.]), False)
    >>> ceil_tol(np.array([1e-9, 0.0]))[0].tolist()
    [1.0, 0.0]
    """
    values = np.asarray(values, dtype=float)
    near = np.round(values)
    close = np.abs(values - near) <= _TOL * np.abs(values)
    return np.where(close, near, np.ceil(values)), bool(np.all(close))


def scale_up(
    values: np.ndarray, resolution: float, factors: np.ndarray | None = None
) -> tuple[np.ndarray, bool]:
    """``ceil(value * resolution)`` decided exactly; and whether every product was an integer.

    Each value and the resolution are read as the decimals they print as
    (shortest ``repr``, as :mod:`exactsched.validate` reads numbers), and the
    product is computed exactly: ``0.7 * 10`` is 7, and ``10000000001 * 1e-3``
    is *not* an integer however close (no relative snapping, which would round
    a value down and make the scaled data no restriction).

    Examples
    --------
    >>> scale_up(np.array([0.7, 2.5]), 10)
    (array([ 7., 25.]), True)
    >>> scale_up(np.array([10000000001.0]), 1e-3)
    (array([10000001.]), False)
    >>> scale_up(np.array([1e-10, 0.0]), 10)[0].tolist()
    [1.0, 0.0]
    >>> scale_up(np.array([0.1, 22.249]), 10000, factors=np.array([1.0, 1.5]))
    (array([[  1000.,   1500.],
           [222490., 333735.]]), True)

    With ``factors`` (the distinct hop values), ``values`` are per-arc units and
    the result is the ``(len(values), len(factors))`` table of the delays
    ``value * factor``, the product of the two decimals (not of the floats:
    ``0.1 * 3`` is 0.3 here).
    """
    values = np.asarray(values, dtype=float)
    if factors is not None:
        return _scale_products(values, np.asarray(factors, dtype=float), resolution)
    product = values * resolution
    # Fast path: integer values times an integer resolution, products below 2**53.
    if (
        float(resolution) == int(resolution)
        and np.all(values == np.floor(values))
        and np.all(np.abs(product) < 2.0**53)  # 2**53 may be 2**53 + 1 rounded
    ):
        return product, True
    distinct, code = np.unique(values, return_inverse=True)
    out = np.empty(len(distinct))
    exact = True
    near = np.abs(distinct) * float(resolution)
    clear = _clear_of_integers(near)
    out[clear] = np.ceil(distinct[clear] * float(resolution))
    exact = not clear.any()
    # At a resolution 10**k, a value v with N = round(v * 10**k) and N / 10**k == v
    # (both exact floats below 2**52) prints as the decimal N * 10**-k: its shortest
    # decimal has at most k places and lies within an ulp < 10**-k of it. So the
    # product is the integer N, with no decimal arithmetic.
    done = clear
    if _power_of_ten(resolution):
        r = float(resolution)
        with np.errstate(invalid="ignore", over="ignore"):
            whole = np.round(distinct * r)
            hit = ~clear & (near < 2.0**52) & (whole / r == distinct)
        out[hit] = whole[hit]
        done = clear | hit
    with localcontext() as context:
        context.prec = 800  # exact products of any two doubles' shortest decimals
        scale = Decimal(repr(float(resolution)))
        for k in np.flatnonzero(~done).tolist():
            v = float(distinct[k])
            if not math.isfinite(v):
                out[k] = v
                continue
            d = Decimal(repr(v)) * scale
            up = int(d.to_integral_value(rounding=ROUND_CEILING))
            exact = exact and d == up
            value = float(up)  # compared as a Python float: numpy would round up to a float
            if value < up:  # the float of a huge integer fell below it: stay a restriction
                value = math.nextafter(value, math.inf)
            exact = exact and value == up  # a float above it is no exact image either
            out[k] = value
    return out[code.reshape(values.shape)], exact


def _clear_of_integers(near: np.ndarray) -> np.ndarray:
    """Where a float product lies more than ``1e-9`` (relative) from every integer.

    The shortest decimals of the factors differ from their floats by about
    ``1e-16`` relative, so the exact product has the same ceiling there: only
    products near an integer need the decimals.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        frac = np.abs(near - np.round(near))
        return np.isfinite(near) & (frac > 1e-9 * near) & (near < 2.0**52)


def _power_of_ten(resolution: float) -> bool:
    """Whether ``resolution`` is ``10**k`` for a whole ``k`` from 0 to 22 (an exact float)."""
    r = float(resolution)
    return r >= 1 and r <= 1e22 and r == int(r) and str(int(r)).rstrip("0") == "1"


def _scale_products(
    units: np.ndarray, factors: np.ndarray, resolution: float
) -> tuple[np.ndarray, bool]:
    """The table ``ceil(unit * factor * resolution)``, decimals multiplied exactly."""
    plain = units[:, None] * factors[None, :]
    if (
        float(resolution) == int(resolution)
        and np.all(units == np.floor(units))
        and np.all(factors == np.floor(factors))
        and np.all(np.abs(plain * resolution) < 2.0**53)
    ):
        return plain * resolution, True
    distinct, code = np.unique(units, return_inverse=True)
    out = np.empty((len(distinct), len(factors)))
    near = np.abs(distinct[:, None] * factors[None, :]) * float(resolution)
    clear = _clear_of_integers(near)
    out[clear] = np.ceil((distinct[:, None] * factors[None, :] * float(resolution))[clear])
    exact = not clear.any()
    done = clear
    if _power_of_ten(resolution):
        # As in scale_up: a unit v with N = round(v * 10**k), N / 10**k == v prints as
        # N * 10**-k, so times a whole factor h the product is the integer N * h
        # (exact in floating point below 2**53).
        r = float(resolution)
        with np.errstate(invalid="ignore", over="ignore"):
            whole = np.round(distinct * r)
            image = (np.abs(distinct) * r < 2.0**52) & (whole / r == distinct)
            wholes = (factors == np.floor(factors)) & (np.abs(factors) < 2.0**52)
            product = whole[:, None] * factors[None, :]
            hit = ~clear & image[:, None] & wholes[None, :] & (np.abs(product) < 2.0**53)
        out[hit] = product[hit]
        done = clear | hit
    with localcontext() as context:
        context.prec = 800
        scale = Decimal(repr(float(resolution)))
        hops = [Decimal(repr(float(h))) for h in factors.tolist()]
        for k, m in zip(*np.nonzero(~done), strict=True):
            k, m = int(k), int(m)
            d = Decimal(repr(float(distinct[k]))) * scale * hops[m]
            up = int(d.to_integral_value(rounding=ROUND_CEILING))
            exact = exact and d == up
            value = float(up)
            if value < up:  # as in scale_up: a Python comparison, exact for huge integers
                value = math.nextafter(value, math.inf)
            exact = exact and value == up
            out[k, m] = value
    return out[code], exact


@dataclass
class ScaledData:
    """Integer data of the CP-SAT model.

    Attributes
    ----------
    resolution : float
        Time units per original unit.
    exact : bool
        Whether every scaled value was an integer (then answers are exact).
    cost : numpy.ndarray
        ``(n, P)`` scaled execution times (float array of integers, ``inf`` outside affinity).
    delay : numpy.ndarray
        ``(n_arcs, P, P)`` scaled communication delays.
    slack : int
        Upper bound on the total rounding along one path of a schedule, in scaled units.
    """

    resolution: float
    exact: bool
    cost: np.ndarray
    delay: np.ndarray
    slack: int = 0

    @property
    def total(self) -> float:
        """Sum of every task's largest scaled cost and every arc's largest scaled delay."""
        return _total(self.cost, self.delay)

    @property
    def step(self) -> int:
        """Greatest common divisor of every scaled cost and delay (1 unless ``exact``).

        Every start of a semi-active schedule is a sum of costs and delays, so on
        exactly scaled data the optimum is a multiple of ``step / resolution`` and a
        bound may be rounded up to one (data all multiples of 0.25 scale by 100 to
        multiples of 25).

        Examples
        --------
        >>> scale_data(Problem.from_lists([[0.25, 0.5], [0.75, 1.0]], n_processors=2)).step
        25
        >>> scale_data(Problem.from_lists([[0.3]])).step
        3
        """
        if not self.exact or self.total > 2.0**53:
            return 1
        step = 0
        for values in (self.cost[np.isfinite(self.cost)], self.delay.reshape(-1)):
            # Chunks, so that typical data (a step of 1 after a few values) stop early.
            for start in range(0, len(values), 1 << 16):
                chunk = values[start : start + (1 << 16)].astype(np.int64)
                step = math.gcd(step, int(np.gcd.reduce(chunk, initial=0)))
                if step == 1:
                    return 1
        return max(step, 1)


def _total(cost: np.ndarray, delay: np.ndarray) -> float:
    largest = np.where(np.isfinite(cost), cost, 0.0).max(axis=1).sum() if cost.size else 0.0
    if delay.size:
        largest += delay.reshape(len(delay), -1).max(axis=1).sum()
    return float(largest)


def _check_resolution(resolution: object) -> None:
    if (
        isinstance(resolution, bool)
        or not isinstance(resolution, int | float)
        or not math.isfinite(resolution)
        or resolution <= 0
    ):
        raise MethodError(f"resolution: expected a positive number, got {resolution!r}")


def scale_data(
    problem: Problem, resolution: float | None = None, *, limit: float | None = None
) -> ScaledData:
    """Scale and round the data of ``problem`` up to integers.

    Parameters
    ----------
    problem : Problem
    resolution : float, optional
        Time units per original unit. Default: 1 on integer data; else the
        smallest power of ten up to ``10**6`` that makes every cost and delay an
        integer; else the power of ten that maps the largest value to at most
        ``10**6``.
    limit : float, optional
        Largest allowed scaled sum of every task's largest cost and every arc's
        largest delay (:attr:`ScaledData.total`); the default resolution is
        lowered by powers of ten until it holds. None: no limit.

    Returns
    -------
    ScaledData

    Raises
    ------
    MethodError
        If ``resolution`` is not a positive finite number; if that sum is not
        a finite number; if an explicit ``resolution`` exceeds ``limit``.

    Examples
    --------
    >>> p = Problem.from_lists([[1.5, 2.25]], n_processors=2)
    >>> s = scale_data(p)
    >>> s.resolution, s.exact, s.cost.tolist()
    (100, True, [[150.0, 225.0]])
    >>> scale_data(p, resolution=2).cost.tolist()   # 4.5 is rounded up
    [[3.0, 5.0]]
    >>> big = Problem.from_lists([[3e17], [1e17]], n_processors=1)
    >>> s = scale_data(big, limit=1e12)
    >>> s.resolution, s.cost.ravel().tolist(), s.exact
    (1e-06, [300000000000.0, 100000000000.0], True)

    Notes
    -----
    Costs and delays are rounded *up*, so a schedule valid on scaled data,
    divided by the resolution, is valid on the original data. The scaled
    optimum may exceed ``resolution * OPT``, but by less than one unit per
    task and per arc on the longest path of the optimal schedule, i.e. by less
    than ``slack`` (n, plus n - 1 if delays were rounded); so
    ``(scaled bound - slack) / resolution`` is a valid bound for the original.
    """
    finite = problem.cost[problem.allowed]
    # Delays per arc and distinct hop value, (n_arcs, U): expanded to (n_arcs, P, P)
    # once, at the end (the full tensor is the model's largest array).
    hop_values, hop_code = np.unique(problem.hops, return_inverse=True)
    units = exact_units(problem)  # latency + data / bandwidth as its decimal
    delays = units[:, None] * hop_values[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        unscaled = _total(np.where(problem.allowed, problem.cost, np.inf), delays[:, None, :])
    if not math.isfinite(unscaled):
        raise MethodError(
            "costs: the sum of the task costs and communication delays exceeds the "
            "floating-point range; rescale the instance"
        )
    if resolution is not None:
        _check_resolution(resolution)
        if limit is not None and unscaled * resolution > limit:
            raise MethodError(
                f"resolution: {resolution!r} makes the scaled total {unscaled * resolution:.3g} "
                f"exceed what CP-SAT can hold ({limit:.3g})"
            )
    else:
        values = np.concatenate([finite, delays.ravel()])
        top = float(values.max()) if values.size else 0.0
        if problem.is_integral:
            resolution = 1
        else:
            # Exactness of the distinct values is that of all: sort them once.
            costs, distinct_units = np.unique(finite), np.unique(units)
            for k in range(1, 7):
                if top * 10**k > 1e12:
                    break
                if (
                    scale_up(costs, 10**k)[1]
                    and scale_up(distinct_units, 10**k, factors=hop_values)[1]
                ):
                    resolution = 10**k
                    break
            if resolution is None:
                resolution = 10.0 ** math.floor(math.log10(_TARGET_SCALE / max(top, 1e-300)))
        if limit is not None and unscaled * resolution > limit:
            # Numbers CP-SAT cannot hold: a coarser grid (the bound stays valid).
            resolution = 10.0 ** math.floor(math.log10(limit / unscaled))
            while unscaled * resolution > limit:  # log10 rounding
                resolution /= 10.0
    cost, cost_exact = scale_up(np.where(problem.allowed, problem.cost, 0.0), resolution)
    cost = np.where(problem.allowed, cost, np.inf)
    table, delay_exact = scale_up(units, resolution, factors=hop_values)
    delay = table[:, hop_code.reshape(problem.hops.shape)]
    n = problem.n_tasks
    slack = (0 if cost_exact else n) + (0 if delay_exact else max(0, n - 1))
    return ScaledData(resolution, cost_exact and delay_exact, cost, delay, slack)
