"""A quick audit of sweeps, plots and gantt (session 11): its findings, mended."""

from __future__ import annotations

import pytest

from exactsched.errors import MethodError
from exactsched.experiments.sweep import run_sweep

TOPCUOGLU = "examples/topcuoglu2002.json"


@pytest.mark.parametrize(
    "bad",
    [{"seed": -1}, {"seed": 2**40}, {"time_limit": float("nan")}, {"time_limit": -1},
     {"jobs": 0}, {"workers": 0}, {"cores": 0}],
)  # fmt: skip
def test_run_sweep_refuses_its_settings_before_storing(bad):
    """They were accepted, and every run stored a refusal row."""
    with pytest.raises(MethodError):
        run_sweep([TOPCUOGLU], "heft", exact="none", progress="none", **bad)


def test_report_image_links_take_any_folder(capsys, tmp_path):
    """``![x](my plots (v2)/x.png)`` is no image in Markdown: the link is in <...>."""
    from exactsched.cli import main

    db, report = tmp_path / "db.sqlite", tmp_path / "report.md"
    plots = tmp_path / "my plots (v2)"
    assert main(["compare", TOPCUOGLU, "--methods", "heft", "--exact", "none",
                 "--db", str(db), "-j", "1"]) == 0  # fmt: skip
    assert main(["results", str(db), "--report", str(report), "--plots", str(plots)]) == 0
    capsys.readouterr()
    links = [line for line in report.read_text().splitlines() if line.startswith("![")]
    assert links and all("](<my plots (v2)/" in line and line.endswith(">)") for line in links)


def test_gantt_cuts_its_own_title_too(capsys, tmp_path):
    """A 12,000-character instance name made a 180,000-pixel-wide chart."""
    import json
    from pathlib import Path

    from PIL import Image

    from exactsched.cli import main

    doc = json.loads(Path(TOPCUOGLU).read_text(encoding="utf-8"))
    doc["name"] = "N" * 12000
    instance, schedule, image = (tmp_path / n for n in ("i.json", "s.json", "g.png"))
    instance.write_text(json.dumps(doc))
    assert main(["solve", str(instance), "-m", "heft", "-o", str(schedule), "-q"]) == 0
    assert main(["gantt", str(schedule), str(instance), "-o", str(image)]) == 0
    capsys.readouterr()
    assert Image.open(image).size[0] < 4000


def test_gap_plots_name_the_heuristics_they_cannot_draw():
    """An infinite gap (a reference of 0) cannot go on a log axis: it was left out silently."""
    from exactsched.experiments.plots import gap_against, gap_distributions

    rows = [
        dict(instance_key="a", label=label, kind="heuristic", optimum=0.0, ccr=1.0, tasks=3,
             gap_to_optimum=gap)
        for label, gap in (("heft", 0.0), ("lmt", float("inf")), ("random-eft", float("inf")))
    ]  # fmt: skip
    for fig in (gap_distributions(rows), gap_against(rows, "tasks")):
        texts = [t.get_text() for t in fig.axes[0].texts]
        assert texts == ["not drawn, infinite gap (optimum 0): lmt, random-eft"]
