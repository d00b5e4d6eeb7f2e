"""Benchmark: what ``exactsched.solve`` adds to a heuristic (issue 8, item 7).

``solve(problem, "heft")`` runs the algorithm and validates the schedule; the
proven lower bound of :mod:`exactsched.bounds` is attached as a callable,
computed when ``lower_bound``, ``gap`` or ``to_json`` is first read, then
cached in the :class:`~exactsched.Problem` (it is immutable). So neither
``solve`` column below includes the bounds: they have a column of their own.
For each instance this prints the CPU seconds of the algorithm alone (the
registered function, median of ``--repeat`` runs), of the bounds (once), of
the validator, of the first ``solve`` call on a fresh problem and of the next
calls, and the ratios of the two ``solve`` figures to the algorithm.

Instances are the related-machines instances of ``benchmarks/heuristic_speed.py``
(2000 tasks, about 10,000 edges with ``--in-degree 9``, 16 processors by
default).

Examples
--------
``python benchmarks/solve_overhead.py``
``python benchmarks/solve_overhead.py --tasks 2000 --processors 16 --methods heft peft hbmct``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristic_speed import related_instance  # noqa: E402

import exactsched  # noqa: E402
from exactsched import Problem, get_method, validate  # noqa: E402
from exactsched.bounds import lower_bound  # noqa: E402


def _cpu(func, *args, **kwargs) -> tuple[float, object]:
    started = time.process_time()
    value = func(*args, **kwargs)
    return time.process_time() - started, value


def measure(problem: Problem, method: str, repeat: int) -> dict[str, float]:
    """CPU seconds of the algorithm, bounds, validator and ``solve`` (first and later)."""
    func = get_method(method).func
    algorithm = statistics.median(_cpu(func, problem)[0] for _ in range(repeat))
    fresh = Problem.from_json(problem.to_json())  # a new problem: empty bound cache
    first, result = _cpu(exactsched.solve, fresh, method)
    later = statistics.median(_cpu(exactsched.solve, fresh, method)[0] for _ in range(repeat))
    other = Problem.from_json(problem.to_json())
    bounds, _ = _cpu(lower_bound, other)
    check, violations = _cpu(validate, problem, result.schedule)
    assert violations == []
    return {
        "algorithm": algorithm,
        "bounds": bounds,
        "validate": check,
        "solve_first": first,
        "solve_later": later,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--processors", type=int, default=16)
    parser.add_argument("--in-degree", type=int, default=9)
    parser.add_argument("--methods", nargs="*", default=["heft"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    problem, _ = related_instance(
        args.tasks, args.processors, in_degree=args.in_degree, seed=args.seed
    )
    print(
        f"{args.tasks} tasks, {len(problem.edge_src)} edges, {args.processors} processors; "
        f"CPU seconds, median of {args.repeat}"
    )
    print()
    print(
        "| method | algorithm | bounds (once) | validate | solve, 1st call | solve, later "
        "| 1st / algorithm | later / algorithm |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for method in args.methods:
        m = measure(problem, method, args.repeat)
        print(
            f"| {method} | {m['algorithm']:.3f} | {m['bounds']:.3f} | {m['validate']:.3f} "
            f"| {m['solve_first']:.3f} | {m['solve_later']:.3f} "
            f"| {m['solve_first'] / m['algorithm']:.2f} "
            f"| {m['solve_later'] / m['algorithm']:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
