"""Tests of heuristics.pets: levels, PETS ranks, PETS and levelized HEFT."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import random_instance
from heuristics.hbmct import GROUP_POLICIES
from heuristics.pets import levelized_heft, levels, pets, pets_rank

TOPCUOGLU = "examples/topcuoglu2002.json"


def _valid(problem, schedule):
    assert validate(problem, schedule) == []
    return schedule


def _start(problem, schedule, task):
    return schedule[problem.task_ids[task]].start


# ---- levels and ranks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edges", "order", "expected"),
    [
        ([], [], [0, 0, 0, 0]),
        ([(0, 1), (1, 2), (2, 3)], [], [0, 1, 2, 3]),
        ([(0, 3), (1, 2), (2, 3)], [], [0, 0, 1, 2]),  # longest chain, not shortest
        ([(0, 1)], [(1, 2)], [0, 1, 2, 0]),  # order pairs count as precedence
    ],
)
def test_levels(edges, order, expected):
    p = Problem.from_lists([1] * 4, edges, n_processors=1, order=order)
    assert levels(p).tolist() == expected


def test_pets_rank_by_hand():
    # ACC: 3, 3, 1.5. DTC(0) = 5 + 2 (two processors, one hop). RPT(1) = RPT(2) = 10.
    p = Problem.from_lists([[2, 4], [3, 3], [1, 2]], [(0, 1, 5), (0, 2, 2)])
    rank, acc = pets_rank(p)
    assert rank.tolist() == [10.0, 13.0, 12.0]  # round(11.5) = 12: half-up
    assert acc.tolist() == [3.0, 3.0, 1.5]


def test_pets_rank_rpt_is_the_highest_parent_rank():
    p = Problem.from_lists([[1, 1], [9, 9], [1, 1]], [(0, 2, 1), (1, 2, 0)])
    rank, _ = pets_rank(p)
    assert rank.tolist() == [2.0, 9.0, 10.0]


def test_pets_rank_topcuoglu():
    # By hand: n1 = 13 + (18 + 12 + 9 + 11 + 14) = 77; n2 = round(16.67 + 35 + 77) = 129.
    p = load_instance(TOPCUOGLU)
    rank, acc = pets_rank(p)
    assert rank.tolist() == [77, 129, 114, 140, 102, 105, 142, 161, 170, 185]
    assert acc[0] == 13


def test_pets_rank_dtc_on_a_mesh():
    # 2x2 mesh: mean hops over distinct ordered pairs 16 / 12, largest 2.
    mesh = {"topology": "mesh", "dims": [2, 2]}
    p = Problem.from_lists([[3, 3, 3, 3], [0, 0, 0, 0]], [(0, 1, 3)], network=mesh)
    assert pets_rank(p, "mean")[0].tolist() == [7.0, 7.0]  # 3 + 4
    assert pets_rank(p, "worst")[0].tolist() == [9.0, 9.0]  # 3 + 6


def test_order_pairs_carry_no_data_in_dtc():
    p = Problem.from_lists([[2, 2], [2, 2]], [], order=[(0, 1)])
    assert pets_rank(p)[0].tolist() == [2.0, 4.0]


# ---- scheduling ------------------------------------------------------------------------


def test_rank_ties_go_to_the_smaller_acc():
    # Level 1 holds tasks 1 (ACC 3, rank 1 + 3) and 2 (ACC 2, DTC 1, rank 1 + 2 + 1),
    # both forced onto p0: the tie goes to task 2, the smaller ACC, which runs first.
    p = Problem.from_lists(
        [[1, 1], [3, 3], [2, 2], [1, 1]],
        [(0, 1, 0), (0, 2, 0), (2, 3, 1)],
        affinity={1: [0], 2: [0]},
    )
    rank, acc = pets_rank(p)
    assert rank[1] == rank[2] and acc[2] < acc[1]
    s = _valid(p, pets(p))
    assert _start(p, s, 2) == 1 and _start(p, s, 1) == 3


def test_levels_go_in_order():
    # A heavy chain 0 -> 1 -> 2 and a light independent task 3 on one processor:
    # HEFT's order runs 3 last; level by level it runs right after 0.
    p = Problem.from_lists([10, 10, 10, 1], [(0, 1), (1, 2)], n_processors=1)
    for method in (pets, levelized_heft):
        s = _valid(p, method(p))
        assert _start(p, s, 3) == 10 and s.makespan == 31


@pytest.mark.parametrize(
    ("method", "options", "makespan"),
    [
        (pets, {}, 76),
        (pets, {"dtc": "worst"}, 76),  # one hop everywhere: worst == mean
        (pets, {"policy": "min-min"}, 80),
        (pets, {"policy": "bmct"}, 76),
        (levelized_heft, {}, 80),
        (levelized_heft, {"ranking": "best"}, 76),
        (levelized_heft, {"policy": "bmct"}, 76),
    ],
)
def test_topcuoglu_makespans(method, options, makespan):
    # Our values on Topcuoglu et al.'s sample DAG (HEFT: 80), recorded as regressions.
    p = load_instance(TOPCUOGLU)
    assert _valid(p, method(p, **options)).makespan == makespan


@pytest.mark.parametrize("topology", ["fully-connected", "accelerated-node", "mesh", "torus"])
@pytest.mark.parametrize("policy", GROUP_POLICIES)
def test_valid_on_constrained_platforms(topology, policy):
    p = random_instance(
        40, 6, topology=topology, n_order=5, n_isolation=8, affinity=0.3, latency=1, seed=5
    )
    _valid(p, pets(p, policy=policy))
    _valid(p, pets(p, policy=policy, dtc="worst", insertion=False))
    _valid(p, levelized_heft(p, policy=policy, ranking="nc"))


def test_affinity_respected():
    p = random_instance(30, 4, topology="accelerated-node", affinity=0.6, seed=2)
    for method in (pets, levelized_heft):
        s = _valid(p, method(p))
        for i, tid in enumerate(p.task_ids):
            assert p.allowed[i, p.proc_ids.index(s[tid].processor)]


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([3], n_processors=1),
        Problem.from_lists([1, 2, 3], n_processors=1),
        Problem.from_lists([0, 0, 0], [(0, 1, 2), (0, 2, 0)], n_processors=3),
    ],
)
def test_edge_cases(problem):
    _valid(problem, pets(problem))
    _valid(problem, levelized_heft(problem))


def test_bad_options():
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match="dtc"):
        pets(p, dtc="median")
    with pytest.raises(MethodError, match="policy"):
        pets(p, policy="random")
    with pytest.raises(MethodError, match="policy"):
        levelized_heft(p, policy="random")
    with pytest.raises(MethodError, match="weighting"):
        levelized_heft(p, ranking="nope")


def test_deterministic():
    p = random_instance(40, 6, topology="mesh", n_isolation=5, seed=3)
    assert dict(pets(p)) == dict(pets(p))
    assert np.array_equal(pets_rank(p)[0], pets_rank(p)[0])


def test_rank_rounds_exact_halves_up_whatever_the_float_sum():
    # ACC (0.3 + 2.3) / 2 = 1.3 plus DTC 0.2 is 1.5 exactly (1.4999999999999998 in
    # floats): half-up gives 2 (an outside audit found 1).
    problem = Problem.from_lists([[0.3, 2.3], [1, 1]], [(0, 1, 0.2)])
    assert pets_rank(problem)[0].tolist() == [2.0, 3.0]


def test_equal_accs_tie_to_the_lower_index():
    # ACC 11/30 for both (float means 0.3666...67 and 0.3666...64), rank 0 for both:
    # the lower index goes first (t0 at 0 on p0, t1 after it).
    problem = Problem.from_lists([[0.1, 0.3, 0.7], [0.1, 0.7, 0.3]])
    schedule = pets(problem)
    assert validate(problem, schedule) == []
    assert (schedule["t0"].processor, schedule["t0"].start) == ("p0", 0)
    assert (schedule["t1"].processor, schedule["t1"].start) == ("p0", 0.1)
