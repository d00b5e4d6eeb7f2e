"""Benchmark of the acyclic partitioner: edge cut against a plain topological-order split.

For every benchmark DAG and every ``K = alpha * p`` (``alpha`` 1..4, ``p``
from ``--processors``), prints the edge cut (number of arcs between parts) of
:func:`heuristics.partition.acyclic_partition` and of
:func:`heuristics.partition.topological_split` (Kahn's order, lowest index
first, cut into balanced chunks, no refinement), their ratio, the heaviest
part over the mean part weight (the balance target is <= 1.1) and the
partitioner's CPU seconds. Every partition is checked to be acyclic. Only
``K <= n / 10`` is run: with fewer nodes per part, a 10 % balance is not
always attainable with unit weights.

The DAGs: random layered DAGs of :func:`exactsched.generators.random_dag`
(1000 and 10,000 tasks, in-degree <= 3), tiled Cholesky of
:mod:`exactsched.workloads.cholesky` (N = 10 and 20: 220 and 1540 tasks) and
the STG graphs shipped in ``tests/data/stg`` (unit node weights everywhere,
so that both methods balance the same quantity).

``--makespans`` instead compares the schedulers built on the partitions:
makespans of bl-est, etf, the six partition meta-heuristics and HEFT on
random instances (1000 tasks, 8 identical processors, CCR 1, 5 and 10) and
on a tiled Cholesky (N = 12) on the 7 CPU + 1 GPU node; every schedule is
validated.

Examples
--------
``python benchmarks/partition.py``
``python benchmarks/partition.py --makespans``
``python benchmarks/partition.py --processors 2 8 --quick``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from exactsched.generators import random_dag
from exactsched.workloads.cholesky import cholesky_dag
from exactsched.workloads.stg import read_stg
from heuristics.partition import (
    acyclic_partition,
    edge_cut,
    part_weights,
    quotient_is_acyclic,
    topological_split,
)

__all__ = ["benchmark_dags", "main"]

STG = Path(__file__).resolve().parent.parent / "tests" / "data" / "stg"


def benchmark_dags(quick: bool = False) -> dict[str, tuple[int, np.ndarray, np.ndarray]]:
    """Name -> (n, src, dst) of every benchmark DAG."""
    dags: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
    for n in (1000,) if quick else (1000, 10_000):
        arcs = np.array(random_dag(n, seed=0), dtype=np.int64)
        dags[f"random-{n}"] = (n, arcs[:, 0], arcs[:, 1])
    for tiles in (10,) if quick else (10, 20):
        _, _, arcs = cholesky_dag(tiles)
        a = np.array(arcs, dtype=np.int64)
        n = tiles * (tiles + 1) * (tiles + 2) // 6
        dags[f"cholesky-{tiles}"] = (n, a[:, 0], a[:, 1])
    for path in sorted(STG.glob("*/*.stg"))[: 2 if quick else None]:
        p = read_stg(path, 1)
        dags[f"stg-{path.parent.name}/{path.stem}"] = (p.n_tasks, p.arc_src, p.arc_dst)
    return dags


SCHEDULERS = (
    "bl-est",
    "bl-est-part",
    "bl-est-busy",
    "bl-macro",
    "etf",
    "etf-part",
    "etf-busy",
    "etf-macro",
    "heft",
)


def makespans() -> None:
    """Print the makespan table of ``--makespans``."""
    from exactsched import get_method, validate
    from exactsched.generators import random_instance
    from exactsched.workloads.cholesky import cholesky_instance

    cases = {
        f"random-1000 CCR {c}": random_instance(1000, 8, ccr=c, heterogeneity=0.0, seed=0)
        for c in (1, 5, 10)
    }
    cases["cholesky-12, 7 CPU + 1 GPU"] = cholesky_instance(12)
    print("| instance | " + " | ".join(SCHEDULERS) + " |")
    print("| --- |" + " ---: |" * len(SCHEDULERS))
    for name, problem in cases.items():
        row = []
        for method in SCHEDULERS:
            schedule = get_method(method).func(problem)
            assert validate(problem, schedule) == []
            row.append(f"{schedule.makespan:.0f}")
        print(f"| {name} | " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processors", type=int, nargs="+", default=[2, 8, 32])
    parser.add_argument("--quick", action="store_true", help="fewer and smaller DAGs")
    parser.add_argument("--makespans", action="store_true", help="compare the schedulers")
    args = parser.parse_args(argv)
    if args.makespans:
        makespans()
        return
    print("| DAG | tasks | arcs | K | cut | topological split | ratio | heaviest / mean | s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for name, (n, src, dst) in benchmark_dags(args.quick).items():
        ks = sorted({a * p for p in args.processors for a in (1, 2, 3, 4) if 10 * a * p <= n})
        for k in ks:
            start = time.process_time()
            labels = acyclic_partition(n, src, dst, k)
            seconds = time.process_time() - start
            assert quotient_is_acyclic(labels, src, dst)
            base = topological_split(n, src, dst, k)
            cut, ref = edge_cut(labels, src, dst), edge_cut(base, src, dst)
            ratio = cut / ref if ref else 1.0
            ratios.append(ratio)
            w = part_weights(labels, k)
            print(
                f"| {name} | {n} | {len(src)} | {k} | {cut:.0f} | {ref:.0f} | {ratio:.2f} | "
                f"{w.max() / w.mean():.3f} | {seconds:.2f} |"
            )
    r = np.array(ratios)
    print(
        f"\ncut / topological-split cut over {len(r)} rows: median {np.median(r):.2f}, "
        f"min {r.min():.2f}, max {r.max():.2f}"
    )


if __name__ == "__main__":
    main()
