"""Task graph of the tiled LU factorization without pivoting.

Contract
--------
:func:`lu_dag` gives the task graph of the right-looking tiled LU factorization
``A = LU`` of an ``N x N`` tile matrix without pivoting, the tile algorithm of
Buttari et al. [1]_ with the pivoting left out (as in PLASMA's and Chameleon's
``getrf_nopiv``, and the usual LU task graph of the scheduling literature,
e.g. Agullo et al. [2]_). For ``k = 0 .. N-1``:

* ``getrf_k`` factorizes the diagonal tile ``A_kk = L_kk U_kk``;
* ``trsm_k_j`` (``j > k``) solves ``A_kj := L_kk^-1 A_kj`` (a block row of U);
* ``trsm_i_k`` (``i > k``) solves ``A_ik := A_ik U_kk^-1`` (a block column of L);
* ``gemm_i_j_k`` (``i, j > k``) updates ``A_ij -= A_ik A_kj``.

Every off-diagonal tile ``(a, b)`` is solved exactly once, at step
``min(a, b)``, so ``trsm_a_b`` names one task. Predecessors: the tasks
producing the input tiles and the previous update of the output tile:

====================== ==================================================
task                   predecessors
====================== ==================================================
``getrf_k``            ``gemm_k_k_{k-1}`` (k > 0)
``trsm_k_j``           ``getrf_k``, ``gemm_k_j_{k-1}`` (k > 0)
``trsm_i_k``           ``getrf_k``, ``gemm_i_k_{k-1}`` (k > 0)
``gemm_i_j_k``         ``trsm_i_k``, ``trsm_k_j``, ``gemm_i_j_{k-1}`` (k > 0)
====================== ==================================================

Step ``k`` has ``(N - k)^2`` tasks, ``N(N+1)(2N+1)/6`` in all (55 for N = 5).

References
----------
.. [1] A. Buttari, J. Langou, J. Kurzak and J. Dongarra, "A class of parallel
   tiled linear algebra algorithms for multicore architectures", Parallel
   Computing 35(1), pp. 38-53, 2009, doi:10.1016/j.parco.2008.10.002.
.. [2] E. Agullo, O. Beaumont, L. Eyraud-Dubois and S. Kumar, "Are static
   schedules so bad? A case study on Cholesky factorization", IPDPS 2016,
   doi:10.1109/IPDPS.2016.90.
"""

from __future__ import annotations

from exactsched.workloads._tiles import TiledDag, check_tiles

__all__ = ["LU_KERNELS", "lu_dag"]

#: The kernels of the tiled LU factorization.
LU_KERNELS = ("GETRF", "TRSM", "GEMM")


def lu_dag(n_tiles: int) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    """The task graph of the tiled LU factorization of ``n_tiles x n_tiles`` tiles.

    Parameters
    ----------
    n_tiles : int
        Tiles ``N`` along each side of the matrix (>= 1).

    Returns
    -------
    task_ids, kernels, edges
        Ids in the order of the algorithm (a topological order), the kernel of
        each task (one of :data:`LU_KERNELS`) and ``(src, dst)`` index pairs.

    Raises
    ------
    MethodError
        If ``n_tiles`` is not a positive integer.

    Examples
    --------
    >>> ids, kernels, edges = lu_dag(2)
    >>> ids
    ['getrf_0', 'trsm_0_1', 'trsm_1_0', 'gemm_1_1_0', 'getrf_1']
    >>> [(ids[a], ids[b]) for a, b in edges]  # doctest: +NORMALIZE_WHITESPACE
    [('getrf_0', 'trsm_0_1'), ('getrf_0', 'trsm_1_0'), ('trsm_1_0', 'gemm_1_1_0'),
     ('trsm_0_1', 'gemm_1_1_0'), ('gemm_1_1_0', 'getrf_1')]
    >>> [len(lu_dag(n)[0]) for n in (1, 2, 3, 5)]
    [1, 5, 14, 55]
    """
    n = check_tiles(n_tiles)
    dag = TiledDag()
    for k in range(n):

        def last(i: int, j: int, k: int = k) -> str | None:  # previous update of tile (i, j)
            return f"gemm_{i}_{j}_{k - 1}" if k else None

        dag.add(f"getrf_{k}", "GETRF", last(k, k))
        for j in range(k + 1, n):
            dag.add(f"trsm_{k}_{j}", "TRSM", f"getrf_{k}", last(k, j))
        for i in range(k + 1, n):
            dag.add(f"trsm_{i}_{k}", "TRSM", f"getrf_{k}", last(i, k))
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                dag.add(f"gemm_{i}_{j}_{k}", "GEMM", f"trsm_{i}_{k}", f"trsm_{k}_{j}", last(i, j))
    return dag.ids, dag.kernels, dag.edges
