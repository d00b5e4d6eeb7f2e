"""Walk-through: the task orderings of Topcuoglu et al.'s sample DAG as priority lists.

Run it from any folder: ``python examples/orderings_topcuoglu.py``; it reads
``topcuoglu2002.json`` from its own folder.

The 10-task DAG of Topcuoglu, Hariri and Wu (2002, Fig. 2) has 1,680 legal
orderings. Each one, used as the priority list of the insertion-based EFT list
scheduler (HEFT's processor selection), gives a schedule; HEFT's own rank order
gives 80 and the optimum (CP-SAT, proven) is 73. Which orderings reach 73?
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

import exactsched
from models.orderings import (
    best_ordering,
    best_priority_list,
    isl_count,
    isl_set,
    isl_text,
    iter_orderings,
    ordering_costs,
    ordering_counts,
    ordering_schedule,
    priority_list_gap,
)

#: The folder of this script, which holds its instance (whatever the working directory).
HERE = Path(__file__).resolve().parent


def main() -> None:
    problem = exactsched.load_instance(HERE / "topcuoglu2002.json")
    ids = problem.task_ids

    # 1. Kong's table row for this instance: complete n^n, n!, semi-legal, legal.
    counts = ordering_counts(problem)
    print("counts:", counts)

    # 2. The same space as an isl set (position encoding): its text and isl's own count.
    text = isl_text(problem, "position")
    print("isl set:", text.splitlines()[1][:100], "...")
    print("isl points:", isl_count(isl_set(problem)))

    # 3. Every legal ordering as an EFT priority list, costed at once.
    orders = np.concatenate(list(iter_orderings(problem)))
    makespans = ordering_costs(problem, orders, "makespan")
    print(
        "makespans of the",
        len(orders),
        "priority lists:",
        dict(sorted(Counter(makespans.astype(int).tolist()).items())),
    )
    best = orders[makespans == makespans.min()]
    print(f"{len(best)} orderings give {makespans.min():g}, for instance:")
    for row in best[:4]:
        print("   ", " ".join(ids[t] for t in row))

    # 4. Where HEFT's gap comes from: its rank order vs. the best list vs. the optimum.
    gap = priority_list_gap(problem, time_limit=30, workers=1)
    print("HEFT order:", " ".join(gap["heft_order"]), "->", gap["heft"])
    print(
        "best priority list:",
        " ".join(gap["best_list_order"]),
        "->",
        gap["best_list"],
        "(proven)" if gap["best_list_proven"] else "",
    )
    print("optimum:", gap["optimum"], "(proven)" if gap["optimum_proven"] else "")
    prioritisation = gap["heft"] - gap["best_list"]
    selection = gap["best_list"] - gap["optimum"]
    print(
        f"HEFT's gap: {prioritisation:g} from its rank order, {selection:g} that no "
        "priority list removes with EFT processor selection"
    )

    # 5. The same answer without enumerating, by branch and bound over prefixes.
    bb = best_priority_list(problem, stop_at_bound=False)
    assert bb.order == best_ordering(problem, "makespan").order
    schedule = ordering_schedule(problem, bb.order)
    assert exactsched.validate(problem, schedule) == []
    print("branch and bound:", " ".join(bb.order), "->", bb.cost, f"({bb.count} prefixes)")

    # 6. Kong's network cost with HEFT's mapping: the shortest path through the processors.
    heft = exactsched.solve(problem, "heft").schedule
    net = best_ordering(problem, "network", mapping=heft)
    print(
        "least network path with HEFT's mapping:",
        " ".join(net.order),
        "->",
        net.cost,
        f"hops ({net.ties} orderings tie)",
    )


if __name__ == "__main__":
    main()
