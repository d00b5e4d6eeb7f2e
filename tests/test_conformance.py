"""Conformance suite: every registered method on a zoo of DAGs and platforms.

In the style of scikit-learn's estimator checks, the methods are collected from
the registry when this module is imported, so a heuristic added to
``heuristics/`` (or an exact model added to ``models/``) is checked without
editing this file. Each heuristic must, on every case of the zoo:

* return, through :func:`exactsched.solve`, a schedule that passes
  :func:`exactsched.validate` (``solve`` checks it too);
* report status ``feasible``, a makespan equal to the schedule's, at least the
  proven lower bound of :func:`exactsched.bounds.lower_bound`, and the seconds
  it took;
* be deterministic: the same schedule twice for the same seed.

A heuristic may refuse an instance (raise ``MethodError``) only when affinity
leaves no processor able to run every task (minimal-serial must); that case is
reported as an expected failure. Any other refusal or exception fails the suite.

The zoo crosses small DAGs (single task, independent tasks, chain, fork, join,
diamond, random layered, zero costs, tiled Cholesky when
:mod:`exactsched.workloads.cholesky` is present) with platforms (every topology
of :data:`exactsched.generators.TOPOLOGIES`, a CPU-GPU node preset, one
processor, latency with fractional bandwidth), and adds cases with affinity,
isolation pairs and order pairs. Exact methods are run with ``time_limit=5``
and ``workers=1`` on tiny instances, and must not be beaten by any heuristic
when they claim optimality. Every method must have a one-line description and
a source.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import exactsched
import topologies
from exactsched import Problem, Status, load_instance, solve, validate
from exactsched.bounds import lower_bound
from exactsched.generators import TOPOLOGIES, random_dag, random_instance, random_network
from heuristics.ranking import WEIGHTINGS

METHODS = exactsched.available_methods()
HEURISTICS = [m.name for m in METHODS if m.kind == "heuristic"]
EXACT = [m.name for m in METHODS if m.kind == "exact"]

# ---- the zoo ------------------------------------------------------------------------------
# A DAG is (number of tasks, arcs); arcs are (src, dst) task indices.
DAGS: dict[str, tuple[int, list[tuple[int, int]]]] = {
    "single": (1, []),
    "no-edges": (5, []),
    "chain": (5, [(i, i + 1) for i in range(4)]),
    "fork": (5, [(0, i) for i in range(1, 5)]),
    "join": (5, [(i, 4) for i in range(4)]),
    "diamond": (4, [(0, 1), (0, 2), (1, 3), (2, 3)]),
    "random": (10, random_dag(10, seed=7)),
}


def _platform(kind: str) -> dict[str, Any]:
    """A ``platform`` object of the instance format."""
    if kind in TOPOLOGIES:
        network, types = random_network(kind, 4, seed=3)
        procs = [{"id": f"p{k}", "type": t} for k, t in enumerate(types)]
        return {"processors": procs, "network": network}
    if kind == "cpu-gpu":
        return topologies.platform_preset("hoft-single-gpu")
    if kind == "one-processor":
        return {"processors": [{"id": "p0"}]}
    if kind == "latency":  # fractional communication: latency + data / bandwidth per hop
        network = {"topology": "fully-connected", "latency": 1.5, "bandwidth": 4}
        return {"processors": [{"id": f"p{k}"} for k in range(3)], "network": network}
    raise ValueError(kind)


PLATFORMS = (*TOPOLOGIES, "cpu-gpu", "one-processor", "latency")


def _instance(
    dag: str,
    platform: str,
    *,
    zero: bool = False,
    seed: int = 0,
    **extra: Any,
) -> Problem:
    """The DAG ``dag`` on ``platform`` with seeded costs and data (all 0 if ``zero``)."""
    n, arcs = DAGS[dag]
    plat = _platform(platform)
    types = [p.get("type", "default") for p in plat["processors"]]
    rng = np.random.default_rng([seed, len(dag), len(platform)])
    tasks = []
    for i in range(n):
        if zero or i in extra.get("zero_tasks", ()):
            cost: Any = 0
        elif set(types) == {"cpu", "gpu"}:  # CPU-GPU: costs keyed by type
            cpu = int(rng.integers(5, 30))
            cost = {"cpu": cpu, "gpu": max(1, cpu // int(rng.integers(1, 8)))}
        else:
            cost = rng.integers(1, 10, size=len(types)).tolist()
        tasks.append({"id": f"t{i}", "cost": cost})
    data = [0 if zero else int(rng.integers(0, 12)) for _ in arcs]
    doc = {
        "format": "exactsched/instance@1",
        "name": f"{dag}@{platform}",
        "platform": plat,
        "tasks": tasks,
        "edges": [
            {"src": f"t{a}", "dst": f"t{b}", "data": d}
            for (a, b), d in zip(arcs, data, strict=True)
        ],
    }
    for key in ("order", "isolation"):
        if extra.get(key):
            doc[key] = [[f"t{a}", f"t{b}"] for a, b in extra[key]]
    for i, allowed in (extra.get("affinity") or {}).items():
        doc["tasks"][i]["processors"] = [plat["processors"][k]["id"] for k in allowed]
    return load_instance(doc)


def _cases() -> dict[str, Callable[[], Problem]]:
    cases: dict[str, Callable[[], Problem]] = {}
    # Every DAG on a heterogeneous fully connected platform, the CPU-GPU node and one
    # processor; the cheap DAGs on every topology (the random one covers multi-hop).
    for dag in DAGS:
        for platform in ("fully-connected", "cpu-gpu", "one-processor"):
            cases[f"{dag}@{platform}"] = lambda d=dag, p=platform: _instance(d, p)
    for platform in PLATFORMS:
        for dag in ("random", "diamond"):
            cases.setdefault(f"{dag}@{platform}", lambda d=dag, p=platform: _instance(d, p))
    cases["zero-costs@fully-connected"] = lambda: _instance(
        "diamond", "fully-connected", zero=True
    )
    cases["zero-costs@cpu-gpu"] = lambda: _instance("fork", "cpu-gpu", zero=True)
    cases["some-zero+isolation@mesh"] = lambda: _instance(
        "fork", "mesh", zero_tasks=(1, 3), isolation=[(1, 2), (2, 3), (3, 4)]
    )
    # Constraints beyond the DAG.
    cases["affinity@mesh"] = lambda: _instance(
        "diamond", "mesh", affinity={0: [3], 1: [0, 1], 2: [1], 3: [2, 3]}
    )
    cases["affinity-pinned@fully-connected"] = lambda: _instance(
        "join", "fully-connected", affinity={i: [i % 4] for i in range(5)}
    )
    cases["affinity@cpu-gpu"] = lambda: _instance(
        "fork", "cpu-gpu", affinity={0: [7], 1: [0, 1], 4: [7]}
    )
    cases["isolation@fully-connected"] = lambda: _instance(
        "no-edges", "fully-connected", isolation=[(0, 1), (1, 2), (0, 2), (3, 4)]
    )
    cases["isolation@cpu-gpu"] = lambda: _instance("fork", "cpu-gpu", isolation=[(1, 2), (3, 4)])
    cases["order@torus"] = lambda: _instance("fork", "torus", order=[(1, 2), (2, 3), (3, 4)])
    cases["order-repeats-edge@hypercube"] = lambda: _instance(
        "chain", "hypercube", order=[(0, 1), (0, 4)]
    )
    cases["order+isolation@one-processor"] = lambda: _instance(
        "no-edges", "one-processor", order=[(0, 1)], isolation=[(2, 3)]
    )
    for k, topology in enumerate(TOPOLOGIES):
        cases[f"random-constrained@{topology}"] = lambda t=topology, s=k: random_instance(
            12, 4, topology=t, n_order=3, n_isolation=3, affinity=0.3, seed=100 + s
        )
    for k, topology in enumerate(TOPOLOGIES):
        cases[f"random-30@{topology}"] = lambda t=topology, s=k: random_instance(
            30, 8, topology=t, n_order=4, n_isolation=4, affinity=0.1, ccr=3.0, seed=200 + s
        )
    cases["random-fractional@fat-tree"] = lambda: random_instance(
        12, 8, topology="fat-tree", integral=False, latency=0.5, ccr=2.0, seed=9
    )
    return cases


CASES = _cases()
_PROBLEMS: dict[str, Problem] = {}


def _problem(case: str) -> Problem:
    if case not in _PROBLEMS:
        _PROBLEMS[case] = CASES[case]()
    return _PROBLEMS[case]


_BOUNDS: dict[int, tuple[Problem, float]] = {}


def _lower_bound(problem: Problem) -> float:
    """:func:`lower_bound`, computed once per problem object (it solves an LP)."""
    if id(problem) not in _BOUNDS:
        _BOUNDS[id(problem)] = (problem, lower_bound(problem))  # keeps the id alive
    return _BOUNDS[id(problem)][1]


def _run_again(problem: Problem, name: str, seed: int = 0) -> exactsched.Schedule:
    """The heuristic's schedule straight from its function, as :func:`solve` calls it
    (without recomputing the lower bound: this is only the determinism check)."""
    info = exactsched.get_method(name)
    return info.func(problem, **({"seed": seed} if "seed" in info.options else {}))


def _placements(result: exactsched.Result | exactsched.Schedule) -> list[tuple[Any, ...]]:
    schedule = result.schedule if isinstance(result, exactsched.Result) else result
    assert schedule is not None
    return [(t, p.processor, p.start, p.finish) for t, p in sorted(schedule.items())]


def _check_result(problem: Problem, result: exactsched.Result, name: str) -> None:
    assert result.method == name
    assert result.schedule is not None
    assert validate(problem, result.schedule) == []
    assert set(result.schedule) == set(problem.task_ids)
    assert math.isclose(result.makespan, result.schedule.makespan, abs_tol=1e-9)
    assert result.makespan >= _lower_bound(problem) - 1e-9
    assert isinstance(result.seconds, float) and result.seconds >= 0.0


def _solve_or_refuse(problem: Problem, name: str, seed: int = 0) -> exactsched.Result:
    """``solve(problem, name)``, but a method may refuse (``MethodError``) an instance
    whose affinity leaves no processor able to run every task (e.g. minimal-serial);
    the test is then an expected failure. Any other refusal fails the suite."""
    try:
        return solve(problem, name, seed=seed)
    except exactsched.MethodError as error:
        if problem.allowed.all(axis=0).any():
            raise
        pytest.xfail(f"{name} refuses: {error}")


# ---- heuristics -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_conformance(name: str, case: str) -> None:
    problem = _problem(case)
    result = _solve_or_refuse(problem, name)
    _check_result(problem, result, name)
    assert result.status is Status.FEASIBLE
    assert result.status.value == "feasible"
    again = _run_again(problem, name)
    assert _placements(again) == _placements(result), "not deterministic for a fixed seed"


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_on_cholesky(name: str) -> None:
    cholesky = pytest.importorskip("exactsched.workloads.cholesky")
    for problem in (
        cholesky.cholesky_instance(3),  # 10 tasks on 7 CPU cores + 1 GPU
        cholesky.cholesky_instance(4, tile_size=128, integral=False),  # 20 tasks
    ):
        result = solve(problem, name)
        _check_result(problem, result, name)
        assert _placements(_run_again(problem, name)) == _placements(result)


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_seeds(name: str) -> None:
    # Randomised heuristics take the seed from solve; any seed gives a valid schedule.
    problem = _problem("random-constrained@mesh")
    for seed in (1, 2):
        first = _solve_or_refuse(problem, name, seed=seed)
        _check_result(problem, first, name)
        assert _placements(_run_again(problem, name, seed)) == _placements(first)


RANKED = [
    m.name for m in METHODS if m.kind == "heuristic" and m.options.get("ranking") in WEIGHTINGS
]


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("name", RANKED)
def test_heuristic_accepts_every_weighting(name: str, weighting: str) -> None:
    # Heuristics whose ``ranking`` option defaults to a weighting of heuristics.ranking
    # must accept all of them.
    for case in ("random-constrained@accelerated-node", "random@matrix"):
        problem = _problem(case)
        try:
            result = solve(problem, name, ranking=weighting)
        except exactsched.MethodError as error:
            if problem.allowed.all(axis=0).any():
                raise
            pytest.xfail(f"{name} refuses: {error}")
        _check_result(problem, result, name)


def test_every_heuristic_is_collected() -> None:
    assert {"heft", "cpop"} <= set(HEURISTICS) or not HEURISTICS
    assert len(HEURISTICS) == len(set(HEURISTICS))


# ---- registry metadata ------------------------------------------------------------------


@pytest.mark.parametrize("info", METHODS, ids=[m.name for m in METHODS])
def test_method_metadata(info: exactsched.MethodInfo) -> None:
    assert info.kind in ("exact", "heuristic")
    assert info.description.strip() and "\n" not in info.description
    assert info.source.strip() and "\n" not in info.source
    assert info.name == info.name.strip().lower() and " " not in info.name
    assert exactsched.get_method(info.name) is info
    document = info.to_json()
    assert document["name"] == info.name and isinstance(document["options"], dict)


# ---- exact methods ------------------------------------------------------------------------

TINY = {
    "diamond@fully-connected": lambda: _instance("diamond", "fully-connected"),
    "fork@accelerated-node": lambda: _instance("fork", "accelerated-node", seed=1),
    "isolation+order@mesh": lambda: _instance(
        "no-edges", "mesh", order=[(0, 1)], isolation=[(2, 3), (1, 4)]
    ),
}


@pytest.mark.parametrize("case", sorted(TINY))
@pytest.mark.parametrize("name", EXACT)
def test_exact_conformance(name: str, case: str) -> None:
    problem = TINY[case]()
    result = solve(problem, name, time_limit=5, workers=1, seed=0)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE), result.status
    _check_result(problem, result, name)
    assert result.lower_bound <= result.makespan + 1e-9
    if result.status is Status.OPTIMAL:
        assert math.isclose(result.lower_bound, result.makespan, rel_tol=1e-6, abs_tol=1e-6)
        # No heuristic may beat a proven optimum.
        for heuristic in HEURISTICS:
            assert solve(problem, heuristic).makespan >= result.makespan - 1e-6, heuristic


@pytest.mark.parametrize("case", sorted(TINY))
def test_exact_methods_agree(case: str) -> None:
    problem = TINY[case]()
    optima = {}
    for name in EXACT:
        result = solve(problem, name, time_limit=5, workers=1, seed=0)
        if result.status is Status.OPTIMAL:
            optima[name] = result.makespan
    if len(optima) < 2:
        pytest.skip("fewer than two exact methods proved optimality")
    values = list(optima.values())
    assert all(math.isclose(v, values[0], abs_tol=1e-6) for v in values), optima
