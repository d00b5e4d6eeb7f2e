"""Every bound of exactsched.bounds is a true lower bound: checked against brute force.

Hand-computed values on tiny graphs pin each bound; a hypothesis sweep over
random tiny instances (every topology, isolation, order pairs, affinity,
fractional data) checks ``bound <= optimum`` for each of them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import exactsched
from exactsched import Problem
from exactsched.bounds import (
    class_load_bound,
    critical_path_bound,
    isolation_bound,
    load_bound,
    lower_bound,
    lower_bound_within,
    lower_bounds,
    optimistic_critical_path,
    path_load_bound,
    precedence_load_bound,
    processor_classes,
    spread_paths,
)
from exactsched.generators import TOPOLOGIES, random_instance
from models.bruteforce import bruteforce

BOUNDS = {
    "critical_path_bound": critical_path_bound,
    "optimistic_critical_path": optimistic_critical_path,
    "load_bound": load_bound,
    "class_load_bound": class_load_bound,
    "isolation_bound": isolation_bound,
    "energetic_bound": lambda problem: lower_bounds(problem)["energetic"],
    "path_load_bound": path_load_bound,
    "precedence_load_bound": precedence_load_bound,
    "lower_bound": lower_bound,
}


def _optimum(problem: Problem) -> float:
    result = exactsched.solve(problem, "bruteforce")
    assert result.status is exactsched.Status.OPTIMAL
    return float(result.makespan)


# ---- hand-computed values -----------------------------------------------------------


def test_chain_with_dear_communication() -> None:
    # a -> b with 5 units; a costs [1, 10], b costs [10, 1].
    # critical path: 1 + 1 = 2 (no communication);
    # OFT(a) = [1, 10]; OFT(b, p0) = 10 + min(1, 10 + 5) = 11,
    # OFT(b, p1) = 1 + min(1 + 5, 10) = 7, so the optimistic critical path is 7,
    # which is the optimum (a on p0, b on p1).
    p = Problem.from_lists([[1, 10], [10, 1]], [(0, 1, 5)])
    assert critical_path_bound(p) == 2
    assert optimistic_critical_path(p) == 7
    assert load_bound(p) == 1
    assert isolation_bound(p) == 0
    assert lower_bound(p) == 7 == _optimum(p)


def test_optimistic_path_follows_hops() -> None:
    # Fork s -> x, s -> y, y only on p3; on a line (mesh [4]) p0 -> p3 is 3 hops,
    # and s only runs on p0: OFT(y) = 1 + 3 * 1 + 4 = 8, the optimum.
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(4)],
            "network": {"topology": "mesh", "dims": [4]},
        },
        "tasks": [
            {"id": "s", "cost": 1, "processors": ["p0"]},
            {"id": "x", "cost": 4},
            {"id": "y", "cost": 4, "processors": ["p3"]},
        ],
        "edges": [{"src": "s", "dst": "x", "data": 1}, {"src": "s", "dst": "y", "data": 1}],
    }
    p = Problem.from_json(doc)
    assert critical_path_bound(p) == 5
    assert optimistic_critical_path(p) == 8 == _optimum(p)


def test_load_and_class_load() -> None:
    # Three tasks costing 10 on p0 and 1 on p1: load = 3 / 2; the class LP puts
    # x on p0 and 3 - x on p1 with 10 x = 3 - x, so T = 30 / 11; optimum 3 (all on p1).
    p = Problem.from_lists([[10, 1], [10, 1], [10, 1]])
    assert load_bound(p) == 1.5
    assert math.isclose(class_load_bound(p), 30 / 11, rel_tol=1e-7)
    assert class_load_bound(p) <= 30 / 11
    assert lower_bound(p) == 3 == _optimum(p)


@pytest.mark.parametrize("seed", range(6))
def test_class_load_dual_ascent_is_below_the_lp(seed: int) -> None:
    # Past max_variables the bound is a dual value of the same LP: never above it,
    # never below the plain load bound, and close to the LP on small instances.
    p = random_instance(40, 4, heterogeneity=0.9, affinity=0.2 * (seed % 2), seed=seed)
    lp = class_load_bound(p)
    dual = class_load_bound(p, max_variables=0)
    assert load_bound(p) <= dual <= lp
    assert dual >= lp * 0.97


@pytest.mark.parametrize("scale", [1e-10, 1e-9, 1.0, 1e12])
def test_class_load_is_a_proof_at_every_magnitude(scale: float) -> None:
    # An outside audit: at 1e-10 HiGHS's objective sat 1.5 % above an exactly
    # feasible point of the LP (HiGHS's tolerances are absolute). The bound is now the
    # dual's value at HiGHS's prices, computed on the data, so it scales with them.
    rows = [[26, 12, 38, 23], [46, 34, 32, 35], [14, 48, 28, 31]]
    p = Problem.from_lists([[c * scale for c in row] for row in rows])
    feasible = 241920 / 16199 * scale  # x rows sum to 1, every class load <= m_g T
    bound = class_load_bound(p)
    assert bound <= feasible * (1 + 1e-12)
    assert bound >= feasible * 0.999


def test_identical_processors_class_load_is_load() -> None:
    # 18 units of work on two processors: 9, but no split reaches 9, so the optimum is 10
    p = Problem.from_lists([4, 4, 4, 4, 2], n_processors=2)
    assert load_bound(p) == class_load_bound(p) == 9
    assert lower_bound(p) == 9
    assert _optimum(p) == 10


def test_isolation_pair() -> None:
    p = Problem.from_lists([3, 4, 1], n_processors=3, isolation=[(0, 1)])
    assert isolation_bound(p) == 7
    assert critical_path_bound(p) == 4
    assert lower_bound(p) == 7 == _optimum(p)


def test_fractional_bound_is_not_rounded() -> None:
    p = Problem.from_lists([[1.5, 2.5]])
    assert not p.is_integral
    assert lower_bound(p) == 1.5 == _optimum(p)


def test_integral_bound_rounds_up() -> None:
    p = Problem.from_lists([3, 3, 3], n_processors=2)  # load 4.5 -> 5; optimum 6
    assert load_bound(p) == 4.5
    assert lower_bound(p) == 5
    assert _optimum(p) == 6


def test_lower_bounds_names_every_bound() -> None:
    p = Problem.from_lists([1, 2], [(0, 1, 1)], n_processors=2)
    assert set(lower_bounds(p)) == {
        "critical_path",
        "optimistic_critical_path",
        "load",
        "class_load",
        "isolation",
        "energetic",
        "path_load",
        "precedence_load",
    }


def test_precedence_load_spreads_the_work_around_a_bottleneck() -> None:
    # Three tasks of 2 feed a task of 1 that feeds two tasks of 2, on 2 processors:
    # before it 6 / 2 = 3, itself 1, after it 4 / 2 = 2, so 6; the critical path is 5
    # and the load 5.5.
    p = Problem.from_lists(
        [2, 2, 2, 1, 2, 2], [(0, 3), (1, 3), (2, 3), (3, 4), (3, 5)], n_processors=2
    )
    assert precedence_load_bound(p) == 6.0
    assert bruteforce(p).makespan == 7  # three tasks of 2 on 2 processors end at 4
    head, tail = spread_paths(p)
    assert head.tolist() == [0, 0, 0, 3, 4, 4] and tail.tolist() == [3, 3, 3, 2, 0, 0]
    # Fractional data: no rounding inside.
    half = Problem.from_lists([1.5, 1.5, 0.5], [(0, 2), (1, 2)], n_processors=2)
    assert spread_paths(half)[0].tolist() == [0.0, 0.0, 1.5]


def test_spread_heads_close_stg_rows() -> None:
    # The published table lists 100/rand0163 on 2 processors as 393-417 and rand0155
    # on 4 as 180-181; energetic windows over the spread heads and tails prove 415 and
    # 181, the makespans of the stored schedules (benchmarks/results/stg-open).
    from exactsched.workloads import read_stg

    data = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "stg" / "100"
    assert lower_bound(read_stg(data / "rand0163.stg", 2)) == 415
    assert lower_bound(read_stg(data / "rand0155.stg", 4)) == 181


# ---- never above the optimum -----------------------------------------------------


@st.composite
def tiny_instances(draw: st.DrawFn) -> Problem:
    topology = draw(st.sampled_from(TOPOLOGIES))
    wanted = draw(st.integers(1, 4))
    if topology in ("hypercube", "fat-tree"):
        n_procs = 1 if wanted == 1 else (2 if wanted < 4 else 4)
    else:
        n_procs = wanted
    if n_procs == 1 and topology == "accelerated-node":
        topology = "fully-connected"
    return random_instance(
        draw(st.integers(1, 7)),
        n_procs,
        topology=topology,
        ccr=draw(st.sampled_from([0.0, 0.5, 2.0, 5.0])),
        heterogeneity=draw(st.sampled_from([0.0, 0.5, 0.9])),
        n_order=draw(st.integers(0, 2)),
        n_isolation=draw(st.integers(0, 3)),
        affinity=draw(st.sampled_from([0.0, 0.5])),
        integral=draw(st.booleans()),
        latency=draw(st.sampled_from([0.0, 1.0])),
        seed=draw(st.integers(0, 2**20)),
    )


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tiny_instances())
def test_bounds_never_exceed_the_optimum(problem: Problem) -> None:
    opt = _optimum(problem)
    tol = 1e-9 * max(1.0, opt)
    values = {name: float(bound(problem)) for name, bound in BOUNDS.items()}
    for name, value in values.items():
        assert value <= opt + tol, (name, value, opt)
    # documented relations between the bounds
    assert values["critical_path_bound"] <= values["optimistic_critical_path"] + tol
    assert values["load_bound"] <= values["class_load_bound"] + tol
    if len(processor_classes(problem)) > 1:  # the path-load LP dominates both
        for weaker in ("class_load_bound", "critical_path_bound"):
            assert values[weaker] <= values["path_load_bound"] + 1e-6 * max(1.0, opt)
    assert values["lower_bound"] >= max(lower_bounds(problem).values()) - tol


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_bounds_on_each_topology(topology: str) -> None:
    n_procs = 4
    problem = random_instance(
        7, n_procs, topology=topology, n_isolation=2, n_order=1, affinity=0.3, seed=7
    )
    opt = _optimum(problem)
    for name, bound in BOUNDS.items():
        assert bound(problem) <= opt, name


def test_bounds_are_computed_once_per_problem(monkeypatch):
    import exactsched.bounds as bounds_module
    from exactsched import solve

    problem = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    calls = []
    original = bounds_module._lower_bounds

    def counting(p):
        calls.append(p)
        return original(p)

    monkeypatch.setattr(bounds_module, "_lower_bounds", counting)
    first = solve(problem, "heft")
    again = solve(problem, "peft")
    assert len(calls) == 0  # a heuristic's bound is computed when read
    assert first.lower_bound == again.lower_bound == bounds_module.lower_bound(problem)
    assert len(calls) == 1
    # The cached dictionary cannot be changed through the public function.
    bounds_module.lower_bounds(problem)["load"] = -1.0
    assert bounds_module.lower_bounds(problem)["load"] == 4.0
    # A problem read again from its document starts with an empty cache.
    bounds_module.lower_bound(Problem.from_json(problem.to_json()))
    assert len(calls) == 2


def test_heuristic_solve_computes_its_bound_when_read():
    # Issue 18 item 6: a heuristic's solve must not pay for bounds nobody reads.
    import exactsched
    from exactsched.bounds import lower_bound as foundation

    problem = exactsched.load_instance("examples/topcuoglu2002.json")
    result = exactsched.solve(problem, "heft")
    assert callable(object.__getattribute__(result, "lower_bound"))
    assert result.lower_bound == foundation(problem)
    assert not callable(object.__getattribute__(result, "lower_bound"))  # kept once read
    assert result.gap is not None
    assert result.to_json()["lower_bound"] == result.lower_bound


@pytest.mark.parametrize("seed", range(40))
def test_energetic_bound_never_exceeds_the_optimum(seed: int) -> None:
    # Tiny DAGs where heads and tails leave processors idle (issue 18, item 5).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    costs = rng.integers(1, 9, (n, 3)) if seed % 2 else rng.integers(1, 9, n)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.35]
    problem = Problem.from_lists(costs.tolist(), edges, n_processors=None if seed % 2 else 2)
    assert lower_bounds(problem)["energetic"] <= _optimum(problem) + 1e-9


# ---- the path-load LP (issue 18, item 5) -------------------------------------------


def test_path_load_chain_cannot_run_fast_in_parallel() -> None:
    # A chain of two tasks, 1 on the fast processor, 4 on the slow one. The class
    # load lets 0.8 of each run fast (1.6); on the path they add up: 2, the optimum.
    p = Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)])
    assert class_load_bound(p) == pytest.approx(1.6)
    assert path_load_bound(p) == pytest.approx(2.0)
    assert _optimum(p) == 2.0


def test_path_load_charges_the_hop_into_a_class() -> None:
    # Fork of one task into two on a fast/slow pair, the data cost 3 per hop.
    p = Problem.from_lists([[1, 5], [1, 5], [1, 5]], [(0, 1, 3), (0, 2, 3)])
    opt = _optimum(p)
    assert critical_path_bound(p) < path_load_bound(p) <= opt


def test_path_load_single_class_is_zero() -> None:
    assert path_load_bound(Problem.from_lists([1, 2, 3], [(0, 1, 1)], n_processors=3)) == 0.0


def test_path_load_any_multipliers_give_a_valid_bound() -> None:
    # Weak duality: perturbed or arbitrary multipliers never give more than the LP.
    from exactsched._path_load import _dual_value, _PathLoadLP

    rng = np.random.default_rng(0)
    for seed in range(20):
        problem = random_instance(6, 3, topology="mesh", heterogeneity=0.9, ccr=2.0, seed=seed)
        classes = processor_classes(problem)
        if len(classes) < 2:
            continue
        lp = _PathLoadLP(problem, classes)
        opt = _optimum(problem)
        solved, complete = lp.solve()
        assert solved is not None and complete
        for _ in range(10):
            noisy = [
                np.abs(m * rng.uniform(0, 3, m.shape) + rng.uniform(0, 1, m.shape)) for m in solved
            ]
            assert _dual_value(lp, *noisy) <= opt * (1 + 1e-12)
        assert _dual_value(lp, *solved) <= opt * (1 + 1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 1.0, 1e6, 1e12, 1e15])
def test_path_load_at_every_magnitude(scale: float) -> None:
    base = random_instance(
        6, 3, topology="mesh", heterogeneity=0.9, ccr=1.0, integral=True, seed=3
    )
    doc = base.to_json()
    for task in doc["tasks"]:
        task["cost"] = [v * scale for v in task["cost"]]
    for edge in doc["edges"]:
        edge["data"] = edge["data"] * scale
    problem = Problem.from_json(doc)
    value = path_load_bound(problem)
    assert 0 < value <= _optimum(base) * scale * (1 + 1e-12)  # scaling keeps the optimum
    assert value == pytest.approx(path_load_bound(base) * scale, rel=1e-6)


def test_path_load_survives_absurd_multipliers() -> None:
    from exactsched._path_load import _dual_value, _PathLoadLP

    problem = random_instance(6, 3, topology="mesh", heterogeneity=0.9, ccr=2.0, seed=1)
    lp = _PathLoadLP(problem, processor_classes(problem))
    arcs, comm = len(lp.src), len(lp.comm_arc)
    n, g = lp.cost.shape
    huge = np.finfo(float).max / 4
    for fill in (0.0, huge, np.nan):
        value = _dual_value(
            lp, np.full(arcs, fill), np.full(comm, fill), np.full(n, fill), np.full(g, fill)
        )
        assert value == 0.0 or 0 < value <= _optimum(problem) * (1 + 1e-12)


def test_a_bound_cut_short_by_the_clock_is_not_cached(monkeypatch) -> None:
    # An audit's 1000-task instance: the path-load LP took 7.4 s against 2.3 s
    # estimated, and milp/cpsat overran -t by that much. The clock now stops it; the
    # weaker bound it leaves must not become what lower_bound() later reads.
    import exactsched.bounds as bounds

    p = random_instance(30, 3, topology="mesh", heterogeneity=0.9, ccr=1.0, seed=4)
    twin = random_instance(30, 3, topology="mesh", heterogeneity=0.9, ccr=1.0, seed=4)
    full = bounds.lower_bound(twin)
    assert bounds.path_load_bound(p) > 0
    monkeypatch.setattr(bounds, "path_load_within", lambda *args: (0.0, False))
    value, complete = bounds.lower_bound_within(p, 60.0)
    assert not complete and value <= full
    assert "lower_bound" not in p._cache and "lower_bounds" not in p._cache
    monkeypatch.undo()
    assert bounds.lower_bound(p) == full
    assert bounds.lower_bound_within(p, 0.0) == (full, True)  # read from the cache


def test_the_path_load_lp_stops_on_the_clock() -> None:
    from exactsched._path_load import path_load_within

    p = random_instance(300, 3, heterogeneity=0.9, seed=5)
    classes = processor_classes(p)
    assert path_load_within(p, classes, None)[1]
    value, complete = path_load_within(p, classes, 1e-9)
    assert (value, complete) == (0.0, False)


def test_without_time_the_cheap_bounds_remain() -> None:
    p = random_instance(30, 3, topology="mesh", heterogeneity=0.9, ccr=1.0, seed=4)
    value, complete = lower_bound_within(p, 0.0)
    assert not complete
    assert max(critical_path_bound(p), load_bound(p)) <= value <= lower_bound(p)


def test_the_best_bound_is_the_best_of_its_parts_past_2_53():
    # An outside audit: `info` showed the best bound 20 below every part, because the
    # float noise of the sums was taken off the parts and then once more off the best.
    k = 2**53 + 1
    p = Problem.from_lists([[k], [1]], [(0, 1, 0)], n_processors=1)
    parts = exactsched.bounds.lower_bounds(p)
    best = exactsched.bounds.lower_bound(p)
    assert best == math.ceil(max(parts.values()) - 1e-6)
    assert best <= k + 1  # the optimum (9007199254740994) is above every bound


@pytest.mark.parametrize(
    ("costs", "arcs", "optimum"),
    [
        ([[0.1], [0.2]], [], 0.3),
        ([[1e-9], [1e-8]], [(0, 1, 0)], 1.1e-08),
        ([[0.7, 0.1], [0.2, 0.6], [0.1, 0.2]], [(0, 1, 0.1), (0, 2, 0.2)], None),
    ],
)
def test_no_bound_exceeds_the_optimum_by_float_noise(costs, arcs, optimum):
    # An outside audit (session 16): on decimal data the bounds were float sums, an ulp
    # above the optimum (0.30000000000000004 for 0.1 + 0.2 on one processor).
    p = Problem.from_lists(costs, arcs, n_processors=len(costs[0]))
    best = bruteforce(p).makespan
    assert optimum is None or best == optimum
    assert lower_bound(p) <= best
    assert all(v <= best for v in lower_bounds(p).values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_bounds_stay_below_brute_force_optima_on_decimal_data(seed):
    import random

    rng = random.Random(seed)
    n, procs = rng.randint(2, 5), rng.randint(1, 3)
    values = [0.1, 0.2, 0.3, 0.7, 1.1, 2.675, 0.05]
    costs = [[rng.choice(values) for _ in range(procs)] for _ in range(n)]
    arcs = [(i, j, rng.choice(values)) for j in range(n) for i in range(j) if rng.random() < 0.4]
    p = Problem.from_lists(costs, arcs, n_processors=procs)
    best = bruteforce(p).makespan
    assert lower_bound(p) <= best
    assert max(lower_bounds(p).values()) <= best
