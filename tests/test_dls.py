"""Tests of heuristics.dls: static levels, the Delta term, pair selection."""

import numpy as np
import pytest

from exactsched import Problem, solve, validate
from exactsched.generators import random_instance
from heuristics.dls import dls, median_cost, static_level

# t0 -> t1 (data 4), t0 -> t2 (data 1), two processors.
FORK = ([[2, 4], [3, 3], [2, 6]], [(0, 1, 4), (0, 2, 1)])


def test_median_and_static_level():
    p = Problem.from_lists(*FORK)
    assert median_cost(p).tolist() == [3.0, 3.0, 4.0]
    assert static_level(p).tolist() == [7.0, 3.0, 4.0]  # no communication in SL
    q = Problem.from_lists([[1, 2, 9]], affinity={0: [0, 2]})
    assert median_cost(q).tolist() == [5.0]  # over the allowed processors only


def test_fork_by_hand():
    # Step 1: DL(t0, p0) = 7 - 0 + 1 = 8 > DL(t0, p1) = 7 - 0 - 1 = 6.
    # Step 2: DL(t2, p0) = 4 - 2 + 2 = 4 beats DL(t1, p0) = 3 - 2 + 0 = 1 and every p1 pair.
    # Step 3: DL(t1, p0) = 3 - 4 = -1 > DL(t1, p1) = 3 - 6 = -3.
    p = Problem.from_lists(*FORK)
    s = dls(p)
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")] == [
        ("p0", 0),
        ("p0", 4),
        ("p0", 2),
    ]
    assert s.makespan == 7 and validate(p, s) == []


def test_delta_prefers_the_relatively_fast_processor():
    # One task: EST 0 everywhere, so DL differs by Delta only: the fastest processor.
    p = Problem.from_lists([[3, 1, 2]])
    s = dls(p)
    assert s["t0"].processor == "p1" and validate(p, s) == []


def test_ties_go_to_lowest_task_then_processor():
    p = Problem.from_lists([[2, 2], [2, 2]])
    s = dls(p)
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1")] == [("p0", 0), ("p1", 0)]
    assert validate(p, s) == []


@pytest.mark.parametrize("insertion", [False, True])
def test_random_instances(insertion):
    for seed, topology in enumerate(("fully-connected", "torus", "fat-tree")):
        p = random_instance(
            30, 4, topology=topology, n_order=3, n_isolation=3, affinity=0.2, seed=seed
        )
        s = dls(p, insertion=insertion)
        assert validate(p, s) == [] and dls(p, insertion=insertion) == s
        assert np.isfinite(s.makespan)
    assert solve(p, "dls").makespan == dls(p).makespan


def test_exact_ties_of_decimal_dynamic_levels_go_to_the_lower_task():
    # An outside audit: DLs compared as raw floats. After t1 on p0, t0 on p0,
    # t2 on p0 and t3 on p1 all have DL exactly 0.5, but the float sums made
    # t2's the largest; the documented tie rule takes t0.
    p = Problem.from_lists(
        [[0.1, 0.6], [0.1, 0.6], [0.2, 0.6], [0.7, 0.2]], [(1, 3, 0.1)], n_processors=2
    )
    s = dls(p)
    assert validate(p, s) == []
    assert [(s[t].processor, s[t].start) for t in p.task_ids] == [
        ("p0", 0.1), ("p0", 0), ("p0", 0.2), ("p1", 0.2)
    ]  # fmt: skip
