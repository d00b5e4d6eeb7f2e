"""Tests of heuristics.ranking: weightings, upward and downward ranks.

Expected values are computed by hand (see the comments) on tiny instances, and
on the sample DAG of Topcuoglu, Hariri and Wu (2002), whose ranks the paper lists.
"""

from __future__ import annotations

import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics.ranking import (
    WEIGHTINGS,
    downward_rank,
    mean_comm,
    optimistic_finish_time,
    ranks_from_weights,
    upward_rank,
    weights,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "topcuoglu2002.json"


@pytest.fixture(scope="module")
def topcuoglu() -> Problem:
    return load_instance(EXAMPLE)


def test_weightings_names():
    assert WEIGHTINGS == (
        "mean",
        "median",
        "best",
        "worst",
        "simple-best",
        "simple-worst",
        "optimistic",
        "speedup",
        "diff",
        "nc",
        "wm",
    )


# ---- the paper's example ----------------------------------------------------------


def test_topcuoglu_upward_mean(topcuoglu):
    # Topcuoglu et al. 2002, ranks of the Fig. 2 DAG (n1 .. n10).
    expected = [108.000, 77.000, 80.000, 80.000, 69.000, 63.333, 42.667, 35.667, 44.333, 14.667]
    np.testing.assert_allclose(upward_rank(topcuoglu), expected, atol=5e-4)
    np.testing.assert_allclose(upward_rank(topcuoglu, "mean"), expected, atol=5e-4)


def test_topcuoglu_downward_mean(topcuoglu):
    # By hand, mean costs w = [13, 50/3, 43/3, 38/3, 35/3, 38/3, 11, 10, 50/3, 44/3];
    # on 3 fully connected processors the mean arc weight is the data.
    # rank_d(n2) = 0 + 13 + 18 = 31, n3: 13 + 12 = 25, n4: 22, n5: 24, n6: 27,
    # n7 = n3 + 43/3 + 23 = 62.333, n8 = max(n2 + 50/3 + 19, n4 + 38/3 + 27,
    # n6 + 38/3 + 15) = 66.667, n9 = max(n2 + 50/3 + 16, n4 + 38/3 + 23,
    # n5 + 35/3 + 13) = 63.667, n10 = max(n7 + 11 + 17, n8 + 10 + 11, n9 + 50/3 + 13)
    # = 93.333, and rank_d(n10) + rank_u(n10) = 108 = |CP| (the CPOP identity).
    expected = [0, 31, 25, 22, 24, 27, 62.333, 66.667, 63.667, 93.333]
    np.testing.assert_allclose(downward_rank(topcuoglu), expected, atol=5e-4)


def test_topcuoglu_mean_weights(topcuoglu):
    node_w, arc_w = weights(topcuoglu, "mean")
    np.testing.assert_allclose(node_w[:3], [13, 50 / 3, 43 / 3])
    np.testing.assert_allclose(arc_w, topcuoglu.edge_data)  # one hop, bandwidth 1


# ---- a hand example for every weighting ---------------------------------------------
#
# Three processors on a "matrix" network with hops
#     H = [[0, 1, 2],
#          [1, 0, 3],
#          [2, 4, 0]]        (asymmetric: H[2, 1] = 4, H[1, 2] = 3)
# off-diagonal hops 1, 2, 1, 3, 2, 4: mean 13/6, median 2, min 1, max 4.
# Tasks: t0 costs [2, 4, 6]; t1 costs [4, 3, 9]; t2 costs [-, 5, 1] (affinity p1, p2).
# Arcs: a0 = t0 -> t1 carrying 2, a1 = t0 -> t2 carrying 1, a2 = order pair t1 -> t2.

HOPS = [[0, 1, 2], [1, 0, 3], [2, 4, 0]]


@pytest.fixture(scope="module")
def hand() -> Problem:
    return Problem.from_lists(
        [[2, 4, 6], [4, 3, 9], [5, 5, 1]],
        [(0, 1, 2), (0, 2, 1)],
        network={"topology": "matrix", "hops": HOPS},
        order=[(1, 2)],
        affinity={2: [1, 2]},
    )


def _f(*values):
    return [float(v) for v in values]


HAND = {
    # node: means 4, 16/3, 3; arcs 2 * 13/6, 1 * 13/6, 0.
    # rank_u: t2 = 3, t1 = 16/3 + 3, t0 = 4 + max(13/3 + 25/3, 13/6 + 3) = 50/3.
    "mean": (_f(4, F(16, 3), 3), _f(F(13, 3), F(13, 6), 0), _f(F(50, 3), F(25, 3), 3)),
    # node: medians 4, 4, (5 + 1) / 2; arcs 2 * 2, 1 * 2, 0.
    # rank_u: t2 = 3, t1 = 7, t0 = 4 + max(4 + 7, 2 + 3) = 15.
    "median": (_f(4, 4, 3), _f(4, 2, 0), _f(15, 7, 3)),
    # fastest: t0 on p0, t1 on p1, t2 on p2; arcs 2 * H[0, 1], 1 * H[0, 2].
    # rank_u: t2 = 1, t1 = 3 + 1, t0 = 2 + max(2 + 4, 2 + 1) = 8.
    "best": (_f(2, 3, 1), _f(2, 2, 0), _f(8, 4, 1)),
    # slowest: t0 on p2, t1 on p2, t2 on p1; a0 has no pair of distinct slowest
    # processors (both only p2): 0; a1 = 1 * H[2, 1] = 4.
    # rank_u: t2 = 5, t1 = 9 + 5, t0 = 6 + max(0 + 14, 4 + 5) = 20.
    "worst": (_f(6, 9, 5), _f(0, 4, 0), _f(20, 14, 5)),
    # least hops between distinct allowed processors, whatever the node weights:
    # a0: min H off-diagonal = 1 -> 2; a1: q in {p1, p2}: min(H01, H21, H02, H12) = 1.
    # rank_u: t2 = 1, t1 = 4, t0 = 2 + max(2 + 4, 1 + 1) = 8.
    "simple-best": (_f(2, 3, 1), _f(2, 1, 0), _f(8, 4, 1)),
    # a0: max H off-diagonal = 4 -> 8; a1: max(H01, H21, H02, H12) = 4.
    # rank_u: t2 = 5, t1 = 14, t0 = 6 + max(8 + 14, 4 + 5) = 28.
    "simple-worst": (_f(6, 9, 5), _f(8, 4, 0), _f(28, 14, 5)),
    # OFT(t0) = [2, 4, 6]; arrival at t1 over a0 (unit 2): [2, 4, 6], OFT(t1) = [6, 7, 15];
    # t2: over a1 [2, 3, 4], over the order pair min OFT(t1) = 6: OFT(t2) = [-, 11, 7].
    # Ideal processors p0, p0, p2 (t1 is NOT on its fastest processor p1):
    # nodes 2, 4, 1; arcs 2 * H[0, 0] = 0, 1 * H[0, 2] = 2.
    # rank_u: t2 = 1, t1 = 4 + 1, t0 = 2 + max(0 + 5, 2 + 1) = 7.
    "optimistic": (_f(2, 4, 1), _f(0, 2, 0), _f(7, 5, 1)),
    # slowest / fastest: 6/2, 9/3, 5/1; no arc weights. rank_u: 5, 8, 11.
    "speedup": (_f(3, 3, 5), _f(0, 0, 0), _f(11, 8, 5)),
    # slowest - fastest: 4, 6, 4. rank_u: 4, 10, 14.
    "diff": (_f(4, 6, 4), _f(0, 0, 0), _f(14, 10, 4)),
    # diff / speedup: 4/3, 2, 4/5. rank_u: t2 = 4/5, t1 = 14/5, t0 = 4/3 + 14/5.
    "nc": (_f(F(4, 3), 2, F(4, 5)), _f(0, 0, 0), _f(F(4, 3) + F(14, 5), F(14, 5), F(4, 5))),
    # chances proportional to 1/cost: t0 [6, 3, 2]/11, t1 [9, 12, 4]/25, t2 [0, 1, 5]/6.
    # nodes: harmonic means 3 / (1/2 + 1/4 + 1/6) = 36/11, 3 / (25/36) = 108/25,
    # 2 / (6/5) = 5/3. a0 = 2 * pi0 H pi1 = 2 * (6*20 + 3*21 + 2*66) / (11*25) = 126/55;
    # a1 = pi0 H pi2 = (6*11 + 3*15 + 2*4) / (11*6) = 119/66.
    # rank_u: t2 = 5/3, t1 = 108/25 + 5/3, t0 = 36/11 + max(126/55 + t1, 119/66 + t2).
    "wm": (
        _f(F(36, 11), F(108, 25), F(5, 3)),
        _f(F(126, 55), F(119, 66), 0),
        _f(F(36, 11) + F(126, 55) + F(108, 25) + F(5, 3), F(108, 25) + F(5, 3), F(5, 3)),
    ),
}


def test_hand_table_covers_every_weighting():
    assert set(HAND) == set(WEIGHTINGS)


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_hand_weights(hand, weighting):
    node_expected, arc_expected, rank_expected = HAND[weighting]
    node_w, arc_w = weights(hand, weighting)
    np.testing.assert_allclose(node_w, node_expected, rtol=1e-10)
    np.testing.assert_allclose(arc_w, arc_expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(upward_rank(hand, weighting), rank_expected, rtol=1e-10)


def test_hand_downward_mean(hand):
    # rank_d: t0 = 0; t1 = 0 + 4 + 13/3; t2 = max(0 + 4 + 13/6, 25/3 + 16/3 + 0) = 41/3.
    np.testing.assert_allclose(downward_rank(hand), [0, 25 / 3, 41 / 3])


def test_hand_downward_worst(hand):
    # rank_d: t0 = 0; t1 = 0 + 6 + 0; t2 = max(0 + 6 + 4, 6 + 9 + 0) = 15.
    np.testing.assert_allclose(downward_rank(hand, "worst"), [0, 6, 15])


def test_optimistic_finish_time_table(hand):
    oft = optimistic_finish_time(hand)
    np.testing.assert_allclose(oft, [[2, 4, 6], [6, 7, 15], [np.inf, 11, 7]])


# ---- affinity, order pairs, accelerated nodes -----------------------------------------


def test_mean_uses_allowed_processors_only():
    p = Problem.from_lists([[2, 4, 100], [1, 1, 1]], n_processors=3, affinity={0: [0, 1]})
    node_w, _ = weights(p)
    assert node_w.tolist() == [3.0, 1.0]


def test_mean_comm_counts_all_distinct_pairs_despite_affinity():
    # Affinity does not restrict the pairs (the definition).
    p = Problem.from_lists(
        [[1, 1, 1], [1, 1, 1]],
        [(0, 1, 6)],
        network={"topology": "matrix", "hops": HOPS},
        affinity={0: [0], 1: [1]},
    )
    assert mean_comm(p).tolist() == [6 * 13 / 6]


def test_order_pairs_weigh_zero_in_every_weighting():
    p = random_instance(30, 4, topology="mesh", n_order=8, seed=5)
    n_data = len(p.edge_src)
    assert p.n_edges > n_data  # some order pairs became arcs
    for weighting in WEIGHTINGS:
        _, arc_w = weights(p, weighting)
        assert np.all(arc_w[n_data:] == 0), weighting


def test_order_pair_only_chain():
    # An order pair constrains the ranks like an edge with no data.
    p = Problem.from_lists([3, 4], n_processors=2, order=[(0, 1)])
    assert upward_rank(p).tolist() == [7.0, 4.0]
    assert downward_rank(p).tolist() == [0.0, 3.0]


def test_accelerated_node_mean_counts_cpu_pairs_at_zero():
    # 3 CPUs + 1 GPU: 12 ordered distinct pairs, the 6 CPU-CPU ones cost 0 (shared
    # memory), the 6 involving the GPU one hop: mean hops 6/12, so data 10 -> 5.
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [
                {"id": "c0", "type": "cpu"},
                {"id": "c1", "type": "cpu"},
                {"id": "c2", "type": "cpu"},
                {"id": "g", "type": "gpu"},
            ],
            "network": {"topology": "accelerated-node"},
        },
        "tasks": [{"id": "a", "cost": {"cpu": 8, "gpu": 2}}, {"id": "b", "cost": 4}],
        "edges": [{"src": "a", "dst": "b", "data": 10}],
    }
    p = load_instance(doc)
    assert mean_comm(p).tolist() == [5.0]
    assert upward_rank(p).tolist() == [(8 * 3 + 2) / 4 + 5 + 4, 4.0]
    # best: a fastest on the GPU, b anywhere (ties) -> b can share the GPU: 0.
    assert weights(p, "best")[1].tolist() == [0.0]
    # worst: a slowest on the CPUs, b on any processor: distinct, largest hop 1.
    assert weights(p, "worst")[1].tolist() == [10.0]
    # simple-best: two distinct CPUs cost 0.
    assert weights(p, "simple-best")[1].tolist() == [0.0]
    # wm: a on the GPU with chance 4/7 (speeds 1/8, 1/8, 1/8, 1/2), b uniform.
    # Expected hops: P(a on GPU) * 3/4 + P(a on a CPU) * 1/4 = 4/7 * 3/4 + 3/7 * 1/4.
    assert weights(p, "wm")[1].tolist() == pytest.approx([10 * (12 / 28 + 3 / 28)])


