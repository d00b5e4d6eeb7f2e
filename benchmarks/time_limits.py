"""Benchmark: does ``time_limit`` bound the whole call of an exact method?

For each case and limit it prints the wall time of one call (warm start,
bounds, model building and solving included), the overrun past the limit
(the target: at most 1 s), the status, makespan and bound, the stage at which
the time ran out (``stopped``), and whether the schedule is valid. The
registered methods are loaded before the first measurement (imports are
process start-up, not the call).

Cases
-----
``random-2000``
    :func:`exactsched.generators.random_instance`, 2000 tasks (layered DAG)
    on 16 fully-connected processors.
``mesh-2000``
    The same DAG generator on a 4 x 4 mesh (multi-hop communication).
``two-tasks-512``, ``two-tasks-1024``
    Two tasks (one edge), unrelated costs, on a 512- and a 1024-processor mesh:
    what the processor analysis and the communication encoding cost.
``chain-40-1024``
    A chain of 40 unit tasks on the 1024-processor mesh (39 arcs: 41 million
    delays between processors, the placement heads and tails take seconds).
``random-2000-64``
    2000 tasks on 64 fully-connected processors.
``decimal-1000``
    1000 tasks with one-decimal costs on 4 processors of 4 types, two
    predecessors each among the 30 before it (an audit's instance): the
    path-load LP takes 7-8 s where its estimate says 2.3 s.
``cholesky-20``, ``cholesky-50``
    Tiled Cholesky with N = 20 (1540 tasks) and N = 50 (22,100 tasks) on the
    ``multi-gpu`` preset (28 CPU cores + 4 GPUs), as ``exactsched generate
    cholesky --tiles N --platform multi-gpu`` writes it.

A method may refuse a size up front (a one-line ``MethodError``): the row says so.

Examples
--------
``python benchmarks/time_limits.py``
``python benchmarks/time_limits.py --limits 1 5 --methods cpsat bruteforce --cases two-tasks-512``
``python benchmarks/time_limits.py --cases cholesky-20 --methods milp --limits 1 2``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from exactsched import Problem, solve, validate
from exactsched.errors import MethodError
from exactsched.generators import random_instance
from exactsched.registry import available_methods
from exactsched.workloads.tiled import tiled_instance

__all__ = ["CASES", "measure", "main"]


def _decimal_1000() -> Problem:
    rng = np.random.default_rng(7)
    tasks = [
        {"id": f"t{i}", "cost": np.round(rng.uniform(0.1, 9.9, 4), 1).tolist()}
        for i in range(1000)
    ]
    edges = [
        {"src": f"t{i}", "dst": f"t{j}", "data": round(float(rng.uniform(0, 5)), 1)}
        for j in range(1, 1000)
        for i in rng.choice(range(max(0, j - 30), j), min(j, 2), replace=False).tolist()
    ]
    return Problem.from_json(
        {
            "format": "exactsched/instance@1",
            "platform": {"processors": [{"id": f"p{k}", "type": f"k{k}"} for k in range(4)]},
            "tasks": tasks,
            "edges": edges,
        }
    )


def _two_tasks(n_procs: int, dims: list[int]) -> Problem:
    rng = np.random.default_rng(0)
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(n_procs)],
            "network": {"topology": "mesh", "dims": dims},
        },
        "tasks": [
            {"id": "a", "cost": rng.integers(1, 50, n_procs).tolist()},
            {"id": "b", "cost": rng.integers(1, 50, n_procs).tolist()},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 5}],
    }
    return Problem.from_json(doc)


CASES: dict[str, Callable[[], Problem]] = {
    "random-2000": lambda: random_instance(2000, 16, seed=1),
    "mesh-2000": lambda: random_instance(2000, 16, topology="mesh", seed=2),
    "two-tasks-512": lambda: _two_tasks(512, [16, 32]),
    "two-tasks-1024": lambda: _two_tasks(1024, [32, 32]),
    "random-2000-64": lambda: random_instance(2000, 64, seed=3),
    "decimal-1000": _decimal_1000,
    "cholesky-20": lambda: tiled_instance("cholesky", 20, "multi-gpu", seed=0),
    "cholesky-50": lambda: tiled_instance("cholesky", 50, "multi-gpu", seed=0),
    "chain-40-1024": lambda: Problem.from_lists(
        [1] * 40,
        [(i, i + 1, 1) for i in range(39)],
        n_processors=1024,
        network={"topology": "mesh", "dims": [32, 32]},
    ),
}


def measure(problem: Problem, method: str, limit: float, workers: int) -> dict:
    """One call of ``method`` with ``limit``: wall time, overrun and what came back."""
    started = time.perf_counter()
    try:
        result = solve(problem, method, limit, workers=workers, seed=0)
    except MethodError as exc:
        return {"wall": time.perf_counter() - started, "refused": str(exc)}
    wall = time.perf_counter() - started
    valid = result.schedule is not None and validate(problem, result.schedule) == []
    return {
        "wall": wall,
        "overrun": wall - limit,
        "status": result.status.value,
        "makespan": result.makespan,
        "bound": result.lower_bound,
        "stopped": result.stats.get("stopped"),
        "valid": valid,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--limits", nargs="+", type=float, default=[1.0, 5.0])
    parser.add_argument("--methods", nargs="+", default=["cpsat", "milp", "bruteforce"])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    # Process start-up is not the method's: load every registered method first.
    available_methods()
    columns = [
        "case",
        "method",
        "limit_s",
        "wall_s",
        "overrun_s",
        "status",
        "makespan",
        "bound",
        "stopped",
        "valid",
    ]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = -np.inf
    for case in args.cases:
        problem = CASES[case]()
        for method in args.methods:
            for limit in args.limits:
                row = measure(problem, method, limit, args.workers)
                if "refused" in row:
                    print(
                        f"| {case} | {method} | {limit:g} | {row['wall']:.2f} | | refused: "
                        f"{row['refused']} | | | | |",
                        flush=True,
                    )
                    continue
                worst = max(worst, row["overrun"])
                print(
                    f"| {case} | {method} | {limit:g} | {row['wall']:.2f} | {row['overrun']:+.2f} "
                    f"| {row['status']} | {row['makespan']} | {row['bound']} | {row['stopped']} "
                    f"| {row['valid']} |",
                    flush=True,
                )
    print(f"\nlargest overrun: {worst:+.2f} s (target: at most +1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
