"""Differential sweep of the exact methods against brute force at magnitudes 1e-9 to 1e15.

Issue 15: random tiny instances whose costs and delays sit near one magnitude
(1e-9, 1e-6, ..., 1e15) and differ by less than 1e-9 relative (``1e12 + 333``),
as integers, decimals or arbitrary floats. Every exact method runs with the
default certification and without it, and is compared with the search of
:mod:`models.bruteforce`: zero false ``optimal``, zero false ``certified``,
zero lower bounds above the optimum. "False" is decided on the data's grid
(one grid step; :mod:`models._grid`), with the documented 1e-9 relative
tolerance on float data only.

The default test runs a handful of seeds (a few seconds); the ``slow`` one a
larger sweep; ``benchmarks/magnitudes.py`` prints the figures per magnitude band.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

import pytest

import exactsched
import models.cpsat
from exactsched import MethodError, Problem, Status, validate
from models._grid import data_grid
from models.bruteforce import bruteforce

pytestmark = pytest.mark.filterwarnings("ignore::exactsched.InstanceWarning")

MAGNITUDES = (1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9, 1e12, 1e15)
KINDS = ("integer", "decimal", "float")
METHODS: dict[str, tuple[str, dict[str, Any]]] = {
    "cpsat": ("cpsat", {}),
    "milp-highs": ("milp", {"solver": "highs"}),
    "milp-scip": ("milp", {"solver": "scip"}),
    "straightforward": ("cpsat", dict(models.cpsat.STRAIGHTFORWARD)),
}
TOPOLOGIES = ({"topology": "fully-connected"}, {"topology": "mesh", "dims": [3]})


def _value(rng: random.Random, magnitude: float, kind: str) -> float:
    """A number near ``c * magnitude`` (c in 1..3), off by less than 1e-9 relative."""
    c = rng.randint(1, 3)
    if kind == "integer":
        base = max(1, round(magnitude))
        spread = int(base * 1e-9)  # below 1e-9 relative; 0 below a magnitude of 1e9
        return float(c * base + (rng.randint(0, spread) if spread else 0))
    if kind == "decimal":
        # Ten significant digits: at most 1e-9 relative apart, on a decimal grid.
        value = c * magnitude * (1 + rng.randint(0, 9) * 1e-10)
        return float(f"{value:.10g}")
    return c * magnitude * (1 + rng.random() * 1e-9)


def magnitude_instance(seed: int, magnitude: float, kind: str) -> Problem:
    """A random instance of 3-6 tasks on 2-3 processors at ``magnitude`` (module docstring)."""
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    n_procs = rng.choice((2, 3))
    network = dict(rng.choice(TOPOLOGIES))
    if network["topology"] == "mesh":
        network["dims"] = [n_procs]
    tasks = []
    for i in range(n):
        if rng.random() < 0.5:
            cost: Any = [_value(rng, magnitude, kind) for _ in range(n_procs)]
        else:
            cost = _value(rng, magnitude, kind)
        tasks.append({"id": f"t{i}", "cost": cost})
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = rng.sample(pairs, k=min(len(pairs), rng.randint(1, n)))
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(n_procs)],
            "network": network,
        },
        "tasks": tasks,
        "edges": [
            {"src": f"t{i}", "dst": f"t{j}", "data": _value(rng, magnitude, kind)}
            for i, j in sorted(edges)
        ],
    }
    return Problem.from_json(doc)


def _apart(problem: Problem, a: float, b: float) -> bool:
    return data_grid(problem).steps_apart(a, b)


def judge(problem: Problem, optimum: float, result: exactsched.Result) -> list[str]:
    """Every false claim of ``result`` against the brute-force ``optimum``."""
    wrong = []
    if result.schedule is None or validate(problem, result.schedule):
        wrong.append("invalid schedule")
    if result.makespan < optimum and _apart(problem, result.makespan, optimum):
        wrong.append(f"schedule {result.makespan!r} below the optimum {optimum!r}")
    above = _apart(problem, result.makespan, optimum)
    if result.status is Status.OPTIMAL and above:
        wrong.append(f"false optimal {result.makespan!r} (optimum {optimum!r})")
    if result.certified and above:
        wrong.append(f"false certified {result.makespan!r} (optimum {optimum!r})")
    bound = result.lower_bound
    if bound is not None and bound > optimum and _apart(problem, float(bound), optimum):
        wrong.append(f"bound {bound!r} above the optimum {optimum!r}")
    return wrong


def sweep(
    seeds: range,
    *,
    methods: tuple[str, ...] = ("cpsat", "milp-highs"),
    certify_options: tuple[bool | None, ...] = (None, False),
    magnitudes: tuple[float, ...] = MAGNITUDES,
    kinds: tuple[str, ...] = KINDS,
    time_limit: float = 5.0,
) -> list[dict[str, Any]]:
    """One row per (instance, method, certification option) with its false claims.

    Instances: for each seed, one magnitude and one kind drawn in turn
    (``seed % len(magnitudes)``, ``seed // len(magnitudes) % len(kinds)``).
    """
    rows = []
    for seed in seeds:
        magnitude = magnitudes[seed % len(magnitudes)]
        kind = kinds[seed // len(magnitudes) % len(kinds)]
        problem = magnitude_instance(seed, magnitude, kind)
        reference = bruteforce(problem, time_limit=60)
        assert reference.status is Status.OPTIMAL
        optimum = float(reference.makespan)  # type: ignore[arg-type]
        grid = data_grid(problem)
        for label in methods:
            method, options = METHODS[label]
            for option in certify_options:
                started = time.perf_counter()
                try:
                    result = exactsched.solve(
                        problem, method, time_limit=time_limit, workers=1, seed=0,
                        certify=option, **options,
                    )  # fmt: skip
                except MethodError as error:
                    rows.append({"seed": seed, "magnitude": magnitude, "kind": kind,
                                 "method": label, "certify": option, "refused": str(error),
                                 "wrong": []})  # fmt: skip
                    continue
                report = result.stats.get("certify") or {}
                rows.append(
                    {
                        "seed": seed,
                        "magnitude": magnitude,
                        "kind": kind,
                        "grid": grid.kind if grid.held or not grid.exact else "not held",
                        "method": label,
                        "certify": option,
                        "status": result.status.value,
                        "certified": result.certified,
                        "solve_seconds": result.seconds,
                        "certify_seconds": report.get("seconds"),
                        "seconds": time.perf_counter() - started,
                        "wrong": judge(problem, optimum, result),
                    }
                )
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of a sweep: runs, false claims, share certified, certify/solve ratios."""
    ratios = [r["certify_seconds"] / max(r["solve_seconds"], 1e-6) for r in rows
              if r.get("certify_seconds") is not None]  # fmt: skip
    return {
        "runs": len(rows),
        "false": sum(len(r["wrong"]) for r in rows),
        "certified": sum(1 for r in rows if r.get("certified")),
        "optimal": sum(1 for r in rows if r.get("status") == "optimal"),
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratio_max": max(ratios) if ratios else None,
    }


def test_sweep_has_no_false_claims() -> None:
    # 9 magnitudes x 3 kinds: seeds 0-26 visit each pair once; a third of them here.
    rows = sweep(range(0, 27, 3), methods=("cpsat", "milp-highs"), certify_options=(None,))
    wrong = [(r["seed"], r["method"], r["wrong"]) for r in rows if r["wrong"]]
    assert wrong == []
    assert summary(rows)["certified"] > 0


def test_sweep_reaches_every_magnitude_and_kind() -> None:
    kinds = {data_grid(magnitude_instance(s, 1e3, "decimal")).kind for s in range(5)}
    assert kinds == {"decimal"}
    assert data_grid(magnitude_instance(0, 1e15, "integer")).held is False
    assert data_grid(magnitude_instance(0, 1e12, "integer")).kind == "integer"
    assert data_grid(magnitude_instance(0, 1e-9, "float")).kind == "float"


@pytest.mark.slow
def test_large_sweep_has_no_false_claims() -> None:
    rows = sweep(range(108), methods=tuple(METHODS), certify_options=(None, False))
    wrong = [(r["seed"], r["method"], r["certify"], r["wrong"]) for r in rows if r["wrong"]]
    assert wrong == []


@pytest.mark.parametrize("seed", range(27))
def test_witness_bound_never_exceeds_the_optimum(seed: int) -> None:
    # The bound the "bounds" witness computes for itself (issue 15 item 5) must be
    # a lower bound on every magnitude and kind of data, exact or rounded down.
    from models._refute import grid_data, witness_bound

    magnitude = MAGNITUDES[seed % len(MAGNITUDES)]
    kind = KINDS[seed // len(MAGNITUDES) % len(KINDS)]
    problem = magnitude_instance(seed, magnitude, kind)
    grid = data_grid(problem)
    optimum = float(bruteforce(problem).makespan)  # type: ignore[arg-type]
    resolution = grid.resolution if grid.exact else 10.0 ** -round(math.log10(magnitude) - 6)
    data = grid_data(problem, resolution)
    units = witness_bound(problem, data)
    if grid.exact and grid.held:
        assert units <= grid.claim_units(optimum)
    else:  # rounded down: a relaxation, its bound is below the optimum times the resolution
        assert units <= optimum * resolution * (1 + 1e-12)


def test_bruteforce_classes_match_the_model_classes() -> None:
    # The search's own class analysis (written apart from the model's, so a fault in
    # one cannot prune the other's optimum) finds the same classes.
    from exactsched.generators import random_instance
    from models._cpsat_locations import interchangeable_classes
    from models.bruteforce import _classes

    for seed, topology in enumerate(("fully-connected", "mesh", "torus", "fat-tree",
                                     "accelerated-node", "hypercube") * 3):  # fmt: skip
        problem = random_instance(5, 4 if topology != "fat-tree" else 8, topology=topology,
                                  seed=seed, affinity=0.2 * (seed % 2))  # fmt: skip
        assert _classes(problem) == interchangeable_classes(problem).tolist(), topology
