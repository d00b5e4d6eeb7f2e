"""CP-SAT model of the exact scheduling problem, registered as method ``"cpsat"``.

Contract: :func:`cpsat` takes a :class:`~exactsched.problem.Problem` and returns a
:class:`~exactsched.result.Result` whose schedule (if any) is valid on the
original data (it is re-timed on them and checked by :func:`exactsched.validate`),
whose ``makespan`` is that schedule's true makespan and whose ``lower_bound``
is proven for the original problem. ``status`` is ``OPTIMAL`` only when the
makespan equals the proven bound. ``time_limit`` bounds the whole call: when
the model cannot be built in time the best heuristic schedule is returned
(``FEASIBLE``, with the foundation bound of :mod:`exactsched.bounds`).

The model is built in named stages, one function each, so that every
strengthening can be switched off by its option and audited alone
(details and measurements in ``docs/exact-models.md``):

1. *locations* (:mod:`models._cpsat_locations`, option ``pooling``):
   processors, except that a class of interchangeable processors with free
   communication inside is pooled into one location of capacity ``k``;
2. *warm start* (:mod:`models._cpsat_warm`, options ``hint``, ``horizon``,
   ``relocate``, ``hint_heuristics``): the best heuristic schedule;
3. *bounds and cuts*, first half (:func:`models._cpsat_bounds.compute_bounds`,
   options ``bounds``, ``placement``): horizon, root bound, heads and tails;
4. *variables* (:func:`models._cpsat_build.add_variables`): starts, ends,
   presence literals, ``add_exactly_one``;
5. *resources* (:func:`models._cpsat_build.add_resources`, ``pooling``):
   ``add_no_overlap`` per processor, ``add_cumulative`` per pooled location;
6. *precedence and communication* (:func:`~models._cpsat_build.add_precedence_and_communication`,
   option ``comm``; :func:`~models._cpsat_build.add_isolation`): arcs, delays,
   isolation pairs;
7. *bounds and cuts*, second half (:func:`~models._cpsat_build.add_symmetry_breaking`,
   option ``symmetry``; :func:`models._cpsat_bounds.add_bounds_and_cuts`,
   options ``bounds``, ``placement``, ``load``, ``path_cuts``);
8. the *hint* (:func:`models._cpsat_build.add_hint`, option ``hint``);
9. *solve* (:func:`solve_model`, options ``workers``, ``seed``,
   ``lb_search``, ``relative_gap``, ``parameters``, ``log``);
10. *extraction* (:func:`extract_schedule`, :func:`final_status`): locations
    to cores, re-timing on the original data, validation, the proven bound.

Non-integer data are scaled by a resolution and rounded up, and numbers CP-SAT
cannot hold are rescaled (:func:`scale_data`); the solution is re-timed on the
original numbers and a proof on rounded data counts only when it is one on
the original data.

References
----------
.. [1] L. Perron and F. Didier, CP-SAT, OR-Tools, Google, https://developers.google.com/optimization.
.. [2] H. Topcuoglu, S. Hariri and M.-Y. Wu, IEEE TPDS 13(3), 2002 (list-scheduling warm start).
.. [3] T. McSweeney, N. Walton and M. Zounon, ICCS 2020 (CPU-GPU model, class-load reasoning).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

import numpy as np
from ortools.sat.python import cp_model

from exactsched.bounds import critical_path_bound, load_bound, lower_bound_within
from exactsched.errors import MethodError
from exactsched.limits import default_workers
from exactsched.problem import Problem
from exactsched.registry import HeuristicName, Range, register
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from exactsched.validate import validate
from models._clock import LOAD_SHARE, Clock, OutOfTime
from models._cpsat_bounds import (
    StaticBounds,
    add_bounds_and_cuts,
    compute_bounds,
    placement_heads_tails,
)
from models._cpsat_build import (
    COMM_ENCODINGS,
    ModelVars,
    add_hint,
    add_isolation,
    add_precedence_and_communication,
    add_resources,
    add_symmetry_breaking,
    add_variables,
    new_model,
)
from models._cpsat_locations import Locations, colour_cores, processor_locations
from models._cpsat_run import run_solver
from models._cpsat_scaling import ScaledData, ceil_tol, scale_data
from models._cpsat_time_indexed import (
    TI_FIRST_SECONDS,
    TI_FIRST_SHARE,
    TI_NO_LIMIT_SECONDS,
    TI_SHARE,
    Ladder,
    fits,
    time_indexed_ladder,
    time_indexed_windows,
)
from models._cpsat_warm import WarmStart, find_warm_start, hint_candidates, near_subsets
from models._warmstart import delay_matrix, retime, serial_schedule

RelativeGap = Annotated[float, Range(0, 1, high_open=True)]
"""Annotation of ``relative_gap`` (of ``cpsat`` and ``milp``): a number >= 0 and < 1
(a gap of 1 or more would stop at any schedule)."""

__all__ = [
    "cpsat",
    "scale_data",
    "processor_locations",
    "scaled_limit",
    "solve_model",
    "extract_schedule",
    "final_status",
    "DEFAULT_HINT_HEURISTICS",
    "COMM_ENCODINGS",
    "STRAIGHTFORWARD",
]

# Former private names, kept for the tests and notebooks that import them.
_placement_heads_tails = placement_heads_tails
_near_subsets = near_subsets
_hint_candidates = hint_candidates
_colour = colour_cores

#: Registered heuristics tried for the warm start (if registered), besides our own.
DEFAULT_HINT_HEURISTICS: tuple[str, ...] = (
    "heft",
    "peft",
    "cpop",
    "hoft",
    "heft-wm",
    "heft-lookahead",
    "peft-nc",
    "pets",
)

#: Options giving the straightforward model the speed features are measured against.
STRAIGHTFORWARD: dict[str, Any] = {
    "hint": False,
    "horizon": "sum",
    "bounds": False,
    "load": False,
    "symmetry": False,
    "pooling": False,
    "comm": "pairs",
    "path_cuts": False,
    "lb_search": False,
    "relocate": 0,
    "time_indexed": False,
}

# Relocation-search moves for the warm start ("auto"): per task, and at most.
_RELOCATE_PER_TASK = 20
_RELOCATE_MAX = 3000
_TOL = 1e-9
# Path cuts pay on CPU-GPU nodes (few locations); on many processors they only
# slow the presolve down (measured in docs/exact-models.md). Their size grows
# with n**2 (ancestors times descendants), so "auto" also stops at this many tasks.
_PATH_CUT_LOCATIONS = 4
_PATH_CUT_TASKS = 400
# Stages that build the CP-SAT model (CP-SAT needs LOAD_SHARE of their time to load it).
_MODEL_STAGES = (
    "variables",
    "resources",
    "precedence and communication",
    "bounds and cuts",
    "hint",
)
# The model holds a delay per arc and pair of processors (several float copies while
# scaling): beyond this many the memory, not the time, runs out.
_MAX_DELAY_ENTRIES = 50_000_000
# Above this many presence literals CP-SAT's presolve probing takes seconds and
# buys nothing measurable, so it is switched off.
_PROBING_LITERALS = 600


def scaled_limit(problem: Problem) -> float:
    """Largest scaled sum of costs and delays the model can hold exactly.

    Every time variable lies in ``[0, total]``; CP-SAT needs the sum of all
    variable domains (about ``2 n + 1`` of them) and every linear row (at most
    ``2 capacity + 1`` times ``total``) within ``2**62``, and the re-timing of
    the hint on scaled data is exact in floating point up to ``2**53``.

    Examples
    --------
    >>> scaled_limit(Problem.from_lists([[1, 1]])) == 2.0**53
    True
    """
    factor = 2 * max(problem.n_tasks + 1, problem.n_processors + 1)
    return min(2.0**53, 2.0**62 / factor)


class _Progress(cp_model.CpSolverSolutionCallback):
    """Reports each solution shorter than all shown as (makespan, bound, seconds), original units.

    ``shown``: the best makespan already reported (the warm start's).
    """

    def __init__(
        self,
        callback: Callable[[float, float, float], Any] | None,
        resolution: float,
        slack: int,
        floor: float,
        started: float,
        shown: float = math.inf,
    ) -> None:
        super().__init__()
        self._callback = callback
        self._resolution = resolution
        self._slack = slack
        self._floor = floor
        self._started = started
        self.first_seconds: float | None = None
        self.trace: list[tuple[float, float, float]] = []
        # Over every solve of the call (the model may run twice), from the warm start
        # already shown: on rounded-up data the hint's own solution reads longer.
        self._best = shown

    def on_solution_callback(self) -> None:
        seconds = time.perf_counter() - self._started
        makespan = self.objective_value / self._resolution
        bound = max(self._floor, (self.best_objective_bound - self._slack) / self._resolution)
        if self.first_seconds is None:
            self.first_seconds = seconds
        if makespan >= self._best:
            return  # a second solve finding again what the first had
        self._best = makespan
        self.trace.append((round(seconds, 4), makespan, bound))
        if self._callback is not None:
            self._callback(makespan, min(bound, makespan), seconds)


def _check_options(
    time_limit: Any, workers: Any, relative_gap: Any, horizon: Any, comm: Any, relocate: Any
) -> None:
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not time_limit >= 0  # also refuses nan
    ):
        raise MethodError(f"time_limit: expected a non-negative number, got {time_limit!r}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise MethodError(f"workers: expected a positive integer, got {workers!r}")
    if (
        isinstance(relative_gap, bool)
        or not isinstance(relative_gap, int | float)
        or not (0 <= relative_gap < 1)
    ):
        raise MethodError(f"relative_gap: expected a number in [0, 1), got {relative_gap!r}")
    if horizon not in ("heuristic", "sum"):
        raise MethodError(f"horizon: expected 'heuristic' or 'sum', got {horizon!r}")
    if relocate != "auto" and (
        isinstance(relocate, bool) or not isinstance(relocate, int) or relocate < 0
    ):
        raise MethodError(f"relocate: expected 'auto' or a non-negative integer, got {relocate!r}")
    if comm not in COMM_ENCODINGS:
        raise MethodError(f"comm: expected one of {', '.join(COMM_ENCODINGS)}, got {comm!r}")


def _apply_parameters(params: Any, parameters: Mapping[str, Any] | None) -> None:
    """Set extra CP-SAT parameters by name; lists extend repeated fields."""
    for key, value in (parameters or {}).items():
        try:
            if isinstance(value, list | tuple):
                getattr(params, key).extend(value)
            else:
                setattr(params, key, value)
        except (AttributeError, TypeError, ValueError) as exc:
            raise MethodError(f"parameters: bad CP-SAT parameter {key!r}: {exc}") from None


def _log_to_stderr(line: str) -> None:
    """CP-SAT log lines go to standard error, so standard output stays for results."""
    print(line, file=sys.stderr, flush=True)


def solve_model(
    mv: ModelVars,
    *,
    seconds: float | None,
    workers: int,
    seed: int | None,
    log: bool,
    relative_gap: float,
    lb_search: bool,
    parameters: Mapping[str, Any] | None,
    progress: cp_model.CpSolverSolutionCallback | None = None,
) -> tuple[cp_model.CpSolver, int]:
    """Stage *solve*: CP-SAT with the parameters of the options; the solver and its status.

    ``num_workers`` and ``random_seed`` from the arguments; presolve probing
    off above 600 presence literals; with 2 or more workers and ``lb_search``
    the full-problem worker is ``objective_lb_search``; ``parameters`` are
    applied last (lists extend repeated fields). The log, when asked for, goes
    to standard error.

    Raises
    ------
    MethodError
        For an unknown CP-SAT parameter or a bad value.
    RuntimeError
        If CP-SAT rejects the model (a bug in the stages).

    Examples
    --------
    >>> from models._cpsat_bounds import compute_bounds
    >>> from models._cpsat_build import add_resources
    >>> p = Problem.from_lists([[2, 3], [3, 2]], [(0, 1, 4)])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=20)
    >>> sb = compute_bounds(p, mv.cost, mv.delay, mv.capacity, horizon=20, foundation=4.0,
    ...                     resolution=1, bounds=True, placement=True)
    >>> add_variables(mv, sb.head, sb.tail, sb.min_dur)
    >>> add_resources(mv, pooling=True)
    >>> add_precedence_and_communication(mv, p, comm="levels")
    >>> add_bounds_and_cuts(mv, p, sb, load=True, path_cuts=False)
    >>> solver, code = solve_model(mv, seconds=10, workers=1, seed=0, log=False,
    ...                            relative_gap=0, lb_search=False, parameters=None)
    >>> solver.status_name(code), solver.objective_value   # both on p0: 2 + 3
    ('OPTIMAL', 5.0)
    """
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = workers
    params.random_seed = 0 if seed is None else int(seed)
    params.log_search_progress = bool(log)
    params.log_to_stdout = False
    if log:
        solver.log_callback = _log_to_stderr
    if relative_gap:
        params.relative_gap_limit = float(relative_gap)
    if mv.n_literals > _PROBING_LITERALS:
        params.cp_model_probing_level = 0
    if lb_search and workers >= 2:
        params.extra_subsolvers.append("objective_lb_search")
    _apply_parameters(params, parameters)
    if seconds is not None:
        params.max_time_in_seconds = max(0.01, float(seconds))
    code = run_solver(solver, mv.model, progress)
    if code == cp_model.MODEL_INVALID:
        reason = mv.model.validate()
        if not reason and parameters:  # a valid model: the parameters are what it refused
            raise MethodError(
                f"parameters: CP-SAT refused {dict(parameters)!r} (a value out of its range?)"
            )
        raise RuntimeError(f"cpsat: CP-SAT rejected the model: {reason}")
    return solver, code


def extract_schedule(problem: Problem, mv: ModelVars, solver: cp_model.CpSolver) -> Schedule:
    """Stage *extraction*: the solver's solution as a valid schedule on the original data.

    Locations from the presence literals, cores of pooled locations by
    interval colouring, then the earliest starts on the original data for
    that assignment and the solver's sequencing (never later than the scaled
    solution divided by the resolution).

    Raises
    ------
    RuntimeError
        If the re-timed schedule is invalid (a bug in the stages).

    Examples
    --------
    >>> from models._cpsat_bounds import compute_bounds
    >>> from models._cpsat_build import add_resources
    >>> p = Problem.from_lists([[2, 3], [3, 2]], [(0, 1, 4)])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=20)
    >>> sb = compute_bounds(p, mv.cost, mv.delay, mv.capacity, horizon=20, foundation=4.0,
    ...                     resolution=1, bounds=True, placement=True)
    >>> add_variables(mv, sb.head, sb.tail, sb.min_dur)
    >>> add_resources(mv, pooling=True)
    >>> add_precedence_and_communication(mv, p, comm="levels")
    >>> add_bounds_and_cuts(mv, p, sb, load=True, path_cuts=False)
    >>> solver, code = solve_model(mv, seconds=10, workers=1, seed=0, log=False,
    ...                            relative_gap=0, lb_search=False, parameters=None)
    >>> extract_schedule(p, mv, solver).makespan
    5
    """
    n = problem.n_tasks
    loc_of = np.array(
        [
            next(k for k, lit in mv.x[i].items() if lit is True or solver.boolean_value(lit))
            for i in range(n)
        ],
        dtype=np.int64,
    )
    start_s = np.array([solver.value(mv.start[i]) for i in range(n)], dtype=float)
    proc = colour_cores(loc_of, start_s, mv.cost, mv.loc)
    start = retime(problem, proc, start_s, problem.cost, delay_matrix(problem))
    schedule = Schedule.from_arrays(problem, proc, start)
    violations = validate(problem, schedule)
    if violations:
        raise RuntimeError(f"cpsat: re-timed schedule is invalid: {violations[0]}")
    return schedule


def final_status(
    problem: Problem, makespan: float, bound: float, data: ScaledData
) -> tuple[Status, float]:
    """Status and proven bound of a schedule of length ``makespan``; ``bound`` is valid.

    The bound is rounded up where the optimum is known to lie on a grid
    (integer data: an integer; exactly scaled data: a multiple of
    ``1 / resolution``; both: a multiple of the data's common divisor,
    :attr:`~models._cpsat_scaling.ScaledData.step`). ``OPTIMAL`` needs
    ``makespan <= bound``: exactly on integer data, up to the float rounding
    of the schedule's sums (``(4 n + 2)`` ulps of the makespan) on other
    exactly scaled data, strictly otherwise, so a proof on rounded data never passes for one on the
    original numbers.

    Examples
    --------
    >>> p = Problem.from_lists([[1.5]])
    >>> final_status(p, 1.5, 1.4999999999, scale_data(p))
    (<Status.OPTIMAL: 'optimal'>, 1.5)
    >>> inexact = ScaledData(1.0, False, p.cost, np.zeros((0, 1, 1)), 1)
    >>> final_status(p, 1.5, 1.4999999999, inexact)
    (<Status.FEASIBLE: 'feasible'>, 1.4999999999)
    >>> quarters = Problem.from_lists([[0.25, 0.5]], n_processors=2)
    >>> final_status(quarters, 0.75, 0.3, scale_data(quarters))  # multiples of 0.25 only
    (<Status.FEASIBLE: 'feasible'>, 0.5)
    """
    if problem.is_integral:
        # A whole bound below 2**52 stays (the foundation's is already a ceiling less
        # its sums' noise, exactsched.bounds._best; an engine's bound rescaled errs by
        # a few ulps, never by a whole unit there); any other is rounded up less its
        # float noise.
        if not (float(bound).is_integer() and abs(bound) < 2.0**52):
            bound = math.ceil(bound - max(1e-6, 8 * math.ulp(bound)))
        if data.resolution == 1 and data.step > 1 and abs(bound) < 2.0**52:
            bound = -(-int(bound) // data.step) * data.step  # the optimum is a multiple
    elif data.exact and math.isfinite(bound):
        units = int(ceil_tol(np.array([bound * data.resolution]))[0][0])
        units = -(-units // data.step) * data.step
        bound = units / data.resolution
    bound = min(bound, makespan)
    # On exact data the makespan lies on the grid up to the float rounding of its
    # sums (none on integers): at most (4n + 2) ulps, never a relative snap.
    tol = 0.0
    if data.exact and not problem.is_integral:
        tol = (4 * problem.n_tasks + 2) * math.ulp(abs(float(makespan)))
    if makespan <= bound + tol:
        return Status.OPTIMAL, makespan
    return Status.FEASIBLE, bound


@register(
    "cpsat",
    kind="exact",
    description=(
        "CP-SAT model: optional intervals per (task, processor), pooled CPU cores, "
        "hop-aware communication, isolation, warm start from the best heuristic"
    ),
    source="Perron and Didier, OR-Tools CP-SAT; model of Topcuoglu et al. 2002 with networks",
)
def cpsat(
    problem: Problem,
    *,
    time_limit: float | None = None,
    workers: int | None = None,
    seed: int | None = 0,
    relative_gap: RelativeGap = 0.0,
    log: bool = False,
    callback: Callable[[float, float, float], Any] | None = None,
    resolution: Annotated[float, Range(0, low_open=True)] | None = None,
    hint: bool = True,
    horizon: Literal["heuristic", "sum"] = "heuristic",
    bounds: bool = True,
    placement: bool = True,
    load: bool = True,
    symmetry: bool = True,
    pooling: bool = True,
    comm: Literal["levels", "dest", "pairs"] = "levels",
    path_cuts: bool | Literal["auto"] = "auto",
    lb_search: bool = True,
    relocate: int | Literal["auto"] = "auto",
    time_indexed: bool | Literal["auto"] = "auto",
    hint_heuristics: Sequence[HeuristicName] = DEFAULT_HINT_HEURISTICS,
    parameters: Mapping[str, Any] | None = None,
) -> Result:
    """Solve ``problem`` with a CP-SAT model; optimal when proven.

    Parameters
    ----------
    problem : Problem
    time_limit : float, optional
        Wall-clock seconds for the whole call: warm start, bounds, model
        building and solving. When the model cannot be built in time the best
        heuristic schedule is returned as ``FEASIBLE`` with the foundation
        bound (``stats["stopped"]`` names the stage). None: no limit.
    workers : int, optional
        CP-SAT search workers; None: the number of CPU cores, at most 8. Use 1
        for reproducible runs.
    seed : int, optional
        CP-SAT ``random_seed`` (None: 0).
    relative_gap : float
        Stop once ``(makespan - bound) / makespan`` is at most this (0: prove
        optimality): the solver's own stopping ratio, relative to the makespan,
        not :attr:`exactsched.Result.gap` (relative to the bound). A run stopped
        by the gap reports ``FEASIBLE``.
    log : bool
        Print the CP-SAT search log, on standard error.
    callback : callable, optional
        ``callback(makespan, bound, seconds)`` on the warm start and on each
        improving solution, in original units (the makespan is the one of the
        scaled solution; the returned schedule, re-timed, is never longer).
    resolution : float, optional
        Time units per original unit for non-integer data (see :func:`scale_data`).
    hint : bool
        Give CP-SAT the best heuristic schedule as a complete hint.
    horizon : {"heuristic", "sum"}
        Upper bound of every time variable: the best heuristic makespan, or the
        sum of every largest cost and delay (the straightforward choice).
    bounds : bool
        Add ``makespan >= exactsched.bounds.lower_bound`` (with the class-load
        LP), heads and tails of every task, ``makespan >= end + tail``, and
        (option ``placement``) the placement heads/tails of
        :func:`models._cpsat_bounds.placement_heads_tails` as cuts
        ``start_i >= sum_l head_il x_il``, ``makespan >= start_i + sum_l
        tail_il x_il`` and the root bound ``max_i min_l (head_il + tail_il)``.
    placement : bool
        With ``bounds``: the placement heads and tails (communication and
        fan-in/out aware) as cuts, start domains and root bound; False keeps
        only the foundation bound and the least-cost heads and tails.
    load : bool
        Add per-location load cuts ``capacity * makespan >= sum of costs placed there``.
    symmetry : bool
        Value-precedence symmetry breaking between interchangeable processors
        that are not pooled (e.g. the GPUs of a multi-GPU node).
    pooling : bool
        Pool interchangeable processors with free communication among them into
        one cumulative location (no per-core variables), and add a redundant
        cumulative over every other class of interchangeable processors.
    comm : {"levels", "dest", "pairs"}
        Communication encoding (see Notes).
    path_cuts : bool or "auto"
        Load cuts along the ancestors and descendants of every task (see
        :func:`models._cpsat_bounds.add_path_cuts`); "auto": on when there
        are at most 4 locations (CPU-GPU nodes), where they pay, and at most
        400 tasks (their size grows with the square of the tasks).
    lb_search : bool
        With 2 or more workers, make the full-problem worker CP-SAT's
        ``objective_lb_search`` (it raises the bound step by step) instead of
        ``default_lp``; the other workers keep the LNS and local search. On the
        16-processor fat-tree and torus instances it lifted the bound the
        default search never moved (``docs/exact-models.md``).
    relocate : int or "auto"
        Effort of the search (:mod:`models._relocate`) that improves the best
        heuristic schedule before it becomes the hint: four relocation climbs
        of ``relocate / 2`` moves each (tasks moved between locations,
        re-scheduled by a list scheduler for the fixed assignment), then
        ``relocate`` tries of the priority search (the same assignment under
        perturbed ranks). "auto": ``20 * n``, at most 3000, on platforms of at
        most 4 locations (CPU-GPU nodes, where choosing the type is the hard
        part), else 0; at most 10 % of ``time_limit`` in all (2 s without one);
        0: off. On 8-16 single processors it bought nothing and cost the time
        it took (``docs/exact-models.md``).
    time_indexed : bool or "auto"
        When every processor is pooled into one location (identical processors,
        no communication: the STG case) and the data are scaled exactly, ask a
        time-indexed model (:mod:`models._cpsat_time_indexed`) whether a
        schedule of the bound, then of one unit more, ... exists, when the
        model has not proven its incumbent within 10 % of the time left: for
        40 % of the time then left, the model getting the rest from the raised
        bound (without a time limit: for 2 s before the model). Each refutation
        raises the bound, a schedule found is an optimum. "auto" and True are
        the same (nothing happens elsewhere); False: off.
    hint_heuristics : sequence of str
        Registered heuristics tried for the warm start, when registered.
    parameters : mapping, optional
        Extra CP-SAT parameters by name (e.g. ``{"linearization_level": 2}``),
        applied last; lists extend repeated fields such as ``subsolvers``.

    Returns
    -------
    Result
        ``stats`` holds the solver status, resolution, model size, hint source,
        branches, conflicts, time to first solution and the incumbent trace.

    Raises
    ------
    MethodError
        For an invalid option value, data whose sum of costs and delays
        overflows floating point, or more than 50 million (arc, processor,
        processor) delays.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> r = cpsat(load_instance("examples/topcuoglu2002.json"), workers=1, time_limit=20)
    >>> r.status.value, r.makespan, r.lower_bound
    ('optimal', 73, 73)

    Notes
    -----
    Communication of arc ``i -> j``: always ``start_j >= end_i``; then

    * ``"levels"``: for each distinct positive delay ``v`` the two tasks can
      incur, a literal ``f_v`` with ``start_j >= end_i + v`` if ``f_v``, and
      for each location ``m`` of ``j`` the clause ``x_jm -> f_v or (i on a
      location whose delay to m is below v)``. On a fully-connected network this
      is one literal and ``P`` ternary clauses per arc;
    * ``"dest"``: per location ``m`` of ``j``,
      ``start_j >= end_i + sum_l delay(l, m) x_il`` if ``x_jm``;
    * ``"pairs"``: one enforced constraint per pair of locations with a
      positive delay (the straightforward encoding, ``P**2`` per arc).

    Any topological order, serialised, is a valid schedule, so a schedule is
    always returned (the serial one at worst) and the status is ``OPTIMAL``
    or ``FEASIBLE``; a CP-SAT claim of infeasibility would contradict that
    schedule, so its bound is then ignored.
    """
    _check_options(time_limit, workers, relative_gap, horizon, comm, relocate)
    if not (isinstance(time_indexed, bool) or time_indexed == "auto"):
        raise MethodError(f"time_indexed: expected true, false or 'auto', got {time_indexed!r}")
    if problem.communication != "delay":  # ports or links: models/_cpsat_contention.py
        from models._cpsat_contention import solve_contention

        return solve_contention(
            problem, time_limit=time_limit, workers=workers, seed=seed, log=log
        )
    # Bad parameters are refused up front, even when CP-SAT never runs (bound met).
    _apply_parameters(cp_model.CpSolver().parameters, parameters)
    clock = Clock(time_limit)
    if workers is None:
        workers = default_workers()
    seed_value = 0 if seed is None else int(seed)
    n = problem.n_tasks
    stages: dict[str, float] = {}
    mark = [time.perf_counter()]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        stages[stage] = round(stages.get(stage, 0.0) + now - mark[0], 4)
        mark[0] = now

    # ---- locations and data
    entries = len(problem.arc_src) * problem.n_processors**2
    if entries > _MAX_DELAY_ENTRIES:  # the (arcs, P, P) delays would not fit in memory
        raise MethodError(
            f"cpsat: {len(problem.arc_src)} arcs on {problem.n_processors} processors need "
            f"{entries:.3g} communication delays, more than {_MAX_DELAY_ENTRIES:.3g}; "
            "use a heuristic"
        )
    data = scale_data(problem, resolution, limit=scaled_limit(problem))
    res = data.resolution
    loc = processor_locations(problem, pooling=pooling)
    lap("locations")
    # Cheap bounds for the first progress lines; the full one (an LP) comes next.
    lb_quick = max(critical_path_bound(problem), load_bound(problem))

    # ---- warm start: best valid heuristic schedule, re-timed on the scaled data
    need_heuristic = hint or horizon == "heuristic"
    if need_heuristic:

        def report(schedule: Schedule) -> None:
            if callback is not None:
                callback(float(schedule.makespan), lb_quick, clock.elapsed())

        if relocate == "auto":  # pays between processor types; noise or worse on 8-16 processors
            few = len(loc.members) <= _PATH_CUT_LOCATIONS
            moves = min(_RELOCATE_MAX, _RELOCATE_PER_TASK * n) if few else 0
        else:
            moves = relocate
        warm = find_warm_start(
            problem,
            loc,
            data,
            names=hint_heuristics,
            relocate=moves,
            relocate_seconds=2.0 if time_limit is None else 0.1 * float(time_limit),
            symmetry=symmetry,
            target=lb_quick,
            seed=seed_value,
            clock=clock,
            report=report,
            relocate_loc=loc if pooling else None,
        )
    else:  # the straightforward model: only the fallback answer, O(n + e)
        warm = WarmStart("serial", Schedule.from_arrays(problem, *serial_schedule(problem)))
        warm.first_seconds = clock.elapsed()
    lap("warm start")
    foundation, complete = lower_bound_within(problem, clock.left())
    lap("foundation bound")
    # The incumbent already meets the proven bound: nothing is left to search
    # (2 tasks on 1024 processors spent 4 s building a model to prove it).
    met = final_status(problem, warm.schedule.makespan, foundation, data)[0] is Status.OPTIMAL

    common = {
        "foundation": foundation if complete else f"{foundation} (LPs skipped or stopped: time)",
        "foundation_value": foundation,
        "problem": problem,
        "data": data,
        "loc": loc,
        "warm": warm,
        "clock": clock,
        "stages": stages,
        "workers": workers,
        "seed": seed,
        "options": {
            "hint": hint,
            "horizon": horizon,
            "bounds": bounds,
            "placement": placement,
            "load": load,
            "symmetry": symmetry,
            "pooling": pooling,
            "comm": comm,
            "path_cuts": path_cuts,
            "lb_search": lb_search,
            "relocate": relocate,
            "time_indexed": time_indexed,
            "parameters": dict(parameters or {}),
            "relative_gap": relative_gap,
        },
    }
    sb: StaticBounds | None = None
    ladder_in: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the time-indexed ladder's
    if met and need_heuristic:
        return _answer(common, None, foundation, sb, stopped="bound met")
    try:
        clock.check("bounds and cuts")
        # ---- bounds and cuts (first half): horizon, root bound, heads and tails
        mv = new_model(problem, data, loc)  # costs and delays per location, scaled
        cost_l, delay_l, cap = mv.cost, mv.delay, mv.capacity
        if horizon == "heuristic":
            big = warm.makespan
        else:
            big = int(np.where(np.isfinite(cost_l), cost_l, 0).max(axis=1).sum())
            if len(problem.arc_src):
                big += int(delay_l.max(axis=(1, 2)).sum())
        sb = compute_bounds(
            problem,
            cost_l,
            delay_l,
            cap,
            horizon=big,
            foundation=foundation,
            resolution=res,
            bounds=bounds,
            placement=placement,
            clock=clock,
        )
        lap("bounds")
        if time_indexed and need_heuristic and _ladder_applies(loc, data, warm):
            ladder_in = _ladder_input(common, cost_l, sb)  # None: its first model is too large
        if ladder_in is not None and time_limit is None:
            # No limit: a short probe (the easy refutations at the root bound), then
            # the main model until it proves. With a limit the ladder runs after a first
            # look of the main model, which proves most of these instances in well
            # under a second (docs/exact-models.md, "The time-indexed ladder").
            warm, big = _time_indexed_probe(
                common, ladder_in, sb, TI_NO_LIMIT_SECONDS, relative_gap, callback
            )
            lap("time-indexed ladder")
        if need_heuristic and sb.lower:
            root = max(foundation, (sb.lower - data.slack) / res)
            if final_status(problem, warm.schedule.makespan, root, data)[0] is Status.OPTIMAL:
                return _answer(common, None, foundation, sb, stopped="bound met")

        # ---- the model, stage by stage
        hinted = hint and warm.loc is not None
        hint_loc = warm.loc if hinted else None
        mv.horizon = big
        add_variables(mv, sb.head, sb.tail, sb.min_dur, clock)
        lap("variables")
        add_resources(mv, pooling=pooling, clock=clock)
        lap("resources")
        add_precedence_and_communication(mv, problem, comm=comm, hint_loc=hint_loc, clock=clock)
        add_isolation(
            mv,
            problem,
            hint_start=warm.start if hinted else None,
            hint_end=warm.end if hinted else None,
        )
        lap("precedence and communication")
        if symmetry:
            add_symmetry_breaking(mv, hint_loc=hint_loc)
        if path_cuts == "auto":
            path_cuts = len(loc.members) <= _PATH_CUT_LOCATIONS and n <= _PATH_CUT_TASKS
        add_bounds_and_cuts(mv, problem, sb, load=load, path_cuts=bool(path_cuts), clock=clock)
        lap("bounds and cuts")
        if hinted:
            add_hint(mv, warm.loc, warm.start, warm.makespan)
        lap("hint")
        # CP-SAT takes time to load and presolve a model whatever its limit (about
        # a quarter of the building time on 512 processors): not started without it.
        building = sum(stages.get(k, 0.0) for k in _MODEL_STAGES)
        if clock.left() < LOAD_SHARE * building:
            raise OutOfTime("solve")
    except OutOfTime as exc:
        lap(str(exc))
        return _answer(common, None, foundation, sb, stopped=str(exc))

    # ---- solve
    progress = _Progress(
        callback, res, data.slack, foundation, clock.started, float(warm.schedule.makespan)
    )
    ladder_next = ladder_in is not None and time_limit is not None

    def run(seconds: float | None) -> tuple[cp_model.CpSolver, int]:
        return solve_model(
            mv,
            seconds=seconds,
            workers=workers,
            seed=seed,
            log=log,
            relative_gap=relative_gap,
            lb_search=lb_search,
            parameters=parameters,
            progress=progress,
        )

    left = None if time_limit is None else clock.left()
    first = (
        left if not ladder_next or left is None else min(TI_FIRST_SHARE * left, TI_FIRST_SECONDS)
    )
    solver, code = run(first)
    lap("solve")
    if ladder_next and ladder_in is not None and code in (cp_model.FEASIBLE, cp_model.UNKNOWN):
        # The main model's first look did not prove it: the ladder, then the main
        # model again from the ladder's bound for the rest of the time.
        best, lower = int(warm.makespan), sb.lower
        if code == cp_model.FEASIBLE:
            best = min(best, int(round(solver.objective_value)))
            lower = max(lower, math.ceil(solver.best_objective_bound - 1e-6))
            common["first_look"] = (
                extract_schedule(problem, mv, solver),
                (solver.best_objective_bound - data.slack) / res,
            )
        after, stats = _run_ladder(
            common, ladder_in, sb, lower, best, TI_SHARE * clock.left(), relative_gap
        )
        common["ladder_after"] = after
        _merge_ladder_stats(common, stats)
        lap("time-indexed ladder")
        closed = after.schedule is not None or after.lower >= best
        if callback is not None:
            found = after.schedule.makespan if after.schedule is not None else best / res
            callback(float(found), min(after.lower, best) / res, clock.elapsed())
        if not closed and clock.left() > 0.1:
            mv.model.add(mv.makespan >= after.lower)  # every schedule is at least this long
            solver, code = run(clock.left())
            lap("solve")
    return _answer(common, (mv, solver, code, progress), foundation, sb, stopped=None)


def _ladder_applies(loc: Locations, data: ScaledData, warm: WarmStart) -> bool:
    """Whether the time-indexed ladder can run: one pooled location, exact data, a hint."""
    return len(loc.members) == 1 and data.exact and data.slack == 0 and warm.loc is not None


def _ladder_lower(common: dict[str, Any], sb: StaticBounds) -> int:
    """The ladder's first target: the root bound, or the foundation bound scaled up."""
    res = common["data"].resolution
    return max(sb.lower, int(ceil_tol(np.array([common["foundation_value"] * res]))[0][0]))


