"""The generate and convert commands, and info/solve/validate on STG, DOT and WfCommons files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactsched import load_instance, load_schedule, validate
from exactsched.cli import main
from exactsched.workloads import load_problem

DATA = Path(__file__).parent / "data"
STG = str(DATA / "stg" / "50" / "rand0000.stg")
DOT = str(DATA / "sinnen-dot" / "Nodes_10_Random.dot")
WF = str(DATA / "wfcommons" / "blast-small.json")


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


GENERATE = [
    ["cholesky", "--tiles", "5", "--platform", "multi-gpu"],
    ["cholesky", "--tiles", "3", "--platform", "single-gpu", "--integral"],
    ["cholesky", "--tiles", "4", "--measured", "--tile-size", "1024", "--integral"],
    ["qr", "--tiles", "3", "--platform", "titan", "--tile-size", "256"],
    ["lu", "--tiles", "3", "--platform", "summit", "--noise", "1", "2"],
    ["random", "--tasks", "20", "--platform", "mesh:2x2", "--ccr", "0.5"],
    ["random", "--tasks", "20", "--generator", "layered", "--platform", "torus:2x2x2"],
    ["random", "--tasks", "20", "--generator", "erdos-renyi", "--p", "0.2",
     "--platform", "hypercube:4", "--integral"],
    ["random", "--tasks", "20", "--generator", "daggen", "--weights", "hoft-high",
     "--ccr", "10", "--ccr-definition", "comp/comm", "--platform", "single-gpu"],
    ["random", "--tasks", "15", "--weights", "flops", "--data", "high", "--platform", "titan"],
    ["stg", STG, "--weights", "canon", "--data", "low", "--platform", "summit"],
    ["stg", STG, "--drop-dummies", "--platform", "fat-tree:8", "--ccr", "2"],
    ["lu", "--tiles", "3", "--platform", "cpu-gpu:2+1", "--rate", "cpu=100", "--rate", "gpu=1e3"],
    ["random", "--tasks", "10", "--weights", "flops", "--platform", "cpu-gpu:2+1",
     "--rate", "cpu=1", "--rate", "gpu=10"],
]  # fmt: skip


@pytest.mark.parametrize("argv", GENERATE, ids=lambda a: "-".join(a[:3]))
def test_generate_then_validate_and_solve(capsys, tmp_path, argv):
    out = tmp_path / "g.json"
    status, text, err = run(capsys, "generate", *argv, "--seed", "3", "-o", out)
    assert status == 0, err
    assert text.startswith(f"{out}: json (")
    # Every generated instance passes `exactsched validate`...
    status, text, err = run(capsys, "validate", out)
    assert status == 0 and "valid instance" in text, err
    # ... is reproducible for its seed ...
    again = tmp_path / "again.json"
    run(capsys, "generate", *argv, "--seed", "3", "-o", again)
    assert json.loads(out.read_text()) == json.loads(again.read_text())
    # ... and schedules validly.
    schedule = tmp_path / "s.json"
    status, _, err = run(capsys, "solve", out, "-m", "heft", "--output", schedule, "--quiet")
    assert status == 0, err
    problem = load_instance(out)
    assert validate(problem, load_schedule(schedule)) == []


def test_generate_cholesky_counts(capsys, tmp_path):
    out = tmp_path / "c.json"
    run(capsys, "generate", "cholesky", "--tiles", "5", "-o", out)
    problem = load_instance(out)
    assert problem.n_tasks == 35 and problem.n_edges == 60
    assert problem.to_json()["platform"]["preset"] == "single-gpu"


def test_generate_count_names_files_by_seed(capsys, tmp_path):
    folder = tmp_path / "many"
    status, text, _ = run(
        capsys, "generate", "random", "--tasks", "10", "--platform", "mesh:2x2",
        "--seed", "7", "--count", "3", "-o", folder,
    )  # fmt: skip
    assert status == 0
    files = sorted(p.name for p in folder.iterdir())
    assert files == [f"topcuoglu-n10-topcuoglu-ccr1-mesh-2x2-seed{s}.json" for s in (7, 8, 9)]
    docs = [json.loads((folder / f).read_text()) for f in files]
    assert docs[0] != docs[1]
    status, _, _ = run(
        capsys, "generate", "qr", "--tiles", "2", "--count", "2", "-o", tmp_path / "qr-{seed}.dot"
    )
    assert status == 0 and (tmp_path / "qr-0.dot").exists() and (tmp_path / "qr-1.dot").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", "cholesky", "-o", "x.json"], "generate cholesky: --tiles N is required"),
        (["generate", "random", "-o", "x.json"], "generate random: --tasks N is required"),
        (["generate", "stg", "-o", "x.json"], "generate stg: give the STG file"),
        (["generate", "random", "--tasks", "0", "-o", "x.json"], "argument --tasks: expected an"),
        (["generate", "qr", "--tiles", "2", "--measured", "-o", "x.json"], "cholesky only"),
        (["generate", "lu", "--tiles", "2", "--platform", "nowhere", "-o", "x.json"],
         "platform: 'nowhere' is not a preset"),
        (["generate", "random", "--tasks", "5", "--weights", "hoft-low", "--platform",
          "mesh:2x2", "-o", "x.json"], "needs processor types 'cpu' and 'gpu'"),
        (["generate", "lu", "--tiles", "2", "--count", "0", "-o", "x.json"], "--count"),
        (["generate", "lu", "--tiles", "2", "--platform", "cpu-gpu:1+1", "-o", "x.json"],
         "rates: the platform is not a preset"),
        (["generate", "lu", "--tiles", "2", "--rate", "cpu=x", "-o", "x.json"],
         "--rate: expected TYPE=FLOPS"),
        (["generate", "lu", "--tiles", "2", "-o", "no/such/dir/x.json"], "does not exist"),
        (["convert", str(DATA / "stg" / "50" / "rand0000.stg"), "--platform", "titan", "-o",
          f"{STG}/x.json"], "is a file, not a folder"),
        (["convert", STG, "-o", "x.json"], "an STG file has no platform"),
        (["info", DOT], "a DOT file has no platform"),
        (["convert", "missing.dot", "-o", "x.json", "--platform", "titan"], "cannot read"),
    ],
)  # fmt: skip
def test_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_convert_round_trips(capsys, tmp_path):
    # DOT -> instance -> DOT keeps the graph.
    inst = tmp_path / "d.json"
    assert run(capsys, "convert", DOT, "--platform", "fully-connected:2", "-o", inst)[0] == 0
    out_dot = tmp_path / "d.dot"
    assert run(capsys, "convert", inst, "-o", out_dot)[0] == 0
    first = load_problem(DOT, "fully-connected:2")
    assert load_problem(out_dot, "fully-connected:2").to_json() == first.to_json()
    # STG -> instance -> STG keeps the records.
    inst = tmp_path / "s.json"
    run(capsys, "convert", STG, "--platform", "titan", "-o", inst)
    out_stg = tmp_path / "s.stg"
    run(capsys, "convert", inst, "-o", out_stg)

    def tokens(path):
        return [
            t for line in Path(path).read_text().splitlines() for t in line.split("#")[0].split()
        ]

    assert tokens(out_stg) == tokens(STG)
    # WfCommons -> instance, and --to overrides the extension.
    status, text, _ = run(
        capsys, "convert", WF, "--platform", "single-gpu", "-o", tmp_path / "w.txt", "--to", "json"
    )
    assert status == 0 and "json (6 tasks, 7 edges, 8 processors)" in text
    assert load_instance(tmp_path / "w.txt").n_tasks == 6


def test_info_solve_validate_take_stg_dot_wfcommons(capsys, tmp_path):
    status, out, _ = run(capsys, "info", STG, "--platform", "fully-connected:4", "--json")
    assert status == 0 and json.loads(out)["tasks"] == 52
    status, out, _ = run(capsys, "validate", WF, "--platform", "summit")
    assert status == 0 and "valid instance (6 tasks)" in out
    schedule = tmp_path / "s.json"
    status, _, _ = run(capsys, "solve", DOT, "--platform", "fully-connected:2", "-m", "heft",
                       "--output", schedule, "--quiet")  # fmt: skip
    assert status == 0
    assert run(capsys, "validate", DOT, schedule, "--platform", "fully-connected:2")[0] == 0
    # --platform re-targets an instance JSON.
    status, out, _ = run(
        capsys, "info", "examples/cholesky-n4-single-gpu.json", "--platform", "summit", "--json"
    )
    assert status == 0 and json.loads(out)["processors"] == 50


EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_are_valid_integral_instances(capsys, path):
    status, out, err = run(capsys, "validate", path)
    assert status == 0 and "valid instance" in out, err
    assert load_problem(path).is_integral  # what the exact models want


def test_ccr_interval_is_drawn_per_seed(capsys, tmp_path):
    # The HOFT paper's random set: CCRs (computation/communication) in [10, 20].
    from exactsched.workloads import ccr

    status, _, _ = run(
        capsys, "generate", "random", "--tasks", "15", "--weights", "hoft-high",
        "--ccr", "10:20", "--ccr-definition", "comp/comm", "--count", "4",
        "-o", tmp_path / "r-{seed}.json",
    )  # fmt: skip
    assert status == 0
    values = [ccr(load_instance(tmp_path / f"r-{s}.json"), "comp/comm") for s in range(4)]
    assert all(10 <= v <= 20 for v in values) and len(set(values)) == 4
    for bad in ("5:1", "x", "0", "1:2:3"):
        status, _, err = run(capsys, "generate", "random", "--tasks", "5", "--ccr", bad,
                             "-o", tmp_path / "x.json")  # fmt: skip
        assert status == 2 and "--ccr" in err


def test_convert_wfcommons_with_speeds(capsys, tmp_path):
    out = tmp_path / "w.json"
    status, _, _ = run(
        capsys, "convert", WF, "--platform", "single-gpu", "--speed", "gpu=10", "-o", out
    )
    assert status == 0
    p = load_instance(out)
    i = p.task_ids.index("blastall_00000002")
    assert p.cost[i, 0] == pytest.approx(81.204e6) and p.cost[i, -1] == pytest.approx(8.1204e6)
    status, _, err = run(capsys, "convert", WF, "--platform", "single-gpu", "--speed", "gpu",
                         "-o", out)  # fmt: skip
    assert status == 2 and "--speed: expected TYPE=X" in err


def test_convert_keeps_order_pairs_and_says_what_it_drops(capsys, tmp_path):
    # Order pairs become DOT edges of weight 0 (a precedence without data), so the
    # optimum is kept; what a format cannot hold (isolation pairs, STG's one integer
    # cost per task and no data) is named in a warning, exit 0.
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p1"}, {"id": "p2"}]},
        "tasks": [{"id": "a", "cost": 1}, {"id": "b", "cost": [1.5, 2]}, {"id": "c", "cost": 2}],
        "edges": [{"src": "a", "dst": "c", "data": 3}],
        "order": [["a", "b"]],
        "isolation": [["b", "c"]],
    }
    inst = tmp_path / "o.json"
    inst.write_text(json.dumps(doc))
    status, _, err = run(capsys, "convert", inst, "-o", tmp_path / "o.dot")
    assert status == 0 and "o.dot: dot: 1 isolation pairs dropped" in err
    back = load_problem(tmp_path / "o.dot", "fully-connected:2")
    assert back.n_edges == 2 and "Traceback" not in err
    status, _, err = run(capsys, "convert", inst, "-o", tmp_path / "o.stg")
    assert status == 0
    assert "stg: 1 of 3 tasks get one rounded mean cost" in err
    assert "stg: the data of 1 edges dropped" in err and "stg: 1 isolation pairs dropped" in err
    status, _, err = run(
        capsys,
        "convert",
        tmp_path / "o.dot",
        "--platform",
        "fully-connected:2",
        "-o",
        tmp_path / "again.json",
    )
    assert status == 0 and "warning" not in err  # JSON holds everything


STG_FILE = str(DATA / "workloads-audit" / "mid.stg")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["random", "--tasks", "30", "--p", "0.5"], "--p: only with --generator layered or erdos"),
        (["random", "--tasks", "9", "--generator", "erdos-renyi", "--fat", "0.2"], "--fat: only"),
        (["random", "--tasks", "9", "--generator", "layered", "--alpha", "2"], "--alpha: only"),
        (["random", "--tasks", "9", "--density", "0.9"], "--density: only with --generator dag"),
        (["random", "--tasks", "9", "--weights", "hoft-low", "--beta", "0.9"], "--beta: only"),
        (
            ["random", "--tasks", "9", "--data", "high", "--ccr", "3"],
            "--ccr: not used with --data",
        ),
        (["cholesky", "--tiles", "3", "--w-dag", "9"], "--w-dag: not an option of generate chol"),
        (["stg", STG_FILE, "--platform", "cpu-gpu:3+1", "--beta", "1"], "--beta: only with --w"),
        (["stg", STG_FILE, "--jump", "2"], "--jump: not an option of generate stg"),
    ],
)
def test_options_the_choice_would_ignore_are_refused(capsys, tmp_path, argv, message):
    # Each was silently dropped (an outside audit, session 17).
    status = main(["generate", *argv, "-o", str(tmp_path / "g.json")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "g.json").exists()


def test_each_generators_own_options_are_taken(capsys, tmp_path):
    for argv in (
        ["--generator", "daggen", "--fat", "0.2", "--jump", "2", "--density", "0.1"],
        ["--generator", "layered", "--p", "0.2", "--layers", "3"],
        ["--generator", "erdos-renyi", "--p", "0.1"],
        ["--alpha", "2", "--out-degree", "3", "--beta", "0.9", "--w-dag", "10"],
    ):
        out = tmp_path / "g.json"
        assert main(["generate", "random", "--tasks", "30", *argv, "-o", str(out)]) == 0
        assert load_instance(out).n_tasks == 30
