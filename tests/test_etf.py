"""Tests of ETF (heuristics.etf) and of its ready table against a plain re-implementation."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics._partsched import bottom_level
from heuristics.eft import ScheduleBuilder
from heuristics.etf import etf
from heuristics.partition import partition_problem


def _candidates(problem, task, labels, part_proc, busy_parts, busy):
    """The *-Part / *-Busy processor rule, written out plainly (None: no partition)."""
    allowed = problem.allowed[task]
    if labels is None:
        return allowed
    q = part_proc.get(int(labels[task]), -1)
    if q >= 0:  # the part's processor, or where affinity forbids it the plain rule
        return np.eye(problem.n_processors, dtype=bool)[q] if allowed[q] else allowed
    if busy:  # a new part avoids the busy processors
        taken = {part_proc[k] for k in busy_parts}
        free = allowed & ~np.isin(np.arange(problem.n_processors), list(taken))
        if free.any():
            return free
    return allowed


def reference_etf(problem, *, insertion=True, labels=None, busy=False):
    """O(n^2 P) ETF: every ready task on every candidate processor at every step."""
    b = ScheduleBuilder(problem, insertion=insertion)
    prio = bottom_level(problem, "mean")
    part_proc: dict[int, int] = {}
    left = None if labels is None else np.bincount(labels).tolist()
    busy_parts: set[int] = set()
    while True:
        ready = b.ready_tasks().tolist()
        if not ready:
            break
        best = None
        for t in ready:
            est, _ = b.eft(t)
            mask = _candidates(problem, t, labels, part_proc, busy_parts, busy)
            e = np.where(mask, est, np.inf)
            s = e.min()
            tied = np.flatnonzero(e == s)
            q = int(tied[np.argmin(problem.cost[t, tied])])
            key = (s, -prio[t], t)
            if best is None or key < best[0]:
                best = (key, t, q, s)
        _, t, q, s = best
        b.place(t, q, start=s)
        if labels is not None:
            k = int(labels[t])
            left[k] -= 1
            if k not in part_proc:
                part_proc[k] = q
                if left[k] > 0:
                    busy_parts.add(k)
            if left[k] == 0:
                busy_parts.discard(k)
    return b.to_schedule()


CASES = [
    ("fully-connected", dict(ccr=1.0)),
    ("mesh", dict(ccr=3.0, n_isolation=4, affinity=0.3)),
    ("accelerated-node", dict(n_order=4, affinity=0.2)),
    ("matrix", dict(integral=False, ccr=2.0)),
    ("fat-tree", dict(n_isolation=6, n_order=3)),
]


@pytest.mark.parametrize("insertion", [True, False])
@pytest.mark.parametrize(("topology", "extra"), CASES)
def test_matches_plain_etf(topology, extra, insertion):
    for seed in range(3):
        p = random_instance(30, 4, topology=topology, seed=seed, **extra)
        s = etf(p, insertion=insertion)
        assert validate(p, s) == []
        assert s == reference_etf(p, insertion=insertion)


@pytest.mark.parametrize("busy", [False, True])
@pytest.mark.parametrize(("topology", "extra"), CASES)
def test_part_and_busy_match_plain_rules(topology, extra, busy):
    from heuristics._partsched import PartPolicy, run_etf

    for seed in range(2):
        p = random_instance(30, 4, topology=topology, seed=seed, **extra)
        labels = partition_problem(p, 8)
        b = ScheduleBuilder(p)
        run_etf(b, bottom_level(p, "mean"), PartPolicy(p, labels, busy=busy))
        s = b.to_schedule()
        assert validate(p, s) == []
        assert s == reference_etf(p, labels=labels, busy=busy)


def test_earliest_start_beats_bottom_level():
    # t1 has the larger bottom level but can only start at 4 (data from t0);
    # t2 is independent and starts at 0 on p1.
    p = Problem.from_lists([[4, 4], [5, 5], [1, 1]], [(0, 1, 0)])
    s = etf(p)
    assert validate(p, s) == []
    assert (s["t0"].processor, s["t0"].start) == ("p0", 0)
    assert (s["t2"].processor, s["t2"].start) == ("p1", 0)
    assert (s["t1"].processor, s["t1"].start) == ("p0", 4)


def test_ties_go_to_larger_bottom_level_then_lower_index():
    # Three independent tasks on one processor, all ready at 0.
    p = Problem.from_lists([2, 3, 3], n_processors=1)
    s = etf(p)
    assert validate(p, s) == []
    assert [s[t].start for t in ("t1", "t2", "t0")] == [0, 3, 6]


def test_processor_tie_goes_to_least_cost():
    p = Problem.from_lists([[3, 1, 1]])
    s = etf(p)
    assert validate(p, s) == [] and s["t0"].processor == "p1"


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_valid_and_deterministic(topology):
    p = random_instance(60, 8, topology=topology, n_order=3, n_isolation=3, affinity=0.2, seed=5)
    r = solve(p, "etf")
    assert validate(p, r.schedule) == []
    assert etf(p) == r.schedule


def test_unknown_ranking():
    with pytest.raises(MethodError, match="ranking"):
        etf(Problem.from_lists([1], n_processors=1), ranking="nope")


@pytest.mark.parametrize("seed", range(6))
def test_isolation_rows_recomputed_only_when_a_partner_is_placed(monkeypatch, seed):
    # The table recomputes a row whole only once a partner is placed; recomputing every
    # row with a partner after every placement (the old rule) gives the same schedules.
    from exactsched import solve
    from heuristics import _partsched

    topology = ("fully-connected", "mesh", "fat-tree")[seed % 3]
    problem = random_instance(30, 4, topology=topology, n_isolation=8, affinity=0.2, seed=seed)
    methods = ("etf", "bl-est", "dsc-glb-etf", "etf-part")
    new = {m: solve(problem, m).schedule for m in methods}
    update = _partsched._ReadyTable.update
    monkeypatch.setattr(_partsched._ReadyTable, "update", lambda self, p, t=None: update(self, p))
    for m in methods:
        assert solve(problem, m).schedule == new[m]
