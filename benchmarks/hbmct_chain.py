"""Benchmark: HBMCT on chains (issue 8, item 7: it was quadratic).

On a chain every rank group holds one task, so HBMCT runs BMCT once per task;
each group used to copy the whole partial schedule several times (``O(n)``
each). Prints the wall-clock seconds of :func:`heuristics.hbmct.hbmct` on
chains of ``--sizes`` tasks on ``--processors`` unrelated processors (costs
1-19, data 3), with the seconds per 1000 tasks, which stay flat when the
algorithm is linear (``O(n log n)`` with the priority heap).

Examples
--------
``python benchmarks/hbmct_chain.py``
``python benchmarks/hbmct_chain.py --sizes 20000 50000``
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from exactsched import Problem, validate
from heuristics.hbmct import hbmct


def chain(n: int, n_processors: int, seed: int = 0) -> Problem:
    """A chain of ``n`` tasks with random costs 1-19 and data 3 on every edge."""
    rng = np.random.default_rng(seed)
    costs = rng.integers(1, 20, size=(n, n_processors)).tolist()
    return Problem.from_lists(costs, [(i, i + 1, 3) for i in range(n - 1)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[5000, 20000, 50000])
    parser.add_argument("--processors", type=int, default=4)
    args = parser.parse_args(argv)
    print("| tasks | seconds | seconds per 1000 tasks |")
    print("| ---: | ---: | ---: |")
    for n in args.sizes:
        problem = chain(n, args.processors)
        started = time.perf_counter()
        schedule = hbmct(problem)
        seconds = time.perf_counter() - started
        assert validate(problem, schedule) == []
        print(f"| {n} | {seconds:.2f} | {1000 * seconds / n:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
