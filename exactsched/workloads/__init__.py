"""Workloads: readers of public benchmark formats and generators of application DAGs.

* :func:`read_stg`, :func:`read_stg_optima`: the Standard Task Graph set of
  Tobita and Kasahara and its published optimal schedule lengths;
* :func:`read_dot`, :func:`read_dot_optima`: Sinnen's DOT task graphs (costs and
  communication weights) and a table of their optimal makespans;
* :func:`cholesky_instance`: tiled Cholesky factorization DAGs with measured
  kernel times (McSweeney, Walton and Zounon, ICCS 2020).

Every function returns a validated :class:`~exactsched.Problem`.
"""

from exactsched.workloads.cholesky import KERNEL_TIMES, KERNELS, cholesky_dag, cholesky_instance
from exactsched.workloads.dot import read_dot, read_dot_optima
from exactsched.workloads.stg import StgOptimum, read_stg, read_stg_optima

__all__ = [
    "KERNELS",
    "KERNEL_TIMES",
    "StgOptimum",
    "cholesky_dag",
    "cholesky_instance",
    "read_dot",
    "read_dot_optima",
    "read_stg",
    "read_stg_optima",
]
