"""Benchmark of the sweep machinery: overhead per run, and the time of a large study.

Generates ``--instances`` random instances of ``--tasks`` tasks (every topology of
:data:`exactsched.generators.TOPOLOGIES` in turn, 4-16 processors, CCR 0.1, 1 and
10, seeded), writes them as JSON files, and runs every heuristic on all of them
with :func:`exactsched.experiments.run_sweep` into a fresh SQLite database:

1. with one pool process: the overhead per (instance, heuristic) run is the
   sweep's time minus the time of the methods themselves, divided by the runs.
   It covers everything else: reading and hashing the instances, planning,
   starting the pool, sending each run to it, the instance's lower bound,
   validating the schedule, speedup, SLR, and the database transaction of the
   row. Measured twice: in wall-clock time (the methods' ``Result.seconds``
   subtracted), and in CPU time (this process plus its pool processes, minus the
   CPU time of every method call repeated alone in this process), which other
   load on a shared machine disturbs much less;
2. with ``--jobs`` processes (default: the cores): the wall time, extrapolated
   linearly to ``--target`` instances (default 1,000); and the same from the CPU
   time of step 1 divided among the processes, what an idle machine would take.

Only this machine's wall-clock time is meaningful here, so the load average is
printed with the figures: on a shared machine both numbers are inflated.

Examples
--------
``python benchmarks/sweep.py``  (40 instances of 50 tasks, extrapolated to 1,000)
``python benchmarks/sweep.py --instances 200 --tasks 50 --jobs 2``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from exactsched import MethodError, available_methods, get_method, load_instance
from exactsched.experiments import run_sweep
from exactsched.experiments.pool import default_cores
from exactsched.generators import TOPOLOGIES, random_instance

__all__ = ["write_instances", "main"]

_PROCESSORS = {"hypercube": (4, 8, 16), "fat-tree": (4, 8, 16)}


def write_instances(folder: Path, count: int, tasks: int, seed: int = 0) -> list[Path]:
    """``count`` random instances of ``tasks`` tasks as JSON files in ``folder``."""
    paths = []
    for k in range(count):
        topology = TOPOLOGIES[k % len(TOPOLOGIES)]
        procs = _PROCESSORS.get(topology, (4, 6, 8, 12, 16))[k % 3]
        ccr = (0.1, 1.0, 10.0)[(k // len(TOPOLOGIES)) % 3]
        problem = random_instance(
            tasks, procs, topology=topology, ccr=ccr, n_isolation=2, affinity=0.1, seed=seed + k
        )
        path = folder / f"random-{k:04d}.json"
        path.write_text(json.dumps(problem.to_json()))
        paths.append(path)
    return paths


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _sweep(folder: Path, db: Path, jobs: int) -> tuple[float, float, float, int, list[float]]:
    """Wall time, CPU time (with the pool's), sum of the methods' seconds, errors, seconds."""
    started, cpu, children = time.perf_counter(), time.process_time(), _cpu_children()
    out = run_sweep([folder], "all", exact="none", db=db, jobs=jobs, progress="none")
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu + _cpu_children() - children
    seconds = [r["seconds"] for r in out.store.runs() if r["seconds"] is not None]
    errors = out.errors
    out.store.close()
    return wall, cpu, sum(seconds), errors, seconds


def _methods_cpu(folder: Path, heuristics: list[str]) -> float:
    """CPU seconds of every heuristic called alone on every instance (seed 0)."""
    total = 0.0
    for path in sorted(folder.glob("*.json")):
        problem = load_instance(path)
        for name in heuristics:
            info = get_method(name)
            options = {"seed": 0} if "seed" in info.options else {}
            started = time.process_time()
            with contextlib.suppress(MethodError):  # a refusal is a run too
                info.func(problem, **options)
            total += time.process_time() - started
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=40)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=None, help="processes (default: cores)")
    parser.add_argument("--target", type=int, default=1000, help="instances to extrapolate to")
    args = parser.parse_args(argv)
    heuristics = [m.name for m in available_methods() if m.kind == "heuristic"]
    jobs = args.jobs or default_cores()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "instances"
        folder.mkdir()
        write_instances(folder, args.instances, args.tasks)
        runs = args.instances * len(heuristics)
        load = os.getloadavg()[0]
        wall1, cpu1, method1, errors1, per_run = _sweep(folder, Path(tmp) / "one.sqlite", 1)
        wallj, _, _, errorsj, _ = _sweep(folder, Path(tmp) / "many.sqlite", jobs)
        alone = _methods_cpu(folder, heuristics)
        load = max(load, os.getloadavg()[0])
    overhead = (wall1 - method1) / runs
    overhead_cpu = (cpu1 - alone) / runs
    print(
        f"{args.instances} instances x {args.tasks} tasks x {len(heuristics)} heuristics "
        f"= {runs} runs (errors: {errors1}, {errorsj}); {default_cores()} cores, "
        f"load average up to {load:.1f}"
    )
    print()
    print("| what | figure |")
    print("| --- | --- |")
    print(f"| sweep, 1 process | {wall1:.2f} s |")
    print(f"| methods themselves (sum of Result.seconds) | {method1:.2f} s |")
    print(f"| method time per run: mean / median | {1000 * method1 / runs:.2f} ms / "
          f"{1000 * statistics.median(per_run):.2f} ms |")  # fmt: skip
    print(f"| overhead per run, wall clock: (sweep - methods) / runs | {1000 * overhead:.2f} ms |")
    print(f"| sweep CPU time, with the pool process | {cpu1:.2f} s |")
    print(f"| methods alone, CPU time | {alone:.2f} s |")
    print(f"| **overhead per run, CPU time** | **{1000 * overhead_cpu:.2f} ms** |")
    print(f"| sweep, {jobs} processes | {wallj:.2f} s |")
    print(
        f"| **{args.target} instances x {len(heuristics)} heuristics, {jobs} processes "
        f"(extrapolated x {args.target / args.instances:g})** | "
        f"**{wallj * args.target / args.instances / 60:.1f} min** |"
    )
    scale = args.target / args.instances
    print(
        f"| same, from CPU time on an idle machine: (methods + overhead) CPU / {jobs} "
        f"processes | {scale * cpu1 / jobs / 60:.1f} min |"
    )


if __name__ == "__main__":
    main()
