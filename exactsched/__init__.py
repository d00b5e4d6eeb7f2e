"""exactsched: optimal and heuristic schedules of task graphs on networked processors.

The public API is re-exported here; the ``topologies``, ``models`` and
``heuristics`` packages hold networks, exact formulations and listing
heuristics. Data flows one way: instance -> :class:`Problem` -> method ->
:class:`Result` / :class:`Schedule` -> :func:`validate`, metrics, reports.

Examples
--------
>>> import exactsched
>>> problem = exactsched.load_instance("examples/topcuoglu2002.json")
>>> result = exactsched.solve(problem, "heft")
>>> result.makespan, exactsched.validate(problem, result.schedule)
(80, [])
"""

from exactsched.bounds import lower_bound, lower_bounds
from exactsched.errors import (
    InstanceError,
    InstanceWarning,
    InvalidScheduleError,
    MethodError,
    ScheduleError,
)
from exactsched.instance import load_instance, parse_instance
from exactsched.metrics import (
    failed,
    minimal_serial_time,
    schedule_length_ratio,
    slr_cp_min,
    speedup,
)
from exactsched.problem import Problem
from exactsched.registry import MethodInfo, available_methods, get_method, register, solve
from exactsched.result import Result, Status
from exactsched.schedule import Placement, Schedule, load_schedule
from exactsched.validate import assert_valid, validate
from exactsched.workloads.loader import load_problem

__version__ = "0.1.0"

__all__ = [
    "InstanceError",
    "InstanceWarning",
    "InvalidScheduleError",
    "MethodError",
    "MethodInfo",
    "Placement",
    "Problem",
    "Result",
    "Schedule",
    "ScheduleError",
    "Status",
    "assert_valid",
    "available_methods",
    "failed",
    "get_method",
    "load_instance",
    "load_problem",
    "load_schedule",
    "lower_bound",
    "lower_bounds",
    "minimal_serial_time",
    "parse_instance",
    "register",
    "schedule_length_ratio",
    "slr_cp_min",
    "solve",
    "speedup",
    "validate",
]

# Task-ordering spaces (models.orderings, after Kong 2017), imported on first use so
# that ``import exactsched`` does not load the exact-model packages.
_ORDERINGS = (
    "BestOrdering",
    "best_ordering",
    "best_priority_list",
    "count_legal",
    "isl_set",
    "isl_text",
    "iter_orderings",
    "ordering_costs",
    "ordering_counts",
    "ordering_schedule",
    "priority_list_gap",
    "promote_isolation",
)
# Studies (exactsched.experiments) and certification (models.certify), also lazily.
_EXPERIMENTS = ("run_sweep", "load_rows", "summarise", "to_dataframe")
_CERTIFY = ("certify", "agree")
__all__ += _ORDERINGS + _EXPERIMENTS + _CERTIFY


def __getattr__(name: str):
    if name in _ORDERINGS:
        from models import orderings

        return getattr(orderings, name)
    if name in _EXPERIMENTS:
        from exactsched import experiments

        return getattr(experiments, name)
    if name in _CERTIFY:
        from models import certify

        return getattr(certify, name)
    raise AttributeError(f"module 'exactsched' has no attribute {name!r}")
