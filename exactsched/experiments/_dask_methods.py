"""Methods a script registered, carried to the Dask workers of a sweep.

A method registered outside the project's packages (a user's script, a notebook)
exists only in the process that registered it. Before a sweep submits runs to a
Dask cluster, :func:`ship_methods` registers a worker plugin holding those
methods (each function pickled by value where Dask's cloudpickle can, and the
fingerprint of its code as the client computed it): every worker, including one
that joins or restarts later, registers them on start. The worker then reports the
client's fingerprint for them (:func:`exactsched.experiments.runner.code_of`):
the code it runs *is* the client's, by construction, even where the script's file
is not on the worker's machine. A function that cannot travel (it needs a module
the worker cannot import) leaves the method unknown there, and the sweep stops
with one line saying so.

Imported only on the Dask path (``distributed`` is an optional dependency).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from exactsched.errors import MethodError
from exactsched.experiments.fingerprint import outside_fingerprint
from exactsched.experiments.runner import SHIPPED
from exactsched.registry import get_method

__all__ = ["ScriptMethods", "ship_methods"]


class ScriptMethods(WorkerPlugin):
    """A worker plugin registering methods of a client's script.

    ``payload`` is the cloudpickle of one ``(MethodInfo, fingerprint)``, the
    function pickled by value (its module need not exist on the worker). One
    that cannot be loaded there (it needs a module the worker lacks) leaves that
    method unknown: its runs come back ``unregistered`` and the sweep names it.
    """

    def __init__(self, payload: bytes, name: str) -> None:
        self.payload = payload
        self.name = name  # one per method name (ship_methods)

    def setup(self, worker: Any) -> None:
        import cloudpickle

        from exactsched.registry import _REGISTRY, _load_builtin

        _load_builtin()  # the built-in names first: a script's may not shadow them
        try:
            info, code = cloudpickle.loads(self.payload)
        except Exception:  # noqa: BLE001  (unknown here: the sweep says which)
            return
        own = _REGISTRY.get(info.name)
        if own is not None and not outside_fingerprint([own.func]):
            return  # a method of the packages is never replaced
        # (A script the worker imported itself, as multiprocessing's __mp_main__,
        # registered the same function under another module name: the client's wins.)
        _REGISTRY[info.name] = info
        SHIPPED[info.name] = code


def ship_methods(client: Any, methods: Iterable[str]) -> None:
    """Register on ``client``'s workers the methods of ``methods`` that a script registered.

    Nothing is registered when every method belongs to the project's packages.
    """
    import cloudpickle

    outside = []
    for name in dict.fromkeys(methods):
        info = get_method(name)
        code = outside_fingerprint([info.func])
        if code:
            outside.append((info, code))
    if not outside:
        return
    # By value, also from a script's own module (the worker may not have its file).
    modules = {sys.modules.get(getattr(info.func, "__module__", "") or "") for info, _ in outside}
    registered = set(cloudpickle.list_registry_pickle_by_value())
    added = [m for m in modules if m is not None and m.__name__ not in registered
             and m.__name__ != "__main__"]  # fmt: skip
    for module in added:
        cloudpickle.register_pickle_by_value(module)
    try:
        payloads = []
        for info, code in outside:
            try:
                payloads.append(cloudpickle.dumps((info, code)))
            except Exception as exc:  # noqa: BLE001  (a closure over a lock, a socket...)
                raise MethodError(
                    f"{info.name}: cannot be sent to the Dask workers"
                    f" ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
                ) from None
    finally:
        for module in added:
            cloudpickle.unregister_pickle_by_value(module)
    # One plugin per method name: shipping a method again replaces its plugin, so a
    # worker that restarts registers the version the latest sweep sent (plugins named
    # by contents piled up, and a restart replayed them in their first order).
    for (info, _), payload in zip(outside, payloads, strict=True):
        client.register_plugin(ScriptMethods(payload, f"exactsched-script-method-{info.name}"))
