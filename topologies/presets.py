"""Ready-made CPU-GPU platforms from the literature.

Each preset is a dict in the ``platform`` form of the instance format: CPU cores
``"c0"``, ``"c1"``, ... of type ``"cpu"`` first, then GPUs ``"g0"``, ``"g1"``, ... of
type ``"gpu"``, on an ``accelerated-node`` network (CPU cores share memory, so
CPU-CPU transfers are free; every other transfer costs one hop). Following the
sources, every CPU core is one processor and every whole GPU is one processor.

==================== ===== ===== =====================================================
name                 CPUs  GPUs  source
==================== ===== ===== =====================================================
``hoft-single-gpu``      7     1 McSweeney, Walton and Zounon (2020), "Single GPU" [1]_
``hoft-multi-gpu``      28     4 McSweeney, Walton and Zounon (2020), "Multiple GPU" [1]_
``titan``               16     1 one Titan node, McSweeney (2019), section 3.1 [2]_
``summit``              44     6 one Summit node, McSweeney (2019), section 3.1 [2]_
==================== ===== ===== =====================================================

``single-gpu`` and ``multi-gpu`` are aliases of the two HOFT platforms
(:data:`PRESET_ALIASES`). :data:`PRESET_HARDWARE` gives each preset's peak
double-precision rate per CPU core and per GPU (flops per microsecond, as in
McSweeney's simulator [2]_, section 3.2.3) and the bandwidth of its interconnect
(bytes per microsecond): what the flop-based weights of
:mod:`exactsched.workloads.weights` divide by.

References
----------
.. [1] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static Scheduling
   Heuristic for Accelerated Architectures", ICCS 2020, LNCS 12137, pp. 3-16,
   doi:10.1007/978-3-030-50371-0_1.
.. [2] T. McSweeney, "Scheduling with Precedence Constraints in High-Performance
   Computing", second-year PhD continuation report, School of Mathematics,
   University of Manchester, 19 August 2019.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = [
    "PLATFORM_PRESETS",
    "PRESET_ALIASES",
    "PRESET_HARDWARE",
    "Hardware",
    "cpu_gpu_platform",
    "platform_preset",
    "preset_name",
]

# name -> (CPU processors, GPU processors)
_COUNTS: dict[str, tuple[int, int]] = {
    # [1], section 3: "Single GPU, comprising 1 GPU and 1 octacore CPU ... a CPU core is
    # dedicated to managing each of the GPUs ... 7 CPU and 1 GPU resources".
    "hoft-single-gpu": (7, 1),
    # [1], section 3: "Multiple GPU, comprising 4 GPUs and 4 octacore CPUs ... 28 CPU
    # and 4 GPU resources" (4 x 8 cores, one per GPU dedicated to managing it).
    "hoft-multi-gpu": (28, 4),
    # [2], section 3.1: a Titan node has "a 16-core AMD Opteron CPU and a NVIDIA
    # Kepler K20X GPU".
    "titan": (16, 1),
    # [2], section 3.1: a Summit node has "two 22-core IBM Power9 CPUs and six NVIDIA
    # V100 GPUs"; section 1 counts it as "forty-four PUs of CPU-type and just six of
    # GPU-type".
    "summit": (44, 6),
}

#: One-line description, with its source, of each preset name.
PLATFORM_PRESETS: Mapping[str, str] = MappingProxyType(
    {
        "hoft-single-gpu": (
            "7 CPU cores + 1 GPU: the 'Single GPU' platform (one octacore CPU, one core "
            "managing the GPU) of McSweeney, Walton, Zounon, ICCS 2020"
        ),
        "hoft-multi-gpu": (
            "28 CPU cores + 4 GPUs: the 'Multiple GPU' platform (four octacore CPUs, one "
            "core per GPU managing it) of McSweeney, Walton, Zounon, ICCS 2020"
        ),
        "titan": (
            "16 CPU cores + 1 GPU: one Titan node (16-core AMD Opteron, NVIDIA K20X), "
            "McSweeney, PhD continuation report 2019, section 3.1"
        ),
        "summit": (
            "44 CPU cores + 6 GPUs: one Summit node (two 22-core IBM Power9, six NVIDIA "
            "V100), McSweeney, PhD continuation report 2019, section 3.1"
        ),
    }
)


#: Short names of the presets, accepted wherever a preset name is.
PRESET_ALIASES: Mapping[str, str] = MappingProxyType(
    {"single-gpu": "hoft-single-gpu", "multi-gpu": "hoft-multi-gpu"}
)


class Hardware(NamedTuple):
    """Peak rates of a preset: what flop-based task weights divide by.

    ``cpu`` and ``gpu`` are peak double-precision rates of one CPU core and of
    one whole GPU in flops per microsecond; ``bandwidth`` is the peak bandwidth
    of the interconnect in bytes per microsecond; ``source`` says where each
    figure comes from.
    """

    cpu: float
    gpu: float
    bandwidth: float
    source: str


# Peak rates = clock x double-precision flops per cycle (McSweeney's report,
# section 3.2.3, computes its defaults the same way); vendor data sheets.
_SKYLAKE_6130 = 2.1e3 * 32  # 2.1 GHz, AVX-512 with two FMA units: 32 flops/cycle per core
_V100_SXM2 = 7.8e6  # 7.8 TFLOP/s double precision
_OPTERON_6274 = 2.2e3 * 4  # 2.2 GHz, one shared FMA4 unit per two cores: 4 flops/cycle per core
_K20X = 1.31e6  # 1.31 TFLOP/s double precision
_POWER9 = 3.07e3 * 8  # 3.07 GHz, two 2-wide VSX FMA pipes: 8 flops/cycle per core

#: Preset name -> :class:`Hardware`.
PRESET_HARDWARE: Mapping[str, Hardware] = MappingProxyType(
    {
        "hoft-single-gpu": Hardware(
            _SKYLAKE_6130,
            _V100_SXM2,
            15754.0,
            "Xeon Gold 6130 core 67.2 GFLOP/s, V100-SXM2 7.8 TFLOP/s, PCIe 3.0 x16 "
            "15.754 GB/s between CPU and GPU",
        ),
        "hoft-multi-gpu": Hardware(
            _SKYLAKE_6130,
            _V100_SXM2,
            15754.0,
            "Xeon Gold 6130 core 67.2 GFLOP/s, V100-SXM2 7.8 TFLOP/s, PCIe 3.0 x16 "
            "15.754 GB/s between CPU and GPU",
        ),
        "titan": Hardware(
            _OPTERON_6274,
            _K20X,
            8912.0,
            "Opteron 6274 core 8.8 GFLOP/s, K20X 1.31 TFLOP/s, Cray Gemini 8912 B/us "
            "(the figure of McSweeney's report, section 4.6)",
        ),
        "summit": Hardware(
            _POWER9,
            _V100_SXM2,
            25000.0,
            "Power9 core 24.56 GFLOP/s, V100-SXM2 7.8 TFLOP/s, dual-rail EDR InfiniBand "
            "2 x 12.5 GB/s (the interconnect named in McSweeney's report, section 3.1)",
        ),
    }
)


def preset_name(name: str) -> str:
    """The canonical name of a preset or alias.

    Raises
    ------
    ValueError
        If ``name`` is neither; the message lists the known names.

    Examples
    --------
    >>> preset_name("multi-gpu"), preset_name("summit")
    ('hoft-multi-gpu', 'summit')
    """
    if isinstance(name, str) and name in PRESET_ALIASES:
        return PRESET_ALIASES[name]
    if not isinstance(name, str) or name not in _COUNTS:
        known = ", ".join(sorted(_COUNTS))
        aliases = ", ".join(sorted(PRESET_ALIASES))
        raise ValueError(f"unknown platform preset {name!r}; known: {known} (aliases: {aliases})")
    return name


def cpu_gpu_platform(n_cpus: int, n_gpus: int) -> dict[str, Any]:
    """A single accelerated node with `n_cpus` CPU cores and `n_gpus` GPUs.

    Parameters
    ----------
    n_cpus, n_gpus : int
        Non-negative counts, not both zero.

    Returns
    -------
    dict
        The ``platform`` object: processors ``c0 .. c{n_cpus-1}`` of type ``"cpu"``
        then ``g0 .. g{n_gpus-1}`` of type ``"gpu"``, and the network
        ``{"topology": "accelerated-node"}``.

    Raises
    ------
    ValueError
        If a count is negative or not an integer, or both are zero.

    Examples
    --------
    >>> cpu_gpu_platform(2, 1)  # doctest: +NORMALIZE_WHITESPACE
    {'processors': [{'id': 'c0', 'type': 'cpu'}, {'id': 'c1', 'type': 'cpu'},
                    {'id': 'g0', 'type': 'gpu'}],
     'network': {'topology': 'accelerated-node'}}
    """
    for what, n in (("n_cpus", n_cpus), ("n_gpus", n_gpus)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{what} must be a non-negative integer, got {n!r}")
    if n_cpus + n_gpus == 0:
        raise ValueError("a platform needs at least one processor")
    processors = [{"id": f"c{k}", "type": "cpu"} for k in range(n_cpus)]
    processors += [{"id": f"g{k}", "type": "gpu"} for k in range(n_gpus)]
    return {"processors": processors, "network": {"topology": "accelerated-node"}}


def platform_preset(name: str) -> dict[str, Any]:
    """The ``platform`` object of a named CPU-GPU node from the literature.

    Parameters
    ----------
    name : str
        One of ``PLATFORM_PRESETS``: ``"hoft-single-gpu"`` and ``"hoft-multi-gpu"``
        (7 + 1 and 28 + 4 processors, from [1]_; aliases ``"single-gpu"`` and
        ``"multi-gpu"``), ``"titan"`` and ``"summit"`` (16 + 1 and 44 + 6
        processors, from section 3.1 of [2]_).

    Returns
    -------
    dict
        A fresh dict (safe to modify) as built by :func:`cpu_gpu_platform`.

    Raises
    ------
    ValueError
        If `name` is not a preset; the message lists the known names.

    Examples
    --------
    >>> platform = platform_preset("hoft-single-gpu")
    >>> [p["id"] for p in platform["processors"]]
    ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'g0']
    >>> platform["network"]
    {'topology': 'accelerated-node'}
    >>> sorted(PLATFORM_PRESETS)
    ['hoft-multi-gpu', 'hoft-single-gpu', 'summit', 'titan']

    Notes
    -----
    The HOFT platforms of [1]_ dedicate one CPU core to managing each GPU, so an
    octacore CPU contributes 7 CPU processors next to its GPU. The continuation
    report [2]_ counts every core of a Titan or Summit node and reserves none;
    the presets follow each source as written.

    References
    ----------
    .. [1] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static
       Scheduling Heuristic for Accelerated Architectures", ICCS 2020, LNCS 12137,
       pp. 3-16, doi:10.1007/978-3-030-50371-0_1.
    .. [2] T. McSweeney, "Scheduling with Precedence Constraints in High-Performance
       Computing", second-year PhD continuation report, University of Manchester,
       2019.
    """
    return cpu_gpu_platform(*_COUNTS[preset_name(name)])
