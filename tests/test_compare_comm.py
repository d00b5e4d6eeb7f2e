"""Studies under several communication models (issue 19): compare --communication, gantt rows."""

from __future__ import annotations

import json

import pytest

from exactsched import Problem, Schedule, solve, validate
from exactsched.cli import main
from exactsched.experiments import Store, load_rows, run_sweep
from exactsched.experiments.analysis import communication_of
from exactsched.experiments.instances import canonical_json, load_problem

# A fork-join of four 8-unit tasks between two 2-unit ones, 3 units of data per edge: the
# fork's messages leave one processor over at most two links, so on the 2x2 mesh and the
# 4-processor fat tree contention moves the optimum (cpsat: delay 18 and 21, contention 20
# and 22.5).
COSTS = [[2] * 4] + [[8] * 4] * 4 + [[2] * 4]
EDGES = [(0, k, 3) for k in range(1, 5)] + [(k, 5, 3) for k in range(1, 5)]
NETWORKS = {
    "mesh": {"topology": "mesh", "dims": [2, 2]},
    "fat-tree": {"topology": "fat-tree", "arity": 2},
}


def run(capsys, *argv):
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def tiny(name: str, network: dict) -> Problem:
    doc = Problem.from_lists(COSTS, EDGES, n_processors=4, network=network).to_json()
    return Problem.from_json({**doc, "name": name})


@pytest.fixture
def files(tmp_path):
    paths = []
    for name, network in NETWORKS.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(tiny(f"tiny-{name}", network).to_json()))
        paths.append(str(path))
    return paths


def test_compare_each_model_keeps_its_rows_and_contention_never_beats_delay(files, tmp_path):
    db = str(tmp_path / "study.db")
    out = run_sweep(
        files, "heft,peft", exact="cpsat", time_limit=5, workers=1, jobs=1, seed=0,
        communication="delay,contention", db=db, progress="none",
    )  # fmt: skip
    try:
        assert out.planned == 2 * 2 * 3 and out.errors == 0
        rows = load_rows(out.store, keys=out.keys, version=out.version)
        documents = {i["key"]: i["document"] for i in out.store.instances()}
        schedules = list(out.store.runs(schedules=True))
    finally:
        out.store.close()
    # Each (instance, model) is its own instance key; the base key pairs the models.
    models = {(r["base_key"], r["communication"]): r["instance_key"] for r in rows}
    assert len(models) == 4 and len(set(models.values())) == 4
    assert {m for _, m in models} == {"delay", "contention"}
    for r in rows:
        assert r["status"] in ("optimal", "feasible"), r
    for base in {b for b, _ in models}:
        group = [r for r in rows if r["base_key"] == base]
        delay = next(r for r in group if r["communication"] == "delay")
        contention = next(r for r in group if r["communication"] == "contention")
        cpsat = {r["communication"]: r for r in group if r["method"] == "cpsat"}
        assert cpsat["delay"]["status"] == "optimal" and delay["optimum"] is not None
        # The delay optimum is a lower bound of every contention schedule; here contention
        # moves it.
        assert contention["best_known"] > delay["optimum"]
        assert cpsat["contention"]["makespan"] >= cpsat["delay"]["makespan"]
    # Every stored schedule is valid under its own instance's model, by the one referee.
    for run_ in schedules:
        problem = load_problem(json.loads(documents[run_["instance"]]))
        schedule = Schedule.from_json(json.loads(run_["schedule"]))
        assert validate(problem, schedule) == [], (run_["method"], problem.communication)
        if problem.communication == "contention":
            remote = sum(
                1 for e in range(len(problem.edge_src))
                if schedule[problem.task_ids[problem.edge_src[e]]].processor
                != schedule[problem.task_ids[problem.edge_dst[e]]].processor
            )  # fmt: skip
            assert len(schedule.messages) == remote
    # Rerunning resumes: the rows of both models are found, none is recomputed.
    again = run_sweep(
        files, "heft,peft", exact="cpsat", time_limit=5, workers=1, jobs=1, seed=0,
        communication="delay,contention", db=db, progress="none",
    )  # fmt: skip
    again.store.close()
    assert again.ran == 0 and again.skipped == 12


