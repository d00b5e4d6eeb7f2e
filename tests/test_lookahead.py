"""Tests of heuristics.lookahead: HEFT with lookahead and its variants."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import random_instance
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.lookahead import heft_lookahead, lookahead_values
from heuristics.ranking import upward_rank

TOPCUOGLU = "examples/topcuoglu2002.json"


def _valid(problem, schedule):
    assert validate(problem, schedule) == []
    return schedule


def _where(problem, schedule, task):
    return problem.proc_ids.index(schedule[problem.task_ids[task]].processor)


# ---- one lookahead step ----------------------------------------------------------------


def test_lookahead_avoids_the_greedy_trap():
    # Task 0 is faster on p1 but its only child runs only on p0 and needs 10 units
    # of data: HEFT finishes at 1 + 10 + 2 = 13, lookahead at 2 + 2 = 4.
    p = Problem.from_lists([[2, 1], [2, 9]], [(0, 1, 10)], affinity={1: [0]})
    assert lookahead_values(p, ScheduleBuilder(p), 0).tolist() == [4.0, 13.0]
    assert list_schedule(p, upward_rank(p)).makespan == 13
    s = _valid(p, heft_lookahead(p))
    assert (_where(p, s, 0), s.makespan) == (0, 4)


def test_max_and_weighted_variants_by_hand():
    # Task 0 has two children: 1 only on p0 (cost 5, rank 5) and 2 only on p1
    # (cost 1, rank 1); data 10 and 20.
    # t0 on p0: EFT(1) = 1 + 5 = 6, EFT(2) = 1 + 20 + 1 = 22.
    # t0 on p1: EFT(1) = 1 + 10 + 5 = 16, EFT(2) = 1 + 1 = 2.
    p = Problem.from_lists(  # the 99s lie outside the affinity
        [[1, 1], [5, 99], [99, 1]], [(0, 1, 10), (0, 2, 20)], affinity={1: [0], 2: [1]}
    )
    b = ScheduleBuilder(p)
    assert upward_rank(p)[1:].tolist() == [5.0, 1.0]
    assert lookahead_values(p, b, 0, variant="max").tolist() == [22.0, 16.0]
    weighted = lookahead_values(p, b, 0, variant="weighted")
    np.testing.assert_allclose(weighted, [(5 * 6 + 22) / 6, (5 * 16 + 2) / 6])
    # So "max" puts task 0 on p1 and "weighted" on p0.
    assert _where(p, _valid(p, heft_lookahead(p, variant="max")), 0) == 1
    assert _where(p, _valid(p, heft_lookahead(p, variant="weighted")), 0) == 0


def test_children_ignore_their_unplaced_parents():
    # Child 2 also waits for task 1 (unplaced while task 0 is decided): the
    # estimate ignores it, the paper's optimistic assumption.
    p = Problem.from_lists([[1, 1], [50, 50], [1, 1]], [(0, 2, 3), (1, 2, 0)])
    assert lookahead_values(p, ScheduleBuilder(p), 0).tolist() == [2.0, 2.0]


def test_order_pair_children_wait_for_the_finish_only():
    p = Problem.from_lists([[2, 2], [1, 1]], [], order=[(0, 1)])
    assert lookahead_values(p, ScheduleBuilder(p), 0).tolist() == [3.0, 3.0]


def test_childless_task_value_is_its_eft():
    p = Problem.from_lists([[3, 1]])
    assert lookahead_values(p, ScheduleBuilder(p), 0).tolist() == [3.0, 1.0]


def test_affinity_gives_inf():
    p = Problem.from_lists([[1, 1], [1, 1]], [(0, 1, 1)], affinity={0: [1]})
    v = lookahead_values(p, ScheduleBuilder(p), 0)
    assert np.isinf(v[0]) and v[1] == 2.0


# ---- priority list change --------------------------------------------------------------


def test_swap_schedules_the_second_task_first_when_it_looks_better():
    # One processor. List: a (rank 6), b (rank 2), then the children. The child of
    # b finishes at 2 if b goes first, the child of a at 6: swap puts b first.
    p = Problem.from_lists([5, 1, 1, 1], [(0, 2), (1, 3)], n_processors=1)
    plain = _valid(p, heft_lookahead(p))
    swapped = _valid(p, heft_lookahead(p, swap=True))
    assert plain["t1"].start == 5 and swapped["t1"].start == 0
    assert plain.makespan == swapped.makespan == 8


def test_swap_never_breaks_precedence():
    # The second task of the list is a child of the first: no swap possible.
    p = Problem.from_lists([5, 1, 1], [(0, 1), (1, 2)], n_processors=1)
    s = _valid(p, heft_lookahead(p, swap=True))
    assert [s[t].start for t in ("t0", "t1", "t2")] == [0, 5, 6]


# ---- sampling variants -----------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"child_sampling": "random", "n_children": 2},
        {"child_sampling": "priority"},
        {"proc_samples": 1},
        {"child_sampling": "random", "proc_samples": 1, "variant": "weighted", "swap": True},
    ],
)
def test_sampling_is_seeded(options):
    p = random_instance(40, 6, topology="accelerated-node", n_isolation=4, seed=1)
    a = _valid(p, heft_lookahead(p, seed=3, **options))
    assert dict(a) == dict(heft_lookahead(p, seed=3, **options))
    g = _valid(p, heft_lookahead(p, seed=np.random.default_rng(3), **options))
    assert dict(g) == dict(a)


def test_sampling_everything_is_the_full_lookahead():
    p = random_instance(30, 6, topology="accelerated-node", seed=2)
    most = int(np.diff(p.succ_ptr).max())
    full = dict(heft_lookahead(p))
    for rule in ("random", "priority"):
        assert dict(heft_lookahead(p, child_sampling=rule, n_children=most)) == full
    # accelerated-node: 6 processors, at most 5 of one type.
    assert dict(heft_lookahead(p, proc_samples=6)) == full


def test_priority_sampling_looks_at_the_highest_ranked_child():
    # Same DAG as test_max_and_weighted_variants_by_hand: child 1 has the higher
    # rank, so looking at it alone favours p0 (EFT 6 against 16).
    p = Problem.from_lists(  # the 99s lie outside the affinity
        [[1, 1], [5, 99], [99, 1]], [(0, 1, 10), (0, 2, 20)], affinity={1: [0], 2: [1]}
    )
    s = _valid(p, heft_lookahead(p, child_sampling="priority"))
    assert _where(p, s, 0) == 0


# ---- the whole heuristic ---------------------------------------------------------------


def test_without_edges_it_is_heft():
    p = random_instance(20, 4, seed=5)
    p = Problem.from_lists(p.cost.tolist())  # same costs, no edges
    assert dict(heft_lookahead(p)) == dict(list_schedule(p, upward_rank(p)))


@pytest.mark.parametrize(
    ("options", "makespan"),
    [
        ({}, 81),
        ({"variant": "weighted"}, 76),
        ({"swap": True}, 81),
        ({"variant": "weighted", "swap": True}, 84),
        ({"child_sampling": "priority"}, 81),
    ],
)
def test_topcuoglu_makespans(options, makespan):
    # Our values on Topcuoglu et al.'s sample DAG (HEFT: 80), recorded as regressions.
    p = load_instance(TOPCUOGLU)
    assert _valid(p, heft_lookahead(p, **options)).makespan == makespan


@pytest.mark.parametrize("topology", ["fully-connected", "accelerated-node", "mesh", "torus"])
@pytest.mark.parametrize(
    "options",
    [{}, {"variant": "weighted", "swap": True}, {"child_sampling": "random", "proc_samples": 1}],
)
def test_valid_on_constrained_platforms(topology, options):
    p = random_instance(
        30, 6, topology=topology, n_order=5, n_isolation=8, affinity=0.3, latency=1, seed=6
    )
    s = _valid(p, heft_lookahead(p, **options))
    for i, tid in enumerate(p.task_ids):
        assert p.allowed[i, p.proc_ids.index(s[tid].processor)]
    _valid(p, heft_lookahead(p, insertion=False, ranking="nc", **options))


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([3], n_processors=1),
        Problem.from_lists([1, 2, 3], n_processors=1),
        Problem.from_lists([0, 0, 0], [(0, 1, 2), (0, 2, 0)], n_processors=3),
    ],
)
def test_edge_cases(problem):
    _valid(problem, heft_lookahead(problem))
    _valid(problem, heft_lookahead(problem, swap=True, variant="weighted"))


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"variant": "min"}, "variant"),
        ({"child_sampling": "all"}, "child_sampling"),
        ({"n_children": 0}, "n_children"),
        ({"n_children": 1.5}, "n_children"),
        ({"proc_samples": 0}, "proc_samples"),
        ({"ranking": "nope"}, "weighting"),
    ],
)
def test_bad_options(options, match):
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match=match):
        heft_lookahead(p, **options)
