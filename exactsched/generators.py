"""Seeded random instances: layered DAGs on every kind of networked platform.

These feed the property tests, the conformance suite and the benchmarks. Every
function takes ``seed`` (an int, a :class:`numpy.random.Generator` or None)
and is reproducible for a fixed seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from exactsched.problem import Problem

__all__ = ["TOPOLOGIES", "random_dag", "random_network", "random_instance"]

TOPOLOGIES = (
    "fully-connected",
    "mesh",
    "torus",
    "hypercube",
    "fat-tree",
    "accelerated-node",
    "matrix",
)


def _rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def random_dag(
    n_tasks: int,
    *,
    width: int | None = None,
    max_in_degree: int = 3,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[int, int]]:
    """Arcs of a random layered DAG on tasks ``0..n_tasks-1`` (sorted, no duplicates).

    Tasks are dealt into layers of about ``width`` tasks (default
    ``ceil(sqrt(n))``); each task after the first layer draws 1 to
    ``max_in_degree`` predecessors from earlier layers, with a bias to the
    previous layer so that paths are long.

    Examples
    --------
    >>> random_dag(4, seed=1) == random_dag(4, seed=1)
    True
    """
    rng = _rng(seed)
    if n_tasks <= 1:
        return []
    width = width or max(1, int(np.ceil(np.sqrt(n_tasks))))
    layer = np.sort(rng.integers(0, max(1, n_tasks // width), size=n_tasks))
    layer[0] = 0
    arcs: set[tuple[int, int]] = set()
    for j in range(n_tasks):
        earlier = np.flatnonzero(layer < layer[j])
        if len(earlier) == 0:
            continue
        previous = earlier[layer[earlier] == layer[j] - 1]
        k = int(rng.integers(1, max_in_degree + 1))
        pool = previous if len(previous) and rng.random() < 0.7 else earlier
        first = int(rng.choice(pool))
        arcs.add((first, j))
        for i in rng.choice(earlier, size=min(k - 1, len(earlier)), replace=False).tolist():
            arcs.add((int(i), j))
    return sorted(arcs)


def _factor_dims(n_procs: int, n_dims: int = 2) -> list[int]:
    """A near-square factorisation of ``n_procs`` into ``n_dims`` factors."""
    dims = []
    rest = n_procs
    for left in range(n_dims, 1, -1):
        target = round(rest ** (1 / left))
        factor = max(f for f in range(1, rest + 1) if rest % f == 0 and f <= max(1, target))
        dims.append(factor)
        rest //= factor
    dims.append(rest)
    return sorted(dims, reverse=True)


def random_network(
    topology: str, n_processors: int, *, seed: int | np.random.Generator | None = None
) -> tuple[dict[str, Any], list[str]]:
    """A ``platform.network`` object and processor types for ``topology``.

    Hypercube and fat-tree need a power of two; ``n_processors`` is used as
    given, so pass one. ``accelerated-node`` makes a quarter of the processors
    (at least one) GPUs, the last ones. ``matrix`` draws an asymmetric hop
    matrix with entries in {0.5, 1, 1.5, 2}.
    """
    rng = _rng(seed)
    types = ["cpu"] * n_processors
    network: dict[str, Any] = {"topology": topology}
    if topology in ("mesh", "torus"):
        network["dims"] = _factor_dims(n_processors)
    elif topology == "fat-tree":
        network["arity"] = 2
    elif topology == "accelerated-node":
        n_gpu = max(1, n_processors // 4) if n_processors > 1 else 0
        types = ["cpu"] * (n_processors - n_gpu) + ["gpu"] * n_gpu
    elif topology == "matrix":
        hops = rng.choice([0.5, 1.0, 1.5, 2.0], size=(n_processors, n_processors))
        np.fill_diagonal(hops, 0.0)
        network["hops"] = hops.tolist()
    elif topology not in TOPOLOGIES:
        raise ValueError(f"topology: unknown {topology!r}; known: {', '.join(TOPOLOGIES)}")
    return network, types


def random_instance(
    n_tasks: int,
    n_processors: int,
    *,
    topology: str = "fully-connected",
    ccr: float = 1.0,
    heterogeneity: float = 0.5,
    max_cost: int = 20,
    n_order: int = 0,
    n_isolation: int = 0,
    affinity: float = 0.0,
    integral: bool = True,
    latency: float = 0.0,
    max_in_degree: int = 3,
    seed: int | np.random.Generator | None = None,
) -> Problem:
    """A random instance: layered DAG, related or unrelated costs, any topology.

    Parameters
    ----------
    n_tasks, n_processors : int
    topology : str
        One of :data:`TOPOLOGIES`.
    ccr : float
        Target communication-to-computation ratio (mean data over mean cost).
    heterogeneity : float
        Spread of a task's cost across processors (0: identical processors).
    max_cost : int
        Base costs are drawn from ``1..max_cost``.
    n_order, n_isolation : int
        Number of random order pairs (always consistent with the DAG, never
        repeating an edge) and isolation pairs (between tasks no path of edges
        and order pairs joins). Each kind is drawn by rejection with a bounded
        number of tries, so fewer may come out on small or dense DAGs.
    affinity : float
        Share of tasks restricted to a random non-empty subset of processors.
    integral : bool
        Round costs and data to integers (default) or keep them fractional.
    latency : float
        Network latency per hop.
    max_in_degree : int
        Each task draws 1 to this many predecessors (mean arcs per task about
        ``(1 + max_in_degree) / 2``).
    seed : int, Generator or None

    Returns
    -------
    Problem

    Raises
    ------
    ValueError
        For a parameter out of range (the message starts with its name) or a
        processor count the topology cannot hold (an ``InstanceError``).

    Examples
    --------
    >>> p = random_instance(8, 4, topology="mesh", n_isolation=1, seed=3)
    >>> p.n_tasks, p.n_processors, p.network["dims"]
    (8, 4, [2, 2])
    """
    _check_parameters(
        n_tasks=n_tasks,
        n_processors=n_processors,
        ccr=ccr,
        heterogeneity=heterogeneity,
        max_cost=max_cost,
        n_order=n_order,
        n_isolation=n_isolation,
        affinity=affinity,
        latency=latency,
        max_in_degree=max_in_degree,
    )
    rng = _rng(seed)
    network, types = random_network(topology, n_processors, seed=rng)
    network["latency"] = latency
    arcs = random_dag(n_tasks, max_in_degree=max_in_degree, seed=rng)
    base = rng.integers(1, max_cost + 1, size=n_tasks).astype(float)
    spread = rng.uniform(1 - heterogeneity, 1 + heterogeneity, size=(n_tasks, n_processors))
    if topology == "accelerated-node":
        gpu = np.array([t == "gpu" for t in types])
        speed = rng.uniform(1.0, 8.0, size=n_tasks)  # GPU speedup per task
        spread[:, gpu] = spread[:, gpu] / speed[:, None]
    cost = np.maximum(base[:, None] * np.clip(spread, 0.05, None), 0.0)
    mean_cost = float(cost.mean())
    data = rng.uniform(0.0, 2.0 * ccr * mean_cost, size=len(arcs))
    if integral:
        cost = np.maximum(np.round(cost), 1.0)
        data = np.round(data)
    tasks: list[dict[str, Any]] = []
    for i in range(n_tasks):
        task: dict[str, Any] = {"id": f"t{i}", "cost": [_num(c, integral) for c in cost[i]]}
        if affinity > 0 and rng.random() < affinity and n_processors > 1:
            k = int(rng.integers(1, n_processors))
            chosen = np.sort(rng.choice(n_processors, size=k, replace=False))
            task["processors"] = [f"p{q}" for q in chosen.tolist()]
        tasks.append(task)
    doc: dict[str, Any] = {
        "format": "exactsched/instance@1",
        "name": f"random-{n_tasks}x{n_processors}-{topology}",
        "platform": {
            "processors": [{"id": f"p{k}", "type": t} for k, t in enumerate(types)],
            "network": network,
        },
        "tasks": tasks,
        "edges": [
            {"src": f"t{a}", "dst": f"t{b}", "data": _num(d, integral)}
            for (a, b), d in zip(arcs, data.tolist(), strict=True)
        ],
    }
    order_pairs: set[tuple[int, int]] = set()
    if n_order and n_tasks > 1:  # a pair needs two tasks
        arc_set = set(arcs)
        for _ in range(20 * n_order):
            if len(order_pairs) >= n_order:
                break
            a, b = sorted(rng.choice(n_tasks, size=2, replace=False).tolist())
            if (a, b) not in arc_set:  # a < b keeps the union acyclic (arcs go up in index)
                order_pairs.add((a, b))
        doc["order"] = [[f"t{a}", f"t{b}"] for a, b in sorted(order_pairs)]
    if n_isolation and n_tasks > 1:
        # Only pairs no path joins (through edges or order pairs): those are the
        # ones that constrain the schedule.
        reach = _reachability(n_tasks, sorted(set(arcs) | order_pairs))
        pairs: set[tuple[int, int]] = set()
        for _ in range(50 * n_isolation):
            if len(pairs) >= n_isolation:
                break
            a, b = sorted(rng.choice(n_tasks, size=2, replace=False).tolist())
            if not (reach[a] >> b & 1):
                pairs.add((a, b))
        doc["isolation"] = [[f"t{a}", f"t{b}"] for a, b in sorted(pairs)]
    return Problem.from_json(doc)


def _check_parameters(**values: float) -> None:
    """Refuse parameters outside their range with a ValueError naming them."""
    minimum = {"n_tasks": 1, "n_processors": 1, "max_cost": 1, "max_in_degree": 1}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise ValueError(f"{key}: expected a number, got {value!r}")
        low = minimum.get(key, 0)
        if not low <= value < float("inf"):  # also refuses NaN
            raise ValueError(f"{key}: must be a finite number >= {low}, got {value!r}")
        if (key in minimum or key.startswith("n_")) and not float(value).is_integer():
            raise ValueError(f"{key}: expected an integer, got {value!r}")
    if values["affinity"] > 1:
        raise ValueError(f"affinity: a share must be <= 1, got {values['affinity']!r}")


def _num(value: float, integral: bool) -> float | int:
    return int(value) if integral else round(float(value), 3)


def _reachability(n: int, arcs: list[tuple[int, int]]) -> list[int]:
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in arcs:
        succ[a].append(b)
    reach = [0] * n
    for i in range(n - 1, -1, -1):  # arcs go from lower to higher index
        for j in succ[i]:
            reach[i] |= reach[j] | (1 << j)
    return reach
