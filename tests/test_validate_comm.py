"""The referee's message rules under single-port and contention (exactsched.validate_comm).

The examples are reconstructed by hand in the manner of Sinnen's chapter 7
(a fork on a linear network whose two messages need the same first link; a
join whose two messages meet on the receiver's incoming link), not copied from
the book: every expected time is worked out in the comments.
"""

from __future__ import annotations

import json
import re

import pytest

from exactsched import Placement, Problem, Schedule, ScheduleError, validate
from exactsched.cli import main
from exactsched.messages import LinkTime, Message


def fork(model: str, duplex: bool = True, topology: dict | None = None) -> Problem:
    """a (cost 1) -> b (data 2) and a -> c (data 3); b, c cost 1; three processors."""
    network = topology or {"topology": "mesh", "dims": [1, 3]}
    return Problem.from_lists(
        [1, 1, 1],
        [(0, 1, 2), (0, 2, 3)],
        n_processors=3,
        network={**network, "communication": model, "duplex": duplex},
    )


def lt(*hops: tuple[str, float, float]) -> tuple[LinkTime, ...]:
    return tuple(LinkTime(*h) for h in hops)


def one(violations: list[str], pattern: str) -> None:
    assert len(violations) == 1, violations
    assert re.fullmatch(pattern, violations[0]), violations[0]


# ---- contention: the fork on a linear network p0 - p1 - p2 ------------------------------
#
# a on p0 finishes at 1. a -> b (data 2) crosses p0->p1: [1, 3), so b starts at 3 on p1.
# a -> c (data 3) crosses p0->p1 then p1->p2. Under the delay model c could start at
# 1 + 2 * 3 = 7; under contention the first link is busy until 3, so a -> c holds
# p0->p1 over [3, 6) and p1->p2 over [6, 9): c starts at 9.

TASKS = {"t0": Placement("p0", 0, 1), "t1": Placement("p1", 3, 4), "t2": Placement("p2", 9, 10)}
AB = Message("t0", "t1", 1, 3, lt(("p0->p1", 1, 3)))
AC = Message("t0", "t2", 3, 9, lt(("p0->p1", 3, 6), ("p1->p2", 6, 9)))


def test_contention_fork_hand_checked():
    p = fork("contention")
    assert validate(p, Schedule(TASKS, [AB, AC])) == []
    # The delay model's schedule: a -> c leaves at 1 and shares p0->p1 with a -> b.
    early = Message("t0", "t2", 1, 7, lt(("p0->p1", 1, 4), ("p1->p2", 4, 7)))
    tasks = {**TASKS, "t2": Placement("p2", 7, 8)}
    one(
        validate(p, Schedule(tasks, [AB, early])),
        r"link p0->p1: message t0 -> t1 \[1, 3\) overlaps message t0 -> t2 \[1, 4\)",
    )
    # The same schedule is valid under the delay model (messages are ignored there).
    assert validate(fork("delay"), Schedule(tasks, [AB, early])) == []


def test_contention_store_and_forward_and_durations():
    p = fork("contention")
    cut = Message("t0", "t2", 3, 9, lt(("p0->p1", 3, 6), ("p1->p2", 5, 8)))
    violations = validate(p, Schedule(TASKS, [AB, cut]))
    assert violations == [
        "message t0 -> t2: start 3 and finish 9 are not those of its first and last link",
        "message t0 -> t2: link p1->p2 starts at 5 before link p0->p1 ends at 6",
    ]
    short = Message("t0", "t2", 3, 9, lt(("p0->p1", 3, 6), ("p1->p2", 7, 9)))
    one(
        validate(p, Schedule(TASKS, [AB, short])),
        r"message t0 -> t2: link p1->p2 holds \[7, 9\) but the transfer lasts 3",
    )
    before = Message("t0", "t1", 0, 2, lt(("p0->p1", 0, 2)))
    violations = validate(p, Schedule({**TASKS, "t1": Placement("p1", 2, 3)}, [before, AC]))
    assert "message t0 -> t1: link p0->p1 starts at 0 before t0 finishes at 1" in violations


def test_contention_missing_wrong_and_stray_messages():
    p = fork("contention")
    one(
        validate(p, Schedule(TASKS, [AB])),
        r"edge t0 -> t2: no message times \(t0 on p0, t2 on p2, contention model\)",
    )
    wrong = Message("t0", "t2", 3, 9, lt(("p0->p1", 3, 6), ("p2->p1", 6, 9)))
    one(
        validate(p, Schedule(TASKS, [AB, wrong])),
        r"message t0 -> t2: links \['p0->p1', 'p2->p1'\] are not the route "
        r"\['p0->p1', 'p1->p2'\] from p0 to p2",
    )
    local = {**TASKS, "t1": Placement("p0", 1, 2)}
    one(
        validate(p, Schedule(local, [AB, AC])),
        r"message t0 -> t1: not a remote edge of this schedule .*",
    )


