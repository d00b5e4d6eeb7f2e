"""HEFT with lookahead: choose a task's processor by the finish times of its children.

Contract
--------
``heft_lookahead(problem, *, variant="max", swap=False, ranking="mean",
child_sampling=None, n_children=1, proc_samples=None, insertion=True,
seed=0) -> Schedule`` (method ``heft-lookahead``) implements the lookahead
variant of HEFT of Bittencourt, Sakellariou and Madeira [1]_ as described in
sec. 2.3.3 and 4.5 of McSweeney's report [2]_ (where it is called HEFT-L).

Tasks are taken in HEFT's order (non-increasing upward rank, a topological
list, see :func:`heuristics.hbmct.priority_order`). For the task ``t`` at the
head of the list and every processor ``p`` it may run on, ``t`` is placed
tentatively on ``p`` (at its insertion-based earliest start) and each child
``c`` of ``t`` gets an estimated finish time ``EFT(c)``: the least
insertion-based finish time over the processors, as if ``c`` were placed
next by HEFT, counting only the predecessors of ``c`` already placed (the
paper's optimistic assumption). ``t`` then goes to the processor that
minimises

* ``variant="max"``: ``max_c EFT(c)``;
* ``variant="weighted"``: ``sum_c rank_u(c) EFT(c) / sum_c rank_u(c)`` (the
  plain mean when every child has rank 0).

A task without children goes to its least-EFT processor, as in HEFT. Ties go
to the processor of smaller EFT of ``t`` itself, then the lower index.

``swap=True`` adds the paper's *priority list change*: if the second task of
the list is independent of the first (it is ready), both are evaluated and
the one whose best lookahead value is smaller is scheduled first (for a
childless task the value is its own least EFT); the other stays at the head.
``variant`` and ``swap`` give the paper's four variants.

Cheap variants of report sec. 4.5 (both seeded by ``seed``):

* ``child_sampling="random"`` looks at ``n_children`` children drawn
  uniformly (without replacement), ``"priority"`` at the ``n_children``
  children of highest upward rank (ties: lower index);
* ``proc_samples=k`` estimates each child's finish time only on ``k``
  processors of each processor type drawn from the child's allowed
  processors (all of a type when it has ``k`` or fewer); "one random CPU core
  and one random GPU" is ``k=1`` on a CPU-GPU node. One draw per (task,
  child) serves all candidate processors of the task, so they are compared
  on the same sample. With our vectorised engine a child's finish times
  cost the same on all processors as on a few, so this variant changes the
  estimate rather than the run time.

Generalisation to the networked model (the paper is silent on it):

* children are the successors through any arc, data edge or order pair;
  an order pair delays its child by the finish only;
* every time is the engine's (:class:`heuristics.eft.ScheduleBuilder`):
  multi-hop communication ``arc_unit * hops[p, q]``, insertion, affinity
  (``inf`` outside it), and placed isolation partners blocking their interval
  on every processor, both for ``t`` and when estimating its children (so a
  child that is an isolation partner of ``t`` is estimated around ``t``);
* children are estimated independently of each other against the schedule
  with ``t`` added, as in McSweeney's implementation; estimates are never
  placed.

Complexity: for each task, one builder copy per allowed processor plus one
vectorised finish-time query per (processor, child), so ``O(n P (n + P G) +
e P^2 G)`` overall with ``G`` the number of idle gaps per processor, against
HEFT's ``O(e P G)``: the extra factor ``P`` times the mean number of
children is the one the report measures (sec. 4.5). ``swap=True`` at most
doubles it; ``child_sampling`` replaces the number of children by
``n_children``.

References
----------
.. [1] L. F. Bittencourt, R. Sakellariou, E. R. M. Madeira, "DAG scheduling
   using a lookahead variant of the Heterogeneous Earliest Finish Time
   algorithm", 18th Euromicro PDP, 27-34, 2010. doi:10.1109/PDP.2010.56
.. [2] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", continuation report, University of
   Manchester, 2019, sec. 2.3.3 and 4.5.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np

from exactsched._time_grid import snap
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, Range, register
from exactsched.schedule import Schedule
from heuristics.eft import ScheduleBuilder
from heuristics.hbmct import priority_order
from heuristics.ranking import Weighting, upward_rank

__all__ = ["VARIANTS", "CHILD_SAMPLING", "lookahead_values", "heft_lookahead"]

VARIANTS: tuple[str, ...] = ("max", "weighted")
CHILD_SAMPLING: tuple[str, ...] = ("random", "priority")
_Count = Annotated[int, Range(1)]


class _Lookahead:
    """Per-run data and the evaluation of one task on every processor."""

    def __init__(
        self,
        problem: Problem,
        rank: np.ndarray,
        variant: str,
        child_sampling: str | None,
        n_children: int,
        proc_samples: int | None,
        rng: np.random.Generator,
    ) -> None:
        self.problem = problem
        self.rank = rank
        self.variant = variant
        self.child_sampling = child_sampling
        self.n_children = n_children
        self.proc_samples = proc_samples
        self.rng = rng
        self.hops = np.asarray(problem.hops, dtype=float)
        types = np.asarray(problem.proc_types)
        self.type_masks = [types == t for t in dict.fromkeys(problem.proc_types)]

    def children(self, task: int) -> np.ndarray:
        kids = np.unique(self.problem.successors(task))
        k = self.n_children
        if self.child_sampling is None or len(kids) <= k:
            return kids
        if self.child_sampling == "random":
            return np.sort(self.rng.choice(kids, size=k, replace=False))
        by_rank = kids[np.lexsort((kids, -self.rank[kids]))]
        return np.sort(by_rank[:k])

    def proc_mask(self, child: int) -> np.ndarray:
        """Processors on which ``child`` is estimated (its sample, or all)."""
        allowed = self.problem.allowed[child]
        if self.proc_samples is None:
            return allowed
        mask = np.zeros_like(allowed)
        for of_type in self.type_masks:
            pool = np.flatnonzero(allowed & of_type)
            if len(pool) > self.proc_samples:
                pool = self.rng.choice(pool, size=self.proc_samples, replace=False)
            mask[pool] = True
        return mask

    def evaluate(self, builder: ScheduleBuilder, task: int) -> tuple[np.ndarray, np.ndarray]:
        """``(value, est)``: the lookahead value and earliest start of ``task`` per processor.

        ``value`` is ``inf`` off the task's affinity; for a childless task it is
        the task's own EFT.
        """
        problem = self.problem
        est, fin = builder.eft(task)
        kids = self.children(task)
        if len(kids) == 0:
            return fin, est
        cost, grid = problem.cost, builder._s.grid  # decimal data: times on the grid
        # Per child: data ready from its placed parents other than `task`, the
        # unit delay of the arc from `task`, and its processor sample.
        base_ready, unit, masks = [], [], []
        for c in kids.tolist():
            a, z = problem.pred_ptr[c], problem.pred_ptr[c + 1]
            arcs = problem.pred_arcs[a:z]
            src = problem.arc_src[arcs]
            where = builder.proc[src]
            other = (where >= 0) & (src != task)
            ready = np.zeros(problem.n_processors)
            if other.any():
                arr = builder.finish[src[other], None] + (
                    problem.arc_unit[arcs[other], None] * self.hops[where[other]]
                )
                ready = snap(arr.max(axis=0), grid)
            base_ready.append(ready)
            unit.append(float(problem.arc_unit[arcs[src == task]].max()))
            masks.append(self.proc_mask(c))
        if self.variant == "weighted":
            w = self.rank[kids]
            w = w / w.sum() if w.sum() > 0 else np.full(len(kids), 1.0 / len(kids))
        value = np.full(problem.n_processors, np.inf)
        for p in np.flatnonzero(np.isfinite(fin)).tolist():
            trial = builder.copy()
            trial.place(task, p, start=float(est[p]))
            kid_fin = np.empty(len(kids))
            for k, c in enumerate(kids.tolist()):
                ready = np.maximum(base_ready[k], snap(fin[p] + unit[k] * self.hops[p], grid))
                c_est = trial.earliest_start(c, ready)
                kid_fin[k] = np.where(masks[k], snap(c_est + cost[c], grid), np.inf).min()
            value[p] = kid_fin.max() if self.variant == "max" else float(w @ kid_fin)
        return value, est


def _choose(
    value: np.ndarray, est: np.ndarray, cost: np.ndarray, grid: float | None = None
) -> int:
    """Least value, ties to the smaller own finish time (on decimal data on the grid of
    ``grid``, so exact ties stay ties), then the lower index."""
    fin = snap(est + cost, grid)
    idx = np.arange(len(value))
    return int(np.lexsort((idx, fin, value))[0])


def lookahead_values(
    problem: Problem,
    builder: ScheduleBuilder,
    task: int,
    *,
    variant: Annotated[str, OneOf(VARIANTS)] = "max",
    ranking: Weighting = "mean",
) -> np.ndarray:
    """Lookahead value of placing ``task`` on each processor, given a partial schedule.

    Parameters
    ----------
    problem : Problem
    builder : ScheduleBuilder
        Partial schedule in which every predecessor of ``task`` is placed; it
        is not modified.
    task : int
    variant : {"max", "weighted"}
        Aggregate of the children's estimated finish times.
    ranking : str
        Weighting of the upward ranks used by ``"weighted"``.

    Returns
    -------
    numpy.ndarray
        ``(P,)`` values (``inf`` off the task's affinity); the task's own EFT
        when it has no children.

    Raises
    ------
    MethodError
        For an unknown variant or weighting.

    Examples
    --------
    Task 0 is fast on p1, but its child runs only on p0 and needs 10 units of
    data: placing it on p0 finishes the child at 4 rather than 13.

    >>> p = Problem.from_lists([[2, 1], [2, 9]], [(0, 1, 10)], affinity={1: [0]})
    >>> b = ScheduleBuilder(p)
    >>> b.eft(0)[1].tolist(), lookahead_values(p, b, 0).tolist()
    ([2.0, 1.0], [4.0, 13.0])
    """
    _check(variant, None, 1, None)
    helper = _Lookahead(
        problem, upward_rank(problem, ranking), variant, None, 1, None, np.random.default_rng(0)
    )
    return helper.evaluate(builder, task)[0]


def _check(
    variant: str, child_sampling: str | None, n_children: int, proc_samples: int | None
) -> None:
    if variant not in VARIANTS:
        raise MethodError(f"variant: must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if child_sampling is not None and child_sampling not in CHILD_SAMPLING:
        raise MethodError(
            f"child_sampling: must be one of {', '.join(CHILD_SAMPLING)} or None, "
            f"not {child_sampling!r}"
        )
    if isinstance(n_children, bool) or not isinstance(n_children, int | np.integer):
        raise MethodError(f"n_children: must be a positive integer, not {n_children!r}")
    if n_children < 1:
        raise MethodError(f"n_children: must be a positive integer, not {n_children!r}")
    if proc_samples is not None and (
        isinstance(proc_samples, bool)
        or not isinstance(proc_samples, int | np.integer)
        or proc_samples < 1
    ):
        raise MethodError(
            f"proc_samples: must be a positive integer or None, not {proc_samples!r}"
        )


@register(
    "heft-lookahead",
    kind="heuristic",
    description="HEFT choosing each processor by its children's estimated finish times",
    source="Bittencourt, Sakellariou and Madeira, Euromicro PDP 2010",
)
def heft_lookahead(
    problem: Problem,
    *,
    variant: Annotated[str, OneOf(VARIANTS)] = "max",
    swap: bool = False,
    ranking: Weighting = "mean",
    child_sampling: Annotated[str, OneOf(CHILD_SAMPLING)] | None = None,
    n_children: _Count = 1,
    proc_samples: _Count | None = None,
    insertion: bool = True,
    seed: int | np.random.Generator | None = 0,
) -> Schedule:
    """HEFT with one-step lookahead over each task's children.

    Parameters
    ----------
    problem : Problem
    variant : {"max", "weighted"}
        Minimise the largest estimated finish time of the children (default)
        or their upward-rank-weighted mean.
    swap : bool
        The paper's priority list change: schedule the second task of the list
        first when it is independent of the first and its lookahead value is
        smaller (default False).
    ranking : str
        Weighting of the upward rank (:data:`heuristics.ranking.WEIGHTINGS`),
        used for the order and for ``"weighted"``; default ``"mean"``.
    child_sampling : {None, "random", "priority"}
        Look at all children (default), ``n_children`` random ones, or the
        ``n_children`` of highest rank (report sec. 4.5).
    n_children : int
        Children looked at when sampling (default 1).
    proc_samples : int, optional
        Estimate children on this many random processors of each type only
        (report sec. 4.5); default all.
    insertion : bool
        Insertion-based placement (default True).
    seed : int, numpy.random.Generator or None
        Seed of the sampling variants (default 0, so runs repeat; None draws
        fresh entropy); the other variants ignore it.

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown variant, sampling rule or weighting, or a bad count.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = heft_lookahead(p)
    >>> s.makespan, validate(p, s)
    (81, [])
    >>> heft_lookahead(p, variant="weighted").makespan
    76

    Notes
    -----
    See the module docstring for the algorithm, the generalisation to our
    model and the complexity, and :func:`lookahead_values` for one step.

    References
    ----------
    .. [1] Bittencourt, Sakellariou, Madeira, Euromicro PDP 2010.
    .. [2] McSweeney, continuation report, 2019, sec. 2.3.3 and 4.5.
    """
    _check(variant, child_sampling, n_children, proc_samples)
    rank = upward_rank(problem, ranking)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    helper = _Lookahead(problem, rank, variant, child_sampling, n_children, proc_samples, rng)
    builder = ScheduleBuilder(problem, insertion=insertion)
    cost = problem.cost
    pending = priority_order(problem, rank).tolist()
    while pending:
        first = pending[0]
        value, est = helper.evaluate(builder, first)
        p = _choose(value, est, cost[first], builder._s.grid)
        chosen = 0
        if swap and len(pending) > 1:
            second = pending[1]
            # The list is topological, so `second` is independent of `first`
            # exactly when all its predecessors are already placed.
            if (builder.proc[problem.predecessors(second)] >= 0).all():
                value2, est2 = helper.evaluate(builder, second)
                q = _choose(value2, est2, cost[second], builder._s.grid)
                if value2[q] < value[p]:
                    chosen, p, est = 1, q, est2
        task = pending.pop(chosen)
        builder.place(task, p, start=float(est[p]))
    return builder.to_schedule()
