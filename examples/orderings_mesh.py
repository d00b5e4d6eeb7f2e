"""Walk-through: Kong's driving example on a 4x4 mesh, with isolation pairs promoted.

Run it from any folder: ``python examples/orderings_mesh.py``; it reads
``orderings-mesh4x4.json`` from its own folder.

Kong's slides start from four tasks A, B, C, D pinned to nodes of a 4x4 mesh
(A at (0,0), B at (3,3), C at (3,0), D at (0,1): the path A B C D travels 6 +
3 + 4 hops) and ask which order avoids "ping-pong-ing around" the network.
``examples/orderings-mesh4x4.json`` adds a reader that feeds A and C, a reduce
step that needs all four, two writers, an order pair (read before B), and three
isolation pairs ("A ~ B", "C ~ D", "write_1 ~ write_2": they must not run at
the same time, in either order). Affinity pins every task, so it is also the
mapping of Kong's network cost.
"""

from __future__ import annotations

from pathlib import Path

import exactsched
from models.orderings import (
    best_ordering,
    isl_text,
    ordering_costs,
    ordering_counts,
    ordering_schedule,
    promote_isolation,
    resolve_mapping,
)

#: The folder of this script, which holds its instance (whatever the working directory).
HERE = Path(__file__).resolve().parent


def main() -> None:
    problem = exactsched.load_instance(HERE / "orderings-mesh4x4.json")
    mapping = resolve_mapping(problem)  # from affinity: every task is pinned
    print(
        "mapping:",
        {t: problem.proc_ids[m] for t, m in zip(problem.task_ids, mapping, strict=True)},
    )
    print("counts:", ordering_counts(problem))
    print("Kong's encoding as an isl set (first 160 characters):")
    print("   ", isl_text(problem, "kong").splitlines()[1][:160], "...")

    # Kong's four tasks alone: the path A B C D of the slides.
    abcd = [problem.task_index[t] for t in "ABCD"]
    hops = problem.hops[mapping[abcd[:-1]], mapping[abcd[1:]]]
    print("hops A->B, B->C, C->D:", hops.tolist())

    # Network cost: every consecutive pair weighs 1 (hops) or its arc's delay (data).
    for weight in ("hops", "data"):
        b = best_ordering(problem, "network", weight=weight)
        print(f"least network path ({weight}): {' '.join(b.order)} -> {b.cost:g} ({b.ties} tie)")
    best = best_ordering(problem, "network")

    # Makespan of the same orderings as priority lists (fixed by affinity here).
    ms = ordering_costs(problem, best.indices[None, :], "makespan")[0]
    print("makespan of that ordering as a priority list:", ms)

    # Isolate dependences: each isolation pair becomes an order pair; any method
    # can then schedule the result. Kong directs the pairs by the network-best
    # path; directing them by the start times of the makespan-best list schedule
    # instead keeps that schedule (and its makespan) available.
    original = exactsched.solve(problem, "cpsat", time_limit=20, workers=1, seed=0)
    print("cpsat on the original instance:", original.makespan, original.status.value)
    fast = best_ordering(problem, "makespan")
    fast_schedule = ordering_schedule(problem, fast.order)
    for label, source in (("network path", best.order), ("makespan schedule", fast_schedule)):
        doc = promote_isolation(problem, source)
        promoted = exactsched.load_instance(doc)
        print(f"promoted by the best {label}: order pairs {doc['order']}")
        for method in ("heft", "cpsat"):
            r = exactsched.solve(promoted, method, time_limit=20, workers=1, seed=0)
            assert exactsched.validate(promoted, r.schedule) == []
            assert exactsched.validate(problem, r.schedule) == []  # valid for the original too
            print(f"    {method}: {r.makespan}")


if __name__ == "__main__":
    main()
