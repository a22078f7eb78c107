"""Uniqueness through Haythorpe's Hamiltonian-cycle graph, and how many cycles a solution has.

The hcp routes prove a grid unique by asking the model that found it for a cycle leaving out
one of the grid's row exits (:func:`reductions.hamiltonian.hcp_pipeline.grid_pairs`). Checked here:
the verdicts agree with the SAT route's on random 4×4 puzzles; unique, several, unsolvable and
time-limited puzzles on both routes and on the fresh (per-puzzle) model; a no-good asked on
the shared model never removes the solution of a later puzzle; and the reduction is not
parsimonious — a solution has one cycle per choice of the order in which each row and each
column takes its digits, ((N−1)!)^(2N) in all, which the method does not rely on.
"""

from __future__ import annotations

import importlib.util
import itertools
import random
import time

import numpy as np
import pytest

from reductions.sudoku.grid import Grid, parse_grid
from reductions.sudoku.puzzle_files import read_puzzles
from reductions.errors import UserError
from reductions.hamiltonian.hcp import haythorpe_graph, haythorpe_layout
from reductions.hamiltonian.hcp_pipeline import (HcpOptions, SudokuToHcp, build_hcp_pipeline,
                                                 grid_pairs)
from reductions.hamiltonian.hcp_undirected import haythorpe_split
from solvers.routes import hcp as hcp_puzzle
from solvers.hamiltonian import hamiltonian_cycles
from solvers.outcome import Status
from solvers.routes import ROUTES

from tests.conftest import INSTANCES, instance_pairs

ROUTE_NAMES = ["hcp-directed", "hcp-undirected"]
PAPER_17 = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."


def shipped(name: str) -> list[Grid]:
    return [g for _, g in read_puzzles(INSTANCES / name)]


@pytest.fixture(autouse=True)
def fresh_process_models():
    """Each test starts and ends without this process's shared models."""
    hcp_puzzle._PROCESS_MODELS.close_all()
    yield
    hcp_puzzle._PROCESS_MODELS.close_all()


@pytest.mark.parametrize("via", ROUTE_NAMES)
def test_unique_several_and_unsolvable(via):
    route = ROUTES[via]
    outcome = route.solve(parse_grid(PAPER_17), unique=True, time_limit=60)
    assert outcome.status == Status.SOLVED and outcome.unique is True
    assert outcome.second is None and outcome.stats["uniqueness"]["iterations"] >= 1
    for puzzle in shipped("multiple-solutions.txt"):
        outcome = route.solve(puzzle, unique=True, time_limit=60)
        assert outcome.status == Status.SOLVED and outcome.unique is False
        assert outcome.second is not None and outcome.second != outcome.grid
        for grid in (outcome.grid, outcome.second):          # both verified, both solutions
            assert not (set(zip(*np.nonzero(puzzle.values)))
                        - set(zip(*np.nonzero(grid.values == puzzle.values))))
    for puzzle in shipped("unsolvable.txt"):
        assert route.solve(puzzle, unique=True, time_limit=60).status == Status.NO_SOLUTION


def random_puzzles(count: int, seed: int) -> list[Grid]:
    """4×4 puzzles from the shipped 4×4 solutions, a random 2–7 cells kept: unique, several
    and (once digits are also changed) unsolvable ones."""
    rng = random.Random(seed)
    solutions = [s for _, s in instance_pairs("4x4.txt")]
    out = []
    for _ in range(count):
        values = rng.choice(solutions).values.copy()
        keep = np.zeros(16, dtype=bool)
        keep[rng.sample(range(16), rng.randint(2, 7))] = True
        values.ravel()[~keep] = 0
        if rng.random() < 0.15:                       # a wrong digit: often no solution
            cell = rng.choice(np.flatnonzero(keep).tolist())
            values.ravel()[cell] = rng.randint(1, 4)
        out.append(Grid(values, solutions[0].shape))
    return out


