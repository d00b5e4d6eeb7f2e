"""Numbers and names as the commands show them, and files written whole (outside audit, session 9).

* Every digit a time holds is shown: ``solve``, ``validate``, ``info`` and the
  study tables print 10000000000001 and 133456789012345.5 as they are (``:g``
  printed 6 significant digits; the tables rounded within a relative 1e-13),
  and ``info --json`` keeps a bound of 4e-10 (it was rounded to 9 places: 0).
* A name that starts a Markdown line (``# x``, ``- x``, ``1. x``) is escaped.
* ``atomic_write`` writes a file whose name is as long as a name may be, and a
  failure without a file name (a full disk at ``fsync``) names the target.
"""

from __future__ import annotations

import errno
import json
import os
import re

import pytest

from exactsched import Placement, Problem, Schedule, validate
from exactsched._output import atomic_write, number_text, printable
from exactsched.experiments.report import _num
from tests.test_cli_contract import assert_one_line, run


def _instance(tmp_path, costs, data):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "a"}, {"id": "b"}]},
        "tasks": [{"id": "x", "cost": costs[0]}, {"id": "y", "cost": costs[1]}],
        "edges": [{"src": "x", "dst": "y", "data": data}],
    }
    path = tmp_path / "i.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "value, text",
    [
        (10000000000001.0, "10000000000001"),
        (2.0**53 - 1, "9007199254740991"),
        (133456789012345.5, "133456789012345.5"),
        (0.1 + 0.2 + 0.3, "0.6"),
        (4e-10, "4e-10"),
        (1e15, "1000000000000000"),
        (2.0**60, "1.152921504606847e+18"),
    ],
)
def test_every_digit_a_float_holds_is_shown(value, text):
    assert number_text(value) == text
    assert _num(value) == text
    assert float(text) == value or abs(float(text) - value) <= 16 * abs(value) * 2**-52


def test_solve_prints_every_digit(tmp_path, capsys):
    path = _instance(tmp_path, [133456789012345, 1234567], 3)
    status, out, _ = run(capsys, ["solve", path, "-m", "heft"])
    assert status == 0
    makespan = 133456789012345 + 1234567
    assert f"makespan    {makespan}" in out
    schedule = Schedule(
        {"x": Placement("a", 0, 133456789012345), "y": Placement("a", 133456789012345, makespan)}
    )
    assert validate(Problem.from_json(json.loads(path.read_text())), schedule) == []
    sched_path = tmp_path / "s.json"
    sched_path.write_text(json.dumps(schedule.to_json()))
    status, out, _ = run(capsys, ["validate", path, sched_path])
    assert status == 0 and out.strip().endswith(f"makespan {makespan}")


def test_info_keeps_tiny_bounds(tmp_path, capsys):
    path = _instance(tmp_path, [1.5e-10, 2.5e-10], 3e-10)
    status, out, _ = run(capsys, ["info", path, "--json"])
    assert status == 0
    doc = json.loads(out)
    assert doc["lower_bound"] == pytest.approx(4e-10, rel=1e-12)
    assert doc["lower_bounds"]["load"] == pytest.approx(2e-10, rel=1e-12)
    status, out, _ = run(capsys, ["info", path])
    assert "lower bound     4e-10" in out


@pytest.mark.parametrize(
    "name", ["# Evil", "- item", "+ item", "= rule", "> quote", "12. item", "3) x"]
)
def test_a_name_never_starts_a_markdown_block(name):
    shown = printable(name, markdown=True)
    # CommonMark's escapes: "\\#" for a block start, "12\\." for a list marker (a
    # backslash before a digit is no escape and would show)
    assert shown.startswith("\\") or re.match(r"\d+\\[.)] ", shown), shown
    assert printable(name) == name  # the terminal shows it as it is


@pytest.mark.parametrize("number", ["0.00%", "9.59%", "0.0009", "1.5 x", "12.5"])
def test_a_number_in_a_markdown_cell_is_not_escaped(number):
    """An outside audit: every decimal in the --report tables started with a backslash."""
    assert printable(number, markdown=True) == number


def test_atomic_write_takes_the_longest_name(tmp_path):
    target = tmp_path / ("r" * 250 + ".md")  # 253 bytes: a name may have 255
    with atomic_write(target, encoding="utf-8") as fh:
        fh.write("whole")
    assert target.read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_a_full_disk_names_the_target(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "plot.svg"
    with pytest.raises(OSError) as caught, atomic_write(target, encoding="utf-8") as fh:
        fh.write("x")
    assert caught.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []


def test_results_report_to_a_long_name(tmp_path, capsys):
    db = tmp_path / "s.sqlite"
    example = _instance(tmp_path, [3, 4], 2)
    status, _, err = run(capsys, ["compare", example, "--db", db, "-t", "2", "--methods", "heft"])
    assert status == 0, err
    report = tmp_path / ("r" * 245 + ".md")
    status, _, err = run(capsys, ["results", db, "--report", report])
    assert status == 0, err
    assert report.exists()
    status, _, err = run(capsys, ["results", db, "--report", tmp_path / ("r" * 300 + ".md")])
    assert_one_line(status, err)


def test_near_tie_digits_and_huge_integers_show_as_they_are():
    """An outside audit: 2000000000000.003 printed as 2000000000000 (16 ulps of
    "noise" hid a real .003), and an integer bound of 1e300 as 301 digits."""
    from exactsched.schedule import _tidy

    assert number_text(2000000000000.003) == "2000000000000.003"
    assert number_text(0.1 + 0.2 + 0.3) == "0.6"  # a rounding of sums still goes
    assert number_text(int(1e300)) == "1e+300" and _tidy(int(1e300)) == 1e300
    assert number_text(2**53 + 1) == "9007199254740993" and _tidy(2**53 + 1) == 2**53 + 1
    assert number_text(10**400) == str(10**400) and _tidy(10**400) == 10**400