def test_wm_matches_the_paper_two_type_formula():
    # HOFT paper eqs. (6) and (7) on P_C CPUs and P_G GPUs with a constant
    # CPU-GPU / GPU-GPU delay c and CPU-CPU delay 0 (accelerated node).
    p_c, p_g = 3, 2
    w = {"t0": (12.0, 3.0), "t1": (5.0, 5.0)}  # (CPU, GPU) times
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"c{k}", "type": "cpu"} for k in range(p_c)]
            + [{"id": f"g{k}", "type": "gpu"} for k in range(p_g)],
            "network": {"topology": "accelerated-node"},
        },
        "tasks": [{"id": t, "cost": {"cpu": c, "gpu": g}} for t, (c, g) in w.items()],
        "edges": [{"src": "t0", "dst": "t1", "data": 7}],
    }
    p = load_instance(doc)
    r = {t: c / g for t, (c, g) in w.items()}
    node = [(c * p_c + r[t] * g * p_g) / (p_c + r[t] * p_g) for t, (c, g) in w.items()]
    a_cc, a_cg, a_gg = p_c * (p_c - 1), p_c * p_g, p_g * (p_g - 1)
    ri, rj, c = r["t0"], r["t1"], 7.0
    arc = (a_cc * 0 + a_cg * (ri * c + rj * c) + ri * rj * a_gg * c) / (
        (ri * p_g + p_c) * (rj * p_g + p_c)
    )
    node_w, arc_w = weights(p, "wm")
    np.testing.assert_allclose(node_w, node)
    np.testing.assert_allclose(arc_w, [arc])


