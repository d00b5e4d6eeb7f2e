"""The branch and bound of ``orderings --search`` within its memory cap (SEARCH_MEMORY)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

import exactsched
from exactsched import Problem, validate
from models import _ordering_search
from models._ordering_cost import BatchSchedule
from models._ordering_search import branch_and_bound
from models.orderings import ordering_schedule

TOPCUOGLU = "examples/topcuoglu2002.json"


def two_roots(n: int) -> Problem:
    """Two roots each joined to the same n - 2 tasks (data 1), unit costs, two processors.

    At n = 40 the stack of open prefixes grew to 2.8 GB in 15 s, without a cap.
    """
    arcs = [(r, k, 1) for r in (0, 1) for k in range(2, n)]
    return Problem.from_lists([1] * n, arcs, n_processors=2)


def test_search_stops_at_the_memory_cap(monkeypatch):
    p = two_roots(40)
    cap = 16 * 2**20
    monkeypatch.setattr(_ordering_search, "SEARCH_MEMORY", cap)
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        r = branch_and_bound(p, time_limit=None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    wall = time.perf_counter() - t0
    assert r.stopped == "memory" and not r.proven
    assert wall < 5  # without the cap it runs on for minutes, to gigabytes
    assert peak < 2 * cap  # the estimate follows what numpy and the table allocate
    assert exactsched.lower_bound(p) <= r.lower_bound <= r.makespan
    s = ordering_schedule(p, r.ordering)
    assert validate(p, s) == [] and s.makespan == r.makespan
    assert r.makespan <= exactsched.solve(p, "heft").makespan


def test_a_cap_below_the_first_prefix_returns_the_first_incumbent(monkeypatch):
    p = two_roots(12)
    monkeypatch.setattr(_ordering_search, "SEARCH_MEMORY", 1)
    r = branch_and_bound(p, time_limit=None)
    assert r.stopped == "memory" and not r.proven and r.nodes == 0
    assert r.lower_bound == exactsched.lower_bound(p) <= r.makespan
    assert validate(p, ordering_schedule(p, r.ordering)) == []


@pytest.mark.parametrize(
    ("limit", "stopped"), [(0.0, "time limit"), (None, None)], ids=["timed-out", "complete"]
)
def test_stopped_names_the_reason(limit, stopped):
    p = exactsched.load_instance(TOPCUOGLU)
    r = branch_and_bound(p, time_limit=limit, stop_at_bound=False)
    assert r.stopped == stopped and r.proven == (stopped is None)


def test_the_estimate_counts_every_array_of_a_batch():
    # proc, start, finish (rows, n); busy intervals (rows, P, n) twice; last end (rows, P).
    p = Problem.from_lists([1, 2, 3], [(0, 1, 1)], n_processors=4)
    rows, n, P = 5, 3, 4
    batch = BatchSchedule(p, rows)
    expected = 8 * rows * (3 * n + 2 * P * n + P)
    assert _ordering_search._nbytes(batch) == expected
    prefix = np.zeros((rows, 2), dtype=np.int64)
    assert _ordering_search._nbytes(prefix, batch) == expected + prefix.nbytes


def test_the_cli_says_why_the_search_stopped(tmp_path, capsys, monkeypatch):
    import json

    from exactsched.cli import main

    monkeypatch.setattr(_ordering_search, "SEARCH_MEMORY", 1)
    path = tmp_path / "two-roots.json"
    path.write_text(json.dumps(two_roots(40).to_json()))
    assert main(["orderings", str(path), "--best", "makespan", "--search", "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["best"]
    assert best["proven"] is False and best["stopped"] == "memory"
    assert main(["orderings", str(path), "--best", "makespan", "--search"]) == 0
    out = capsys.readouterr().out
    assert "not proven" in out and "stopped: memory" in out
