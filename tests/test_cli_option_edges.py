"""Option edges of ``generate``, ``convert``, ``orderings`` and ``--platform`` (audit B).

Each bad use is one stderr line, exit 2, no traceback, and names the option (or
the key of the input file) at fault:

* ``--noise`` / ``--rate`` / ``--speed`` values, or a WfCommons runtime, whose
  costs would overflow name that option or key, not a generated task's cost;
* a default the user never gave (``--out-degree`` for one task, the CCR on one
  processor) adapts instead of refusing the command;
* ``-o`` with ``--count`` > 1 and no ``{seed}``, or an unknown placeholder, is
  refused rather than created as a folder; an unknown extension is refused
  rather than written as JSON;
* a type repeated in ``--rate`` or ``--speed`` is refused like a repeated ``-O`` key;
* an unsupported WfCommons ``schemaVersion`` is refused;
* ``orderings --cpsat-bound`` without ``--search`` and ``--mapping`` without
  ``--best`` are refused, not ignored;
* ``--platform`` naming a folder, a FIFO or a schedule file says what it is.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from exactsched import load_instance, solve, validate
from exactsched.workloads import load_problem
from tests.test_cli_contract import assert_one_line, run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "topcuoglu2002.json")
WF = ROOT / "tests" / "data" / "wfcommons" / "blast-small.json"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Paths by role: WfCommons variants, a schedule, a folder, a FIFO, an output stem."""
    tmp = tmp_path_factory.mktemp("option-edges")
    doc = json.loads(WF.read_text())
    (tmp / "wf_v99.json").write_text(json.dumps({**doc, "schemaVersion": "9.9"}))
    huge = json.loads(WF.read_text())
    huge["workflow"]["execution"]["tasks"][0]["runtimeInSeconds"] = 1e305
    (tmp / "wf_huge.json").write_text(json.dumps(huge))
    bare = {k: v for k, v in doc.items() if k != "schemaVersion"}
    (tmp / "wf_noversion.json").write_text(json.dumps(bare))
    schedule = solve(load_instance(EXAMPLE), "heft").schedule
    (tmp / "heft.json").write_text(json.dumps(schedule.to_json()))
    (tmp / "folder").mkdir()
    os.mkfifo(tmp / "fifo.json")
    return {
        "tmp": str(tmp),
        "wf": str(WF),
        "wf_v99": str(tmp / "wf_v99.json"),
        "wf_huge": str(tmp / "wf_huge.json"),
        "wf_noversion": str(tmp / "wf_noversion.json"),
        "schedule": str(tmp / "heft.json"),
        "folder": str(tmp / "folder"),
        "fifo": str(tmp / "fifo.json"),
        "ex": EXAMPLE,
    }


