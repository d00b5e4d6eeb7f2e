"""Minimal serial: every task on the one processor that runs them all fastest.

Contract
--------
``minimal_serial(problem) -> Schedule``, registered as ``minimal-serial``.
Among the processors every task may use (affinity), take the one with the
least total cost (ties: lowest index) and run all tasks there back to back in
the problem's topological order. Its makespan is the minimal serial time
(MST) of McSweeney [1]_, the yardstick of "failure" and of speedup
(:func:`exactsched.minimal_serial_time`). One processor means no
communication, order pairs follow from the topological order, and isolation
pairs cannot overlap on one processor, so multi-hop networks and isolation
need no special treatment.

References
----------
.. [1] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", PhD continuation report, University of
   Manchester, 2019, sec. 4.1.
"""

from __future__ import annotations

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._tables import tie_values

__all__ = ["minimal_serial"]


@register(
    "minimal-serial",
    kind="heuristic",
    description="All tasks in topological order on the best processor that may run them all",
    source="McSweeney, PhD continuation report, Univ. of Manchester, 2019, sec. 4.1",
)
def minimal_serial(problem: Problem) -> Schedule:
    """Run every task on the single processor of least total cost.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    Schedule
        Makespan equal to :func:`exactsched.minimal_serial_time`.

    Raises
    ------
    MethodError
        If affinity leaves no processor that may run every task.

    Examples
    --------
    >>> from exactsched import load_instance, minimal_serial_time, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = minimal_serial(p)
    >>> s.makespan, minimal_serial_time(p), validate(p, s)
    (127, 127.0, [])
    """
    usable = np.flatnonzero(problem.allowed.all(axis=0))
    if not len(usable):
        raise MethodError("minimal-serial: no processor may run every task (affinity)")
    totals = tie_values(problem, problem.cost[:, usable].sum(axis=0))  # equal decimals tie
    proc = int(usable[np.argmin(totals)])
    order = problem.topological_order
    duration = problem.cost[order, proc]
    start = np.empty(problem.n_tasks)
    start[order] = np.concatenate([[0.0], np.cumsum(duration)[:-1]])
    return Schedule.from_arrays(problem, np.full(problem.n_tasks, proc), start)
