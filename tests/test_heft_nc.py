"""Tests of heuristics.heft_nc: HEFT No-Cross and its crossing rule."""

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, validate
from exactsched.generators import random_instance
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.heft_nc import TIE_RULES, heft_nc, no_cross_select
from heuristics.ranking import upward_rank

TOPCUOGLU = "examples/topcuoglu2002.json"


def _valid(problem, schedule):
    assert validate(problem, schedule) == []
    return schedule


def _busy(problem, placements):
    """A builder with the given (task, processor, start) placements."""
    b = ScheduleBuilder(problem)
    for task, proc, start in placements:
        b.place(task, proc, start=start)
    return b


# ---- the crossing rule -----------------------------------------------------------------


@pytest.mark.parametrize(("x", "expected"), [(0.3, 1), (0.04, 1), (0.03, 0), (0.0, 0)])
def test_cross_threshold(x, expected):
    # Task 1 costs 1 on p0 (fastest) and 4 on p1; p0 is busy until 10.
    # EFT: p0 11, p1 4. W_t = |4 - 1| / (4 / 1) = 0.75;
    # W_abstract = |4 - 11| / (4 / 11) = 19.25; ratio = 0.03896...
    p = Problem.from_lists([[10, 10], [1, 4]])
    b = _busy(p, [(0, 0, 0.0)])
    assert no_cross_select(p, x)(b, 1) == expected


@pytest.mark.parametrize("scale", [1, 0.1, 1e-9, 1e12])
def test_a_ratio_equal_to_the_threshold_crosses(scale):
    # Task 2: EFT 6 on p0 (p_j), 8 on p1 (fastest). W_t = 1 / (5 / 4) = 4 / 5 and
    # W_abstract = 2 / (6 / 8) = 8 / 3: the ratio is 0.3 exactly (0.30000000000000004
    # in floats), so it crosses at x = 0.3 (sec. 2.3.4: "<= X"), at every scale.
    problem = Problem.from_lists([[c * scale for c in row] for row in [[1, 50], [50, 4], [5, 4]]])
    builder = ScheduleBuilder(problem)
    builder.place(0, 0)
    builder.place(1, 1)
    assert no_cross_select(problem, 0.3)(builder, 2) == 0
    assert no_cross_select(problem, 0.2999999)(builder, 2) == 1


def test_a_ratio_equal_to_the_threshold_crosses_after_a_cancelling_difference():
    # EFT_f - EFT_j = 39000.13 + 0.0300001 - 39000.0600001 = 0.1 keeps few digits in
    # floats (ratio 0.30000000000436555 for an exact 3/10): differences on the grid.
    problem = Problem.from_lists([[39000.13, 1e6], [0.0300001, 39000.0600001]])
    schedule = heft_nc(problem, x=0.3)
    assert validate(problem, schedule) == []
    assert schedule["t1"].processor == "p1"


def test_least_eft_on_a_fastest_processor_needs_no_test():
    p = Problem.from_lists([[1, 4]])
    assert no_cross_select(p, 0.0)(ScheduleBuilder(p), 0) == 0


def test_eft_tie_prefers_the_fastest_processor():
    # Task 1 costs 2 on p0 and 1 on p1 (fastest); p1 busy until 1: both finish at 2.
    # HEFT takes p0 (lowest index); No-Cross takes p1, which is p_j and p_f at once.
    p = Problem.from_lists([[1, 1], [2, 1]])
    b = _busy(p, [(0, 1, 0.0)])
    assert b.eft(1)[1].tolist() == [2.0, 2.0]
    assert no_cross_select(p, 0.3)(b, 1) == 1


def test_tie_rules_with_two_fastest_processors():
    # Task 3 costs 1 on p0 and p1 (both fastest) and 4 on p2. p0 busy until 10,
    # p1 until 5: EFT 11, 6, 4, so p_j = p2 and W_t = 0.75.
    # Ratios: p0 0.75 / (7 * 11 / 4) = 0.039, p1 0.75 / (2 * 6 / 4) = 0.25.
    p = Problem.from_lists([[10, 10, 10], [5, 5, 5], [9, 9, 9], [1, 1, 4]])
    b = _busy(p, [(0, 0, 0.0), (1, 1, 0.0)])
    assert b.eft(3)[1].tolist() == [11.0, 6.0, 4.0]
    # x = 0.1: the report's rule compares with p0's ratio and crosses to p2;
    # the EFT rule compares with p1's and stays on p1.
    assert no_cross_select(p, 0.1, "ratio")(b, 3) == 2
    assert no_cross_select(p, 0.1, "eft")(b, 3) == 1
    # x = 0.01: neither crosses; the report's rule then uses its p_f, p0 (latest EFT).
    assert no_cross_select(p, 0.01, "ratio")(b, 3) == 0
    assert no_cross_select(p, 0.01, "eft")(b, 3) == 1
    # x = 0.3: both cross.
    assert no_cross_select(p, 0.3, "ratio")(b, 3) == no_cross_select(p, 0.3, "eft")(b, 3) == 2


