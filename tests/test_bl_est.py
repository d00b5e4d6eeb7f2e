"""Tests of bl-est (heuristics.bl_est)."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics.bl_est import bl_est
from heuristics.eft import ScheduleBuilder
from heuristics.ranking import WEIGHTINGS, upward_rank


def reference_bl_est(problem, *, ranking="mean", insertion=True):
    """bl-est written out with the public engine: ready list, least start, least cost."""
    prio = upward_rank(problem, ranking)
    b = ScheduleBuilder(problem, insertion=insertion)
    while True:
        ready = b.ready_tasks()
        if not len(ready):
            return b.to_schedule()
        t = int(ready[np.lexsort((ready, -prio[ready]))][0])
        est, _ = b.eft(t)
        tied = np.flatnonzero(est == est.min())
        q = int(tied[np.argmin(problem.cost[t, tied])])
        b.place(t, q)


@pytest.mark.parametrize("insertion", [True, False])
@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_matches_reference(topology, insertion):
    for seed in range(2):
        p = random_instance(
            30, 4, topology=topology, n_order=3, n_isolation=3, affinity=0.2, seed=seed
        )
        s = bl_est(p, insertion=insertion)
        assert validate(p, s) == []
        assert s == reference_bl_est(p, insertion=insertion)


def test_earliest_start_not_earliest_finish():
    # t1 starts at 2 on p0 (cost 3, finish 5) rather than at 3 on p1 (cost 1,
    # finish 4): bl-est chooses by start time, HEFT would take p1.
    p = Problem.from_lists([[2, 2], [3, 1], [1, 1]], [(0, 1, 1), (0, 2, 1)])
    s = bl_est(p)
    assert validate(p, s) == []
    assert (s["t1"].processor, s["t1"].start, s["t1"].finish) == ("p0", 2, 5)
    assert solve(p, "heft").schedule["t1"].processor == "p1"


def test_equal_starts_go_to_least_cost_then_lowest_index():
    p = Problem.from_lists([[3, 2, 2, 5]])
    s = bl_est(p)
    assert validate(p, s) == [] and s["t0"].processor == "p1"


def test_priority_is_the_bottom_level():
    # Two independent chains on one processor: the longer weighted path goes first.
    p = Problem.from_lists([1, 1, 1, 5], [(0, 1, 0), (2, 3, 0)], n_processors=1)
    s = bl_est(p)
    assert validate(p, s) == []
    assert s["t2"].start == 0 and s["t3"].start == 1


@pytest.mark.parametrize("ranking", WEIGHTINGS)
def test_every_ranking(ranking):
    p = random_instance(40, 4, topology="torus", n_isolation=3, affinity=0.3, seed=8)
    s = bl_est(p, ranking=ranking)
    assert validate(p, s) == []


def test_unknown_ranking():
    with pytest.raises(MethodError, match="ranking"):
        bl_est(Problem.from_lists([1], n_processors=1), ranking="nope")
