"""Optimality-gap studies: sweeps of methods over instances, stored, resumable, reported.

A study runs every method on every instance (:func:`run_sweep`), validates
every schedule, and stores one row per instance x method x options x exactsched
version in a SQLite database (:class:`Store`) as each run finishes, so a killed
sweep resumes where it stopped; concurrent sweeps on one database share the
runs. Runs go to a crash-proof local process pool (:class:`LocalPool`, whose
workers die with the sweep) or to a Dask cluster. :func:`load_rows` and
:func:`to_dataframe` read the results (one configuration's with ``keys``) with
each run's gap ``(makespan - reference) / reference`` to the certified optimum,
or to the best known makespan where none is certified;
:func:`summarise`, :mod:`~exactsched.experiments.report` and
:mod:`~exactsched.experiments.plots` turn them into tables, a Markdown report,
performance profiles and Gantt charts. The CLI is ``exactsched compare``,
``exactsched results`` and ``exactsched gantt``.

Examples
--------
>>> from exactsched.experiments import run_sweep, load_rows
>>> out = run_sweep(["examples/topcuoglu2002.json"], "heft", exact="cpsat",
...                 time_limit=30, workers=1, progress="none")
>>> [(r["method"], r["makespan"], round(r["gap_to_optimum"], 4)) for r in load_rows(out.store)]
[('cpsat', 73.0, 0.0), ('heft', 80.0, 0.0959)]
"""

from exactsched.experiments.analysis import (
    EXPORT_COLUMNS,
    instance_references,
    load_rows,
    summarise,
    summarise_by,
    to_dataframe,
)
from exactsched.experiments.instances import describe, discover, instance_key, load_problem
from exactsched.experiments.pool import LocalPool
from exactsched.experiments.runner import Task, execute
from exactsched.experiments.store import Store
from exactsched.experiments.sweep import MethodSpec, SweepOutcome, parse_methods, run_sweep

__all__ = [
    "EXPORT_COLUMNS",
    "LocalPool",
    "MethodSpec",
    "Store",
    "SweepOutcome",
    "Task",
    "describe",
    "discover",
    "execute",
    "instance_key",
    "instance_references",
    "load_problem",
    "load_rows",
    "parse_methods",
    "run_sweep",
    "summarise",
    "summarise_by",
    "to_dataframe",
]
