"""Sizes exactsched refuses up front, in one place.

Contract
--------
An instance, platform or generator request larger than these limits is refused
before anything is allocated, with one line that gives the size it would have
had and the limit (:class:`~exactsched.errors.InstanceError` for an instance or
platform, :class:`~exactsched.errors.MethodError` for a generator request). The
limits are far above the instances the project studies (Cholesky ``N = 50`` has
22,100 tasks; the largest preset, summit, has 50 processors) and below what a machine
with a few GB of memory can hold:

* :data:`MAX_TASKS` tasks and :data:`MAX_EDGES` edges per instance;
* :data:`MAX_PROCESSORS` processors per platform, so the dense hop matrix has at
  most :data:`MAX_HOP_CELLS` cells (128 MiB as float64);
* :data:`MAX_COST_CELLS` cells of the task x processor cost matrix;
* :data:`MAX_INSTANCES` instances per ``exactsched generate --count``.

Examples
--------
>>> check_size(4096, MAX_PROCESSORS, "processors", "platform 'mesh:64x64'")
4096
>>> check_size(10**11, MAX_PROCESSORS, "processors", "here")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
exactsched.errors.InstanceError: here: 100,000,000,000 processors, more than the limit of 4,096 ...
"""

from __future__ import annotations

import os

from exactsched.errors import InstanceError

__all__ = [
    "MAX_TASKS",
    "MAX_EDGES",
    "MAX_PROCESSORS",
    "MAX_HOP_CELLS",
    "MAX_COST_CELLS",
    "MAX_INSTANCES",
    "check_size",
    "default_workers",
]

#: Tasks per instance.
MAX_TASKS = 1_000_000
#: Edges (data dependencies) per instance.
MAX_EDGES = 20_000_000
#: Processors per platform.
MAX_PROCESSORS = 4096
#: Cells of the dense processor x processor hop matrix (``MAX_PROCESSORS ** 2``).
MAX_HOP_CELLS = MAX_PROCESSORS**2
#: Cells of the task x processor cost matrix (800 MB as float64).
MAX_COST_CELLS = 100_000_000
#: Instances one ``exactsched generate --count`` call writes.
MAX_INSTANCES = 100_000

# Limit value -> its name here (the values are distinct), for the messages.
_NAMES = {
    MAX_TASKS: "MAX_TASKS",
    MAX_EDGES: "MAX_EDGES",
    MAX_PROCESSORS: "MAX_PROCESSORS",
    MAX_HOP_CELLS: "MAX_HOP_CELLS",
    MAX_COST_CELLS: "MAX_COST_CELLS",
    MAX_INSTANCES: "MAX_INSTANCES",
}


def check_size(
    value: int, limit: int, what: str, where: str, error: type[ValueError] = InstanceError
) -> int:
    """``value`` if it is at most ``limit``, else one line naming ``where`` and both sizes.

    Parameters
    ----------
    value : int
        The size the request would have (tasks, processors, ...).
    limit : int
        One of this module's limits.
    what : str
        The unit, plural (``"tasks"``).
    where : str
        What is at fault (``"--tiles 99999999"``, ``"platform 'mesh:99999x99999'"``).
    error : type
        The exception class to raise (default :class:`InstanceError`).
    """
    if value > limit:
        name = _NAMES.get(limit)
        source = f" (exactsched.limits.{name})" if name else ""
        raise error(f"{where}: {value:,} {what}, more than the limit of {limit:,}{source}")
    return value


def default_workers() -> int:
    """Solver threads when a call gives none: the machine's cores, at most 8.

    Used by ``cpsat`` and by the certification's witnesses, so both run on the
    same number of threads.

    Examples
    --------
    >>> 1 <= default_workers() <= 8
    True
    """
    return max(1, min(8, os.cpu_count() or 1))
