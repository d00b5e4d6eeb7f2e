"""The local process pool of a sweep: parallel, crash-proof, with hard time limits.

Each pool process runs one task at a time (:func:`~exactsched.experiments.runner.execute`)
and sends its row back through a pipe. The parent watches every busy process:

* a process that dies in a run (a segfault in a solver, ``os._exit`` in a method,
  the out-of-memory killer) yields an ``error`` row naming the exit code or signal,
  and a fresh process takes its place;
* a run past its deadline is killed the same way (an ``error`` row saying so),
  which enforces per-run time limits even on code that ignores them;
* cores are shared by slots: a run occupies ``task.threads`` slots (the solver's
  workers for an exact method, 1 for a heuristic) and the pool starts a run only
  when its slots are free, so CP-SAT workers x processes never exceeds the cores.

Processes are forked where the platform allows it (Linux, macOS), so methods a
script registers before the sweep exist in the workers too.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from typing import Any

from exactsched.experiments.runner import Task, error_row, execute

__all__ = ["LocalPool", "default_cores"]


def default_cores() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def _context() -> Any:
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def warm_up() -> None:
    """Import, in this process, what a run imports lazily (SciPy for the bounds, ...).

    Pool processes are forked from this one, so each would otherwise pay the
    imports (about a second) on its first run.
    """
    from exactsched.experiments.instances import canonical_json, instance_key
    from exactsched.problem import Problem

    tiny = Problem.from_lists([[1, 2], [2, 1]], [(0, 1, 1)])
    execute(Task(instance_key(tiny), canonical_json(tiny), "heft", "heuristic"))


#: Seconds between two checks of the watchdog thread of a pool process.
WATCHDOG_PERIOD = 0.25
_MAX_WAIT = 3600.0  # seconds of one wait for a run to finish


def _die_with_parent(parent: int) -> None:
    """End this pool process as soon as the sweep process ``parent`` is gone.

    Two mechanisms, so that no worker outlives its parent whatever killed it
    (SIGTERM, SIGKILL, a crash): on Linux the kernel sends SIGKILL when the
    parent exits (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon thread
    checks every :data:`WATCHDOG_PERIOD` seconds whether the process was
    re-parented and exits at once if so (``os._exit``: a solver may hold the
    main thread in C++ code, which the thread does not wait for).
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCHDOG_PERIOD)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exactsched-watchdog", daemon=True).start()


