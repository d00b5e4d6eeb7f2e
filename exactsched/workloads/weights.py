"""Task and edge weights of the literature: flop counts, random schemes, target CCRs.

Contract
--------
Cost functions return the execution times of ``n`` tasks, either per processor
*type* (a dict ``type -> array``, for the CPU-GPU schemes where every processor
of one type runs a task equally fast) or per *processor* (an ``n x P`` array,
Topcuoglu's unrelated machines). :func:`scale_to_ccr` rescales the edge data
of any :class:`~exactsched.Problem` to hit a target communication-to-computation
ratio, under the definition it is told to use; :func:`ccr` measures it.

Schemes
-------
``flops`` (McSweeney's report [1]_, section 3.2.3)
    Time of a task on a processor type = flops of its kernel on a ``b x b`` tile
    (:data:`KERNEL_FLOPS`) / peak rate of the type, times a factor drawn
    uniformly from ``(l, u)``, by default ``(1, 10)``, independently per task and
    type. For a random DAG (the STG in [1]_) each task gets a flop count drawn
    uniformly from the integers that put its GPU lower bound in ``[1, 100]``.
``hoft-low``, ``hoft-high`` (McSweeney, Walton and Zounon [2]_, section 6, after Canon et al. [3]_)
    GPU time uniform on ``[1, 100]``; CPU time = GPU time x a Gamma variable of
    mean = standard deviation = 5 (low acceleration) or 50 (high).
``canon`` (Canon, Marchal, Simon and Vivien [3]_, as described in [1]_)
    As above with mean = standard deviation = 15.
``topcuoglu`` (Topcuoglu, Hariri and Wu [4]_)
    Mean cost ``w_i`` uniform on ``[0, 2 w_DAG]``; the cost on processor ``j``
    uniform on ``[w_i (1 - beta/2), w_i (1 + beta/2)]`` (heterogeneity ``beta``).

Data regimes (``low``, ``high``, [1]_ section 3.2.3): every task sends one
amount of data to all its children, drawn so that its communication cost is
uniform on ``[0, 2 m]``, where ``m`` is the mean GPU time (``low``: costs "of
the same order as the mean GPU time") or the mean CPU time (``high``).

CCR definitions
---------------
Computation of a task = its mean cost over the processors it may run on;
communication of an edge = its mean delay over ordered pairs of distinct
processors, ``(latency + data / bandwidth) x mean hops`` (the model's
communication, so CPU-CPU pairs of an ``accelerated-node`` count as 0, as in
the mean communication cost of [2]_). Then:

============== ============================================ ========================
name           ratio                                        source
============== ============================================ ========================
``comm/comp``  mean communication / mean computation        Topcuoglu et al. [4]_
               (also :meth:`exactsched.Problem.ccr`)
``comp/comm``  mean computation / mean communication        McSweeney et al. [2]_
                                                            (its text)
``total``      sum of communication / sum of computation    Ozkaya et al. [5]_
``hoft``       sum of computation / sum of communication,   McSweeney et al. [2]_
               each edge's mean over all ``P^2`` pairs      (its figures)
============== ============================================ ========================

The HOFT paper defines its CCR in words as ``comp/comm``, but the values it
reports (Cholesky about 1 at tile size 128, about 18 at 1024) are those of its
simulator (``simulator/Graph.py``, ``DAG.compute_CCR``, in the authors'
repository ``mcsweeney90/heterogeneous_optimistic_finish_time``): sums over
tasks and edges, with each edge's mean over all ``P^2`` ordered pairs, a
processor to itself included (cost 0). That is ``P / ((P - 1) * total)``, and
``hoft`` is what reproduces the paper's CCR intervals 0-10, 10-20 and 20-50
(an outside audit measured ``comp/comm`` at 31-44 for the simulator's 18-21).

References
----------
.. [1] T. McSweeney, "Scheduling with Precedence Constraints in High-Performance
   Computing", PhD continuation report, University of Manchester, 2019,
   sections 3.2.1-3.2.3.
.. [2] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static Scheduling
   Heuristic for Accelerated Architectures", ICCS 2020, LNCS 12137, pp. 3-16,
   doi:10.1007/978-3-030-50371-0_1.
.. [3] L.-C. Canon, L. Marchal, B. Simon and F. Vivien, "Online scheduling of task
   graphs on hybrid platforms", Euro-Par 2018, doi:10.1007/978-3-319-96983-1_14.
.. [4] H. Topcuoglu, S. Hariri and M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS 13(3),
   pp. 260-274, 2002, doi:10.1109/71.993206.
.. [5] M. Y. Ozkaya, A. Benoit, B. Ucar, J. Herrmann and U. V. Catalyurek, "A
   scalable clustering-based task scheduler for homogeneous processors using DAG
   partitioning", IPDPS 2019, doi:10.1109/IPDPS.2019.00026.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem

__all__ = [
    "ACCELERATION",
    "CCR_DEFINITIONS",
    "CCR_PRECISION",
    "CCR_TOLERANCE",
    "SIGNIFICANT_DIGITS",
    "DECIMALS",
    "KERNEL_FLOPS",
    "CCRRoundingError",
    "ccr",
    "data_regime",
    "flop_times",
    "gamma_times",
    "kernel_flops",
    "random_flop_times",
    "round_written",
    "written_decimals",
    "scale_to_ccr",
    "scaled_data",
    "topcuoglu_times",
]

Seed = int | np.random.Generator | None

#: Kernel -> flop count on a ``b x b`` tile. Cholesky and LU kernels: the exact
#: counts of LAPACK Working Note 41 (Blackford and Dongarra) for square operands;
#: QR kernels: the leading terms of Buttari et al. (2009), Table 1.
KERNEL_FLOPS: Mapping[str, Callable[[int], float]] = MappingProxyType(
    {
        "POTRF": lambda b: b**3 / 3 + b**2 / 2 + b / 6,
        "TRSM": lambda b: float(b**3),
        "SYRK": lambda b: float(b**3 + b**2),
        "GEMM": lambda b: 2.0 * b**3,
        "GETRF": lambda b: 2 * b**3 / 3 - b**2 / 2 + 5 * b / 6,
        "GEQRT": lambda b: 4 * b**3 / 3,
        "UNMQR": lambda b: 2.0 * b**3,
        "TSQRT": lambda b: 2.0 * b**3,
        "TSMQR": lambda b: 4.0 * b**3,
    }
)

#: Name -> (mean, standard deviation) of the Gamma factor CPU time / GPU time.
ACCELERATION: Mapping[str, tuple[float, float]] = MappingProxyType(
    {"hoft-low": (5.0, 5.0), "hoft-high": (50.0, 50.0), "canon": (15.0, 15.0)}
)

#: CCR definition name -> one-line description with its source.
CCR_DEFINITIONS: Mapping[str, str] = MappingProxyType(
    {
        "comm/comp": "mean communication / mean computation (Topcuoglu et al. 2002)",
        "comp/comm": "mean computation / mean communication (McSweeney et al., ICCS 2020)",
        "total": "sum of communication / sum of computation (Ozkaya et al., IPDPS 2019)",
        "hoft": (
            "sum of computation / sum of communication, each edge's mean over all P^2 "
            "ordered pairs of processors (a processor to itself: 0); the figures of the "
            "HOFT paper (McSweeney and Higham, ICCS 2020), as its simulator computes them"
        ),
    }
)


def _rng(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _noise(noise: Sequence[float]) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in noise)
    except (TypeError, ValueError):
        raise MethodError(f"noise: expected a pair (l, u), got {noise!r}") from None
    if not 0 < low <= high < float("inf"):
        raise MethodError(f"noise: expected 0 < l <= u, got ({low:g}, {high:g})")
    return low, high


def kernel_flops(kernel: str, tile_size: int) -> float:
    """Flops of ``kernel`` on ``tile_size x tile_size`` tiles.

    Examples
    --------
    >>> kernel_flops("GEMM", 64)
    524288.0
    >>> kernel_flops("AXPY", 64)
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: kernel: no flop count for 'AXPY'; known: GEMM, GEQRT, GETRF, POTRF, SYRK, TRSM, TSMQR, TSQRT, UNMQR
    """  # noqa: E501
    if kernel not in KERNEL_FLOPS:
        known = ", ".join(sorted(KERNEL_FLOPS))
        raise MethodError(f"kernel: no flop count for {kernel!r}; known: {known}")
    if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 1:
        raise MethodError(f"tile_size: expected a positive integer, got {tile_size!r}")
    return float(KERNEL_FLOPS[kernel](tile_size))


def flop_times(
    flops: np.ndarray,
    rates: Mapping[str, float],
    *,
    noise: Sequence[float] = (1.0, 10.0),
    seed: Seed = None,
) -> dict[str, np.ndarray]:
    """Times ``flops / rate x U(l, u)`` per processor type ([1]_, section 3.2.3).

    Parameters
    ----------
    flops : array of float
        Flop count of each task.
    rates : mapping
        Processor type -> peak rate (flops per time unit).
    noise : pair of float
        ``(l, u)``, ``0 < l <= u``; the factor is drawn independently per task
        and type (default ``(1, 10)`` as in [1]_; ``(1, 1)`` gives the bounds).
    seed : int, Generator or None

    Returns
    -------
    dict
        Type -> array of times, types in sorted order.

    Examples
    --------
    >>> t = flop_times(np.array([100.0, 200.0]), {"cpu": 10, "gpu": 100}, noise=(1, 1))
    >>> t["cpu"].tolist(), t["gpu"].tolist()
    ([10.0, 20.0], [1.0, 2.0])
    """
    low, high = _noise(noise)
    rng = _rng(seed)
    flops = np.asarray(flops, dtype=float)
    out = {}
    for ptype in sorted(rates):
        rate = float(rates[ptype])
        if not 0 < rate < float("inf"):
            raise MethodError(f"rates.{ptype}: expected a positive number, got {rates[ptype]!r}")
        out[ptype] = flops / rate * rng.uniform(low, high, size=flops.shape)
    return out


def random_flop_times(
    n_tasks: int,
    rates: Mapping[str, float],
    *,
    gpu_range: tuple[float, float] = (1.0, 100.0),
    noise: Sequence[float] = (1.0, 10.0),
    seed: Seed = None,
) -> dict[str, np.ndarray]:
    """Flop-based times for tasks of no known kernel (the STG DAGs of [1]_).

    Each task gets an integer flop count drawn uniformly from the range that
    puts its GPU lower bound ``flops / rates["gpu"]`` in ``gpu_range``; then
    :func:`flop_times`.

    Examples
    --------
    >>> t = random_flop_times(1000, {"cpu": 1, "gpu": 10}, noise=(1, 1), seed=0)
    >>> bool(1 <= t["gpu"].min() and t["gpu"].max() <= 100)
    True
    >>> bool((t["cpu"] == 10 * t["gpu"]).all())
    True
    """
    if "gpu" not in rates:
        raise MethodError("rates: the flops scheme needs a peak rate for processor type 'gpu'")
    rng = _rng(seed)
    gpu = float(rates["gpu"])
    low, high = int(np.ceil(gpu_range[0] * gpu)), int(np.floor(gpu_range[1] * gpu))
    flops = rng.integers(low, max(low, high) + 1, size=n_tasks).astype(float)
    return flop_times(flops, rates, noise=noise, seed=rng)


def gamma_times(
    n_tasks: int, acceleration: str | tuple[float, float], *, seed: Seed = None
) -> dict[str, np.ndarray]:
    """GPU times uniform on [1, 100], CPU times = GPU times x a Gamma factor.

    Parameters
    ----------
    n_tasks : int
    acceleration : str or (mean, sd)
        ``"hoft-low"`` (5, 5) or ``"hoft-high"`` (50, 50) of [2]_, ``"canon"``
        (15, 15) of [3]_, or any positive ``(mean, sd)`` of the Gamma factor
        (shape ``(mean/sd)^2``, scale ``sd^2/mean``).
    seed : int, Generator or None

    Returns
    -------
    dict
        ``{"cpu": ..., "gpu": ...}``.

    Examples
    --------
    >>> t = gamma_times(20000, "hoft-high", seed=1)
    >>> ratio = t["cpu"] / t["gpu"]
    >>> round(float(ratio.mean())), round(float(ratio.std()))
    (50, 50)
    """
    if isinstance(acceleration, str):
        if acceleration not in ACCELERATION:
            known = ", ".join(sorted(ACCELERATION))
            raise MethodError(f"acceleration: unknown {acceleration!r}; known: {known}")
        mean, sd = ACCELERATION[acceleration]
    else:
        mean, sd = (float(x) for x in acceleration)
        if not (mean > 0 and sd > 0):
            raise MethodError(f"acceleration: mean and sd must be > 0, got {acceleration!r}")
    rng = _rng(seed)
    gpu = rng.uniform(1.0, 100.0, size=n_tasks)
    factor = rng.gamma(shape=(mean / sd) ** 2, scale=sd**2 / mean, size=n_tasks)
    return {"cpu": gpu * factor, "gpu": gpu}


def topcuoglu_times(
    n_tasks: int, n_processors: int, *, w_dag: float = 50.0, beta: float = 0.5, seed: Seed = None
) -> np.ndarray:
    """Unrelated costs of Topcuoglu et al. [4]_: an ``n x P`` array.

    ``w_i`` is uniform on ``[0, 2 w_DAG]`` and the cost of task ``i`` on each
    processor uniform on ``[w_i (1 - beta/2), w_i (1 + beta/2)]``.

    Examples
    --------
    >>> w = topcuoglu_times(3, 2, beta=0.0, seed=0)
    >>> w.shape, bool((w[:, 0] == w[:, 1]).all())
    ((3, 2), True)
    """
    if not 0 <= beta <= 2:
        raise MethodError(f"beta: heterogeneity must lie in [0, 2], got {beta!r}")
    # 2 * w_dag must stay a float (numpy's uniform range); below 1e-300 the costs
    # would near the floats that keep fewer digits (and draw 0 for a positive cost).
    if not 1e-300 <= w_dag <= 1e300:
        raise MethodError(f"w_dag: expected a number from 1e-300 to 1e300, got {w_dag!r}")
    rng = _rng(seed)
    mean = rng.uniform(0.0, 2.0 * w_dag, size=n_tasks)
    spread = rng.uniform(1 - beta / 2, 1 + beta / 2, size=(n_tasks, n_processors))
    return mean[:, None] * spread


def data_regime(
    edges: Sequence[tuple[int, int]],
    n_tasks: int,
    times: Mapping[str, np.ndarray],
    regime: str,
    *,
    bandwidth: float = 1.0,
    seed: Seed = None,
    dummy: np.ndarray | None = None,
) -> np.ndarray:
    """Edge data of the ``low`` or ``high`` data regime of [1]_, section 3.2.3.

    Every task sends one amount to all its children; its communication cost
    (``data / bandwidth``) is uniform on ``[0, 2 m]`` where ``m`` is the mean
    GPU time (``low``) or the mean CPU time (``high``) of the tasks, the ones
    the boolean mask ``dummy`` marks left out (an STG graph's zero-cost entry and
    exit: counted, they took the mean 3.8 % low on 50 tasks; an outside audit).

    Examples
    --------
    >>> times = {"cpu": np.array([50.0, 50.0]), "gpu": np.array([1.0, 1.0])}
    >>> d = data_regime([(0, 1)], 2, times, "low", seed=0)
    >>> bool(0 <= d[0] <= 2)
    True
    """
    if regime not in ("low", "high"):
        raise MethodError(f"data: unknown regime {regime!r}; known: high, low")
    kind = "gpu" if regime == "low" else "cpu"
    if kind not in times:
        raise MethodError(f"data: the {regime} regime needs times on processor type {kind!r}")
    real = np.ones(n_tasks, dtype=bool) if dummy is None else ~np.asarray(dummy, dtype=bool)
    mean = float(np.mean(np.asarray(times[kind])[real])) if real.any() else 0.0
    per_task = _rng(seed).uniform(0.0, 2.0 * mean, size=n_tasks) * bandwidth
    src = np.fromiter((a for a, _ in edges), dtype=np.int64, count=len(edges))
    return per_task[src]


def _ccr_parts(problem: Problem) -> tuple[np.ndarray, float, np.ndarray]:
    """Per-edge mean delay factor (mean hops), per-task computation, mean hops."""
    n_procs = problem.n_processors
    mean_hops = float(problem.hops.sum() / (n_procs * (n_procs - 1))) if n_procs > 1 else 0.0
    # Data edges only (the first len(edge_src) arcs): order pairs carry nothing, and
    # Problem.ccr, info and the generators average over the edges alone.
    return problem.mean_cost(), mean_hops, problem.arc_unit[: len(problem.edge_src)]


def ccr(problem: Problem, definition: str = "comm/comp") -> float:
    """The CCR of ``problem`` under ``definition`` (see :data:`CCR_DEFINITIONS`).

    Examples
    --------
    >>> p = Problem.from_lists([2, 2], [(0, 1, 6)], n_processors=2)
    >>> ccr(p), ccr(p, "comp/comm"), ccr(p, "total")
    (3.0, 0.3333333333333333, 1.5)
    """
    if definition not in CCR_DEFINITIONS:
        known = ", ".join(CCR_DEFINITIONS)
        raise MethodError(f"ccr_definition: unknown {definition!r}; known: {known}")
    work, mean_hops, unit = _ccr_parts(problem)
    return _ratio(unit * mean_hops, work, definition, problem.n_processors)


def _ratio(
    comm: np.ndarray, work: np.ndarray, definition: str, n_processors: int | None = None
) -> float:
    """The CCR of per-edge mean communication ``comm`` and per-task computation ``work``.

    ``comm`` is each edge's mean over the ordered pairs of *distinct* processors
    (HEFT's mean); ``hoft`` takes the mean over all ``P^2`` pairs, a factor
    ``(P - 1) / P`` of it.
    """
    if definition in ("total", "comm/comp") and not comm.sum() > 0:
        return 0.0  # nothing to communicate: 0, even when nothing computes either
    if definition == "total":
        return float(comm.sum() / work.sum()) if work.sum() > 0 else float("inf")
    if definition == "hoft":
        if not comm.sum() > 0:
            return float("inf")  # no communication (one processor, zero hops or data)
        return float(work.sum() / (comm.sum() * _pair_share(n_processors)))
    mean_comm = float(comm.mean()) if len(comm) else 0.0
    mean_work = float(work.mean())
    if definition == "comm/comp":
        return mean_comm / mean_work if mean_work > 0 else float("inf")
    return mean_work / mean_comm if mean_comm > 0 else float("inf")


def _pair_share(n_processors: int | None) -> float:
    """``(P - 1) / P``: the share of the ``P^2`` ordered pairs that are distinct."""
    if n_processors is None or n_processors < 2:
        raise MethodError("ccr_definition 'hoft': needs the number of processors (at least 2)")
    return (n_processors - 1) / n_processors


#: How far (relative) the CCR of data rounded to integers (``integral``) may stray
#: from the target.
CCR_TOLERANCE = 0.05

#: How far (relative) the CCR of data rounded by :func:`round_written` may stray
#: from the target (rounding moves it by at most 5e-7 relative).
CCR_PRECISION = 1e-6

_SMALLEST_NORMAL = float(np.finfo(float).tiny)  # 2.2e-308

#: Significant digits the mean of the costs, or of the data, the generators write
#: keeps at least (:func:`written_decimals`) when they do not round to integers.
SIGNIFICANT_DIGITS = 7
#: Decimals written at least: what the exact methods scale by exactly (a resolution
#: of at most 10**6, docs/exact-models.md), so that generated instances whose costs
#: and data are 1 or more on average stay exactly solvable.
DECIMALS = 6


def written_decimals(
    values: np.ndarray, digits: int = SIGNIFICANT_DIGITS, decimals: int = DECIMALS
) -> int:
    """Decimals to write a set of costs or data with: ``decimals``, or more when the
    mean of the positive values is below 1, so that it keeps ``digits`` digits.

    One number for the whole set: from a mean of 1 up the values are on the grid of
    ``10**-decimals`` that the exact methods scale by exactly, and rounding the set
    moves its sum by at most ``0.5 * 10**(1 - digits)`` of itself (5e-7), which is
    what bounds the CCR's error.

    Examples
    --------
    >>> written_decimals(np.array([12.5, 0.3980028, 80.0])), written_decimals(np.array([4e-6]))
    (6, 12)
    """
    positive = np.asarray(values, dtype=float)
    positive = positive[positive > 0]
    if not positive.size:
        return decimals
    exponent = Decimal(repr(float(positive.mean()))).adjusted()  # 10**e <= mean < 10**(e+1)
    return max(decimals, digits - 1 - exponent)


def round_written(value: float, places: int) -> float:
    """``value`` rounded to ``places`` decimals (the nearest float to that decimal), or
    to its first significant digit where ``places`` would leave none.

    Correctly rounded (Python's own decimal conversion), hence deterministic; a
    positive value never becomes 0; 0 stays 0.

    Examples
    --------
    >>> round_written(9.63057374, 6), round_written(0.3980028, 6), round_written(4.2e-7, 6)
    (9.630574, 0.398003, 4e-07)
    >>> round_written(1.7976931348623157e308, 6), round_written(0.0, 6)
    (1.7976931348623157e+308, 0.0)
    """
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return value
    if abs(value) < 10.0**-places:  # (only then: a Decimal per value is the cost here)
        places = max(places, -Decimal(repr(value)).adjusted())  # at least the first digit
    return float(f"{value:.{places}f}")


class CCRRoundingError(MethodError):
    """Rounding the scaled data misses the target CCR by more than it may.

    That is :data:`CCR_TOLERANCE` for data rounded to integers and
    :data:`CCR_PRECISION` for data rounded to significant digits.

    Carries ``target``, ``achieved``, ``definition`` and ``integral`` so that a
    caller (the CLI) can restate the refusal in its own option names.
    """

    def __init__(
        self,
        target: float,
        achieved: float,
        definition: str,
        integral: bool,
        digits: int = SIGNIFICANT_DIGITS,
    ) -> None:
        self.target, self.achieved = target, achieved
        self.definition, self.integral = definition, integral
        if integral:
            message = (
                f"ccr: rounding the data to integers >= 1 (integral) gives CCR {achieved:.3g}, "
                f"not the target {target:g} ({definition}), more than {CCR_TOLERANCE:.0%} off; "
                "give the tasks larger costs or do not round to integers"
            )
        else:  # only data near the smallest float lose that much (subnormal numbers)
            message = (
                f"ccr: the data rounded to at least {digits} significant digits give CCR "
                f"{achieved:.9g}, not the target {target:g} ({definition}), more than "
                f"{CCR_PRECISION:g} (relative) off: they lie too close to the smallest "
                "float to keep their digits; give the tasks larger costs"
            )
        super().__init__(message)


def scaled_data(
    data: np.ndarray,
    work: np.ndarray,
    mean_hops: float,
    target: float,
    definition: str = "comm/comp",
    *,
    latency: float = 0.0,
    bandwidth: float = 1.0,
    integral: bool = False,
    digits: int = SIGNIFICANT_DIGITS,
    zero: np.ndarray | None = None,
    n_processors: int | None = None,
) -> np.ndarray:
    """Edge data multiplied by the one factor that gives the CCR ``target``.

    The arithmetic of :func:`scale_to_ccr` on arrays: ``work`` is the
    computation of each task, ``mean_hops`` the mean hops over ordered pairs of
    distinct processors (``n_processors`` of them: the ``hoft`` definition
    needs it). Data all 0 count as all 1. Edges where the boolean
    mask ``zero`` is set keep data 0 (an STG graph's dummy arcs).

    The data are rounded to :func:`written_decimals` decimals (:data:`DECIMALS`,
    more when their mean is below 1; :func:`round_written`), or with ``integral`` to
    integers, at least 1.
    The CCR of the rounded data is measured as :func:`ccr` does; more than
    :data:`CCR_PRECISION` off the target (:data:`CCR_TOLERANCE` with
    ``integral``: every edge then carries at least 1, which can be far too much
    for small task costs) raises :class:`CCRRoundingError`. Significant digits
    move each datum, hence the CCR, by at most ``0.5 * 10**(1 - digits)``
    relative (5e-8 for the default 8), whatever the target; only data near the
    smallest float could miss, and a target that takes a positive datum below
    the smallest normal float (2.2e-308, where floats keep fewer digits and
    then none) is refused.

    Examples
    --------
    >>> scaled_data(np.array([1.0, 3.0]), np.array([4.0, 4.0]), 1.0, 1.0).tolist()
    [2.0, 6.0]
    >>> scaled_data(np.array([1.0]), np.array([4.0]), 1.0, 0.01, integral=True)
    Traceback (most recent call last):
    ...
    exactsched.workloads.weights.CCRRoundingError: ccr: rounding the data to integers >= 1 (integral) gives CCR 0.25, not the target 0.01 (comm/comp), more than 5% off; give the tasks larger costs or do not round to integers
    """  # noqa: E501
    if definition not in CCR_DEFINITIONS:
        known = ", ".join(CCR_DEFINITIONS)
        raise MethodError(f"ccr_definition: unknown {definition!r}; known: {known}")
    if isinstance(target, bool) or not isinstance(target, int | float) or not target > 0:
        raise MethodError(f"ccr: expected a positive number, got {target!r}")
    if target == float("inf"):
        raise MethodError("ccr: expected a finite number, got inf")
    if len(data) == 0:
        raise MethodError("ccr: the graph has no edges, so no CCR can be set")
    fixed = np.zeros(len(data), dtype=bool) if zero is None else np.asarray(zero, dtype=bool)
    if fixed.all():
        raise MethodError("ccr: every edge joins a dummy task (no data), so no CCR can be set")
    if mean_hops == 0:
        raise MethodError("ccr: no two processors pay communication, so no CCR can be set")
    if work.sum() <= 0:
        raise MethodError("ccr: every task costs 0, so no CCR can be set")
    data = np.where(fixed, 0.0, np.asarray(data, dtype=float))
    if not data.any():
        data = np.where(fixed, 0.0, 1.0)
    # Wanted mean edge delay (latency + data/bandwidth) * mean_hops, per definition.
    if definition == "comm/comp":
        want = target * float(work.mean())
    elif definition == "comp/comm":
        want = float(work.mean()) / target
    elif definition == "hoft":  # divided one factor at a time: a product could overflow
        want = float(work.sum()) / target / _pair_share(n_processors) / len(data)
    else:
        want = target * float(work.sum()) / len(data)
    per_hop = want / mean_hops - latency  # wanted mean of data / bandwidth
    if per_hop <= 0:
        raise MethodError(
            f"ccr: the latency {latency:g} alone exceeds the target {target:g} ({definition})"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused just below
        scaled = data * (per_hop * bandwidth / float(data.mean()))
        comm = (latency + scaled / bandwidth) * mean_hops
        finite = bool(np.isfinite(scaled).all()) and np.isfinite(float(comm.sum()))
    if not finite:
        # comp/comm is inverse: there a small target asks for large data.
        how = "small" if definition in ("comp/comm", "hoft") else "large"
        raise MethodError(
            f"ccr: the target {target:g} ({definition}) is too {how}: the edge data it "
            "needs would overflow floating point"
        )
    if bool(((scaled < _SMALLEST_NORMAL) & (data > 0)).any()):
        # Below it a float keeps fewer digits (down to 0 under 5e-324): the data could
        # not be written to the digits kept, nor the CCR hit to CCR_PRECISION.
        how = "large" if definition in ("comp/comm", "hoft") else "small"
        raise MethodError(
            f"ccr: the target {target:g} ({definition}) is too {how}: some edge data it "
            "needs fall below the smallest normal float (2.2e-308), where floats lose digits"
        )
    if integral:
        scaled = np.where(fixed, 0.0, np.maximum(np.round(scaled), 1.0))
    else:
        # Decimals enough for the mean's digits: 6 fixed decimals took small data to 0
        # or a few digits, far from the target (5.4e-4 off at CCR 1e-6).
        places = written_decimals(scaled, digits)
        scaled = np.array([round_written(x, places) for x in scaled.tolist()], dtype=float)
    # Rounding (to >= 1 with integral) can move the CCR far: measure it as ccr() does.
    achieved = _ratio((latency + scaled / bandwidth) * mean_hops, work, definition, n_processors)
    tolerance = CCR_TOLERANCE if integral else CCR_PRECISION
    if not abs(achieved - target) <= tolerance * target:
        raise CCRRoundingError(target, achieved, definition, integral, digits)
    return scaled


def scale_to_ccr(
    problem: Problem,
    target: float,
    definition: str = "comm/comp",
    *,
    integral: bool = False,
    digits: int = SIGNIFICANT_DIGITS,
) -> Problem:
    """``problem`` with every edge's data multiplied by one factor so its CCR is ``target``.

    Edges of data 0 all get data 1 first (so an STG or unweighted graph can be
    given a CCR). Latency is kept, so a target below what latency alone costs
    is refused.

    Parameters
    ----------
    problem : Problem
        With at least one edge and two processors some edge can cross.
    target : float
        The CCR wanted (> 0).
    definition : str
        One of :data:`CCR_DEFINITIONS`.
    integral : bool
        Round the new data to integers (>= 1): the CCR is then hit up to rounding,
        within :data:`CCR_TOLERANCE` or refused.
    digits : int
        Otherwise round the data to :func:`written_decimals` decimals, enough for
        this many digits of their mean (:func:`round_written`): the CCR is then hit within
        :data:`CCR_PRECISION` (relative), or refused.

    Returns
    -------
    Problem

    Raises
    ------
    MethodError
        For an unknown definition, a target that is not positive, a problem
        without edges or without a pair of distinct processors, zero
        computation, a target the latency alone exceeds, or one whose data
        would overflow or underflow; :class:`CCRRoundingError` (a MethodError)
        when the rounded data miss the target by more than :data:`CCR_TOLERANCE`
        (``integral``) or :data:`CCR_PRECISION`.

    Examples
    --------
    >>> p = Problem.from_lists([2, 4], [(0, 1, 1)], n_processors=2)
    >>> q = scale_to_ccr(p, 10.0, "comp/comm")
    >>> q.edge_data.tolist(), ccr(q, "comp/comm")
    ([0.3], 10.0)
    """
    work, mean_hops, _ = _ccr_parts(problem)
    scaled = scaled_data(
        problem.edge_data,
        work,
        mean_hops,
        target,
        definition,
        latency=problem.latency,
        bandwidth=problem.bandwidth,
        integral=integral,
        digits=digits,
        n_processors=problem.n_processors,
    )
    doc: dict[str, Any] = problem.to_json()
    for edge, value in zip(doc["edges"], scaled.tolist(), strict=True):
        edge["data"] = int(value) if integral else value
    return Problem.from_json(doc)
