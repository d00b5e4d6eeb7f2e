"""Benchmark of the communication models (issue 19): proofs, HEFT's loss, HEFT's speed.

Three tables, printed as markdown:

1. *Exact*: for random instances (:func:`exactsched.generators.random_instance`,
   ``--sizes`` tasks, ``--seeds`` seeds) on a 2 x 2 mesh and an 8-processor fat
   tree, each solved by ``cpsat`` under ``delay``, ``single-port`` and
   ``contention`` (``--time-limit`` seconds, ``--workers`` workers): the share
   proven optimal, the mean final gap and the mean makespan relative to the
   delay model's (same instance).
2. *HEFT's delay schedule replayed*: HEFT's schedule computed under the delay
   model, replayed under contention (same processors, same order on each
   processor, messages booked by the engine: :func:`heuristics._contention.replay`),
   against HEFT run under contention and the contention optimum (or best bound):
   mean and largest ratio to the optimum, over the instances where cpsat proved it.
3. *Speed*: HEFT under delay, single-port and contention on ``--big`` tasks x 16
   processors (4 x 4 mesh), best of three runs each.

Times are wall-clock on whatever machine runs it (a shared 2-core machine
inflates them).

Examples
--------
``python benchmarks/contention.py``  (the issue's settings: 20-30 tasks, 60 s, 2 workers)
``python benchmarks/contention.py --sizes 20 --seeds 2 --time-limit 10``
"""

from __future__ import annotations

import argparse
import statistics
import time

from exactsched import Status, solve
from exactsched.generators import random_instance
from heuristics._contention import replay
from heuristics.heft import heft
from models.certify import engine_view

MODELS = ("delay", "single-port", "contention")
PLATFORMS = (("mesh 2x2", "mesh", 4), ("fat-tree 8", "fat-tree", 8))


def _instances(sizes: list[int], seeds: int, ccr: float):
    for label, topology, n_procs in PLATFORMS:
        for n in sizes:
            for seed in range(seeds):
                yield label, random_instance(n, n_procs, topology=topology, ccr=ccr, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 25, 30])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ccr", type=float, default=1.0)
    parser.add_argument("--big", type=int, default=2000)
    args = parser.parse_args()

    rows: dict[tuple[str, str], list[tuple[bool, float, float]]] = {}
    replays: dict[str, list[tuple[float, float]]] = {}
    for label, base in _instances(args.sizes, args.seeds, args.ccr):
        results = {}
        for model in MODELS:
            problem = base if model == "delay" else base.with_communication(model)
            r = engine_view(  # the engine's claims, as the tables count them
                solve(
                    problem,
                    "cpsat",
                    time_limit=args.time_limit,
                    workers=args.workers,
                    certify=False,
                )
            )
            results[model] = (problem, r)
            proven = r.status is Status.OPTIMAL
            gap = (r.makespan - r.lower_bound) / r.lower_bound if r.lower_bound else 0.0
            rel = r.makespan / results["delay"][1].makespan
            rows.setdefault((label, model), []).append((proven, gap, rel))
            print(
                f"  {label} n={base.n_tasks} {model}: {r.makespan:g} {r.status.value} "
                f"bound {r.lower_bound:g} {r.seconds:.1f}s",
                flush=True,
            )
        problem, best = results["contention"]
        if best.status is Status.OPTIMAL:
            delay_heft = heft(base)
            replayed = replay(problem, delay_heft).makespan
            aware = heft(problem).makespan
            replays.setdefault(label, []).append((replayed / best.makespan, aware / best.makespan))

    print("\n| platform | model | instances | proven | mean gap | makespan / delay |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (label, model), vals in rows.items():
        share = sum(p for p, _, _ in vals) / len(vals)
        gap = statistics.mean(g for _, g, _ in vals)
        rel = statistics.mean(r for _, _, r in vals)
        print(f"| {label} | {model} | {len(vals)} | {share:.0%} | {gap:.1%} | {rel:.3f} |")

    print(
        "\n| platform | instances | HEFT(delay) replayed / opt: mean, max | "
        "HEFT(contention) / opt: mean, max |"
    )
    print("| --- | ---: | ---: | ---: |")
    for label, vals in replays.items():
        a = [v for v, _ in vals]
        b = [v for _, v in vals]
        print(
            f"| {label} | {len(vals)} | {statistics.mean(a):.3f}, {max(a):.3f} | "
            f"{statistics.mean(b):.3f}, {max(b):.3f} |"
        )

    big = random_instance(args.big, 16, topology="mesh", ccr=1.0, seed=1)
    models = [(m, big.with_communication(m)) for m in ("single-port", "contention")]
    timings = {}
    for name, problem in [("delay", big), *models]:
        best_t = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            s = heft(problem)
            best_t = min(best_t, time.perf_counter() - t)
        timings[name] = (best_t, s.makespan)
    print(f"\n| HEFT, {args.big} tasks x 16 processors (4x4 mesh) | seconds | makespan |")
    print("| --- | ---: | ---: |")
    for name, (t, m) in timings.items():
        print(f"| {name} | {t:.2f} | {m:g} |")


if __name__ == "__main__":
    main()
