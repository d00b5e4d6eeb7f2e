"""Workloads: readers and writers of public benchmark formats, application DAGs, weights.

* :func:`load_problem`: any supported file (instance JSON, STG, DOT, WfCommons)
  as a :class:`~exactsched.Problem`, on a platform given by preset, shorthand
  or file (:func:`resolve_platform`);
* :func:`read_stg`, :func:`write_stg`, :func:`read_stg_optima`: the Standard
  Task Graph set of Tobita and Kasahara and its published optimal schedule
  lengths;
* :func:`read_dot`, :func:`write_dot`, :func:`read_dot_optima`: Sinnen's DOT
  task graphs (costs and communication weights) and a table of their optima;
* :func:`read_wfcommons`: WfCommons workflow instances (WfFormat JSON);
* :func:`cholesky_instance`: tiled Cholesky DAGs with the measured kernel times
  of McSweeney, Walton and Zounon (ICCS 2020); :func:`tiled_instance`: tiled
  Cholesky, QR and LU DAGs with the flop-based weights of McSweeney's report;
* :mod:`~exactsched.workloads.weights`: the weight schemes of the literature
  and CCR scaling under named definitions.

Every reader and generator returns a validated :class:`~exactsched.Problem`.
"""

from exactsched.workloads.cholesky import KERNEL_TIMES, KERNELS, cholesky_dag, cholesky_instance
from exactsched.workloads.dot import read_dot, read_dot_optima, write_dot
from exactsched.workloads.loader import FORMATS, detect_format, load_problem
from exactsched.workloads.lu import LU_KERNELS, lu_dag
from exactsched.workloads.platforms import PlatformSpec, resolve_platform
from exactsched.workloads.qr import QR_KERNELS, qr_dag
from exactsched.workloads.stg import StgOptimum, read_stg, read_stg_optima, write_stg
from exactsched.workloads.tiled import TILED_ALGORITHMS, tiled_instance
from exactsched.workloads.weights import CCR_DEFINITIONS, ccr, scale_to_ccr
from exactsched.workloads.wfcommons import read_wfcommons

__all__ = [
    "CCR_DEFINITIONS",
    "FORMATS",
    "KERNELS",
    "KERNEL_TIMES",
    "LU_KERNELS",
    "QR_KERNELS",
    "TILED_ALGORITHMS",
    "PlatformSpec",
    "StgOptimum",
    "ccr",
    "cholesky_dag",
    "cholesky_instance",
    "detect_format",
    "load_problem",
    "lu_dag",
    "qr_dag",
    "read_dot",
    "read_dot_optima",
    "read_stg",
    "read_stg_optima",
    "read_wfcommons",
    "resolve_platform",
    "scale_to_ccr",
    "tiled_instance",
    "write_dot",
    "write_stg",
]
