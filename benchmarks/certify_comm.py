"""How many single-port and contention optima are certified, without and with cpsat-messages.

For the random instances of ``benchmarks/contention.py`` (2 x 2 mesh and
8-processor fat tree, ``--sizes`` tasks, ``--seeds`` seeds), each under
``single-port`` and ``contention``: ``cpsat`` (``--time-limit`` seconds,
``--workers`` workers, no certification), then, for each proven optimum, the
certification of the default policy (budget ``max(2 s, solve time)``,
:data:`models.certify.DEFAULT_MIN_BUDGET`) twice: with the witnesses there were
before ``cpsat-messages`` (the delay-relaxation witnesses and bruteforce) and
with the default chain. Prints one line per run and a markdown table: proven,
certified before, certified after, median certification seconds.

Times are wall-clock on whatever machine runs it (a shared 2-core machine
inflates them).

Examples
--------
``python benchmarks/certify_comm.py --sizes 20 --seeds 2 --time-limit 30``
"""

from __future__ import annotations

import argparse
import statistics

from exactsched import Status, solve
from exactsched.generators import random_instance
from models._refute_comm import WITNESS
from models.certify import (
    DEFAULT_BUDGET_FACTOR,
    DEFAULT_MIN_BUDGET,
    certify,
    engine_view,
    independent_witnesses,
)

PLATFORMS = (("mesh 2x2", "mesh", 4), ("fat-tree 8", "fat-tree", 8))
MODELS = ("single-port", "contention")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 25, 30])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ccr", type=float, default=1.0)
    args = parser.parse_args()

    before_chain = tuple(w for w in independent_witnesses("cpsat") if w != WITNESS)
    rows: dict[tuple[str, str], list[tuple[bool, bool, bool, float]]] = {}
    for label, topology, n_procs in PLATFORMS:
        for n in args.sizes:
            for seed in range(args.seeds):
                base = random_instance(n, n_procs, topology=topology, ccr=args.ccr, seed=seed)
                for model in MODELS:
                    problem = base.with_communication(model)
                    r = solve(
                        problem,
                        "cpsat",
                        time_limit=args.time_limit,
                        workers=args.workers,
                        seed=0,
                        certify=False,
                    )
                    r = engine_view(r)  # the engine's claim, certified below
                    proven = r.status is Status.OPTIMAL
                    old = new = False
                    seconds = float("nan")
                    if proven:
                        budget = max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * r.seconds)
                        a = certify(problem, r, time_limit=budget, witnesses=before_chain)
                        b = certify(problem, r, time_limit=budget)
                        old, new = bool(a.certified), bool(b.certified)
                        seconds = b.stats["certify"]["seconds"]
                        if b.stats.get("false_proof"):
                            print(f"  FALSE PROOF caught: {b.stats['false_proof']}")
                    rows.setdefault((label, model), []).append((proven, old, new, seconds))
                    print(
                        f"  {label} n={n} seed={seed} {model}: {r.makespan:g} "
                        f"{r.status.value} {r.seconds:.1f}s; certified before {old}, "
                        f"after {new} ({seconds:.2f}s)",
                        flush=True,
                    )

    print(
        "\n| platform | model | instances | proven | certified before | certified after "
        "| median s to certify (after) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (label, model), vals in rows.items():
        proven = [v for v in vals if v[0]]
        k = len(proven)
        old = sum(v[1] for v in proven)
        new = sum(v[2] for v in proven)
        median = statistics.median(v[3] for v in proven) if proven else float("nan")
        print(f"| {label} | {model} | {len(vals)} | {k} | {old}/{k} | {new}/{k} | {median:.2f} |")


if __name__ == "__main__":
    main()