# (argv, fragments the one-line message must contain). {tmp}/{...} come from `files`.
# fmt: off
REFUSED = [
    # 1. overflowing --noise / --rate name the option, not tasks[0].cost
    (["generate", "cholesky", "--tiles", "3", "--noise", "1", "1e308", "-o", "{tmp}/a.json"],
     ["--noise"]),
    (["generate", "cholesky", "--tiles", "3", "--noise", "5", "1", "-o", "{tmp}/a.json"],
     ["--noise", "L <= U"]),
    (["generate", "cholesky", "--tiles", "3", "--platform", "mesh:2x2", "--rate",
      "default=1e-320", "-o", "{tmp}/a.json"], ["--rate default="]),
    (["generate", "lu", "--tiles", "2", "--platform", "mesh:2x2", "--rate", "default=1e-320",
      "--noise", "1", "1", "-o", "{tmp}/a.json"], ["--rate default="]),
    (["generate", "random", "--tasks", "10", "--weights", "flops", "--rate", "cpu=1e-320",
      "--rate", "gpu=1", "-o", "{tmp}/a.json"], ["--rate cpu="]),
    (["generate", "random", "--tasks", "10", "--weights", "flops", "--rate", "cpu=1",
      "--rate", "gpu=1e300", "-o", "{tmp}/a.json"], ["--rate gpu="]),
    # 2. a given out-of-range --out-degree names the option
    (["generate", "random", "--tasks", "5", "--out-degree", "0.5", "-o", "{tmp}/a.json"],
     ["--out-degree"]),
    (["generate", "random", "--tasks", "5", "--generator", "layered", "--p", "2",
      "-o", "{tmp}/a.json"], ["--p:"]),
    # 3. --count > 1 needs {seed} or a folder; unknown placeholders are named
    (["generate", "random", "--tasks", "3", "--count", "2", "-o", "{tmp}/cnt.json"],
     ["--output", "{seed}", "--count 2"]),
    (["generate", "random", "--tasks", "3", "--count", "2", "-o", "{tmp}/c_{{sed}}.json"],
     ["--output", "{sed}", "placeholder"]),
    (["generate", "random", "--tasks", "3", "-o", "{tmp}/c_{{seed:>5}}.json"],
     ["--output", "{seed:>5}"]),
    (["generate", "random", "--tasks", "3", "--count", "2", "-o", "{tmp}/c_{{}}.stg"],
     ["--output", "{}"]),
    # 4. unknown output extensions
    (["generate", "random", "--tasks", "3", "-o", "{tmp}/g.xml"], ["--output", "'.xml'", ".gv"]),
    (["generate", "random", "--tasks", "3", "-o", "{tmp}/g"], ["--output", "no extension"]),
    (["generate", "random", "--tasks", "3", "--count", "2", "-o", "{tmp}/g_{{seed}}.txt"],
     ["--output", "'.txt'"]),
    (["convert", "{ex}", "-o", "{tmp}/c.xml"], ["--output", "'.xml'", "--to"]),
    (["convert", "{ex}", "-o", "{tmp}/c"], ["--output", "no extension"]),
    # 5. a type given twice
    (["generate", "cholesky", "--tiles", "2", "--platform", "mesh:2x2", "--rate", "default=1",
      "--rate", "default=2", "-o", "{tmp}/a.json"], ["--rate default", "twice"]),
    (["convert", "{wf}", "--platform", "cpu-gpu:1+1", "--speed", "gpu=2", "--speed", "gpu=3",
      "-o", "{tmp}/a.json"], ["--speed gpu", "twice"]),
    # options the kind would otherwise ignore
    (["generate", "random", "--tasks", "3", "--rate", "cpu=1", "-o", "{tmp}/a.json"],
     ["--rate", "--weights flops"]),
    (["generate", "random", "--tasks", "3", "--noise", "1", "2", "-o", "{tmp}/a.json"],
     ["--noise", "not an option"]),
    (["generate", "cholesky", "--tiles", "2", "--measured", "--noise", "1", "2",
      "-o", "{tmp}/a.json"], ["--noise", "--measured"]),
    # 6. convert: the speed, or the runtime in the file, not tasks[0].cost
    (["convert", "{wf}", "--platform", "fully-connected:3", "--speed", "default=1e-320",
      "-o", "{tmp}/a.json"], ["--speed default"]),
    (["convert", "{wf_huge}", "--platform", "fully-connected:3", "-o", "{tmp}/a.json"],
     ["wf_huge.json", "runtimeInSeconds"]),
    # 7. WfCommons schemaVersion
    (["convert", "{wf_v99}", "--platform", "fully-connected:3", "-o", "{tmp}/a.json"],
     ["schemaVersion", "9.9", "1.3, 1.4, 1.5"]),
    # 8. orderings options that need another
    (["orderings", "{ex}", "--count", "--cpsat-bound", "1"], ["--cpsat-bound", "--search"]),
    (["orderings", "{ex}", "--best", "makespan", "--cpsat-bound", "1"],
     ["--cpsat-bound", "--search"]),
    (["orderings", "{ex}", "--count", "--mapping", "{schedule}"], ["--mapping", "--best"]),
    (["orderings", "{ex}", "--count", "--weight", "data"], ["--weight", "--best network"]),
    (["orderings", "{ex}", "--best", "makespan", "--search", "--engine", "isl"],
     ["--engine", "--count"]),
    # 9. --platform: a folder, a FIFO, a schedule
    (["info", "{ex}", "--platform", "{folder}"], ["platform", "is a directory"]),
    (["info", "{ex}", "--platform", "{fifo}"], ["platform", "named pipe", "not a regular file"]),
    (["info", "{ex}", "--platform", "{schedule}"],
     ["platform", "heft.json", "exactsched/schedule@1", "not a platform"]),
    (["generate", "random", "--tasks", "3", "--platform", "{folder}", "-o", "{tmp}/a.json"],
     ["platform", "is a directory"]),
]
# fmt: on


