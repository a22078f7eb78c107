"""The "together" clauses of the HCP SAT model: the seven arcs of a Sudoku option are on a
Hamiltonian cycle all together or not at all (reductions.hamiltonian.hcp_pipeline.option_groups,
solvers.hamiltonian.together_clauses).

They must never cut off a Hamiltonian cycle (every solution's cycle keeps its groups whole,
on every graph kind), must keep every answer verified, and must keep "no cycle" a proof
(unsolvable puzzles stay unsolvable)."""

from __future__ import annotations

import numpy as np
import pytest

from reductions.sudoku.grid import Grid, Shape, check_solution
from reductions.hamiltonian.hcp_pipeline import (HcpOptions, build_hcp_pipeline, option_groups,
                                                 required_pairs)
from solvers.hamiltonian import (CycleStatus, GraphInputError, solve_directed_hcp,
                                 solve_undirected_hcp, together_clauses)
from solvers.routes.hcp import solve_puzzle
from solvers.outcome import Status
from tests.conftest import instance_pairs, instance_puzzles

GRAPH_KINDS = [HcpOptions(directed=True, prune="peers"), HcpOptions(directed=True, prune="none"),
               HcpOptions(prune="paper"), HcpOptions(prune="peers", triple=True)]


def _solve(pipeline, **kw):
    solve = solve_directed_hcp if pipeline.directed else solve_undirected_hcp
    return solve(pipeline.num_vertices, pipeline.edges, required=required_pairs(pipeline),
                 together=option_groups(pipeline), **kw)


def _uses(pipeline, tour) -> np.ndarray:
    """For every option group, how many of its seven pairs the closed tour walks."""
    n = pipeline.num_vertices
    steps = np.stack([tour, np.roll(tour, -1)], axis=1)
    if not pipeline.directed:
        steps = np.sort(steps, axis=1)
    walked = set((steps[:, 0] * n + steps[:, 1]).tolist())
    groups = option_groups(pipeline)
    if not pipeline.directed:
        groups = np.sort(groups, axis=2)
    keys = groups[..., 0] * n + groups[..., 1]
    return np.isin(keys, list(walked)).sum(axis=1)


@pytest.mark.parametrize("options", GRAPH_KINDS, ids=str)
def test_every_solution_cycle_keeps_the_groups_whole(options):
    """The witness cycle of a solved grid walks 0 or 7 arcs of each option, N² options in
    all (one a cell): the clauses hold for every Hamiltonian cycle the pipeline can have."""
    haythorpe = (instance_puzzles("haythorpe-17clue.txt")[0],
                 instance_puzzles("haythorpe-17clue.solution.txt")[0])
    pairs = instance_pairs("4x4.txt")[:3] + [haythorpe]
    for puzzle, solution in pairs:
        pipeline = build_hcp_pipeline(puzzle, options)
        used = _uses(pipeline, pipeline.tour_of_solution(solution))
        assert set(used.tolist()) <= {0, 7}
        assert np.count_nonzero(used == 7) == puzzle.size ** 2


@pytest.mark.parametrize("options", GRAPH_KINDS, ids=str)
def test_puzzles_solve_and_verify_with_the_groups(options):
    """Closed loop on 4×4 and 9×9 (empty grids included) through the model with the groups:
    the cycle decodes to a grid that solves the puzzle, and the solver's cycle walks whole
    groups only."""
    puzzles = (instance_puzzles("4x4.txt")[:3] + [Grid.empty(Shape(2, 2))]
               + instance_puzzles("haythorpe-17clue.txt") + [Grid.empty(Shape(3, 3))])
    for puzzle in puzzles:
        pipeline = build_hcp_pipeline(puzzle, options)
        result = _solve(pipeline, time_limit=120)
        assert result.status == CycleStatus.HAMILTONIAN, result.stats
        assert result.stats["together_clauses"] > 0
        assert check_solution(puzzle, pipeline.decode(result.cycle))
        assert set(_uses(pipeline, result.cycle).tolist()) <= {0, 7}


@pytest.mark.parametrize("options", [HcpOptions(directed=True, prune="paper"),
                                     HcpOptions(directed=True, prune="none"),
                                     HcpOptions(prune="peers")], ids=str)
def test_unsolvable_puzzles_stay_unsolvable(options):
    """NO stays NO: with the groups, the SAT model still proves every unsolvable puzzle has
    no Hamiltonian cycle (never a cycle, never unknown)."""
    for puzzle in instance_puzzles("unsolvable.txt"):
        pipeline = build_hcp_pipeline(puzzle, options)
        result = _solve(pipeline)
        assert result.status == CycleStatus.NO_CYCLE, result.stats


