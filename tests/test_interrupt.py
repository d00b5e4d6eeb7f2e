"""Ctrl-C during a CP-SAT solve exits 130 with one line (an outside audit, session 11).

CP-SAT's own SIGINT handler stopped the search and ``solve`` printed the
incumbent as an ordinary ``feasible`` answer with exit 0.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_ctrl_c_during_a_solve_exits_130(tmp_path, method):
    instance = tmp_path / "chol.json"
    subprocess.run(
        [sys.executable, "-m", "exactsched", "generate", "cholesky", "--tiles", "7",
         "--platform", "multi-gpu", "--seed", "0", "-o", str(instance)],
        check=True, capture_output=True,
    )  # fmt: skip
    child = subprocess.Popen(
        [sys.executable, "-m", "exactsched", "solve", str(instance), "-m", method,
         "-t", "60", "-w", "1", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(4.0)  # well into the solve (loading and the warm start take about a second)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, (out[-300:], err[-300:])
    assert out == "" and err == "exactsched: error: interrupted\n"
    assert time.perf_counter() - sent < 10
