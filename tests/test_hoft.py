"""Tests of heuristics.hoft: hand-computed OFT tables, HOFT's ranking and selection,
the three registered methods (heft-wm, hoft, hoft-wm) on the whole model, and a
naive reference implementation of the OFT on random networked instances."""

import numpy as np
import pytest
from shared_cases import small_zoo

import exactsched
from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import TOPOLOGIES, random_instance
from exactsched.workloads.cholesky import cholesky_instance
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.hoft import (
    child_estimates,
    heft_wm,
    hoft,
    hoft_priority,
    hoft_select,
    hoft_wm,
    optimistic_finish_time,
)
from topologies import platform_preset

METHODS = ("heft-wm", "hoft", "hoft-wm")
TOPCUOGLU = "examples/topcuoglu2002.json"


def naive_oft(problem: Problem) -> np.ndarray:
    """OFT straight from its definition, one task, processor and parent at a time."""
    n, n_procs = problem.n_tasks, problem.n_processors
    oft = np.full((n, n_procs), np.nan)
    for t in problem.topological_order.tolist():
        for p in range(n_procs):
            worst = 0.0
            for k in range(problem.pred_ptr[t], problem.pred_ptr[t + 1]):
                a = int(problem.pred_arcs[k])
                s = int(problem.arc_src[a])
                worst = max(
                    worst,
                    min(oft[s, q] + problem.comm(a, q, p) for q in range(n_procs)),
                )
            oft[t, p] = problem.cost[t, p] + worst
    return oft


def _chain() -> Problem:
    # t0 -> t1 (data 4) -> t2 (data 2) on two fully connected processors.
    return Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])


# --------------------------------------------------------------------------- OFT table


def test_oft_hand_computed_chain():
    # OFT(t1, p0) = 3 + min(2 + 0, 1 + 4) = 5; OFT(t1, p1) = 6 + min(2 + 4, 1 + 0) = 7;
    # OFT(t2, p0) = 1 + min(5, 7 + 2) = 6;      OFT(t2, p1) = 1 + min(5 + 2, 7) = 8.
    assert optimistic_finish_time(_chain()).tolist() == [[2, 1], [5, 7], [6, 8]]


def test_oft_join_takes_the_worst_parent_and_multi_hop_delays():
    # Three processors on a line (mesh [3]): hops(p0, p2) = 2. Parents a, b -> c.
    p = Problem.from_lists(
        [[1, 5, 5], [5, 5, 1], [1, 1, 1]],
        [(0, 2, 3), (1, 2, 3)],
        network={"topology": "mesh", "dims": [3]},
    )
    # a finishes at 1 on p0, b at 1 on p2; c on p1 waits 1 + 3 from either: 4 + 1 = 5.
    # c on p0: a is local (1), b is 2 hops away (1 + 6 = 7, or 5 on p0): 5 + 1 = 6.
    assert optimistic_finish_time(p).tolist() == [[1, 5, 5], [5, 5, 1], [6, 5, 6]]


def test_oft_affinity_is_inf_and_avoided():
    p = Problem.from_lists([[1, 9], [1, 1]], [(0, 1, 4)], affinity={0: [1]})
    oft = optimistic_finish_time(p)
    assert oft[0].tolist() == [np.inf, 9]
    # t1 on p0 must wait for t0 on p1 plus the delay 4.
    assert oft[1].tolist() == [14, 10]


def test_oft_order_pairs_carry_no_delay():
    p = Problem.from_lists([[2, 3], [1, 1]], order=[(0, 1)])
    assert optimistic_finish_time(p).tolist() == [[2, 3], [3, 3]]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_oft_matches_the_definition_on_random_networks(topology):
    p = random_instance(
        14, 4, topology=topology, ccr=2.0, n_order=2, affinity=0.3, latency=1, seed=7
    )
    np.testing.assert_allclose(optimistic_finish_time(p), naive_oft(p))


def test_oft_batches_agree_with_one_batch(monkeypatch):
    import heuristics._tables as module

    p = random_instance(40, 4, topology="torus", ccr=1.0, seed=3)
    whole = optimistic_finish_time(p)
    monkeypatch.setattr(module, "_BATCH_ELEMENTS", 16)  # one arc per batch
    np.testing.assert_array_equal(optimistic_finish_time(p), whole)


