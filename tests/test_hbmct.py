"""Tests of heuristics.hbmct: rank groups and the independent-task group policies."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import random_instance
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.hbmct import GROUP_POLICIES, hbmct, priority_order, rank_groups, schedule_group
from heuristics.ranking import upward_rank

TOPCUOGLU = "examples/topcuoglu2002.json"


def _valid(problem, schedule):
    assert validate(problem, schedule) == []
    return schedule


# ---- priority order and groups ---------------------------------------------------------


def test_priority_order_is_topological_even_when_priorities_are_not():
    # Task 1 depends on 0 but has the higher priority: it still comes after 0.
    p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=1)
    assert priority_order(p, [0.0, 5.0, 1.0]).tolist() == [2, 0, 1]
    assert priority_order(p, [1.0, 1.0, 1.0]).tolist() == [0, 1, 2]  # ties: lowest index


def test_priority_order_rejects_bad_priorities():
    p = Problem.from_lists([1, 1], n_processors=1)
    with pytest.raises(MethodError, match="priority"):
        priority_order(p, [1.0])
    with pytest.raises(MethodError, match="nan"):
        priority_order(p, [1.0, np.nan])


@pytest.mark.parametrize(
    ("edges", "order", "groups"),
    [
        ([], [0, 1, 2, 3], [[0, 1, 2, 3]]),  # no edges: one group
        ([(0, 1), (1, 2), (2, 3)], [0, 1, 2, 3], [[0], [1], [2], [3]]),  # a chain
        ([(0, 2), (1, 3)], [0, 1, 2, 3], [[0, 1], [2, 3]]),
        # 3 depends on 0 only, but 0 is no longer in the current group [1, 2].
        ([(0, 1), (0, 2), (0, 3)], [0, 1, 2, 3], [[0], [1, 2, 3]]),
        ([(0, 1), (2, 3)], [0, 1, 2, 3], [[0], [1, 2], [3]]),
    ],
)
def test_rank_groups(edges, order, groups):
    p = Problem.from_lists([1] * 4, edges, n_processors=1)
    assert [g.tolist() for g in rank_groups(p, order)] == groups


def test_order_pairs_cut_groups_like_edges():
    p = Problem.from_lists([1, 1, 1], [], n_processors=1, order=[(0, 2)])
    assert [g.tolist() for g in rank_groups(p, [0, 1, 2])] == [[0, 1], [2]]


def test_groups_of_topcuoglu_dag():
    p = load_instance(TOPCUOGLU)
    order = priority_order(p, upward_rank(p))
    names = [sorted(p.task_ids[i] for i in g) for g in rank_groups(p, order)]
    # Compared as sets: n3 and n4 both have rank 80, and floating point decides.
    assert names == [["n1"], ["n2", "n3", "n4", "n5", "n6"], ["n7", "n8", "n9"], ["n10"]]


# ---- group policies on independent tasks -----------------------------------------------


def test_met_puts_every_task_on_its_fastest_processor():
    p = Problem.from_lists([[2, 3], [2, 3], [5, 1]])
    b = schedule_group(ScheduleBuilder(p), [0, 1, 2], "met")
    assert b.proc.tolist() == [0, 0, 1]
    assert _valid(p, b.to_schedule()).makespan == 4


def test_met_ties_go_to_the_earliest_finish():
    # Two identical processors: MET alone cannot choose; the tie rule spreads the tasks.
    p = Problem.from_lists([2, 2, 2], n_processors=2)
    b = schedule_group(ScheduleBuilder(p), [0, 1, 2], "met")
    assert b.proc.tolist() == [0, 1, 0]


def test_bmct_balances_what_met_piles_up():
    # MET puts all three on p0 (finish 6); BMCT moves one to p1: finish 4.
    p = Problem.from_lists([[2, 3], [2, 3], [2, 3]])
    met = schedule_group(ScheduleBuilder(p), [0, 1, 2], "met")
    base = ScheduleBuilder(p)
    bmct = schedule_group(base, [0, 1, 2], "bmct")
    assert met.makespan == 6
    assert bmct.makespan == 4
    assert sorted(bmct.proc.tolist()) == [0, 0, 1]
    assert base.proc.tolist() == [-1, -1, -1]  # BMCT works on copies
    _valid(p, bmct.to_schedule())


def test_min_min_and_max_min_classic_example():
    # Two identical processors, tasks of length 1, 1, 4: min-min takes the short
    # ones first (finish 5), max-min the long one first (finish 4).
    p = Problem.from_lists([1, 1, 4], n_processors=2)
    mm = schedule_group(ScheduleBuilder(p), [0, 1, 2], "min-min")
    xm = schedule_group(ScheduleBuilder(p), [0, 1, 2], "max-min")
    assert (mm.makespan, xm.makespan) == (5.0, 4.0)
    _valid(p, mm.to_schedule())
    _valid(p, xm.to_schedule())


@pytest.mark.parametrize("seed", range(6))
def test_bmct_never_ends_above_its_met_start_on_independent_tasks(seed):
    # With all ESTs equal, BMCT starts from MET's assignment, and each move lowers
    # the sorted vector of processor finish times, so the makespan cannot grow.
    rng = np.random.default_rng(seed)
    costs = rng.integers(1, 10, size=(12, 4)).tolist()
    p = Problem.from_lists(costs)
    met = schedule_group(ScheduleBuilder(p), np.arange(12), "met")
    bmct = schedule_group(ScheduleBuilder(p), np.arange(12), "bmct")
    assert bmct.makespan <= met.makespan
    _valid(p, bmct.to_schedule())


def test_bmct_keeps_isolation_inside_a_group():
    # Four independent tasks, pairwise isolated in a ring: they cannot all run at once.
    iso = [(0, 1), (1, 2), (2, 3), (3, 0)]
    p = Problem.from_lists([[2, 2, 2, 2]] * 4, isolation=iso)
    for policy in GROUP_POLICIES:
        b = schedule_group(ScheduleBuilder(p), [0, 1, 2, 3], policy)
        s = _valid(p, b.to_schedule())
        assert s.makespan == 4  # {0, 2} and {1, 3} in two rounds


def test_group_policies_respect_affinity():
    p = Problem.from_lists([[1, 5, 5]] * 4, affinity={0: [2], 1: [1, 2]})
    for policy in GROUP_POLICIES:
        b = schedule_group(ScheduleBuilder(p), [0, 1, 2, 3], policy)
        assert b.proc[0] == 2 and b.proc[1] in (1, 2)
        _valid(p, b.to_schedule())


def test_unknown_policy():
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match="group_policy"):
        schedule_group(ScheduleBuilder(p), [0], "fastest")
    with pytest.raises(MethodError, match="group_policy"):
        hbmct(p, group_policy="fastest")
    with pytest.raises(MethodError, match="weighting"):
        hbmct(p, ranking="nope")


# ---- the whole heuristic ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "makespan"),
    [("bmct", 76), ("met", 80), ("min-min", 80), ("max-min", 102), ("eft", 80)],
)
def test_topcuoglu_makespans(policy, makespan):
    # Our values on Topcuoglu et al.'s sample DAG (HEFT: 80), recorded as regressions.
    p = load_instance(TOPCUOGLU)
    assert _valid(p, hbmct(p, group_policy=policy)).makespan == makespan


@pytest.mark.parametrize("seed", range(4))
def test_eft_policy_is_heft(seed):
    # Groups are consecutive runs of the HEFT list, so task-by-task EFT is HEFT.
    p = random_instance(30, 4, n_order=3, n_isolation=3, affinity=0.3, seed=seed)
    heft = list_schedule(p, upward_rank(p))
    assert dict(hbmct(p, group_policy="eft")) == dict(heft)


@pytest.mark.parametrize("topology", ["fully-connected", "accelerated-node", "mesh", "fat-tree"])
@pytest.mark.parametrize("policy", GROUP_POLICIES)
def test_valid_on_constrained_platforms(topology, policy):
    p = random_instance(
        40, 8, topology=topology, n_order=5, n_isolation=8, affinity=0.3, latency=1, seed=7
    )
    _valid(p, hbmct(p, group_policy=policy))
    _valid(p, hbmct(p, group_policy=policy, insertion=False, ranking="nc"))


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([3], n_processors=1),  # one task
        Problem.from_lists([1, 2, 3], n_processors=1),  # one processor, no edges
        Problem.from_lists([0, 0, 0], [(0, 1, 2), (0, 2, 0)], n_processors=3),  # zero costs
    ],
)
def test_edge_cases(problem):
    for policy in GROUP_POLICIES:
        _valid(problem, hbmct(problem, group_policy=policy))


def test_deterministic():
    p = random_instance(40, 6, topology="accelerated-node", n_isolation=5, seed=11)
    assert dict(hbmct(p)) == dict(hbmct(p))


@pytest.mark.parametrize("seed", range(4))
def test_bmct_from_eft_never_ends_above_eft_on_independent_tasks(seed):
    # Report sec. 4.7's variant: BMCT started from HEFT's assignment.
    rng = np.random.default_rng(seed)
    p = Problem.from_lists(rng.integers(1, 10, size=(10, 3)).tolist())
    eft = schedule_group(ScheduleBuilder(p), np.arange(10), "eft")
    bmct = schedule_group(ScheduleBuilder(p), np.arange(10), "bmct", initial="eft")
    assert bmct.makespan <= eft.makespan
    _valid(p, bmct.to_schedule())


def test_initial_option():
    p = load_instance(TOPCUOGLU)
    assert _valid(p, hbmct(p, initial="eft")).makespan == 80
    with pytest.raises(MethodError, match="initial"):
        hbmct(p, initial="random")
    with pytest.raises(MethodError, match="initial"):
        schedule_group(ScheduleBuilder(p), [0], initial="random")


# ---- one-task groups (chains): the copy-free path equals the general BMCT ----------------


@pytest.mark.parametrize("initial", ["met", "eft"])
@pytest.mark.parametrize("seed", range(6))
def test_one_task_groups_match_the_general_bmct(seed, initial):
    from exactsched.generators import TOPOLOGIES
    from heuristics.hbmct import _bmct, _bmct_one, _finish_per_processor

    problem = random_instance(
        12, 4, topology=TOPOLOGIES[seed % len(TOPOLOGIES)], n_isolation=2,
        affinity=0.3 * (seed % 2), seed=seed,
    )  # fmt: skip
    fast = ScheduleBuilder(problem)
    slow = ScheduleBuilder(problem)
    ft = np.zeros(problem.n_processors)
    for task in problem.topological_order.tolist():
        fast = _bmct_one(fast, task, initial, ft)
        slow = _bmct(slow, np.array([task]), initial, _finish_per_processor(slow))
        assert np.array_equal(ft, _finish_per_processor(fast))
    assert fast.to_schedule() == slow.to_schedule()


def test_long_chain_is_valid():
    # A chain: every rank group is one task (the case that used to be quadratic; timed in
    # benchmarks/hbmct_chain.py, not here).
    problem = Problem.from_lists(
        [[1 + (3 * i) % 7, 1 + (5 * i) % 4, 2] for i in range(400)],
        [(i, i + 1, 2) for i in range(399)],
    )
    for initial in ("met", "eft"):
        assert validate(problem, hbmct(problem, initial=initial)) == []


@pytest.mark.parametrize("model", ["single-port", "contention"])
def test_bmct_under_contended_communication_is_valid(model):
    # A fork: every group task's message leaves the root's processor over shared
    # ports and links, so moving one task can delay another lane's messages; BMCT
    # judges each move on the whole group realised again.
    rng = np.random.default_rng(4)
    n, n_procs = 20, 4
    costs = rng.integers(1, 20, size=(n, n_procs)).astype(float).tolist()
    edges = [(0, k, float(rng.integers(1, 10))) for k in range(1, n)]
    network = {"topology": "mesh", "dims": [2, 2], "communication": model}
    problem = Problem.from_lists(costs, edges, network=network)
    schedule = hbmct(problem)
    assert validate(problem, schedule) == []
    again = hbmct(problem)
    assert schedule.messages and dict(again) == dict(schedule)
    assert again.messages == schedule.messages
