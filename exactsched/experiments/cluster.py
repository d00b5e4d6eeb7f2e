"""The Dask path of a sweep: the same runs on a ``distributed`` cluster.

Runs are submitted as tasks of :func:`~exactsched.experiments.runner.execute`;
the client (this process) receives each row as it finishes and writes it to the
database, exactly as with the local pool, so the database, resume and reports
do not depend on where the runs ran. A run that fails on the cluster (its worker
dies: Dask retries it on another worker, then gives up with ``KilledWorker``) is
recorded as an ``error`` row. Losing the scheduler (a cancelled future, a closed
connection or client) is no result of the runs in flight: nothing is stored for
them, their claims stay, and the sweep stops with one :class:`MethodError` naming
the scheduler, so ``results`` shows an interrupted study and the same command
runs them again.

Time limits: exact methods get the sweep's time limit as with the local pool,
but Dask cannot stop a running Python thread, so the hard deadline of the local
pool (killing a run that overruns) does not apply here.
The workers need the same exactsched installation as the client (import path and
version): each row carries the code that computed it
(:func:`~exactsched.experiments.runner.code_of`), and a row from other code (a
worker started before an edit) or from a worker that does not know the method
stops the sweep with one line, nothing stored for it. Methods a script registered
travel to the workers with the sweep (:mod:`~exactsched.experiments._dask_methods`).

``distributed`` is an optional dependency (``pip install "exactsched[dask]"``).
On an HPC cluster start the workers with ``dask-jobqueue`` (see docs/experiments.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from exactsched.errors import MethodError
from exactsched.experiments.runner import Task, error_row, execute

__all__ = ["run_on_dask", "connect", "check_address"]


def connect(address: Any, processes: int | None = None) -> tuple[Any, Callable[[], None]]:
    """A ``distributed.Client`` for ``address`` and a function closing what was opened.

    ``address`` is a scheduler address (``tcp://host:8786``), ``"local"`` (a
    LocalCluster of ``processes`` single-threaded worker processes: a run that
    crashes its process is an ``error`` row, as on a real cluster, instead of
    taking the sweep down with it) or a client.

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
        try:
            with _silent("distributed"):  # its own tracebacks: the error below says it
                cluster = LocalCluster(
                    n_workers=processes or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
        except Exception as exc:  # noqa: BLE001  (a worker process that did not start)
            raise MethodError(
                "--dask local: the worker processes did not start"
                f" ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); a script that"
                " runs a sweep on dask='local' needs `if __name__ == \"__main__\":` around"
                " it, as any program whose processes start by spawn"
            ) from None
        client = Client(cluster)

        def close() -> None:
            client.close()
            cluster.close()

        return client, close
    check_address(address)
    try:
        client = Client(address, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise MethodError(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    except Exception as exc:  # noqa: BLE001  (tls:// without a security context, ...)
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise MethodError(f"--dask {address}: cannot connect ({detail})") from None
    return client, client.close


def check_address(address: str) -> None:
    """Refuse a scheduler address that is malformed, unknown or where no scheduler
    speaks, in one line (a sweep asks before it creates its database).

    Raises
    ------
    MethodError
        Naming the address and what is wrong with it.
    """
    try:
        from distributed.comm.addressing import get_address_host_port
    except ImportError:
        raise MethodError(
            '--dask: the distributed package is not installed (pip install "exactsched[dask]")'
        ) from None

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
    if "://" not in address or address.startswith("tcp://"):
        _check_it_answers(address, host, port)


#: Seconds a scheduler has to send its handshake once connected.
HANDSHAKE_SECONDS = 10.0


def _check_it_answers(address: str, host: str, port: int) -> None:
    """Refuse a TCP address where no Dask scheduler speaks.

    A Dask listener writes its handshake as soon as a connection is accepted;
    ``Client()`` waited forever on a port where something else listens (a web
    server waits for a request) or nothing answers (an outside audit).
    """
    import socket

    try:
        with socket.create_connection((host, port), timeout=HANDSHAKE_SECONDS) as sock:
            sock.settimeout(HANDSHAKE_SECONDS)
            first = sock.recv(1)
    except TimeoutError:
        first = b""
    except OSError as exc:
        raise MethodError(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    if not first:
        raise MethodError(
            f"--dask {address}: no Dask scheduler answered within {HANDSHAKE_SECONDS:g} s"
            " (something else listens there, or nothing that speaks)"
        )


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

    Raises
    ------
    MethodError
        If the connection to the scheduler is lost (see the module's notes):
        ``on_result`` is not called for the runs in flight.
    """
    if not tasks:
        return
    from distributed import as_completed

    client, close = connect(address, processes)
    where = address if isinstance(address, str) else _scheduler_address(client)
    lost = False
    try:
        with _connection(where, lambda: 0):
            from exactsched.experiments._dask_methods import ship_methods

            ship_methods(client, (task.method for _, task in tasks))
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
            # A claimed run the closed client cannot submit keeps its claim: not done.
            with _connection(where, lambda: len(futures) + 1):
                future = client.submit(execute, item[1], pure=False)
            futures[future] = item[0]
            return future

        first = [f for f in (submit_next() for _ in range(window)) if f is not None]
        if not first:
            return
        running = as_completed(first)
        for future in running:
            # The row first: a lost connection is found before another run is claimed.
            with _connection(where, lambda: len(futures)):
                row = _row(future)
            on_result(futures.pop(future), row)
            refill = submit_next()
            if refill is not None:
                running.add(refill)
    except MethodError:
        lost = True
        raise
    finally:
        if lost:
            # The client, still reconnecting, logs tracebacks as it closes: the
            # error raised says what happened, in one line.
            with _silent("distributed"), contextlib.suppress(*_transport_errors()):
                close()
        else:
            close()


def _row(future: Any) -> dict[str, Any]:
    """The row of a finished ``future``, or an ``error`` row if its task failed on the cluster.

    Only a future whose status is ``error`` ran and failed there (the task raised,
    or ``KilledWorker``); every other exception (a cancelled future, a lost
    connection, a closed client) says nothing about the run and is raised.
    """
    try:
        row = future.result()
    except Exception as exc:
        if future.status != "error":
            raise
        message = f"dask: {type(exc).__name__}: {' '.join(str(exc).split())}"
        return error_row("error", message[:500])
    if not isinstance(row, dict) or "ran_by" not in row:
        # A row from a worker whose exactsched does not say which code ran it (an
        # older installation): its numbers cannot be filed under this code's key.
        raise MethodError(
            "--dask: a worker returned a row without the code that computed it: it runs"
            " another exactsched installation; nothing was stored for it: install this"
            " version on the workers, restart them and run again"
        )
    return row


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The exceptions of a lost scheduler, a connection or a client (not of a run)."""
    from distributed.client import ClosedClientError
    from distributed.comm.core import CommClosedError
    from distributed.utils import CancelledError

    # OSError covers CommClosedError and the comms' other failures; TimeoutError
    # is asyncio's (and distributed's) in Python >= 3.11.
    return (CancelledError, ClosedClientError, CommClosedError, OSError, TimeoutError)


@contextlib.contextmanager
def _connection(where: str, in_flight: Callable[[], int]) -> Iterator[None]:
    """A lost connection to the scheduler ``where`` as one :class:`MethodError`.

    Wraps the client's calls only: the database's own errors (a
    :class:`~exactsched.experiments.store.StoreWriteError` is an ``OSError``
    too) are raised from outside it as they are.
    """
    try:
        yield
    except _transport_errors() as exc:
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        n = in_flight()
        raise MethodError(
            f"--dask {where}: lost the connection to the scheduler ({detail}); nothing was"
            f" stored for the {n} run{'s' if n != 1 else ''} in flight: run the same command"
            " again to finish the study"
        ) from None


@contextlib.contextmanager
def _silent(name: str) -> Iterator[None]:
    """Disable the logger ``name`` and its children for the block."""
    import logging

    loggers = [logging.getLogger(name)] + [
        logging.getLogger(child)
        for child in list(logging.Logger.manager.loggerDict)
        if child.startswith(name + ".")
    ]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, before, strict=True):
            logger.disabled = disabled


def _scheduler_address(client: Any) -> str:
    """The address of ``client``'s scheduler, as well as it can be told."""
    return str(getattr(getattr(client, "scheduler", None), "address", None) or client)
