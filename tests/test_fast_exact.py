"""The float shortcuts of the exact readings give what the decimals give (session 9).

:func:`models._cpsat_scaling.scale_up` (``ceil(value * resolution)``, decided
exactly) and :func:`models._grid.fast_places` (a value's decimal places) decide
most values with float arithmetic and leave the rest to :mod:`decimal`; here
both are compared with a pure-decimal reference on values from 1e-300 to
1e17: integers, decimals, floats and the usual traps (0.1 + 0.2, 2**52 + 0.5).
"""

from __future__ import annotations

import math
import random
from decimal import ROUND_CEILING, Decimal, localcontext

import numpy as np
import pytest

from models._cpsat_scaling import scale_up
from models._grid import MAX_PLACES, _places, fast_places


def _values(seed: int, n: int = 400) -> np.ndarray:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.randint(0, 5)
        if kind == 0:
            out.append(float(f"{rng.randint(0, 10 ** rng.randint(1, 16))}e-{rng.randint(0, 14)}"))
        elif kind == 1:
            out.append(rng.random() * 10 ** rng.randint(-9, 15))
        elif kind == 2:
            out.append(float(rng.randint(0, 10 ** rng.randint(1, 17))))
        elif kind == 3:
            base = rng.choice([0.1, 0.2, 0.7, 1 / 3, 22.249])
            out.append(base * rng.choice([1, 3, 10, 1e-3, 1e6]))
        elif kind == 4:
            fraction = rng.randint(0, 10 ** rng.randint(1, 9))
            out.append(float(f"{rng.randint(1, 999999)}.{fraction}"))
        else:
            out.append(rng.choice([5e-324, 1e-300, 0.0, 2.0**52 + 0.5, 1e15 + 0.5, 0.1 + 0.2]))
    return np.array(out)


def _reference(values: np.ndarray, resolution: float) -> tuple[list[float], bool]:
    """``ceil(d * r)`` of the shortest decimals, one Decimal product at a time."""
    out, exact = [], True
    with localcontext() as context:
        context.prec = 800
        scale = Decimal(repr(float(resolution)))
        for v in values.tolist():
            d = Decimal(repr(v)) * scale
            up = int(d.to_integral_value(rounding=ROUND_CEILING))
            exact = exact and d == up
            value = float(up)
            if value < up:
                value = math.nextafter(value, math.inf)
            exact = exact and value == up  # the float must be the integer itself
            out.append(value)
    return out, exact


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("resolution", [1, 10, 1000, 10**6, 10**12, 1e-3, 3, 25])
def test_scale_up_matches_the_decimals(seed, resolution):
    values = _values(seed)
    got, exact = scale_up(values, resolution)
    want, want_exact = _reference(values, resolution)
    assert got.tolist() == want
    assert exact == want_exact
    # one value at a time too: exactness is a property of the whole array
    for v in values[:60]:
        one = np.array([v])
        assert scale_up(one, resolution)[1] == _reference(one, resolution)[1]


@pytest.mark.parametrize("seed", range(6))
def test_fast_places_match_the_decimals(seed):
    values = _values(seed, 2000)
    fast = fast_places(values)
    with localcontext() as context:
        context.prec = 800
        for v, k in zip(values.tolist(), fast.tolist(), strict=True):
            if k == -1:
                continue  # left to the decimals
            want = _places(Decimal(repr(v)))
            assert k == (-2 if want is None else want), (v, k, want)
    assert (fast >= 0).sum() > len(values) // 3  # the shortcut does decide most of them
    assert fast.max() <= MAX_PLACES


def test_huge_products_round_the_right_way():
    """``ceil`` stays at or above, ``floor`` at or below, the exact product past 2**53.

    1000000000000000.5 at resolution 10 is 10000000000000005, halfway between
    two floats: the float nearest it may lie on either side, and a comparison
    of numpy's float with the Python integer rounded the integer first.
    """
    from models._refute import _floor_exact

    values = np.array([1000000000000000.5, 3.410589395888877e16, 85973718418517.0])
    for resolution in (10, 1000):
        up, _ = scale_up(values, resolution)
        down, _ = _floor_exact(values, 1.0, resolution)
        for v, u, d in zip(values.tolist(), up.tolist(), down.tolist(), strict=True):
            exact = Decimal(repr(v)) * Decimal(resolution)
            assert Decimal(u) >= exact >= Decimal(d)


def test_integer_fast_paths_stop_short_of_2_53():
    """3002399751580331 x 3 is 2**53 + 1: its float rounds to 2**53, which passed ``<= 2**53``."""
    from models._refute import _floor_exact

    value = np.array([3002399751580331.0])
    exact = Decimal(3002399751580331) * 3
    for got, is_exact in (scale_up(value, 3), scale_up(value, 1, factors=np.array([3.0]))):
        assert Decimal(float(np.ravel(got)[0])) >= exact and not is_exact
    down, is_exact = _floor_exact(value, 1.0, 3.0)
    assert Decimal(float(down[0])) <= exact and not is_exact
    # beyond 2**53 a float rounded *up* is no exact image either
    assert scale_up(np.array([999999999999999.0]), 100)[1] is False


def _product_reference(units, factors, resolution):
    """``ceil(d_unit * d_factor * r)`` of the shortest decimals, one product at a time."""
    out, exact = [], True
    with localcontext() as context:
        context.prec = 800
        scale = Decimal(repr(float(resolution)))
        for u in units.tolist():
            row = []
            for h in factors.tolist():
                d = Decimal(repr(u)) * Decimal(repr(h)) * scale
                up = int(d.to_integral_value(rounding=ROUND_CEILING))
                exact = exact and d == up
                value = float(up)
                if value < up:
                    value = math.nextafter(value, math.inf)
                exact = exact and value == up
                row.append(value)
            out.append(row)
    return out, exact


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("resolution", [1, 10, 10**6, 10**12, 1e-3, 3])
@pytest.mark.parametrize(
    "factors", [[0.0, 1.0, 2.0, 6.0], [1.0, 3.0, 2.0**40], [0.5, 1.5, 0.1], [1e-9, 7.0]]
)
def test_scaled_products_match_the_decimals(seed, resolution, factors):
    """The per-arc delay table: whole hop factors take the float shortcut, the rest decimals."""
    units = _values(seed, 150)
    got, exact = scale_up(units, resolution, factors=np.array(factors))
    want, want_exact = _product_reference(units, np.array(factors), resolution)
    assert got.tolist() == want
    assert exact == want_exact


def test_six_place_products_are_exact():
    """Six-place data on whole hop counts is exact at 10**6 (the float shortcut's case)."""
    rng = np.random.default_rng(0)
    units = np.round(rng.random(2000) * 1000, 6)
    got, exact = scale_up(units, 10**6, factors=np.array([0.0, 1.0, 2.0, 5.0]))
    want, want_exact = _product_reference(units[:200], np.array([0.0, 1.0, 2.0, 5.0]), 10**6)
    assert exact and want_exact
    assert got[:200].tolist() == want
