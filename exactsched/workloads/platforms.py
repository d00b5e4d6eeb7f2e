"""Platforms given on the command line or to a generator: a preset, a file or a shorthand.

Contract
--------
:func:`resolve_platform` accepts

* a preset name or alias of :mod:`topologies.presets` (``"single-gpu"``,
  ``"multi-gpu"``, ``"titan"``, ``"summit"``, ``"hoft-single-gpu"``, ...);
* a shorthand ``TOPOLOGY:SHAPE``: ``fully-connected:4``, ``mesh:4x4``,
  ``torus:2x2x2``, ``hypercube:8``, ``fat-tree:8`` (identical processors
  ``p0 ..`` of type ``default``) or ``cpu-gpu:C+G`` (``C`` CPU cores and ``G``
  GPUs on an ``accelerated-node`` network);
* the path of a JSON file holding a ``platform`` object or a whole instance
  (whose platform is taken);
* a ``platform`` object (a mapping, possibly ``{"preset": ..., "network": ...}``).

It returns a :class:`PlatformSpec`: the object to write into an instance (a
preset stays a preset), the expanded processors and network, and the peak
rates of a preset (None otherwise).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from exactsched.errors import InstanceError
from exactsched.limits import MAX_PROCESSORS, check_size

__all__ = ["PlatformSpec", "resolve_platform"]


class PlatformSpec(NamedTuple):
    """A resolved platform.

    ``document`` goes into an instance as its ``platform``; ``types`` lists the
    processor types in platform order; ``network`` is the expanded network
    object; ``hardware`` holds the peak rates of a preset, else None; ``label``
    names the platform in file and instance names; ``hops`` is the hop matrix.
    """

    document: Any
    types: list[str]
    network: dict[str, Any]
    hardware: Any
    label: str
    hops: Any


_SHORTHAND = re.compile(r"^([a-z-]+):([0-9x+]+)$")


def _shorthand(text: str) -> dict[str, Any]:
    from topologies.presets import cpu_gpu_platform

    match = _SHORTHAND.match(text)
    if match is None:
        raise InstanceError(
            f"platform: {text!r} is not a preset, a shorthand like 'mesh:4x4' or a file"
        )
    topology, shape = match.groups()
    try:
        if topology == "cpu-gpu":
            n_cpu, n_gpu = (int(x) for x in shape.split("+"))
            check_size(n_cpu + n_gpu, MAX_PROCESSORS, "processors", f"platform {text!r}")
            return cpu_gpu_platform(n_cpu, n_gpu)
        dims = [int(x) for x in shape.split("x")]
    except ValueError as exc:
        if isinstance(exc, InstanceError):
            raise
        raise InstanceError(f"platform: bad shape {shape!r} in {text!r}") from None
    count = 1
    for d in dims:
        count *= d
    check_size(count, MAX_PROCESSORS, "processors", f"platform {text!r}")
    if count < 1:
        raise InstanceError(f"platform: {text!r} has no processors")
    network: dict[str, Any] = {"topology": topology}
    if topology in ("mesh", "torus"):
        if len(dims) == 1:
            from exactsched.generators import _factor_dims

            dims = _factor_dims(count)
        network["dims"] = dims
    elif len(dims) != 1:
        raise InstanceError(f"platform: {topology} takes a processor count, got {shape!r}")
    elif topology == "fat-tree":
        network["arity"] = 2
    elif topology not in ("fully-connected", "hypercube"):
        raise InstanceError(
            f"platform: unknown shorthand topology {topology!r}; known: cpu-gpu, "
            "fat-tree, fully-connected, hypercube, mesh, torus"
        )
    return {"processors": [{"id": f"p{k}"} for k in range(count)], "network": network}


def _refuse_other_file(path: str) -> None:
    """Refuse a path that exists but is no regular file (a folder, a FIFO, a device).

    Such a path is neither a preset nor a shorthand, and saying so would hide
    why it was refused.
    """
    from exactsched.instance import not_a_file

    if not os.path.lexists(path):
        return
    if os.path.isdir(path):
        raise InstanceError(f"platform: {path!r} is a directory, not a platform or instance file")
    if not os.path.exists(path):
        raise InstanceError(f"platform: {path!r} is a symbolic link to a missing file")
    why = not_a_file(path) or "not a regular file"
    raise InstanceError(f"platform: {path!r} is {why}")


def _platform_document(path: str, loaded: Any) -> Any:
    """The platform object of a JSON file: the file itself, or an instance's ``platform``.

    Any other document (a schedule, a study export, a list) is refused naming
    the file, instead of the parser's complaint about a missing object.
    """
    from exactsched.instance import FORMAT

    if not isinstance(loaded, Mapping):
        kind = "a list" if isinstance(loaded, list) else f"a {type(loaded).__name__}"
        raise InstanceError(
            f"platform: {path!r} holds {kind}, not a platform object or an instance document"
        )
    if "format" not in loaded:
        return loaded  # a platform object; the parser checks its keys
    if loaded["format"] != FORMAT:
        shown = str(loaded["format"])[:60]
        raise InstanceError(
            f"platform: {path!r} is a document of format {shown!r}, not a platform or an "
            f"instance ({FORMAT!r}) file"
        )
    if "platform" not in loaded:
        raise InstanceError(f"platform: {path!r} is an instance without a 'platform' key")
    return loaded["platform"]


def resolve_platform(spec: Any) -> PlatformSpec:
    """Resolve a preset name, shorthand, file path or platform object.

    Raises
    ------
    InstanceError
        One line naming what is wrong: an unknown name, a path that is a
        folder or no regular file, an unreadable file, a JSON file holding
        neither a platform nor an instance (a schedule, say), or a platform the
        instance format refuses.

    Examples
    --------
    >>> spec = resolve_platform("multi-gpu")
    >>> spec.document, spec.types.count("gpu"), spec.hardware.bandwidth
    ({'preset': 'multi-gpu'}, 4, 15754.0)
    >>> resolve_platform("mesh:2x3").network
    {'topology': 'mesh', 'dims': [2, 3]}
    >>> resolve_platform("cpu-gpu:2+1").types
    ['cpu', 'cpu', 'gpu']
    """
    from exactsched.instance import parse_instance, read_json
    from topologies.presets import PRESET_ALIASES, PRESET_HARDWARE, preset_name

    hardware = None
    label = "platform"
    if isinstance(spec, str | os.PathLike) and not isinstance(spec, str):
        spec = str(spec)
    if isinstance(spec, str):
        if spec in PRESET_ALIASES or spec in PRESET_HARDWARE:
            hardware = PRESET_HARDWARE[preset_name(spec)]
            document: Any = {"preset": spec}
            label = spec
        elif Path(spec).is_file():
            loaded = _platform_document(spec, read_json(spec))
            if isinstance(loaded, Mapping) and "preset" in loaded:
                name = loaded["preset"]
                if isinstance(name, str) and name in {**PRESET_ALIASES, **PRESET_HARDWARE}:
                    hardware = PRESET_HARDWARE[preset_name(name)]
            document = loaded
            label = Path(spec).stem
        else:
            _refuse_other_file(spec)
            document = _shorthand(spec)
            label = spec.replace(":", "-").replace("+", "-")
    elif isinstance(spec, Mapping):
        document = dict(spec)
        name = spec.get("preset")
        if isinstance(name, str) and name in {**PRESET_ALIASES, **PRESET_HARDWARE}:
            hardware = PRESET_HARDWARE[preset_name(name)]
    else:
        raise InstanceError(
            f"platform: expected a preset name, a file or a platform object, got {spec!r}"
        )
    # Let the instance parser check the platform (one task of cost 0 suffices).
    probe = parse_instance(
        {
            "format": "exactsched/instance@1",
            "platform": document,
            "tasks": [{"id": "probe", "cost": 0}],
        }
    )
    return PlatformSpec(
        document, list(probe.proc_types), dict(probe.network), hardware, label, probe.hops
    )