@pytest.mark.parametrize("via", ROUTE_NAMES)
def test_verdicts_agree_with_the_sat_route(via):
    """Sixty random 4×4 puzzles, one shared model: status and uniqueness as the SAT route
    says, every second grid a different solution; all three verdicts occur."""
    seen = set()
    for puzzle in random_puzzles(60, seed=26):
        expected = ROUTES["sat"].solve(puzzle, unique=True)
        got = ROUTES[via].solve(puzzle, unique=True, time_limit=60)
        assert (got.status, got.unique) == (expected.status, expected.unique), puzzle
        if got.unique is False:
            assert got.second != got.grid
        seen.add((got.status, got.unique))
    assert {(Status.SOLVED, True), (Status.SOLVED, False)} <= seen
    assert any(status == Status.NO_SOLUTION for status, _ in seen)


@pytest.mark.parametrize("via", ROUTE_NAMES)
def test_a_no_good_never_outlives_its_puzzle(via):
    """On one shared model: a puzzle with two solutions (its grid blocked for one call),
    then each of its two grids given as a full puzzle — each still solved and unique; the
    17-clue puzzle after them, unique."""
    route = ROUTES[via]
    puzzle = shipped("multiple-solutions.txt")[0]
    first = route.solve(puzzle, unique=True, time_limit=60)
    for grid in (first.grid, first.second, first.grid):
        again = route.solve(grid, unique=True, time_limit=60)
        assert again.status == Status.SOLVED and again.grid == grid and again.unique is True
    assert route.solve(parse_grid(PAPER_17), unique=True, time_limit=60).unique is True
    assert len(hcp_puzzle._PROCESS_MODELS.models()) == 1


@pytest.mark.parametrize("options", [dict(graph="directed", prune="peers"),
                                     dict(graph="undirected", prune="peers", reduce=True),
                                     dict(graph="undirected", prune="paper", triple=True,
                                          reduce=True)],
                         ids=["directed", "reduced", "triple-reduced"])
def test_the_fresh_model_and_the_reduced_mapping(options):
    """16×16 puzzles (beyond the shared model) and the triple trick take a model of their own
    graph, through the degree-2 reduction's groups: the shipped 16×16 puzzles have several
    solutions, and one of them completed but for four cells is unique."""
    puzzle = shipped("16x16.txt")[0] if "triple" not in options else parse_grid(PAPER_17)
    outcome = hcp_puzzle.solve_puzzle(puzzle, unique=True, time_limit=120, **options)
    assert outcome.stats["uniqueness"]["model"] == "puzzle" or "triple" not in options
    if "triple" in options:
        assert outcome.unique is True
        return
    assert outcome.unique is False and outcome.second != outcome.grid
    expected = ROUTES["sat"].solve(puzzle, unique=True)
    assert expected.unique is False
    almost = outcome.grid.values.copy()
    almost.ravel()[[0, 17, 100, 255]] = 0
    nearly = Grid(almost, puzzle.shape)
    again = hcp_puzzle.solve_puzzle(nearly, unique=True, time_limit=120, **options)
    assert again.unique is True and again.grid == outcome.grid


@pytest.mark.skipif(importlib.util.find_spec("ortools") is None,
                    reason="ortools not installed (extra cpsat)")
def test_cpsat_checks_uniqueness_by_a_second_solve():
    for graph in ("directed", "undirected"):
        outcome = hcp_puzzle.solve_puzzle(parse_grid("1..............2"), graph=graph,
                                          prune="peers", hcp_solver="cpsat", unique=True,
                                          time_limit=120)
        assert outcome.unique is False and outcome.second != outcome.grid
    outcome = hcp_puzzle.solve_puzzle(parse_grid("....1.4...3.4..2"), graph="directed",
                                      prune="peers", hcp_solver="cpsat", unique=True)
    assert outcome.unique is True


@pytest.mark.parametrize("via", ROUTE_NAMES)
def test_time_limit_leaves_uniqueness_unknown(via):
    """A deadline already past when the second question is asked: "uniqueness unknown",
    never a verdict; the grid found stays solved and verified."""
    rule = SudokuToHcp.build(parse_grid(PAPER_17), options=HcpOptions(
        directed=via == "hcp-directed", prune="peers", reduce=via == "hcp-undirected"))
    with hcp_puzzle.ExactSearch(rule, "sat") as search:
        first = search.cycle(time_limit=60)
        outcome = hcp_puzzle.Outcome(Status.SOLVED, search.verified(first))
        hcp_puzzle.second_cycle(search, outcome, deadline_at=time.perf_counter() - 1)
    assert outcome.unique is None and outcome.second is None
    assert outcome.stats["uniqueness"]["reason"] == "time limit reached"
    zero = ROUTES[via].solve(parse_grid(PAPER_17), unique=True, time_limit=0)
    assert zero.status == Status.UNKNOWN and zero.unique is None


