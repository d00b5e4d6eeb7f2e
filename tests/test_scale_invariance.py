"""Scale invariance: an instance with every time scaled by k is scheduled alike.

Same processors, starts scaled by k, for every deterministic heuristic (PETS
excepted: its rank is rounded to an integer by definition, so it cannot be).
The instances are an outside audit's minimal cases (session 17), where float
sums broke exact ties on decimal data (``tests/data/scale-invariance``).
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

import exactsched

DATA = Path(__file__).parent / "data" / "scale-invariance"
CASES = sorted(DATA.glob("*.json"))
METHODS = [
    m.name
    for m in exactsched.available_methods()
    if m.kind == "heuristic" and m.name not in ("pets", "random-eft")
]


def _scaled(doc: dict, k: Decimal) -> dict:
    """Costs, data and latency times ``k``, as exact decimals."""

    def times(x):
        value = Decimal(repr(x)) * k
        return int(value) if value == value.to_integral_value() else float(value)

    out = copy.deepcopy(doc)
    for task in out["tasks"]:
        cost = task["cost"]
        if isinstance(cost, dict):
            task["cost"] = {t: times(v) for t, v in cost.items()}
        elif isinstance(cost, list):
            task["cost"] = [times(v) for v in cost]
        else:
            task["cost"] = times(cost)
    for edge in out.get("edges", []):
        edge["data"] = times(edge.get("data", 0))
    network = out["platform"].get("network", {})
    if "latency" in network:
        network["latency"] = times(network["latency"])
    return out


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
@pytest.mark.parametrize("k", ["0.1", "0.01", "1000"])
def test_every_heuristic_is_scale_invariant(path, k):
    doc = json.loads(path.read_text())
    base = exactsched.load_instance(doc)
    twin = exactsched.load_instance(_scaled(doc, Decimal(k)))
    for method in METHODS:
        try:
            a = exactsched.solve(base, method).schedule
        except exactsched.MethodError:
            with pytest.raises(exactsched.MethodError):
                exactsched.solve(twin, method)
            continue
        b = exactsched.solve(twin, method).schedule
        assert exactsched.validate(twin, b) == []
        for task in base.task_ids:
            want = float(Decimal(repr(float(a[task].start))) * Decimal(k))
            assert (b[task].processor, float(b[task].start)) == (a[task].processor, want), (
                method,
                task,
            )


def test_ties_never_reorder_or_merge_distinct_values_at_large_magnitudes():
    # An outside review of the tie rule: 12 significant digits put 1e13 + 4.5 below
    # 1e13 + 4 on integer data, and merged 1e10 + 0.02 with 1e10 + 0.025 on a 0.01
    # grid; PEFT then took the worse order (20000000000006 and 10000000001.05).
    from exactsched import Problem

    big, far = 10**13, 10**15
    p = Problem.from_lists([[1, 1], [1, 1], [big, big + 9], [big + 4, big + 4]],
                           [(0, 2, far), (1, 3, far)])  # fmt: skip
    assert exactsched.solve(p, "peft").makespan == 10000000000005
    big, far = 1e10, 3e10
    q = Problem.from_lists([[1, 1], [1, 1], [big + 0.02, big + 0.02], [big, big + 0.05]],
                           [(0, 2, far), (1, 3, far)])  # fmt: skip
    assert exactsched.solve(q, "peft").makespan == 10000000001.02


def test_ties_merge_nothing_beyond_float_noise():
    # A second review of the tie rule: a 1e-9 tolerance and 12 digits merged values
    # that differ (1e6 + 9e-4 with 1e6 + 1e-4; 9e-10/7 with 1e-10/7; two means 1/8
    # apart at 7.5e8), and five heuristics took the worse processor or order.
    import numpy as np

    from exactsched import Problem
    from heuristics._tables import tie_with

    assert tie_with(None, np.array([1e6 + 9e-4, 1e6 + 1e-4])).tolist() == [1e6 + 9e-4, 1e6 + 1e-4]
    assert tie_with(100.0, np.array([7500000.06, 7500000.06125])).tolist() == [
        7500000.06,
        7500000.06125,
    ]
    for costs in ([1e6 + 0.0009 + 1e-6 / 3, 1e6 + 0.0001 + 1e-6 / 3], [9e-10 / 7, 1e-10 / 7]):
        p = Problem.from_lists([costs])
        for method in ("peft", "cpop", "lmt", "dsc-glb-etf", "minimal-serial", "hoft"):
            assert exactsched.solve(p, method).schedule["t0"].processor == "p1", method
    big = 10**9
    d = next(d for d in range(56) if (3 + 6 * big + d) % 56 == 0)
    b = [1, 2] + [big] * 5 + [big + d]  # mean an integer
    a = [1] + [sum(b) // 7] * 7  # mean 1/8 larger: LMT takes it first
    assert exactsched.solve(Problem.from_lists([b, a]), "lmt").makespan == 2
