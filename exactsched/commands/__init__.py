"""Sub-commands of the ``exactsched`` command line beyond the core ones.

Each public module here defines ``add_parsers(sub) -> dict[str, handler]``:
it adds its sub-parsers to the ``argparse`` sub-parser action ``sub`` and
returns the handler of each command it added (``handler(args) -> int``, the
exit status). :mod:`exactsched.cli` finds the modules on start-up, so a new
command needs no edit there. Handlers import what they need lazily, so that
``exactsched --help`` stays fast, and raise :class:`exactsched.InstanceError`,
:class:`exactsched.MethodError` or :class:`exactsched.ScheduleError` for bad
input (one line, exit status 2).
"""

import importlib as _importlib
import pkgutil as _pkgutil
from collections.abc import Callable as _Callable
from types import ModuleType as _ModuleType

__all__ = ["command_modules"]


def command_modules() -> list[_ModuleType]:
    """The public modules of this package, sorted by name."""
    return [
        _importlib.import_module(f"{__name__}.{m.name}")
        for m in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name)
        if not m.name.startswith("_")
    ]


Handler = _Callable[..., int]
