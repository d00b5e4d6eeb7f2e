"""Cross-checks of the exact methods against each other and against every heuristic.

On random tiny instances (4-7 tasks, 2-4 processors, every topology, isolation,
order pairs, affinity, fractional data) the brute-force optimum ``opt`` must
satisfy, for every registered method:

* exact methods: ``lower_bound <= opt <= makespan``, and ``makespan == opt``
  whenever the method says ``OPTIMAL`` (the MILP and, on integer data, every exact
  method must say so on instances this small);
* heuristics: ``lower_bound(problem) <= opt <= makespan``;
* every schedule passes :func:`exactsched.validate` (``exactsched.solve`` checks it).

Methods registered by colleagues are discovered through
:func:`exactsched.available_methods`, so new ones join the check automatically.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import exactsched
from exactsched import MethodError, Problem, Status, validate
from exactsched.generators import TOPOLOGIES, random_instance

EXACT_OPTS = {"time_limit": 20, "workers": 1, "seed": 0}


def _tol(value: float) -> float:
    return 1e-6 * max(1.0, abs(value))


def _methods(kind: str) -> list[str]:
    return [m.name for m in exactsched.available_methods() if m.kind == kind]


def _check_all(problem: Problem) -> float:
    """Run every registered method on ``problem`` and check it against brute force."""
    reference = exactsched.solve(problem, "bruteforce")
    assert reference.status is Status.OPTIMAL
    opt = float(reference.makespan)
    assert validate(problem, reference.schedule) == []
    assert exactsched.lower_bound(problem) <= opt + _tol(opt)
    for name in _methods("exact"):
        if name == "bruteforce":
            continue
        try:
            result = exactsched.solve(problem, name, **EXACT_OPTS)
        except MethodError:  # a method may refuse an instance it does not support
            continue
        assert result.schedule is not None, name
        assert validate(problem, result.schedule) == [], name
        makespan = float(result.makespan)
        assert result.lower_bound <= opt + _tol(opt), (name, result.lower_bound, opt)
        assert makespan >= opt - _tol(opt), (name, makespan, opt)
        if name == "milp" or problem.is_integral:
            assert result.status is Status.OPTIMAL, (name, result.status)
        if result.status is Status.OPTIMAL:
            assert math.isclose(makespan, opt, rel_tol=1e-6, abs_tol=1e-9), (name, makespan, opt)
    for name in _methods("heuristic"):
        try:
            result = exactsched.solve(problem, name, seed=0)
        except MethodError:
            continue
        assert float(result.makespan) >= opt - _tol(opt), (name, result.makespan, opt)
    return opt


def _processors(topology: str, wanted: int) -> int:
    """Hypercube and fat-tree need a power of two."""
    if topology in ("hypercube", "fat-tree"):
        return 2 if wanted < 4 else 4
    return wanted


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_topology(topology: str, seed: int) -> None:
    n_procs = _processors(topology, 3 + seed)
    problem = random_instance(
        6,
        n_procs,
        topology=topology,
        n_order=1,
        n_isolation=1 + seed,
        affinity=0.3,
        integral=seed == 0,
        latency=0.5 * seed,
        seed=100 + seed,
    )
    _check_all(problem)


@st.composite
def tiny_instances(draw: st.DrawFn) -> Problem:
    topology = draw(st.sampled_from(TOPOLOGIES))
    n_procs = _processors(topology, draw(st.integers(2, 4)))
    return random_instance(
        draw(st.integers(4, 7)),
        n_procs,
        topology=topology,
        ccr=draw(st.sampled_from([0.2, 1.0, 3.0])),
        heterogeneity=draw(st.sampled_from([0.0, 0.5, 0.9])),
        n_order=draw(st.integers(0, 2)),
        n_isolation=draw(st.integers(0, 2)),
        affinity=draw(st.sampled_from([0.0, 0.3, 0.6])),
        integral=draw(st.booleans()),
        seed=draw(st.integers(0, 2**20)),
    )


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tiny_instances())
def test_random_tiny_instances_agree(problem: Problem) -> None:
    _check_all(problem)


@pytest.mark.parametrize(
    ("topology", "seed"), [("fully-connected", 0), ("torus", 1), ("matrix", 2), ("fat-tree", 3)]
)
def test_cpsat_and_milp_agree_beyond_brute_force(topology: str, seed: int) -> None:
    if "cpsat" not in _methods("exact"):
        pytest.skip("cpsat is not registered")
    problem = random_instance(
        10, 4, topology=topology, n_isolation=2, n_order=1, affinity=0.2, seed=seed
    )
    results = {m: exactsched.solve(problem, m, **EXACT_OPTS) for m in ("cpsat", "milp")}
    for name, result in results.items():
        assert result.status is Status.OPTIMAL, name
        assert validate(problem, result.schedule) == [], name
    assert math.isclose(results["cpsat"].makespan, results["milp"].makespan, rel_tol=1e-9)
