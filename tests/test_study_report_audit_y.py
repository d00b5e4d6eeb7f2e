"""What a study publishes (an outside audit of the report and plots, session 17)."""

from __future__ import annotations

from shared_cases import profile_row

from exactsched import Problem
from exactsched.experiments.plots import performance_profile
from exactsched.experiments.report import _ORDERS, _grouped, _known_text


def test_nothing_to_communicate_is_ccr_0_even_with_nothing_to_compute():
    # All costs 0 and data 0: the CCR was inf, and the instance sat in the ">=5" class.
    assert Problem.from_lists([0, 0], [(0, 1, 0)], n_processors=2).ccr() == 0.0
    assert Problem.from_lists([0, 0], [(0, 1, 3)], n_processors=2).ccr() == float("inf")


def test_an_instance_every_method_failed_on_counts_in_the_profile():
    row = profile_row
    rows = [
        row("a", "x", 10.0), row("a", "y", 12.0),
        row("b", "x", 10.0), row("b", "y", 10.0),
        row("c", "x", None, "error"), row("c", "y", None, "error"),
    ]  # fmt: skip
    fig = performance_profile(rows, tau_max=1.5)
    tops = {line.get_label(): float(line.get_ydata()[-1]) for line in fig.axes[0].lines}
    assert tops == {"x": 2 / 3, "y": 2 / 3}  # c is a failure of both, not left out


def test_the_header_says_which_instances_have_no_gap():
    firsts = [
        {"optimum": 5, "best_known": 5},
        {"optimum": None, "best_known": 7},
        {"optimum": None, "best_known": None},
    ]
    assert _known_text(firsts, 1) == (
        "Certified optimum known for 1 of 3 instances; the gaps of 1 other are to the best "
        "known makespan; 1 has no valid schedule (no gap)."
    )
    assert _known_text(firsts[:1], 1) == "Certified optimum known for 1 of 1 instance."


def test_ccr_classes_are_in_their_natural_order():
    def row(ccr, gap):
        return dict(instance_key=str(ccr), instance=str(ccr), label="heft", kind="heuristic",
                    status="feasible", makespan=1.0 + gap, gap=gap, optimum=1.0,
                    reference=1.0, best_known=1.0, ccr=ccr, seconds=0.1, error=None,
                    failed=False, certified=None, lower_bound=None, gap_to_bound=None,
                    best_bound=None, disputed=False, mst=10.0, speedup=None)  # fmt: skip

    from exactsched.experiments.analysis import ccr_bucket

    rows = [row(c, 0.0) for c in (10.0, 0.1, 3.0, 1.0, 0.3)]
    table = _grouped(rows, lambda r: ccr_bucket(r["ccr"]), _ORDERS["CCR"])
    header = table.splitlines()[0]
    assert header.index("<0.2") < header.index("0.2-0.5") < header.index("0.5-2")
    assert header.index("0.5-2") < header.index("2-5") < header.index(">=5")


def test_every_ccr_definition_agrees_on_nothing_to_communicate():
    from exactsched.workloads.weights import ccr

    p = Problem.from_lists([0, 0], [(0, 1, 0)], n_processors=2)
    assert [ccr(p, d) for d in ("comm/comp", "total", "comp/comm", "hoft")] == [
        0.0,
        0.0,
        float("inf"),
        float("inf"),
    ]


def test_a_method_has_one_colour_in_every_figure():
    from matplotlib.colors import to_hex

    from exactsched.experiments.plots import gap_against

    def row(instance, label, makespan, ccr):
        return dict(instance_key=instance, instance=instance, label=label, kind="heuristic",
                    makespan=makespan, status="feasible", seconds=0.1, gap=makespan / 10 - 1,
                    optimum=10.0, reference=10.0, best_known=10.0, ccr=ccr, tasks=5,
                    gap_to_optimum=makespan / 10 - 1)  # fmt: skip

    rows = [row(i, m, 10.0 + k + j, c) for j, (i, c) in enumerate([("a", 0.1), ("b", 1.0)])
            for k, m in enumerate(["heft", "peft", "cpop"])]  # fmt: skip
    profile = performance_profile(rows)
    against = gap_against(rows, "ccr")

    def colours(fig):
        return {line.get_label(): to_hex(line.get_color()) for line in fig.axes[0].lines}

    assert colours(profile) == colours(against)
    import matplotlib as mpl

    palette = mpl.colormaps["tab20"]  # by sorted label, not by drawing order
    assert colours(profile) == {
        m: to_hex(palette(k)) for k, m in enumerate(["cpop", "heft", "peft"])
    }
