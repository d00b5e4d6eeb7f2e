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

import importlib
import sys
import types

from exactsched import _sources

# What the sources were when this process imported them: the fingerprint of its
# studies' rows, and what a study compares with (exactsched/_sources.py).
_sources.record()

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (0.05 s)

__version__ = "0.1.0"

# Every public name and the module that defines it. They are imported on first use,
# so that ``import exactsched`` (and the command line's start, where Ctrl-C must end
# quietly) does not wait for numpy and the packages behind the API.
_PUBLIC = {
    "exactsched.bounds": ("lower_bound", "lower_bounds"),
    "exactsched.errors": (
        "InstanceError",
        "InstanceWarning",
        "InvalidScheduleError",
        "MethodError",
        "ScheduleError",
    ),
    "exactsched.instance": ("load_instance", "parse_instance"),
    "exactsched.metrics": (
        "failed",
        "minimal_serial_time",
        "schedule_length_ratio",
        "slr_cp_min",
        "speedup",
    ),
    "exactsched.problem": ("Problem",),
    "exactsched.registry": ("MethodInfo", "available_methods", "get_method", "register", "solve"),
    "exactsched.result": ("Result", "Status"),
    "exactsched.schedule": ("Placement", "Schedule", "load_schedule"),
    "exactsched.validate": ("assert_valid", "validate"),
    "exactsched.workloads.loader": ("load_problem",),
    # Task-ordering spaces (after Kong 2017), studies and certification.
    "models.orderings": (
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
    ),
    "exactsched.experiments": ("run_sweep", "load_rows", "summarise", "to_dataframe"),
    "models.certify": ("certify", "agree"),
}
_MODULE_OF = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = sorted(_MODULE_OF)

if TYPE_CHECKING:  # what static tools see; at run time the names come from __getattr__
    from exactsched.bounds import lower_bound, lower_bounds
    from exactsched.errors import (
        InstanceError,
        InstanceWarning,
        InvalidScheduleError,
        MethodError,
        ScheduleError,
    )
    from exactsched.experiments import load_rows, run_sweep, summarise, to_dataframe
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
    from models.certify import agree, certify
    from models.orderings import (
        BestOrdering,
        best_ordering,
        best_priority_list,
        count_legal,
        isl_set,
        isl_text,
        iter_orderings,
        ordering_costs,
        ordering_counts,
        ordering_schedule,
        priority_list_gap,
        promote_isolation,
    )


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'exactsched' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """This package, whose public function ``validate`` shares its name with a module.

    Loading ``exactsched.validate`` binds the module to the package's name
    ``validate``; the function must stay there, as the eager imports once made it.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _MODULE_OF and isinstance(value, types.ModuleType):
            return  # a submodule keeps its place in sys.modules only
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # By name, as pickle treats modules: a function pickled by value (a notebook's,
        # sent to a Dask worker) may refer to the package.
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _Package