def _ladder_input(
    common: dict[str, Any], cost_l: np.ndarray, sb: StaticBounds
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The ladder's integer costs, heads and tails; None when its first model is too large.

    Then no time is kept for it.
    """
    cost = cost_l[:, 0].astype(np.int64)
    res = common["data"].resolution
    head, tail = time_indexed_windows(common["problem"], cost, sb.head, sb.tail, res)
    if not fits(common["problem"], cost, head, tail, _ladder_lower(common, sb)):
        return None
    return cost, head, tail


def _run_ladder(
    common: dict[str, Any],
    ladder_in: tuple[np.ndarray, np.ndarray, np.ndarray],
    sb: StaticBounds,
    lower: int,
    upper: int,
    seconds: float,
    relative_gap: float,
) -> tuple[Ladder, dict[str, Any]]:
    """The time-indexed ladder from ``lower`` to ``upper - 1`` (scaled) for ``seconds``.

    Its schedule, if any, is validated (``stats["rejected"]`` otherwise, and
    dropped); a schedule shorter than a refuted target voids every refutation
    (the ladder's ``lower`` falls back to ``sb.lower``).
    """
    problem: Problem = common["problem"]
    res = common["data"].resolution
    cost, head, tail = ladder_in
    ladder = time_indexed_ladder(
        problem,
        cost,
        common["loc"],
        head,
        tail,
        lower,
        upper,
        seconds=seconds,
        workers=int(common["workers"]),
        seed=int(common["seed"] or 0),
        clock=common["clock"],
        relative_gap=relative_gap,
    )
    stats: dict[str, Any] = {"tried": ladder.tried}
    found = ladder.schedule
    if found is not None and float(found.makespan) * res < (ladder.makespan or 0) - 0.5:
        # Shorter than a refuted target: a refutation was false, none of them is a bound.
        ladder.lower = sb.lower
        ladder.stopped = "contradiction: a schedule below a refuted target"
    if found is not None:
        violations = validate(problem, found)
        if violations:  # a bug of the stage: keep the other schedules
            stats["rejected"] = str(violations[0])
            ladder.schedule = None
    stats["stopped"] = ladder.stopped
    stats["bound"] = ladder.lower / res
    if ladder.schedule is not None:
        stats["found"] = ladder.schedule.makespan
    return ladder, stats


def _merge_ladder_stats(common: dict[str, Any], stats: dict[str, Any]) -> None:
    """Add one run's statistics to ``common["time_indexed"]`` (targets in order)."""
    old = common.get("time_indexed", {})
    merged = {**old, **stats, "tried": list(old.get("tried", [])) + list(stats["tried"])}
    common["time_indexed"] = merged


def _time_indexed_probe(
    common: dict[str, Any],
    ladder_in: tuple[np.ndarray, np.ndarray, np.ndarray],
    sb: StaticBounds,
    seconds: float,
    relative_gap: float,
    callback: Callable[[float, float, float], Any] | None,
) -> tuple[WarmStart, int]:
    """Stage *time-indexed ladder*, the probe: raise ``sb.lower``, maybe find the optimum.

    Runs before the model; an optimum found replaces the warm start. Returns the
    warm start and the horizon (its scaled makespan).
    """
    data: ScaledData = common["data"]
    clock: Clock = common["clock"]
    warm: WarmStart = common["warm"]
    res = data.resolution
    lower = _ladder_lower(common, sb)
    ladder, stats = _run_ladder(
        common, ladder_in, sb, lower, int(warm.makespan), seconds, relative_gap
    )
    found, start, cost = ladder.schedule, ladder.start, ladder_in[0]
    if found is not None and start is not None and found.makespan < warm.schedule.makespan:
        warm = WarmStart(
            "time-indexed",
            found,
            warm.errors,
            warm.first_seconds,
            loc=np.zeros(len(cost), dtype=np.int64),
            start=start,
            end=start + cost,
            makespan=int(ladder.makespan or 0),
        )
        common["warm"] = warm
    sb.horizon = int(warm.makespan)
    sb.lower = min(max(sb.lower, ladder.lower), sb.horizon)
    _merge_ladder_stats(common, stats)
    if callback is not None:
        callback(float(warm.schedule.makespan), sb.lower / res, clock.elapsed())
    return warm, sb.horizon


def _answer(
    common: dict[str, Any],
    solved: tuple[ModelVars, cp_model.CpSolver, int, _Progress] | None,
    foundation: float,
    sb: StaticBounds | None,
    *,
    stopped: str | None,
) -> Result:
    """Stage *extraction*: the better of the solver's and the warm start's schedule.

    With its proven bound (foundation, root bound, solver bound, see
    :func:`final_status`) and the statistics. ``solved`` is None when the
    time limit ended the building (``stopped`` names the stage).
    """
    problem: Problem = common["problem"]
    data: ScaledData = common["data"]
    warm: WarmStart = common["warm"]
    stages: dict[str, float] = common["stages"]
    res = data.resolution
    bound = foundation
    if sb is not None and sb.lower:
        bound = max(bound, (sb.lower - data.slack) / res)  # the root bound, scaled
    schedule = warm.schedule
    solver_stats: dict[str, Any] = {"solver_status": "NOT_RUN"}
    if solved is not None:
        mv, solver, code, progress = solved
        began = time.perf_counter()
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            found = extract_schedule(problem, mv, solver)
            if found.makespan <= schedule.makespan:
                schedule = found
        if code != cp_model.INFEASIBLE:  # that would contradict the warm start: a false proof
            bound = max(bound, (solver.best_objective_bound - data.slack) / res)
        stages["extraction"] = round(time.perf_counter() - began, 4)
        solver_stats = {
            "solver_status": solver.status_name(code),
            "objective_scaled": solver.objective_value
            if code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
            else None,
            "bound_scaled": solver.best_objective_bound,
            "branches": solver.num_branches,
            "conflicts": solver.num_conflicts,
            "solver_seconds": solver.wall_time,
            "first_solution_seconds": progress.first_seconds,
            "variables": len(mv.model.proto.variables),
            "constraints": len(mv.model.proto.constraints),
            "trace": progress.trace[-50:],
        }
    first = common.get("first_look")
    if first is not None:  # the main model's first look, before the ladder
        if first[0].makespan < schedule.makespan:
            schedule = first[0]
        bound = max(bound, first[1])
    after: Ladder | None = common.get("ladder_after")
    if after is not None:
        if after.schedule is not None and after.schedule.makespan < schedule.makespan:
            schedule = after.schedule
        bound = max(bound, after.lower / res)  # exact data: no slack
    status, bound = final_status(problem, schedule.makespan, bound, data)
    clock: Clock = common["clock"]
    loc: Locations = common["loc"]
    after_build = ("solve", "extraction")
    stats = {
        **solver_stats,
        "resolution": res,
        "exact_scaling": data.exact,
        "build_seconds": round(sum(v for k, v in stages.items() if k not in after_build), 4),
        "stage_seconds": dict(stages),
        "stopped": stopped,
        "foundation_bound": common["foundation"],
        "hint_seconds": round(warm.first_seconds, 4),
        "locations": len(loc.members),
        "pooled": [len(m) for m in loc.members if len(m) > 1],
        "symmetric_groups": [len(g) for g in loc.symmetric],
        "hint": warm.name,
        "hint_makespan": warm.schedule.makespan,
        "hint_errors": warm.errors,
        "workers": common["workers"],
        "seed": common["seed"],
        "options": common["options"],
    }
    if "time_indexed" in common:
        stats["time_indexed"] = common["time_indexed"]
    return Result("cpsat", status, schedule, schedule.makespan, bound, clock.elapsed(), stats)


cpsat.communication_models = ("delay", "single-port", "contention")  # type: ignore[attr-defined]
