"""The ``generate`` and ``convert`` commands: workloads from the command line.

``exactsched generate cholesky|qr|lu|random|stg ... --platform P --seed K
[--count N] -o OUT`` writes generated instances; ``exactsched convert IN -o OUT
[--platform P]`` turns an STG, DOT, WfCommons or instance file into an
instance JSON, STG or DOT file (chosen by the extension of ``OUT``, or
``--to``). See :mod:`exactsched.workloads` and :mod:`exactsched.generators`
for the models behind every option.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from exactsched._output import _is_a_float, atomic_write, is_device, writes_stdout
from exactsched.cli import check_output, finite_arg, int_arg, seed_arg
from exactsched.errors import InstanceError, InstanceWarning, MethodError
from exactsched.limits import MAX_COST_CELLS, MAX_EDGES, MAX_INSTANCES, MAX_TASKS, check_size

__all__ = ["add_parsers", "write_problem"]


_PLATFORM = (
    "a preset (single-gpu, multi-gpu, titan, summit), a JSON file (platform or instance) or "
    "a shorthand: fully-connected:4, mesh:4x4, torus:2x2x2, hypercube:8, fat-tree:8, cpu-gpu:7+1"
)


#: Output extensions and the format each writes (:func:`write_problem`'s rule).
_OUTPUT_FORMATS = {".json": "json", ".stg": "stg", ".dot": "dot", ".gv": "dot"}

#: The noise factor's default bounds (``--noise``) and out-degree (``--out-degree``).
_NOISE = (1.0, 10.0)
_OUT_DEGREE = 2.0

#: Parameters of the random DAG generators -> the option that sets them.
_GENERATOR_OPTIONS = {
    "alpha": "--alpha",
    "out_degree": "--out-degree",
    "n_layers": "--layers",
    "p": "--p",
    "fat": "--fat",
    "density": "--density",
    "regularity": "--regularity",
    "jump": "--jump",
}


def add_parsers(sub: Any) -> dict[str, Any]:
    """Add ``generate`` and ``convert`` to the sub-parser action ``sub``."""
    gen = sub.add_parser(
        "generate",
        help="generate instances: tiled cholesky/qr/lu, random DAGs, weighted STG graphs",
        description="Generate instances; every one is deterministic for its seed.",
    )
    gen.add_argument("kind", choices=["cholesky", "qr", "lu", "random", "stg"])
    gen.add_argument("input", nargs="?", help="the STG file (generate stg)")
    gen.add_argument("--platform", default="single-gpu", help=_PLATFORM + " (default single-gpu)")
    gen.add_argument("--seed", type=seed_arg, default=0, help="first seed (default 0)")
    gen.add_argument(
        "--count",
        type=int_arg(1, MAX_INSTANCES),
        default=1,
        help=f"instances, seeds K, K+1, ... (at most {MAX_INSTANCES:,})",
    )
    gen.add_argument(
        "-o",
        "--output",
        required=True,
        help="output file (.json, .stg, .dot or .gv: the format; a device such as "
        "/dev/stdout gets JSON); with --count > 1 a "
        "name containing {seed} (e.g. g_{seed}.json), else a folder that gets one .json "
        "file per seed; {seed} is the only placeholder, and with --count > 1 a name "
        "ending in .json, .stg, .dot or .gv needs it",
    )
    gen.add_argument("--name", help="instance name (default: from the parameters)")
    gen.add_argument("--integral", action="store_true", help="round costs and data to integers")
    tiled = gen.add_argument_group("tiled factorizations (cholesky, qr, lu)")
    tiled.add_argument(
        "--tiles", type=int_arg(1, 2**63), help="N: tiles along each side of the matrix"
    )
    tiled.add_argument("--tile-size", type=int_arg(1, 2**20), default=None, help="b (default 128)")
    tiled.add_argument(
        "--noise",
        type=finite_arg,
        nargs=2,
        default=None,
        metavar=("L", "U"),
        help="time = flops / peak rate x U(L, U), 0 < L <= U (default 1 10)",
    )
    tiled.add_argument(
        "--precision", type=int_arg(1, 64), default=None, help="bytes per entry (default 8)"
    )
    tiled.add_argument(
        "--rate",
        action="append",
        default=[],
        metavar="TYPE=FLOPS",
        help="peak flops per microsecond of a processor type, for --weights flops and the "
        "tiled DAGs on a platform that is not a preset (e.g. --rate cpu=67200 --rate gpu=7.8e6; "
        "each type once)",
    )
    tiled.add_argument(
        "--measured",
        action="store_true",
        help="cholesky only: the measured kernel times of the HOFT paper (tile size 128 or "
        "1024) instead of flop counts",
    )
    rnd = gen.add_argument_group("random DAGs")
    rnd.add_argument(
        "--generator",
        default="topcuoglu",
        choices=["topcuoglu", "layered", "erdos-renyi", "daggen"],
    )
    rnd.add_argument(
        "--tasks", type=int_arg(1, MAX_TASKS), help=f"number of tasks (at most {MAX_TASKS:,})"
    )
    rnd.add_argument(
        "--out-degree",
        type=finite_arg,
        default=None,
        help="topcuoglu: mean out-degree, 1 .. --tasks (default 2, or 1 for one task)",
    )
    rnd.add_argument(
        "--layers",
        type=int_arg(1, MAX_TASKS),
        help="layered: number of layers (default sqrt(n))",
    )
    # None until given: an option another generator reads is refused (_check_random_options).
    for key, (kind, default, text) in _DAG_NUMBERS.items():
        text = f"{text} (default {default:g})"
        rnd.add_argument(_option(key), type=kind, default=None, help=text)
    wts = gen.add_argument_group("weights (random, stg)")
    wts.add_argument(
        "--weights",
        choices=["topcuoglu", "hoft-low", "hoft-high", "canon", "flops"],
        help="cost scheme (default topcuoglu; for stg on a CPU-GPU platform hoft-low)",
    )
    for key, (default, text) in _TOPCUOGLU_WEIGHTS.items():
        text = f"{text} (default {default:g})"
        wts.add_argument(_option(key), type=finite_arg, default=None, help=text)
    wts.add_argument(
        "--ccr",
        default=None,
        help="target CCR X, or LOW:HIGH to draw it uniformly per instance (the HOFT paper's "
        "intervals 0:10, 10:20, 20:50); default 1",
    )
    wts.add_argument(
        "--ccr-definition",
        default="comm/comp",
        choices=["comm/comp", "comp/comm", "total", "hoft"],
        help="comm/comp: Topcuoglu et al. (default); comp/comm: McSweeney et al.'s words; "
        "total: Ozkaya et al. (sums); hoft: the HOFT paper's figures (its simulator's sums "
        "over P^2 processor pairs)",
    )
    wts.add_argument(
        "--data",
        choices=["low", "high"],
        help="McSweeney's data regimes instead of a CCR (cpu/gpu weights)",
    )
    wts.add_argument(
        "--drop-dummies", action="store_true", help="stg: drop the dummy entry and exit tasks"
    )

    conv = sub.add_parser(
        "convert",
        help="convert STG, DOT, WfCommons or instance files to instance JSON, STG or DOT",
    )
    conv.add_argument("input", help="an instance JSON, WfCommons JSON, STG or DOT file")
    conv.add_argument(
        "-o",
        "--output",
        required=True,
        help="output file (.json, .stg, .dot or .gv; another extension needs --to; a "
        "device such as /dev/stdout gets JSON)",
    )
    conv.add_argument(
        "--to", choices=["json", "stg", "dot"], help="output format (default: from -o)"
    )
    conv.add_argument(
        "--platform",
        help=_PLATFORM + "; required for STG, DOT and WfCommons input, replaces an instance's",
    )
    conv.add_argument(
        "--drop-dummies", action="store_true", help="STG input: drop the dummy entry and exit"
    )
    conv.add_argument(
        "--speed",
        action="append",
        default=[],
        metavar="TYPE=X",
        help="WfCommons input: speed of a processor type relative to the machine that "
        "recorded the runtimes (default 1), e.g. --speed gpu=10; each type once",
    )
    return {"generate": _cmd_generate, "convert": _cmd_convert}


def write_problem(problem: Any, path: str | Path, kind: str | None = None) -> str:
    """Write ``problem`` as an instance JSON, STG or DOT file; returns the format written.

    The format is ``kind`` or, by default, the extension of ``path``
    (``.stg``, ``.dot``/``.gv``, anything else JSON).
    """
    from exactsched.workloads.dot import write_dot
    from exactsched.workloads.stg import write_stg

    path = Path(path)
    if kind is None:
        suffix = path.suffix.lower()
        kind = _OUTPUT_FORMATS.get(suffix, "json")
    if path.parent and not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise InstanceError(f"{path}: {path.parent} {what}")
    for loss in conversion_losses(problem, kind):
        warnings.warn(f"{path}: {loss}", InstanceWarning, stacklevel=2)
    try:
        if kind == "stg":
            write_stg(problem, path)
        elif kind == "dot":
            write_dot(problem, path)
        else:
            # The problem's own document, read only: to_json() would deep-copy it,
            # the slowest step for the 22,100-task Cholesky instance.
            document = problem._json
            # Large instances compact (json.dumps without indent is the C encoder),
            # small ones readable.
            if problem.n_tasks > 2000:
                text = json.dumps(document, separators=(",", ":"))
            else:
                text = json.dumps(document, indent=1)
            with atomic_write(path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
    except OSError as exc:
        raise InstanceError(f"{path}: cannot write file: {exc.strerror or exc}") from None
    return kind


def conversion_losses(problem: Any, kind: str) -> list[str]:
    """What writing ``problem`` as ``kind`` loses that changes its schedules.

    The platform is never written by STG or DOT (the reader is given one);
    these are the task-graph facts the format cannot hold. DOT keeps costs per
    processor (``Costs``) and order pairs (as edges of weight 0), so it loses only
    isolation pairs; STG keeps one integer cost per task and precedences only.

    Examples
    --------
    >>> from exactsched import Problem
    >>> conversion_losses(Problem.from_lists([[1.5, 2.0], [1.0, 1.0]], [(0, 1, 4)]), "stg")
    ... # doctest: +NORMALIZE_WHITESPACE
    ['stg: 1 of 2 tasks get one rounded mean cost (their costs differ per processor,
      are restricted or are not integers)', 'stg: the data of 1 edges dropped (no communication)',
      "stg: the ids of 2 tasks dropped (STG numbers its tasks in topological order,
      dummies included: 't0' reads back as 't1')"]
    >>> conversion_losses(Problem.from_lists([3, 4], [(0, 1, 4)], n_processors=2), "dot")
    []
    """
    import numpy as np

    losses: list[str] = []
    if kind == "stg":
        allowed = problem.allowed
        rounded = {
            problem.task_ids[i]
            for i in range(problem.n_tasks)
            if not allowed[i].all()
            or len(set(problem.cost[i][allowed[i]].tolist())) > 1
            or not float(problem.cost[i][allowed[i]][0]).is_integer()
        }
        changed = len(rounded)
        if changed:
            losses.append(
                f"stg: {changed} of {problem.n_tasks} tasks get one rounded mean cost "
                "(their costs differ per processor, are restricted or are not integers)"
            )
        # Counted above already when their mean is rounded anyway.
        inexact = [(t, c) for t, c in _inexact_costs(problem) if t not in rounded]
        if inexact:
            task, exact = inexact[0]
            losses.append(
                f"stg: {len(inexact)} of {problem.n_tasks} tasks get one rounded mean cost "
                f"(integers above 2**53 lose digits as floats: task {task!r} costs {exact}, "
                f"written {int(float(exact))})"
            )
        with_data = int(np.count_nonzero(problem.edge_data))
        if with_data:
            losses.append(f"stg: the data of {with_data} edges dropped (no communication)")
        from exactsched.workloads.stg import read_back_ids

        renamed = [
            (t, back)
            for t, back in zip(problem.task_ids, read_back_ids(problem), strict=True)
            if t != back
        ]
        if renamed:
            t, back = renamed[0]
            losses.append(
                f"stg: the ids of {len(renamed)} tasks dropped (STG numbers its tasks in"
                f" topological order, dummies included: {t!r} reads back as {back!r})"
            )
    if kind == "dot":
        inexact = _inexact_costs(problem)
        if inexact:
            task, exact = inexact[0]
            losses.append(
                f"dot: {len(inexact)} of {problem.n_tasks} tasks get a rounded cost "
                f"(integers above 2**53 lose digits as floats: task {task!r} costs {exact}, "
                f"written {int(float(exact))})"
            )
        data = _inexact_data(problem)
        if data:
            (src, dst), exact = data[0]
            losses.append(
                f"dot: {len(data)} edges get rounded data (integers above 2**53 lose digits "
                f"as floats: edge {src!r} -> {dst!r} carries {exact}, written {int(float(exact))})"
            )
    n_iso = len(problem.iso_a)
    if kind in ("stg", "dot") and n_iso:
        losses.append(f"{kind}: {n_iso} isolation pairs dropped (the format has none)")
    return losses


def _inexact_costs(problem: Any) -> list[tuple[str, int]]:
    """(task id, cost) of every task whose document holds an integer cost no float holds.

    The instance keeps such a cost exactly (JSON integers), but the STG writer
    works on the float costs, so the digits past 2**53 change silently.

    Examples
    --------
    >>> from exactsched import Problem
    >>> _inexact_costs(Problem.from_lists([2**53 + 1, 5], [], n_processors=1))
    [('t0', 9007199254740993)]
    """
    found: list[tuple[str, int]] = []
    for task in problem._json["tasks"]:
        cost = task.get("cost")
        if isinstance(cost, Mapping):
            values = list(cost.values())
        else:
            values = list(cost) if isinstance(cost, list | tuple) else [cost]
        for value in values:
            # An int a float cannot hold exactly (Python compares the two exactly).
            if isinstance(value, int) and not isinstance(value, bool) and not _is_a_float(value):
                found.append((str(task["id"]), value))
                break
    return found


def _inexact_data(problem: Any) -> list[tuple[tuple[str, str], int]]:
    """((src, dst), data) of every edge whose document holds an integer no float holds.

    Examples
    --------
    >>> from exactsched import Problem
    >>> _inexact_data(Problem.from_lists([1, 1], [(0, 1, 2**53 + 1)], n_processors=1))
    [(('t0', 't1'), 9007199254740993)]
    """
    found: list[tuple[tuple[str, str], int]] = []
    for edge in problem._json.get("edges", []):
        value = edge.get("data", 0)
        if isinstance(value, int) and not isinstance(value, bool) and not _is_a_float(value):
            found.append(((str(edge["src"]), str(edge["dst"])), value))
    return found


def _describe(problem: Any) -> str:
    return f"{problem.n_tasks} tasks, {problem.n_edges} edges, {problem.n_processors} processors"


def _cmd_convert(args: argparse.Namespace) -> int:
    from exactsched.workloads.loader import detect_format, load_problem

    check_output(args.output, "--output")
    to = _output_format(args.output, args.to, " (or choose the format with --to)")
    kind = detect_format(args.input)
    article = "an" if kind[0] in "aeiou" else "a"  # "an instance file"
    if args.drop_dummies and kind != "stg":
        raise MethodError(
            f"--drop-dummies: only for STG input; {args.input} is {article} {kind} file"
        )
    if args.speed and kind != "wfcommons":
        raise MethodError(
            f"--speed: only for WfCommons input; {args.input} is {article} {kind} file"
        )
    speeds = _speeds(args)
    if speeds and args.platform is not None:
        _known_types(speeds, args.platform, "--speed")
    try:
        problem = load_problem(
            args.input, args.platform, keep_dummies=not args.drop_dummies, speeds=speeds
        )
    except InstanceError as exc:
        # read_wfcommons names a speed too small for the runtimes as speeds.TYPE: the
        # user gave it as --speed TYPE=X.
        text = str(exc)
        if speeds and text.startswith("speeds."):
            raise MethodError("--speed " + text.removeprefix("speeds.")) from None
        raise
    kind = write_problem(problem, args.output, to)
    # The document itself may be standard output: the line about it goes beside it.
    stream = sys.stderr if writes_stdout(args.output) else sys.stdout
    print(f"{args.output}: {kind} ({_describe(problem)})", file=stream)
    return 0


def _output_format(path: str, to: str | None = None, hint: str = "") -> str:
    """The format of output ``path``: ``to`` when given, else from its extension.

    An unknown extension is refused rather than written as JSON under a
    name that says otherwise; ``hint`` ends the message (convert: ``--to``).
    A device or a named pipe (``/dev/stdout``), whose name cannot say the
    format, gets JSON as before.
    """
    if to is not None:
        return to
    suffix = Path(path).suffix.lower()
    if suffix in _OUTPUT_FORMATS:
        return _OUTPUT_FORMATS[suffix]
    if is_device(path):
        return "json"  # a device or a named pipe
    known = ", ".join(_OUTPUT_FORMATS)
    what = f"unknown extension {suffix!r}" if suffix else "no extension"
    raise MethodError(f"--output {path}: {what}; expected one of {known}{hint}")


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|[{}]")


def _check_output_name(args: argparse.Namespace) -> None:
    """Refuse an ``-o`` that would silently become something else than asked.

    ``{seed}`` is the only placeholder (a misspelt one would leave every seed
    the same name); with ``--count`` > 1 and no ``{seed}``, ``-o`` is a folder,
    so a name with an instance file's extension (``x.json``) that is not
    already a folder is refused rather than created as one.
    """
    others = sorted(set(_PLACEHOLDER.findall(args.output.replace("{seed}", ""))))
    if others:
        raise MethodError(
            f"--output {args.output}: unknown placeholder {', '.join(others)}; the only "
            "one is {seed}"
        )
    if "{seed}" in args.output or args.count == 1:
        # write_problem takes the format from the extension: check it before the work.
        _output_format(args.output.replace("{seed}", str(args.seed)))
        return
    if Path(args.output).suffix.lower() in _OUTPUT_FORMATS and not Path(args.output).is_dir():
        stem, suffix = Path(args.output).stem, Path(args.output).suffix
        raise MethodError(
            f"--output {args.output}: with --count {args.count}, -o is a folder or a name "
            f"containing {{seed}} (e.g. {stem}_{{seed}}{suffix})"
        )


def _outputs(args: argparse.Namespace) -> list[tuple[int, Path | None]]:
    """(seed, path) per instance; path None means 'a folder: name it after the instance'."""
    from exactsched.cli import MAX_SEED

    check_output(args.output, "--output", folder=args.count > 1 and "{seed}" not in args.output)
    _check_output_name(args)
    if args.seed + args.count - 1 > MAX_SEED:
        raise MethodError(
            f"--seed {args.seed} --count {args.count}: the last seed would be "
            f"{args.seed + args.count - 1}, more than {MAX_SEED}"
        )
    seeds = range(args.seed, args.seed + args.count)
    if "{seed}" in args.output:
        named = [(s, Path(args.output.replace("{seed}", str(s)))) for s in seeds]
        for _, path in named:  # the names written, not the pattern: never over an input
            check_output(str(path), "--output")
        return named
    if args.count == 1:
        return [(args.seed, Path(args.output))]
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise InstanceError(f"{folder}: with --count > 1, -o must be a folder or contain {{seed}}")
    folder.mkdir(parents=True, exist_ok=True)
    return [(s, None) for s in seeds]


def _generate_one(args: argparse.Namespace, seed: int) -> Any:
    from exactsched import generators
    from exactsched.workloads.cholesky import cholesky_instance
    from exactsched.workloads.tiled import tiled_instance

    kind = args.kind
    if kind in ("cholesky", "qr", "lu"):
        if args.tiles is None:
            raise MethodError(f"generate {kind}: --tiles N is required")
        n = args.tiles
        # Task counts of the tiled DAGs (docstring of tiled_instance).
        third = n + 2 if kind == "cholesky" else 2 * n + 1
        tasks = n * (n + 1) * third // 6
        check_size(tasks, MAX_TASKS, "tasks", f"generate {kind} --tiles {n}", MethodError)
        _check_cost_cells(args, tasks, f"generate {kind} --tiles {n}")
        if args.measured:
            if kind != "cholesky":
                raise MethodError("--measured: kernel timings exist for cholesky only")
            if args.count > 1:
                raise MethodError(
                    "--measured: the measured times take no seed; --count > 1 would write "
                    "identical instances"
                )
            from exactsched.workloads.platforms import resolve_platform

            spec = resolve_platform(args.platform)
            platform = {**_expanded(spec.document), "network": spec.network}
            if not _is_hoft_node(spec, platform):
                # The timings are of one Skylake core and one V100 (an outside audit:
                # written silently onto titan's Opteron and K20X).
                warnings.warn(
                    f"--measured: the kernel times were measured on a Skylake core and a "
                    f"V100 (the HOFT paper's nodes), not on the processors of {args.platform}",
                    InstanceWarning,
                    stacklevel=2,
                )
            return cholesky_instance(
                args.tiles,
                platform,
                tile_size=args.tile_size,
                integral=args.integral,
                name=args.name or f"cholesky-N{args.tiles}-nb{args.tile_size}-{spec.label}",
            )
        _check_tiled_scale(args, kind, tasks)
        return tiled_instance(
            kind,
            args.tiles,
            args.platform,
            tile_size=args.tile_size,
            noise=tuple(args.noise),
            precision=args.precision,
            rates=_rates(args),
            integral=args.integral,
            seed=seed,
            name=_name(args, seed, f"{kind}-N{n}-b{args.tile_size}", _label(args)),
        )
    if kind == "random":
        if args.tasks is None:
            raise MethodError("generate random: --tasks N is required")
        n = args.tasks
        parameters: dict[str, Any] = {
            "topcuoglu": {"alpha": args.alpha, "out_degree": _out_degree(args, n)},
            "layered": {"n_layers": args.layers or max(1, round(n**0.5)), "p": args.p},
            "erdos-renyi": {"p": args.p},
            "daggen": {
                "fat": args.fat,
                "density": args.density,
                "regularity": args.regularity,
                "jump": args.jump,
            },
        }[args.generator]
        where = f"generate random --generator {args.generator} --tasks {n}"
        _check_cost_cells(args, n, where)
        check_size(_expected_edges(args, n), MAX_EDGES, "edges expected", where, MethodError)
        rng = generators._rng(seed)
        try:
            arcs = generators.DAG_GENERATORS[args.generator](n, seed=rng, **parameters)
        except ValueError as exc:
            raise MethodError(f"generate random: {_option_message(str(exc))}") from None
        weights = args.weights or "topcuoglu"
        label = f"{args.generator}-n{n}-{weights}"
        return _weigh(args, arcs, n, None, label, rng, weights, seed)
    if args.input is None:
        raise MethodError("generate stg: give the STG file, e.g. generate stg graph.stg")
    from exactsched.workloads.stg import read_stg

    graph = read_stg(args.input, 1, keep_dummies=not args.drop_dummies)
    arcs = list(zip(graph.edge_src.tolist(), graph.edge_dst.tolist(), strict=True))
    from exactsched.workloads.platforms import resolve_platform

    cpu_gpu = set(resolve_platform(args.platform).types) <= {"cpu", "gpu"}
    weights = args.weights or ("hoft-low" if cpu_gpu else "topcuoglu")
    label = f"{Path(args.input).stem}-n{graph.n_tasks}-{weights}"
    rng = generators._rng(seed)
    # Kept dummies stay dummies: no work, no data (the STG graph has two tasks fewer).
    dummies = () if args.drop_dummies else (0, graph.n_tasks - 1)
    return _weigh(
        args, arcs, graph.n_tasks, list(graph.task_ids), label, rng, weights, seed, dummies
    )


def _check_options(args: argparse.Namespace) -> None:
    """Refuse options that the chosen kind would ignore (they are a user's mistake).

    Then fill in the defaults of the tiled options, left None by the parser so
    that a given one can be told from a default: call once, before generating.
    """
    kind = args.kind
    given = {
        "--tiles": args.tiles is not None,
        "--tile-size": args.tile_size is not None,
        "--noise": args.noise is not None,
        "--precision": args.precision is not None,
        "--measured": args.measured,
        "--tasks": args.tasks is not None,
        "--layers": args.layers is not None,
        "--drop-dummies": args.drop_dummies,
        "--ccr": args.ccr is not None,
        "--data": args.data is not None,
        "--weights": args.weights is not None,
    }
    tiled = ("--tiles", "--tile-size", "--noise", "--precision", "--measured")
    ignored = {
        "cholesky": ("--tasks", "--layers", "--drop-dummies", "--ccr", "--data", "--weights"),
        "qr": ("--tasks", "--layers", "--drop-dummies", "--ccr", "--data", "--weights"),
        "lu": ("--tasks", "--layers", "--drop-dummies", "--ccr", "--data", "--weights"),
        "random": (*tiled, "--drop-dummies"),
        "stg": (*tiled, "--tasks", "--layers"),
    }[kind]
    for option in ignored:
        if given[option]:
            raise MethodError(f"{option}: not an option of generate {kind}")
    if args.measured:
        # The measured kernel times take neither flop rates, nor noise, nor data sizes.
        for option in ("--noise", "--precision"):
            if given[option]:
                raise MethodError(f"{option}: not used with --measured (measured kernel times)")
        if args.rate:
            raise MethodError("--rate: not used with --measured (measured kernel times)")
    if kind in ("random", "stg") and args.rate and args.weights != "flops":
        raise MethodError(f"--rate: only with --weights flops for generate {kind}")
    _check_random_options(args)
    args.tile_size = 128 if args.tile_size is None else args.tile_size
    args.noise = _NOISE if args.noise is None else tuple(args.noise)
    args.precision = 8 if args.precision is None else args.precision
    if kind != "stg" and args.input is not None:
        raise MethodError(f"generate {kind}: takes no input file (got {args.input!r})")
    rates = _rates(args)
    if rates:
        _known_types(rates, args.platform, "--rate")
    if kind == "random" and args.layers is not None and args.layers > (args.tasks or args.layers):
        # Every layer holds a task, so there are at most --tasks of them.
        warnings.warn(
            f"--layers {args.layers}: more than the {args.tasks} tasks; the DAG gets "
            f"{args.tasks} layers (one task each)",
            InstanceWarning,
            stacklevel=2,
        )


#: The options of each random DAG generator, and their defaults (None: computed).
_DAG_OPTIONS: dict[str, tuple[str, ...]] = {
    "topcuoglu": ("alpha", "out_degree"),
    "layered": ("layers", "p"),
    "erdos-renyi": ("p",),
    "daggen": ("fat", "density", "regularity", "jump"),
}
#: The generators' numeric options: type, default and help (the parser is built from it).
_DAG_NUMBERS: dict[str, tuple[Any, float, str]] = {
    "alpha": (finite_arg, 1.0, "topcuoglu: shape"),
    "p": (finite_arg, 0.3, "layered, erdos-renyi: arc probability"),
    "fat": (finite_arg, 0.5, "daggen: width n**fat"),
    "density": (finite_arg, 0.5, "daggen: parents per task"),
    "regularity": (finite_arg, 0.5, "daggen: level widths"),
    "jump": (int_arg(1, MAX_TASKS), 1, "daggen: levels an arc may jump"),
}
_DAG_DEFAULTS: dict[str, Any] = {
    "out_degree": None,  # computed from --tasks
    "layers": None,  # sqrt(n)
    **{key: default for key, (_, default, _) in _DAG_NUMBERS.items()},
}
#: The topcuoglu cost scheme's options: default and help.
_TOPCUOGLU_WEIGHTS: dict[str, tuple[float, str]] = {
    "beta": (0.5, "topcuoglu heterogeneity"),
    "w_dag": (50.0, "topcuoglu mean cost"),
}


def _option(key: str) -> str:
    """The command-line flag of an argument name (``w_dag`` is ``--w-dag``)."""
    return "--" + key.replace("_", "-")


def _check_random_options(args: argparse.Namespace) -> None:
    """Refuse a generator's or a cost scheme's options given to another, then fill in
    the defaults: each was silently dropped before (an outside audit, session 17)."""
    wanted = _DAG_OPTIONS[args.generator] if args.kind == "random" else ()
    for key, default in _DAG_DEFAULTS.items():
        if getattr(args, key, None) is None:
            setattr(args, key, default)
        elif key not in wanted:
            if args.kind != "random":
                raise MethodError(f"{_option(key)}: not an option of generate {args.kind}")
            users = [g for g, keys in _DAG_OPTIONS.items() if key in keys]
            raise MethodError(
                f"{_option(key)}: only with --generator {' or '.join(users)}, not {args.generator}"
            )
    # stg's default scheme depends on the platform: _weigh checks it once known.
    given = [_option(key) for key in _TOPCUOGLU_WEIGHTS if getattr(args, key, None) is not None]
    args.topcuoglu_options = given
    for key, (default, _) in _TOPCUOGLU_WEIGHTS.items():
        if getattr(args, key, None) is None:
            setattr(args, key, default)
        elif args.kind not in ("random", "stg"):
            raise MethodError(f"{_option(key)}: not an option of generate {args.kind}")
    if args.ccr is not None and args.data is not None:
        raise MethodError("--ccr: not used with --data (McSweeney's data regimes set the data)")


def _check_tiled_scale(args: argparse.Namespace, kind: str, tasks: int) -> None:
    """Refuse a ``--noise`` or ``--rate`` whose tiled task times would overflow.

    Checked before drawing: left to the instance parser, the overflow reads as
    an infinite cost of a generated task, naming neither option.
    """
    from exactsched.workloads.platforms import resolve_platform
    from exactsched.workloads.tiled import TILED_ALGORITHMS
    from exactsched.workloads.weights import kernel_flops

    low, high = args.noise
    if not 0 < low <= high:
        raise MethodError(f"--noise {low:g} {high:g}: expected 0 < L <= U")
    spec = resolve_platform(args.platform)
    rates = _rates(args) or _preset_rates(spec)
    # Three tiles already hold every kernel of the algorithm.
    _, kernels, _ = TILED_ALGORITHMS[kind](min(args.tiles, 3))
    largest = max(kernel_flops(k, args.tile_size) for k in set(kernels))
    where = f"generate {kind} --tiles {args.tiles} --tile-size {args.tile_size}"
    _check_time_overflow(args, spec, rates, largest, tasks, high, where)


def _preset_rates(spec: Any) -> dict[str, float] | None:
    """A preset's peak rates by processor type, None for another platform."""
    if spec.hardware is None:
        return None
    return {"cpu": spec.hardware.cpu, "gpu": spec.hardware.gpu}


def _check_flop_scale(args: argparse.Namespace, weights: str, spec: Any, tasks: int) -> None:
    """Refuse a ``--rate`` whose random flop times (``--weights flops``) would overflow.

    The scheme draws integer flop counts up to 100 x the GPU rate (numpy's
    64-bit integers) and divides them by each type's rate, times a factor up
    to 10.
    """
    if weights != "flops" or not set(spec.types) <= {"cpu", "gpu"}:
        return  # random_workload refuses the platform, naming the scheme
    rates = _rates(args) or _preset_rates(spec)
    if rates is None or "gpu" not in rates:
        return  # random_workload asks for the missing rate
    if 100 * rates["gpu"] >= 2**63:
        raise MethodError(
            f"--rate gpu={rates['gpu']:g}: too large: --weights flops draws integer flop "
            "counts up to 100 x the GPU rate, which must stay below 2^63"
        )
    largest = max(1.0, float(int(100 * rates["gpu"])))
    where = f"generate {args.kind} --weights flops"
    _check_time_overflow(args, spec, rates, largest, tasks, _NOISE[1], where)


def _check_time_overflow(
    args: argparse.Namespace,
    spec: Any,
    rates: Mapping[str, float] | None,
    flops: float,
    tasks: int,
    high: float,
    where: str,
) -> None:
    """Refuse rates and noise whose task times could add up past the largest float.

    A task of at most ``flops`` flops takes up to ``flops / rate x high`` on
    the slowest type; ``tasks`` of them in a row (the instance parser's serial
    check) must stay finite. The culprit named is ``--rate`` when the default
    noise bound already overflows, else ``--noise``.
    """
    types = set(spec.types)
    if rates is None or not types <= set(rates):
        return  # the generator names the missing rate
    slowest = min(types, key=rates.__getitem__)
    rate = rates[slowest]
    ceiling = sys.float_info.max

    def total(bound: float) -> float:
        return tasks * (flops / rate) * bound  # a float: inf on overflow, no exception

    if total(high) <= ceiling:
        return
    if args.rate and total(min(high, _NOISE[1])) > ceiling:
        raise MethodError(
            f"--rate {slowest}={rate:g}: too small for {where}: tasks of up to {flops:.3g} "
            f"flops at this rate would take more than the largest float ({ceiling:.2g}) in all"
        )
    low = args.noise[0]
    raise MethodError(
        f"--noise {low:g} {high:g}: U too large for {where}: times of up to {flops:.3g} "
        f"flops / {rate:g} ({slowest}) x U would add up past the largest float ({ceiling:.2g})"
    )


def _check_cost_cells(args: argparse.Namespace, tasks: int, where: str) -> None:
    """Refuse a task x processor cost matrix over the limit before drawing it."""
    from exactsched.workloads.platforms import resolve_platform

    cells = tasks * len(resolve_platform(args.platform).types)
    check_size(cells, MAX_COST_CELLS, "task x processor costs", f"{where} --platform "
               f"{args.platform}", MethodError)  # fmt: skip


def _known_types(values: dict[str, float], platform: Any, option: str) -> None:
    """Refuse ``--speed``/``--rate`` entries for a type the platform does not have."""
    from exactsched.workloads.platforms import resolve_platform

    types = resolve_platform(platform).types
    for ptype in values:
        if ptype not in types:
            known = ", ".join(dict.fromkeys(types))
            raise MethodError(
                f"{option} {ptype}={values[ptype]:g}: the platform {platform} has no "
                f"processor type {ptype!r} (its types: {known})"
            )


def _expected_edges(args: argparse.Namespace, n: int) -> int:
    """About how many edges the random generator would draw (to refuse absurd sizes)."""
    p = args.p if 0 <= args.p <= 1 else 1.0
    if args.generator == "erdos-renyi":
        return int(p * n * (n - 1) / 2)
    if args.generator == "layered":
        layers = args.layers or max(1, round(n**0.5))
        width = n / layers
        return int(p * width * width * (layers - 1)) + n
    if args.generator == "daggen":
        fat = args.fat if 0 <= args.fat <= 1 else 1.0
        density = args.density if 0 <= args.density <= 1 else 1.0
        return int(n * max(1.0, 1.5 * density * 2 * n**fat))
    degree = _out_degree(args, n)
    degree = degree if 1 <= degree <= n else n
    return int(n * (2 * degree)) + n


def _out_degree(args: argparse.Namespace, n: int) -> float:
    """``--out-degree``, by default 2 capped at the task count (one task has no children).

    A default the user never gave must not be what refuses the command.
    """
    if args.out_degree is not None:
        return float(args.out_degree)
    return min(_OUT_DEGREE, float(n))


def _option_message(message: str) -> str:
    """A generator's ``parameter: why`` message with the parameter as its CLI option."""
    name, sep, rest = message.partition(":")
    option = _GENERATOR_OPTIONS.get(name)
    return f"{option}:{rest}" if sep and option else message


def _ccr_range(text: str) -> tuple[float, float]:
    """``--ccr X`` (positive) or ``--ccr LOW:HIGH`` (``0 <= LOW <= HIGH``, HIGH positive).

    LOW may be 0: the HOFT paper's first interval is 0:10.
    """
    parts = str(text).split(":")
    try:
        values = [float(x) for x in parts]
    except ValueError:
        values = []
    if (
        len(values) not in (1, 2)
        or not all(0 <= v < float("inf") for v in values)
        or not values[-1] > 0
    ):
        raise MethodError(
            f"--ccr: expected X > 0 or LOW:HIGH with 0 <= LOW and HIGH > 0, got {text!r}"
        )
    low, high = values[0], values[-1]
    if low > high:
        raise MethodError(f"--ccr: LOW > HIGH in {text!r}")
    return low, high


def _type_values(texts: list[str], option: str, unit: str) -> dict[str, float] | None:
    """``TYPE=X`` options (``--speed``, ``--rate``) as a mapping, None when there are none.

    A type given twice is refused, as a repeated ``-O`` key is: keeping the
    last value would silently drop the first.
    """
    values: dict[str, float] = {}
    for text in texts:
        ptype, _, value = text.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not ptype or not 0 < number < float("inf"):
            raise MethodError(f"{option}: expected TYPE={unit} with {unit} > 0, got {text!r}")
        if ptype in values:
            raise MethodError(
                f"{option} {ptype}: given twice ({ptype}={values[ptype]:g} and {text})"
            )
        values[ptype] = number
    return values or None


def _speeds(args: argparse.Namespace) -> dict[str, float] | None:
    """The ``--speed TYPE=X`` options as a mapping, None when there are none."""
    return _type_values(getattr(args, "speed", []), "--speed", "X")


def _rates(args: argparse.Namespace) -> dict[str, float] | None:
    """The ``--rate TYPE=FLOPS`` options as a mapping, None when there are none."""
    return _type_values(args.rate, "--rate", "FLOPS")


def _is_hoft_node(spec: Any, platform: Mapping[str, Any]) -> bool:
    """Whether a resolved platform is one of the HOFT paper's nodes (7 + 1 or 28 + 4).

    By preset, whatever its spelling (a name, an alias, a ``{"preset": ...}``
    file), or by content (the preset written out, as ``generate`` writes it).
    """
    from topologies.presets import PRESET_HARDWARE, platform_preset

    for name in ("hoft-single-gpu", "hoft-multi-gpu"):
        if spec.hardware == PRESET_HARDWARE[name]:
            return True
        preset = platform_preset(name)
        if list(platform["processors"]) == list(preset["processors"]) and dict(
            platform["network"]
        ) == dict(preset["network"]):
            return True
    return False


def _expanded(document: Any) -> dict[str, Any]:
    from exactsched.instance import _expand_preset

    return dict(_expand_preset(document))


def _weigh(
    args: argparse.Namespace,
    arcs: list[tuple[int, int]],
    n: int,
    ids: list[str] | None,
    label: str,
    rng: Any,
    weights: str,
    seed: int,
    zero_cost: tuple[int, ...] = (),
) -> Any:
    from exactsched.generators import random_workload
    from exactsched.workloads.platforms import resolve_platform
    from exactsched.workloads.weights import CCR_TOLERANCE, CCRRoundingError

    spec = resolve_platform(args.platform)
    if weights != "topcuoglu" and getattr(args, "topcuoglu_options", None):
        raise MethodError(
            f"{args.topcuoglu_options[0]}: only with --weights topcuoglu, not {weights}"
        )
    _check_flop_scale(args, weights, spec, n)
    low, high = _ccr_range("1" if args.ccr is None else args.ccr)
    target: float | None = low if low == high else float(rng.uniform(low, high))
    regime = f"data-{args.data}" if args.data else f"ccr{round(target, 3):g}"
    data_arcs = any(a not in zero_cost and b not in zero_cost for a, b in arcs)
    if args.ccr is None and args.data is None and (not spec.hops.any() or not data_arcs):
        # The default CCR cannot be set where no processors communicate (one
        # processor) or no edge carries data: leave the data as drawn. A --ccr
        # given there is refused (random_workload), not dropped.
        target, regime = None, "no-comm"
    elif args.ccr is not None and low == 0 and not data_arcs:
        # LOW:HIGH admits 0, the one CCR a graph without data edges has.
        target, regime = 0.0, "ccr0"
    try:
        return random_workload(
            arcs,
            n,
            args.platform,
            weights=weights,
            ccr=target,
            ccr_definition=args.ccr_definition,
            data=args.data,
            beta=args.beta,
            w_dag=args.w_dag,
            rates=_rates(args),
            integral=args.integral,
            task_ids=ids,
            name=_name(args, seed, f"{label}-{regime}", spec.label),
            seed=rng,
            zero_cost=zero_cost,
        )
    except CCRRoundingError as exc:
        if not exc.integral:
            raise
        # Only the topcuoglu scheme's costs grow with --w-dag.
        advice = ""
        if weights == "topcuoglu":
            advice = f"give a larger --w-dag (now {args.w_dag:g}) or "
        raise MethodError(
            f"--ccr {exc.target:g} --integral: the data rounded to whole units (at least 1) "
            f"give CCR {exc.achieved:.3g} ({exc.definition}), more than "
            f"{CCR_TOLERANCE:.0%} off; {advice}drop --integral"
        ) from None
    except ValueError as exc:
        if isinstance(exc, InstanceError | MethodError):
            raise
        raise MethodError(str(exc)) from None


def _label(args: argparse.Namespace) -> str:
    from exactsched.workloads.platforms import resolve_platform

    return resolve_platform(args.platform).label


def _name(args: argparse.Namespace, seed: int, what: str, platform: str) -> str:
    """The instance name: generator and size, platform, seed (``--name`` replaces the first
    three; with ``--count`` > 1 it still gets the seed, so that every name differs)."""
    if args.name is not None:
        return f"{args.name}-seed{seed}" if args.count > 1 else args.name
    return f"{what}-{platform}-seed{seed}"


def _cmd_generate(args: argparse.Namespace) -> int:
    if args.name is not None and not args.name.strip():
        raise MethodError("--name: empty name")
    _check_options(args)  # before _outputs creates a folder
    for seed, path in _outputs(args):
        problem = _generate_one(args, seed)
        if path is None:
            safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in problem.name)
            suffix = "" if safe.endswith(f"-seed{seed}") else f"-seed{seed}"
            path = Path(args.output) / f"{safe}{suffix}.json"
            check_output(str(path), "--output")  # a name made here: not over an input
        kind = write_problem(problem, path)
        stream = sys.stderr if writes_stdout(path) else sys.stdout
        print(f"{path}: {kind} ({_describe(problem)}, seed {seed})", file=stream)
    return 0
