"""DLS: Dynamic Level Scheduling (Sih and Lee 1993), heterogeneous version with the Delta term.

Contract
--------
``dls(problem, *, insertion=False) -> Schedule``, registered as ``dls``. At
every step, over all ready tasks ``t`` and all processors ``q``, compute the
*dynamic level*

    ``DL(t, q) = SL(t) - EST(t, q) + Delta(t, q)``

and place the pair of largest ``DL`` (ties: lowest task index, then lowest
processor index) [1]_, as described for heterogeneous processors by
Topcuoglu et al. [2]_ (sec. 2):

* ``SL(t)`` is the *static level*: the largest sum of execution times along
  a path from ``t`` to an exit task, with each task weighted by its *median*
  execution time over the processors it may use, and no communication (the
  static upward rank ``rank_u^s`` of [2]_ with median weights);
* ``EST(t, q) = max(data-ready time, processor ready time)``: Sih and Lee's
  ``max(DA(t, q), TF(q))``, where data from a predecessor on ``p`` reach
  ``q`` at ``finish + arc_unit * hops[p, q]``;
* ``Delta(t, q) = median cost of t - cost[t, q]`` rewards processors that are
  faster than usual for this task.

Heterogeneous model. Costs are per processor (per type on CPU-GPU
platforms); medians run over the task's allowed processors, and a
processor outside the affinity has ``EST = inf`` hence ``DL = -inf``. The
network's hop counts enter through ``EST`` only, which is how Sih and Lee
account for the interconnect (their ``DA`` term for arbitrary topologies);
link contention is not modelled. Order pairs are precedence without data.
Isolation pairs: placed partners block their interval on every processor
(shared engine :mod:`heuristics.eft`). ``insertion=False`` (default) follows
Sih and Lee's processor-free time ``TF``; ``insertion=True`` lets a task
fill an idle gap.

Cost: the ``EST`` table of the ready tasks is kept exact incrementally
(:class:`heuristics._ready_list.ReadyTable`), ``O(k P)`` numpy work per step
for ``k`` ready tasks; [2]_ gives ``O(v^3 p)`` for the original.

References
----------
.. [1] G. C. Sih, E. A. Lee, "A compile-time scheduling heuristic for
   interconnection-constrained heterogeneous processor architectures", IEEE
   TPDS 4(2), 175-187, 1993. doi:10.1109/71.207593
.. [2] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002, sec. 2 (DLS among the compared algorithms).
"""

from __future__ import annotations

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import batch_schedule
from heuristics.ranking import ranks_from_weights

__all__ = ["dls", "median_cost", "static_level"]


def median_cost(problem: Problem) -> np.ndarray:
    """``(n,)`` median execution time of each task over its allowed processors.

    Examples
    --------
    >>> p = Problem.from_lists([[1, 2, 9], [4, 4, 1]], affinity={1: [0, 1]})
    >>> median_cost(p).tolist()
    [2.0, 4.0]
    """
    return np.nanmedian(np.where(problem.allowed, problem.cost, np.nan), axis=1)


def static_level(problem: Problem) -> np.ndarray:
    """``(n,)`` static levels ``SL``: longest median-cost path to an exit task, no communication.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [1, 1], [3, 5]], [(0, 1, 7), (0, 2, 7)])
    >>> static_level(p).tolist()
    [7.0, 1.0, 4.0]
    """
    return ranks_from_weights(problem, median_cost(problem), np.zeros(len(problem.arc_src)))


@register(
    "dls",
    kind="heuristic",
    description="DLS: ready task-processor pair of largest dynamic level SL - EST + Delta",
    source="Sih and Lee, IEEE TPDS 4(2), 1993; as compared by Topcuoglu et al., TPDS 2002",
)
def dls(problem: Problem, *, insertion: bool = False) -> Schedule:
    """Schedule with dynamic level scheduling.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap (default False: after the processor's
        last task, Sih and Lee's ``TF``).

    Returns
    -------
    Schedule

    Examples
    --------
    ``t0`` has the larger static level (4 against 2) and goes first, to
    ``p1`` where it is faster than its median (Delta = 1.5 beats p0's -1.5);
    ``t1`` then prefers ``p0``, free at once, over waiting for ``p1``.

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[5.5, 2.5], [2, 2]])
    >>> s = dls(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1")], s.makespan
    ([('p1', 0), ('p0', 0)], 2.5)
    >>> validate(p, s)
    []
    """
    level = static_level(problem)
    delta = median_cost(problem)[:, None] - problem.cost  # -inf outside affinity
    # On decimal data a median halves a sum of two costs, so every dynamic level
    # is a multiple of half a grid step: rounded to it, exact ties stay ties.
    grid = time_resolution(problem)
    half_steps = None if grid is None else 2 * grid

    def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
        dl = snap(level[tasks, None] - est + delta[tasks], half_steps)
        row, col = np.unravel_index(int(np.argmax(dl)), dl.shape)
        return int(row), int(col)

    return batch_schedule(problem, pick, insertion=bool(insertion))
