"""Benchmark: the exact frontier with communication, the project against a plain CP-SAT model.

A fixed set (:func:`frontier_set`) of 22 instances:

* 16 random layered DAGs (:func:`exactsched.generators.random_instance`) of 60 to
  100 tasks on 8 or 16 heterogeneous processors (unrelated costs,
  heterogeneity 0.5), on a mesh, a fat-tree or a CPU-GPU node
  (``accelerated-node``: a quarter of the processors are accelerators), CCR
  0.5, 1 or 2, seeds 0-15;
* 6 tiled Cholesky factorisations (:func:`exactsched.workloads.cholesky.cholesky_instance`,
  measured kernel times, tile 1024): N = 6, 7, 8 on 7 CPU cores + 1 GPU
  (``hoft-single-gpu``) and on 28 CPU cores + 4 GPUs (``hoft-multi-gpu``).

Each is solved by ``cpsat`` (the project: warm start, bounds, cuts, pooling,
symmetry breaking, LNS) and by :func:`plain_cpsat`, a plain CP-SAT model
written here: one optional fixed-size interval per (task, processor), one
no-overlap per processor, ``exactly one`` per task, per arc and pair of
processors with a positive delay one constraint enforced by both presences,
makespan above every end; no cuts, no hints, no symmetry breaking. Both get
the same time limit and workers (default 60 s, 2). Each row prints both
results; the summary gives, by group and in all, the proven count, the median
time to proof, the median and largest final gap, and the ratio of the
project's time to proof to the plain model's on the instances both prove.
Gaps are :func:`exactsched.result.relative_gap` of the makespan and the proven
bound (the definition is printed with the table).

Every schedule is validated by :func:`exactsched.validate`. "Proven" counts
the engine's claims (``certify=False``), as for the plain model; the project's
claims are then certified with the solve's workers under ``--certify-budget``
(default: the solve's own time, at least 2 s) and the share certified is
reported by size band. :func:`exactsched.solve`'s default policy reports only
the certified ones as ``optimal``; for the others the witness then proves what
lower bound it can in as much time again (``bound_time`` of
:func:`models.certify.certify`), printed as "no (bound B)": the bound ``solve``
reports for that claim when its time limit leaves that time (``solve -t`` with a
limit the solve itself nearly uses reports the foundation bound instead).

Examples
--------
``python benchmarks/frontier.py`` (22 instances x 2 models x 60 s: about 45 minutes at most)
``python benchmarks/frontier.py --limit 3 --time-limit 10``
``python benchmarks/frontier.py --only cholesky --models cpsat``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from exactsched import Problem, Schedule, solve, validate
from exactsched.generators import random_instance
from exactsched.result import relative_gap
from exactsched.workloads.cholesky import cholesky_instance
from models.certify import certify, engine_view, settle

__all__ = ["frontier_set", "plain_cpsat", "main"]

_TOPOLOGIES = ("mesh", "fat-tree", "accelerated-node")
_CCR = (0.5, 1.0, 2.0)
_SIZES = (60, 70, 80, 90, 100)


def frontier_set() -> list[tuple[str, str, Callable[[], Problem]]]:
    """The fixed set: (name, group, builder), 16 random then 6 Cholesky instances."""
    cases: list[tuple[str, str, Callable[[], Problem]]] = []
    for k in range(16):
        n = _SIZES[k % 5]
        topology = _TOPOLOGIES[k % 3]
        ccr = _CCR[(k // 3) % 3]
        procs = (8, 16)[(k // 2) % 2]
        name = f"random-n{n}-{topology}-P{procs}-ccr{ccr:g}-s{k}"

        def build(n=n, procs=procs, topology=topology, ccr=ccr, k=k) -> Problem:
            return random_instance(n, procs, topology=topology, ccr=ccr, seed=k)

        cases.append((name, "random", build))
    for preset, label in (("hoft-single-gpu", "7+1"), ("hoft-multi-gpu", "28+4")):
        for tiles in (6, 7, 8):

            def build(tiles=tiles, preset=preset) -> Problem:
                return cholesky_instance(tiles, preset)

            cases.append((f"cholesky-N{tiles}-{label}", "cholesky", build))
    return cases


def plain_cpsat(
    problem: Problem, *, time_limit: float, workers: int, seed: int = 0
) -> dict[str, Any]:
    """The plain CP-SAT model (see the module docstring) on integer data.

    Returns the status (``optimal``, ``feasible`` or ``unknown``), the makespan of
    the validated schedule, the solver's bound and the wall seconds.
    """
    if not problem.is_integral:
        raise ValueError("plain_cpsat: integer data only")
    started = time.perf_counter()
    n, n_procs = problem.n_tasks, problem.n_processors
    cost = np.where(problem.allowed, problem.cost, 0).astype(np.int64)
    horizon = int(cost.max(axis=1).sum())
    delays = [problem.arc_unit[a] * problem.hops for a in range(len(problem.arc_src))]
    horizon += int(sum(d.max() for d in delays))
    model = cp_model.CpModel()
    start = [model.new_int_var(0, horizon, f"s{i}") for i in range(n)]
    end = [model.new_int_var(0, horizon, f"e{i}") for i in range(n)]
    x: dict[tuple[int, int], Any] = {}
    per_proc: list[list[Any]] = [[] for _ in range(n_procs)]
    for i in range(n):
        lits = []
        for p in np.flatnonzero(problem.allowed[i]).tolist():
            lit = model.new_bool_var(f"x{i}_{p}")
            x[i, p] = lit
            lits.append(lit)
            c = int(cost[i, p])
            model.add(end[i] == start[i] + c).only_enforce_if(lit)
            if c > 0:
                per_proc[p].append(
                    model.new_optional_fixed_size_interval_var(start[i], c, lit, f"i{i}_{p}")
                )
        model.add_exactly_one(lits)
    for intervals in per_proc:
        model.add_no_overlap(intervals)
    for a in range(len(problem.arc_src)):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start[j] >= end[i])
        for p in np.flatnonzero(problem.allowed[i]).tolist():
            for q in np.flatnonzero(problem.allowed[j]).tolist():
                d = int(np.ceil(delays[a][p, q]))
                if d > 0:
                    model.add(start[j] >= end[i] + d).only_enforce_if([x[i, p], x[j, q]])
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        before = model.new_bool_var(f"iso{a}_{b}")
        model.add(start[b] >= end[a]).only_enforce_if(before)
        model.add(start[a] >= end[b]).only_enforce_if(~before)
    makespan = model.new_int_var(0, horizon, "makespan")
    model.add_max_equality(makespan, end)
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = max(0.01, time_limit - (time.perf_counter() - started))
    code = solver.solve(model)
    out: dict[str, Any] = {"status": "unknown", "makespan": None, "bound": None}
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proc = np.array(
            [
                next(p for p in range(n_procs) if (i, p) in x and solver.value(x[i, p]))
                for i in range(n)
            ]
        )
        times = np.array([solver.value(s) for s in start], dtype=float)
        schedule = Schedule.from_arrays(problem, proc, times)
        problems = validate(problem, schedule)
        if problems:
            raise RuntimeError(f"plain_cpsat: invalid schedule: {problems[0]}")
        bound = float(solver.best_objective_bound)
        out = {
            "status": "optimal" if code == cp_model.OPTIMAL else "feasible",
            "makespan": float(schedule.makespan),
            "bound": bound,
        }
    out["seconds"] = time.perf_counter() - started
    return out


def _project(problem: Problem, time_limit: float, workers: int, seed: int, budget: float | None):
    result = engine_view(  # the engine's claim, as for the plain model
        solve(problem, "cpsat", time_limit, workers=workers, seed=seed, certify=False)
    )
    assert validate(problem, result.schedule) == []
    row = {
        "status": result.status.value,
        "makespan": float(result.makespan),
        "bound": float(result.lower_bound),
        "seconds": result.seconds,
        "certified": None,
    }
    if result.status.value == "optimal":
        limit = max(2.0, result.seconds) if budget is None else budget
        checked = certify(
            problem, result, time_limit=limit, seed=seed, workers=workers, bound_time=limit
        )
        row["certified"] = bool(checked.certified)
        if not checked.certified:  # what solve reports instead: the witness-proven bound
            row["settled_bound"] = float(settle(problem, checked).lower_bound)
    return row


def _band(n: int) -> str:
    return "<= 30" if n <= 30 else ("31-60" if n <= 60 else "61-100" if n <= 100 else "> 100")


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="only the first N instances")
    parser.add_argument("--only", choices=("all", "random", "cholesky"), default="all")
    parser.add_argument(
        "--names", nargs="+", default=None, help="instances containing one of these"
    )
    parser.add_argument(
        "--models", nargs="+", choices=("cpsat", "plain"), default=["cpsat", "plain"]
    )
    parser.add_argument(
        "--certify-budget", type=float, default=None, help="seconds (default: max(2, solve time))"
    )
    args = parser.parse_args(argv)
    cases = [c for c in frontier_set() if args.only in ("all", c[1])]
    if args.names:
        for name in args.names:
            if not any(name in c[0] for c in cases):
                parser.error(f"--names {name}: matches none of the {len(cases)} instances")
        cases = [c for c in cases if any(s in c[0] for s in args.names)]
    if args.limit is not None:
        cases = cases[: args.limit]
    print(
        f"{len(cases)} instances, {args.time_limit:g} s, {args.workers} workers, "
        f"seed {args.seed}; gap: {relative_gap.__doc__.splitlines()[0]}\n"
    )
    print(
        "| instance | tasks | P | project | bound | s | certified | plain | bound | s |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = []
    for name, group, build in cases:
        problem = build()
        row: dict[str, Any] = {"name": name, "group": group, "n": problem.n_tasks}
        if "cpsat" in args.models:
            row["cpsat"] = _project(
                problem, args.time_limit, args.workers, args.seed, args.certify_budget
            )
        if "plain" in args.models:
            row["plain"] = plain_cpsat(
                problem, time_limit=args.time_limit, workers=args.workers, seed=args.seed
            )
        rows.append(row)

        def cell(key: str, row: dict[str, Any] = row) -> str:
            r = row.get(key)
            if r is None:
                return "| - | - | -"
            mark = "*" if r["status"] == "optimal" else ""
            return f"| {_fmt(r['makespan'], 0)}{mark} | {_fmt(r['bound'], 0)} | {r['seconds']:.1f}"

        cert = row.get("cpsat", {}).get("certified")
        said = "" if cert is None else ("yes" if cert else "no")
        if "settled_bound" in row.get("cpsat", {}):
            said += f" (bound {row['cpsat']['settled_bound']:.0f})"
        print(
            f"| {name} | {problem.n_tasks} | {problem.n_processors} {cell('cpsat')} "
            f"| {said} {cell('plain')} |",
            flush=True,
        )
    print("\n(* proven optimal)\n")
    print(
        "| group | model | n | proven | median s to proof | median gap | max gap "
        "| time to proof vs plain (both proven) |\n|---|---|---|---|---|---|---|---|"
    )
    groups = sorted({r["group"] for r in rows}) + ["all"]
    for group in groups:
        chosen = [r for r in rows if group in ("all", r["group"])]
        for key in args.models:
            runs = [r[key] for r in chosen]
            proven = [r for r in runs if r["status"] == "optimal"]
            gaps = [
                relative_gap(r["makespan"], r["bound"]) for r in runs if r["makespan"] is not None
            ]
            gaps = [g for g in gaps if g is not None]
            ratio = "-"
            if key == "cpsat" and "plain" in args.models:
                both = [
                    r["cpsat"]["seconds"] / r["plain"]["seconds"]
                    for r in chosen
                    if r["cpsat"]["status"] == r["plain"]["status"] == "optimal"
                ]
                if both:
                    ratio = f"{statistics.median(both):.2f}x (median of {len(both)})"
            median_s = statistics.median([r["seconds"] for r in proven]) if proven else None
            print(
                f"| {group} | {key} | {len(runs)} | {len(proven)} | {_fmt(median_s, 2)} "
                f"| {_fmt(100 * statistics.median(gaps) if gaps else None)} % "
                f"| {_fmt(100 * max(gaps) if gaps else None)} % | {ratio} |"
            )
    if "cpsat" in args.models:
        print("\n| tasks | project optima | certified within the budget |\n|---|---|---|")
        bands: dict[str, list[dict]] = {}
        for r in rows:
            if r["cpsat"]["status"] == "optimal":
                bands.setdefault(_band(r["n"]), []).append(r)
        for band, group_rows in sorted(bands.items()):
            certified = sum(bool(r["cpsat"]["certified"]) for r in group_rows)
            print(f"| {band} | {len(group_rows)} | {certified} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