@pytest.mark.parametrize(("argv", "fragments"), REFUSED, ids=lambda v: " ".join(v)[:70])
def test_refused_naming_the_option(capsys, files, argv, fragments):
    status, _, err = run(capsys, [a.format(**files) for a in argv])
    assert_one_line(status, err)
    for fragment in fragments:
        assert fragment in err, err
    assert "tasks[0].cost" not in err and "internal error" not in err, err


def test_refused_outputs_create_nothing(capsys, files):
    before = set(os.listdir(files["tmp"]))
    for name in ("cnt.json", "c_{sed}.json", "x.stg", "y.GV", "z_{seed.real}"):
        path = f"{files['tmp']}/{name}"
        argv = ["generate", "random", "--tasks", "3", "--count", "2", "-o", path]
        status, _, err = run(capsys, argv)
        assert_one_line(status, err)
    assert set(os.listdir(files["tmp"])) == before


def _heft_is_valid(path: str | Path) -> None:
    problem = load_problem(path)
    result = solve(problem, "heft")
    assert validate(problem, result.schedule) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--tasks", "1"],  # the default out-degree 2 adapts to one task
        ["--tasks", "2", "--generator", "topcuoglu"],
        ["--tasks", "5", "--platform", "fully-connected:1"],  # no CCR to set on one processor
    ],
    ids=lambda v: " ".join(v),
)
def test_defaults_adapt(capsys, tmp_path, argv):
    out = tmp_path / "g.json"
    status, _, err = run(capsys, ["generate", "random", *argv, "-o", out])
    assert status == 0 and err == "", err
    _heft_is_valid(out)


def test_count_outputs_that_stay_accepted(capsys, tmp_path):
    status, _, err = run(capsys, ["generate", "random", "--tasks", "4", "--count", "2",
                                  "-o", tmp_path / "g_{seed}.stg"])  # fmt: skip
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g_0.stg", "g_1.stg"]
    folder = tmp_path / "many"
    status, _, err = run(capsys, ["generate", "random", "--tasks", "4", "--count", "2",
                                  "-o", folder])  # fmt: skip
    assert status == 0, err
    assert len(list(folder.glob("*.json"))) == 2
    existing = tmp_path / "already.json"  # an existing folder is a folder, whatever its name
    existing.mkdir()
    status, _, err = run(capsys, ["generate", "random", "--tasks", "4", "--count", "2",
                                  "-o", existing])  # fmt: skip
    assert status == 0, err
    assert len(list(existing.glob("*.json"))) == 2


@pytest.mark.parametrize("name", ["o.json", "o.JSON", "o.stg", "o.dot", "o.gv"])
def test_every_known_extension_still_converts(capsys, tmp_path, name):
    out = tmp_path / name
    status, _, err = run(capsys, ["convert", EXAMPLE, "-o", out])
    assert status == 0, err
    assert out.stat().st_size > 0


def test_to_writes_any_extension(capsys, tmp_path):
    out = tmp_path / "o.txt"
    status, _, err = run(capsys, ["convert", EXAMPLE, "-o", out, "--to", "json"])
    assert status == 0, err
    _heft_is_valid(EXAMPLE)
    assert json.loads(out.read_text())["format"] == "exactsched/instance@1"


def test_wfcommons_without_schema_version_is_read(capsys, files, tmp_path):
    out = tmp_path / "w.json"
    argv = ["convert", files["wf_noversion"], "--platform", "cpu-gpu:1+1", "-o", out]
    status, _, err = run(capsys, argv)
    assert status == 0, err
    _heft_is_valid(out)


def test_platform_from_an_instance_file_still_works(capsys):
    status, out, err = run(capsys, ["info", EXAMPLE, "--platform", EXAMPLE])
    assert status == 0, err
    assert "10" in out


def test_small_noise_and_rates_still_generate(capsys, tmp_path):
    out = tmp_path / "c.json"
    argv = ["generate", "cholesky", "--tiles", "3", "--platform", "mesh:2x2", "--rate",
            "default=1e-3", "--noise", "1", "1e250", "-o", out]  # fmt: skip
    status, _, err = run(capsys, argv)
    assert status == 0, err
    _heft_is_valid(out)
