"""Benchmark: gaps to a proven lower bound on 200-2000-task instances (issue 18, item 5).

At these sizes ``solve(problem, "cpsat", T)`` cannot prove optima: it returns its
best schedule (warm start, LNS) with the proven bound. This prints, per
instance, the makespan, the bound, the gap (:func:`exactsched.result.relative_gap`)
and bounds of :func:`exactsched.bounds.lower_bounds` (``path_load`` is the LP
added last, ``energetic`` the window bound before it), so that the gap with and
without it can be read off: ``gap without`` recomputes the gap against the
foundation bound without the path-load LP (the other bounds, then the energetic
windows from them) and the solver's own bound when it is above it.

Instances: tiled Cholesky (:func:`exactsched.workloads.cholesky.cholesky_instance`)
N = 10, 12, 15, 20 (220 to 1540 tasks) on 7 CPU cores + 1 GPU and on 28 + 4, and
random layered DAGs of 1000 tasks on 16 fully-connected and mesh processors.

Examples
--------
``python benchmarks/large_gaps.py`` (10 instances x 60 s)
``python benchmarks/large_gaps.py --time-limit 10 --names chol-N10``
``python benchmarks/large_gaps.py --bounds-only`` (no solve: the bounds and HEFT)
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable

from exactsched import Problem, solve, validate
from exactsched.bounds import energetic_bound, lower_bound, lower_bounds
from exactsched.generators import random_instance
from exactsched.result import relative_gap
from exactsched.workloads.cholesky import cholesky_instance

__all__ = ["CASES", "main"]

CASES: dict[str, Callable[[], Problem]] = {
    **{
        f"chol-N{n}-{label}": (lambda n=n, preset=preset: cholesky_instance(n, preset))
        for n in (10, 12, 15, 20)
        for preset, label in (("hoft-single-gpu", "7+1"), ("hoft-multi-gpu", "28+4"))
    },
    "random-1000-fc16": lambda: random_instance(1000, 16, seed=1),
    "random-1000-mesh16": lambda: random_instance(1000, 16, topology="mesh", seed=2),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--names", nargs="+", default=None)
    parser.add_argument("--bounds-only", action="store_true")
    args = parser.parse_args(argv)
    names = [k for k in CASES if not args.names or any(s in k for s in args.names)]
    method = "heft" if args.bounds_only else "cpsat"
    print(
        f"{method}, {args.time_limit:g} s, {args.workers} workers; "
        f"gap: {relative_gap.__doc__.splitlines()[0]}\n"
    )
    print(
        "| instance | tasks | makespan | bound | gap | gap without path-load "
        "| class-load | energetic | path-load |\n|---|---|---|---|---|---|---|---|---|"
    )
    gaps, before = [], []
    for name in names:
        problem = CASES[name]()
        if args.bounds_only:
            result = solve(problem, "heft")
        else:
            result = solve(problem, "cpsat", args.time_limit, workers=args.workers, seed=0)
        assert validate(problem, result.schedule) == []
        lb = lower_bounds(problem)
        # The foundation bound before the path-load LP: the others, then the
        # energetic windows from them.
        others = max(v for k, v in lb.items() if k not in ("energetic", "path_load"))
        others = max(others, energetic_bound(problem, start=others))
        if problem.is_integral:
            others = math.ceil(others - 1e-6)
        # The solver's own bound counts when it is above the foundation bound.
        above = result.lower_bound > lower_bound(problem) + 1e-9
        without = max(others, result.lower_bound) if above else others
        gap = relative_gap(result.makespan, result.lower_bound)
        gap_without = relative_gap(result.makespan, without)
        gaps.append(gap)
        before.append(gap_without)
        print(
            f"| {name} | {problem.n_tasks} | {result.makespan:.6g} | {result.lower_bound:.6g} "
            f"| {100 * gap:.1f} % | {100 * gap_without:.1f} % | {lb['class_load']:.6g} "
            f"| {lb['energetic']:.6g} | {lb['path_load']:.6g} |",
            flush=True,
        )
    print(
        f"\nmedian gap {100 * statistics.median(gaps):.1f} % "
        f"(without the path-load bound {100 * statistics.median(before):.1f} %)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
