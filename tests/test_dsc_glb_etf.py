"""Tests of heuristics.dsc_glb_etf: DSC clustering, GLB mapping, ETF ordering.

Expected clusters and schedules are computed by hand from the definitions in the module
docstring (two identical processors, so the mean communication of an arc is its data).
"""

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, solve, validate
from exactsched.generators import random_instance
from heuristics.dsc_glb_etf import bottom_level, dsc, dsc_glb_etf, etf_order, glb


def _clusters(costs, edges, **kw):
    cluster, start = dsc(Problem.from_lists(costs, edges, n_processors=2, **kw))
    return cluster.tolist(), start.tolist()


def test_fork_heavy_message_is_zeroed():
    # t1 joins t0 (start 2 instead of 12); t2's message (1) is cheaper than waiting.
    assert _clusters([2, 3, 1], [(0, 1, 10), (0, 2, 1)]) == ([0, 0, 1], [0.0, 2.0, 3.0])


def test_chain_collapses_into_one_cluster():
    assert _clusters([1, 2, 3], [(0, 1, 10), (1, 2, 10)]) == ([0, 0, 0], [0.0, 1.0, 3.0])


def test_join_goes_to_the_dominant_predecessor():
    # Arrivals at t2: 3 + 5 from t0, 1 + 1 from t1; in t0's cluster it starts at 3.
    assert _clusters([3, 1, 1], [(0, 2, 5), (1, 2, 1)]) == ([0, 1, 0], [0.0, 0.0, 3.0])


def test_dsrw_keeps_the_cluster_for_a_more_critical_partially_free_task():
    # t2 (preds t0, t3) is partially free with priority (1 + 10) + 20 = 31 when t1
    # (priority 3 + 19 = 22) is examined. Joining t0's cluster would start t1 at 1 but
    # end it at 20 > 11, t2's start there: DSRW refuses; t1 opens cluster 1 at 3.
    # t2 later joins t0's cluster at 1.
    clusters = _clusters([1, 19, 20, 1], [(0, 1, 2), (0, 2, 10), (3, 2, 0)])
    assert clusters == ([0, 1, 0, 2], [0.0, 3.0, 1.0, 0.0])


def test_affinity_forbids_merging_into_a_cluster_no_processor_can_run():
    assert _clusters([1, 1], [(0, 1, 10)], affinity={0: [0], 1: [1]})[0] == [0, 1]


def test_glb_balances_in_start_order():
    p = Problem.from_lists([[4, 4], [1, 1], [2, 2], [1, 3]])
    # Clusters 0 {t0}, 1 {t1, t3}, 2 {t2}; starts 0, 0, 1. Cluster 0 -> p0 (load 4);
    # cluster 1: work 2 on p0, 4 on p1 -> totals 6, 4 -> p1; cluster 2: 6 vs 6 -> p0.
    where = glb(p, np.array([0, 1, 2, 1]), np.array([0.0, 0.0, 1.0, 2.0]))
    assert where.tolist() == [0, 1, 0, 1]


def test_glb_refuses_a_cluster_no_processor_can_run():
    p = Problem.from_lists([1, 1], n_processors=2, affinity={0: [0], 1: [1]})
    with pytest.raises(MethodError, match="cluster of t0"):
        glb(p, np.array([0, 0]), np.zeros(2))


def test_etf_with_and_without_mapping():
    p = Problem.from_lists([[2, 3], [1, 1], [4, 2]], [(0, 1, 4), (0, 2, 1)])
    # Plain ETF: t1 and t2 can both start at 2 on p0; t2 has the larger bottom level.
    s = etf_order(p)
    assert validate(p, s) == []
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")] == [
        ("p0", 0),
        ("p0", 6),
        ("p0", 2),
    ]
    s = etf_order(p, np.array([0, 1, 1]))
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")] == [
        ("p0", 0),
        ("p1", 6),
        ("p1", 3),
    ]
    assert validate(p, s) == []
    with pytest.raises(MethodError, match="affinity"):
        etf_order(Problem.from_lists([1], n_processors=2, affinity={0: [1]}), np.array([0]))
    with pytest.raises(MethodError, match="shape"):
        etf_order(p, np.array([0]))


def test_whole_pipeline_by_hand():
    # Join example: clusters {t0, t2} -> p0 (work 4), {t1} -> p1; ETF starts t0 first
    # (tie at 0, larger bottom level 9 against 3), t2 at max(3, 1 + 1) = 3 on p0.
    p = Problem.from_lists([3, 1, 1], [(0, 2, 5), (1, 2, 1)], n_processors=2)
    assert bottom_level(p).tolist() == [9.0, 3.0, 1.0]
    s = dsc_glb_etf(p)
    assert [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")] == [
        ("p0", 0),
        ("p1", 0),
        ("p0", 3),
    ]
    assert s.makespan == 4 and validate(p, s) == []


def test_topcuoglu_sample():
    p = load_instance("examples/topcuoglu2002.json")
    first = solve(p, "dsc-glb-etf")
    assert validate(p, first.schedule) == []
    assert solve(p, "dsc-glb-etf").schedule == first.schedule


@pytest.mark.parametrize("insertion", [False, True])
def test_random_instances_valid_and_deterministic(insertion):
    for seed, topology in enumerate(("fully-connected", "mesh", "accelerated-node", "matrix")):
        p = random_instance(
            40, 6, topology=topology, n_order=3, n_isolation=3, affinity=0.2, ccr=2.0, seed=seed
        )
        s = dsc_glb_etf(p, insertion=insertion)
        assert validate(p, s) == []
        assert dsc_glb_etf(p, insertion=insertion) == s
        cluster, _ = dsc(p)
        # Every cluster can run on one processor.
        for k in np.unique(cluster).tolist():
            assert p.allowed[cluster == k].all(axis=0).any()
