"""Zero-length tasks (issue 15, item 9): one reading for the referee and every exact method.

A task of cost 0 on its processor occupies no processor time: it may start at any
instant, even inside another task's execution on the same processor, and an
isolation pair with it imposes nothing (an empty interval overlaps nothing). It
still waits for its edges (with communication) and order pairs, and its successors
wait for it. ``tests/data/magnitude/zero-length.json`` is 10 under this reading
(13 if a zero-length task could not sit inside another).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import exactsched
from exactsched import Placement, Problem, Schedule, validate

DOC = json.loads((Path(__file__).parent / "data" / "magnitude" / "zero-length.json").read_text())
EXACT = ("cpsat", "milp", "bruteforce")


def _variant(**extra) -> Problem:
    return Problem.from_json({**DOC, **extra})


def _schedule(z_start: float) -> Schedule:
    # A fills p0 over [0, 10); X -> Z -> Y on p1, Z on p0 (its only processor).
    return Schedule({
        "A": Placement("p0", 0, 10), "X": Placement("p1", 0, 3),
        "Z": Placement("p0", z_start, z_start), "Y": Placement("p1", max(z_start, 3),
                                                               max(z_start, 3) + 3),
    })  # fmt: skip


@pytest.mark.parametrize(
    "extra, optimum",
    [({}, 10), ({"isolation": [["A", "Z"]]}, 10), ({"order": [["A", "Z"]]}, 13)],
    ids=["plain", "isolation", "order"],
)
@pytest.mark.parametrize("method", EXACT)
def test_exact_methods_agree_on_the_reading(method: str, extra: dict, optimum: int) -> None:
    problem = _variant(**extra)
    # Certified (a milp proof counts as optimal only with a witness of another engine).
    result = exactsched.solve(problem, method, time_limit=20, workers=1, seed=0, certify=True)
    assert result.status is exactsched.Status.OPTIMAL and result.certified
    assert result.makespan == optimum
    assert validate(problem, result.schedule) == []


def test_validator_reading() -> None:
    inside = _schedule(3)  # Z at 3, inside A's [0, 10) on p0
    assert validate(_variant(), inside) == []
    assert validate(_variant(isolation=[["A", "Z"]]), inside) == []
    # Precedence and order pairs hold as written.
    assert validate(_variant(order=[["A", "Z"]]), inside) == [
        "order A -> Z: Z starts at 3 before A finishes at 10"
    ]
    assert validate(_variant(order=[["A", "Z"]]), _schedule(10)) == []
    early = Schedule({**_schedule(3), "Z": Placement("p0", 2, 2)})
    assert validate(_variant(), early) == [
        "edge X -> Z: Z starts at 2 on p0 but the data arrive at 3 "
        "(X finishes at 3 on p1, communication 0)"
    ]
