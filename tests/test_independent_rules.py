"""Tests of the independent-task rules on ready lists: mct, met, olb, min-min, max-min, sufferage.

Every expected schedule below is computed by hand from the rule's definition in its
module docstring (tasks ``tK``, processors ``pK``; ``(processor, start)`` per task).
"""

import numpy as np
import pytest

import exactsched
from exactsched import Problem, validate
from exactsched.generators import random_instance
from heuristics.max_min import max_min
from heuristics.mct import mct
from heuristics.met import met
from heuristics.min_min import min_min
from heuristics.olb import olb
from heuristics.sufferage import sufferage, sufferage_values

RULES = {
    "mct": mct,
    "met": met,
    "olb": olb,
    "min-min": min_min,
    "max-min": max_min,
    "sufferage": sufferage,
}


def _run(problem, rule, **options):
    schedule = RULES[rule](problem, **options)
    assert validate(problem, schedule) == []
    placed = {t: (pl.processor, pl.start) for t, pl in schedule.items()}
    return [placed[t] for t in problem.task_ids], schedule.makespan


# Two short tasks and a long one on two processors (no edges).
SHORT_LONG = [[1, 2], [1, 2], [4, 5]]


@pytest.mark.parametrize(
    ("rule", "expected", "makespan"),
    [
        # FIFO: t0 -> p0 (1 < 2); t1 ties at 2 -> p0; t2: 6 on p0, 5 on p1.
        ("mct", [("p0", 0), ("p0", 1), ("p1", 0)], 5),
        # Fastest processor regardless of load: everything on p0.
        ("met", [("p0", 0), ("p0", 1), ("p0", 2)], 6),
        # Earliest start regardless of cost: t1 takes idle p1, t2 starts at 1 on p0.
        ("olb", [("p0", 0), ("p1", 0), ("p0", 1)], 5),
        # Smallest least completion first: the short tasks fill p0, t2 on p1.
        ("min-min", [("p0", 0), ("p0", 1), ("p1", 0)], 5),
        # Largest least completion first: t2 on p0, then both short tasks on p1.
        ("max-min", [("p1", 0), ("p1", 2), ("p0", 0)], 4),
        # Sufferages 1, 1, 1 tie -> t0; then 0, 0 tie -> t1; t2 to p1.
        ("sufferage", [("p0", 0), ("p0", 1), ("p1", 0)], 5),
    ],
)
def test_short_and_long_tasks(rule, expected, makespan):
    assert _run(Problem.from_lists(SHORT_LONG), rule) == (expected, makespan)


@pytest.mark.parametrize(
    ("rule", "expected", "makespan"),
    [
        # t0 has least completion 1, so min-min takes p0 for it and t1 must wait.
        ("min-min", [("p0", 0), ("p0", 1)], 3),
        # t1 would suffer 5 without p0, t0 only 1: t1 gets p0.
        ("sufferage", [("p1", 0), ("p0", 0)], 2),
        ("max-min", [("p1", 0), ("p0", 0)], 2),
    ],
)
def test_sufferage_against_min_min(rule, expected, makespan):
    assert _run(Problem.from_lists([[1, 2], [2, 7]]), rule) == (expected, makespan)


def test_communication_aware_ready_times():
    # t0 -> t1 (data 6), t0 -> t2 (data 1); t3 independent. FIFO: t0, t3, then t1, t2.
    p = Problem.from_lists([[2, 2], [3, 3], [3, 3], [4, 4]], [(0, 1, 6), (0, 2, 1)])
    expected = [("p0", 0), ("p0", 2), ("p1", 4), ("p1", 0)]
    # t1 on p1 would wait for its data until 8; t2 on p1 starts when t3 ends at 4.
    assert _run(p, "mct") == (expected, 7)
    assert _run(p, "olb") == (expected, 7)
    # min-min: t0 (2) first; then t3 (4 on p1) before t1, t2 (5 on p0); t1 wins the tie.
    assert _run(p, "min-min") == (expected, 7)


def test_hops_decide_the_processor():
    # Line network p0 - p1 - p2 (p0 to p2: 3 hops as given). t1 is fastest on p2, but
    # its data from p0 take 3 * 2 = 6 there: MCT keeps it on p0; on a fully connected
    # network p2 would win (1 + 2 + 2 = 5 < 6).
    costs = [[1, 9, 9], [5, 3.5, 2]]
    line = {"topology": "matrix", "hops": [[0, 1, 3], [1, 0, 1], [3, 1, 0]]}
    assert _run(Problem.from_lists(costs, [(0, 1, 2)], network=line), "mct")[0][1] == ("p0", 1)
    assert _run(Problem.from_lists(costs, [(0, 1, 2)]), "mct")[0][1] == ("p2", 3)


