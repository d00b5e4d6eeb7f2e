"""Audit of issue 17: the identical-processors mark is per run, not per method.

A method registered with ``assumes_identical_processors=True`` picks processors
by earliest start as if they were identical; a run whose options switch it to
``processor_choice="earliest-finish"`` (the project's adaptation, which weighs
each processor's cost) does not, so compare tables must not mark it ``*`` and
the JSON flag of its rows and summary must say False.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from exactsched.cli import main
from exactsched.experiments.analysis import row_assumes_identical, run_assumes_identical
from exactsched.experiments.report import IDENTICAL_MARK, summary_legend
from exactsched.registry import available_methods, get_method

ROOT = Path(__file__).resolve().parents[1]
SINGLE_GPU = str(ROOT / "examples" / "cholesky-n3-single-gpu.json")

FLAGGED = [m.name for m in available_methods() if m.assumes_identical_processors]
UNFLAGGED = [m.name for m in available_methods() if not m.assumes_identical_processors]


def run(capsys, *argv):
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_the_eight_published_identical_rules_are_flagged():
    assert sorted(FLAGGED) == sorted(
        ["bl-est", "bl-est-part", "bl-est-busy", "etf", "etf-part", "etf-busy", "olb", "lmt"]
    )


@pytest.mark.parametrize("name", FLAGGED)
def test_every_flagged_method_takes_processor_choice_defaulting_to_earliest_start(name):
    # The rule "earliest-finish lifts the mark" is general only if every flagged
    # method declares the option the same way, its default being the published rule.
    info = get_method(name)
    assert info.options["processor_choice"] == "earliest-start"
    annotation = info.option_types["processor_choice"]
    assert set(typing.get_args(annotation)) == {"earliest-start", "earliest-finish"}


@pytest.mark.parametrize("name", FLAGGED)
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (None, True),
        ({}, True),
        ({"processor_choice": "earliest-start"}, True),
        ({"processor_choice": "earliest-finish"}, False),
        ('{"processor_choice":"earliest-finish","seed":0}', False),  # as a study stores it
        ('{"seed":0}', True),
    ],
)
def test_a_run_assumes_identical_unless_it_chooses_earliest_finish(name, options, expected):
    assert get_method(name).run_assumes_identical(options) is expected
    assert run_assumes_identical(name, options) is expected


@pytest.mark.parametrize("name", UNFLAGGED)
def test_unflagged_methods_never_assume_identical(name):
    assert get_method(name).run_assumes_identical({}) is False
    assert run_assumes_identical(name, {"processor_choice": "earliest-start"}) is False


def test_unknown_method_is_not_marked():
    assert run_assumes_identical("no-such-method", "{}") is False


def _table_lines(out: str) -> dict[str, str]:
    """Lines of the instance table (indented), by their label."""
    return {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}


def test_compare_marks_only_the_runs_that_assume_identical_processors(capsys):
    status, out, err = run(
        capsys, "compare", SINGLE_GPU, "--exact", "none", "-j", "1", "-q", "--methods",
        "bl-est,bl-est:processor_choice=earliest-finish,olb,olb:processor_choice=earliest-finish,"
        "lmt:processor_choice=earliest-start",
    )  # fmt: skip
    assert status == 0, err
    table = _table_lines(out)
    finish = table["bl-est[processor_choice=earliest-finish]"]
    assert f" {IDENTICAL_MARK} " not in finish and "feasible" in finish
    assert f" {IDENTICAL_MARK} " not in table["olb[processor_choice=earliest-finish]"]
    assert table["bl-est"].split()[1] == IDENTICAL_MARK
    assert table["olb"].split()[1] == IDENTICAL_MARK
    assert table["lmt[processor_choice=earliest-start]"].split()[1] == IDENTICAL_MARK
    # The summary table (not indented) marks the same labels.
    summary = {
        line.split()[0]: line.split()[1]
        for line in out.splitlines()
        if line.startswith(("bl-est", "olb", "lmt"))
    }
    assert summary["bl-est[processor_choice=earliest-finish]"] != IDENTICAL_MARK
    assert summary["olb[processor_choice=earliest-finish]"] != IDENTICAL_MARK
    assert summary["bl-est"] == summary["olb"] == IDENTICAL_MARK
    assert any(line.startswith(f"{IDENTICAL_MARK} picks") for line in out.splitlines())


def test_no_legend_when_every_run_chose_earliest_finish(capsys):
    status, out, err = run(
        capsys, "compare", SINGLE_GPU, "--exact", "none", "-j", "1", "-q", "--methods",
        "bl-est:processor_choice=earliest-finish,etf:processor_choice=earliest-finish,heft",
    )  # fmt: skip
    assert status == 0, err
    assert f" {IDENTICAL_MARK}" not in out.replace(f"{IDENTICAL_MARK} picks", "")
    assert "as if they were identical" not in out


def test_compare_json_flags_each_run_and_label(capsys):
    status, out, err = run(
        capsys, "compare", SINGLE_GPU, "--exact", "none", "-j", "1", "-q", "--json",
        "--methods", "bl-est,bl-est:processor_choice=earliest-finish,heft",
    )  # fmt: skip
    assert status == 0, err
    doc = json.loads(out)
    expected = {
        "bl-est": True,
        "bl-est[processor_choice=earliest-finish]": False,
        "heft": False,
    }
    assert {r["label"]: r["assumes_identical_processors"] for r in doc["rows"]} == expected
    assert {s["method"]: s["assumes_identical_processors"] for s in doc["summary"]} == expected


def test_rows_without_the_flag_fall_back_to_method_and_options():
    # Rows built by hand (or by older code) carry no flag: it is derived.
    assert row_assumes_identical({"method": "etf", "options": "{}"}) is True
    assert (
        row_assumes_identical(
            {"method": "etf", "options": {"processor_choice": "earliest-finish"}}
        )
        is False
    )
    assert row_assumes_identical({"method": "etf", "assumes_identical_processors": False}) is False
    summary = [{"method": "x[processor_choice=earliest-finish]", "name": "etf",
                "assumes_identical_processors": False}]  # fmt: skip
    assert not any("identical" in line for line in summary_legend(summary))
