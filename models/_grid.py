"""The grid of an instance's numbers, decided exactly, and whether engines can hold it.

Not a registered method (the leading underscore keeps the auto-import away).
Used by the certification (:mod:`models.certify`) and its witnesses; it shares
no code with any model, so the question "how far apart must two makespans be
to differ?" is answered once, exactly, for every proof and witness.

Every cost and every delay (``arc_unit * hops``, the float product the problem
defines) is read as the decimal it prints as (Python's shortest round-trip
``repr``, as :mod:`exactsched.validate` reads numbers). The data are

* ``"integer"`` when every value is an integer: the grid step is 1;
* ``"decimal"`` when every value has at most :data:`MAX_PLACES` decimal places
  and at most 15 significant digits: the step is ``10**-k`` for the least such ``k``;
* ``"float"`` otherwise (``0.30000000000000004``, ``1/3``): no grid, and
  comparisons of makespans use the documented relative tolerance
  :data:`FLOAT_TOLERANCE`.

No value is snapped: ``10000000001 * 1e-3`` is not an integer, however close.

The data are *held* when the float arithmetic of the schedules cannot blur a
grid step: on integer data when the sum of every task's largest cost and every
arc's largest delay (which bounds every time of a semi-active schedule) is at
most ``2**53`` (every such sum is then an exact float); on decimal data when
that sum in grid units, times the rounding of a float sum over a path
(:meth:`Grid.noise`), stays below a quarter step. Data that are not held get
``feasible`` answers with a valid bound, never ``optimal``
(:func:`models.certify.apply_policy`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from exactsched.problem import Problem

__all__ = ["Grid", "data_grid", "exact_units", "MAX_PLACES", "FLOAT_TOLERANCE", "EXACT_LIMIT"]

#: Decimal places up to which data count as decimal (a step of ``10**-12``).
MAX_PLACES = 12
#: Relative tolerance of makespan comparisons on float data (no grid).
FLOAT_TOLERANCE = 1e-9
#: Integers up to this are exact floats; every time of a schedule must stay below.
EXACT_LIMIT = 2**53
_DIGITS = 15


@dataclass(frozen=True)
class Grid:
    """The grid of an instance.

    Attributes
    ----------
    kind : str
        ``"integer"``, ``"decimal"`` or ``"float"``.
    places : int or None
        ``k`` of the step ``10**-k`` (0 on integers; None on float data).
    total : int or None
        Sum of every task's largest cost and every arc's largest delay, in grid
        units (None on float data).
    n_tasks : int
    held : bool
        Whether schedules' float times keep grid values apart (module docstring).
    """

    kind: str
    places: int | None
    total: int | None
    n_tasks: int
    held: bool

    @property
    def resolution(self) -> int:
        """Grid units per original unit (``10**places``; 1 on float data)."""
        return 10 ** (self.places or 0)

    @property
    def exact(self) -> bool:
        """Whether the data lie on a grid (integer or decimal)."""
        return self.places is not None

    def noise(self, value: float) -> Fraction:
        """Largest float error of a schedule time near ``value``, in grid units.

        Zero on held integer data (every sum is exact). Otherwise each of at
        most ``2 n`` additions along a path, and each of ``n + 1`` conversions of
        a decimal to a float, errs by at most half a unit in the last place of
        the result: ``(4 n + 2) ulp(value)`` in all.
        """
        if self.kind == "integer" and self.held:
            return Fraction(0)
        ulp = math.ulp(abs(float(value))) if value else math.ulp(0.0)
        return Fraction(ulp) * (4 * self.n_tasks + 2) * self.resolution

    def units(self, value: float) -> Fraction:
        """``value`` (a float, read exactly) in grid units."""
        return Fraction(float(value)) * self.resolution

    def claim_units(self, value: float) -> int:
        """The least grid value a float time ``value`` may stand for.

        ``ceil(value * resolution - noise)``: on held integer data the integer
        ``value`` itself.
        """
        return math.ceil(self.units(value) - self.noise(value))

    def steps_apart(self, a: float, b: float) -> bool:
        """Whether ``a`` and ``b`` are one grid step or more apart (beyond float noise).

        On float data: apart by more than :data:`FLOAT_TOLERANCE` relative.

        Examples
        --------
        >>> g = Grid("integer", 0, 10**13, 6, True)
        >>> g.steps_apart(3000000001998, 3000000002331), g.steps_apart(5, 5)
        (True, False)
        """
        if not self.exact:
            return abs(a - b) > FLOAT_TOLERANCE * max(abs(a), abs(b))
        # Grid values differ by whole steps; float noise of held data is below a
        # quarter step each, so half a step separates "same" from "different".
        return abs(self.units(a) - self.units(b)) >= Fraction(1, 2)


_UNDECIDED = -1
_NOT_DECIMAL = -2


def fast_places(values: np.ndarray) -> np.ndarray:
    """Decimal places of each value where floats decide them; else a marker.

    For ``v`` with ``N = round(v * 10**k)`` and ``N / 10**k == v``, both exact
    floats with ``|v| * 10**k < 2**52``, the shortest decimal of ``v`` is
    ``N * 10**-k``: it has at most ``k`` places and lies within an ulp, which
    is below ``10**-k``, of that multiple of ``10**-k``. The least such ``k``
    is therefore the places :func:`_places` reads, and such a ``v`` has more
    than 15 significant digits exactly when ``N >= 10**15`` (``k >= 1``: ``N``
    then has no trailing zero). Gives ``k``, :data:`_NOT_DECIMAL` for those
    of 16 digits, :data:`_UNDECIDED` where no ``k <= MAX_PLACES`` decides.

    Examples
    --------
    >>> fast_places(np.array([2.5, 0.1, 1e-9, 3.0, 0.1 + 0.2, 1e17])).tolist()
    [1, 1, 9, 0, -1, -1]
    """
    values = np.asarray(values, dtype=float)
    out = np.full(len(values), _UNDECIDED, dtype=np.int64)
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(MAX_PLACES + 1):
            r = 10.0**k
            scaled = np.abs(values) * r
            whole = np.round(values * r)
            hit = (out == _UNDECIDED) & finite & (scaled < 2.0**52) & (whole / r == values)
            long = hit & (k >= 1) & (np.abs(whole) >= 10.0**_DIGITS)
            out[hit] = k
            out[long] = _NOT_DECIMAL
    return out


def _places(d: Decimal) -> int | None:
    """Decimal places of ``d``; None beyond :data:`MAX_PLACES` places or 15 digits."""
    if not d.is_finite():
        return None
    d = d.normalize()
    _, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    if exponent >= 0:
        return 0
    if len(digits) > _DIGITS or -exponent > MAX_PLACES:
        return None
    return -exponent


def exact_units(problem: Problem) -> np.ndarray:
    """Per arc, the cost per hop ``latency + data / bandwidth`` as the float of its decimal.

    The problem computes it in floating point, and ``2 + 2.124`` is
    ``4.1240000000000006``: read as a decimal, clean three-place data would look
    like float data and lose every proof (an outside audit). Where latency, data
    and bandwidth print as decimals whose exact ``latency + data / bandwidth`` is a
    decimal that prints as itself (``4.124``), that float is used; anywhere else,
    the problem's own. Every exact reading (the grid, the scaled data of the
    models, the witnesses' floors) takes its units from here.

    Examples
    --------
    >>> from exactsched import Problem
    >>> p = Problem.from_lists([1, 1], [(0, 1, 2.124)], n_processors=2, network={"latency": 2})
    >>> p.arc_unit.tolist(), exact_units(p).tolist()
    ([4.1240000000000006], [4.124])
    """
    cache = problem._cache  # computed once per problem: every exact reading asks
    if "exact_units" not in cache:
        cache["exact_units"] = _exact_units(problem)
    return cache["exact_units"]


def _exact_units(problem: Problem) -> np.ndarray:
    units = problem.arc_unit.astype(float, copy=True)
    n_edges = len(problem.edge_src)
    latency, bandwidth = float(problem.latency), float(problem.bandwidth)
    if n_edges == 0 or (latency == 0 and bandwidth == 1):
        return units  # the data themselves: nothing was computed
    if not (math.isfinite(latency) and math.isfinite(bandwidth) and bandwidth > 0):
        return units
    lat, bw = Fraction(repr(latency)), Fraction(repr(bandwidth))
    values, inverse = np.unique(problem.edge_data, return_inverse=True)
    decimal = np.full(len(values), np.nan)  # per distinct datum; one pass over the edges
    for k, data in enumerate(values.tolist()):
        if not math.isfinite(data):
            continue
        exact = lat + Fraction(repr(float(data))) / bw
        value = float(exact)
        if math.isfinite(value) and Fraction(repr(value)) == exact:
            decimal[k] = value
    per_edge = decimal[inverse.ravel()]
    held = ~np.isnan(per_edge)
    units[:n_edges][held] = per_edge[held]
    return units


def _delay_decimals(problem: Problem) -> list[list[Decimal]]:
    """Per arc, the exact decimal delays ``arc_unit * hop`` for each distinct hop value.

    Both factors are read as the decimals they print as (the validator's
    reading); the float product ``0.1 * 3`` would be ``0.30000000000000004``.
    """
    hop_values = [Decimal(repr(float(h))) for h in np.unique(problem.hops).tolist()]
    arc_units = exact_units(problem)
    units = {u: Decimal(repr(float(u))) for u in np.unique(arc_units).tolist()}
    return [[units[u] * h for h in hop_values] for u in arc_units.tolist()]


def data_grid(problem: Problem) -> Grid:
    """Decide the grid of ``problem`` exactly.

    Examples
    --------
    >>> from exactsched import Problem
    >>> data_grid(Problem.from_lists([[1.5, 2.25]], n_processors=2))
    Grid(kind='decimal', places=2, total=225, n_tasks=1, held=True)
    >>> data_grid(Problem.from_lists([[10000000001, 1e-3]], n_processors=2)).places
    3
    >>> data_grid(Problem.from_lists([[0.1 + 0.2]])).kind
    'float'
    >>> data_grid(Problem.from_lists([[1e17], [1e17]], n_processors=1)).held
    False
    """
    cost = np.where(problem.allowed, problem.cost, 0.0)
    units = exact_units(problem)
    if not np.all(np.isfinite(cost)) or not np.all(np.isfinite(units)):
        return Grid("float", None, None, problem.n_tasks, False)
    n = problem.n_tasks
    hops = np.unique(problem.hops)
    if (
        np.all(cost == np.floor(cost))
        and np.all(units == np.floor(units))
        and np.all(hops == np.floor(hops))
        and float(np.abs(cost).max(initial=0)) < 2.0**53
        and float(np.abs(units).max(initial=0)) * float(np.abs(hops).max(initial=0)) < 2.0**53
    ):
        # Integers (the common case): Python integers, no decimals needed.
        top = int(hops.max(initial=0))
        total = sum(int(v) for v in (cost.max(axis=1).tolist() if cost.size else []))
        total += sum(int(u) * top for u in units.tolist())
        return Grid("integer", 0, total, n, total <= EXACT_LIMIT)
    with localcontext() as context:
        context.prec = 800
        delays = _delay_decimals(problem)
        places = 0
        values = np.unique(cost)
        fast = fast_places(values)
        if (fast == _NOT_DECIMAL).any():
            return Grid("float", None, None, problem.n_tasks, False)
        places = int(fast.max(initial=0))
        for v in values[fast == _UNDECIDED].tolist():
            if v == math.floor(v) and abs(v) < 1e16:
                continue  # an integer (every float integer below 1e16 prints as one)
            k = _places(Decimal(repr(float(v))))
            if k is None:
                return Grid("float", None, None, problem.n_tasks, False)
            places = max(places, k)
        for d in {d for row in delays for d in row}:
            k = _places(d)
            if k is None:
                return Grid("float", None, None, problem.n_tasks, False)
            places = max(places, k)
        largest_cost = cost.max(axis=1).tolist() if cost.size else []
        total = sum(int(Decimal(repr(float(v))).scaleb(places)) for v in largest_cost)
        total += sum(int(max(row).scaleb(places)) for row in delays if row)
    # Integers: every sum below 2**53 is exact. Decimals: noise(total) < 1/4 unit,
    # (4n + 2) * 2**-52 * total < 1/4.
    held = total <= EXACT_LIMIT if places == 0 else total * (4 * n + 2) * 4 < 2**52
    return Grid("integer" if places == 0 else "decimal", places, total, n, held)
