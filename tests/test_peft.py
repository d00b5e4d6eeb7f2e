"""Tests of heuristics.peft: hand-computed OCT tables, the sample DAG of Arabnejad and
Barbosa, the rank options, the two registered methods (peft, peft-nc) on the whole
model, and a naive reference implementation of the OCT on random networked instances."""

import numpy as np
import pytest
from shared_cases import small_zoo

import exactsched
from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.peft import oct_rank, oeft_select, optimistic_cost_table, peft, peft_nc
from heuristics.ranking import mean_comm, upward_rank

METHODS = ("peft", "peft-nc")
TOPCUOGLU = "examples/topcuoglu2002.json"


def naive_oct(problem: Problem, unit=None, hops=None) -> np.ndarray:
    """OCT straight from its definition, one task, processor and child at a time."""
    n, n_procs = problem.n_tasks, problem.n_processors
    unit = problem.arc_unit if unit is None else unit
    hops = problem.hops if hops is None else hops
    table = np.full((n, n_procs), np.nan)
    for t in problem.topological_order[::-1].tolist():
        for p in range(n_procs):
            worst = 0.0
            for k in range(problem.succ_ptr[t], problem.succ_ptr[t + 1]):
                a = int(problem.succ_arcs[k])
                c = int(problem.arc_dst[a])
                worst = max(
                    worst,
                    min(
                        table[c, q] + problem.cost[c, q] + unit[a] * hops[p, q]
                        for q in range(n_procs)
                    ),
                )
            table[t, p] = worst
    return table


def _chain() -> Problem:
    # t0 -> t1 (data 4) -> t2 (data 2) on two fully connected processors.
    return Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])


# The sample DAG of Arabnejad and Barbosa (TPDS 2014: 10 tasks, 3 processors, fully
# connected with unit bandwidth; the DAG of Topcuoglu et al.'s Fig. 2 with other costs
# and data), tasks T1..T10 here t0..t9. Costs, data, the
# OCT table and the PEFT schedule below are those of the test suite of the open-source
# PEFT implementation github.com/mackncheesiest/peft (test/peftgraph_*.csv and
# peft/test/test_peft.py), which takes the instance from that paper; the paper's own
# tables could not be consulted to confirm them.
PEFT_COSTS = [
    [22, 21, 36],
    [22, 18, 18],
    [32, 27, 43],
    [7, 10, 4],
    [29, 27, 35],
    [26, 17, 24],
    [14, 25, 30],
    [29, 23, 36],
    [15, 21, 8],
    [13, 16, 33],
]
PEFT_EDGES = [
    (0, 1, 17),
    (0, 2, 31),
    (0, 3, 29),
    (0, 4, 13),
    (0, 5, 7),
    (1, 7, 3),
    (1, 8, 30),
    (2, 6, 16),
    (3, 7, 11),
    (3, 8, 7),
    (4, 8, 57),
    (5, 7, 5),
    (6, 9, 9),
    (7, 9, 42),
    (8, 9, 7),
]
PEFT_OCT = [
    [64, 68, 86],
    [42, 39, 42],
    [27, 41, 43],
    [42, 39, 50],
    [28, 37, 28],
    [42, 39, 44],
    [13, 16, 22],
    [13, 16, 33],
    [13, 16, 20],
    [0, 0, 0],
]
# task: (processor, start, finish)
PEFT_SCHEDULE = {
    0: (0, 0, 22),
    1: (0, 29, 51),
    2: (0, 51, 83),
    3: (0, 22, 29),
    4: (2, 35, 70),
    5: (1, 29, 46),
    6: (0, 83, 97),
    7: (1, 54, 77),
    8: (2, 81, 89),
    9: (1, 106, 122),
}


def _peft_sample() -> Problem:
    return Problem.from_lists(PEFT_COSTS, PEFT_EDGES, name="arabnejad-barbosa-2014-fig2")


# --------------------------------------------------------------------------- OCT table


def test_oct_hand_computed_chain():
    # OCT(t1, p) = min_q (w(t2, q) + 2 [p != q]) = 1 on both.
    # OCT(t0, p0) = min(1 + 3, 1 + 6 + 4) = 4; OCT(t0, p1) = min(1 + 3 + 4, 1 + 6) = 7.
    assert optimistic_cost_table(_chain()).tolist() == [[4, 7], [1, 1], [0, 0]]


def test_oct_fork_takes_the_worst_child_and_multi_hop_delays():
    # Three processors on a line (mesh [3]); children b (fast on p2) and c (fast on p0).
    p = Problem.from_lists(
        [[1, 1, 1], [5, 5, 1], [1, 5, 5]],
        [(0, 1, 3), (0, 2, 3)],
        network={"topology": "mesh", "dims": [3]},
    )
    # From p0: b costs min(5, 5 + 3, 1 + 6) = 5, c costs 1 -> 5.
    # From p1: b min(5 + 3, 5, 1 + 3) = 4, c min(1 + 3, 5, 5 + 3) = 4 -> 4.
    # From p2: b 1, c min(1 + 6, 5 + 3, 5) = 5 -> 5.
    assert optimistic_cost_table(p).tolist() == [[5, 4, 5], [0, 0, 0], [0, 0, 0]]