def test_join_half_duplex():
    # A join: t0 on p0 and t1 on p2 both send 2 to t2 on p1 (fully connected, direct
    # links). The links p0->p1 and p2->p1 are distinct, so both arrive at 1 + 2 = 3.
    net = {"topology": "fully-connected", "communication": "contention"}
    p = Problem.from_lists(
        [1, 1, 1, 1], [(0, 2, 2), (1, 2, 2), (0, 3, 2)], n_processors=3, network=net
    )
    tasks = {
        "t0": Placement("p0", 0, 1),
        "t1": Placement("p2", 0, 1),
        "t2": Placement("p1", 3, 4),
        "t3": Placement("p0", 1, 2),
    }
    msgs = [
        Message("t0", "t2", 1, 3, lt(("p0->p1", 1, 3))),
        Message("t1", "t2", 1, 3, lt(("p2->p1", 1, 3))),
    ]
    assert validate(p, Schedule(tasks, msgs)) == []
    # Two messages in opposite directions over one link at once: fine when duplex, a
    # collision when half duplex.
    q = Problem.from_lists([1, 1, 1, 1], [(0, 1, 2), (2, 3, 2)], n_processors=2, network=net)
    tasks = {
        "t0": Placement("p0", 0, 1),
        "t1": Placement("p1", 3, 4),
        "t2": Placement("p1", 0, 1),
        "t3": Placement("p0", 3, 4),
    }
    msgs = [
        Message("t0", "t1", 1, 3, lt(("p0->p1", 1, 3))),
        Message("t2", "t3", 1, 3, lt(("p1->p0", 1, 3))),
    ]
    assert validate(q, Schedule(tasks, msgs)) == []
    half = Problem.from_json(
        {
            **q.to_json(),
            "platform": {**q.to_json()["platform"], "network": {**net, "duplex": False}},
        }
    )
    one(
        validate(half, Schedule(tasks, msgs)),
        r"link p0--p1: message t0 -> t1 \[1, 3\) overlaps message t2 -> t3 \[1, 3\)",
    )


# ---- single-port -----------------------------------------------------------------------------
#
# The fork on a fully connected network: a's two messages leave from one send port,
# so they go one after the other: a -> b over [1, 3), a -> c over [3, 6).


def test_single_port_fork_hand_checked():
    p = fork("single-port", topology={"topology": "fully-connected"})
    tasks = {"t0": Placement("p0", 0, 1), "t1": Placement("p1", 3, 4), "t2": Placement("p2", 6, 7)}
    ok = [Message("t0", "t1", 1, 3), Message("t0", "t2", 3, 6)]
    assert validate(p, Schedule(tasks, ok)) == []
    both = [Message("t0", "t1", 1, 3), Message("t0", "t2", 1, 4)]
    one(
        validate(p, Schedule({**tasks, "t2": Placement("p2", 4, 5)}, both)),
        r"port send p0: message t0 -> t1 \[1, 3\) overlaps message t0 -> t2 \[1, 4\)",
    )
    linked = [Message("t0", "t1", 1, 3, lt(("p0->p1", 1, 3))), ok[1]]
    one(
        validate(p, Schedule(tasks, linked)),
        r"message t0 -> t1: lists links, but the model is single-port",
    )


def test_single_port_multi_hop_and_half_duplex():
    # On a mesh 1 x 3, p0 -> p2 is 2 hops: the message lasts 2 * 3 = 6 on both ports.
    p = fork("single-port")
    tasks = dict(TASKS)  # the times of the contention fork, for the same reason
    ok = [Message("t0", "t1", 1, 3), Message("t0", "t2", 3, 9)]
    assert validate(p, Schedule(tasks, ok)) == []
    one(
        validate(p, Schedule(tasks, [ok[0], Message("t0", "t2", 3, 8)])),
        r"message t0 -> t2: ports p0->p2 holds \[3, 8\) but the transfer lasts 6",
    )
    # A relay: t1 on p1 receives from t0 and sends to t3 on p2. Duplex: p1 may receive and
    # send at once; half duplex: its one port is busy with both.
    q = Problem.from_lists(
        [1, 0, 1, 1],
        [(0, 2, 2), (1, 3, 2)],
        n_processors=3,
        network={"communication": "single-port"},
    )
    tasks = {
        "t0": Placement("p0", 0, 1),
        "t1": Placement("p1", 0, 0),
        "t2": Placement("p1", 3, 4),
        "t3": Placement("p2", 2, 3),
    }
    msgs = [Message("t0", "t2", 1, 3), Message("t1", "t3", 0, 2)]
    assert validate(q, Schedule(tasks, msgs)) == []
    qh = Problem.from_json(
        {
            **q.to_json(),
            "platform": {
                **q.to_json()["platform"],
                "network": {"communication": "single-port", "duplex": False},
            },
        }
    )
    one(
        validate(qh, Schedule(tasks, msgs)),
        r"port port p1: message t1 -> t3 \[0, 2\) overlaps message t0 -> t2 \[1, 3\)",
    )


