"""Seeded random DAGs and instances: the generators of the literature, any platform.

:func:`random_instance` (layered DAGs on every kind of networked platform) feeds
the property tests, the conformance suite and the benchmarks. The DAG
generators of the literature return arcs ``(src, dst)`` on tasks ``0..n-1``,
sorted, every arc going from a lower to a higher index:

* :func:`topcuoglu_dag`: Topcuoglu, Hariri and Wu [1]_ (``v``, shape ``alpha``,
  out-degree);
* :func:`layered_dag`: tasks in layers, arcs between consecutive layers with
  probability ``p``;
* :func:`erdos_renyi_dag`: every pair ``i < j`` of a topological order joined
  with probability ``p`` (G(n, p) oriented by the order);
* :func:`daggen_dag`: the parameters of Suter's daggen [2]_ (``n``, ``fat``,
  ``density``, ``regularity``, ``jump``).

:func:`random_workload` weighs one of them with a scheme of
:mod:`exactsched.workloads.weights` on any platform, and
:func:`topcuoglu_instance` is the whole generator of [1]_. Every function
takes ``seed`` (an int, a :class:`numpy.random.Generator` or None) and is
reproducible for a fixed seed.

References
----------
.. [1] H. Topcuoglu, S. Hariri and M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS 13(3),
   pp. 260-274, 2002, doi:10.1109/71.993206 (section 5.1, random graph generator).
.. [2] F. Suter, "DAGGEN: a synthetic task graph generator",
   https://github.com/frs69wq/daggen (parameters as described there; this is an
   independent implementation).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from exactsched.problem import Problem

__all__ = [
    "DAG_GENERATORS",
    "TOPOLOGIES",
    "daggen_dag",
    "erdos_renyi_dag",
    "layered_dag",
    "random_dag",
    "random_instance",
    "random_network",
    "random_workload",
    "topcuoglu_dag",
    "topcuoglu_instance",
]

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


# ---- DAG generators of the literature -----------------------------------------------


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{what}: expected a positive integer, got {value!r}")
    return int(value)


def _share(value: Any, what: str, *, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise ValueError(f"{what}: expected a number, got {value!r}")
    if not low <= float(value) <= high:
        raise ValueError(f"{what}: must lie in [{low:g}, {high:g}], got {value!r}")
    return float(value)


def _level_sizes(n: int, n_levels: int, rng: np.random.Generator) -> list[int]:
    """``n`` tasks over ``n_levels`` non-empty levels, sizes random around ``n / n_levels``."""
    n_levels = max(1, min(n, n_levels))
    extra = rng.multinomial(n - n_levels, rng.dirichlet(np.full(n_levels, 4.0)))
    return (extra + 1).tolist()


def _levels(sizes: list[int]) -> list[np.ndarray]:
    starts = np.concatenate([[0], np.cumsum(sizes)])
    return [np.arange(starts[k], starts[k + 1]) for k in range(len(sizes))]


def topcuoglu_dag(
    v: int,
    *,
    alpha: float = 1.0,
    out_degree: float = 2.0,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[int, int]]:
    """Arcs of a random DAG of Topcuoglu et al. [1]_, section 5.1.

    The height (number of levels) is drawn uniformly around
    ``sqrt(v) / alpha``, so each level holds about ``alpha * sqrt(v)`` tasks
    (``alpha >> 1``: short and wide, much parallelism; ``alpha << 1``: long and
    thin). Every task but those of the last level gets a number of children
    drawn uniformly from ``1 .. 2 * out_degree - 1`` (mean ``out_degree``),
    taken in the next level (then further down when the next level is too
    small); a task left without a parent gets one in the level above.

    Parameters
    ----------
    v : int
        Number of tasks.
    alpha : float
        Shape parameter (> 0).
    out_degree : float
        Mean out-degree (>= 1).
    seed : int, Generator or None

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> arcs = topcuoglu_dag(30, alpha=1.0, out_degree=2, seed=0)
    >>> arcs == topcuoglu_dag(30, alpha=1.0, out_degree=2, seed=0), all(a < b for a, b in arcs)
    (True, True)
    >>> topcuoglu_dag(5, alpha=100.0, seed=0)  # one level: no arcs
    []
    """
    v = _positive_int(v, "v")
    if isinstance(alpha, bool) or not float(alpha) > 0:
        raise ValueError(f"alpha: expected a positive number, got {alpha!r}")
    _share(out_degree, "out_degree", low=1.0, high=float(max(v, 1)))
    rng = _rng(seed)
    # Height uniform on 1 .. ceil(2*mean - 1): mean about sqrt(v)/alpha; at most v levels.
    # (The mean is capped where the draw's integer bound would overflow: alpha near 0.)
    mean_height = min(np.sqrt(v) / float(alpha), 1e15)
    top = max(1, int(np.ceil(2 * mean_height - 1)))
    height = min(v, int(rng.integers(1, top + 1)) if top > 1 else 1)
    levels = _levels(_level_sizes(v, height, rng))
    arcs: set[tuple[int, int]] = set()
    max_children = max(1, int(round(2 * out_degree - 1)))
    for k, level in enumerate(levels[:-1]):
        below = np.concatenate(levels[k + 1 :])
        nxt = len(levels[k + 1])
        for i in level.tolist():
            d = min(int(rng.integers(1, max_children + 1)), len(below))
            # First the next level, then deeper levels if it is too small.
            first = rng.choice(nxt, size=min(d, nxt), replace=False)
            chosen = set(levels[k + 1][first].tolist())
            if d > nxt:
                deeper = below[nxt:]
                chosen.update(rng.choice(deeper, size=d - nxt, replace=False).tolist())
            arcs.update((i, j) for j in chosen)
    _give_parents(levels, arcs, rng)
    return sorted(arcs)


def _give_parents(
    levels: list[np.ndarray], arcs: set[tuple[int, int]], rng: np.random.Generator
) -> None:
    """Join every task below the first level without a parent to one in the level above."""
    has_parent = {b for _, b in arcs}
    for k in range(1, len(levels)):
        for j in levels[k].tolist():
            if j not in has_parent:
                arcs.add((int(rng.choice(levels[k - 1])), j))


def layered_dag(
    n_tasks: int,
    n_layers: int,
    p: float = 0.5,
    *,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[int, int]]:
    """Arcs of a layered DAG: random layer sizes, arcs between consecutive layers.

    Each pair (task of layer ``k``, task of layer ``k + 1``) is an arc with
    probability ``p``; a task left without a parent gets one in the layer above.

    Examples
    --------
    >>> layered_dag(6, 3, 1.0, seed=0)  # complete bipartite between layers
    [(0, 2), (0, 3), (1, 2), (1, 3), (2, 4), (2, 5), (3, 4), (3, 5)]
    """
    n_tasks = _positive_int(n_tasks, "n_tasks")
    n_layers = _positive_int(n_layers, "n_layers")
    p = _share(p, "p")
    rng = _rng(seed)
    levels = _levels(_level_sizes(n_tasks, n_layers, rng))
    arcs: set[tuple[int, int]] = set()
    for upper, lower in zip(levels, levels[1:], strict=False):
        mask = rng.random((len(upper), len(lower))) < p
        rows, cols = np.nonzero(mask)
        arcs.update(zip(upper[rows].tolist(), lower[cols].tolist(), strict=True))
    _give_parents(levels, arcs, rng)
    return sorted(arcs)


def erdos_renyi_dag(
    n_tasks: int, p: float, *, seed: int | np.random.Generator | None = None
) -> list[tuple[int, int]]:
    """Arcs of G(n, p) oriented by the order ``0 .. n-1``: each pair ``i < j`` with probability p.

    O(n + arcs) time: the successors of each task are a binomial number of
    distinct later tasks.

    Examples
    --------
    >>> len(erdos_renyi_dag(5, 1.0, seed=0)), erdos_renyi_dag(5, 0.0, seed=0)
    (10, [])
    """
    n_tasks = _positive_int(n_tasks, "n_tasks")
    p = _share(p, "p")
    rng = _rng(seed)
    arcs: list[tuple[int, int]] = []
    counts = rng.binomial(np.arange(n_tasks - 1, -1, -1), p)
    for i, k in enumerate(counts.tolist()):
        if k:
            later = rng.choice(n_tasks - 1 - i, size=k, replace=False) + i + 1
            arcs.extend((i, int(j)) for j in np.sort(later).tolist())
    return arcs


def daggen_dag(
    n_tasks: int,
    *,
    fat: float = 0.5,
    density: float = 0.5,
    regularity: float = 0.5,
    jump: int = 1,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[int, int]]:
    """Arcs of a DAG with the parameters of Suter's daggen [2]_.

    * ``fat`` (0..1): the mean level width is ``n ** fat``; with
      ``regularity=1`` (every level that wide) 0 gives a chain and 1 one level
      of independent tasks, otherwise the widths spread around the mean (at
      ``fat=1`` and the default regularity, often several levels with arcs);
    * ``regularity`` (0..1): each level's width is drawn uniformly within
      ``(1 - regularity) * 100 %`` of the mean (1: every level equally wide);
    * ``density`` (0..1): a task of level ``k`` gets about ``density`` times
      the size of level ``k - 1`` parents (at least 1);
    * ``jump`` (>= 1): parents come from the ``jump`` levels above (1: only
      the level just above), one of them always from level ``k - 1``.

    Examples
    --------
    >>> daggen_dag(4, fat=0.0, regularity=1.0, seed=0)  # width 1: a chain
    [(0, 1), (1, 2), (2, 3)]
    >>> daggen_dag(4, fat=1.0, regularity=1.0, seed=0)  # width n: no arcs
    []
    """
    n_tasks = _positive_int(n_tasks, "n_tasks")
    fat = _share(fat, "fat")
    density = _share(density, "density")
    regularity = _share(regularity, "regularity")
    jump = _positive_int(jump, "jump")
    rng = _rng(seed)
    mean_width = n_tasks**fat
    sizes: list[int] = []
    left = n_tasks
    while left > 0:
        spread = 1.0 - regularity
        width = int(round(mean_width * rng.uniform(1 - spread, 1 + spread)))
        width = max(1, min(left, width))
        sizes.append(width)
        left -= width
    levels = _levels(sizes)
    arcs: set[tuple[int, int]] = set()
    for k in range(1, len(levels)):
        pool = np.concatenate(levels[max(0, k - jump) : k])
        above = levels[k - 1]
        for j in levels[k].tolist():
            n_parents = max(
                1, min(len(pool), int(round(density * len(above) * rng.uniform(0.5, 1.5))))
            )
            arcs.add((int(rng.choice(above)), j))
            if n_parents > 1:
                arcs.update(
                    (int(i), j) for i in rng.choice(pool, size=n_parents - 1, replace=False)
                )
    return sorted(arcs)


#: Generator name -> function ``(n_tasks, seed=..., **parameters) -> arcs``.
DAG_GENERATORS = {
    "topcuoglu": topcuoglu_dag,
    "layered": layered_dag,
    "erdos-renyi": erdos_renyi_dag,
    "daggen": daggen_dag,
}


def random_workload(
    arcs: list[tuple[int, int]],
    n_tasks: int,
    platform: Any,
    *,
    weights: str = "topcuoglu",
    ccr: float | None | Literal["default"] = "default",
    ccr_definition: str = "comm/comp",
    data: str | None = None,
    beta: float = 0.5,
    w_dag: float = 50.0,
    noise: tuple[float, float] = (1.0, 10.0),
    rates: dict[str, float] | None = None,
    integral: bool = False,
    task_ids: list[str] | None = None,
    name: str = "random",
    seed: int | np.random.Generator | None = None,
    zero_cost: tuple[int, ...] = (),
) -> Problem:
    """Weigh a DAG on a platform with a scheme of :mod:`exactsched.workloads.weights`.

    Parameters
    ----------
    arcs : list of (int, int)
        The DAG, on tasks ``0 .. n_tasks - 1``.
    n_tasks : int
    platform : str, path or mapping
        Anything :func:`exactsched.workloads.platforms.resolve_platform` takes.
    weights : str
        ``"topcuoglu"`` (unrelated costs, any platform, parameters ``beta`` and
        ``w_dag``); ``"hoft-low"``, ``"hoft-high"``, ``"canon"`` (Gamma CPU/GPU
        factor; processor types ``cpu`` and ``gpu`` only); ``"flops"`` (random
        flop counts over peak rates times a ``noise`` factor; a preset's rates or
        ``rates``).
    ccr : float, None or "default"
        Target CCR under ``ccr_definition`` (see
        :data:`exactsched.workloads.weights.CCR_DEFINITIONS`); the edge data are
        drawn uniformly, then scaled to hit it. Ignored when ``data`` is given.
        ``"default"``: 1 where some edge may carry data, else the data as drawn.
        An explicit CCR must be positive, except 0 where no edge may carry data
        (the one CCR such a graph has); any other is refused there, as it
        cannot be met.
    data : {"low", "high"} or None
        The data regimes of McSweeney's report, section 3.2.3, instead of a CCR
        (types ``cpu`` and ``gpu`` only).
    integral : bool
        Round costs (to >= 1) and data to integers. Otherwise the costs, and
        the data, are rounded to
        :func:`~exactsched.workloads.weights.written_decimals` decimals (6, more
        when their mean is below 1;
        :func:`~exactsched.workloads.weights.round_written`), and
        the CCR of what is written is within
        :data:`~exactsched.workloads.weights.CCR_PRECISION` of ``ccr``.
    task_ids : list of str, optional
        Default ``t0 ..``.
    name : str
    seed : int, Generator or None
    zero_cost : tuple of int
        Tasks left at cost 0 with no data on their arcs (an STG graph's dummy
        entry and exit); the CCR is met on the instance as written, zeros included.

    Returns
    -------
    Problem

    Raises
    ------
    MethodError
        For an unknown scheme or a platform it cannot weigh; for a ``ccr`` other
        than 0 on a graph with no edge that may carry data; for a ``ccr`` whose
        rounded data miss it by more than 5 % (``integral``) or 1e-6 (relative)
        (:class:`~exactsched.workloads.weights.CCRRoundingError`) or whose data
        would overflow or underflow floating point.

    Examples
    --------
    >>> arcs = topcuoglu_dag(20, seed=0)
    >>> p = random_workload(arcs, 20, "fully-connected:3", ccr=2.0, seed=0)
    >>> p.n_tasks, round(p.ccr(), 6)
    (20, 2.0)
    >>> q = random_workload(arcs, 20, "single-gpu", weights="hoft-high", ccr=10,
    ...                     ccr_definition="comp/comm", seed=0)
    >>> from exactsched.workloads.weights import ccr
    >>> round(ccr(q, "comp/comm"), 6)
    10.0
    """
    from exactsched.errors import InstanceError, MethodError
    from exactsched.workloads import weights as w
    from exactsched.workloads.platforms import resolve_platform

    rng = _rng(seed)
    spec = resolve_platform(platform)
    types = sorted(set(spec.types))
    ids = task_ids or [f"t{i}" for i in range(n_tasks)]
    by_type: dict[str, np.ndarray] | None = None
    if weights == "topcuoglu":
        costs = w.topcuoglu_times(n_tasks, len(spec.types), w_dag=w_dag, beta=beta, seed=rng)
    elif weights in w.ACCELERATION or weights == "flops":
        if not set(types) <= {"cpu", "gpu"}:
            raise MethodError(
                f"weights: {weights!r} needs processor types 'cpu' and 'gpu', "
                f"the platform has {', '.join(types)}"
            )
        if weights == "flops":
            if rates is None:
                if spec.hardware is None:
                    raise MethodError(
                        "rates: the platform is not a preset, so give each processor type's "
                        "peak rate in flops per microsecond"
                    )
                rates = {"cpu": spec.hardware.cpu, "gpu": spec.hardware.gpu}
            by_type = w.random_flop_times(n_tasks, rates, noise=noise, seed=rng)
        else:
            by_type = w.gamma_times(n_tasks, weights, seed=rng)
    else:
        known = ", ".join(["canon", "flops", "hoft-high", "hoft-low", "topcuoglu"])
        raise MethodError(f"weights: unknown scheme {weights!r}; known: {known}")

    zero = np.zeros(n_tasks, dtype=bool)
    zero[list(zero_cost)] = True
    if by_type is not None:
        by_type = {t: np.where(zero, 0.0, v) for t, v in by_type.items()}
    else:
        costs = np.where(zero[:, None], 0.0, costs)

    # Decimals enough for 7 digits of the mean cost (6 from a mean of 1 up, where the
    # exact methods scale exactly); a positive cost never becomes 0.
    drawn = np.concatenate(list(by_type.values())) if by_type is not None else costs.ravel()
    places = w.written_decimals(drawn)

    def num(x: float) -> float | int:
        if x == 0:  # a dummy: no work
            return 0
        if integral:
            return int(max(1.0, round(x)))
        return w.round_written(x, places)

    if by_type is not None:
        tasks = [
            {"id": ids[i], "cost": {t: num(by_type[t][i]) for t in types}} for i in range(n_tasks)
        ]
    else:
        tasks = [
            {"id": ids[i], "cost": [num(c) for c in row]} for i, row in enumerate(costs.tolist())
        ]
    dummy_arc = np.array([bool(zero[a] or zero[b]) for a, b in arcs], dtype=bool)
    scaled: float | None = None  # the CCR the data were scaled to, if any
    bandwidth = float(spec.network.get("bandwidth", 1))
    if data is not None:
        if by_type is None:
            raise MethodError("data: the low and high regimes need the CPU-GPU weight schemes")
        amounts = w.data_regime(
            arcs, n_tasks, by_type, data, bandwidth=bandwidth, seed=rng, dummy=np.asarray(zero)
        )
        amounts = np.where(dummy_arc, 0.0, amounts)
        if integral:
            amounts = np.array([num(d) for d in amounts.tolist()], dtype=float)
        else:
            data_places = w.written_decimals(amounts)
            amounts = np.array([w.round_written(d, data_places) for d in amounts.tolist()])
    else:
        amounts = np.where(dummy_arc, 0.0, rng.uniform(0.0, 2.0, size=len(arcs)))
        # No arc that may carry data: a CCR of 0 holds, any other cannot be met
        # (scaled_data refuses it, naming why).
        all_dummy = bool(dummy_arc.all())
        target = (None if all_dummy else 1.0) if ccr == "default" else ccr
        if target is not None and not (all_dummy and target == 0):
            # Scale before building the problem (one parse): the computation of a
            # task is its mean cost, as Problem.mean_cost computes it.
            # The rounded costs, so the CCR is measured on what is written.
            if by_type is not None:
                counts = {t: spec.types.count(t) for t in types}
                work = np.array([
                    sum(c["cost"][t] * counts[t] for t in types) / len(spec.types)
                    for c in tasks
                ])  # fmt: skip
            else:
                work = np.array([float(np.mean(c["cost"])) for c in tasks])
            n_procs = len(spec.types)
            mean_hops = float(spec.hops.sum() / (n_procs * (n_procs - 1))) if n_procs > 1 else 0.0
            amounts = w.scaled_data(
                amounts, work, mean_hops, target, ccr_definition,
                latency=float(spec.network.get("latency", 0)), bandwidth=bandwidth,
                integral=integral, zero=dummy_arc, n_processors=n_procs,
            )  # fmt: skip
            scaled = target
    values = [int(d) if integral else float(d) for d in amounts.tolist()]
    doc = {
        "format": "exactsched/instance@1",
        "name": name,
        "platform": spec.document,
        "tasks": tasks,
        "edges": [
            {"src": ids[a], "dst": ids[b], "data": d}
            for (a, b), d in zip(arcs, values, strict=True)
        ],
    }
    try:
        return Problem.from_json(doc)
    except InstanceError as exc:
        # The parser's magnitude check names an edge; the cause is the CCR asked for.
        if scaled is not None and "communication delays add up" in str(exc):
            raise MethodError(
                f"ccr: the target {scaled:g} is too large: the edge data it needs add up, "
                "with the costs, to more than the largest float (1.8e308)"
            ) from None
        raise


def topcuoglu_instance(
    v: int,
    platform: Any = "fully-connected:4",
    *,
    alpha: float = 1.0,
    out_degree: float = 2.0,
    ccr: float = 1.0,
    beta: float = 0.5,
    w_dag: float = 50.0,
    integral: bool = False,
    seed: int | np.random.Generator | None = None,
) -> Problem:
    """The random instances of Topcuoglu et al. [1]_: their DAG, costs and CCR.

    Examples
    --------
    >>> p = topcuoglu_instance(40, "mesh:2x2", ccr=0.5, beta=1.0, seed=3)
    >>> p.n_tasks, p.n_processors, round(p.ccr(), 6)
    (40, 4, 0.5)
    """
    rng = _rng(seed)
    arcs = topcuoglu_dag(v, alpha=alpha, out_degree=out_degree, seed=rng)
    return random_workload(
        arcs,
        v,
        platform,
        weights="topcuoglu",
        ccr=ccr,
        beta=beta,
        w_dag=w_dag,
        integral=integral,
        name=f"topcuoglu-v{v}-a{alpha:g}-o{out_degree:g}-ccr{ccr:g}-b{beta:g}",
        seed=rng,
    )
