"""The cpsat-messages witness (models._refute_comm): certification under the message models.

Against the bruteforce referee on tiny instances whose optimum the messages move
(2 x 2 mesh, 4-processor fat tree, both models): the witness refutes the optimum
less one step of the stage grid and finds a schedule of the optimum; a false claim
(HEFT's schedule called optimal) is caught with a shorter valid schedule; and cpsat's
contention optima of 12-15 tasks end optimal and certified by this witness.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest

from exactsched import Problem, Status, load_instance, solve, validate
from exactsched.generators import random_instance
from models._grid import data_grid
from models._refute_comm import WITNESS, comm_resolution, refute_messages
from models.certify import _shorter, certify, independent_witnesses


def mesh_fork() -> Problem:
    """a (p0) sends 4 units to b and c, both pinned to p3 of a 2 x 2 mesh: one route for both."""
    return Problem.from_lists(
        [1, 1, 1],
        [(0, 1, 4), (0, 2, 4)],
        n_processors=4,
        network={"topology": "mesh", "dims": [2, 2]},
        affinity={0: [0], 1: [3], 2: [3]},
    )


def tiny(topology: str, seed: int) -> Problem:
    return random_instance(
        6, 4, topology=topology, ccr=2.0, seed=seed, max_in_degree=3, affinity=0.7
    )


# (instance, model, bruteforce optimum, delay optimum): each one moved by the messages.
CASES = [
    ("fork", "contention", 14, 11),
    ("fork", "single-port", 18, 11),
    ("mesh-2", "contention", 40, 39),
    ("mesh-2", "single-port", 40, 39),
    ("fat-tree-2", "single-port", 41, 39),
    ("fat-tree-4", "contention", 72.5, 71),  # half a unit: fat-tree links weigh 1/2
    ("fat-tree-4", "single-port", 79, 71),
]


def build(name: str) -> Problem:
    if name == "fork":
        return mesh_fork()
    topology, seed = name.rsplit("-", 1)
    return tiny(topology, int(seed))


@pytest.mark.parametrize(("name", "model", "optimum", "delay"), CASES)
def test_witness_decides_at_the_bruteforce_optimum(name, model, optimum, delay):
    base = build(name)
    problem = base.with_communication(model)
    referee = solve(problem, "bruteforce", time_limit=60, certify=False)
    assert referee.status is Status.OPTIMAL and referee.makespan == optimum
    assert solve(base, "bruteforce", certify=False).makespan == delay
    resolution = comm_resolution(problem)
    top = math.ceil(Fraction(optimum) * resolution)
    assert top == Fraction(optimum) * resolution  # the optimum lies on the witness's grid
    below = refute_messages(problem, top - 1, resolution, time_limit=30)
    assert below.outcome == "refuted", below.reason
    at = refute_messages(problem, top, resolution, time_limit=30)
    assert at.outcome == "found"
    assert validate(problem, at.schedule) == []
    assert at.schedule.makespan <= optimum
    # The chain without bruteforce: the relaxation cannot settle these, the witness does.
    chain = ("bounds", "cpsat-disjunctive", WITNESS)
    certified = certify(problem, replace(referee, method="cpsat"), time_limit=30, witnesses=chain)
    assert certified.certified and certified.certified_by == (WITNESS,)
    assert certified.stats["certify"]["witnesses"]["cpsat-disjunctive"]["outcome"] == "unknown"


def test_heft_claim_called_optimal_is_caught():
    problem = build("fat-tree-4").with_communication("contention")
    lie = solve(problem, "heft")
    assert lie.makespan > 72.5
    claim = replace(lie, method="cpsat", status=Status.OPTIMAL, lower_bound=lie.makespan)
    caught = certify(problem, claim, time_limit=30)
    assert caught.status is Status.FEASIBLE and not caught.certified
    assert caught.stats["false_proof"]["caught_by"] in ("bruteforce", WITNESS)
    assert validate(problem, caught.schedule) == []
    assert caught.makespan < lie.makespan
    alone = certify(problem, claim, time_limit=30, witnesses=[WITNESS])
    assert alone.stats["false_proof"]["caught_by"] == WITNESS
    assert validate(problem, alone.schedule) == [] and alone.makespan < lie.makespan


def test_a_claim_half_a_unit_too_long_is_caught():
    # 73 is a whole step of the data grid above nothing, but 72.5 is valid: a claim of
    # 73 must not be certified (the stage grid is in halves).
    problem = build("fat-tree-4").with_communication("contention")
    grid = data_grid(problem)
    fine = comm_resolution(problem)
    assert fine == 2 * grid.resolution
    assert _shorter(72.5, 73, grid, fine) and not _shorter(72.5, 73, grid)
    assert not _shorter(73, 73, grid, fine)
    referee = solve(problem, "bruteforce", time_limit=60, certify=False)
    assert refute_messages(problem, 145, fine).outcome == "found"
    bumped = replace(referee, method="cpsat")
    for witness in ("bruteforce", WITNESS):
        result = certify(problem, bumped, witnesses=[witness], time_limit=30)
        assert result.certified and result.makespan == 72.5


def test_delay_problems_skip_the_witness():
    base = build("mesh-2")
    result = certify(base, solve(base, "bruteforce", certify=False), time_limit=10)
    assert WITNESS not in result.stats["certify"]["witnesses"]
    assert WITNESS in independent_witnesses("cpsat")
    assert refute_messages(base, 100, 1).outcome == "unknown"


@pytest.mark.parametrize(("topology", "n_procs", "n"), [("mesh", 4, 15), ("fat-tree", 8, 12)])
def test_cpsat_contention_optima_are_certified(topology, n_procs, n):
    base = random_instance(n, n_procs, topology=topology, ccr=1.0, seed=1)
    for model in ("single-port", "contention"):
        problem = base.with_communication(model)
        result = solve(problem, "cpsat", time_limit=60, workers=1, seed=0)
        assert validate(problem, result.schedule) == []
        assert result.status is Status.OPTIMAL
        assert result.certified and WITNESS in result.certified_by


# An outside audit (session 16): the brute force rounded its bounds up to whole units
# on integer data, but a fat tree's lowest links weigh 1/2, and the optimum 5.5 needs
# a message to wait at a switch; it claimed 6, and as a witness certified a claim of 6.
FAT_TREE_HALVES = {
    "format": "exactsched/instance@1",
    "platform": {
        "processors": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}, {"id": "p3"}],
        "network": {"topology": "fat-tree", "communication": "contention", "duplex": False},
    },
    "tasks": [
        {"id": "a", "cost": 0, "processors": ["p3"]},
        {"id": "b", "cost": 1, "processors": ["p1"]},
        {"id": "c", "cost": 1, "processors": ["p0"]},
        {"id": "e", "cost": 1, "processors": ["p0"]},
    ],
    "edges": [
        {"src": "a", "dst": "b", "data": 1},
        {"src": "a", "dst": "c", "data": 1},
        {"src": "a", "dst": "e", "data": 2},
    ],
}


@pytest.mark.parametrize("duplex", [False, True])
def test_the_brute_force_finds_a_half_unit_optimum_on_integer_data(duplex):
    doc = json.loads(json.dumps(FAT_TREE_HALVES))
    doc["platform"]["network"]["duplex"] = duplex
    problem = load_instance(doc)
    for method, certified in (("bruteforce", False), ("cpsat", True)):
        result = solve(problem, method, time_limit=20, workers=1, seed=0, certify=certified)
        assert validate(problem, result.schedule) == []
        assert (result.status.value, result.makespan) == ("optimal", 5.5)
    six = solve(problem, "cpop")  # a valid schedule half a unit too long
    assert six.makespan == 6
    claim = replace(six, method="cpsat", status=Status.OPTIMAL, lower_bound=6)
    checked = certify(problem, claim, witnesses=["bruteforce"], time_limit=20)
    assert not checked.certified


def test_a_study_reads_half_units_apart_on_a_fat_tree_as_different_answers():
    # Two makespans half a unit apart near 1e12 are within the float tolerance, so
    # the study's agreement asks the grid: under contention on a fat tree it is the
    # stage grid (halves), never whole units.
    from exactsched.experiments.analysis import _agreement, grid_step

    base = Problem.from_lists(
        [[1e12] * 4, [1e12] * 4], [(0, 1, 3)], n_processors=4, network={"topology": "fat-tree"}
    )
    problem = base.with_communication("contention")
    assert grid_step(base) == 1.0 and grid_step(problem) == 0.5
    rows = [
        {"label": "cpsat", "status": "optimal", "makespan": 2e12 + 0.5, "lower_bound": 2e12 + 0.5},
        {"label": "heft", "status": "feasible", "makespan": 2e12, "lower_bound": None},
    ]
    assert _agreement(rows, lambda: grid_step(problem)).status == "disputed"
    assert _agreement(rows, lambda: grid_step(base)).status != "disputed"  # whole units


def test_a_study_grid_stays_fine_where_units_are_too_large_to_check():
    # A review: comm_resolution gives None for units too large to check exactly, and
    # the study then read half-unit answers near 1e12 as agreeing (0.1 before).
    from exactsched.experiments.analysis import _agreement, grid_step

    x = 10**12
    p = Problem.from_lists(
        [x + 0.5, x, 3], [(0, 1, 5), (1, 2, 31 * 10**14 + 1)], n_processors=8,
        network={"topology": "torus", "dims": [2, 2, 2], "communication": "single-port"},
    )  # fmt: skip
    rows = [
        {"label": m, "status": "optimal", "makespan": v, "lower_bound": v}
        for m, v in (("a", 2 * x + 0.5), ("b", 2 * x + 1.0))
    ]
    assert grid_step(p) == 0.1
    assert _agreement(rows, lambda: grid_step(p)).status == "disputed"