def test_wm_equals_mean_nodes_on_identical_processors():
    p = Problem.from_lists([3, 5], [(0, 1, 4)], n_processors=4)
    np.testing.assert_allclose(weights(p, "wm")[0], weights(p, "mean")[0])
    # Same-processor pairs count with delay 0, as in eq. (7): (P - 1) / P of the mean.
    np.testing.assert_allclose(weights(p, "wm")[1], weights(p, "mean")[1] * 3 / 4)


# ---- edge cases -------------------------------------------------------------------------


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_single_task_single_processor(weighting):
    p = Problem.from_lists([[5]])
    node_w, arc_w = weights(p, weighting)
    assert arc_w.shape == (0,)
    rank = upward_rank(p, weighting)
    assert rank.tolist() == [node_w[0]]
    assert downward_rank(p, weighting).tolist() == [0.0]


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_one_processor_has_no_communication(weighting):
    p = Problem.from_lists([[2], [3], [4]], [(0, 1, 9), (1, 2, 9)])
    _, arc_w = weights(p, weighting)
    assert arc_w.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_zero_costs(weighting):
    p = Problem.from_lists([[0, 0], [0, 3], [0, 0]], [(0, 1, 0), (1, 2, 2)])
    node_w, arc_w = weights(p, weighting)
    rank = upward_rank(p, weighting)
    assert not np.isnan(node_w).any() and not np.isnan(arc_w).any()
    assert not np.isnan(rank).any()
    assert np.all(rank >= 0)


