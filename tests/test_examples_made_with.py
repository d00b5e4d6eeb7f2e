"""Every generated file in examples/ is exactly what its "made with" command writes.

The commands are read from the table of ``examples/README.md``, so the table and
the files cannot drift apart (an audit found the names had: the generator began
naming the platform and seed after the files were written).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from exactsched.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# The random-n12 row gives one command and lists the other platforms.
_RANDOM_PLATFORMS = {
    "fully-connected-4": "fully-connected:4",
    "mesh-2x2": "mesh:2x2",
    "torus-2x2x2": "torus:2x2x2",
    "hypercube-4": "hypercube:4",
    "fat-tree-4": "fat-tree:4",
    "cpu-gpu-3-1": "cpu-gpu:3+1",
}


def _made_with() -> list[tuple[str, list[str]]]:
    """(file, argv) for every table row whose command starts ``exactsched generate``."""
    rows = []
    for line in (EXAMPLES / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or "exactsched generate" not in cells[2]:
            continue
        name = cells[0].strip("`")
        command = re.search(r"`(exactsched generate [^`]+)`", cells[2]).group(1)
        argv = shlex.split(command)[1:]
        if "*" not in name:
            rows.append((name, argv))
            continue
        at = argv.index("--platform")
        for suffix, platform in _RANDOM_PLATFORMS.items():
            rows.append((name.replace("*", suffix), argv[: at + 1] + [platform] + argv[at + 2 :]))
            assert f"`{platform}`" in cells[2] or platform == argv[at + 1]
    return rows


ROWS = _made_with()


def test_the_table_names_every_generated_example():
    assert len(ROWS) == 12
    assert all((EXAMPLES / name).exists() for name, _ in ROWS)


@pytest.mark.parametrize("name, argv", ROWS, ids=[name for name, _ in ROWS])
def test_an_example_is_what_its_command_writes(tmp_path, capsys, name, argv):
    out = tmp_path / name
    assert main([*argv, "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((EXAMPLES / name).read_text())