def _worker_main(conn: Connection, parent: int | None = None) -> None:
    if parent is not None:
        _die_with_parent(parent)
    # The parent decides what an interrupt means; a worker just finishes or is killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if message is None:
            return
        tid, task = message
        row = execute(task)
        try:
            conn.send((tid, row))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx: Any) -> None:
        parent, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        self.conn: Connection = parent
        self.tid: Any = None
        self.task: Task | None = None
        self.started = 0.0

    def send(self, tid: Any, task: Task) -> None:
        self.tid, self.task, self.started = tid, task, time.monotonic()
        self.conn.send((tid, task))

    def release(self) -> None:
        self.tid, self.task = None, None

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _death(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _collect(w: _Worker, ready: list[Any]) -> tuple[dict[str, Any] | None, bool]:
    """The row of busy worker ``w`` if its run is over, and whether to replace ``w``.

    Over means: a row arrived; the process died (an ``error`` row naming the exit
    code or signal); or the run passed its deadline (killed, an ``error`` row).
    """
    if w.task is None:
        return None, False
    if w.conn in ready or w.process.sentinel in ready:
        with contextlib.suppress(EOFError, OSError):
            if w.conn.poll():
                return w.conn.recv()[1], False
        if w.process.sentinel in ready:
            w.process.join(1)
            if w.process.exitcode == -signal.SIGINT:
                # Ctrl-C reached a worker whose solver took over SIGINT: an
                # interruption of the sweep, not a result of the run.
                raise KeyboardInterrupt
            message = f"worker process died in the run ({_death(w.process.exitcode)})"
            return error_row("error", message, time.monotonic() - w.started), True
    elapsed = time.monotonic() - w.started
    if w.task.deadline is not None and elapsed >= w.task.deadline:
        message = f"time limit: killed after {elapsed:.1f} s (deadline {w.task.deadline:g} s)"
        return error_row("error", message, elapsed), True
    return None, False


class LocalPool:
    """Run tasks on local processes (see the module docstring).

    Parameters
    ----------
    processes : int, optional
        Pool processes; default: ``cores``.
    cores : int, optional
        Slots shared by the runs; default :func:`default_cores`.

    Examples
    --------
    >>> from exactsched.experiments.instances import canonical_json, instance_key
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> tasks = [(m, Task(instance_key(p), canonical_json(p), m, "heuristic"))
    ...          for m in ("heft", "cpop")]
    >>> rows = {}
    >>> LocalPool(processes=2).run(tasks, lambda tid, row: rows.update({tid: row}))
    >>> rows["heft"]["makespan"], rows["cpop"]["makespan"]
    (80.0, 86.0)
    """

    def __init__(self, processes: int | None = None, cores: int | None = None) -> None:
        self.cores = max(1, cores or default_cores())
        self.processes = max(1, processes or self.cores)

    def run(
        self,
        tasks: Iterable[tuple[Any, Task]],
        on_result: Callable[[Any, dict[str, Any]], None],
        *,
        claim: Callable[[Any], bool] | None = None,
    ) -> None:
        """Run every task; call ``on_result(tid, row)`` in the parent as each finishes.

        Tasks start in the given order. ``on_result`` is where the caller writes
        the database, so a row is stored before the next one is waited for.
        ``claim(tid)``, if given, is asked just before a task starts; a task it
        refuses (another sweep runs it) is skipped.
        """
        pending = deque(tasks)
        if not pending:
            return
        ctx = _context()
        if ctx.get_start_method() == "fork":
            warm_up()
        workers = [_Worker(ctx) for _ in range(min(self.processes, len(pending)))]
        free = self.cores
        try:
            while pending or any(w.task is not None for w in workers):
                # Start what fits: in order, so a wide exact run is not starved.
                for w in workers:
                    if w.task is not None:
                        continue
                    while pending:
                        tid, task = pending[0]
                        need = min(task.threads, self.cores)
                        if need > free:
                            break
                        pending.popleft()
                        if claim is not None and not claim(tid):
                            continue
                        free -= need
                        with contextlib.suppress(BrokenPipeError, OSError):
                            w.send(tid, task)  # a dead worker is found below
                        break
                    if w.task is None:
                        break  # nothing more fits now
                busy = [w for w in workers if w.task is not None]
                if not busy:
                    break  # every task left was refused by ``claim``
                now = time.monotonic()
                deadlines = [
                    w.started + w.task.deadline
                    for w in busy
                    if w.task is not None and w.task.deadline is not None
                ]
                # Capped: an absurd limit (-t 1e300) overflows the OS wait; waking
                # early only rechecks the deadlines.
                timeout = min(max(0.0, min(deadlines) - now), _MAX_WAIT) if deadlines else None
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
                for k, w in enumerate(workers):
                    if w.task is None:
                        continue
                    row, replace = _collect(w, ready)
                    if row is None:
                        continue
                    finished_tid, task = w.tid, w.task
                    free += min(task.threads, self.cores)
                    w.release()
                    if replace:
                        w.kill()
                        workers[k] = _Worker(ctx)
                    on_result(finished_tid, row)
        finally:
            for w in workers:
                if w.process.is_alive() and w.task is None:
                    with contextlib.suppress(BrokenPipeError, OSError):
                        w.conn.send(None)  # idle: exit now
            for w in workers:
                w.process.join(0.5)
                w.kill()