def test_zero_cost_special_values():
    p = Problem.from_lists([[0, 0], [0, 3]])
    # x / 0 counts as the largest finite ratio (at least 1), so ranks stay finite.
    assert weights(p, "speedup")[0].tolist() == [1.0, 1.0]
    q = Problem.from_lists([[1, 4], [0, 3]])
    assert weights(q, "speedup")[0].tolist() == [4.0, 4.0]
    assert weights(p, "nc")[0].tolist() == [0.0, 0.0]
    assert weights(p, "wm")[0].tolist() == [0.0, 0.0]  # the zero-cost processor wins


def test_no_edges():
    p = Problem.from_lists([[1, 2], [3, 4], [5, 9]])
    assert upward_rank(p).tolist() == [1.5, 3.5, 7.0]
    assert downward_rank(p).tolist() == [0.0, 0.0, 0.0]


# ---- properties on random instances ---------------------------------------------------


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_rank_recursions_hold(topology, weighting):
    p = random_instance(25, 4, topology=topology, n_order=3, affinity=0.3, seed=11)
    node_w, arc_w = weights(p, weighting)
    assert node_w.shape == (p.n_tasks,) and arc_w.shape == (p.n_edges,)
    assert np.all(np.isfinite(node_w)) and np.all(node_w >= 0)
    assert np.all(np.isfinite(arc_w)) and np.all(arc_w >= 0)
    up, down = upward_rank(p, weighting), downward_rank(p, weighting)
    src, dst = p.arc_src, p.arc_dst
    # rank_u(i) >= w_i + c_ij + rank_u(j) and rank_d(j) >= rank_d(i) + w_i + c_ij on every arc,
    # with equality on some arc (or at the boundary) for every task.
    assert np.all(up[src] >= node_w[src] + arc_w + up[dst] - 1e-9)
    assert np.all(down[dst] >= down[src] + node_w[src] + arc_w - 1e-9)
    tight_up = np.full(p.n_tasks, False)
    tight_up[p.exit_tasks] = np.isclose(up[p.exit_tasks], node_w[p.exit_tasks])
    tight_up[src[np.isclose(up[src], node_w[src] + arc_w + up[dst])]] = True
    assert tight_up.all()
    assert np.all(down[p.entry_tasks] == 0)
    # CPOP identity: the longest path equals max(rank_u + rank_d) = max rank_u.
    assert np.isclose((up + down).max(), up.max())


