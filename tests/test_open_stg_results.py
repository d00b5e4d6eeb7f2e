"""Every schedule stored by benchmarks/open_stg.py is valid on its STG instance.

``benchmarks/results/stg-open/N-randXXXX-P.json`` holds the new optima and
improved upper bounds of the open rows of the published STG results
(``benchmarks/data/stg-open/``). The referee is :func:`exactsched.validate`; the
stored makespan must be the schedule's, never below the published lower bound,
and a stored optimum must not exceed the published upper bound.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactsched import Schedule, validate
from exactsched.workloads import read_stg, read_stg_optima

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "stg-open"  # open.csv
GRAPHS = ROOT / "benchmarks" / "data" / "stg"
STORED = sorted((ROOT / "benchmarks" / "results" / "stg-open").glob("*.json"))


def test_every_open_row_has_its_graph() -> None:
    rows = [r for r in read_stg_optima(DATA / "open.csv") if not r.proven]
    assert len(rows) == 84
    assert all((GRAPHS / r.file).is_file() for r in rows)


def test_every_open_row_is_closed_and_certified() -> None:
    # docs/exact-models.md: all 84 open rows closed, each optimum certified and stored.
    docs = [json.loads(p.read_text()) for p in STORED]
    assert len(docs) == 84
    assert all(d["status"] == "optimal" and d["certified"] is True for d in docs)
    assert len({(d["instance"], d["processors"]) for d in docs}) == 84


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_schedule_is_valid(path: Path) -> None:
    doc = json.loads(path.read_text())
    problem = read_stg(GRAPHS / doc["instance"], doc["processors"])
    schedule = Schedule.from_json(doc)
    assert validate(problem, schedule) == []
    assert schedule.makespan == doc["makespan"]
    lower, upper = doc["published"]["lower"], doc["published"]["upper"]
    assert lower <= schedule.makespan  # a published lower bound is never beaten
    assert doc["lower_bound"] <= schedule.makespan
    if doc["status"] == "optimal":
        assert doc["lower_bound"] == schedule.makespan <= upper
    else:
        assert schedule.makespan < upper  # stored only when it improves the upper bound