def test_oct_affinity_of_the_child():
    p = Problem.from_lists([[1, 1], [9, 1]], [(0, 1, 4)], affinity={1: [0]})
    # The child may only run on p0: 9 from p0, 9 + 4 from p1.
    assert optimistic_cost_table(p).tolist() == [[9, 13], [0, 0]]


def test_oct_order_pairs_carry_no_delay():
    p = Problem.from_lists([[1, 1], [5, 2]], order=[(0, 1)])
    assert optimistic_cost_table(p).tolist() == [[2, 2], [0, 0]]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_oct_matches_the_definition_on_random_networks(topology):
    p = random_instance(
        14, 4, topology=topology, ccr=2.0, n_order=2, affinity=0.3, latency=1, seed=7
    )
    np.testing.assert_allclose(optimistic_cost_table(p), naive_oct(p))


def test_oct_mean_comm_is_the_papers_average_delay():
    p = random_instance(16, 4, topology="mesh", ccr=2.0, seed=1)
    distinct = 1.0 - np.eye(4)
    expected = naive_oct(p, unit=mean_comm(p), hops=distinct)
    np.testing.assert_allclose(optimistic_cost_table(p, comm="mean"), expected)
    assert not np.allclose(optimistic_cost_table(p), expected)


def test_oct_mean_comm_equals_network_comm_when_fully_connected():
    p = random_instance(16, 4, ccr=2.0, seed=1)
    np.testing.assert_allclose(optimistic_cost_table(p, comm="mean"), optimistic_cost_table(p))


def test_oct_rejects_unknown_comm():
    with pytest.raises(MethodError, match="comm"):
        optimistic_cost_table(_chain(), comm="average")


@pytest.mark.parametrize("method", METHODS)
def test_oct_bounds_what_is_left_after_every_task(method):
    # With the real delays, no schedule can finish before finish(t) + OCT(t, proc(t)).
    p = random_instance(20, 4, topology="torus", ccr=1.5, n_isolation=2, n_order=2, seed=11)
    table = optimistic_cost_table(p)
    s = exactsched.solve(p, method).schedule
    proc, _, finish = s.arrays(p)
    assert np.all(finish + table[np.arange(p.n_tasks), proc] <= s.makespan + 1e-9)


# --------------------------------------------------------------------------- the sample DAG


def test_sample_dag_has_the_topology_of_topcuoglus_fig2():
    # Same tasks and arcs as examples/topcuoglu2002.json; costs and data differ.
    topcuoglu = load_instance(TOPCUOGLU)
    sample = _peft_sample()
    assert sorted(zip(sample.arc_src.tolist(), sample.arc_dst.tolist(), strict=True)) == sorted(
        zip(topcuoglu.arc_src.tolist(), topcuoglu.arc_dst.tolist(), strict=True)
    )
    assert not np.array_equal(sample.cost, topcuoglu.cost)


def test_sample_dag_oct_table():
    assert optimistic_cost_table(_peft_sample()).tolist() == PEFT_OCT


def test_sample_dag_rank_oct():
    p = _peft_sample()
    ranks = oct_rank(p, optimistic_cost_table(p))
    np.testing.assert_allclose(ranks, np.mean(PEFT_OCT, axis=1))
    assert round(float(ranks[0]), 1) == 72.7


def test_sample_dag_schedule():
    p = _peft_sample()
    s = peft(p)
    assert validate(p, s) == []
    assert s.makespan == 122
    expected = {
        f"t{t}": exactsched.Placement(f"p{q}", a, b) for t, (q, a, b) in PEFT_SCHEDULE.items()
    }
    assert dict(s) == expected


# --------------------------------------------------------------------------- ranks and selection


def test_oct_ranks_hand_computed():
    p = _chain()
    table = optimistic_cost_table(p)
    assert oct_rank(p, table).tolist() == [5.5, 1, 0]
    assert oct_rank(p, table, "min-oct").tolist() == [4, 1, 0]
    with pytest.raises(MethodError, match="rank"):
        oct_rank(p, table, "max-oct")


def test_oct_ranks_over_allowed_processors_only():
    p = Problem.from_lists([[1, 1, 1], [9, 1, 1]], [(0, 1, 4)], affinity={0: [0, 1]})
    table = optimistic_cost_table(p)
    assert table[0].tolist() == [5, 1, 1]
    assert oct_rank(p, table).tolist() == [3, 0]
    assert oct_rank(p, table, "min-oct").tolist() == [1, 0]


