"""Tiled Cholesky, QR and LU instances with flop-based weights (McSweeney, section 3.2.3).

Contract
--------
:func:`tiled_instance` builds the task graph of :func:`cholesky_dag`,
:func:`qr_dag` or :func:`lu_dag` and weighs it as McSweeney's simulator does
([1]_, section 3.2.3): the time of a task on a processor type is the flop count
of its kernel on a ``b x b`` tile (:data:`~exactsched.workloads.weights.KERNEL_FLOPS`)
divided by the type's peak rate, times a factor drawn uniformly from
``(l, u)`` (default ``(1, 10)``); every edge carries the tile its source
writes, ``b * b * precision`` bytes (8-byte doubles by default), so its
communication time is ``bytes / bandwidth`` per hop of the platform network.
Times are in microseconds (rates in flops per microsecond, bandwidth in bytes
per microsecond, as in [1]_).

On a preset platform the rates and bandwidth come from
:data:`topologies.presets.PRESET_HARDWARE`, and the instance keeps the preset
(``{"preset": name, "network": {"bandwidth": ...}}``); any other CPU-GPU
platform needs ``rates`` and uses its own network bandwidth.

References
----------
.. [1] T. McSweeney, "Scheduling with Precedence Constraints in High-Performance
   Computing", PhD continuation report, University of Manchester, 2019,
   sections 3.2.1 and 3.2.3.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.workloads.cholesky import cholesky_dag
from exactsched.workloads.lu import lu_dag
from exactsched.workloads.qr import qr_dag
from exactsched.workloads.weights import (
    DECIMALS,
    Seed,
    flop_times,
    kernel_flops,
    round_written,
    written_decimals,
)

__all__ = ["TILED_ALGORITHMS", "tiled_instance"]

#: Algorithm name -> task graph builder ``n_tiles -> (ids, kernels, edges)``.
TILED_ALGORITHMS: Mapping[str, Callable[[int], tuple[list[str], list[str], list]]] = (
    MappingProxyType({"cholesky": cholesky_dag, "qr": qr_dag, "lu": lu_dag})
)


def tiled_instance(
    algorithm: str,
    n_tiles: int,
    platform: Any = "single-gpu",
    *,
    tile_size: int = 128,
    noise: Sequence[float] = (1.0, 10.0),
    precision: int = 8,
    rates: Mapping[str, float] | None = None,
    integral: bool = False,
    seed: Seed = None,
    name: str | None = None,
) -> Problem:
    """A tiled factorization DAG with flop-based CPU and GPU times.

    Parameters
    ----------
    algorithm : str
        ``"cholesky"`` (``N(N+1)(N+2)/6`` tasks), ``"qr"`` or ``"lu"``
        (``N(N+1)(2N+1)/6`` tasks).
    n_tiles : int
        Tiles ``N`` along each side of the matrix.
    platform : str, path or mapping
        Anything :func:`~exactsched.workloads.platforms.resolve_platform`
        takes (default ``"single-gpu"``); every processor type needs a rate.
    tile_size : int
        ``b`` (default 128).
    noise : pair of float
        ``(l, u)`` of the uniform factor (default ``(1, 10)``; ``(1, 1)`` gives
        the flop-count lower bounds).
    precision : int
        Bytes per matrix entry (default 8, double precision).
    rates : mapping, optional
        Processor type -> peak flops per microsecond; default the preset's.
    integral : bool
        Round times to integers (at least 1) and make every communication delay an
        integer: the edge data then hold the rounded transfer time of a tile
        and the network bandwidth is 1 (what the exact models want).
    seed : int, Generator or None
    name : str, optional
        Default ``"{algorithm}-N{n}-b{tile_size}-{platform}"``.

    Returns
    -------
    Problem

    Raises
    ------
    MethodError
        For an unknown algorithm, a bad ``n_tiles``, ``tile_size``, ``noise``
        or ``precision``, or a processor type without a rate.
    InstanceError
        For a platform that cannot be resolved.

    Examples
    --------
    >>> p = tiled_instance("cholesky", 5, "multi-gpu", seed=0)
    >>> p.n_tasks, p.n_edges, p.n_processors
    (35, 60, 32)
    >>> p.edge_data[0] == 128 * 128 * 8, p.bandwidth
    (np.True_, 15754.0)
    >>> q = tiled_instance("cholesky", 2, "titan", noise=(1, 1), tile_size=64)
    >>> round(float(q.cost[q.task_ids.index("trsm_1_0"), 0]), 2)  # 64^3 flops / 8800
    29.79
    """
    from exactsched.workloads.platforms import resolve_platform

    if algorithm not in TILED_ALGORITHMS:
        known = ", ".join(sorted(TILED_ALGORITHMS))
        raise MethodError(f"algorithm: unknown {algorithm!r}; known: {known}")
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < 1:
        raise MethodError(f"precision: expected a positive integer, got {precision!r}")
    ids, kernels, edges = TILED_ALGORITHMS[algorithm](n_tiles)
    spec = resolve_platform(platform)
    types = sorted(set(spec.types))
    if rates is None:
        if spec.hardware is None:
            raise MethodError(
                "rates: the platform is not a preset, so give each processor type's peak "
                f"rate in flops per microsecond (types: {', '.join(types)})"
            )
        rates = {"cpu": spec.hardware.cpu, "gpu": spec.hardware.gpu}
    missing = [t for t in types if t not in rates]
    if missing:
        raise MethodError(f"rates: no peak rate for processor type {missing[0]!r}")
    per_kernel = {k: kernel_flops(k, tile_size) for k in set(kernels)}
    flops = np.array([per_kernel[k] for k in kernels])
    times = flop_times(flops, {t: rates[t] for t in types}, noise=noise, seed=seed)
    data = float(tile_size * tile_size * precision)
    document = spec.document
    bandwidth = float(spec.network.get("bandwidth", 1))
    if spec.hardware is not None and isinstance(document, Mapping) and "preset" in document:
        network = dict(document.get("network", {}))
        bandwidth = float(network.setdefault("bandwidth", spec.hardware.bandwidth))
        document = {**document, "network": network}
    if integral:
        # Integer delays for the exact models: data become transfer times (bandwidth 1).
        latency = float(spec.network.get("latency", 0))
        if not latency.is_integer():
            raise MethodError(
                f"integral: the platform's latency {latency:g} is not an integer, so every "
                "delay would be fractional; give the platform an integer latency"
            )
        data = max(1.0, round(data / bandwidth))
        if isinstance(document, Mapping) and "preset" in document:
            document = {**document, "network": {**document.get("network", {}), "bandwidth": 1}}
        else:
            document = {**document, "network": {**spec.network, "bandwidth": 1}}

    # One decimal grid for every time, with digits enough that a positive time never
    # becomes 0 (tile size 1 wrote GPU times of 0: an outside audit).
    places = written_decimals(np.concatenate([times[t] for t in types]))

    def num(values: np.ndarray) -> list[float | int]:
        if integral:
            return [int(v) for v in np.maximum(np.round(values), 1.0).tolist()]
        if places == DECIMALS:  # as before: six places for times of 1 and more on average
            rounded = np.round(values, DECIMALS)
            lost = (rounded == 0) & (values > 0)
            if not lost.any():
                return rounded.tolist()
        return [round_written(v, places) for v in values.tolist()]

    columns = {t: num(times[t]) for t in types}
    tasks = [{"id": task, "cost": {t: columns[t][i] for t in types}} for i, task in enumerate(ids)]
    edge_data: float | int = int(data) if integral or data.is_integer() else data
    doc = {
        "format": "exactsched/instance@1",
        "name": name or f"{algorithm}-N{n_tiles}-b{tile_size}-{spec.label}",
        "platform": document,
        "tasks": tasks,
        "edges": [{"src": ids[a], "dst": ids[b], "data": edge_data} for a, b in edges],
    }
    return Problem.from_json(doc)
