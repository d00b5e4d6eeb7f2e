"""Network topologies for exactsched: the hops between two processors.

Implements the "Networks" section of the exactsched instance format: build a
topology from an instance's ``platform.network`` object with :func:`from_network`
(or get its hop matrix straight away with :func:`hop_matrix`), or construct one
directly. Ready-made CPU-GPU platforms from the literature are in
:func:`platform_preset`.

Examples
--------
>>> from topologies import from_network
>>> net = from_network({"topology": "fat-tree"}, ["cpu"] * 8)
>>> net.hops()[0].tolist()
[0.0, 1.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0]
"""

from topologies.errors import TopologyError
from topologies.networks import (
    TOPOLOGIES,
    AcceleratedNode,
    FatTree,
    FullyConnected,
    Hypercube,
    Matrix,
    Mesh,
    Topology,
    Torus,
    from_network,
    hop_matrix,
)
from topologies.presets import PLATFORM_PRESETS, cpu_gpu_platform, platform_preset

__all__ = [
    "PLATFORM_PRESETS",
    "TOPOLOGIES",
    "AcceleratedNode",
    "FatTree",
    "FullyConnected",
    "Hypercube",
    "Matrix",
    "Mesh",
    "Topology",
    "TopologyError",
    "Torus",
    "cpu_gpu_platform",
    "from_network",
    "hop_matrix",
    "platform_preset",
]
