"""Time the ordering spaces of models.orderings against Kong's figures.

Usage::

    python benchmarks/orderings.py [--tasks 6 14] [--seeds 0 1 2] [--search-seeds 0 1 2 3]
                                   [--search-limit 60] [--isl-max 5000] [--skip-search]
                                   [--skip-space]

Prints markdown tables:

1. for random DAGs of 6 to 14 tasks (``exactsched.generators.random_instance``, 4
   processors on a 2x2 mesh): the legal count, the time to build the isl set
   (position encoding; skipped above ``--isl-max`` points), to count (DP over
   down-sets), to enumerate, and to enumerate and cost every ordering by network
   path cost (HEFT's mapping) and by EFT list-schedule makespan (``best_ordering``:
   streaming, and for the makespan a shared-prefix tree), plus the rate of the
   direct per-row evaluator (``ordering_costs``) on one block of 8192 orderings;
2. the best priority list of 20-task instances by branch and bound: proven or
   not within ``--search-limit`` seconds, against HEFT;
3. the fat-tree hop matrix of 2048 processors and Kong's fat-tree test 8 (2 tasks
   on 2048 processors: 5 min 31 s in the slides) end to end.

Targets (issue 9): 10 tasks counted, enumerated and fully costed < 10 s (Kong: 317 s),
12 tasks < 60 s, proven best priority list of 20 tasks < 60 s, fat-tree hop
matrix of 2048 processors < 1 s.
"""

from __future__ import annotations

import argparse
import time

import exactsched
from exactsched.generators import random_instance
from models.orderings import (
    best_ordering,
    best_priority_list,
    count_legal,
    isl_count,
    isl_set,
    iter_orderings,
    ordering_costs,
)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def enumerate_all(problem) -> int:
    return sum(len(block) for block in iter_orderings(problem))


def space_table(tasks: range, seeds: list[int], isl_max: int) -> None:
    print(
        "| tasks | seed | legal | isl build (s) | count (s) | enumerate (s) "
        "| + network cost (s) | + makespan (s) | total count+enum+both costs (s) "
        "| per-row EFT (orderings/s) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in tasks:
        for seed in seeds:
            p = random_instance(n, 4, topology="mesh", seed=seed)
            legal, t_count = timed(count_legal, p)
            if legal <= isl_max:
                space, t_isl = timed(isl_set, p)
                assert isl_count(space) == legal
                isl = f"{t_isl:.2f}"
            else:
                isl = "-"
            enumerated, t_enum = timed(enumerate_all, p)
            assert enumerated == legal
            mapping = exactsched.solve(p, "heft").schedule
            net, t_net = timed(best_ordering, p, "network", mapping=mapping)
            ms, t_ms = timed(best_ordering, p, "makespan")
            block = next(iter_orderings(p, chunk=8192))
            _, t_row = timed(ordering_costs, p, block, "makespan")
            rate = len(block) / t_row
            total = t_count + t_net + t_ms
            print(
                f"| {n} | {seed} | {legal:,} | {isl} | {t_count:.3f} | {t_enum:.2f} "
                f"| {t_net:.2f} | {t_ms:.2f} | {total:.2f} | {rate:,.0f} |",
                flush=True,
            )


def search_table(seeds: list[int], limit: float) -> None:
    print()
    print(
        "| 20 tasks, 4 procs | legal | HEFT | best list | proven | bound | prefixes | s "
        "| with CP-SAT bound: proven | s (CP-SAT included) |"
    )
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |")
    for topology in ("fully-connected", "mesh"):
        for seed in seeds:
            p = random_instance(20, 4, topology=topology, seed=seed)
            heft = exactsched.solve(p, "heft").makespan
            b = best_priority_list(p, time_limit=limit)
            c = best_priority_list(p, time_limit=limit, exact_time_limit=10.0)
            assert c.cost <= b.cost or not c.proven
            print(
                f"| {topology} seed {seed} | {count_legal(p):.3g} | {heft} | {b.cost:g} "
                f"| {b.proven} | {b.lower_bound:g} | {b.count:,} | {b.seconds:.1f} "
                f"| {c.proven} ({c.cost:g}) | {c.seconds:.1f} |",
                flush=True,
            )


def fat_tree() -> None:
    from topologies import hop_matrix

    print()
    hops, t_hops = timed(hop_matrix, {"topology": "fat-tree"}, ["cpu"] * 2048)
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(2048)],
            "network": {"topology": "fat-tree"},
        },
        "tasks": [
            {"id": "a", "cost": 1, "processors": ["p0"]},
            {"id": "b", "cost": 1, "processors": ["p2047"]},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 1}],
    }

    def kong_test_8():
        return best_ordering(exactsched.load_instance(doc), "network")

    best, t_kong = timed(kong_test_8)
    print(f"fat-tree hop matrix, 2048 processors: {t_hops:.3f} s (max hops {hops.max():g})")
    print(
        f"Kong fat-tree test 8 (2 tasks, 2048 processors) end to end: {t_kong:.3f} s "
        f"(best {' '.join(best.order)}, cost {best.cost:g}; Kong: 331.8 s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, nargs=2, default=[6, 14], metavar=("MIN", "MAX"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--search-seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--search-limit", type=float, default=60.0)
    parser.add_argument("--isl-max", type=int, default=5_000)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--skip-space", action="store_true", help="only the 20-task search")
    args = parser.parse_args()
    fat_tree()
    if not args.skip_space:
        print()
        space_table(range(args.tasks[0], args.tasks[1] + 1), args.seeds, args.isl_max)
    if not args.skip_search:
        search_table(args.search_seeds, args.search_limit)


if __name__ == "__main__":
    main()
