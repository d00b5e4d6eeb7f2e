"""Tests of topologies.presets: the CPU-GPU platforms from McSweeney's papers."""

import numpy as np
import pytest

from topologies import PLATFORM_PRESETS, cpu_gpu_platform, from_network, platform_preset


@pytest.mark.parametrize(
    ("name", "n_cpus", "n_gpus"),
    [
        # McSweeney, Walton, Zounon, ICCS 2020, section 3: 7 CPU + 1 GPU and 28 CPU + 4 GPU.
        ("hoft-single-gpu", 7, 1),
        ("hoft-multi-gpu", 28, 4),
        # McSweeney, continuation report 2019, section 3.1: one 16-core Opteron + one
        # K20X; two 22-core Power9 + six V100 ("forty-four PUs of CPU-type and ... six").
        ("titan", 16, 1),
        ("summit", 44, 6),
    ],
)
def test_preset_counts(name, n_cpus, n_gpus):
    platform = platform_preset(name)
    ids = [p["id"] for p in platform["processors"]]
    types = [p["type"] for p in platform["processors"]]
    assert ids == [f"c{k}" for k in range(n_cpus)] + [f"g{k}" for k in range(n_gpus)]
    assert types == ["cpu"] * n_cpus + ["gpu"] * n_gpus
    assert platform["network"] == {"topology": "accelerated-node"}
    hops = from_network(platform["network"], types).hops()
    assert not hops[:n_cpus, :n_cpus].any()
    assert (hops[n_cpus:, :] + np.eye(n_cpus + n_gpus)[n_cpus:, :] == 1).all()
    assert name in PLATFORM_PRESETS


def test_preset_names_and_descriptions():
    assert sorted(PLATFORM_PRESETS) == ["hoft-multi-gpu", "hoft-single-gpu", "summit", "titan"]
    for name, text in PLATFORM_PRESETS.items():
        assert "\n" not in text
        assert "McSweeney" in text, name


def test_preset_is_a_fresh_dict():
    first = platform_preset("titan")
    first["processors"].clear()
    first["network"]["topology"] = "mesh"
    again = platform_preset("titan")
    assert len(again["processors"]) == 17
    assert again["network"] == {"topology": "accelerated-node"}


@pytest.mark.parametrize("name", ["frontier", "", "Titan", None])
def test_unknown_preset(name):
    with pytest.raises(ValueError, match="known: hoft-multi-gpu, hoft-single-gpu, summit, titan"):
        platform_preset(name)


def test_cpu_gpu_platform():
    assert cpu_gpu_platform(0, 1)["processors"] == [{"id": "g0", "type": "gpu"}]
    assert cpu_gpu_platform(1, 0)["processors"] == [{"id": "c0", "type": "cpu"}]
    with pytest.raises(ValueError, match="at least one processor"):
        cpu_gpu_platform(0, 0)
    with pytest.raises(ValueError, match="n_gpus must be a non-negative integer"):
        cpu_gpu_platform(2, -1)
    with pytest.raises(ValueError, match="n_cpus must be a non-negative integer"):
        cpu_gpu_platform(True, 1)
