"""Certification on CPU-GPU node platforms, where the cores are interchangeable.

For each instance (tiled Cholesky N=3/4 and random DAGs of 20-30 tasks with
HOFT-style weights on the single-gpu and multi-gpu presets): solve with
``cpsat`` (no certification), then certify the optimum with the default
witnesses, once within the default policy's budget ``max(2 s, solve time)``
and, for the ones that fail, once more within ``--generous`` seconds.

Uses only the public API, so the same script measures an older checkout
(``PYTHONPATH=<checkout> python benchmarks/certify_accel.py``).

Example::

    python benchmarks/certify_accel.py --time-limit 20 --seeds 2
"""

from __future__ import annotations

import argparse
import time

import exactsched
from exactsched import Status, validate
from exactsched.generators import random_dag, random_workload
from exactsched.workloads.cholesky import cholesky_instance
from models.certify import DEFAULT_BUDGET_FACTOR, DEFAULT_MIN_BUDGET, certify, engine_view


def _instances(seeds: int) -> list[exactsched.Problem]:
    out = []
    for n in (3, 4):
        for platform in ("hoft-single-gpu", "hoft-multi-gpu"):
            out.append(cholesky_instance(n, platform, name=f"cholesky-N{n}-{platform}"))
    for seed in range(seeds):
        for n in (20, 30):
            arcs = random_dag(n, seed=seed)
            for platform in ("single-gpu", "multi-gpu"):
                for weights in ("hoft-low", "hoft-high"):
                    out.append(
                        random_workload(
                            arcs,
                            n,
                            platform,
                            weights=weights,
                            integral=True,
                            seed=seed,
                            name=f"random-n{n}-{platform}-{weights}-s{seed}",
                        )
                    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--generous", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for p in _instances(args.seeds):
        solved = engine_view(  # the engine's claim, certified below
            exactsched.solve(
                p, "cpsat", time_limit=args.time_limit, workers=args.workers, certify=False
            )
        )
        assert validate(p, solved.schedule) == []
        if solved.status is not Status.OPTIMAL:
            print(f"{p.name:45s} {p.n_tasks:3d} tasks  not proven ({solved.status.value})")
            continue
        budget = max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * solved.seconds)
        started = time.perf_counter()
        checked = certify(p, solved, time_limit=budget)
        spent = time.perf_counter() - started
        late = ""
        if not checked.certified:
            started = time.perf_counter()
            again = certify(p, solved, time_limit=args.generous)
            late = f"  generous {again.certified} {time.perf_counter() - started:.2f}s"
        rows.append((checked.certified, spent / max(solved.seconds, 1e-9)))
        print(
            f"{p.name:45s} {p.n_tasks:3d} tasks  solve {solved.seconds:6.2f}s  "
            f"certified {checked.certified!s:5s} {','.join(checked.certified_by):18s}"
            f" {spent:6.3f}s{late}"
        )
    if rows:
        share = sum(bool(c) for c, _ in rows) / len(rows)
        ratios = sorted(r for _, r in rows)
        print(
            f"\n{len(rows)} proven optima: certified within the default budget {share:.0%}; "
            f"certify/solve median {ratios[len(ratios) // 2]:.2f}, max {ratios[-1]:.2f}"
        )


if __name__ == "__main__":
    main()
