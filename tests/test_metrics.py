"""Schedule quality metrics of McSweeney's report, sec. 4.1: MST, speedup, SLR, failure."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from exactsched import (
    Problem,
    failed,
    load_instance,
    minimal_serial_time,
    schedule_length_ratio,
    solve,
    speedup,
)
from exactsched.bounds import optimistic_critical_path

# A chain a -> b carrying 9, costs [[2, 4], [3, 1]]: serial 5 on either processor.
CHAIN = Problem.from_lists([[2, 4], [3, 1]], [(0, 1, 9)])


def test_minimal_serial_time():
    assert minimal_serial_time(CHAIN) == 5
    assert minimal_serial_time(Problem.from_lists([[1, 9], [1, 9], [5, 1]])) == 7
    assert minimal_serial_time(Problem.from_lists([[0, 0]])) == 0


def test_minimal_serial_time_with_affinity():
    # Task 1 may run only on p1: p0 cannot run everything, so only p1 counts.
    restricted = Problem.from_lists([[1, 9], [1, 2]], affinity={1: [1]})
    assert minimal_serial_time(restricted) == 11
    # No processor may run every task.
    split = Problem.from_lists([[1, 9], [1, 2]], affinity={0: [0], 1: [1]})
    assert minimal_serial_time(split) == math.inf
    assert speedup(split, 3) == math.inf and failed(split, 100) is False


def test_speedup():
    assert speedup(CHAIN, 5) == 1
    assert speedup(CHAIN, 2.5) == 2
    assert speedup(CHAIN, 10) == 0.5
    assert speedup(CHAIN, 0) == math.inf


def test_schedule_length_ratio():
    # OFT(a) = [2, 4]; OFT(b, p0) = 3 + min(2, 4 + 9) = 5; OFT(b, p1) = 1 + min(2 + 9, 4) = 5.
    assert optimistic_critical_path(CHAIN) == 5
    assert schedule_length_ratio(CHAIN, 5) == 1
    assert schedule_length_ratio(CHAIN, 10) == 2
    zero = Problem.from_lists([[0, 0]])
    assert schedule_length_ratio(zero, 0) == 1
    assert schedule_length_ratio(zero, 1) == math.inf


def test_failed():
    assert failed(CHAIN, 5) is False  # equal to the serial time: not a failure
    assert failed(CHAIN, 5 + 1e-9) is True
    assert failed(CHAIN, 4) is False


def test_metrics_of_heft_on_the_paper_example():
    problem = load_instance(Path(__file__).parent.parent / "examples" / "topcuoglu2002.json")
    result = solve(problem, "heft")
    assert result.makespan == 80
    # Serial times per processor: 127, 140, 143.
    assert minimal_serial_time(problem) == 127
    assert speedup(problem, 80) == pytest.approx(127 / 80)
    assert schedule_length_ratio(problem, 80) >= 1
    assert not failed(problem, 80)


def test_the_heft_papers_slr_on_its_example():
    """Topcuoglu et al.: HEFT's 80 over CP_MIN's 41 (metric audit, session 12)."""
    import exactsched

    p = exactsched.load_instance(
        str(
            __import__("pathlib").Path(__file__).resolve().parents[1]
            / "examples"
            / "topcuoglu2002.json"
        )
    )
    assert exactsched.slr_cp_min(p, 80) == 80 / 41
    assert exactsched.slr_cp_min(p, 80) > exactsched.schedule_length_ratio(p, 80)
