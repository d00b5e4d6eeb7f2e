"""Tests of models/bruteforce.py: hand-computed optima, refusals, time limit."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from shared_cases import fork

import exactsched
from exactsched import MethodError, Problem, Status, validate
from exactsched.generators import random_instance
from models._horizon import order_from_times, semi_active
from models.bruteforce import bruteforce, search_space

ACCEL = ["cpu", "cpu", "cpu", "gpu"]
FORKS = [
    pytest.param(fork({"topology": "fully-connected"}), 6, id="fully-connected"),
    pytest.param(fork({"topology": "mesh", "dims": [4]}), 8, id="mesh-line"),
    pytest.param(fork({"topology": "mesh", "dims": [2, 2]}), 7, id="mesh-2x2"),
    pytest.param(fork({"topology": "torus", "dims": [4]}), 6, id="torus-ring"),
    pytest.param(fork({"topology": "hypercube"}), 7, id="hypercube"),
    pytest.param(fork({"topology": "fat-tree"}), 7, id="fat-tree"),
    pytest.param(fork({"topology": "accelerated-node"}, ACCEL), 6, id="accel-gpu"),
    pytest.param(fork({"topology": "accelerated-node"}, ACCEL, "p2"), 5, id="accel-cpu"),
    pytest.param(
        fork(
            {
                "topology": "matrix",
                "hops": [[0, 1, 1, 2.5], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]],
            }
        ),
        7.5,
        id="matrix",
    ),
]


@pytest.mark.parametrize(("problem", "expected"), FORKS)
def test_fork_per_topology(problem: Problem, expected: float) -> None:
    result = bruteforce(problem)
    assert result.status is Status.OPTIMAL
    assert result.makespan == expected
    assert result.lower_bound == expected
    assert validate(problem, result.schedule) == []


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, 3),  # two tasks side by side
        ({"isolation": [(0, 1)]}, 6),  # never at the same time, even on two processors
        ({"order": [(0, 1)]}, 6),  # b after a, no data
        ({"affinity": {0: [0], 1: [0]}}, 6),  # both forced on p0
    ],
)
def test_pairs_and_affinity(kwargs: dict, expected: float) -> None:
    p = Problem.from_lists([3, 3], n_processors=2, **kwargs)
    result = bruteforce(p)
    assert (result.status, result.makespan) == (Status.OPTIMAL, expected)
    assert validate(p, result.schedule) == []


def test_single_task_takes_fastest_processor() -> None:
    result = bruteforce(Problem.from_lists([[5, 3, 4]]))
    assert result.makespan == 3
    assert result.schedule["t0"].processor == "p1"


def test_chain_stays_local_when_communication_is_dear() -> None:
    # both on p0: 1 + 5 = 6; split: 1 + 10 + 1 = 12; both on p1: 10
    p = Problem.from_lists([[1, 5], [5, 1]], [(0, 1, 10)])
    assert bruteforce(p).makespan == 6


def test_optimum_needs_idle_time() -> None:
    # a (long, p0 only) and c (only p0) compete for p0; c waits for b's data from p1,
    # and c -> d is the critical path, so p0 must stay idle for c instead of running a.
    p = Problem.from_lists(
        [[10, 99], [1, 1], [1, 99], [99, 10]],
        [(1, 2, 1), (2, 3, 0)],
        affinity={0: [0], 1: [1], 2: [0], 3: [1]},
    )
    result = bruteforce(p)
    # b on p1 [0, 1], c on p0 [2, 3], d on p1 [3, 13], a on p0 [3, 13]
    assert result.makespan == 13
    assert validate(p, result.schedule) == []


def test_zero_length_task_may_sit_inside_another() -> None:
    # z (cost 0, p0 only) waits 1 for data from s on p1; a (cost 5, p0 only) need not
    # move out of its way: zero-length tasks never conflict.
    p = Problem.from_lists(
        [[99, 1], [0, 99], [5, 99], [99, 3]],
        [(0, 1, 1), (1, 3, 0)],
        affinity={0: [1], 1: [0], 2: [0], 3: [1]},
    )
    result = bruteforce(p)
    assert result.makespan == 5
    assert validate(p, result.schedule) == []


def test_topcuoglu_optimum_is_73() -> None:
    # HEFT gives 80 (Topcuoglu et al. 2002, Fig. 2); cpsat and milp also prove 73.
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    result = bruteforce(p, max_tasks=10)
    assert (result.status, result.makespan, result.lower_bound) == (Status.OPTIMAL, 73, 73)
    assert validate(p, result.schedule) == []


def test_topcuoglu_refused_by_default() -> None:
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    with pytest.raises(MethodError, match=r"^bruteforce: 10 tasks is more than max_tasks=8$"):
        bruteforce(p)


def test_search_space_refusal() -> None:
    p = random_instance(8, 8, seed=1)
    with pytest.raises(MethodError, match="search space .* max_space=1e\\+06"):
        bruteforce(p, max_space=1e6)


def test_refusal_through_solve() -> None:
    p = random_instance(9, 2, seed=0)
    with pytest.raises(MethodError, match="max_tasks"):
        exactsched.solve(p, "bruteforce")


def test_time_limit_returns_feasible_with_bound() -> None:
    p = random_instance(8, 4, topology="torus", seed=23)
    result = bruteforce(p, time_limit=0.0)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert validate(p, result.schedule) == []
    assert result.lower_bound <= result.makespan


def test_search_space_counts_assignments() -> None:
    p = Problem.from_lists([1, 1, 1], n_processors=3, affinity={0: [0]})
    assert search_space(p) == 6 * 1 * 3 * 3


def _exhaustive(problem: Problem) -> float:
    """Optimum by enumerating every assignment and every linear extension, unpruned."""
    n = problem.n_tasks
    best = math.inf
    orders = [
        order
        for order in itertools.permutations(range(n))
        if all(
            order.index(int(problem.arc_src[a])) < order.index(int(problem.arc_dst[a]))
            for a in range(problem.n_edges)
        )
    ]
    for proc in itertools.product(*(problem.allowed_processors(i).tolist() for i in range(n))):
        cost = problem.cost[np.arange(n), list(proc)]
        for order in orders:
            start = semi_active(problem, proc, order)
            best = min(best, float((start + cost).max()))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_pruned_search_matches_unpruned_enumeration(seed: int) -> None:
    p = random_instance(
        5,
        2 + seed % 2,
        topology=("mesh", "matrix", "fully-connected")[seed % 3],
        n_isolation=seed % 3,
        n_order=seed % 2,
        affinity=0.3,
        integral=seed % 2 == 0,
        seed=seed,
    )
    assert math.isclose(bruteforce(p).makespan, _exhaustive(p), rel_tol=1e-9)


def test_semi_active_of_sorted_schedule_is_no_longer() -> None:
    # the key step of the exactness proof, on a schedule of the search itself
    p = random_instance(7, 3, topology="matrix", n_isolation=2, integral=False, seed=5)
    s = bruteforce(p).schedule
    proc, start, finish = s.arrays(p)
    again = semi_active(p, proc, order_from_times(p, start, finish))
    assert np.all(again <= start + 1e-9)


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        pytest.param(Problem.from_lists([3], n_processors=1), 3, id="one-task"),
        pytest.param(
            Problem.from_lists([2, 3, 4], [(0, 1, 1), (1, 2, 1)], n_processors=1),
            9,
            id="one-processor",
        ),
        pytest.param(
            Problem.from_lists([0, 0, 0], [(0, 1, 5)], n_processors=2), 0, id="zero-costs"
        ),
        pytest.param(Problem.from_lists([2, 2, 2, 2], n_processors=2), 4, id="no-edges"),
        pytest.param(
            Problem.from_lists([[0, 2], [3, 0], [1, 1]], [(0, 2, 4)], isolation=[(0, 1)]),
            1,
            id="zero-cost-isolation",
        ),
    ],
)
def test_edge_cases(problem: Problem, expected: float) -> None:
    result = bruteforce(problem)
    assert (result.status, result.makespan, result.lower_bound) == (
        Status.OPTIMAL,
        expected,
        expected,
    )
    assert validate(problem, result.schedule) == []


def test_interchangeable_processors_are_pruned() -> None:
    # four identical processors, fully connected: only one of them opens the search
    p = Problem.from_lists([2, 2, 2, 2, 2], n_processors=4)
    few = bruteforce(p).stats["nodes"]
    q = Problem.from_lists([[2, 2, 2, 2.5]] * 5)  # p3 differs: no longer interchangeable
    assert bruteforce(q).makespan == 4
    assert few <= bruteforce(q).stats["nodes"]
