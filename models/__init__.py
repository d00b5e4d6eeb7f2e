"""Exact methods: CP-SAT and MILP formulations, brute force, and islpy ordering spaces.

Each module registers its methods with :func:`exactsched.register` on import."""

import importlib as _importlib
import pkgutil as _pkgutil

# Every public module registers its methods with exactsched on import, so new
# modules need no edit here. Modules whose name starts with "_" are helpers.
for _module in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _module.name.startswith("_"):
        _importlib.import_module(f"{__name__}.{_module.name}")