def test_zero_length_messages_hold_nothing():
    p = Problem.from_lists(
        [1, 1, 1],
        [(0, 1, 0), (0, 2, 0)],
        n_processors=3,
        network={"communication": "single-port"},
    )
    tasks = {"t0": Placement("p0", 0, 1), "t1": Placement("p1", 1, 2), "t2": Placement("p2", 1, 2)}
    msgs = [Message("t0", "t1", 1, 1), Message("t0", "t2", 1, 1)]
    assert validate(p, Schedule(tasks, msgs)) == []


def test_decimal_times_are_exact_and_float_artefacts_get_slack():
    p = Problem.from_lists(
        [0.1, 1],
        [(0, 1, 0.2)],
        n_processors=2,
        network={"communication": "contention", "bandwidth": 1},
    )
    # 0.1 + 0.2 = 0.30000000000000004 in floats; both forms are accepted.
    for arrival in (0.3, 0.1 + 0.2):
        tasks = {"t0": Placement("p0", 0, 0.1), "t1": Placement("p1", arrival, arrival + 1)}
        m = Message("t0", "t1", 0.1, arrival, lt(("p0->p1", 0.1, arrival)))
        assert validate(p, Schedule(tasks, [m])) == []
    tasks = {"t0": Placement("p0", 0, 0.1), "t1": Placement("p1", 0.3, 1.3)}
    m = Message("t0", "t1", 0.1, 0.299999, lt(("p0->p1", 0.1, 0.299999)))
    assert any("transfer lasts" in v for v in validate(p, Schedule(tasks, [m])))


def test_decimal_hop_weights_are_read_as_decimals():
    # Matrix hops of 0.1 under single-port: the transfer lasts 0.1 * (0.1 + 1) = 0.11
    # exactly; the referee once read the weight as its binary value and rejected every
    # method's schedule (an outside audit, session 17).
    network = {
        "topology": "matrix",
        "hops": [[0, 0.1], [0.1, 0]],
        "latency": 0.1,
        "communication": "single-port",
    }
    p = Problem.from_lists([[0.1, 100], [100, 1]], [(0, 1, 1)], network=network)
    tasks = {"t0": Placement("p0", 0, 0.1), "t1": Placement("p1", 0.21, 1.21)}
    m = Message("t0", "t1", 0.1, 0.21)
    assert validate(p, Schedule(tasks, [m])) == []
    short = Message("t0", "t1", 0.1, 0.2)
    late = {**tasks, "t1": Placement("p1", 0.2, 1.2)}
    assert any("transfer lasts" in v for v in validate(p, Schedule(late, [short])))
    import exactsched

    for method in ("heft", "cpsat", "bruteforce"):
        r = exactsched.solve(p, method, time_limit=5, workers=1)
        assert validate(p, r.schedule) == [] and r.makespan == 1.21


def test_schedule_json_round_trip_and_cli(tmp_path):
    s = Schedule(TASKS, [AB, AC])
    doc = s.to_json()
    assert doc["messages"][1]["links"][1] == {"link": "p1->p2", "start": 6, "finish": 9}
    back = Schedule.from_json(json.loads(json.dumps(doc)))
    assert back.messages == (AB, AC)
    assert "messages" not in Schedule(TASKS).to_json()  # delay schedules unchanged
    inst = tmp_path / "fork.json"
    inst.write_text(json.dumps(fork("contention").to_json()))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc))
    assert main(["validate", str(inst), str(good)]) == 0
    bad = dict(doc, messages=[AB.to_json()])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["validate", str(inst), str(path)]) == 1


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ("x", r"messages: expected a list of messages"),
        ([{"src": "a"}], r"messages\[0\]\.dst: expected a task id"),
        ([{"src": "a", "dst": "b", "start": True, "finish": 1}], r"messages\[0\]\.start: .*"),
        (
            [{"src": "a", "dst": "b", "start": 0, "finish": 1, "links": [{"link": 3}]}],
            r"messages\[0\]\.links\[0\]\.link: expected a link name for edge 'a' -> 'b'",
        ),
    ],
)
def test_bad_message_documents(messages, error):
    doc = {"format": "exactsched/schedule@1", "tasks": [], "messages": messages}
    with pytest.raises(ScheduleError, match=error):
        Schedule.from_json(doc)


@pytest.mark.parametrize("model", ["single-port", "contention"])
def test_an_empty_task_id_sends_messages_too(tmp_path, model):
    # "" is a task id like any other: the schedule file of a message it sends was
    # refused by the project's own reader (an outside audit, session 17).
    import exactsched

    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": "p0"}, {"id": "p1"}],
            "network": {"communication": model},
        },
        "tasks": [
            {"id": "", "cost": 1, "processors": ["p0"]},
            {"id": "b", "cost": 1, "processors": ["p1"]},
        ],
        "edges": [{"src": "", "dst": "b", "data": 2}],
    }
    problem = exactsched.load_instance(doc)
    result = exactsched.solve(problem, "heft")
    assert validate(problem, result.to_json()) == [] and result.makespan == 4
    instance, schedule = tmp_path / "i.json", tmp_path / "s.json"
    instance.write_text(json.dumps(doc))
    schedule.write_text(json.dumps(result.to_json()))
    assert main(["validate", str(instance), str(schedule)]) == 0