@pytest.mark.parametrize("method", METHODS)
def test_oft_is_a_lower_bound_on_every_finish(method):
    p = random_instance(20, 4, topology="mesh", ccr=1.5, n_isolation=2, seed=11)
    oft = optimistic_finish_time(p)
    proc, _, finish = exactsched.solve(p, method).schedule.arrays(p)
    assert np.all(finish >= oft[np.arange(p.n_tasks), proc] - 1e-9)


# --------------------------------------------------------------------------- ranking


def test_priority_is_upward_rank_of_oft_ratios():
    # Ratios max/min OFT: 2/1, 7/5, 8/6; arcs weigh nothing.
    r2 = 8 / 6
    expected = [2 + 7 / 5 + r2, 7 / 5 + r2, r2]
    np.testing.assert_allclose(hoft_priority(_chain()), expected)


def test_priority_of_identical_processors_counts_levels():
    p = Problem.from_lists([3, 3, 3, 3], [(0, 1, 1), (1, 2, 1), (0, 3, 5)], n_processors=2)
    assert hoft_priority(p).tolist() == [3, 2, 1, 1]


def test_priority_with_zero_costs_stays_finite():
    # t0 costs 0 on p0 only (0 / 0 does not arise, x / 0 does).
    p = Problem.from_lists([[0, 4], [0, 0], [2, 1]], [(0, 2, 0)])
    prio = hoft_priority(p)
    assert np.all(np.isfinite(prio))
    # Ratios: t0 4/0 -> the largest finite ratio (t2: 2/1 = 2), t1 0/0 -> 1.
    assert prio.tolist() == [4, 1, 2]


def test_priorities_respect_precedence():
    p = random_instance(30, 4, topology="accelerated-node", ccr=1.0, seed=5)
    prio = hoft_priority(p)
    assert np.all(prio[p.arc_src] > prio[p.arc_dst])


# --------------------------------------------------------------------------- selection


def test_child_estimates_hand_computed():
    # t0's child t1 prefers p0 (OFT 5 < 7): from p0 it costs 3, from p1 4 + 3.
    # t1's child t2 prefers p0 (6 < 8): 1 from p0, 2 + 1 from p1. t2 is an exit task.
    assert child_estimates(_chain()).tolist() == [[3, 7], [1, 3], [0, 0]]


def test_child_estimates_take_the_best_of_tied_preferred_processors():
    # The child has the same OFT (3) on p1 and p2. "other": from p1 it goes to p2,
    # 5 + 2 = 7; "any": from p1 it may stay on p1, 0 + 2.
    p = Problem.from_lists([[1, 1, 1], [9, 2, 2]], [(0, 1, 5)])
    assert child_estimates(p)[0].tolist() == [7, 7, 7]
    assert child_estimates(p, child_processor="any")[0].tolist() == [7, 2, 2]


def test_child_estimates_share_the_only_preferred_processor():
    # t1's only preferred processor is p0: from p0 it stays there even for "other";
    # "paper" too, as a fully-connected network prices transfers by position, not
    # by type, so it has no "other processor of p0's type" to charge.
    for mode in ("paper", "other", "any"):
        assert child_estimates(_chain(), child_processor=mode).tolist() == [
            [3, 7],
            [1, 3],
            [0, 0],
        ]


def test_child_estimates_are_the_papers_on_a_cpu_gpu_node():
    # Two CPUs and two GPUs (accelerated-node: CPU-CPU 0 hops, else 1): c_ij(C, C) = 0,
    # c_ij(C, G) = c_ij(G, C) = c_ij(G, G) = data, as in [McSweeney et al. 2020, sec. 3].
    platform = {
        "processors": [{"id": f"c{k}", "type": "cpu"} for k in range(2)]
        + [{"id": f"g{k}", "type": "gpu"} for k in range(2)],
        "network": {"topology": "accelerated-node"},
    }
    doc = {
        "format": "exactsched/instance@1",
        "platform": platform,
        "tasks": [
            {"id": "t", "cost": {"cpu": 10, "gpu": 1}},
            {"id": "gpu-child", "cost": {"cpu": 50, "gpu": 2}},
            {"id": "cpu-child", "cost": {"cpu": 3, "gpu": 30}},
        ],
        "edges": [
            {"src": "t", "dst": "gpu-child", "data": 6},
            {"src": "t", "dst": "cpu-child", "data": 4},
        ],
    }
    p = Problem.from_json(doc)
    # From a CPU: max(c(C, G) + w_G, c(C, C) + w_C) = max(6 + 2, 0 + 3) = 8.
    # From a GPU: max(c(G, G) + w_G, c(G, C) + w_C) = max(6 + 2, 4 + 3) = 8.
    assert child_estimates(p)[0].tolist() == [8, 8, 8, 8]
    # Sharing the GPU would drop c(G, G): max(2, 7) = 7.
    assert child_estimates(p, child_processor="any")[0].tolist() == [8, 8, 7, 7]
    # With one GPU the model still prices c(G, G) (eq. (11) and the simulator
    # charge it); "other" lets the gpu-child share the only GPU instead.
    platform["processors"] = platform["processors"][:3]
    one = Problem.from_json(doc)
    assert child_estimates(one)[0].tolist() == [8, 8, 8]
    assert child_estimates(one, child_processor="other")[0].tolist() == [8, 8, 7]