def test_zero_eft_always_crosses():
    # A zero-cost task at time 0 on p1: W_abstract is infinite, the ratio 0.
    p = Problem.from_lists([[1, 0]])
    assert no_cross_select(p, 0.0)(ScheduleBuilder(p), 0) == 1


# ---- the whole heuristic ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_infinite_threshold_is_heft_with_the_same_ranking(seed):
    # Report sec. 4.4: with X large enough HEFT-NC is HEFT with NC priorities; here
    # up to our EFT tie rule (a fastest processor wins a tie).
    p = random_instance(30, 4, topology="accelerated-node", n_isolation=3, seed=seed)
    fastest = p.cost == p.min_cost()[:, None]

    def heft_fastest_ties(builder, task):
        fin = builder.eft(task)[1]
        return int(np.lexsort((~fastest[task], fin))[0])

    for ranking in ("nc", "mean"):
        expected = list_schedule(p, upward_rank(p, ranking), select=heft_fastest_ties)
        assert dict(heft_nc(p, x=np.inf, ranking=ranking)) == dict(expected)


@pytest.mark.parametrize("tie", TIE_RULES)
def test_zero_threshold_keeps_every_task_on_a_fastest_processor(tie):
    # With x = 0 only a zero ratio crosses: W_t = 0 (same cost everywhere) or a
    # least EFT of 0, which no task of this instance has.
    p = random_instance(40, 6, topology="accelerated-node", ccr=5, seed=4)
    varies = p.min_cost() < p.cost.max(axis=1)
    assert varies.sum() > 30
    s = _valid(p, heft_nc(p, x=0.0, tie=tie))
    for i, tid in enumerate(p.task_ids):
        if varies[i]:
            assert p.cost[i, p.proc_ids.index(s[tid].processor)] == p.min_cost()[i]


@pytest.mark.parametrize(
    ("options", "makespan"),
    [({}, 76), ({"tie": "eft"}, 76), ({"x": np.inf}, 76), ({"x": 0.0}, 82)],
)
def test_topcuoglu_makespans(options, makespan):
    # Our values on Topcuoglu et al.'s sample DAG (HEFT: 80), recorded as regressions.
    p = load_instance(TOPCUOGLU)
    assert _valid(p, heft_nc(p, **options)).makespan == makespan


@pytest.mark.parametrize("topology", ["fully-connected", "accelerated-node", "mesh", "hypercube"])
@pytest.mark.parametrize("tie", TIE_RULES)
def test_valid_on_constrained_platforms(topology, tie):
    p = random_instance(
        40, 8, topology=topology, n_order=5, n_isolation=8, affinity=0.3, latency=1, seed=9
    )
    for x in (0.0, 0.3, 1.0):
        s = _valid(p, heft_nc(p, x=x, tie=tie))
        for i, tid in enumerate(p.task_ids):
            assert p.allowed[i, p.proc_ids.index(s[tid].processor)]
    _valid(p, heft_nc(p, insertion=False, ranking="mean"))


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([3], n_processors=1),
        Problem.from_lists([1, 2, 3], n_processors=2),  # identical processors: W_t = 0
        Problem.from_lists([[0, 0], [0, 1], [0, 2]], [(0, 1, 2), (0, 2, 0)]),  # zero costs
    ],
)
def test_edge_cases(problem):
    _valid(problem, heft_nc(problem))


def test_bad_options():
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match="x: "):
        heft_nc(p, x=-0.1)
    with pytest.raises(MethodError, match="x: "):
        heft_nc(p, x=float("nan"))
    with pytest.raises(MethodError, match="tie"):
        heft_nc(p, tie="random")
    with pytest.raises(MethodError, match="weighting"):
        heft_nc(p, ranking="nope")


def test_deterministic():
    p = random_instance(40, 6, topology="accelerated-node", n_isolation=5, seed=8)
    assert dict(heft_nc(p)) == dict(heft_nc(p))