def test_met_breaks_type_ties_by_completion_time():
    # Two identical GPUs (cost 1) and a CPU: the second task goes to the idle GPU.
    p = Problem.from_lists([[5, 1, 1], [5, 1, 1]])
    assert _run(p, "met") == ([("p1", 0), ("p2", 0)], 1)


def test_rounds_wait_for_the_round():
    # t0 -> t1, t2 independent and long, one processor. By default (the sources' batch)
    # t1, made ready by t0, waits until t2, ready at the batch start, is placed.
    p = Problem.from_lists([1, 1, 5], [(0, 1)], n_processors=1)
    assert _run(p, "min-min", rounds=False) == ([("p0", 0), ("p0", 1), ("p0", 2)], 7)
    assert _run(p, "min-min") == ([("p0", 0), ("p0", 6), ("p0", 1)], 7)
    assert _run(p, "min-min", rounds=True) == _run(p, "min-min")
    assert _run(p, "max-min")[0] == [("p0", 5), ("p0", 6), ("p0", 0)]
    assert _run(p, "max-min", rounds=False)[0] == [("p0", 5), ("p0", 6), ("p0", 0)]
    # Sufferage (one processor: every sufferage is inf, ties lowest index): t0 wins the
    # first pass, t2 the second, then t1 forms the next batch.
    assert _run(p, "sufferage")[0] == [("p0", 0), ("p0", 6), ("p0", 1)]
    assert _run(p, "sufferage", rounds=False)[0] == [("p0", 0), ("p0", 1), ("p0", 2)]


def test_sufferage_pass_takes_each_machine_once():
    # Pass 1 with the completion times at its start: t0 [1, 2, 1] and t2 [2, 2, 4] both
    # claim p0 with sufferage 0 (the first claimant keeps it), t1 [2, 1, 3] claims p1.
    # t2 waits for pass 2: p0 is free at 1, so it ends at 3. One task per step instead
    # places t1 first (sufferage 1); then t2's sufferage is 1 > 0 and it takes p0 at 0.
    p = Problem.from_lists([[1, 2, 1], [2, 1, 3], [2, 2, 4]])
    assert _run(p, "sufferage") == ([("p0", 0), ("p1", 0), ("p0", 1)], 3)
    assert _run(p, "sufferage", rounds=False) == ([("p2", 0), ("p1", 0), ("p0", 0)], 2)


def test_sufferage_displaced_task_waits_for_the_next_pass():
    # Three tasks all fastest on p0 with sufferages 2, 3, 6: t2 displaces t1, which had
    # displaced t0; only t2 is placed in pass 1. Pass 2: t0 [2, 3] (sufferage 1) and t1
    # [3, 5] (2) both claim p0; t1 wins. Pass 3: t0 [5, 3] goes to p1.
    p = Problem.from_lists([[1, 3], [2, 5], [1, 7]])
    assert _run(p, "sufferage") == ([("p1", 0), ("p0", 1), ("p0", 0)], 3)


def test_affinity_and_isolation():
    # t0 may only use p1; t1 and t2 are isolated from each other, so they may not overlap
    # even on different processors.
    p = Problem.from_lists([[1, 1], [2, 2], [2, 2]], affinity={0: [1]}, isolation=[(1, 2)])
    for rule in RULES:
        placed, _ = _run(p, rule)
        assert placed[0][0] == "p1"
        s1, s2 = placed[1][1], placed[2][1]
        assert s1 + 2 <= s2 or s2 + 2 <= s1, rule


def test_sufferage_values():
    eft = np.array([[3.0, 5.0, 4.0], [2.0, np.inf, np.inf], [1.0, 1.0, 7.0]])
    assert sufferage_values(eft, eft.min(axis=1)).tolist() == [1.0, np.inf, 0.0]
    assert sufferage_values(np.array([[4.0]]), np.array([4.0])).tolist() == [np.inf]


@pytest.mark.parametrize("insertion", [False, True])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_valid_and_deterministic_on_random_instances(rule, insertion):
    for seed, topology in enumerate(("fully-connected", "torus", "accelerated-node")):
        p = random_instance(
            30, 6, topology=topology, n_order=3, n_isolation=4, affinity=0.2, seed=seed
        )
        first = _run(p, rule, insertion=insertion)
        assert _run(p, rule, insertion=insertion) == first


def test_registered():
    names = {m.name for m in exactsched.available_methods()}
    assert set(RULES) <= names
    p = Problem.from_lists(SHORT_LONG)
    assert exactsched.solve(p, "max-min").makespan == 4