def test_heuristic_solvers_refuse_unique():
    for options in (dict(hcp_solver="lkh"), dict(hcp_cmd="true {input}")):
        with pytest.raises(UserError, match="--unique needs an exact Hamiltonian-cycle "
                                            "solver"):
            hcp_puzzle.solve_puzzle(parse_grid(PAPER_17), unique=True, **options)


def test_grid_pairs_are_the_row_exits_on_the_cycle():
    """The pairs of every pipeline are on the solution's own cycle, and leaving any one out
    changes the decoded grid: N² row exits directed and on the 3-split; after the
    reduction, fewer (the forced ones are inside groups)."""
    puzzle, solution = instance_pairs("4x4.txt")[0]
    for options in (HcpOptions(directed=True, prune="peers"), HcpOptions(prune="peers"),
                    HcpOptions(prune="peers", reduce=True), HcpOptions(triple=True)):
        pipeline = build_hcp_pipeline(puzzle, options)
        pairs = grid_pairs(pipeline, solution)
        tour = pipeline.tour_of_solution(solution)
        steps = {tuple(p) for p in np.stack([tour, np.roll(tour, -1)], axis=1).tolist()}
        if not options.directed:
            steps |= {(v, u) for u, v in steps}
        assert {tuple(p) for p in pairs.tolist()} <= steps
        assert len(pairs) == 16 or (options.reduce and len(pairs) < 16)


# ----------------------------------------------------------------------------- parsimony

def ordered_graph(solution: Grid, rng: random.Random, directed: bool):
    """The graph of a full grid (every cell a clue, so only its options are left) with every
    row's and every column's digit order fixed to a random one: the arcs ``v[i,j] → r[i,k]``
    (and ``w[i,j] → c[j,k]``) other than the chosen successors are removed. Returns the
    vertices and arcs (edges of the 3-split when not ``directed``)."""
    n = solution.size
    layout = haythorpe_layout(n)
    graph = haythorpe_graph(solution, "peers")
    keep = np.ones(len(graph.arcs), dtype=bool)
    digits = solution.values - 1
    for line in range(n):
        for by_row in (True, False):
            order = [0] + rng.sample(range(1, n), n - 1)     # each starts at its digit 0
            cells = {int(digits[line, j] if by_row else digits[j, line]): j for j in range(n)}
            allowed = set()
            for k, k_next in zip(order, order[1:]):
                j = cells[k]
                tail = layout.v(line, j) if by_row else layout.w(j, line)
                head = layout.r(line, k_next) if by_row else layout.c(line, k_next)
                allowed.add((tail, head))
            heads = ({layout.r(line, k) for k in range(n)} if by_row
                     else {layout.c(line, k) for k in range(n)})
            tails = ({layout.v(line, j) for j in range(n)} if by_row
                     else {layout.w(j, line) for j in range(n)})
            for index, (u, v) in enumerate(graph.arcs.tolist()):
                if u in tails and v in heads and (u, v) not in allowed:
                    keep[index] = False
    arcs = graph.arcs[keep]
    if directed:
        return graph.num_vertices, arcs
    split = haythorpe_split(graph, False)
    lo, hi = np.sort(split.edges, axis=1).T
    kept = np.isin(lo * split.num_vertices + hi, _split_keys(split, arcs)) | _not_an_arc(split)
    return split.num_vertices, split.edges[kept]


def _split_keys(split, arcs):
    u, v = split.out_id[arcs[:, 0]], split.in_id[arcs[:, 1]]
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    return lo * split.num_vertices + hi


