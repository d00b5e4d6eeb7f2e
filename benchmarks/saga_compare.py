"""Our ready-list heuristics against saga's on fully connected related-machine instances.

saga (the ``anrg-saga`` package) implements ETF, GDL (its name for Sih and Lee's
dynamic level scheduling), MCT, MET, OLB, min-min, max-min and sufferage. This
script builds random DAGs on fully connected related machines (a task costs
``work / speed`` on a processor, every link has bandwidth 1 and no latency, so
an edge of ``data`` costs ``data`` between distinct processors, as in saga),
runs saga's schedulers in a subprocess of their own virtual environment and
ours in this process, and prints the makespans side by side.

Every difference is explained by a *definition*: for each algorithm the output
lists how saga's rule (read from its behaviour and documentation) differs from
ours (our module docstrings), and, where our engine can express saga's rule, a
third column ``ours, saga's definition`` re-runs our code under that
definition (e.g. min-min mapped in rounds, or MCT in saga's task order). When
that column equals saga's makespan on every instance, the difference in the
second column is entirely due to the stated definition.

Setting up saga: the script creates a virtual environment (default
``/tmp/saga-venv``) and ``pip install anrg-saga`` into it, after checking
with ``pip download --no-deps anrg-saga`` that the registry has it; if it does
not, the comparison is skipped with a message. saga's task and node sets are
frozensets hashed by name, so its iteration order (hence its tie-breaking and
topological order) depends on ``PYTHONHASHSEED``; the subprocess runs with
``PYTHONHASHSEED=0``. Work, speeds and data are drawn with three decimals, so
ties in finish times are unlikely and tie-breaking rarely matters.

``--speed N P`` instead times our implementations (CPU seconds, one run each)
on one random instance of ``N`` tasks and ``P`` processors on a mesh, and
``--optimum N P`` measures their gaps to the CP-SAT optimum on random
instances of ``N`` tasks and ``P`` processors over every topology (with order
pairs, isolation pairs and affinity; instances CP-SAT does not prove within
``--time-limit`` are left out); saga is not involved in either.

Usage::

    python benchmarks/saga_compare.py                      # 20 instances, 30 tasks, 4 procs
    python benchmarks/saga_compare.py --instances 10 --tasks 60 --processors 8 --ccr 2
    python benchmarks/saga_compare.py --speed 5000 16
    python benchmarks/saga_compare.py --optimum 14 4 --instances 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from exactsched import Problem, Status, solve, validate
from exactsched.generators import TOPOLOGIES, random_dag, random_instance
from exactsched.registry import get_method
from heuristics._ready_list import batch_schedule
from heuristics.dsc_glb_etf import etf_order
from heuristics.eft import ScheduleBuilder
from heuristics.ranking import ranks_from_weights

SAGA_VENV = Path("/tmp/saga-venv")

# Runs inside saga's environment: every scheduler on every instance; prints JSON.
_RUNNER = r"""
import json, sys, logging
logging.disable(logging.WARNING)
import saga
from saga.schedulers import (ETFScheduler, GDLScheduler, MCTScheduler, METScheduler,
                             OLBScheduler, MinMinScheduler, MaxMinScheduler,
                             SufferageScheduler)
SCHEDULERS = {
    "ETF": ETFScheduler, "GDL": GDLScheduler, "GDL-1": lambda: GDLScheduler(dynamic_level=1),
    "MCT": MCTScheduler, "MET": METScheduler, "OLB": OLBScheduler,
    "MinMin": MinMinScheduler, "MaxMin": MaxMinScheduler, "Sufferage": SufferageScheduler,
}
out = []
for doc in json.load(open(sys.argv[1])):
    nodes = [(f"p{q}", s) for q, s in enumerate(doc["speed"])]
    links = [(f"p{p}", f"p{q}", 1.0) for p in range(len(nodes)) for q in range(p + 1, len(nodes))]
    network = saga.Network.create(nodes, links)
    graph = saga.TaskGraph.create([(f"t{i}", w) for i, w in enumerate(doc["work"])],
                                  [(f"t{a}", f"t{b}", d) for a, b, d in doc["edges"]])
    row = {"order": [int(t.name[1:]) for t in graph.topological_sort() if t.name[1:].isdigit()],
           "nodes": [int(node.name[1:]) for node in network.nodes]}
    for name, make in SCHEDULERS.items():
        schedule = make().schedule(network, graph)
        row[name] = schedule.makespan
    out.append(row)
