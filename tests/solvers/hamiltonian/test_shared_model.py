"""The shared incremental HCP model: one SAT model of the blank-grid graph solves every
puzzle's pruned graph by assumptions, and its answers (found cycles and "no cycle" proofs)
are those of a model built for each graph alone."""

import itertools
import random

import numpy as np
import pytest

from reductions.sudoku.grid import parse_grid
from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
from solvers.routes import hcp as hcp_puzzle
from solvers.hamiltonian import (CycleStatus, GraphInputError, SharedHcpModel,
                                 solve_directed_hcp, solve_undirected_hcp)
from solvers.outcome import Status

from tests.conftest import INSTANCES


def _puzzles(name: str) -> list[str]:
    with open(INSTANCES / name) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("directed", [True, False])
def test_shared_model_answers_as_a_fresh_model_on_random_subgraphs(directed):
    """Thirty random subgraphs of the complete graph on 7 vertices, one after another on one
    shared model (cuts and learnt clauses kept): every status is the fresh model's, and
    both outcomes occur."""
    n = 7
    pairs = np.array([(u, v) for u, v in itertools.permutations(range(n), 2)
                      if directed or u < v], dtype=np.int64)
    model = SharedHcpModel(n, pairs, directed=directed)
    fresh = solve_directed_hcp if directed else solve_undirected_hcp
    rng = random.Random(7)
    seen = set()
    try:
        for _ in range(30):
            keep = np.array([rng.random() < (0.35 if directed else 0.5) for _ in pairs])
            sub = pairs[keep]
            if len(sub) == 0:
                continue
            shared = model.solve(sub)
            alone = fresh(n, sub)
            assert shared.status == alone.status
            seen.add(shared.status)
            if shared.found:                      # a cycle of the subgraph, not the model's
                steps = set(zip(shared.cycle.tolist(), np.roll(shared.cycle, -1).tolist()))
                edges = {tuple(p) for p in sub.tolist()}
                if not directed:
                    steps = {tuple(sorted(s)) for s in steps}
                assert steps <= edges and len(set(shared.cycle.tolist())) == n
    finally:
        model.close()
    assert seen == {CycleStatus.HAMILTONIAN, CycleStatus.NO_CYCLE}


def test_shared_model_refuses_a_pair_it_does_not_have():
    model = SharedHcpModel(4, [(0, 1), (1, 2), (2, 3), (3, 0)], directed=True)
    try:
        with pytest.raises(GraphInputError, match="not a pair of the shared model"):
            model.solve([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    finally:
        model.close()


def test_shared_model_required_pairs_are_assumptions_only():
    """A required arc no cycle can use gives "no cycle" for that call only; the next call
    without it finds the cycle again."""
    pairs = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 3), (3, 1)]
    model = SharedHcpModel(4, pairs, directed=True)
    try:
        assert model.solve(pairs, required=[(1, 3)]).status == CycleStatus.NO_CYCLE
        again = model.solve(pairs)
        assert again.found
    finally:
        model.close()


@pytest.mark.parametrize("via", ["hcp-directed", "hcp-undirected"])
def test_route_shares_one_model_and_proves_no_solution_between_solved_puzzles(via):
    """Solvable 17-clue puzzles and the shipped unsolvable ones, interleaved, through one
    process's shared model: every solvable one solved (verified by the route), every
    unsolvable one "no solution", on one model that has seen them all."""
    from solvers.routes import ROUTES
    solvable = _puzzles("royle17-sample300.txt")[:4]
    unsolvable = _puzzles("unsolvable.txt")
    hcp_puzzle._PROCESS_MODELS.close_all()
    order = [p for pair in itertools.zip_longest(solvable, unsolvable) for p in pair if p]
    statuses = {}
    for text in order:
        outcome = ROUTES[via].solve(parse_grid(text), time_limit=60)
        statuses[text] = outcome.status
    assert all(statuses[t] == Status.SOLVED for t in solvable)
    assert all(statuses[t] == Status.NO_SOLUTION for t in unsolvable)
    ((key, model),) = hcp_puzzle._PROCESS_MODELS.models().items()
    assert model.served >= len(solvable) + 3         # the last unsolvable one: no search
    assert hcp_puzzle._PROCESS_MODELS.served(key) == model.served     # one question each


def test_shared_model_is_renewed_after_its_quota(monkeypatch):
    hcp_puzzle._PROCESS_MODELS.close_all()
    monkeypatch.setattr(hcp_puzzle._PROCESS_MODELS, "renew_after", 2)
    first = hcp_puzzle.process_model(4, True)
    assert hcp_puzzle.process_model(4, True) is first
    second = hcp_puzzle.process_model(4, True)
    assert second is not first and second.served == 0
    assert first.solver.solver is None                # the old model was closed
    hcp_puzzle._PROCESS_MODELS.close_all()


def test_reduction_keeps_every_edge_of_the_solution_tour():
    """``Reduction.alive`` drops only edges no Hamiltonian cycle uses: the solution's own
    tour of the 3-split graph uses alive edges only, and some edges were dropped."""
    text = _puzzles("royle17-sample300.txt")[0]
    puzzle = parse_grid(text)
    solution = hcp_puzzle.solve_puzzle(puzzle, graph="directed", prune="peers").grid
    pipeline = build_hcp_pipeline(puzzle, HcpOptions(prune="peers", reduce=True))
    reduction = pipeline.reduction
    tour = pipeline.tour_of_solution(solution)
    from reductions.hamiltonian.graph_reduction import expand_tour
    split_tour = expand_tour(reduction, tour)
    steps = np.sort(np.stack([split_tour, np.roll(split_tour, -1)], axis=1), axis=1)
    edges = np.sort(reduction.original_edges, axis=1)
    n = reduction.original_vertices
    alive_keys = set((edges[reduction.alive, 0] * n + edges[reduction.alive, 1]).tolist())
    assert set((steps[:, 0] * n + steps[:, 1]).tolist()) <= alive_keys
    assert not reduction.alive.all()
