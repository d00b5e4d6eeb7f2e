"""Tests of the acyclic DAG partitioner (heuristics.partition)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactsched import MethodError, Problem
from exactsched.generators import random_dag, random_instance
from heuristics.partition import (
    acyclic_partition,
    edge_cut,
    part_weights,
    partition_problem,
    quotient_is_acyclic,
    topological_split,
)


def _dag(n: int, seed: int, degree: int = 3) -> tuple[np.ndarray, np.ndarray]:
    arcs = np.array(random_dag(n, max_in_degree=degree, seed=seed), dtype=np.int64)
    if len(arcs) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return arcs[:, 0], arcs[:, 1]


def _check(labels, n, src, dst, k, weights, epsilon=0.1):
    assert labels.shape == (n,)
    assert labels.dtype.kind == "i"
    assert ((labels >= 0) & (labels < k)).all()
    # Acyclic: every arc goes to the same or a later part, so the quotient is acyclic.
    assert (labels[src] <= labels[dst]).all()
    assert quotient_is_acyclic(labels, src, dst)
    w = part_weights(labels, k, weights)
    total = float(weights.sum())
    bound = max((1 + epsilon) * total / k, total / k + float(weights.max(initial=0)))
    assert w.max(initial=0) <= bound + 1e-9
    if n >= k:
        assert (np.bincount(labels, minlength=k) > 0).all(), "an empty part"


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 120),
    k=st.integers(1, 12),
    seed=st.integers(0, 10_000),
    degree=st.integers(1, 5),
    weighted=st.booleans(),
)
def test_properties_on_random_dags(n, k, seed, degree, weighted):
    src, dst = _dag(n, seed, degree)
    rng = np.random.default_rng(seed)
    nw = rng.integers(1, 11, size=n).astype(float) if weighted else np.ones(n)
    aw = rng.integers(0, 20, size=len(src)).astype(float)
    labels = acyclic_partition(n, src, dst, k, node_weight=nw, arc_weight=aw)
    _check(labels, n, src, dst, k, nw)
    # Deterministic.
    again = acyclic_partition(n, src, dst, k, node_weight=nw, arc_weight=aw)
    assert np.array_equal(labels, again)
    # Refinement never loses against the unrefined split.
    plain = acyclic_partition(n, src, dst, k, node_weight=nw, arc_weight=aw, refine=False)
    _check(plain, n, src, dst, k, nw)
    assert edge_cut(labels, src, dst, aw) <= edge_cut(plain, src, dst, aw) + 1e-9


@settings(max_examples=30, deadline=None)
@given(n=st.integers(40, 400), alpha=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_balance_within_ten_percent_when_nodes_are_light(n, alpha, seed):
    # Unit weights and at least 10 nodes per part: within 10 % of W / K.
    k = max(1, min(alpha * 4, n // 10))
    src, dst = _dag(n, seed)
    labels = acyclic_partition(n, src, dst, k)
    assert part_weights(labels, k).max() <= 1.1 * n / k + 1e-9
    _check(labels, n, src, dst, k, np.ones(n))


def test_baseline_properties():
    src, dst = _dag(500, 3)
    for k in (2, 8, 16):
        labels = topological_split(500, src, dst, k)
        _check(labels, 500, src, dst, k, np.ones(500))


@pytest.mark.parametrize("seed", range(4))
def test_cut_smaller_than_topological_split(seed):
    # The measured claim of benchmarks/partition.py, on small DAGs.
    src, dst = _dag(600, seed)
    for k in (4, 16):
        ours = edge_cut(acyclic_partition(600, src, dst, k), src, dst)
        baseline = edge_cut(topological_split(600, src, dst, k), src, dst)
        assert ours < baseline


def test_two_chains_are_not_cut():
    src, dst = [0, 2, 1, 3], [2, 4, 3, 5]
    labels = acyclic_partition(6, src, dst, 2)
    assert edge_cut(labels, src, dst) == 0
    assert sorted(np.bincount(labels).tolist()) == [3, 3]


def test_heavy_arcs_stay_inside():
    # Chain 0 -> 1 -> 2 -> 3 with a heavy middle arc: cut a light one.
    labels = acyclic_partition(4, [0, 1, 2], [1, 2, 3], 2, arc_weight=[1, 9, 1], epsilon=0.5)
    assert labels[1] == labels[2]
    assert (labels[[0, 1, 2]] <= labels[[1, 2, 3]]).all()


@pytest.mark.parametrize(
    ("n", "k"),
    [(0, 3), (1, 1), (1, 4), (3, 5), (5, 1), (7, 7)],
)
def test_edge_cases(n, k):
    src = np.arange(max(0, n - 1))
    dst = src + 1
    labels = acyclic_partition(n, src, dst, k)
    assert labels.shape == (n,)
    if n:
        _check(labels, n, src, dst, k, np.ones(n))
        assert len(np.unique(labels)) == min(n, k)


def test_zero_weights_balance_counts():
    labels = acyclic_partition(8, [], [], 4, node_weight=np.zeros(8))
    assert np.bincount(labels, minlength=4).tolist() == [2, 2, 2, 2]


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((3, [0, 1, 2], [1, 2, 0], 2), {}, "cycle"),
        ((3, [0], [5], 2), {}, "outside"),
        ((3, [0], [1], 0), {}, "n_parts"),
        ((3, [0], [1], 2), {"epsilon": -1}, "epsilon"),
        ((3, [0], [1], 2), {"node_weight": [1, -1, 1]}, "non-negative"),
        ((3, [0], [1], 2), {"arc_weight": [np.inf]}, "finite"),
        ((3, [0], [1], 2), {"node_weight": [1, 1]}, "shape"),
    ],
)
def test_bad_input(args, kwargs, match):
    with pytest.raises(MethodError, match=match):
        acyclic_partition(*args, **kwargs)


def test_partition_problem_uses_order_pairs_and_mean_costs():
    # The order pair 3 -> 0 must keep the quotient acyclic, though it moves no data.
    p = Problem.from_lists(
        [[1, 3], [2, 2], [1, 1], [4, 4]], [(0, 1, 5), (2, 3, 5)], order=[(3, 0)]
    )
    labels = partition_problem(p, 2)
    assert (labels[p.arc_src] <= labels[p.arc_dst]).all()
    assert quotient_is_acyclic(labels, p.arc_src, p.arc_dst)
    q = random_instance(60, 4, n_order=5, affinity=0.3, seed=2)
    labels = partition_problem(q, 8)
    _check(labels, 60, q.arc_src, q.arc_dst, 8, q.mean_cost())
