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


# ---- DSC as published: the minimisation procedure and its optimality on forks and joins ----


def _parallel_time(p, cluster, start):
    return max(start[t] + p.cost[t, 0] for t in range(p.n_tasks))


@pytest.mark.parametrize("k, optimum", [(4, 5), (2, 3)])
def test_join_of_unit_tasks_zeroes_every_incoming_edge(k, optimum):
    # k unit tasks joining a unit sink over messages of 10, on 2 processors. Zeroing one
    # edge alone leaves the sink at 11; the minimisation procedure pulls every predecessor
    # into one cluster: sink at k, makespan k + 1, the optimum CP-SAT proves.
    p = Problem.from_lists([1] * (k + 1), [(i, k, 10) for i in range(k)], n_processors=2)
    cluster, start = dsc(p)
    assert cluster.tolist() == [0] * (k + 1)
    assert start.tolist() == [float(i) for i in range(k + 1)]
    s = dsc_glb_etf(p)
    assert validate(p, s) == [] and s.makespan == optimum
    exact = solve(p, "cpsat", time_limit=10, workers=1, seed=0)
    assert exact.status.name == "OPTIMAL" and exact.makespan == optimum


def test_join_pulls_predecessors_only_while_the_sink_gains():
    # Arrivals at t4: t0 1 + 10, t1 2 + 8, t2 3 + 2, t3 1 + 1. In t0's cluster: pulling t1
    # ends it at 3 (sink at max(3, 5) = 5); pulling t2 too ends it at 6 > 5 = t2's
    # arrival. So t0, t1 and the sink share a cluster; t2 and t3 keep theirs.
    p = Problem.from_lists(
        [1, 2, 3, 1, 1], [(0, 4, 10), (1, 4, 8), (2, 4, 2), (3, 4, 1)], n_processors=5
    )
    cluster, start = dsc(p)
    assert cluster[[0, 1, 4]].tolist() == [cluster[0]] * 3
    assert len(set(cluster[[0, 2, 3]].tolist())) == 3
    assert start[4] == 5.0 and validate(p, dsc_glb_etf(p)) == []


def test_join_does_not_pull_a_predecessor_with_other_successors():
    # As the four-task join, but t1 also feeds t5: moving it could delay t5, so it stays.
    edges = [(i, 4, 10) for i in range(4)] + [(1, 5, 10)]
    p = Problem.from_lists([1] * 6, edges, n_processors=6)
    cluster, start = dsc(p)
    assert cluster[1] != cluster[4] and start[4] == 11.0
    assert validate(p, dsc_glb_etf(p)) == []


def test_fork_zeroes_the_heaviest_branches_first():
    # Root 1 with children (w, c): (4, 9), (3, 6), (2, 1). Examined by tlevel + blevel
    # (14, 10, 4): t1 joins the root (start 1 < 10); t2 would start at 5 there, before its
    # arrival 7, so it joins too; t3 at 8 there is later than 2: own cluster. Makespan 8.
    p = Problem.from_lists([1, 4, 3, 2], [(0, 1, 9), (0, 2, 6), (0, 3, 1)], n_processors=4)
    cluster, start = dsc(p)
    assert cluster.tolist() == [0, 0, 0, 1] and start.tolist() == [0.0, 1.0, 5.0, 2.0]
    s = dsc_glb_etf(p)
    assert validate(p, s) == [] and s.makespan == 8


def _fork_or_join(rng):
    k = rng.randint(1, 6)
    n = k + 1
    costs = [rng.randint(0, 10) for _ in range(n)]
    if rng.random() < 0.5:
        edges = [(0, j, rng.randint(0, 12)) for j in range(1, n)]
    else:
        edges = [(j, k, rng.randint(0, 12)) for j in range(k)]
    return Problem.from_lists(costs, edges, n_processors=n)


def test_dsc_is_optimal_on_random_forks_and_joins():
    # Theorem 4.2 of Yang and Gerasoulis: on fork and join DAGs (identical processors,
    # fully connected, as many processors as tasks) DSC's clustering is optimal. 200
    # random cases of 2 to 7 tasks, weights 0..10, messages 0..12; bruteforce referees.
    import random

    rng = random.Random(17)
    for _ in range(200):
        p = _fork_or_join(rng)
        cluster, start = dsc(p)
        s = dsc_glb_etf(p)
        assert validate(p, s) == []
        exact = solve(p, "bruteforce")
        assert exact.status.name == "OPTIMAL"
        assert _parallel_time(p, cluster, start) == exact.makespan
        assert s.makespan == exact.makespan
