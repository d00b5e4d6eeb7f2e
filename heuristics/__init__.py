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


def _mark_message_aware() -> None:
    """Declare the heuristics that schedule messages on ports and links.

    They place every task through :class:`heuristics.eft.ScheduleBuilder`'s
    data-ready times and commits, which book incoming messages under the
    ``single-port`` and ``contention`` models (:mod:`heuristics._contention`);
    :func:`exactsched.solve` refuses those models for every other method with
    one line.
    """
    from exactsched.registry import _REGISTRY
    from topologies.routing import COMMUNICATION_MODELS

    for name in MESSAGE_AWARE:
        if name in _REGISTRY:
            _REGISTRY[name].func.communication_models = COMMUNICATION_MODELS


MESSAGE_AWARE = (
    "bl-est",
    "bl-est-busy",
    "bl-est-part",
    "bl-macro",
    "cpop",
    "dls",
    "dsc-glb-etf",
    "etf",
    "etf-busy",
    "etf-macro",
    "etf-part",
    "hbmct",
    "heft",
    "heft-lookahead",
    "heft-nc",
    "heft-wm",
    "hoft",
    "hoft-wm",
    "levelized-heft",
    "lmt",
    "max-min",
    "mct",
    "met",
    "mh",
    "min-min",
    "minimal-serial",
    "olb",
    "peft",
    "peft-nc",
    "pets",
    "random-eft",
    "rts",
    "sufferage",
)
"""Registered heuristics that run under every communication model (all of them; hbmct
treats the processors of a group as coupled under single-port and contention)."""

_mark_message_aware()
