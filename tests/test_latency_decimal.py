"""Decimal data with a latency are exact data (an outside audit, session 11).

See ``tests/data/latency-decimal/README.md``: ``latency + data / bandwidth`` in
floating point made three-place data look like float data, and the proofs were lost.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import exactsched
from exactsched import validate
from models._grid import data_grid, exact_units

DATA = Path(__file__).parent / "data" / "latency-decimal"


def _doc(name: str) -> dict:
    return json.loads((DATA / name).read_text())


@pytest.mark.parametrize("latency", [2.0, 2.5, 0.125, 0.0])
def test_decimal_delays_are_proven_by_every_exact_method(latency):
    doc = copy.deepcopy(_doc("hypercube-latency.json"))
    doc["platform"]["network"]["latency"] = latency
    problem = exactsched.load_instance(doc)
    assert data_grid(problem).kind == "decimal"
    answers = set()
    for method in ("cpsat", "milp", "bruteforce"):
        result = exactsched.solve(problem, method, time_limit=20, workers=1, seed=0)
        assert validate(problem, result.schedule) == []
        assert result.status.value == "optimal" and result.certified, (method, result.status)
        answers.add(result.makespan)
    assert len(answers) == 1


@pytest.mark.parametrize("method", ["cpsat", "bruteforce"])
def test_decimal_delays_under_contention(method):
    problem = exactsched.load_instance(_doc("contention-latency.json"))
    result = exactsched.solve(problem, method, time_limit=20, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.status.value == "optimal" and result.certified
    assert result.makespan == pytest.approx(14.248, rel=1e-15)  # float sums: within an ulp


def test_exact_units_only_where_the_decimal_is_exact():
    doc = _doc("contention-latency.json")
    doc["edges"][1]["data"] = 1 / 3  # no decimal: the problem's float stays
    doc["platform"]["network"]["bandwidth"] = 3
    problem = exactsched.load_instance(doc)
    units = exact_units(problem).tolist()
    assert units[0] == 2.708 and units[1] == problem.arc_unit[1]