def _inverted() -> Problem:
    # t0 -> t1 (no data) -> t2 (data 50). t2 is fast on p0 only, so OCT(t1) is
    # (1, 51) with mean 26, above its parent's (2, 2): mean-OCT ranks a child
    # before its parent, the failure of McSweeney's report sec. 4.6.
    return Problem.from_lists([[1, 1], [1, 1], [1, 100]], [(0, 1, 0), (1, 2, 50)])


def test_mean_oct_can_rank_a_child_first_but_the_ready_list_keeps_precedence():
    p = _inverted()
    table = optimistic_cost_table(p)
    assert table.tolist() == [[2, 2], [1, 51], [0, 0]]
    ranks = oct_rank(p, table)
    assert ranks[1] > ranks[0]
    s = peft(p)
    assert validate(p, s) == []
    assert s["t1"].start >= s["t0"].finish


def test_min_oct_respects_precedence():
    p = random_instance(40, 4, topology="fat-tree", ccr=2.0, n_order=3, seed=6)
    ranks = oct_rank(p, optimistic_cost_table(p), "min-oct")
    assert np.all(ranks[p.arc_src] >= ranks[p.arc_dst])


def test_oeft_select_adds_oct_to_eft():
    p = _chain()
    select = oeft_select(optimistic_cost_table(p))
    # EFT (2, 1) + OCT (4, 7) = (6, 8): p0, though p1 finishes first.
    assert select(ScheduleBuilder(p), 0) == 0
    # Ties go to the lowest index.
    q = Problem.from_lists([[1, 1, 1]])
    assert oeft_select(np.zeros((1, 3)))(ScheduleBuilder(q), 0) == 0


def test_peft_nc_is_the_nc_upward_rank_with_oeft_selection():
    p = random_instance(30, 6, topology="accelerated-node", ccr=0.5, seed=2)
    expected = list_schedule(p, upward_rank(p, "nc"), select=oeft_select(optimistic_cost_table(p)))
    assert peft_nc(p) == expected
    assert peft(p, rank="nc") == expected


# --------------------------------------------------------------------------- methods


def test_registered():
    for name in METHODS:
        info = exactsched.get_method(name)
        assert info.kind == "heuristic"
    assert "Arabnejad" in exactsched.get_method("peft").source
    assert "McSweeney" in exactsched.get_method("peft-nc").source


def test_topcuoglu_makespans():
    """Recorded makespans on Topcuoglu et al.'s Fig. 2 DAG (HEFT: 80).

    PEFT puts n1 on p2 (EFT 16, not p3's 9): the OCT of p2 is 38 against 53 on
    p3, because the optimistic tail of the DAG ends with n10, which costs 7 on
    p2. n4 and n2 follow on p2 and the exit task finishes there at 85. Ranking
    by the least OCT instead schedules n4, n2, n5 before n3 and ends at 101;
    the paper's mean delays equal the network's on this fully connected DAG.
    """
    p = load_instance(TOPCUOGLU)
    assert peft(p).makespan == 85
    assert peft(p, rank="min-oct").makespan == 101
    assert peft(p, comm="mean") == peft(p)
    assert peft_nc(p).makespan == 85
    for name in METHODS:
        assert validate(p, exactsched.solve(p, name).schedule) == []


def _zoo() -> list[tuple[str, Problem]]:
    return [*small_zoo(), ("inverted", _inverted())]


VARIANTS = [
    ("peft", {}),
    ("peft", {"rank": "min-oct"}),
    ("peft", {"comm": "mean"}),
    ("peft-nc", {}),
    ("peft-nc", {"comm": "mean"}),
]


@pytest.mark.parametrize(("method", "options"), VARIANTS, ids=lambda v: str(v))
@pytest.mark.parametrize(("name", "problem"), _zoo(), ids=[z[0] for z in _zoo()])
def test_valid_schedules_on_the_zoo(method, options, name, problem):
    result = exactsched.solve(problem, method, **options)
    assert validate(problem, result.schedule) == []
    assert result.makespan >= result.lower_bound - 1e-9


def test_cpu_gpu_platform():
    from topologies import platform_preset

    p = random_instance(30, 8, topology="accelerated-node", ccr=1.0, seed=3)
    assert validate(p, peft(p)) == []
    doc = p.to_json()
    doc["platform"] = platform_preset("hoft-single-gpu")
    doc["tasks"] = [{"id": t["id"], "cost": {"cpu": 9, "gpu": 2}} for t in doc["tasks"]]
    q = Problem.from_json(doc)
    for name in METHODS:
        assert validate(q, exactsched.solve(q, name).schedule) == []


def test_peft_respects_affinity_isolation_and_order():
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
    assert validate(p, peft(p, insertion=False)) == []
    assert validate(p, peft_nc(p, insertion=False)) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rank": "max-oct"}, "rank"),
        ({"comm": "hops"}, "comm"),
        ({"insertion": 1}, "insertion"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(MethodError, match=match):
        peft(_chain(), **kwargs)
