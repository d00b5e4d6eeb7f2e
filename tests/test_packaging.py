"""The four packages import from this project, not from other installed packages."""

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["exactsched", "topologies", "models", "heuristics"])
def test_package_resolves_inside_project(name):
    module = importlib.import_module(name)
    location = Path(module.__file__).resolve()
    assert location.parent.parent == ROOT, f"{name} imported from {location}"
    assert (location.parent / "py.typed").exists()


def test_public_api_reexported():
    import exactsched

    for name in exactsched.__all__:
        assert hasattr(exactsched, name), name


def test_example_instance_copied_into_repository():
    assert (ROOT / "examples" / "topcuoglu2002.json").exists()
