"""Tests of heuristics.mh: static upward ranks, non-insertion least finish time."""

from exactsched import Problem, validate
from exactsched.generators import random_instance
from heuristics.mh import mh, static_upward_rank


def test_static_rank_ignores_communication():
    p = Problem.from_lists([[2, 4], [3, 3], [2, 6]], [(0, 1, 4), (0, 2, 1)])
    assert static_upward_rank(p).tolist() == [7.0, 3.0, 4.0]


def test_fork_by_hand():
    # Order t0, t2 (rank 4), t1 (rank 3). t2: finish 4 on p0, 3 + 6 on p1;
    # t1: 7 on p0, (2 + 4) + 3 on p1.
    p = Problem.from_lists([[2, 4], [3, 3], [2, 6]], [(0, 1, 4), (0, 2, 1)])
    s = mh(p)
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")] == [
        ("p0", 0),
        ("p0", 4),
        ("p0", 2),
    ]
    assert validate(p, s) == []


def test_no_insertion_by_default():
    # t0 (p1 only) -> t1 (p0 only, data 5): t1 starts at 6 on p0, leaving [0, 6) idle.
    # t2 (p0 only, rank 2 < 3) comes after t1: appended at 9, or inserted at 0.
    p = Problem.from_lists(
        [[1, 1], [3, 3], [2, 2]], [(0, 1, 5)], affinity={0: [1], 1: [0], 2: [0]}
    )
    assert static_upward_rank(p).tolist() == [4.0, 3.0, 2.0]
    assert [mh(p)[t].start for t in ("t0", "t1", "t2")] == [0, 6, 9]
    assert [mh(p, insertion=True)[t].start for t in ("t0", "t1", "t2")] == [0, 6, 0]
    assert validate(p, mh(p)) == [] and validate(p, mh(p, insertion=True)) == []


def test_random_instances():
    for seed, topology in enumerate(("fully-connected", "hypercube", "accelerated-node")):
        p = random_instance(30, 4, topology=topology, n_order=3, n_isolation=3, seed=seed)
        s = mh(p)
        assert validate(p, s) == [] and mh(p) == s
        assert validate(p, mh(p, insertion=True)) == []
