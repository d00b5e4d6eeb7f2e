"""The path-load LP bound, made sound by weak duality (see :func:`path_load_bound`).

The LP is solved by HiGHS on data scaled to unit size; the bound is *not* its
objective value, which rests on the solver's tolerances, but the Lagrangian
dual function evaluated on the original data at the solver's multipliers,
after they are repaired into an exactly dual-feasible point
(:func:`_dual_value`). Any non-negative multipliers give a valid bound this
way, so a solver that stops early or answers inaccurately can only make the
bound weaker, never wrong.
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem

__all__ = [
    "path_load_bound",
    "path_load_within",
    "path_load_seconds",
    "PATH_LOAD_MAX_CLASSES",
    "path_load_skipped",
    "PATH_LOAD_MAX_NONZEROS",
]

#: Most processor classes :func:`path_load_bound` takes. Measured on the 16 random
#: instances of ``benchmarks/frontier.py`` (8 and 16 unrelated processors: as many
#: classes), the LP never beat the other bounds and took up to 5 s; on CPU-GPU
#: nodes (2 classes) it is what lifts the bound (see docs/exact-models.md).
PATH_LOAD_MAX_CLASSES = 4
#: Largest LP (non-zeros of its constraint matrix) :func:`path_load_bound` builds
#: (tiled Cholesky N = 20 on a CPU-GPU node, 1540 tasks: 121,000, 1-1.8 s).
PATH_LOAD_MAX_NONZEROS = 250_000
#: HiGHS's iteration limit per row and column of the LP: an iteration limit, not a
#: time limit, keeps the bound the same on a loaded machine (a stopped solve gives 0).
#: Tiled Cholesky N = 10-20 took 0.2-0.3 iterations per row.
PATH_LOAD_ITERATIONS = 2


def path_load_bound(problem: Problem, classes: list[np.ndarray]) -> float:
    """Critical path and class load together, each task split between processor classes.

    Minimise ``M`` over ``x_ig >= 0`` (task ``i``'s share of class ``g``,
    ``sum_g x_ig = 1``, zero outside its affinity), starts ``s_i >= 0`` and:

    * ``s_j >= s_i + sum_g c_ig x_ig`` for every arc ``(i, j)``;
    * ``s_j >= s_i + sum_g c_ig x_ig + u d_h (x_jh - x_ih)`` for every arc of
      unit cost ``u`` and class ``h``, where ``d_h`` is the least hop count from a
      processor outside ``h`` into ``h`` (when ``i`` runs outside ``h`` and
      ``j`` inside, the data cross at least ``d_h`` hops), and its mirror with
      the least hop count out of ``h``;
    * ``M >= s_i + sum_g c_ig x_ig`` and ``m_g M >= sum_i c_ig x_ig``.

    Every schedule gives a feasible point (``x`` its assignment), so the LP
    optimum is a lower bound. It dominates :func:`~exactsched.bounds.critical_path_bound`
    and :func:`~exactsched.bounds.class_load_bound`: on a CPU-GPU node the class
    load lets the tasks of the critical path run on the GPU while the load is
    shared with the cores, which no schedule can do (tiled Cholesky N = 15 on
    28 cores + 4 GPUs: class load 68,510, this bound 78,983).

    Returns 0 with a single class or more than :data:`PATH_LOAD_MAX_CLASSES`,
    above :data:`PATH_LOAD_MAX_NONZEROS`, or when the LP is not solved.

    Examples
    --------
    >>> from exactsched.bounds import processor_classes
    >>> # Two tasks in a chain, each 1 on the fast processor, 4 on the slow one.
    >>> p = Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)])
    >>> round(path_load_bound(p, processor_classes(p)), 6)
    2.0
    """
    return path_load_within(problem, classes, None)[0]


def path_load_within(
    problem: Problem, classes: list[np.ndarray], seconds: float | None
) -> tuple[float, bool]:
    """:func:`path_load_bound` with the LP stopped after ``seconds`` (None: no limit).

    Returns the bound and whether it is the complete one: ``False`` when the
    clock stopped the LP (the bound is then 0). The iteration limit, which does
    not depend on the machine's load, is the usual stop; the clock is a safety
    for LPs whose iterations cost more than :func:`path_load_seconds` assumes (a
    random 1000-task DAG on 4 classes: 7.4 s against 2.3 s estimated).

    Examples
    --------
    >>> p = Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)])
    >>> from exactsched.bounds import processor_classes
    >>> value, complete = path_load_within(p, processor_classes(p), 60.0)
    >>> round(value, 6), complete
    (2.0, True)
    """
    if path_load_seconds(problem, len(classes)) == 0:
        return 0.0, True
    lp = _PathLoadLP(problem, classes)
    multipliers, complete = lp.solve(seconds)
    if multipliers is None:
        return 0.0, complete
    return _dual_value(lp, *multipliers), complete


def path_load_seconds(problem: Problem, n_classes: int) -> float:
    """Estimated seconds of :func:`path_load_bound` (0 when it is skipped).

    About 1.5e-5 s per non-zero of the LP (measured with HiGHS on tiled
    Cholesky, 3,000 to 121,000 non-zeros). The non-zeros are bounded from the
    sizes alone: an arc's rows hold at most ``(1 + 2G)(4 + G)``, a task's end and
    load entries ``3 + 2G``; above :data:`PATH_LOAD_MAX_NONZEROS` the LP is skipped.

    Examples
    --------
    >>> path_load_seconds(Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)]), 2) > 0
    True
    """
    if not 2 <= n_classes <= PATH_LOAD_MAX_CLASSES or problem.n_tasks == 0:
        return 0.0
    arcs = len(problem.arc_src)
    nonzeros = arcs * (1 + 2 * n_classes) * (4 + n_classes) + problem.n_tasks * (3 + 2 * n_classes)
    return 0.0 if nonzeros > PATH_LOAD_MAX_NONZEROS else 0.01 + 1.5e-5 * nonzeros


def path_load_skipped(problem: Problem, n_classes: int) -> str | None:
    """Why :func:`path_load_bound` is not computed for ``problem`` (None when it is).

    Examples
    --------
    >>> path_load_skipped(Problem.from_lists([3, 4], n_processors=2), 1)
    'one processor class (the class-load and critical-path bounds say it all)'
    >>> path_load_skipped(Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)]), 2) is None
    True
    """
    if path_load_seconds(problem, n_classes) > 0:
        return None
    if n_classes < 2:
        return "one processor class (the class-load and critical-path bounds say it all)"
    if n_classes > PATH_LOAD_MAX_CLASSES:
        return f"{n_classes} processor classes (runs for 2 to {PATH_LOAD_MAX_CLASSES})"
    if problem.n_tasks == 0:
        return "no tasks"
    return f"an LP above {PATH_LOAD_MAX_NONZEROS:,} non-zeros"


class _PathLoadLP:
    """The LP of :func:`path_load_bound` in arrays: rows of arcs, comm, ends and loads."""

    def __init__(self, problem: Problem, classes: list[np.ndarray]) -> None:
        n_classes = len(classes)
        self.cost = np.stack([problem.cost[:, c[0]] for c in classes], axis=1)  # (n, G)
        self.size = np.array([len(c) for c in classes], dtype=float)
        self.ok = np.isfinite(self.cost)
        self.src = problem.arc_src.astype(np.int64)
        self.dst = problem.arc_dst.astype(np.int64)
        member = np.zeros((n_classes, problem.n_processors), dtype=bool)
        for g, c in enumerate(classes):
            member[g, c] = True
        hops = problem.hops
        into = np.zeros(n_classes)
        out_of = np.zeros(n_classes)
        for g in range(n_classes):
            if member[g].all():
                continue
            into[g] = hops[np.ix_(~member[g], member[g])].min()
            out_of[g] = hops[np.ix_(member[g], ~member[g])].min()
        unit = problem.arc_unit.astype(float)
        # Communication rows (arc, class, sign): +1 is "into h", -1 "out of h".
        arc_idx, cls_idx, sign, delay = [], [], [], []
        for g in range(n_classes):
            for direction, hop in ((1, into[g]), (-1, out_of[g])):
                if hop <= 0:
                    continue
                arcs = np.flatnonzero(unit > 0)
                arc_idx.append(arcs)
                cls_idx.append(np.full(len(arcs), g))
                sign.append(np.full(len(arcs), direction))
                delay.append(unit[arcs] * hop)

        def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        self.comm_arc = cat(arc_idx, np.int64)
        self.comm_cls = cat(cls_idx, np.int64)
        self.comm_sign = cat(sign, np.int64)
        self.comm_delay = cat(delay, float)

    def solve(
        self, seconds: float | None = None
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None, bool]:
        """Multipliers (arcs, comm rows, ends, loads) of the LP solved on scaled data.

        Also whether the solve ended on its own (``False``: ``seconds`` ran out).
        """
        import time

        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix

        n, n_classes = self.cost.shape
        finite = self.cost[self.ok]
        scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            cost = np.where(self.ok, self.cost / scale, 0.0)
            delay = self.comm_delay / scale
        if not (np.isfinite(cost).all() and np.isfinite(delay).all()):
            # Delays beyond the floats once costs are the unit (costs near 5e-324 next
            # to data near 1e15): no LP, so no bound from it (0 is always valid).
            return None, True
        tasks, groups = np.nonzero(self.ok)
        n_x = len(tasks)
        x_id = np.full((n, n_classes), -1, dtype=np.int64)
        x_id[tasks, groups] = np.arange(n_x)
        s0, m_col = n_x, n_x + n  # start columns, then M
        rows, cols, vals = [], [], []

        def add_work(row_of_task: np.ndarray, task: np.ndarray) -> None:
            # sum_g c_ig x_ig of task[k] into row row_of_task[k]
            for g in range(n_classes):
                sel = self.ok[task, g]
                rows.append(row_of_task[sel])
                cols.append(x_id[task[sel], g])
                vals.append(cost[task[sel], g])

        def add_arc_rows(first: int, arcs: np.ndarray) -> np.ndarray:
            r = first + np.arange(len(arcs))
            src, dst = self.src[arcs], self.dst[arcs]
            rows.extend([r, r])
            cols.extend([s0 + src, s0 + dst])
            vals.extend([np.ones(len(arcs)), -np.ones(len(arcs))])
            add_work(r, src)
            return r

        n_arcs, n_comm = len(self.src), len(self.comm_arc)
        add_arc_rows(0, np.arange(n_arcs))
        r = add_arc_rows(n_arcs, self.comm_arc)
        # + u d_h (x_jh - x_ih) for "into h"; the mirror for "out of h"
        dst, src = self.dst[self.comm_arc], self.src[self.comm_arc]
        first, second = (
            np.where(self.comm_sign > 0, dst, src),
            np.where(self.comm_sign > 0, src, dst),
        )
        for task, coef in ((first, delay), (second, -delay)):
            sel = self.ok[task, self.comm_cls]
            rows.append(r[sel])
            cols.append(x_id[task[sel], self.comm_cls[sel]])
            vals.append(coef[sel])
        # Ends: s_i + work_i - M <= 0
        base = n_arcs + n_comm
        r = base + np.arange(n)
        rows.extend([r, r])
        cols.extend([s0 + np.arange(n), np.full(n, m_col)])
        vals.extend([np.ones(n), -np.ones(n)])
        add_work(r, np.arange(n))
        # Loads: sum_i c_ig x_ig - m_g M <= 0
        base += n
        rows.extend([base + groups, base + np.arange(n_classes)])
        cols.extend([x_id[tasks, groups], np.full(n_classes, m_col)])
        vals.extend([cost[tasks, groups], -self.size])
        n_rows = base + n_classes
        a_ub = coo_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n_rows, m_col + 1),
        ).tocsr()
        a_eq = coo_matrix((np.ones(n_x), (tasks, np.arange(n_x))), shape=(n, m_col + 1)).tocsr()
        objective = np.zeros(m_col + 1)
        objective[m_col] = 1.0
        options: dict[str, float] = {"maxiter": 1000 + PATH_LOAD_ITERATIONS * (n_rows + m_col + 1)}
        if seconds is not None:
            options["time_limit"] = max(0.01, float(seconds))
        began = time.perf_counter()
        result = linprog(
            objective,
            A_ub=a_ub,
            b_ub=np.zeros(n_rows),
            A_eq=a_eq,
            b_eq=np.ones(n),
            bounds=(0, None),
            method="highs",
            options=options,
        )
        if result.status != 0 or result.ineqlin is None:
            # HiGHS reports both limits as status 1: the clock tells them apart.
            timed_out = seconds is not None and time.perf_counter() - began >= 0.9 * seconds
            return None, not timed_out
        # Any non-negative finite multipliers will do (see _dual_value): clean the rest.
        y = np.nan_to_num(-np.asarray(result.ineqlin.marginals, dtype=float), nan=0.0)
        y = np.clip(y, 0.0, np.finfo(float).max / 4)
        return (
            y[:n_arcs],
            y[n_arcs : n_arcs + n_comm],
            y[n_arcs + n_comm : n_arcs + n_comm + n],
            y[n_arcs + n_comm + n :],
        ), True


def _dual_value(
    lp: _PathLoadLP, arc: np.ndarray, comm: np.ndarray, end: np.ndarray, load: np.ndarray
) -> float:
    """:func:`_lagrangian_bound`; multipliers that overflow the floats give 0, quietly."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _lagrangian_bound(lp, arc, comm, end, load)


