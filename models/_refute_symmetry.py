"""Interchangeable processors of a refutation witness, and why breaking them is sound.

The disjunctive witness of :func:`models._refute.refute_cpsat` has one
assignment literal per (task, processor). On an accelerated node (seven
identical CPU cores and a GPU) every schedule then appears ``7!`` times, once
per relabelling of the cores, and a proof of infeasibility must refute every
copy. This module finds the processors that are truly interchangeable *in the
witness's own data* and the value-precedence clauses that keep one copy.
It is written for the witness alone: it shares no code with the class
analysis of the main CP-SAT model (:mod:`models._cpsat_locations`).

**Interchangeable.** Processors ``a`` and ``b`` are interchangeable when the
transposition ``(a b)`` of processor labels maps the witness's data onto
itself: the cost columns are equal (``inf`` outside the affinity included, so
the allowed masks are equal), and, when there is any arc, the hop matrix is
invariant: ``hops[a, a] == hops[b, b]``, ``hops[a, b] == hops[b, a]`` and
``hops[a, c] == hops[b, c]``, ``hops[c, a] == hops[c, b]`` for every other
``c``. Every delay of the witness is ``floor(unit * hops * resolution)``, a
function of the hop count alone, so it is invariant too; isolation pairs and
arcs do not name processors. The relation is an equivalence: if ``(a b)`` and
``(b c)`` are automorphisms, so is their conjugate ``(a c) = (a b)(b c)(a b)``.
Hence a class is closed under every permutation of its members (transpositions
generate the symmetric group), and any relabelling within classes maps a
feasible witness solution to a feasible one with the same starts.

**Value precedence.** For a class ``k_0 < k_1 < ... < k_{m-1}`` the witness
requires, for every task ``i`` and ``r >= 1``::

    x[i, k_r]  =>  OR_{j < i} x[j, k_{r-1}]

i.e. the first (lowest-index) task on ``k_r`` comes after the first task on
``k_{r-1}``, and ``k_r`` is used only if ``k_{r-1}`` is. Sound: given any
feasible solution, sort the processors of the class by the index of their
first task (unused ones last) and relabel them ``k_0, k_1, ...`` in that
order; by the paragraph above the result is feasible with the same makespan,
and it satisfies every clause (the first task on ``k_r`` has a larger index
than the first task on ``k_{r-1}``, which is used). Classes are disjoint, so
the relabellings of different classes compose. Therefore the clauses remove
solutions but never make a feasible question infeasible: a refutation with
them is a refutation without them.

Examples
--------
>>> import numpy as np
>>> cost = np.array([[5.0, 5.0, 5.0, 1.0]])
>>> hops = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]], float)
>>> interchangeable_classes(cost, hops, has_arcs=True)
[[0, 1, 2]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["interchangeable_classes", "swap_is_automorphism"]


def swap_is_automorphism(hops: np.ndarray, a: int, b: int) -> bool:
    """Whether exchanging processors ``a`` and ``b`` maps ``hops`` onto itself.

    Examples
    --------
    >>> import numpy as np
    >>> line = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], float)   # a-b-c
    >>> swap_is_automorphism(line, 0, 2), swap_is_automorphism(line, 0, 1)
    (True, False)
    """
    if a == b:
        return True
    others = np.ones(hops.shape[0], dtype=bool)
    others[[a, b]] = False
    # O(P): the rows and columns of a and b agree off {a, b}, and the 2x2 block is symmetric.
    return bool(
        hops[a, a] == hops[b, b]
        and hops[a, b] == hops[b, a]
        and np.array_equal(hops[a, others], hops[b, others])
        and np.array_equal(hops[others, a], hops[others, b])
    )


def interchangeable_classes(
    cost: np.ndarray, hops: np.ndarray, *, has_arcs: bool, max_checks: int = 5_000
) -> list[list[int]]:
    """Classes (two members or more) of processors interchangeable in the witness's data.

    Parameters
    ----------
    cost : numpy.ndarray
        ``(n, P)`` costs the witness uses (``inf`` outside the affinity).
    hops : numpy.ndarray
        ``(P, P)`` hop counts.
    has_arcs : bool
        Whether any arc communicates (without arcs the network is irrelevant).
    max_checks : int
        Swap checks (``O(P)`` each) allowed; once spent, every processor not yet
        placed stays alone. Missing a class only loses a reduction, so this
        bounds the time on large platforms (a 1024-processor mesh) soundly.

    Returns
    -------
    list of list of int
        Each class in increasing processor order; classes in order of their
        first member.

    Notes
    -----
    Processors are first grouped by equal cost columns; within a group each
    processor joins the first class whose first member it can be swapped with
    (by transitivity, see the module docstring, that suffices): at most
    ``max_checks`` swap checks of ``O(P)`` each.
    """
    n_proc = cost.shape[1]
    budget = max_checks
    columns: dict[bytes, list[int]] = {}
    for p in range(n_proc):
        key = np.ascontiguousarray(cost[:, p]).tobytes()
        columns.setdefault(key, []).append(p)
    classes: list[list[int]] = []
    for group in columns.values():
        found: list[list[int]] = []
        for p in group:
            home = None
            for cls in found:
                if has_arcs:
                    if budget <= 0:
                        break  # out of checks: p stays alone (fewer classes is still sound)
                    budget -= 1
                    if not swap_is_automorphism(hops, cls[0], p):
                        continue
                home = cls
                break
            if home is None:
                found.append([p])
            else:
                home.append(p)
        classes.extend(c for c in found if len(c) > 1)
    return sorted(classes)
