"""Benchmark of the listing heuristics: runtime against tasks and processors, and saga's HEFT.

Part 1 times every registered heuristic on related-machines instances (task
``i`` costs ``work[i] / speed[q]`` on processor ``q``) built from
:func:`exactsched.generators.random_instance`, for every ``--tasks`` x
``--processors`` pair, and prints one markdown table (seconds; every schedule
is validated). A heuristic that takes longer than ``--budget`` seconds is
skipped on the larger instances that follow (shown as ``skip``).

Part 2 runs our ``heft`` side by side with the HEFT of saga (the ``anrg-saga``
package on PyPI, used as a black box) on the same instances, and reports the
speed ratio and both makespans. saga runs in a subprocess inside its own
virtual environment, created on first use under
``~/.cache/exactsched-bench/saga-venv`` (``--saga-venv``) with ``pip install
anrg-saga``; nothing of saga is imported here. The instance maps one to one:
saga's node speed is the processor speed, its task cost the work, its
dependency size the data, and its link speed ``bandwidth / hops[p, q]`` (only
symmetric topologies, latency 0). A third makespan, ``ours (saga weights)``,
runs our engine with the rank weights saga uses (see the notes printed with
the table), which separates the ranking convention from the engines.

``--in-degree D`` (default 3, the generator's) replaces the generator's DAG by
:func:`exactsched.generators.random_dag` with ``max_in_degree=D`` (same data
distribution), e.g. ``--in-degree 9`` gives about 5 edges per task, the
5000-task / 25,000-edge target.

Times are CPU seconds (``time.process_time``, in saga's subprocess too), so
other load on the machine disturbs them little.

Examples
--------
``python benchmarks/heuristic_speed.py --quick``
``python benchmarks/heuristic_speed.py --tasks 5000 --processors 50 --in-degree 9 --methods heft``
``python benchmarks/heuristic_speed.py --saga-only --tasks 2000 --processors 16``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from exactsched import Problem, available_methods, validate
from exactsched.generators import random_dag, random_instance

__all__ = ["related_instance", "time_heuristics", "saga_compare", "main"]

SAGA_VENV = Path.home() / ".cache" / "exactsched-bench" / "saga-venv"
SYMMETRIC = ("fully-connected", "mesh", "torus", "hypercube", "fat-tree")

# Runs inside saga's virtual environment: reads one instance, times saga's HEFT
# on it (instance building excluded) and prints seconds and makespan as JSON.
_SAGA_RUNNER = r"""
import json, sys, time, logging
logging.disable(logging.WARNING)
import saga
from saga.schedulers import HeftScheduler
doc = json.load(open(sys.argv[1]))
nodes = [(f"p{q}", s) for q, s in enumerate(doc["speed"])]
links = [(f"p{p}", f"p{q}", doc["link"][p][q])
         for p in range(len(nodes)) for q in range(p + 1, len(nodes))]
