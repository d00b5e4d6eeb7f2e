"""Small problems shared by several test modules (imported as ``shared_cases``)."""

from __future__ import annotations

from itertools import product

from exactsched import Problem
from exactsched.generators import random_instance


def fork(network: dict, types: list[str] | None = None, y_on: str = "p3") -> Problem:
    """s (only on p0, cost 1) sends 1 unit to x and y (cost 4); y only runs on ``y_on``.

    The optimum is ``5 + hops(p0, y_on)``: x follows s on p0, y waits for the data.
    """
    types = types or ["cpu"] * 4
    return Problem.from_json(
        {
            "format": "exactsched/instance@1",
            "platform": {
                "processors": [{"id": f"p{k}", "type": t} for k, t in enumerate(types)],
                "network": network,
            },
            "tasks": [
                {"id": "s", "cost": 1, "processors": ["p0"]},
                {"id": "x", "cost": 4},
                {"id": "y", "cost": 4, "processors": [y_on]},
            ],
            "edges": [{"src": "s", "dst": "x", "data": 1}, {"src": "s", "dst": "y", "data": 1}],
        }
    )


def small_zoo() -> list[tuple[str, Problem]]:
    """Edge cases plus constrained random instances on three platforms, by name."""
    zoo = [
        ("one-task", Problem.from_lists([[3, 1]])),
        ("one-processor", Problem.from_lists([1, 2, 3], [(0, 1, 5), (0, 2, 1)], n_processors=1)),
        ("no-edges", Problem.from_lists([[1, 2], [2, 1], [3, 3]])),
        ("zero-costs", Problem.from_lists([[0, 0], [0, 1], [1, 0]], [(0, 1, 2), (0, 2, 0)])),
    ]
    for topology, seed in product(("fully-connected", "mesh", "accelerated-node"), (0, 1)):
        problem = random_instance(
            24, 4, topology=topology, ccr=1.0, n_order=3, n_isolation=3, affinity=0.3, seed=seed
        )
        zoo.append((f"{topology}-{seed}", problem))
    zoo.append(
        ("hypercube-frac", random_instance(20, 8, topology="hypercube", integral=False, seed=4))
    )
    return zoo


def profile_row(instance: str, label: str, makespan: float | None, status: str = "feasible"):
    """A study row as :func:`exactsched.experiments.plots.performance_profile` reads it."""
    return dict(instance_key=instance, label=label, makespan=makespan, status=status,
                seconds=0.1)  # fmt: skip
