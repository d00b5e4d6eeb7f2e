"""The Dask path of a sweep: the same runs on a ``distributed`` cluster.

Runs are submitted as tasks of :func:`~exactsched.experiments.runner.execute`;
the client (this process) receives each row as it finishes and writes it to the
database, exactly as with the local pool, so the database, resume and reports
do not depend on where the runs ran. A run whose worker dies (Dask retries it on
another worker, then gives up with ``KilledWorker``) or that raises in transit is
recorded as an ``error`` row.

Time limits: exact methods get the sweep's time limit as with the local pool,
but Dask cannot stop a running Python thread, so the hard deadline of the local
pool (killing a run that overruns) does not apply here.
The workers need the same exactsched installation as the client (import path and
version).

``distributed`` is an optional dependency (``pip install "exactsched[dask]"``).
On an HPC cluster start the workers with ``dask-jobqueue`` (see docs/experiments.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from exactsched.errors import MethodError
from exactsched.experiments.runner import Task, error_row, execute

__all__ = ["run_on_dask", "connect"]


def connect(address: Any, processes: int | None = None) -> tuple[Any, Callable[[], None]]:
    """A ``distributed.Client`` for ``address`` and a function closing what was opened.

    ``address`` is a scheduler address (``tcp://host:8786``), ``"local"`` (a
    LocalCluster of ``processes`` single-threaded workers, in threads) or a client.

    Raises
    ------
    MethodError
        If ``distributed`` is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MethodError(
            '--dask: the distributed package is not installed (pip install "exactsched[dask]")'
        ) from None
    if not isinstance(address, str):
        return address, lambda: None
    if address == "local":
        cluster = LocalCluster(
            n_workers=processes or 1,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
        )
        client = Client(cluster)

        def close() -> None:
            client.close()
            cluster.close()

        return client, close
    from distributed.comm.addressing import get_address_host_port

    # Check the address before Client(): a Client whose constructor fails on a malformed
    # address can deadlock later, when the garbage collector closes it.
    try:
        host, port = get_address_host_port(address)
    except ValueError as exc:  # "missing port number in address 'garbage'", ...
        raise MethodError(
            f"--dask {address}: not a scheduler address ({exc}); give tcp://HOST:PORT or local"
        ) from None
    # A host that does not resolve fails at once here; Client() would retry for 30 s.
    import socket

    try:
        socket.getaddrinfo(host, port)
    except (OSError, UnicodeError) as exc:
        raise MethodError(f"--dask {address}: unknown host {host!r} ({exc})") from None
    try:
        client = Client(address, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise MethodError(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    return client, client.close


def run_on_dask(
    tasks: Sequence[tuple[Any, Task]],
    on_result: Callable[[Any, dict[str, Any]], None],
    address: Any,
    *,
    processes: int | None = None,
    claim: Callable[[Any], bool] | None = None,
) -> None:
    """Run ``tasks`` on a Dask cluster; ``on_result(tid, row)`` in this process as each ends.

    At most ``window`` runs are submitted at a time (four per worker thread), so
    the scheduler holds a bounded number of instance documents however large the
    sweep; a new run is submitted as each one finishes. ``claim(tid)``, if
    given, is asked just before a run is submitted; a run it refuses is skipped.
    """
    if not tasks:
        return
    from distributed import as_completed

    client, close = connect(address, processes)
    try:
        threads = sum(client.nthreads().values()) or 1
        window = max(8, 4 * threads)
        queue = iter(tasks)
        futures: dict[Any, Any] = {}

        def submit_next() -> Any:
            item = next(queue, None)
            while item is not None and claim is not None and not claim(item[0]):
                item = next(queue, None)
            if item is None:
                return None
            future = client.submit(execute, item[1], pure=False)
            futures[future] = item[0]
            return future

        first = [f for f in (submit_next() for _ in range(window)) if f is not None]
        if not first:
            return
        running = as_completed(first)
        for future in running:
            refill = submit_next()
            if refill is not None:
                running.add(refill)
            tid = futures.pop(future)
            try:
                row = future.result()
            except Exception as exc:  # noqa: BLE001  (KilledWorker, cancelled, ...)
                message = f"dask: {type(exc).__name__}: {' '.join(str(exc).split())}"
                row = error_row("error", message[:500])
            on_result(tid, row)
    finally:
        close()