def test_ranks_respect_precedence():
    # Positive node weights make rank_u strictly larger than any successor's.
    p = random_instance(40, 3, topology="torus", seed=2)
    up = upward_rank(p)
    assert np.all(up[p.arc_src] > up[p.arc_dst])


def test_deterministic():
    p = random_instance(30, 4, topology="hypercube", affinity=0.2, seed=4)
    for weighting in WEIGHTINGS:
        a, b = upward_rank(p, weighting), upward_rank(p, weighting)
        assert np.array_equal(a, b)


# ---- errors ---------------------------------------------------------------------------


def test_unknown_weighting(hand):
    with pytest.raises(MethodError, match="unknown weighting 'average'"):
        weights(hand, "average")
    with pytest.raises(MethodError, match="unknown weighting"):
        upward_rank(hand, "Mean")


def test_bad_direction(hand):
    node_w, arc_w = weights(hand)
    with pytest.raises(MethodError, match="direction"):
        ranks_from_weights(hand, node_w, arc_w, "sideways")


def test_bad_shapes(hand):
    with pytest.raises(MethodError, match="node weights"):
        ranks_from_weights(hand, [1, 2], [0, 0, 0])
    with pytest.raises(MethodError, match="arc weights"):
        ranks_from_weights(hand, [1, 2, 3], [0])


# ---- speed ----------------------------------------------------------------------------


def test_mean_rank_is_fast_on_5000_tasks():
    rng = np.random.default_rng(0)
    n, n_arcs, n_procs = 5000, 25000, 50
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < n_arcs:
        a = rng.integers(0, n - 1, size=n_arcs)
        b = a + 1 + rng.integers(0, 200, size=n_arcs)
        pairs.update((int(x), int(y)) for x, y in zip(a, b, strict=True) if y < n)
    edges = [(a, b, 3.0) for a, b in sorted(pairs)[:n_arcs]]
    costs = rng.integers(1, 20, size=(n, n_procs)).astype(float).tolist()
    p = Problem.from_lists(costs, edges, network={"topology": "mesh", "dims": [5, 10]})
    assert p.n_edges == n_arcs
    started = time.perf_counter()
    up = upward_rank(p)
    elapsed = time.perf_counter() - started
    assert np.all(up[p.arc_src] > up[p.arc_dst])
    # Typically ~6 ms; the generous bound keeps a busy machine from failing the test.
    assert elapsed < 0.2