print(json.dumps(out))
"""


def make_instance(n_tasks: int, n_procs: int, ccr: float, seed: int) -> tuple[Problem, dict]:
    """A random DAG on fully connected related machines, and its saga description.

    Work is uniform in [1, 20], speeds in [1, 4], data uniform in [0, 2 * ccr *
    mean work], all with three decimals; costs are ``work / speed``.
    """
    rng = np.random.default_rng(seed)
    arcs = random_dag(n_tasks, seed=rng)
    work = rng.uniform(1.0, 20.0, n_tasks).round(3)
    speed = rng.uniform(1.0, 4.0, n_procs).round(3)
    data = rng.uniform(0.0, 2.0 * ccr * float(work.mean()), len(arcs)).round(3)
    edges = [(int(a), int(b), float(d)) for (a, b), d in zip(arcs, data, strict=True)]
    problem = Problem.from_lists(work[:, None] / speed[None, :], edges)
    saga_doc = {"speed": speed.tolist(), "work": work.tolist(), "edges": edges}
    return problem, saga_doc


def saga_python(venv: Path) -> Path | None:
    """The venv's python with saga importable, creating it if needed; None if impossible."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import saga.schedulers"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    with tempfile.TemporaryDirectory() as tmp:
        check = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "anrg-saga", "-d", tmp],
            capture_output=True,
            text=True,
        )
    if check.returncode != 0:
        print("anrg-saga is not available from the package registry: comparison skipped")
        return None
    print(f"(creating {venv} and installing anrg-saga)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "anrg-saga"], check=True)
    return python


# ---- our rules under saga's definitions (our engine, saga's choice of order or rule) ----


def _in_order(problem: Problem, row: dict, choose: Callable[..., np.ndarray]) -> float:
    """Place the tasks in saga's topological order, non-insertion, on ``choose``'s pick.

    ``choose`` returns a ``(P,)`` score, least wins; ties go to the first processor
    in saga's node iteration order ``row["nodes"]``, as its ``min`` over node names does.
    """
    nodes = np.array(row["nodes"])
    b = ScheduleBuilder(problem, insertion=False)
    for t in row["order"]:
        est, eft = b.eft(t)
        score = np.asarray(choose(b, t, est, eft))[nodes]
        b.place(t, int(nodes[np.argmin(score)]), start=None)
    s = b.to_schedule()
    assert validate(problem, s) == []
    return float(s.makespan)


def _mct(b: ScheduleBuilder, t: int, est: np.ndarray, eft: np.ndarray) -> np.ndarray:
    return eft


def _met(b: ScheduleBuilder, t: int, est: np.ndarray, eft: np.ndarray) -> np.ndarray:
    return b.problem.cost[t]


def _olb_free(b: ScheduleBuilder, t: int, est: np.ndarray, eft: np.ndarray) -> np.ndarray:
    return b.available  # the next processor to be free, data arrival ignored


def _gdl1(problem: Problem, row: dict) -> float:
    """saga's dynamic_level=1 rule, as its output shows it, on our engine.

    ``SL`` = median cost + max over children of (child's SL + edge data); ``Delta`` =
    median of *all* costs minus the cost here; ``DL = SL - max(DA, TF) + Delta``;
    each ready task's preferred processor is the one of *least* DL, its level
    ``DL(pref) + (DL(pref) - max DL)``, and the ready task of least level goes first.
    """
    median = np.median(problem.cost, axis=1)
    level = ranks_from_weights(problem, median, problem.arc_unit.astype(float))
    delta = float(np.median(problem.cost)) - problem.cost
    nodes = np.array(row["nodes"])

    def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
        dl = (level[tasks, None] - est + delta[tasks])[:, nodes]
        pref = np.argmin(dl, axis=1)
        at_pref = dl[np.arange(len(tasks)), pref]
        general = 2 * at_pref - dl.max(axis=1)
        r = int(np.argmin(general))
        return r, int(nodes[pref[r]])

    s = batch_schedule(problem, pick, insertion=False)
    assert validate(problem, s) == []
    return float(s.makespan)


def _ours(name: str, **options: Any) -> Callable[[Problem, dict], float]:
    func = get_method(name).func
    return lambda problem, row: float(func(problem, **options).makespan)


# saga name -> (our method, our run, our run under saga's definition or None, explanation)
COMPARISONS: dict[str, tuple[str, Callable, Callable | None, str]] = {
    "ETF": (
        "etf (heuristics.dsc_glb_etf.etf_order)",
        lambda problem, row: float(etf_order(problem).makespan),
        None,
        "saga's ETF is event-driven, as Hwang et al. describe ETF: a clock advances to "
        "the next finish time and only processors idle at that moment, and only tasks "
        "ready at it, are matched (the pair of earliest start first, no start before "
        "the clock). Ours is the static reading of Ozkaya et al. (IPDPS 2019, slide 10) "
        "used inside dsc-glb-etf: among all ready tasks and all processors, busy or "
        "not, the pair of earliest start (ties: larger bottom level), appended to the "
        "processor. A task may so be placed on a processor that is busy now but frees "
        "early, which the clock-driven form never does; neither rule dominates.",
    ),
    "GDL": (
        "dls",
        _ours("dls"),
        None,
        "saga's GDL (default dynamic_level=2) adds Sih and Lee's descendant term D and the "
        "generalised level (preferred processor, cost C) to DL; its static level adds the "
        "edge data along the path, and its Delta uses the median over all tasks and "
        "processors. Our dls is DL = SL - EST + Delta of Sih and Lee as Topcuoglu et al. "
        "describe it: SL without communication, Delta = the task's own median cost minus "
        "its cost here, the (task, processor) pair of largest DL.",
    ),
    "GDL-1": (
        "dls",
        _ours("dls"),
        _gdl1,
        "saga's GDL with dynamic_level=1: DL without D, but its own SL (with edge data) "
        "and global-median Delta; for each task it takes the processor of *least* DL as "
        "the preferred one and the task of least generalised level DL(pref) + (DL(pref) "
        "- max DL) goes first, where Sih and Lee (and our dls) take the pair of *largest* "
        "DL. The third column re-runs that reading on our engine and agrees with saga, so "
        "the several-fold longer saga makespans come from minimising instead of "
        "maximising the dynamic level.",
    ),
    "MCT": (
        "mct",
        _ours("mct"),
        lambda problem, row: _in_order(problem, row, _mct),
        "Same rule (least completion time, processor-free time plus data arrival, no "
        "insertion); Braun et al. take tasks 'in arbitrary order': saga uses networkx's "
        "topological sort of its graph, ours the ready list first in first out.",
    ),
    "MET": (
        "met",
        _ours("met"),
        lambda problem, row: _in_order(problem, row, _met),
        "Same rule (fastest processor, no insertion); only the 'arbitrary' task order "
        "differs (saga: networkx topological sort; ours: ready list first in first out), "
        "which changes start times on the shared fast processor.",
    ),
    "OLB": (
        "olb",
        _ours("olb"),
        lambda problem, row: _in_order(problem, row, _olb_free),
        "saga reads 'the next machine expected to be available' as the machine that "
        "becomes free first, ignoring when the task's data arrive there; ours as the "
        "machine where the task can start first (free and data arrived), which is "
        "the same for independent tasks. The third column is our engine with saga's "
        "reading and saga's task order.",
    ),
    "MinMin": (
        "min-min",
        _ours("min-min"),
        _ours("min-min", rounds=True),
        "saga maps in rounds: the tasks made ready during a round wait until every task "
        "ready at its start is mapped (Braun et al.'s meta-task = the ready set); ours "
        "lets them compete at once by default, rounds=True is saga's definition.",
    ),
    "MaxMin": (
        "max-min",
        _ours("max-min"),
        _ours("max-min", rounds=True),
        "As for min-min: saga maps in rounds (our rounds=True), ours by default "
        "re-evaluates the whole ready list after every placement.",
    ),
    "Sufferage": (
        "sufferage",
        _ours("sufferage"),
        None,
        "Same definition: one task per step, the ready task of largest sufferage (second "
        "least minus least completion time) to its best processor, ready list updated "
        "after every placement.",
    ),
}


SPEED_METHODS = (
    "heft",
    "mct",
    "met",
    "olb",
    "min-min",
    "max-min",
    "sufferage",
    "dls",
    "mh",
    "lmt",
    "dsc-glb-etf",
)


def speed(n_tasks: int, n_procs: int, seed: int) -> None:
    """CPU seconds of our methods on one random mesh instance (``heft`` for reference)."""
    problem = random_instance(n_tasks, n_procs, topology="mesh", seed=seed)
    print(
        f"## CPU seconds, {n_tasks} tasks, {problem.n_edges} edges, {n_procs} processors "
        f"(mesh), seed {seed}\n"
    )
    print("| method | seconds | makespan |")
    print("| --- | ---: | ---: |")
    for name in SPEED_METHODS:
        start = time.process_time()
        schedule = get_method(name).func(problem)
        seconds = time.process_time() - start
        print(f"| {name} | {seconds:.3f} | {schedule.makespan:g} |")


def optimum_gaps(
    n_tasks: int, n_procs: int, seeds: int, seed: int, ccr: float, time_limit: float
) -> None:
    """Gaps of our methods to proven CP-SAT optima, over every topology."""
    gaps: dict[str, list[float]] = {name: [] for name in SPEED_METHODS}
    proven = total = 0
    for k, topology in enumerate(TOPOLOGIES):
        for s in range(seeds):
            total += 1
            problem = random_instance(
                n_tasks,
                n_procs,
                topology=topology,
                ccr=ccr,
                n_order=2,
                n_isolation=2,
                affinity=0.1,
                seed=seed + 100 * k + s,
            )
            exact = solve(problem, "cpsat", time_limit=time_limit, workers=1, seed=0)
            if exact.status is not Status.OPTIMAL:
                continue
            proven += 1
            for name in SPEED_METHODS:
                makespan = solve(problem, name).makespan
                gaps[name].append(makespan / exact.makespan - 1.0)
    print(
        f"## Gap to the optimum: {proven} of {total} random instances proven optimal "
        f"({n_tasks} tasks, {n_procs} processors, CCR {ccr}, every topology, order and "
        f"isolation pairs, affinity; CP-SAT {time_limit:g} s)\n"
    )
    print("| method | optimal | mean gap | median gap | max gap |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, values in sorted(gaps.items(), key=lambda kv: float(np.mean(kv[1] or [0]))):
        v = np.array(values)
        if not len(v):
            continue
        print(
            f"| {name} | {int((v < 1e-9).sum())} / {len(v)} | {100 * v.mean():.1f} % "
            f"| {100 * np.median(v):.1f} % | {100 * v.max():.1f} % |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--processors", type=int, default=4)
    parser.add_argument("--ccr", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--saga-venv", type=Path, default=SAGA_VENV)
    parser.add_argument("--speed", type=int, nargs=2, metavar=("N", "P"))
    parser.add_argument("--optimum", type=int, nargs=2, metavar=("N", "P"))
    parser.add_argument("--time-limit", type=float, default=10.0, help="CP-SAT, --optimum")
    args = parser.parse_args(argv)
    if args.speed:
        speed(*args.speed, seed=args.seed)
        return
    if args.optimum:
        optimum_gaps(*args.optimum, args.instances, args.seed, args.ccr, args.time_limit)
        return

    python = saga_python(args.saga_venv)
    if python is None:
        return
    instances = [
        make_instance(args.tasks, args.processors, args.ccr, args.seed + k)
        for k in range(args.instances)
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump([doc for _, doc in instances], fh)
    try:
        env = dict(os.environ, PYTHONHASHSEED="0")
        done = subprocess.run(
            [str(python), "-c", _RUNNER, fh.name],
            capture_output=True,
            text=True,
            env=env,
        )
    finally:
        os.unlink(fh.name)
    if done.returncode != 0:
        raise SystemExit(f"saga runner failed:\n{done.stderr[-2000:]}")
    rows = json.loads(done.stdout)

    print(
        f"## saga against exactsched: {args.instances} random DAGs, {args.tasks} tasks, "
        f"{args.processors} related machines, fully connected, CCR {args.ccr}, "
        f"seeds {args.seed}..{args.seed + args.instances - 1}\n"
    )
    print(
        "| saga | ours | equal | mean ours / saga | min | max "
        "| ours, saga's definition: equal to saga |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    notes = []
    for saga_name, (ours_name, run, matched, why) in COMPARISONS.items():
        saga_ms = np.array([row[saga_name] for row in rows])
        ours_ms = np.array([run(p, row) for (p, _), row in zip(instances, rows, strict=True)])
        ratio = ours_ms / saga_ms
        equal = int(np.isclose(ours_ms, saga_ms, rtol=1e-9, atol=1e-6).sum())
        same = "-"
        if matched is not None:
            m = np.array([matched(p, row) for (p, _), row in zip(instances, rows, strict=True)])
            same = f"{int(np.isclose(m, saga_ms, rtol=1e-9, atol=1e-6).sum())} / {len(rows)}"
        print(
            f"| {saga_name} | {ours_name} | {equal} / {len(rows)} | {ratio.mean():.3f} "
            f"| {ratio.min():.3f} | {ratio.max():.3f} | {same} |"
        )
        notes.append(f"* {saga_name} vs {ours_name}: {why}")
    print("\nWhy the makespans differ (definitions):\n")
    print("\n".join(notes))


if __name__ == "__main__":
    main()
