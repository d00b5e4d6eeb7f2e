"""Task graph of the tiled QR factorization (flat reduction tree).

Contract
--------
:func:`qr_dag` gives the task graph of the tiled QR factorization of an
``N x N`` tile matrix by Householder reflections with a flat reduction tree,
the algorithm of Buttari et al. [1]_ (PLASMA's ``dgeqrf``). For ``k = 0 .. N-1``:

* ``geqrt_k`` factorizes the diagonal tile ``A_kk = Q_kk R_kk``;
* ``unmqr_k_n`` (``n > k``) applies ``Q_kk^T`` to ``A_kn``;
* ``tsqrt_m_k`` (``m > k``) factorizes ``R_kk`` stacked on ``A_mk``,
  updating ``R_kk`` and leaving reflectors in ``A_mk``;
* ``tsmqr_m_n_k`` (``m, n > k``) applies those reflectors to the pair
  ``A_kn``, ``A_mn``.

Predecessors are the producers of the input tiles and the previous update of
every output tile (the reflectors ``geqrt_k`` leaves below the diagonal and
the ``R`` factor above it are separate data, as in [1]_):

====================== ==================================================================
task                   predecessors
====================== ==================================================================
``geqrt_k``            ``tsmqr_k_k_{k-1}`` (k > 0)
``unmqr_k_n``          ``geqrt_k``, ``tsmqr_k_n_{k-1}`` (k > 0)
``tsqrt_m_k``          ``geqrt_k`` (m = k+1) or ``tsqrt_{m-1}_k``; ``tsmqr_m_k_{k-1}`` (k > 0)
``tsmqr_m_n_k``        ``tsqrt_m_k``; ``unmqr_k_n`` (m = k+1) or ``tsmqr_{m-1}_n_k``;
                       ``tsmqr_m_n_{k-1}`` (k > 0)
====================== ==================================================================

Step ``k`` has ``(N - k)^2`` tasks, ``N(N+1)(2N+1)/6`` in all (55 for N = 5).

References
----------
.. [1] A. Buttari, J. Langou, J. Kurzak and J. Dongarra, "A class of parallel
   tiled linear algebra algorithms for multicore architectures", Parallel
   Computing 35(1), pp. 38-53, 2009, doi:10.1016/j.parco.2008.10.002.
"""

from __future__ import annotations

from exactsched.workloads._tiles import TiledDag, check_tiles

__all__ = ["QR_KERNELS", "qr_dag"]

#: The kernels of the tiled QR factorization.
QR_KERNELS = ("GEQRT", "UNMQR", "TSQRT", "TSMQR")


def qr_dag(n_tiles: int) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    """The task graph of the tiled QR factorization of ``n_tiles x n_tiles`` tiles.

    Parameters
    ----------
    n_tiles : int
        Tiles ``N`` along each side of the matrix (>= 1).

    Returns
    -------
    task_ids, kernels, edges
        Ids in the order of the algorithm (a topological order), the kernel of
        each task (one of :data:`QR_KERNELS`) and ``(src, dst)`` index pairs.

    Raises
    ------
    MethodError
        If ``n_tiles`` is not a positive integer.

    Examples
    --------
    >>> ids, kernels, edges = qr_dag(2)
    >>> ids
    ['geqrt_0', 'unmqr_0_1', 'tsqrt_1_0', 'tsmqr_1_1_0', 'geqrt_1']
    >>> [(ids[a], ids[b]) for a, b in edges]  # doctest: +NORMALIZE_WHITESPACE
    [('geqrt_0', 'unmqr_0_1'), ('geqrt_0', 'tsqrt_1_0'), ('tsqrt_1_0', 'tsmqr_1_1_0'),
     ('unmqr_0_1', 'tsmqr_1_1_0'), ('tsmqr_1_1_0', 'geqrt_1')]
    >>> [len(qr_dag(n)[0]) for n in (1, 2, 3, 5)]
    [1, 5, 14, 55]
    """
    n = check_tiles(n_tiles)
    dag = TiledDag()
    for k in range(n):

        def last(i: int, j: int, k: int = k) -> str | None:  # previous update of tile (i, j)
            return f"tsmqr_{i}_{j}_{k - 1}" if k else None

        dag.add(f"geqrt_{k}", "GEQRT", last(k, k))
        for j in range(k + 1, n):
            dag.add(f"unmqr_{k}_{j}", "UNMQR", f"geqrt_{k}", last(k, j))
        for m in range(k + 1, n):
            above = f"geqrt_{k}" if m == k + 1 else f"tsqrt_{m - 1}_{k}"
            dag.add(f"tsqrt_{m}_{k}", "TSQRT", above, last(m, k))
            for j in range(k + 1, n):
                row = f"unmqr_{k}_{j}" if m == k + 1 else f"tsmqr_{m - 1}_{j}_{k}"
                dag.add(f"tsmqr_{m}_{j}_{k}", "TSMQR", f"tsqrt_{m}_{k}", row, last(m, j))
    return dag.ids, dag.kernels, dag.edges