def _lagrangian_bound(
    lp: _PathLoadLP, arc: np.ndarray, comm: np.ndarray, end: np.ndarray, load: np.ndarray
) -> float:
    """The Lagrangian bound at the multipliers, repaired to be exactly dual feasible.

    With multipliers ``lam_a`` (arcs and their communication rows, summed per
    arc into ``L_a``), ``mu_i`` (ends) and ``nu_g`` (loads), all ``>= 0``, the
    Lagrangian is ``M (1 - sum mu - sum m_g nu_g) + sum_i s_i (out_i - in_i +
    mu_i) + sum_ig x_ig k_ig``. Its minimum over ``M, s >= 0`` and ``x`` in the
    simplices is ``sum_i min_g k_ig`` when both brackets are ``>= 0``. The
    repair raises ``mu_i`` to ``in_i - out_i`` where needed, then divides every
    multiplier by ``sum mu + sum m_g nu_g`` when that exceeds 1 (every row has
    right-hand side 0, so the value scales with them). The float evaluation's
    rounding is subtracted: a few units in the last place per operation, of the sum
    of absolute terms.
    """
    n, n_classes = lp.cost.shape
    total = arc.copy()
    np.add.at(total, lp.comm_arc, comm)
    out = np.bincount(lp.src, weights=total, minlength=n)
    into = np.bincount(lp.dst, weights=total, minlength=n)
    end = np.maximum(end, into - out)
    mass = float(end.sum() + (lp.size * load).sum())
    if mass <= 0:
        return 0.0
    if mass > 1:
        arc, comm, end, load, out = arc / mass, comm / mass, end / mass, load / mass, out / mass
    cost = np.where(lp.ok, lp.cost, 0.0)
    work = cost * (out + end)[:, None] + cost * load[None, :]
    terms = np.abs(work)
    # u d_h (x_jh - x_ih) ("into h"; the mirror for "out of h") times the comm multiplier.
    dst, src = lp.dst[lp.comm_arc], lp.src[lp.comm_arc]
    plus = np.where(lp.comm_sign > 0, dst, src)
    minus = np.where(lp.comm_sign > 0, src, dst)
    weighted = comm * lp.comm_delay
    coef = work.copy()
    np.add.at(coef, (plus, lp.comm_cls), weighted)
    np.add.at(coef, (minus, lp.comm_cls), -weighted)
    np.add.at(terms, (plus, lp.comm_cls), np.abs(weighted))
    np.add.at(terms, (minus, lp.comm_cls), np.abs(weighted))
    coef = np.where(lp.ok, coef, np.inf)
    pick = coef.argmin(axis=1)
    rows = np.arange(n)
    value = float(np.sum(coef[rows, pick]))
    # Each coefficient sums at most (degree + classes + 2) rounded products, and
    # the pairwise total adds log2(n) roundings: bound them all.
    degree = int(
        max(np.bincount(lp.src, minlength=n).max(), np.bincount(lp.dst, minlength=n).max())
    )
    steps = 2 * (degree + n_classes) + 4 + int(np.log2(n + 1))
    slack = 2.3e-16 * steps * float(np.sum(terms[rows, pick]))
    bound = value - slack
    return bound if np.isfinite(bound) and bound > 0 else 0.0  # overflow or NaN: no bound
