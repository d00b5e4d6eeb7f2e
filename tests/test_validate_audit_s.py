"""Outside audit S of the referee: six defects, one regression test each, plus one found after.

1. A ``lower_bound`` claim that is an integer too large for a float crashed
   ``exactsched validate`` (exit 3, ``OverflowError``) instead of being refuted.
2. A ``lower_bound`` of ``Infinity`` (or ``1e400``, which reads as it) passed as valid.
3. Whole numbers from 2**53 on with at most 15 significant digits
   (``9007199254751000``) were read with the float noise: their ``repr`` has 17
   characters, and the zeros that only place the point were counted as digits.
4. A number with more than 60 decimal places (``1e-61``, ``5e-324``) switched
   every rule reading it to the float noise, though it is a one-digit decimal.
5. Under ``single-port`` a JSON integer past 2**53 was read exactly while the same
   number written with ``.0`` was read with the float noise: two verdicts.
6. Isolation used a two-sided overlap test, so a task shorter than the float noise
   could start strictly inside its partner (on one processor: an overlap).
7. (Found by re-running the audit's fuzzer after the fixes.) On a processor, an end
   read with the float noise could hide a later exact end tying with it in floating
   point, and with it an exact overlap.

Each test also checks that the valid near-miss counterparts stay valid.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from exactsched import validate
from exactsched.cli import main

FORMAT = "exactsched/instance@1"


def instance(n_procs: int, tasks: list[dict], **extra: Any) -> dict:
    """An instance document on ``n_procs`` processors ``p0 ..``."""
    processors = [{"id": f"p{k}"} for k in range(n_procs)]
    return {"format": FORMAT, "platform": {"processors": processors}, "tasks": tasks, **extra}


def schedule(*rows: tuple[str, str, float, float], **extra: Any) -> dict:
    """A schedule document from ``(task, processor, start, finish)`` rows."""
    tasks = [{"id": t, "processor": p, "start": s, "finish": f} for t, p, s, f in rows]
    return {"format": "exactsched/schedule@1", "tasks": tasks, **extra}


def cli_validate(capsys, tmp_path: Path, problem: dict, schedule_text: str) -> tuple[int, str]:
    """``exactsched validate`` on the two documents: exit status and standard output."""
    (tmp_path / "i.json").write_text(json.dumps(problem))
    (tmp_path / "s.json").write_text(schedule_text)
    status = main(["validate", str(tmp_path / "i.json"), str(tmp_path / "s.json")])
    return status, capsys.readouterr().out


# a -> b (data 2) on two processors: a [0, 1) on p0, b [3, 4) on p1, makespan 4.
CLAIMS = instance(
    2,
    [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
    edges=[{"src": "a", "dst": "b", "data": 2}],
)
CLAIMED = schedule(("a", "p0", 0, 1), ("b", "p1", 3, 4))


def with_bound(text: str) -> str:
    """The schedule of CLAIMS with ``"lower_bound": text`` spelt as given (JSON5-ish)."""
    return json.dumps(CLAIMED)[:-1] + f', "lower_bound": {text}}}'


# ---- 1. and 2. lower_bound claims beyond every float ----------------------------------


@pytest.mark.parametrize("text", [str(10**400), "1" + "0" * 308 + ".5e3", "Infinity", "1e400"])
def test_a_lower_bound_beyond_every_float_is_refuted(capsys, tmp_path, text):
    # /tmp/auditS/s_lbbig.json (401 digits: exit 3, OverflowError), s_lbinf.json and
    # s_lb1e400.json (exit 0): each is above the makespan 4, so exit 1.
    status, out = cli_validate(capsys, tmp_path, CLAIMS, with_bound(text))
    assert status == 1, out
    assert re.search(r"lower_bound: \S+ is above the schedule's own makespan 4", out)


@pytest.mark.parametrize(
    "text", [str(-(10**400)), "-Infinity", "NaN", "null", "4", "4.000000000000001", "3.5"]
)
def test_a_lower_bound_not_above_the_makespan_stands(capsys, tmp_path, text):
    # Near misses: at or below the makespan, within its float noise, or not a number.
    status, out = cli_validate(capsys, tmp_path, CLAIMS, with_bound(text))
    assert status == 0, out


# ---- 3. whole numbers past 2**53 with at most 15 significant digits ----------------------

# a (cost 1000) and b (cost 10) on one processor.
BIG = instance(1, [{"id": "a", "cost": 1000}, {"id": "b", "cost": 10}])


@pytest.mark.parametrize(
    "a_start, b_start",
    [
        (9007199254750000, 9007199254750990),  # /tmp/auditS/s_9e15b.json: overlap 10
        (9.00719925475e15, 9.00719925475099e15),  # s_9e15c.json: the same, as floats
        (9007199254740000, 9007199254740990),  # s_9e15.json, below 2**53: was caught
    ],
)
def test_whole_numbers_past_2_53_with_few_digits_are_read_exactly(a_start, b_start):
    doc = schedule(("a", "p0", a_start, a_start + 1000), ("b", "p0", b_start, b_start + 10))
    violations = validate(BIG, doc)
    assert len(violations) == 1 and violations[0].startswith("processor p0: a ["), violations


@pytest.mark.parametrize(
    "a_start, b_start",
    [
        (9007199254750000, 9007199254751000),  # touching
        (9.00719925475e15, 9.007199254751e15),
        (10000000000000000, 10000000000000990),  # s_1e16.json: 16 digits, float noise 16
    ],
)
def test_whole_numbers_past_2_53_near_misses_stay_valid(a_start, b_start):
    doc = schedule(("a", "p0", a_start, a_start + 1000), ("b", "p0", b_start, b_start + 10))
    assert validate(BIG, doc) == []


def test_a_makespan_past_2_53_is_compared_exactly():
    # /tmp/auditS/s_9e15mk.json: makespan 9007199254751000, largest finish ...1010.
    rows = (("a", "p0", 9007199254750010, 9007199254751010), ("b", "p0", 0, 10))
    wrong = validate(BIG, schedule(*rows, makespan=9007199254751000))
    assert wrong == ["makespan: 9.007199254751e+15 but the largest finish is 9.00719925475101e+15"]
    assert validate(BIG, schedule(*rows, makespan=9007199254751010)) == []
    assert validate(BIG, schedule(*rows, makespan=9.00719925475101e15)) == []


@pytest.mark.parametrize("start, valid", [(9.00719925475099e15, False), (9.007199254751e15, True)])
def test_single_port_reads_whole_numbers_past_2_53_exactly(start, valid):
    # validate_comm counted the digits the same wrong way: a message starting 10 units
    # before its sender finishes (float spelling, 17 characters) passed as noise.
    network = {"topology": "fully-connected", "communication": "single-port"}
    problem = instance(
        2,
        [{"id": "a", "cost": 1000}, {"id": "b", "cost": 2}],
        edges=[{"src": "a", "dst": "b", "data": 2}],
    )
    problem["platform"]["network"] = network
    doc = schedule(
        ("a", "p0", 9.00719925475e15, 9.007199254751e15),
        ("b", "p1", 9.007199254752e15, 9.007199254752e15 + 2),
        messages=[{"src": "a", "dst": "b", "start": start, "finish": start + 2}],
    )
    late = (
        "message a -> b: ports p0->p1 starts at 9.00719925475099e+15 before a finishes "
        "at 9.007199254751e+15"
    )
    assert validate(problem, doc) == ([] if valid else [late])


# ---- 4. any number of decimal places ------------------------------------------------


@pytest.mark.parametrize("cost", [1e-61, 1e-60, 0.0])
def test_an_edge_reading_many_decimal_places_is_exact(cost):
    # /tmp/auditS/i_pl_1e-61.json with s_pl.json: accepted, while cost 1e-60 (or 0)
    # was refused: b starts 0.01 before the data arrive.
    problem = instance(
        2,
        [{"id": "a", "cost": cost}, {"id": "b", "cost": 1}],
        edges=[{"src": "a", "dst": "b", "data": 0.01}],
    )
    late = schedule(("a", "p0", 1e14, 1e14), ("b", "p1", 1e14, 1e14 + 1))
    violations = validate(problem, late)
    assert len(violations) == 1 and violations[0].startswith("edge a -> b: b starts at 1e+14")
    on_time = schedule(("a", "p0", 1e14, 1e14), ("b", "p1", 1e14 + 0.02, 1e14 + 1.02))
    assert validate(problem, on_time) == []


def test_tasks_of_cost_1e_76_overlap_exactly():
    # /tmp/auditS/i_tiny.json with s_tiny.json: two tasks of cost 1e-76 at one start.
    problem = instance(1, [{"id": "a", "cost": 1e-76}, {"id": "b", "cost": 1e-76}])
    both = schedule(("a", "p0", 1e-61, 1e-61 + 1e-76), ("b", "p0", 1e-61, 1e-61 + 1e-76))
    violations = validate(problem, both)
    assert len(violations) == 1 and violations[0].startswith("processor p0: a [1e-61,")
    after = schedule(("a", "p0", 1e-61, 1e-61 + 1e-76), ("b", "p0", 1e-61 + 1e-76, 1e-61 + 2e-76))
    assert validate(problem, after) == []


def test_a_makespan_of_5e_324_is_not_0():
    # /tmp/auditS/dis/1841_10: a makespan of 5e-324 (written 4.940656e-324) beside a
    # largest finish of 0 was accepted.
    problem = instance(1, [{"id": "t0", "cost": 0}])
    assert validate(problem, schedule(("t0", "p0", 0, 0), makespan=4.940656e-324)) == [
        "makespan: 4.94065645841e-324 but the largest finish is 0"
    ]
    assert validate(problem, schedule(("t0", "p0", 0, 0), makespan=0)) == []


def test_a_successor_5e_324_early_is_late():
    # /tmp/auditS/dis/1429_10: t1 starts at 0, its predecessor finishes at 5e-324.
    problem = instance(
        1,
        [{"id": "t0", "cost": 0}, {"id": "t1", "cost": 7000}],
        edges=[{"src": "t0", "dst": "t1", "data": 500}],
    )
    early = schedule(("t0", "p0", 5e-324, 5e-324), ("t1", "p0", 0, 7000))
    violations = validate(problem, early)
    assert len(violations) == 1 and violations[0].startswith("edge t0 -> t1: t1 starts at 0")
    on_time = schedule(("t0", "p0", 5e-324, 5e-324), ("t1", "p0", 5e-324, 7000))
    assert validate(problem, on_time) == []


# ---- 5. single-port reads numbers as the delay model does ----------------------------


@pytest.mark.parametrize("model", ["single-port", "contention", "delay"])
@pytest.mark.parametrize("spelling", ["{}", "{}.0"])
@pytest.mark.parametrize(
    "message_start, valid", [(9007199254740992, True), (9007199254740970, False)]
)
def test_an_integer_past_2_53_reads_as_its_float(model, spelling, message_start, valid):
    # /tmp/auditS/i_sp_big2.json with s_sp_big2f.json (exit 1) and s_sp_big2f_float.json
    # (exit 0): a message 2 units before its sender finishes at 9.007e15 (float noise
    # 16) is valid however it is written; 24 units is not.
    problem = instance(
        2,
        [{"id": "a", "cost": 4}, {"id": "b", "cost": 2}],
        edges=[{"src": "a", "dst": "b", "data": 2}],
    )
    problem["platform"]["network"] = {"topology": "fully-connected", "communication": model}
    doc = schedule(
        ("a", "p0", 9007199254740990, 9007199254740994),
        ("b", "p1", 9007199254740996, 9007199254740998),
    )
    if model != "delay":
        message = {"src": "a", "dst": "b", "start": 0, "finish": 0}
        if model == "contention":
            message["links"] = [{"link": "p0->p1", "start": 0, "finish": 0}]
        doc["messages"] = [message]
    text = json.dumps(doc)
    for value, key in ((message_start, "start"), (message_start + 2, "finish")):
        text = text.replace(f'"{key}": 0', f'"{key}": {spelling.format(value)}')
    violations = validate(problem, json.loads(text))
    if model == "delay" or valid:
        assert violations == []
    else:
        assert violations == [
            f"message a -> b: {'ports' if model == 'single-port' else 'link'} p0->p1 starts "
            "at 9.00719925474097e+15 before a finishes at 9007199254740994"
        ]


# ---- 6. isolation judged as two tasks of one processor ----------------------------------


def isolated(iso: bool) -> dict:
    """a (cost 1) and b (cost 1e-18) on two processors, isolated from each other or not."""
    tasks = [{"id": "a", "cost": 1}, {"id": "b", "cost": 1e-18}]
    return instance(2, tasks, isolation=[["a", "b"]] if iso else [])


def test_a_tiny_task_may_not_start_inside_its_isolation_partner():
    # /tmp/auditS/i_isoA.json with s_isoA.json: accepted, while the same on one
    # processor (i_laneA.json, s_laneA.json) was an overlap.
    b = 1.0000000000000002
    violations = validate(isolated(True), schedule(("a", "p0", 1, 2), ("b", "p1", b, b)))
    assert violations == [
        "isolation a / b: [1, 2) and [1.0000000000000002, 1.0000000000000002) overlap in time"
    ]


@pytest.mark.parametrize(
    "b_start, inside",
    [
        (0.5, False),
        (0.9999999999999999, False),
        (1, False),  # touching a's start: [1, 1 + 1e-18) ends at 1 in floating point
        (1.0000000000000002, True),
        (1.5, True),
        (1.9999999999999998, False),  # within the float noise of a's end
        (2, False),
        (2.5, False),
    ],
)
def test_isolation_agrees_with_one_processor(b_start, inside):
    # Rule 4 judges a pair as rule 1 judges two tasks of one processor: the near misses
    # (touching, within the noise, before, after) are valid both ways, the starts inside not.
    lane = validate(isolated(False), schedule(("a", "p0", 1, 2), ("b", "p0", b_start, b_start)))
    iso = validate(isolated(True), schedule(("a", "p0", 1, 2), ("b", "p1", b_start, b_start)))
    assert bool(iso) == bool(lane) == inside, (lane, iso)


def test_isolation_of_a_task_starting_just_before_its_partner():
    # /tmp/auditS/dis/2132_8: t0 (cost 1e-16) starts inside t1, which began 2e-11 earlier.
    problem = instance(
        2,
        [{"id": "t0", "cost": 1e-16}, {"id": "t1", "cost": 2.0000000000000003e-10}],
        isolation=[["t0", "t1"]],
    )
    t1 = ("t1", "p1", 123456.78899999998, 123456.78900000018)
    inside = validate(problem, schedule(("t0", "p0", 123456.789, 123456.789), t1))
    assert len(inside) == 1 and inside[0].startswith("isolation t0 / t1:"), inside
    after = ("t0", "p0", 123456.78900000018, 123456.78900000018)
    assert validate(problem, schedule(after, t1)) == []


# ---- 7. an exact overlap behind a noisy end ----------------------------------------------


def test_an_exact_overlap_is_not_hidden_by_a_noisy_end():
    # /tmp/mender dis/889_4 of the audit's fuzzer: t1 (0.2) and t3 (0.25) both start at
    # 1e15 on p1, an exact overlap; t0 (0.30000000000000004, float noise) ends at the same
    # float, held the processor, and was the only end t1 and t3 were compared with.
    problem = instance(
        1,
        [
            {"id": "t0", "cost": 0.30000000000000004},
            {"id": "t1", "cost": 0.2},
            {"id": "t3", "cost": 0.25},
        ],
    )
    end = 1e15 + 0.25
    rows = [("t0", "p0", 1e15, end), ("t1", "p0", 1e15, end)]
    assert validate(problem, schedule(*rows, ("t3", "p0", end, end + 0.25))) == []
    assert validate(problem, schedule(*rows, ("t3", "p0", 1e15, end))) == [
        "processor p0: t1 [1e+15, 1000000000000000.2) overlaps t3 [1e+15, 1000000000000000.2)"
    ]
