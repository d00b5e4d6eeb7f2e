"""Tests of heuristics.lmt: levels, merging of small tasks, min compute + comm time."""

import numpy as np

from exactsched import Problem, validate
from exactsched.generators import random_instance
from heuristics.lmt import levels, lmt, merge_groups


def test_levels_count_longest_arc_paths():
    p = Problem.from_lists([1] * 5, [(0, 1), (1, 2), (0, 2), (3, 4)], n_processors=1)
    assert [lv.tolist() for lv in levels(p)] == [[0, 3], [1, 4], [2]]
    q = Problem.from_lists([1, 1], n_processors=1, order=[(0, 1)])
    assert [lv.tolist() for lv in levels(q)] == [[0], [1]]


def test_merge_smallest_first():
    w = np.array([5.0, 1.0, 2.0, 4.0])
    everywhere = np.ones((4, 2), dtype=bool)
    # 1 + 2 -> 3; then 3 + 4 -> 7 > 5.
    assert merge_groups(np.arange(4), w, everywhere, 2) == [[1, 2, 3], [0]]
    assert merge_groups(np.arange(4), w, everywhere, 4) == [[0], [3], [2], [1]]


def test_merge_respects_affinity():
    w = np.array([1.0, 1.0, 1.0])
    allowed = np.array([[True, False], [False, True], [True, False]])
    # t0 and t1 share no processor: the smallest (t0) merges with t2 instead.
    assert merge_groups(np.arange(3), w, allowed, 2) == [[0, 2], [1]]
    # No compatible pair at all: the groups stay apart.
    apart = np.array([[True, False, False], [False, True, False], [False, False, True]])
    assert len(merge_groups(np.arange(3), w, apart, 1)) == 3


def test_by_hand():
    # Level 1 {t1, t2, t3} on two processors: t2 + t3 merged (mean 3). t1 (4) picks p0
    # (4 + 0 comm against 4 + 3); the pair takes the other processor, t3 first.
    p = Problem.from_lists([2, 4, 1, 2], [(0, 1, 3), (0, 2, 3), (0, 3, 3)], n_processors=2)
    s = lmt(p)
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2", "t3")] == [
        ("p0", 0),
        ("p0", 2),
        ("p1", 7),
        ("p1", 5),
    ]
    assert validate(p, s) == []


def test_hops_count_in_the_communication_sum():
    # t0 on p0; t1 costs 2 on p1, 1.5 on p2. Through 3 hops to p2 its data (1 per hop)
    # cost 3: p1 (2 + 1) beats p2 (1.5 + 3); p0 costs 9.
    line = {"topology": "matrix", "hops": [[0, 1, 3], [1, 0, 1], [3, 1, 0]]}
    p = Problem.from_lists([[1, 9, 9], [9, 2, 1.5]], [(0, 1, 1)], network=line)
    s = lmt(p)
    assert s["t1"].processor == "p1" and validate(p, s) == []


def test_random_instances():
    for seed, topology in enumerate(("fully-connected", "mesh", "accelerated-node")):
        p = random_instance(
            40, 4, topology=topology, n_order=3, n_isolation=3, affinity=0.3, seed=seed
        )
        s = lmt(p)
        assert validate(p, s) == [] and lmt(p) == s
        assert validate(p, lmt(p, insertion=True)) == []