def test_compare_cli_reports_models_ratios_and_refusals(capsys, files):
    status, out, err = run(
        capsys, "compare", *files, "--communication", "delay,contention", "--methods",
        "heft,peft", "--exact", "cpsat,milp", "-t", "5", "-w", "1", "-j", "1", "-q",
    )  # fmt: skip
    assert status == 0, err
    assert "tiny-mesh [contention]" in out and "tiny-fat-tree [contention]" in out
    assert "contention/delay over 2 instance(s): geometric mean" in out
    table = out.split("Mean gap of each method under each model")[1]
    milp = next(line for line in table.splitlines() if line.startswith("milp"))
    assert milp.split()[-1] == "n/a"  # milp refuses contention
    assert "milp under contention: milp: does not support the 'contention'" in out


def test_compare_json_rows_carry_the_model(capsys, files):
    status, out, _ = run(
        capsys, "compare", files[0], "--communication", "single-port", "--methods", "heft",
        "--exact", "none", "--json",
    )  # fmt: skip
    assert status == 0
    rows = json.loads(out)["rows"]
    assert [r["communication"] for r in rows] == ["single-port"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("bogus", "--communication: unknown model 'bogus'; expected delay, single-port or"),
        (",", "--communication: empty"),
        ("delay,contention", "--communication contention: platform.network.communication:"),
    ],
)
def test_compare_refuses_bad_models_before_running(capsys, tmp_path, value, message):
    matrix = {"topology": "matrix", "hops": [[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1],
                                             [2, 1, 1, 0]]}  # fmt: skip
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(tiny("matrix", matrix).to_json()))
    db = tmp_path / "study.db"
    status, out, err = run(
        capsys, "compare", path, "--communication", value, "--exact", "none", "--methods",
        "heft", "--db", db,
    )  # fmt: skip
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert "Traceback" not in err
    assert not db.exists() or not load_rows(str(db))  # nothing ran


def test_the_flag_overrides_the_files_model_and_keeps_its_duplex(tmp_path):
    network = {**NETWORKS["mesh"], "communication": "contention", "duplex": False}
    path = tmp_path / "own.json"
    path.write_text(json.dumps(tiny("own", network).to_json()))
    own = run_sweep([str(path)], "heft", exact="none", progress="none", jobs=1)
    try:
        [row] = load_rows(own.store, keys=own.keys)
    finally:
        own.store.close()
    assert row["communication"] == "contention"  # without the flag: the file's model
    flagged = run_sweep(
        [str(path)], "heft", exact="none", progress="none", jobs=1,
        communication="single-port,delay",
    )  # fmt: skip
    try:
        rows = load_rows(flagged.store, keys=flagged.keys)
        docs = [json.loads(i["document"]) for i in flagged.store.instances()]
    finally:
        flagged.store.close()
    assert sorted(r["communication"] for r in rows) == ["delay", "single-port"]
    networks = sorted((d["platform"]["network"] for d in docs), key=len)
    assert networks[0] == NETWORKS["mesh"]  # delay: no model, no duplex
    assert networks[1] == {**NETWORKS["mesh"], "communication": "single-port", "duplex": False}
    assert len({r["base_key"] for r in rows}) == 1 == len({row["base_key"], rows[0]["base_key"]})


def test_base_key_of_a_preset_platform():
    doc = tiny("x", NETWORKS["mesh"]).to_json()
    model, key = communication_of(doc)
    assert model == "delay" and key == communication_of(json.dumps(doc))[1]
    assert communication_of(canonical_json(Problem.from_json(doc)))[1] == key


# ---- gantt: message rows ----------------------------------------------------------------


def _chart(model: str):
    from exactsched.experiments.plots import gantt_chart

    problem = tiny("g", NETWORKS["mesh"]).with_communication(model)
    result = solve(problem, "heft")
    assert validate(problem, result.schedule) == []
    return problem, result.schedule, gantt_chart(problem, result.schedule)


def _rows(fig):
    return [t.get_text() for t in fig.axes[0].get_yticklabels()]


def test_gantt_contention_draws_one_row_per_used_link():
    problem, schedule, fig = _chart("contention")
    assert schedule.messages  # the heuristic spreads the fork over processors
    labels = _rows(fig)
    used = {h.link for m in schedule.messages for h in m.links}
    assert labels[: problem.n_processors] == list(problem.proc_ids)
    assert sorted(labels[problem.n_processors :]) == sorted(used)
    boxes = {p.get_gid(): p for p in fig.axes[0].patches if str(p.get_gid()).startswith("msg:")}
    for m in schedule.messages:
        for h in m.links:
            box = boxes[f"msg:{m.src}->{m.dst}@{h.link}"]
            assert float(box.get_x()) == pytest.approx(h.start)
            assert float(box.get_width()) == pytest.approx(h.finish - h.start)
            assert labels[round(box.get_y() + box.get_height() / 2)] == h.link
    assert len(boxes) == sum(len(m.links) for m in schedule.messages)