def test_together_clauses_rings_and_absent_pairs():
    """A full group becomes a ring of implications; a group with a pair outside the graph
    makes its present pairs false; a group with no pair in the graph adds nothing."""
    arcs = np.array([[0, 1], [1, 2], [2, 0], [0, 2], [2, 1], [1, 0]])
    pairs = arcs[np.lexsort((arcs[:, 1], arcs[:, 0]))]        # normalised: sorted keys
    var = {tuple(p): i + 1 for i, p in enumerate(pairs.tolist())}
    groups = np.array([[[0, 1], [1, 2], [2, 0]],              # all present
                       [[0, 2], [2, 1], [1, 3]],              # (1, 3) absent
                       [[3, 0], [3, 1], [3, 2]]])             # none present
    clauses = together_clauses(4, pairs, groups, directed=True)
    a, b, c = var[(0, 1)], var[(1, 2)], var[(2, 0)]
    assert sorted(map(sorted, clauses)) == sorted(map(sorted, [
        [-a, b], [-b, c], [-c, a], [-var[(0, 2)]], [-var[(2, 1)]]]))
    with pytest.raises(GraphInputError):
        together_clauses(4, pairs, np.zeros((2, 2)), directed=True)


def test_groups_are_obeyed():
    """On a 4-cycle in both directions (two Hamiltonian cycles), a group holding an arc of
    each leaves no cycle (a proof under the caller's claim); a group of arcs of one cycle
    leaves both."""
    arcs = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 3], [3, 2], [2, 1], [1, 0]])
    mixed = solve_directed_hcp(4, arcs, together=[[[0, 1], [0, 3]]])
    assert mixed.status == CycleStatus.NO_CYCLE
    for forward in (True, False):
        required = [[0, 1]] if forward else [[1, 0]]
        one = solve_directed_hcp(4, arcs, together=[[[0, 1], [2, 3]]], required=required)
        assert one.status == CycleStatus.HAMILTONIAN
        assert one.cycle.tolist() == ([0, 1, 2, 3] if forward else [0, 3, 2, 1])


def test_route_passes_the_groups_beyond_the_shared_model():
    """A 16×16 puzzle (too big for the shared model) is solved with the groups, verified."""
    puzzle = instance_puzzles("16x16.txt")[0]
    outcome = solve_puzzle(puzzle, graph="directed", prune="peers", time_limit=120)
    assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
    assert outcome.stats["solver"]["together_clauses"] > 0


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_shared_model_with_groups(directed):
    """The shared blank-grid model carries the groups (valid for every pruned subgraph, and
    for the 3-split less the reduction's deleted edges): 17-clue puzzles decode to verified
    grids, unsolvable puzzles stay unsolvable, on one model, in any order."""
    from solvers.hamiltonian import SharedHcpModel
    blank = build_hcp_pipeline(Grid.empty(Shape(3, 3)),
                               HcpOptions(directed=directed, prune="none"))
    model = SharedHcpModel(blank.num_vertices, blank.edges, directed=directed,
                           together=option_groups(blank))
    options = HcpOptions(directed=directed, prune="peers", reduce=not directed)
    puzzles = ([(p, True) for p in instance_puzzles("royle17-sample300.txt", 4)]
               + [(p, False) for p in instance_puzzles("unsolvable.txt")])
    searched = 0
    for puzzle, solvable in puzzles:
        pipeline = build_hcp_pipeline(puzzle, options)
        if pipeline.status != Status.UNKNOWN:    # the reduction itself proved it
            assert not solvable
            continue
        searched += not solvable
        reduction = pipeline.reduction
        pairs = pipeline.edges if reduction is None else pipeline.split.edges[reduction.alive]
        result = model.solve(pairs)
        assert result.found == solvable, result.stats
        if solvable:
            tour = result.cycle
            grid = grid_of(pipeline, tour)
            assert check_solution(puzzle, grid)
        else:
            assert result.status == CycleStatus.NO_CYCLE
    assert searched >= 3                     # the model itself refuted unsolvable puzzles


def grid_of(pipeline, tour):
    """The grid of a tour of the searched graph (the 3-split, when reduced)."""
    from reductions.hamiltonian.graph_reduction import compress_tour
    if pipeline.reduction is not None:
        tour = compress_tour(pipeline.reduction, tour)
    return pipeline.decode(tour)