def _not_an_arc(split):
    """The 3-split's path edges in–mid–out (not arcs of the digraph)."""
    owner_u, owner_v = split.owner[split.edges[:, 0]], split.owner[split.edges[:, 1]]
    return owner_u == owner_v


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "3-split"])
def test_one_cycle_per_row_and_column_order(directed):
    """With every row's and column's digit order fixed, a full 4×4 grid's graph has exactly
    one Hamiltonian cycle, for any orders: so a solution has one cycle per choice of orders,
    ((N−1)!)^(2N) = 1,679,616 at N = 4 — the reduction is not parsimonious (and uniqueness
    is proved on grids, not cycles)."""
    rng = random.Random(4)
    for solution in [s for _, s in instance_pairs("4x4.txt")][:2]:
        for _ in range(3):
            n_vertices, pairs = ordered_graph(solution, rng, directed)
            cycles = list(hamiltonian_cycles(n_vertices, pairs, directed=directed, limit=3,
                                             time_limit=60))
            assert len(cycles) == 1


def test_a_full_grid_has_many_cycles():
    """Without fixed orders, the same graph has more cycles than any small count: 50 found,
    all spelling out the one grid."""
    puzzle, solution = instance_pairs("4x4.txt")[0]
    pipeline = build_hcp_pipeline(solution, HcpOptions(directed=True, prune="peers"))
    cycles = list(hamiltonian_cycles(pipeline.num_vertices, pipeline.edges, directed=True,
                                     limit=50, time_limit=60))
    assert len(cycles) == 50
    assert len({tuple(c.tolist()) for c in cycles}) == 50
    assert all(pipeline.decode(c) == solution for c in cycles)


def test_hamiltonian_cycles_counts_small_graphs_exactly():
    """Against brute force over permutations: complete digraphs and graphs on 5 and 6
    vertices (the complete undirected graph K_n has (n−1)!/2 cycles)."""
    for n in (4, 5, 6):
        full = np.array(list(itertools.permutations(range(n), 2)), dtype=np.int64)
        assert sum(1 for _ in hamiltonian_cycles(n, full, directed=True)) == \
            len(list(itertools.permutations(range(1, n))))
        edges = full[full[:, 0] < full[:, 1]]
        assert sum(1 for _ in hamiltonian_cycles(n, edges, directed=False)) == \
            len(list(itertools.permutations(range(1, n)))) // 2
    rng = random.Random(5)
    for _ in range(20):
        n = 6
        arcs = np.array([p for p in itertools.permutations(range(n), 2) if rng.random() < 0.5],
                        dtype=np.int64).reshape(-1, 2)
        present = {tuple(a) for a in arcs.tolist()}
        brute = sum(1 for rest in itertools.permutations(range(1, n))
                    if all((u, v) in present for u, v in zip((0,) + rest, rest + (0,))))
        assert sum(1 for _ in hamiltonian_cycles(n, arcs, directed=True)) == brute


@pytest.mark.parametrize("backend", ["sat", pytest.param("cpsat", marks=pytest.mark.skipif(
    importlib.util.find_spec("ortools") is None, reason="ortools not installed (extra cpsat)"))])
def test_one_off_solvers_take_a_no_good(backend):
    """solve_directed_hcp / solve_undirected_hcp with ``not_all_of``: a complete graph has
    another cycle than the one blocked; a lone cycle has none; an empty no-good leaves none."""
    from solvers.hamiltonian import solve_directed_hcp, solve_undirected_hcp
    full = np.array(list(itertools.permutations(range(5), 2)), dtype=np.int64)
    for solve, pairs in ((solve_directed_hcp, full), (solve_undirected_hcp,
                                                       full[full[:, 0] < full[:, 1]])):
        first = solve(5, pairs, backend=backend)
        blocked = np.stack([first.cycle, np.roll(first.cycle, -1)], axis=1)
        other = solve(5, pairs, backend=backend, not_all_of=blocked)
        assert other.found
        steps = {tuple(p) for p in np.stack([other.cycle, np.roll(other.cycle, -1)],
                                            axis=1).tolist()}
        if solve is solve_undirected_hcp:
            steps |= {(v, u) for u, v in steps}
        assert not {tuple(p) for p in blocked.tolist()} <= steps
        ring = blocked
        assert solve(5, ring, backend=backend, not_all_of=ring).status == "no cycle"
        assert solve(5, pairs, backend=backend, not_all_of=blocked[:0]).status == "no cycle"
