"""A method that returns an invalid schedule: a defined error, one line, exit 2.

``exactsched.solve`` validates every schedule it returns; a rejection is a bug in
the method and raises :class:`~exactsched.errors.InvalidScheduleError`, which the
CLI prints as one line with exit status 2 (issue 15). The sweep runner solves
with ``check=False`` and records such a run as ``invalid`` (tests/test_experiments.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import exactsched
from exactsched import InvalidScheduleError, Placement, Schedule
from exactsched.cli import main
from exactsched.registry import _REGISTRY

DATA = Path(__file__).parent / "data" / "magnitude"
EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "topcuoglu2002.json")
BAD = "test-overlapping"


def _overlapping(problem):
    # Every task at time 0 on the first processor it may use: overlapping, so invalid.
    return Schedule(
        {t: Placement(problem.proc_ids[int(problem.allowed_processors(i)[0])], 0,
                      float(problem.cost[i, int(problem.allowed_processors(i)[0])]))
         for i, t in enumerate(problem.task_ids)}
    )  # fmt: skip


@pytest.fixture
def bad_method() -> Iterator[str]:
    exactsched.register(BAD, kind="heuristic", description="test", source="test")(_overlapping)
    try:
        yield BAD
    finally:
        _REGISTRY.pop(BAD, None)


def test_solve_raises_a_defined_error(bad_method: str) -> None:
    with pytest.raises(InvalidScheduleError) as caught:
        exactsched.solve(EXAMPLE, bad_method)
    err = caught.value
    assert isinstance(err, RuntimeError) and not isinstance(err, ValueError)
    assert err.method == bad_method and len(err.violations) > 1
    text = str(err)
    assert "\n" not in text
    assert text.startswith(f"{bad_method} returned an invalid schedule: processor p1: ")
    assert text.endswith(f"(and {len(err.violations) - 1} more)")
    # Without the check the schedule comes back as is (the sweep runner validates it).
    assert exactsched.solve(EXAMPLE, bad_method, check=False).schedule is not None


def test_cli_prints_one_line_and_exits_2(bad_method: str, capsys) -> None:
    status = main(["solve", EXAMPLE, "--method", bad_method])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"exactsched: error: {bad_method} returned an invalid schedule: ")


def test_etf_on_fractional_data_is_valid(capsys) -> None:
    # Issue 15: etf's schedule was rejected (a finish equal to the float sum start +
    # cost) and `solve` printed a RuntimeError traceback.
    instance = str(DATA / "etf-fractional.json")
    result = exactsched.solve(instance, "etf")
    assert exactsched.validate(instance, result.schedule) == []
    assert main(["solve", instance, "--method", "etf"]) == 0
    assert "Traceback" not in capsys.readouterr().err