network = saga.Network.create(nodes, links)
tasks = [(f"t{i}", w) for i, w in enumerate(doc["work"])]
deps = [(f"t{a}", f"t{b}", d) for a, b, d in doc["edges"]]
graph = saga.TaskGraph.create(tasks, deps)
start = time.process_time()
schedule = HeftScheduler().schedule(network, graph)
seconds = time.process_time() - start
print(json.dumps({"seconds": seconds, "makespan": schedule.makespan}))
"""


def related_instance(
    n_tasks: int,
    n_processors: int,
    *,
    topology: str = "fully-connected",
    ccr: float = 1.0,
    in_degree: int = 3,
    integral: bool = True,
    seed: int = 0,
) -> tuple[Problem, dict[str, Any]]:
    """A related-machines instance and its saga description.

    Work, data and network come from :func:`random_instance` (with
    ``heterogeneity=0``, so a task's cost is its work); processor speeds are
    drawn uniformly from [1, 4] (rounded to 3 decimals when ``integral``);
    costs become ``work / speed``. ``integral=False`` keeps work and data
    fractional too (3 decimals), which makes ties in ranks and finish times
    unlikely.

    Returns
    -------
    problem : Problem
    saga : dict
        ``speed``, ``work``, ``edges`` (src, dst, data) and ``link`` (the P x P
        link speeds ``bandwidth / hops``) for the saga runner.
    """
    rng = np.random.default_rng(seed)
    base = random_instance(
        n_tasks,
        n_processors,
        topology=topology,
        ccr=ccr,
        heterogeneity=0.0,
        integral=integral,
        seed=rng,
    )
    doc = base.to_json()
    work = base.cost[:, 0].tolist()
    if not integral:  # the generator's base work is integral: spread it
        work = (base.cost[:, 0] * rng.uniform(0.5, 1.5, size=n_tasks)).round(3).tolist()
    speed = rng.uniform(1.0, 4.0, size=n_processors)
    if integral:
        speed = speed.round(3)
    for task, w in zip(doc["tasks"], work, strict=True):
        task["cost"] = (w / speed).tolist()
    if in_degree != 3:
        arcs = random_dag(n_tasks, max_in_degree=in_degree, seed=rng)
        mean = float(np.mean(base.edge_data)) if len(base.edge_data) else float(np.mean(work))
        data = rng.uniform(0.0, 2.0 * mean, size=len(arcs))
        data = np.round(data) if integral else data.round(3)
        doc["edges"] = [
            {"src": f"t{a}", "dst": f"t{b}", "data": int(d) if integral else d}
            for (a, b), d in zip(arcs, data.tolist(), strict=True)
        ]
    problem = Problem.from_json(doc)
    with np.errstate(divide="ignore"):
        link = np.where(problem.hops > 0, problem.bandwidth / problem.hops, np.inf)
    saga_doc = {
        "speed": speed.tolist(),
        "work": work,
        "edges": [
            [int(a), int(b), float(d)]
            for a, b, d in zip(problem.edge_src, problem.edge_dst, problem.edge_data, strict=True)
        ],
        "link": link.tolist(),
    }
    return problem, saga_doc


def _heuristics(names: list[str] | None) -> list[Any]:
    infos = [m for m in available_methods() if m.kind == "heuristic"]
    if names:
        known = {m.name: m for m in infos}
        missing = [n for n in names if n not in known]
        if missing:
            raise SystemExit(f"--methods: unknown heuristic(s) {', '.join(missing)}")
        infos = [known[n] for n in names]
    return infos


def _run(info: Any, problem: Problem, check: bool) -> tuple[float, float]:
    options = {"seed": 0} if "seed" in info.options else {}
    start = time.process_time()
    schedule = info.func(problem, **options)
    seconds = time.process_time() - start
    if check:
        problems = validate(problem, schedule)
        if problems:
            raise RuntimeError(f"{info.name}: invalid schedule: {problems[0]}")
    return seconds, float(schedule.makespan)


def time_heuristics(args: argparse.Namespace) -> None:
    """Part 1: one markdown row per instance size, one column per heuristic."""
    infos = _heuristics(args.methods)
    print(
        f"## Runtime of the heuristics (CPU seconds; topology {args.topology}, "
        f"ccr {args.ccr}, in-degree <= {args.in_degree})\n"
    )
    print("| tasks | edges | procs | " + " | ".join(m.name for m in infos) + " |")
    print("|---:|---:|---:|" + "---:|" * len(infos))
    too_slow: dict[str, tuple[int, int]] = {}
    tiny, _ = related_instance(10, 2)
    for info in infos:  # warm-up: imports and caches stay out of the timings
        with contextlib.suppress(ValueError):
            _run(info, tiny, False)
    for n in args.tasks:
        for n_procs in args.processors:
            problem, _ = related_instance(
                n,
                n_procs,
                topology=args.topology,
                ccr=args.ccr,
                in_degree=args.in_degree,
                integral=not args.fractional,
            )
            cells = []
            for info in infos:
                limit = too_slow.get(info.name)
                if limit and n >= limit[0] and n_procs >= limit[1]:
                    cells.append("skip")
                    continue
                try:
                    seconds = min(
                        _run(info, problem, not args.no_validate)[0] for _ in range(args.repeat)
                    )
                except ValueError as exc:  # MethodError: the method refuses the instance
                    cells.append(f"refused ({str(exc)[:30]})")
                    continue
                cells.append(f"{seconds:.3f}")
                if seconds > args.budget:
                    too_slow[info.name] = (n, n_procs)
            print(f"| {n} | {problem.n_edges} | {n_procs} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
    print()


def _saga_python(venv: Path) -> Path | None:
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import saga.schedulers"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"(creating {venv} and installing anrg-saga; this happens once)", file=sys.stderr)
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "anrg-saga"],
            check=True,
            timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"saga unavailable: {exc}", file=sys.stderr)
        return None
    return python


def _saga_weights_priority(problem: Problem) -> np.ndarray:
    """Upward ranks with saga's averages: comm over its links, self-links (cost 0) included."""
    from heuristics.ranking import ranks_from_weights

    n_procs = problem.n_processors
    upper = problem.hops[np.triu_indices(n_procs, k=1)]
    # saga's network has one link per unordered pair plus a self-link per node.
    mean_hops = float(upper.sum()) / (len(upper) + n_procs)
    node_w = problem.cost.mean(axis=1)
    return ranks_from_weights(problem, node_w, problem.arc_unit * mean_hops, "upward")


def saga_compare(args: argparse.Namespace) -> None:
    """Part 2: our heft against saga's HEFT on the same instances."""
    from heuristics.eft import list_schedule
    from heuristics.heft import heft

    topology = args.topology
    if topology not in SYMMETRIC:
        print(f"saga comparison skipped: topology {topology} is not symmetric\n")
        return
    python = _saga_python(Path(args.saga_venv))
    if python is None:
        print("saga comparison skipped: could not set up anrg-saga\n")
        return
    print(
        f"## Our heft against saga's HEFT (CPU seconds; topology {topology}, "
        f"ccr {args.ccr}, in-degree <= {args.in_degree})\n"
    )
    print(
        "| tasks | edges | procs | ours (s) | saga (s) | speed-up | makespan ours | "
        "makespan saga | ours (saga weights) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for n in args.tasks:
        if n > args.saga_max_tasks:
            continue
        for n_procs in args.processors:
            problem, doc = related_instance(
                n,
                n_procs,
                topology=topology,
                ccr=args.ccr,
                in_degree=args.in_degree,
                integral=not args.fractional,
            )
            schedule = heft(problem)  # also warms up caches before timing
            ours = min(_timed(lambda p=problem: heft(p)) for _ in range(max(1, args.repeat)))
            same_weights = list_schedule(problem, _saga_weights_priority(problem))
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
                json.dump(doc, handle)
            try:
                run = subprocess.run(
                    [str(python), "-c", _SAGA_RUNNER, handle.name],
                    capture_output=True,
                    text=True,
                    timeout=args.saga_timeout,
                    # saga iterates over sets of names: fix the string hashing
                    # so that its tie-breaking, hence its makespan, is repeatable.
                    env={**os.environ, "PYTHONHASHSEED": "0"},
                )
                saga = json.loads(run.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                saga = None
            except (IndexError, json.JSONDecodeError):
                print(f"saga failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
                saga = None
            finally:
                os.unlink(handle.name)
            if saga is None:
                saga_s, ratio, saga_ms = f"> {args.saga_timeout:g}", "-", "-"
            else:
                ratios.append(saga["seconds"] / ours)
                saga_s = f"{saga['seconds']:.3f}"
                ratio = f"{ratios[-1]:.0f}x"
                saga_ms = f"{saga['makespan']:.2f}"
            print(
                f"| {n} | {problem.n_edges} | {n_procs} | {ours:.3f} | {saga_s} | {ratio} | "
                f"{schedule.makespan:.2f} | {saga_ms} | {same_weights.makespan:.2f} |"
            )
            sys.stdout.flush()
    if ratios:
        print(
            f"\nspeed-up of our heft over saga's: geometric mean "
            f"{float(np.exp(np.mean(np.log(ratios)))):.0f}x, least {min(ratios):.0f}x"
        )
    print(
        "\nWhy the makespans differ. Both implement HEFT (mean-weighted upward rank, "
        "insertion-based least earliest finish time), but saga averages the "
        "communication of an edge over its network links *including each "
        "processor's link to itself* (cost 0), so its mean communication is "
        "(P - 1) / (P + 1) of ours on a uniform network (ours averages over "
        "ordered pairs of distinct processors, as Topcuoglu et al. do); on "
        "multi-hop networks saga sees the hop distance only through link speeds "
        "1 / hops, averaged the same way. Different ranks give a different "
        "order, hence a different schedule. The column 'ours (saga weights)' "
        "runs our engine with saga's averages: it matches saga's makespan "
        "except where ties are broken differently (saga breaks rank ties by "
        "reverse topological position and tries processors in the order of a "
        "Python set; we take the lowest index; rank ties are common here "
        "because the work is integral, and one swapped pair changes all that "
        "follows) and up to rounding (data / (1 / hops) against hops * data). "
        "With --fractional (no ties) the two agree exactly."
    )
    print()


def _timed(func: Any) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", type=int, default=[100, 500, 1000, 2000, 5000])
    parser.add_argument("--processors", nargs="+", type=int, default=[4, 16, 64])
    parser.add_argument("--methods", nargs="+", help="heuristics to time (default: all)")
    parser.add_argument("--topology", default="fully-connected")
    parser.add_argument("--ccr", type=float, default=1.0)
    parser.add_argument("--in-degree", type=int, default=3, help="max in-degree of the DAG")
    parser.add_argument(
        "--fractional", action="store_true", help="fractional work, data and speeds (no ties)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument(
        "--budget", type=float, default=10.0, help="seconds before larger sizes are skipped"
    )
    parser.add_argument("--no-validate", action="store_true")
    parser.add_argument("--no-saga", action="store_true", help="skip the saga comparison")
    parser.add_argument("--saga-only", action="store_true", help="only the saga comparison")
    parser.add_argument("--saga-venv", default=str(SAGA_VENV))
    parser.add_argument("--saga-max-tasks", type=int, default=2000)
    parser.add_argument("--saga-timeout", type=float, default=300.0)
    parser.add_argument(
        "--quick", action="store_true", help="short run: 100 and 500 tasks on 4 and 16 processors"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.tasks, args.processors = [100, 500], [4, 16]
    args.tasks, args.processors = sorted(args.tasks), sorted(args.processors)
    if not args.saga_only:
        time_heuristics(args)
    if not args.no_saga:
        saga_compare(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