def test_child_estimates_reject_unknown_mode():
    with pytest.raises(MethodError, match="child_processor"):
        child_estimates(_chain(), child_processor="same")


def _crossing_builder():
    # t1 is fastest on p0, which t3 keeps busy until 15; its child t2 is fast on p0.
    p = Problem.from_lists([[1, 1], [1, 2], [1, 9], [14, 14]], [(0, 1), (1, 2, 20)])
    b = ScheduleBuilder(p)
    b.place(0, 0)
    b.place(3, 0)
    return p, b


def test_selection_crossing_conditions():
    p, b = _crossing_builder()
    # EFT (16, 3): s_m = 13; child terms M = (1, 21): E(Ch|p1) = 24 > E(Ch|p0) = 17.
    assert b.eft(1)[1].tolist() == [16, 3]
    assert hoft_select(p)(b, 1) == 0  # expected child finish would grow: stay fastest
    assert hoft_select(p, condition="printed")(b, 1) == 1  # 13 > 24 - 17


def test_selection_keeps_least_eft_when_it_is_fastest():
    p = Problem.from_lists([[1, 5], [1, 5]], [(0, 1, 100)])
    b = ScheduleBuilder(p)
    assert hoft_select(p)(b, 0) == 0


def test_selection_keeps_least_eft_without_children_when_strictly_earlier():
    p = Problem.from_lists([[1, 2], [9, 9]])
    b = ScheduleBuilder(p)
    b.place(1, 0)
    # t0: EFT (10, 2); no children, so E(Ch|p) = EFT and p1 wins.
    assert hoft_select(p)(b, 0) == 1
    assert hoft_select(p, condition="printed")(b, 0) == 1


def test_selection_rejects_unknown_condition():
    with pytest.raises(MethodError, match="condition"):
        hoft_select(_chain(), condition="literal")


# --------------------------------------------------------------------------- methods


def test_registered():
    for name in METHODS:
        info = exactsched.get_method(name)
        assert info.kind == "heuristic"
        assert "McSweeney" in info.source


def test_topcuoglu_makespans():
    """Recorded makespans on Topcuoglu et al.'s Fig. 2 DAG (HEFT: 80).

    HOFT's OFT ranking with HEFT's selection gives 78. HOFT's selection then
    moves n2 and n3 from p3 and p2 to p1, their fastest processor, because their
    children n8 and n7 are expected to run fast there (on p1, from OFT); n8 and
    n7 then queue on p1 and the exit task finishes at 89. Eq. (11) as printed
    keeps n3 on p2 (saving 12 > 69 - 58 = 11) and reaches 76. HEFT-WM's order
    (n1, n2, n3, n4, ...) with HEFT's selection gives 80, with HOFT's (n2 and n3
    again moved to p1) 82. This DAG has no CPU/GPU binary heterogeneity, the
    case HOFT is designed for.
    """
    p = load_instance(TOPCUOGLU)
    assert list_schedule(p, hoft_priority(p)).makespan == 78
    assert hoft(p).makespan == 89
    assert hoft(p, condition="printed").makespan == 76
    assert hoft(p, child_processor="any").makespan == 89
    assert heft_wm(p).makespan == 80
    assert hoft_wm(p).makespan == 82
    assert hoft_wm(p, condition="printed").makespan == 80
    for name in METHODS:
        s = exactsched.solve(p, name).schedule
        assert validate(p, s) == []


