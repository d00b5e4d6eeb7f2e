"""Listing heuristics, one algorithm per module.

They share one insertion-based earliest-finish-time primitive
(:mod:`heuristics.eft`) and one ranking module (:mod:`heuristics.ranking`),
and register themselves with :func:`exactsched.register` on import."""

import importlib as _importlib
import pkgutil as _pkgutil

# Every public module registers its methods with exactsched on import, so new
# modules need no edit here. Modules whose name starts with "_" are helpers.
for _module in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _module.name.startswith("_"):
        _importlib.import_module(f"{__name__}.{_module.name}")
