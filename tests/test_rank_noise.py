"""Ranks are rounded to 12 significant digits of their own, CPOP's path within 1e-11.

An outside audit (session 11): rounded at the scale of the largest rank, ranks of
1e-7 and 3e-7 beside one of 1e6 both became 0 and HEFT took them by index; CPOP's
relative window of 1e-9 followed a successor 1e-4 below the critical path at 1e6.
"""

from __future__ import annotations

import numpy as np

from exactsched import Problem, validate
from heuristics.cpop import critical_path
from heuristics.heft import heft
from heuristics.ranking import _snap, downward_rank, upward_rank


def test_small_ranks_keep_their_order_beside_a_large_one():
    p = Problem.from_lists([[1e6, 1e6], [1e-7, 1e-7], [3e-7, 3e-7]], n_processors=2)
    assert upward_rank(p).tolist() == [1e6, 1e-7, 3e-7]
    s = heft(p)
    assert validate(p, s) == [] and s["t2"].start == 0 and s["t1"].start > 0


def test_float_noise_still_ties():
    values = np.array([79.99999999999999, 80.0, 0.1 + 0.2, 0.3, 1e-300, 0.0, np.inf])
    snapped = _snap(values)
    assert snapped[0] == snapped[1] == 80.0 and snapped[2] == snapped[3]
    assert snapped[4:].tolist() == [1e-300, 0.0, np.inf]


def test_cpop_follows_the_critical_successor_only():
    p = Problem.from_lists([[1, 1], [1e6 - 1e-4, 1e6 - 1e-4], [1e6, 1e6]], [(0, 1, 0), (0, 2, 0)])
    prio = upward_rank(p) + downward_rank(p)
    assert critical_path(p, prio) == [0, 2]
    tiny = Problem.from_lists([[1e-9, 1e-9], [1e-9, 1e-9], [3e-9, 3e-9]], [(0, 1, 0), (0, 2, 0)])
    assert critical_path(tiny, upward_rank(tiny) + downward_rank(tiny)) == [0, 2]