def test_gantt_single_port_draws_send_and_receive_rows():
    problem, schedule, fig = _chart("single-port")
    labels = _rows(fig)
    senders = {schedule[m.src].processor for m in schedule.messages}
    receivers = {schedule[m.dst].processor for m in schedule.messages}
    expected = {f"{p} send" for p in senders} | {f"{p} recv" for p in receivers}
    assert set(labels[problem.n_processors :]) == expected
    boxes = {p.get_gid(): p for p in fig.axes[0].patches if str(p.get_gid()).startswith("msg:")}
    for m in schedule.messages:
        for lane in (f"{schedule[m.src].processor} send", f"{schedule[m.dst].processor} recv"):
            box = boxes[f"msg:{m.src}->{m.dst}@{lane}"]
            assert float(box.get_x()) == pytest.approx(m.start)
            assert labels[round(box.get_y() + box.get_height() / 2)] == lane


def test_gantt_delay_schedule_is_unchanged():
    problem, schedule, fig = _chart("delay")
    assert not schedule.messages
    assert _rows(fig) == list(problem.proc_ids)
    assert not any(str(p.get_gid()).startswith("msg:") for p in fig.axes[0].patches)


def test_gantt_cli_on_a_contention_schedule(capsys, tmp_path):
    problem = tiny("g", NETWORKS["fat-tree"]).with_communication("contention")
    result = solve(problem, "heft")
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    inst.write_text(json.dumps(problem.to_json()))
    sched.write_text(json.dumps(result.schedule.to_json()))
    status, out, err = run(capsys, "gantt", sched, inst, "-o", tmp_path / "g.png")
    assert status == 0 and "wrote" in out and err == ""
    assert (tmp_path / "g.png").stat().st_size > 0


def test_the_store_keeps_models_apart():
    with Store(":memory:") as store:
        out = run_sweep(
            [tiny("s", NETWORKS["mesh"])], "heft", exact="none", progress="none", jobs=1,
            communication="delay,single-port,contention", db=store,
        )  # fmt: skip
        rows = load_rows(store, keys=out.keys)
    assert sorted(r["communication"] for r in rows) == ["contention", "delay", "single-port"]
    assert len({r["instance_key"] for r in rows}) == 3 and len({r["base_key"] for r in rows}) == 1


def test_results_and_gantt_from_a_study_of_several_models(capsys, files, tmp_path):
    db = tmp_path / "study.db"
    status, _, err = run(
        capsys, "compare", files[0], "--communication", "delay,contention", "--methods",
        "heft", "--exact", "none", "--db", db, "-q",
    )  # fmt: skip
    assert status == 0, err
    status, out, _ = run(capsys, "results", db)
    assert status == 0 and "contention/delay over 1 instance(s)" in out
    # One name, two instances: the model picks one, and without it the error says so.
    png = tmp_path / "g.png"
    status, out, err = run(capsys, "gantt", "--db", db, "-m", "heft", "tiny-mesh", "-o", png)
    assert status == 2 and "2 instances" in err and "give --communication" in err
    assert len(err.strip().splitlines()) == 1
    for model in ("contention", "delay"):
        status, out, err = run(
            capsys, "gantt", "--db", db, "-m", "heft", "tiny-mesh", "--communication", model,
            "-o", png,
        )  # fmt: skip
        assert status == 0 and err == "" and png.stat().st_size > 0
    status, _, err = run(capsys, "gantt", "--db", db, "-m", "heft", "tiny-mesh",
                         "--communication", "bogus", "-o", png)  # fmt: skip
    assert status == 2 and "unknown model 'bogus'" in err


@pytest.mark.parametrize(
    ("row", "shown"),
    [
        ({"reference": 280, "optimum": 280}, "280"),
        ({"reference": 286, "optimum": None, "best_bound": 286, "disputed": None}, "=286"),
        ({"reference": 324, "optimum": None, "best_bound": 224, "disputed": None}, "~324"),
        ({"reference": 324, "optimum": None, "best_bound": 330, "disputed": "x"}, "~324"),
        (None, "-"),
    ],
)
def test_reference_marks(row, shown):
    from exactsched.experiments.report import _reference

    assert _reference(row) == shown
