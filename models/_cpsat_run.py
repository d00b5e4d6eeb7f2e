"""Running a CP-SAT solve so that Ctrl-C interrupts it as it interrupts Python code.

CP-SAT's own SIGINT handler (``catch_sigint_signal``, on by default) stops the
search and returns its incumbent as if the time limit had passed: ``solve``
then printed an ordinary ``feasible`` answer and exited 0, and a script could
not tell an interrupted run from a finished one (an outside audit). Here the
handler is off and, in the main thread, the solve runs in a helper thread while
the main thread waits: Ctrl-C raises ``KeyboardInterrupt`` there at once, the
search is stopped, and the interrupt goes on up (the command line exits 130).

Not a registered method (the leading underscore keeps the auto-import away).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # OR-Tools is imported by the callers, when they solve
    from ortools.sat.python import cp_model

__all__ = ["run_solver"]

# How often the waiting main thread looks for a pending interrupt (seconds).
_POLL = 0.05


def run_solver(
    solver: cp_model.CpSolver,
    model: cp_model.CpModel,
    callback: cp_model.CpSolverSolutionCallback | None = None,
) -> Any:
    """``solver.solve(model, callback)``, interruptible by Ctrl-C; its status code.

    Raises
    ------
    KeyboardInterrupt
        When interrupted: the search has stopped when it is raised.

    Examples
    --------
    >>> from ortools.sat.python import cp_model
    >>> m = cp_model.CpModel()
    >>> x = m.new_int_var(0, 3, "x")
    >>> m.maximize(x)
    >>> solver = cp_model.CpSolver()
    >>> cp_model.CpSolver().status_name(run_solver(solver, m)), solver.value(x)
    ('OPTIMAL', 3)
    """
    solver.parameters.catch_sigint_signal = False
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model, callback)  # signals reach the main thread only
    outcome: dict[str, Any] = {}
    entered, done = threading.Event(), threading.Event()

    def work() -> None:
        entered.set()
        try:
            outcome["code"] = solver.solve(model, callback)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=work, name="cp-sat", daemon=True)
    try:
        thread.start()  # inside: an interrupt may come while it waits for the thread
        # An Event, not Thread.join: an interrupted join may mark a live thread stopped.
        while not done.wait(_POLL):
            pass
    except KeyboardInterrupt:
        # Interrupted in start(), the thread may still be on its way: give it a moment.
        if entered.wait(1.0):  # the solve runs (or will): stop it and let it end
            # Again until it ends: a stop asked before the search exists is not kept.
            solver.stop_search()
            while not done.wait(_POLL):
                solver.stop_search()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["code"]
