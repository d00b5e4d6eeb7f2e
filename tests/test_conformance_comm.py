"""Conformance under the single-port and contention models (issue 19).

Every registered heuristic either declares that it schedules messages
(:data:`heuristics.MESSAGE_AWARE`) and then returns, on every case of a small
zoo (every topology, both models, full and half duplex, with affinity, order
and isolation pairs), a schedule the referee accepts, deterministically; or
:func:`exactsched.solve` refuses the instance with one line naming the model.

Properties:

* zero communication (no data, no latency): every heuristic gives the same
  schedule under all three models;
* no two messages ever share a port or link (a chain: each message is over
  before the next one can start), so single-port and contention give the delay
  schedule;
* HEFT under contention books the messages that the delay model lets collide
  (hand-checked fork below).
"""

from __future__ import annotations

import pytest

import exactsched
import heuristics
from exactsched import MethodError, Problem, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance

HEURISTICS = [m.name for m in exactsched.available_methods() if m.kind == "heuristic"]
AWARE = [h for h in HEURISTICS if h in heuristics.MESSAGE_AWARE]
REFUSING = [h for h in HEURISTICS if h not in heuristics.MESSAGE_AWARE]


def with_model(problem: Problem, model: str, duplex: bool = True) -> Problem:
    return problem.with_communication(model, duplex=None if duplex else False)


def _cases() -> dict[str, Problem]:
    cases = {}
    for k, topology in enumerate(TOPOLOGIES):
        n_procs = 8 if topology == "fat-tree" else 4
        base = random_instance(
            10,
            n_procs,
            topology=topology,
            n_order=2,
            n_isolation=2,
            affinity=0.2,
            ccr=2.0,
            seed=300 + k,
        )
        models = ["single-port"] + ([] if topology == "matrix" else ["contention"])
        for model in models:
            cases[f"{model}@{topology}"] = with_model(base, model)
        if topology in ("mesh", "fat-tree", "fully-connected"):
            for model in models:
                cases[f"{model}-half@{topology}"] = with_model(base, model, duplex=False)
    base = random_instance(10, 8, topology="fat-tree", integral=False, latency=0.5, seed=9)
    cases["contention-fractional@fat-tree"] = with_model(base, "contention")
    return cases


CASES = _cases()


def _run(problem: Problem, name: str) -> exactsched.Schedule:
    info = exactsched.get_method(name)
    return info.func(problem, **({"seed": 0} if "seed" in info.options else {}))


@pytest.mark.parametrize("name", AWARE)
def test_every_aware_heuristic_is_valid_and_deterministic(name):
    for case, problem in CASES.items():
        try:
            schedule = _run(problem, name)
        except MethodError as err:  # minimal-serial: no processor may run every task
            assert "affinity" in str(err), (case, err)
            continue
        assert validate(problem, schedule) == [], case
        again = _run(problem, name)
        assert dict(again) == dict(schedule) and again.messages == schedule.messages, case


def test_solve_checks_and_returns_messages():
    problem = CASES["contention@mesh"]
    result = solve(problem, "heft")
    assert result.schedule.messages
    doc = result.to_json()
    assert all("links" in m for m in doc["messages"])
    assert validate(problem, doc) == []


@pytest.mark.parametrize("name", REFUSING or ["none"])
def test_other_methods_refuse_with_one_line(name):
    if name == "none":
        pytest.skip("every heuristic schedules messages")
    with pytest.raises(MethodError, match=r"does not support the 'contention' communication") as e:
        solve(CASES["contention@mesh"], name)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("topology", ["mesh", "fat-tree", "torus", "hypercube"])
def test_zero_communication_all_models_agree(topology):
    base = random_instance(12, 8 if topology == "fat-tree" else 4, topology=topology, seed=5)
    doc = base.to_json()
    for edge in doc["edges"]:
        edge["data"] = 0
    zero = Problem.from_json(doc)
    for name in AWARE:
        try:
            reference = _run(zero, name)
        except MethodError:
            continue
        for model in ("single-port", "contention"):
            for duplex in (True, False):
                problem = with_model(zero, model, duplex)
                schedule = _run(problem, name)
                assert dict(schedule) == dict(reference), (name, model, duplex)
                assert validate(problem, schedule) == []


def test_no_shared_resource_equals_delay():
    # A chain: the message into task k + 1 ends before task k + 1 starts, and the next
    # message starts only after it finishes, so no two messages ever overlap in time.
    costs = [[3, 1, 4, 2], [2, 5, 1, 3], [4, 2, 2, 1], [1, 3, 5, 2], [2, 2, 1, 4]]
    edges = [(k, k + 1, 2 + k) for k in range(4)]
    for network in (
        {"topology": "mesh", "dims": [2, 2]},
        {"topology": "fully-connected", "latency": 1},
        {"topology": "hypercube", "bandwidth": 2},
    ):
        base = Problem.from_lists(costs, edges, network=network)
        for name in AWARE:
            try:
                reference = _run(base, name)
            except MethodError:
                continue
            for model in ("single-port", "contention"):
                problem = with_model(base, model)
                schedule = _run(problem, name)
                assert dict(schedule) == dict(reference), (name, model, network)


def test_heft_fork_books_the_shared_link():
    # Hand-checked: a (only on p0) -> b, c (data 4 each, b only on p1, c only on p2) on a
    # 1 x 3 mesh. b's message holds p0->p1 over [1, 5); c's message must wait for that
    # link: p0->p1 [5, 9), p1->p2 [9, 13); so c starts at 13 (delay model: 1 + 8 = 9).
    base = Problem.from_lists(
        [1, 1, 1],
        [(0, 1, 4), (0, 2, 4)],
        n_processors=3,
        network={"topology": "mesh", "dims": [1, 3]},
        affinity={0: [0], 1: [1], 2: [2]},
    )
    assert exactsched.solve(base, "heft").makespan == 10
    problem = with_model(base, "contention")
    schedule = solve(problem, "heft").schedule
    assert schedule["t2"].start == 13 and schedule.makespan == 14
    links = {m.dst: [(h.link, h.start, h.finish) for h in m.links] for m in schedule.messages}
    assert links == {
        "t1": [("p0->p1", 1, 5)],
        "t2": [("p0->p1", 5, 9), ("p1->p2", 9, 13)],
    }
    # Single-port on the same mesh: a's one send port sends b's message over [1, 5),
    # then c's (two hops: 8 units) over [5, 13).
    single = solve(with_model(base, "single-port"), "heft").schedule
    assert single["t2"].start == 13