def test_hoft_wm_is_hoft_with_the_wm_ranking():
    p = random_instance(25, 6, topology="accelerated-node", ccr=0.5, seed=2)
    assert hoft_wm(p) == hoft(p, ranking="wm")


def _zoo() -> list[tuple[str, Problem]]:
    return [*small_zoo(), ("chain", _chain())]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("name", "problem"), _zoo(), ids=[z[0] for z in _zoo()])
def test_valid_schedules_on_the_zoo(method, name, problem):
    result = exactsched.solve(problem, method)
    assert validate(problem, result.schedule) == []
    assert result.makespan >= result.lower_bound - 1e-9


@pytest.mark.parametrize("method", METHODS)
def test_cpu_gpu_platform(method):
    import networkx as nx

    rng = np.random.default_rng(8)
    g = nx.gn_graph(30, seed=8).reverse()
    for v in g.nodes:
        gpu = float(rng.integers(1, 10))
        g.nodes[v]["cost"] = {"cpu": gpu * float(rng.integers(2, 20)), "gpu": gpu}
    for u, v in g.edges:
        g.edges[u, v]["data"] = float(rng.integers(0, 20))
    p = Problem.from_networkx(g, platform_preset("hoft-single-gpu"))
    s = exactsched.solve(p, method).schedule
    assert validate(p, s) == []


def test_hoft_respects_affinity_isolation_and_order():
    p = Problem.from_lists(
        [[1, 2, 3], [2, 2, 2], [4, 1, 1], [2, 3, 1]],
        [(0, 1, 3), (0, 2, 1)],
        order=[(1, 3)],
        isolation=[(2, 3), (1, 2)],
        affinity={2: [1, 2], 3: [0]},
    )
    for method in METHODS:
        s = exactsched.solve(p, method).schedule
        assert validate(p, s) == []
        assert s["t3"].processor == "p0"
        assert s["t3"].start >= s["t1"].finish


@pytest.mark.parametrize("method", METHODS)
def test_deterministic(method):
    p = random_instance(30, 4, topology="torus", ccr=1.0, n_isolation=2, seed=9)
    assert exactsched.solve(p, method).schedule == exactsched.solve(p, method).schedule


def test_no_insertion_is_valid():
    p = random_instance(20, 3, ccr=1.0, seed=1)
    for func in (heft_wm, hoft, hoft_wm):
        assert validate(p, func(p, insertion=False)) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ranking": "oct"}, "ranking"),
        ({"condition": "both"}, "condition"),
        ({"child_processor": "same"}, "child_processor"),
        ({"insertion": "yes"}, "insertion"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(MethodError, match=match):
        hoft(_chain(), **kwargs)


def test_unknown_option_through_solve():
    with pytest.raises(MethodError, match="not an option"):
        exactsched.solve(_chain(), "hoft-wm", ranking="oft")


def test_oft_agrees_with_the_ranking_module():
    # heuristics.ranking keeps its own OFT for the "optimistic" weighting.
    from heuristics import ranking

    p = random_instance(30, 6, topology="mesh", ccr=1.0, seed=12)
    np.testing.assert_array_equal(optimistic_finish_time(p), ranking.optimistic_finish_time(p))


@pytest.mark.parametrize("tiles, tile_size", [(5, 128), (10, 128), (5, 1024), (10, 1024)])
def test_on_one_gpu_hofts_selection_is_hefts_as_the_paper_reports(tiles, tile_size):
    """McSweeney et al. 2020, sec. 6: on their Cholesky DAGs HOFT's processor
    selection never differed from HEFT's, and HOFT-WM equalled HEFT-WM. On a
    node with one GPU that holds only if eq. (11) charges ``c(G, G)`` for a child
    that prefers the GPU (``child_processor="paper"``); letting the child share
    the GPU for free (``"other"``) moved tasks to the cores and lost up to 13 %."""
    p = cholesky_instance(tiles, "hoft-single-gpu", tile_size=tile_size, integral=False)
    assert hoft(p).makespan == list_schedule(p, hoft_priority(p)).makespan
    assert hoft_wm(p).makespan == heft_wm(p).makespan
    for schedule in (hoft(p), hoft_wm(p), hoft(p, child_processor="other")):
        assert validate(p, schedule) == []
