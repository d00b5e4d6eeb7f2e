"""A second outside audit of the workloads (audit F): its defects, each with a test.

``--ccr X --integral`` missed the target up to 21-fold (every edge's data rounded to
at least 1); a CCR that no edge could carry was accepted with CCR 0; WfCommons
1.3/1.4 parents matched a task id before a task name; the STG writer changed
integer costs above 2**53 silently; and small ones: ``--ccr 1e300`` said "expected
a positive number", "is a instance file", a DOT byte-order mark was refused,
``--layers`` above ``--tasks`` was capped silently.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from exactsched import Problem, load_instance
from exactsched.cli import main
from exactsched.errors import InstanceWarning, MethodError
from exactsched.generators import random_workload, topcuoglu_dag
from exactsched.workloads.dot import read_dot
from exactsched.workloads.stg import read_stg
from exactsched.workloads.weights import CCRRoundingError, ccr, scaled_data
from exactsched.workloads.wfcommons import read_wfcommons

ROOT_EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# ---- D1: --integral must keep the CCR within 5 % or refuse ---------------------------


@pytest.mark.parametrize(
    "extra",
    [
        ("--ccr", "0.001"),  # the audit's case: 0.021, 21 times the target
        ("--ccr", "0.05", "--w-dag", "3"),  # about 6 times
        ("--ccr", "0.01"),  # twice
    ],
)
def test_integral_ccr_miss_is_refused(capsys, tmp_path, extra):
    out = tmp_path / "ri.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "50", "--platform",
                         "fully-connected:3", *extra, "--integral", "--seed", "1",
                         "-o", str(out))  # fmt: skip
    line = one_error_line(err)
    assert status == 2 and not out.exists()
    assert "--ccr" in line and "--integral" in line and "--w-dag" in line
    assert "give CCR 0." in line  # the value reached


def test_integral_ccr_is_met_or_refused_for_every_scheme(capsys, tmp_path):
    # hoft costs ignore --w-dag: the advice is to drop --integral only.
    out = tmp_path / "h.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "50", "--platform",
                         "single-gpu", "--weights", "hoft-low", "--ccr", "0.001",
                         "--integral", "-o", str(out))  # fmt: skip
    line = one_error_line(err)
    assert status == 2 and "drop --integral" in line and "--w-dag" not in line


def test_integral_ccr_within_5_percent_when_accepted(capsys, tmp_path):
    # The audit's command with larger costs is accepted, and then holds.
    out = tmp_path / "ok.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "50", "--platform",
                         "fully-connected:3", "--ccr", "0.01", "--w-dag", "5000",
                         "--integral", "--seed", "1", "-o", str(out))  # fmt: skip
    assert status == 0, err
    assert ccr(load_instance(out)) == pytest.approx(0.01, rel=0.05)


@pytest.mark.parametrize("definition", ["comm/comp", "comp/comm", "total"])
def test_integral_w_dag_500_still_passes(definition):
    arcs = topcuoglu_dag(40, seed=2)
    q = random_workload(arcs, 40, "mesh:2x3", ccr=0.1, ccr_definition=definition,
                        integral=True, w_dag=500.0, seed=1)  # fmt: skip
    assert ccr(q, definition) == pytest.approx(0.1, rel=0.05)


def test_library_refuses_a_rounding_miss():
    arcs = topcuoglu_dag(50, seed=0)
    with pytest.raises(CCRRoundingError, match=r"ccr: rounding .*\(integral\) gives CCR") as info:
        random_workload(arcs, 50, "fully-connected:3", ccr=0.001, integral=True, seed=1)
    assert isinstance(info.value, MethodError) and info.value.achieved > 0.0011


# ---- D2: a CCR no edge can carry --------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("--tasks", "2", "--generator", "erdos-renyi", "--p", "0",
         "--platform", "fully-connected:4", "--ccr", "2"),
        ("--tasks", "1", "--platform", "fully-connected:1", "--ccr", "2"),
    ],
)  # fmt: skip
def test_unreachable_ccr_is_refused(capsys, tmp_path, argv):
    out = tmp_path / "e0.json"
    status, _, err = run(capsys, "generate", "random", *argv, "-o", str(out))
    assert status == 2 and not out.exists()
    assert (
        one_error_line(err)
        == "exactsched: error: ccr: the graph has no edges, so no CCR can be set"
    )


def test_default_ccr_on_an_edgeless_graph_is_skipped(capsys, tmp_path):
    out = tmp_path / "one.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "1", "--platform",
                         "fully-connected:3", "-o", str(out))  # fmt: skip
    assert status == 0, err
    assert "ccr" not in load_instance(out).name


def test_ccr_range_from_zero_on_an_edgeless_graph_gives_zero(capsys, tmp_path):
    out = tmp_path / "z.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "1", "--platform",
                         "fully-connected:3", "--ccr", "0:10", "-o", str(out))  # fmt: skip
    assert status == 0, err
    assert "ccr0-" in load_instance(out).name


def test_ccr_zero_on_an_edgeless_graph_is_met():
    p = random_workload([], 2, "fully-connected:2", ccr=0.0, seed=0)
    assert p.n_edges == 0
    with pytest.raises(MethodError, match="ccr: the graph has no edges"):
        random_workload([], 2, "fully-connected:2", ccr=2.0, seed=0)


def test_ccr_on_dummy_arcs_only_is_refused():
    # Only the STG dummies' arcs: none may carry data, so no CCR can be set.
    with pytest.raises(MethodError, match="every edge joins a dummy task"):
        random_workload([(0, 1), (1, 2)], 3, "fully-connected:2", ccr=1.0, zero_cost=(0, 2))


# ---- D3: WfCommons 1.3/1.4 parents are names -------------------------------------

AMB = {
    "schemaVersion": "1.4",
    "workflow": {
        "tasks": [
            {"name": "B", "id": "A", "runtimeInSeconds": 1, "parents": []},
            {"name": "A", "id": "B", "runtimeInSeconds": 2, "parents": []},
            {"name": "C", "id": "C", "runtimeInSeconds": 3, "parents": ["A"]},
        ]
    },
}


def edges_of(problem: Problem) -> list[tuple[str, str]]:
    ids = problem.task_ids
    return [
        (ids[a], ids[b])
        for a, b in zip(problem.edge_src.tolist(), problem.edge_dst.tolist(), strict=True)
    ]


@pytest.mark.parametrize("version", ["1.3", "1.4", None])
def test_wfcommons_1_4_parent_is_a_name(tmp_path, version):
    doc = json.loads(json.dumps(AMB))
    if version is None:
        del doc["schemaVersion"]  # read by its layout: 1.3/1.4
    else:
        doc["schemaVersion"] = version
    path = tmp_path / "amb.json"
    path.write_text(json.dumps(doc))
    problem = read_wfcommons(path, "cpu-gpu:1+1")
    assert edges_of(problem) == [("B", "C")]  # the task named A has id B


def test_wfcommons_1_4_children_are_names(tmp_path):
    doc = json.loads(json.dumps(AMB))
    tasks = doc["workflow"]["tasks"]
    tasks[2]["parents"] = []
    tasks[1]["children"] = ["C"]  # task id B (named A): its child is the task named C
    path = tmp_path / "ch.json"
    path.write_text(json.dumps(doc))
    assert edges_of(read_wfcommons(path, "cpu-gpu:1+1")) == [("B", "C")]


def test_wfcommons_1_5_parents_are_ids(tmp_path):
    doc = {
        "schemaVersion": "1.5",
        "workflow": {
            "specification": {
                "tasks": [
                    {"name": "B", "id": "A", "parents": []},
                    {"name": "A", "id": "B", "parents": []},
                    {"name": "C", "id": "C", "parents": ["A"]},
                ],
                "files": [],
            },
            "execution": {"tasks": [{"id": k, "runtimeInSeconds": 1} for k in ("A", "B", "C")]},
        },
    }
    path = tmp_path / "v15.json"
    path.write_text(json.dumps(doc))
    assert edges_of(read_wfcommons(path, "cpu-gpu:1+1")) == [("A", "C")]


# ---- D4: STG costs above 2**53 ----------------------------------------------------


def test_stg_warns_when_a_huge_integer_cost_loses_digits(capsys, tmp_path):
    stg = tmp_path / "h.stg"
    stg.write_text("1\n0 0 0\n1 99999999999999999999999 1 0\n2 0 1 1\n")
    js, back = tmp_path / "h.json", tmp_path / "h2.stg"
    status, _, err = run(capsys, "convert", str(stg), "--platform", "fully-connected:2",
                         "-o", str(js))  # fmt: skip
    assert status == 0 and "warning" not in err
    assert json.loads(js.read_text())["tasks"][1]["cost"] == 99999999999999999999999
    status, _, err = run(capsys, "convert", str(js), "-o", str(back))
    assert status == 0
    assert "warning" in err and "rounded mean cost" in err  # the rounding warning
    assert "'t1'" in err and "99999999999999999999999" in err


def test_stg_no_warning_for_exact_costs(capsys, tmp_path):
    js, out = tmp_path / "s.json", tmp_path / "s.stg"
    js.write_text(json.dumps(Problem.from_lists([2**53, 3], [(0, 1)], n_processors=2).to_json()))
    status, _, err = run(capsys, "convert", str(js), "-o", str(out))
    assert status == 0 and "cost" not in err  # (ids t0, t1 read back as t1, t2: said)
    assert read_stg(out, 1).cost[1, 0] == 2**53


# ---- D5: small ones ---------------------------------------------------------------


def test_huge_ccr_says_what_is_wrong(capsys, tmp_path):
    out = tmp_path / "c.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "10", "--platform",
                         "fully-connected:3", "--ccr", "1e308", "-o", str(out))  # fmt: skip
    line = one_error_line(err)
    assert status == 2 and "too large" in line and "overflow" in line
    assert "positive" not in line
    status, _, err = run(capsys, "generate", "random", "--tasks", "10", "--platform",
                         "fully-connected:3", "--ccr", "1e300", "-o", str(out))  # fmt: skip
    assert status == 0, err  # positive and finite once scaled: accepted


def test_scaled_data_limits():
    work = np.array([4.0, 4.0])
    with pytest.raises(MethodError, match="ccr: expected a positive number"):
        scaled_data(np.array([1.0]), work, 1.0, 0.0)
    with pytest.raises(MethodError, match="comp/comm.*too small"):
        scaled_data(np.array([1.0]), work, 1.0, 1e-310, "comp/comm")


def test_instance_file_grammar(capsys, tmp_path):
    js = tmp_path / "inc.json"
    js.write_text(json.dumps(Problem.from_lists([1, 2], [(0, 1)], n_processors=2).to_json()))
    status, _, err = run(capsys, "convert", str(js), "--speed", "gpu=2",
                         "-o", str(tmp_path / "o.json"))  # fmt: skip
    assert status == 2 and "is an instance file" in one_error_line(err)


def test_dot_byte_order_mark_is_skipped(tmp_path, capsys):
    path = tmp_path / "bom.dot"
    path.write_bytes(b"\xef\xbb\xbfdigraph g {\n a [Weight=2];\n b [Weight=1];\n a -> b;\n}\n")
    problem = read_dot(path, 2)
    assert problem.task_ids == ("a", "b") and problem.n_edges == 1
    assert read_dot(path, 2, engine="pydot") == problem
    status, _, err = run(capsys, "convert", str(path), "--platform", "fully-connected:2",
                         "-o", str(tmp_path / "bom.json"))  # fmt: skip
    assert status == 0, err


def test_layers_above_tasks_warn_once(capsys, tmp_path):
    status, _, err = run(capsys, "generate", "random", "--generator", "layered", "--tasks",
                         "5", "--layers", "10", "--p", "0.5", "--platform", "fully-connected:2",
                         "--count", "3", "-o", str(tmp_path / "l_{seed}.json"))  # fmt: skip
    assert status == 0
    assert err.count("--layers 10") == 1 and "5 layers" in err
    status, _, err = run(capsys, "generate", "random", "--generator", "layered", "--tasks",
                         "5", "--layers", "5", "--platform", "fully-connected:2",
                         "-o", str(tmp_path / "l.json"))  # fmt: skip
    assert status == 0 and "--layers" not in err


def test_layers_warning_is_an_instance_warning():
    from argparse import Namespace

    from exactsched.commands.workloads import _check_options

    args = Namespace(kind="random", tiles=None, tile_size=None, noise=None, precision=None,
                     measured=False, tasks=3, layers=4, drop_dummies=False, ccr=None,
                     data=None, weights=None, rate=[], input=None, platform="fully-connected:2",
                     generator="layered")  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _check_options(args)
    assert [w.category for w in caught] == [InstanceWarning]


def test_layered_p_zero_still_has_edges():
    # Documented: a parentless task below the first layer gets a parent.
    from exactsched.generators import layered_dag

    arcs = layered_dag(40, 6, 0.0, seed=0)
    assert len(arcs) > 0


# ---- CLI robustness audit (session 12): devices read as STG, DOT or WfCommons ----------


@pytest.mark.parametrize("command", ["generate", "convert"])
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_as_workload_input_is_one_line(capsys, tmp_path, command, device):
    """``generate stg /dev/zero`` filled memory until killed; now refused at the first NUL."""
    out = tmp_path / "z.json"
    argv = ["generate", "stg", device] if command == "generate" else ["convert", device]
    status, _, err = run(capsys, *argv, "--platform", "fully-connected:2", "-o", str(out))
    assert status == 2 and not out.exists()
    assert one_error_line(err).startswith(f"exactsched: error: {device}: ")


def test_an_stg_error_quotes_a_short_excerpt(capsys, tmp_path):
    """A 5 MB token was echoed whole on standard error (CLI robustness audit)."""
    path = tmp_path / "huge.stg"
    path.write_text("3\n0 0 0\n1 " + "x" * 5_000_000 + " 0\n")
    status, _, err = run(capsys, "info", str(path), "--platform", "fully-connected:2")
    line = one_error_line(err)
    assert status == 2 and len(line) < 300 and "(5000000 characters)" in line


def test_ccr_counts_data_edges_not_order_pairs():
    """Order pairs carry nothing; they were averaged in (metric audit, session 12)."""
    from exactsched.workloads import scale_to_ccr

    problem = load_instance(str(ROOT_EXAMPLES / "mesh-isolation.json"))
    assert problem.n_edges > len(problem.edge_src)  # the example has order pairs
    assert ccr(problem) == pytest.approx(problem.ccr(), rel=1e-12)
    assert ccr(problem, "comp/comm") == pytest.approx(1 / problem.ccr(), rel=1e-12)
    scaled = scale_to_ccr(problem, 2.0, "comp/comm")
    assert ccr(scaled, "comp/comm") == pytest.approx(2.0, rel=1e-6)
