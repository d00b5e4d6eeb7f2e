"""Tests of the refutation witness's reductions: symmetry breaking, load cuts, pooling.

The symmetry argument is in models/_refute_symmetry.py, the pooling in
models/_refute.py (``refute_cpsat``).

The witness must never refute a claim that can be beaten: on tiny instances
with interchangeable processors, brute force gives the optimum and the witness,
with and without the reductions, must refute ``optimum - 1`` and find a
schedule for ``optimum`` (the question a false claim of ``optimum + 1`` asks).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import exactsched
from exactsched import Problem, Status, load_instance, validate
from exactsched.generators import random_dag, random_instance, random_workload
from models._refute import floored_data, refute_cpsat
from models._refute_symmetry import interchangeable_classes, swap_is_automorphism
from models.certify import certify
from models.cpsat import scale_data

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# (symmetry, cuts, pool): all on (the default), all off, and each alone.
REDUCTIONS = [
    (True, True, True),
    (False, False, False),
    (True, False, False),
    (False, True, False),
    (False, False, True),
]


def _classes(problem: Problem) -> list[list[int]]:
    return interchangeable_classes(problem.cost, problem.hops, has_arcs=problem.n_edges > 0)


# ---- classes ----------------------------------------------------------------------------


def test_accelerated_node_cores_form_one_class() -> None:
    p = load_instance(EXAMPLES / "daggen-n12-single-gpu-hoft.json")
    assert _classes(p) == [[0, 1, 2, 3, 4, 5, 6]]


def test_affinity_splits_a_class() -> None:
    # Equal costs, but task 0 may not run on processor 2.
    p = Problem.from_lists([[1, 1, 1], [2, 2, 2]], affinity={0: [0, 1]})
    assert _classes(p) == [[0, 1]]


def test_hops_split_a_class_unless_nothing_communicates() -> None:
    line = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)  # a - b - c
    assert swap_is_automorphism(line, 0, 2)
    assert not swap_is_automorphism(line, 0, 1)
    cost = np.ones((2, 3))
    assert interchangeable_classes(cost, line, has_arcs=True) == [[0, 2]]
    assert interchangeable_classes(cost, line, has_arcs=False) == [[0, 1, 2]]


def test_out_of_checks_processors_stay_alone() -> None:
    p = load_instance(EXAMPLES / "daggen-n12-single-gpu-hoft.json")
    assert interchangeable_classes(p.cost, p.hops, has_arcs=True, max_checks=0) == []
    assert interchangeable_classes(p.cost, p.hops, has_arcs=True, max_checks=2) == [[0, 1, 2]]


def test_classes_are_closed_under_every_swap() -> None:
    for seed in range(6):
        for topology in ("mesh", "matrix", "accelerated-node", "hypercube"):
            p = random_instance(5, 4, topology=topology, heterogeneity=0.0, seed=seed)
            for members in _classes(p):
                for a in members:
                    for b in members:
                        assert np.array_equal(p.cost[:, a], p.cost[:, b])
                        assert p.n_edges == 0 or swap_is_automorphism(p.hops, a, b)


# ---- agreement with brute force ---------------------------------------------------------


def _tiny_instances() -> list[Problem]:
    """Instances of 5-6 tasks whose platforms have interchangeable processors."""
    out = []
    for seed in range(4):
        for topology in ("accelerated-node", "fully-connected", "mesh", "matrix"):
            out.append(
                random_instance(
                    6,
                    4,
                    topology=topology,
                    heterogeneity=0.0,
                    ccr=2.0,
                    seed=seed,
                    n_isolation=seed % 2,
                )
            )
        for topology in ("accelerated-node", "fully-connected"):
            # Affinity splits classes (e.g. [0, 1, 3]); order and isolation pairs too.
            out.append(
                random_instance(
                    6,
                    5,
                    topology=topology,
                    heterogeneity=0.0,
                    affinity=0.15,
                    n_order=1,
                    n_isolation=1,
                    ccr=2.0,
                    seed=seed,
                )
            )
        arcs = random_dag(5, seed=seed)
        for platform in ("single-gpu", "multi-gpu"):
            out.append(
                random_workload(arcs, 5, platform, weights="hoft-high", integral=True, seed=seed)
            )
    return out


@pytest.mark.parametrize("index", range(32))
def test_witness_agrees_with_bruteforce(index: int) -> None:
    p = _tiny_instances()[index]
    optimum = exactsched.solve(p, "bruteforce", certify=False)
    assert optimum.status is Status.OPTIMAL
    # Matrix hops of 0.5: the grid of scale_data makes every value an integer.
    resolution = float(scale_data(p).resolution)
    data = floored_data(p, resolution)
    assert data.exact
    best = int(round(float(optimum.makespan) * resolution))
    for flags in REDUCTIONS:
        options = dict(zip(("symmetry", "cuts", "pool"), flags, strict=True))
        below = refute_cpsat(p, data, best - 1, time_limit=30, **options)
        assert below.outcome == "refuted", (options, below.reason)
        # A false claim of best + 1 asks for makespan <= best: the witness must find one.
        found = refute_cpsat(p, data, best, time_limit=30, **options)
        assert found.outcome == "found", (options, found.reason)
        assert validate(p, found.schedule) == []
        assert found.schedule.makespan * resolution <= best + 1e-9


def test_pooled_cores_are_coloured_into_a_valid_schedule() -> None:
    # Four identical tasks on a 3-core pool (+ a GPU that is slow here): 2 rounds.
    p = Problem.from_lists(
        [[4, 4, 4, 9]] * 4,
        network={"topology": "accelerated-node"},
    )
    assert _classes(p)[0] == [0, 1, 2]
    data = floored_data(p, 1)
    assert refute_cpsat(p, data, 7).outcome == "refuted"
    found = refute_cpsat(p, data, 8)
    assert found.outcome == "found"
    assert validate(p, found.schedule) == []
    assert found.schedule.makespan == 8


def test_a_false_claim_one_above_the_optimum_is_caught() -> None:
    arcs = random_dag(5, seed=3)
    p = random_workload(arcs, 5, "single-gpu", weights="hoft-high", integral=True, seed=3)
    truth = exactsched.solve(p, "bruteforce", certify=False)
    claim = replace(
        truth,
        method="cpsat",
        makespan=truth.makespan + 1,
        lower_bound=truth.makespan + 1,
    )
    checked = certify(p, claim, witnesses=("cpsat-disjunctive",), time_limit=30)
    assert checked.status is Status.FEASIBLE
    assert checked.certified is False
    assert checked.stats["false_proof"]["caught_by"] == "cpsat-disjunctive"
    assert validate(p, checked.schedule) == []
    assert checked.makespan <= truth.makespan


# ---- the accelerated-node examples now certify -------------------------------------------


@pytest.mark.parametrize(
    "name", ["daggen-n12-single-gpu-hoft.json", "cholesky-n4-single-gpu.json"]
)
def test_accelerated_node_examples_certify_by_default(name: str) -> None:
    p = load_instance(EXAMPLES / name)
    solved = exactsched.solve(p, "cpsat", time_limit=60, workers=1, certify=False)
    assert solved.stats["claim"]["makespan"] == solved.makespan  # the engine's claim
    assert validate(p, solved.schedule) == []
    checked = certify(p, solved, time_limit=60)
    assert checked.certified is True
    assert checked.certified_by == ("cpsat-disjunctive",)


@pytest.mark.parametrize("index", range(0, 32, 4))
def test_two_thread_witness_agrees_with_bruteforce(index: int) -> None:
    # certify(..., workers=2): two complete searches, neither with an LP.
    p = _tiny_instances()[index]
    optimum = exactsched.solve(p, "bruteforce", certify=False)
    resolution = float(scale_data(p).resolution)
    data = floored_data(p, resolution)
    best = int(round(float(optimum.makespan) * resolution))
    assert refute_cpsat(p, data, best - 1, time_limit=30, workers=2).outcome == "refuted"
    found = refute_cpsat(p, data, best, time_limit=30, workers=2)
    assert found.outcome == "found" and validate(p, found.schedule) == []


def test_witness_threads_never_run_an_lp() -> None:
    from ortools.sat.python import cp_model

    from models._refute import NO_LP_SUBSOLVERS, set_threads

    for workers in (1, 2, 8):
        params = cp_model.CpSolver().parameters
        set_threads(params, workers, lp=False)
        assert params.num_workers == min(workers, len(NO_LP_SUBSOLVERS))
        assert all(name.endswith("no_lp") for name in params.subsolvers)
