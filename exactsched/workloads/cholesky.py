"""Tiled Cholesky factorization DAGs with the measured kernel times of the HOFT study.

Contract
--------
:func:`cholesky_dag` gives the task graph of the right-looking tiled Cholesky
factorization of an ``N x N`` tile matrix (McSweeney's Algorithm 3.1 [2]_,
"extended to finer tilings in the natural way"): for ``k = 0 .. N-1``

* ``potrf_k`` factorizes the diagonal tile ``A_kk``;
* ``trsm_i_k`` (``i > k``) solves ``A_ik := A_ik L_kk^-T``;
* ``syrk_i_k`` (``i > k``) updates the diagonal tile ``A_ii -= A_ik A_ik^T``;
* ``gemm_i_j_k`` (``i > j > k``) updates ``A_ij -= A_ik A_jk^T``.

Each task depends on the tasks producing its input tiles and on the previous
update of its output tile:

====================== ===============================================================
task                   predecessors
====================== ===============================================================
``potrf_k``            ``syrk_k_{k-1}`` (k > 0)
``trsm_i_k``           ``potrf_k``, ``gemm_i_k_{k-1}`` (k > 0)
``syrk_i_k``           ``trsm_i_k``, ``syrk_i_{k-1}`` (k > 0)
``gemm_i_j_k``         ``trsm_i_k``, ``trsm_j_k``, ``gemm_i_j_{k-1}`` (k > 0)
====================== ===============================================================

so there are ``N`` POTRF, ``N(N-1)/2`` TRSM and SYRK and ``N(N-1)(N-2)/6`` GEMM
tasks, ``N(N+1)(N+2)/6`` in all (35 for N = 5, 56 for N = 6, 120 for N = 8, as
in [1]_), at most 3 predecessors each; 60 edges for N = 5 and 252 for N = 8 (the
HOFT simulator's 35-task DAG also has 60).

:func:`cholesky_instance` adds costs and a CPU-GPU platform, following the
simulation model of [1]_: a task costs the *mean measured time* of its kernel on
its processor type, and an edge costs the mean measured host-device transfer
time of the kernel of its *destination* task whenever a GPU is involved
(CPU-CPU transfers are free: the platform's ``accelerated-node`` network).

Timing data (microseconds, double precision, mean of 1000 runs each, from the
data of [1]_: BLAS/LAPACK kernels on one core of a Skylake Xeon Gold 6130 and
on one V100 GPU; published with the paper's simulator, see Notes):

========== ============ ========== ============ ============ ==========
tile size  kernel        CPU time   GPU time     transfer     CPU/GPU
========== ============ ========== ============ ============ ==========
1024       POTRF        16219.485  1184.62588   3233.71612   13.69
1024       TRSM         22206.134   916.616096  3068.835904  24.23
1024       SYRK         23363.235   419.018816  3034.252184  55.76
1024       GEMM         41369.023   446.381024  3043.597976  92.68
128        POTRF          141.074    84.810752   268.746248   1.66
128        TRSM            75.197    44.116992   110.803008   1.70
128        SYRK            72.175    31.858688   130.780312   2.27
128        GEMM            89.854    11.317248   139.892752   7.94
========== ============ ========== ============ ============ ==========

The default is tile size 1024 and integer costs: every time rounded to the
nearest microsecond, so that exact models work on integer data. With N = 8 on
``hoft-single-gpu`` (7 CPU cores + 1 GPU) the class-load lower bound of
:func:`exactsched.bounds.class_load_bound` is 52,551 us, and running every task
on the GPU (no transfer at all) takes 71,864 us, an upper bound on the optimum.

References
----------
.. [1] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static Scheduling
   Heuristic for Accelerated Architectures", ICCS 2020, LNCS 12137, pp. 3-16,
   doi:10.1007/978-3-030-50371-0_1.
.. [2] T. McSweeney, "Scheduling with Precedence Constraints in High-Performance
   Computing", PhD continuation report, University of Manchester, 2019,
   sections 3.2.1 and 3.2.3.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from exactsched.errors import MethodError
from exactsched.problem import Problem

__all__ = ["KERNELS", "KERNEL_TIMES", "cholesky_dag", "cholesky_instance"]

#: The four kernels of the tiled Cholesky factorization.
KERNELS = ("POTRF", "TRSM", "SYRK", "GEMM")

# (CPU time, GPU time, transfer time) in microseconds per tile size and kernel.
# Kernel means recovered exactly from the per-DAG mean CPU/GPU times the HOFT
# simulator printed for its Cholesky DAGs (simulator/graphs/cholesky/summaries/
# Single_GPU/nb{128,1024}.txt) together with its per-kernel acceleration ratios
# (data/V100/skylake_V100_cholesky_blas_acc_ratios.txt); transfer means from
# data/V100/summary_cholesky_blas.txt (wall time minus kernel time on the V100).
_RAW: dict[int, dict[str, tuple[float, float, float]]] = {
    1024: {
        "POTRF": (16219.485, 1184.62588, 3233.71612),
        "TRSM": (22206.134, 916.616096, 3068.835904),
        "SYRK": (23363.235, 419.018816, 3034.252184),
        "GEMM": (41369.023, 446.381024, 3043.597976),
    },
    128: {
        "POTRF": (141.074, 84.810752, 268.746248),
        "TRSM": (75.197, 44.116992, 110.803008),
        "SYRK": (72.175, 31.858688, 130.780312),
        "GEMM": (89.854, 11.317248, 139.892752),
    },
}

#: Tile size -> kernel -> mapping with keys ``cpu``, ``gpu`` (execution times)
#: and ``transfer`` (host-device transfer time), all in microseconds.
KERNEL_TIMES: Mapping[int, Mapping[str, Mapping[str, float]]] = MappingProxyType(
    {
        nb: MappingProxyType(
            {
                kernel: MappingProxyType({"cpu": c, "gpu": g, "transfer": d})
                for kernel, (c, g, d) in table.items()
            }
        )
        for nb, table in _RAW.items()
    }
)


def _check_tiles(n_tiles: Any) -> int:
    if isinstance(n_tiles, bool) or not isinstance(n_tiles, int) or n_tiles < 1:
        raise MethodError(f"n_tiles: expected a positive integer, got {n_tiles!r}")
    return n_tiles


def cholesky_dag(n_tiles: int) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    """The task graph of the tiled Cholesky factorization of ``n_tiles x n_tiles`` tiles.

    Parameters
    ----------
    n_tiles : int
        Number of tiles ``N`` along each side of the matrix (>= 1).

    Returns
    -------
    task_ids : list of str
        ``potrf_k``, ``trsm_i_k``, ``syrk_i_k``, ``gemm_i_j_k`` (0-based tile
        indices), in the order of the algorithm, which is a topological order.
    kernels : list of str
        The kernel of each task (one of :data:`KERNELS`).
    edges : list of tuple of int
        ``(src, dst)`` task indices, see the module docstring.

    Raises
    ------
    MethodError
        If ``n_tiles`` is not a positive integer.

    Examples
    --------
    >>> ids, kernels, edges = cholesky_dag(2)
    >>> ids
    ['potrf_0', 'trsm_1_0', 'syrk_1_0', 'potrf_1']
    >>> [(ids[a], ids[b]) for a, b in edges]
    [('potrf_0', 'trsm_1_0'), ('trsm_1_0', 'syrk_1_0'), ('syrk_1_0', 'potrf_1')]
    >>> [len(cholesky_dag(n)[0]) for n in (1, 2, 3, 5, 6, 8)]
    [1, 4, 10, 35, 56, 120]
    """
    n = _check_tiles(n_tiles)
    index: dict[str, int] = {}
    ids: list[str] = []
    kernels: list[str] = []
    edges: list[tuple[int, int]] = []

    def add(task: str, kernel: str, preds: list[str]) -> None:
        index[task] = len(ids)
        ids.append(task)
        kernels.append(kernel)
        edges.extend((index[p], index[task]) for p in preds)

    for k in range(n):
        add(f"potrf_{k}", "POTRF", [f"syrk_{k}_{k - 1}"] if k else [])
        for i in range(k + 1, n):
            add(f"trsm_{i}_{k}", "TRSM", [f"potrf_{k}"] + ([f"gemm_{i}_{k}_{k - 1}"] if k else []))
        for i in range(k + 1, n):
            add(f"syrk_{i}_{k}", "SYRK", [f"trsm_{i}_{k}"] + ([f"syrk_{i}_{k - 1}"] if k else []))
            for j in range(k + 1, i):
                preds = [f"trsm_{i}_{k}", f"trsm_{j}_{k}"]
                add(f"gemm_{i}_{j}_{k}", "GEMM", preds + ([f"gemm_{i}_{j}_{k - 1}"] if k else []))
    return ids, kernels, edges


def cholesky_instance(
    n_tiles: int,
    platform: str | Mapping[str, Any] = "hoft-single-gpu",
    *,
    tile_size: int = 1024,
    integral: bool = True,
    communication: bool = True,
    name: str | None = None,
) -> Problem:
    """A tiled Cholesky DAG with measured CPU/GPU kernel times on a CPU-GPU platform.

    Parameters
    ----------
    n_tiles : int
        Tiles along each side of the matrix; the DAG has ``N(N+1)(N+2)/6`` tasks.
    platform : str or mapping
        A preset of :func:`topologies.platform_preset` (default
        ``"hoft-single-gpu"``: 7 CPU cores + 1 GPU; ``"hoft-multi-gpu"``: 28 + 4)
        or a ``platform`` object of the instance format whose processors all have
        type ``"cpu"`` or ``"gpu"`` (used as is, network included).
    tile_size : int
        1024 (default) or 128, the two tile sizes of [1]_.
    integral : bool
        Round every time to the nearest microsecond (default True), so exact
        models see integer data; False keeps the measured means.
    communication : bool
        Give each edge the transfer time of its destination's kernel (default
        True, the model of [1]_); False makes every edge free.
    name : str, optional
        Default ``"cholesky-N{n}-nb{tile_size}"``.

    Returns
    -------
    Problem
        Costs keyed by processor type; edge ``data`` in microseconds, paid per
        hop of the platform network (``accelerated-node``: free between CPUs).

    Raises
    ------
    MethodError
        For a bad ``n_tiles``, an unknown tile size or preset, or a platform
        with a processor type other than ``cpu`` and ``gpu``.

    Examples
    --------
    >>> p = cholesky_instance(4)
    >>> p.n_tasks, p.n_processors, p.proc_types[-1]
    (20, 8, 'gpu')
    >>> p.cost[p.task_ids.index("gemm_2_1_0")].tolist()[-2:]  # a CPU core, the GPU
    [41369.0, 446.0]
    >>> from exactsched.bounds import class_load_bound
    >>> round(class_load_bound(cholesky_instance(8)))
    52551

    Notes
    -----
    The kernel means are those of the DAGs the HOFT simulator generated for [1]_
    (mean of 1000 timed runs per kernel and tile size on one Skylake core and
    one V100); they are recovered exactly from the simulator's published DAG
    summaries and acceleration ratios (repository
    ``mcsweeney90/heterogeneous_optimistic_finish_time``, folder
    ``simulator/graphs/cholesky``). The transfer time of an edge is the mean
    measured data-movement time of the destination's kernel on the V100, as in
    the simulator, where every CPU-GPU, GPU-CPU and GPU-GPU transfer costs the
    same and CPU-CPU transfers are free ([1]_, section 3.1). The transfer means
    come from the simulator's V100 summary file, and the edges carry exactly the
    simulator's values. Their CCR as [1]_ reports it (about 18 for tile size
    1024 and 1 for 128) is the simulator's, sums over tasks and edges with each
    edge's mean over all ``P^2`` pairs of processors: the definition ``hoft``
    of :data:`exactsched.workloads.weights.CCR_DEFINITIONS` (20.78 and 19.06
    for 35 and 220 tasks at 1024 on 7 + 1, the simulator's own figures); its
    words, mean computation over mean communication (``comp/comm``), give about
    31-44 and 2.3 on the same DAGs (an earlier note here took that gap for
    missing transfer time; an outside audit traced it to the formula).

    References
    ----------
    .. [1] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static
       Scheduling Heuristic for Accelerated Architectures", ICCS 2020.
    .. [2] T. McSweeney, PhD continuation report, University of Manchester, 2019,
       sections 3.2.1 and 3.2.3.
    """
    ids, kernels, edges = cholesky_dag(n_tiles)
    if tile_size not in KERNEL_TIMES:
        known = ", ".join(str(nb) for nb in sorted(KERNEL_TIMES))
        raise MethodError(f"tile_size: no timing data for {tile_size!r}; known: {known}")
    if isinstance(platform, str):
        from topologies import platform_preset

        try:
            platform_doc: dict[str, Any] = platform_preset(platform)
        except ValueError as exc:
            raise MethodError(f"platform: {exc}") from None
    elif isinstance(platform, Mapping):
        platform_doc = dict(platform)
    else:
        raise MethodError(
            f"platform: expected a preset name or a platform object, got {platform!r}"
        )
    processors = platform_doc.get("processors")
    if not isinstance(processors, list) or not processors:
        raise MethodError("platform: 'processors' must be a non-empty list")
    types = {p.get("type", "default") if isinstance(p, Mapping) else None for p in processors}
    if not types <= {"cpu", "gpu"}:
        bad = sorted(str(t) for t in types - {"cpu", "gpu"})
        raise MethodError(f"platform: processor types must be 'cpu' or 'gpu', got {bad}")

    table = KERNEL_TIMES[tile_size]

    def time(value: float) -> float | int:
        return int(round(value)) if integral else value

    tasks = [
        {"id": task, "cost": {t: time(table[kernel][t]) for t in sorted(types)}}
        for task, kernel in zip(ids, kernels, strict=True)
    ]
    doc_edges = [
        {
            "src": ids[a],
            "dst": ids[b],
            "data": time(table[kernels[b]]["transfer"]) if communication else 0,
        }
        for a, b in edges
    ]
    document = {
        "format": "exactsched/instance@1",
        "name": name if name is not None else f"cholesky-N{n_tiles}-nb{tile_size}",
        "platform": platform_doc,
        "tasks": tasks,
        "edges": doc_edges,
    }
    return Problem.from_json(document)
