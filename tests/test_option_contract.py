"""The option contract an outside audit checked (session 11): what it found mended."""

from __future__ import annotations

import pytest

import exactsched
from exactsched.cli import main
from exactsched.errors import MethodError

TOPCUOGLU = "examples/topcuoglu2002.json"


@pytest.mark.parametrize("value", ["no", 1, 0, "false"])
def test_certify_takes_booleans_only(value):
    """``certify="no"`` was truthy and certified."""
    with pytest.raises(MethodError, match="certify: expected true, false or none"):
        exactsched.solve(TOPCUOGLU, "heft", certify=value)


@pytest.mark.parametrize("method", ["cpsat", "milp"])
@pytest.mark.parametrize("gap", ["1", "5"])
def test_relative_gap_below_one_for_both_models(capsys, method, gap):
    status = main(["solve", TOPCUOGLU, "-m", method, "-O", f"relative_gap={gap}", "-t", "2"])
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1
    assert "relative_gap: expected a number >= 0 and < 1" in err
