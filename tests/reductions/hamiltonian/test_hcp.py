"""Haythorpe's Sudoku → directed HCP: exact sizes, the arc list against the paper's, clue
pruning set by set, the forward witness map, decoding, and NO instances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from reductions.encodings.cnf import grid_from_model, sudoku_cnf
from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid
from reductions.hamiltonian.graphs import hamiltonian_cycle_problem, is_hamiltonian_cycle
from reductions.hamiltonian.hcp import (
    CHOICE,
    COL_ENTRY,
    COL_EXIT,
    HANDOVER,
    PRUNE_MODES,
    RETURN,
    ROW_ENTRY,
    ROW_EXIT,
    VERTEX_KINDS,
    HcpError,
    blank_arcs,
    cycle_from_solution,
    directed_size,
    excluded_options,
    grid_from_cycle,
    haythorpe_graph,
    haythorpe_layout,
    lone_clue_removals,
    option_arc_index,
    paper_removed_option_arcs,
)
from solvers.routes.sat_batch import solve_many

from tests.conftest import instance_pairs, instance_puzzles, shared_set
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION, random_solution

# The spec's table (../shared/spec/haythorpe-hcp.md), directed graph of the blank grid.
SPEC_DIRECTED = {4: (474, 1_258), 9: (4_799, 14_033), 16: (25_890, 78_370)}


def solutions(puzzles: list[Grid]) -> list[Grid]:
    """Solutions by the SAT route (checked there), for the closed loops."""
    out = [None] * len(puzzles)
    for index, outcome in solve_many(puzzles):
        assert outcome.solved
        out[index] = outcome.grid
    return out


def arc_set(arcs: np.ndarray) -> set[tuple[int, int]]:
    return set(map(tuple, np.asarray(arcs).tolist()))


# ----------------------------------------------------------------------------- the paper's list

def paper_arcs(n: int, literal_block_n: bool = False) -> set[tuple[int, int]]:
    """The arc list of §2 written out in plain loops, 1-based as in the paper, independent of
    the numpy builder. ``literal_block_n`` keeps the paper's error: ``y[i,j,N-1,3] →
    b[a+1,1]`` for every cell but (N,N), which for block N names a vertex that does not exist
    (those arcs are then simply missing)."""
    L = haythorpe_layout(n)
    rt = math.isqrt(n)

    def V(kind, *idx):          # 1-based indices, digits wrapped into 1..N
        return L.vertex(kind, *[i - 1 for i in idx])

    def wrap(k):
        return (k - 1) % n + 1

    def block(i, j):
        return ((i - 1) // rt) * rt + (j - 1) // rt + 1

    R = range(1, n + 1)
    arcs = {(V("s"), V("b", 1, 1)), (V("d", n), V("f")), (V("f"), V("s"))}
    for i, j in itertools.product(R, R):
        a = block(i, j)
        for k in R:
            arcs.add((V("b", a, k), V("x", i, j, wrap(k + 1), 1)))
            for z in ("x", "y"):
                arcs |= {(V(z, i, j, k, 1), V(z, i, j, k, 2)), (V(z, i, j, k, 2), V(z, i, j, k, 1)),
                         (V(z, i, j, k, 2), V(z, i, j, k, 3)), (V(z, i, j, k, 3), V(z, i, j, k, 2)),
                         (V(z, i, j, k, 3), V(z, i, j, wrap(k + 1), 1))}
            arcs.add((V("x", i, j, k, 3), V("y", i, j, wrap(k + 2), 1)))
            if k != n - 1:
                arcs.add((V("y", i, j, k, 3), V("b", a, wrap(k + 2))))
            arcs |= {(V("r", i, k), V("x", i, j, k, 3)), (V("x", i, j, k, 1), V("v", i, j)),
                     (V("v", i, j), V("r", i, k)), (V("c", j, k), V("y", i, j, k, 3)),
                     (V("y", i, j, k, 1), V("w", i, j)), (V("w", i, j), V("c", j, k))}
        arcs |= {(V("v", i, j), V("t", i)), (V("w", i, j), V("d", j))}
        if (i, j) == (n, n):
            arcs.add((V("y", n, n, n - 1, 3), V("r", 1, 1)))
        elif a < n:
            arcs.add((V("y", i, j, n - 1, 3), V("b", a + 1, 1)))
        elif not literal_block_n:       # corrected: block N returns to r[1,1]
            arcs.add((V("y", i, j, n - 1, 3), V("r", 1, 1)))
    for i in range(1, n):
        arcs |= {(V("t", i), V("r", i + 1, 1)), (V("d", i), V("c", i + 1, 1))}
    arcs.add((V("t", n), V("c", 1, 1)))
    return arcs


def paper_sets(n: int, i: int, j: int, k: int) -> dict[str, set[tuple[int, int]]]:
    """The twelve sets of §5 for a clue k at (i, j), 1-based, written out as in the paper
    with its index typos read by meaning (choice arcs lead to x[·,·,k+1,1])."""
    L = haythorpe_layout(n)
    rt = math.isqrt(n)

    def V(kind, *idx):
        return L.vertex(kind, *[x - 1 for x in idx])

    def wrap(x):
        return (x - 1) % n + 1

    a = ((i - 1) // rt) * rt + (j - 1) // rt + 1
    r0, c0 = (i - 1) // rt * rt + 1, (j - 1) // rt * rt + 1
    others = [(m, q) for m in range(r0, r0 + rt) for q in range(c0, c0 + rt) if (m, q) != (i, j)]
    digits = [m for m in range(1, n + 1) if m != k]
    sets = {
        "1": {(V("b", a, k), V("x", m, q, wrap(k + 1), 1)) for m, q in others},
        "2": {(V("b", a, m), V("x", i, j, wrap(m + 1), 1)) for m in digits},
        "3": {(V("x", m, q, wrap(k - 1), 3), V("y", m, q, wrap(k + 1), 1)) for m, q in others},
        "4": {(V("x", i, j, wrap(m - 1), 3), V("y", i, j, wrap(m + 1), 1)) for m in digits},
        "7": {(V("r", i, k), V("x", i, m, k, 3)) for m in range(1, n + 1) if m != j},
        "8": {(V("x", i, m, k, 1), V("v", i, m)) for m in range(1, n + 1) if m != j},
        "9": {(V("r", i, m), V("x", i, j, m, 3)) for m in digits},
        "10": {(V("c", j, k), V("y", m, j, k, 3)) for m in range(1, n + 1) if m != i},
        "11": {(V("y", m, j, k, 1), V("w", m, j)) for m in range(1, n + 1) if m != i},
        "12": {(V("c", j, m), V("y", i, j, m, 3)) for m in digits},
    }
    if k < n:
        sets["5a"] = {(V("y", m, q, wrap(k - 1), 3), V("b", a, k + 1)) for m, q in others}
    elif a < n:
        sets["5b"] = {(V("y", m, q, wrap(k - 1), 3), V("b", a + 1, 1)) for m, q in others}
    else:
        sets["5c"] = {(V("y", m, q, wrap(k - 1), 3), V("r", 1, 1)) for m, q in others}
    sets["6a"] = {(V("y", i, j, wrap(m - 1), 3), V("b", a, m + 1)) for m in digits if m != n}
    if k < n and a < n:
        sets["6b"] = {(V("y", i, j, n - 1, 3), V("b", a + 1, 1))}
    if k < n and a == n:
        sets["6c"] = {(V("y", i, j, n - 1, 3), V("r", 1, 1))}
    return sets


# ----------------------------------------------------------------------------- sizes

@pytest.mark.parametrize("n", [4, 9, 16])
def test_blank_graph_sizes_match_the_papers_formulas(n):
    graph = haythorpe_graph(Grid.empty(n), "none")
    assert (graph.num_vertices, graph.num_arcs) == SPEC_DIRECTED[n] == directed_size(n)
    arcs = graph.arcs
    assert arcs.dtype == np.int64 and arcs.shape == (SPEC_DIRECTED[n][1], 2)
    assert arcs.min() >= 0 and arcs.max() < graph.num_vertices
    assert not np.any(arcs[:, 0] == arcs[:, 1])
    assert len(np.unique(arcs[:, 0] * graph.num_vertices + arcs[:, 1])) == len(arcs)


@pytest.mark.parametrize("n", [4, 9])
def test_arcs_are_exactly_the_papers_list(n):
    assert arc_set(blank_arcs(n)) == paper_arcs(n)


def test_the_literal_block_n_returns_are_missing_arcs():
    """Paper error 1: read literally, block N's cells other than (N,N) have no return after
    digit N−1... — N−1 arcs fewer than the formula (and, below, lost solutions)."""
    for n in (4, 9):
        literal = paper_arcs(n, literal_block_n=True)
        assert len(literal) == directed_size(n)[1] - (n - 1)
        assert literal < arc_set(blank_arcs(n))


@pytest.mark.parametrize("n", [4, 9])
def test_vertex_labels_both_ways(n):
    L = haythorpe_layout(n)
    sizes = [1, 1, n * n, n * n, n, n * n, n, 3 * n**3, n * n, 3 * n**3, n * n]
    assert [L.offset[k] for k in VERTEX_KINDS] == list(np.cumsum([0] + sizes[:-1]))
    assert L.num_vertices == sum(sizes) == directed_size(n)[0]
    names = [L.name(v) for v in range(L.num_vertices)]
    assert len(set(names)) == L.num_vertices
    assert all(L.vertex_from_name(name) == v for v, name in enumerate(names))
    kinds = L.kind_of(np.arange(L.num_vertices))
    assert np.bincount(kinds).tolist() == sizes
    assert names[:2] == ["s", "f"] and names[2] == "b[1,1]" and names[-1] == f"w[{n},{n}]"
    assert L.name(L.x(0, 1, 2, 0)) == "x[1,2,3,1]"
    assert L.label(L.y(1, 0, n - 1, 2)) == ("y", (1, 0, n - 1, 2))
    with pytest.raises(HcpError, match="not a vertex"):
        L.vertex_from_name(f"x[1,1,{n + 1},1]")
    with pytest.raises(HcpError, match="out of range"):
        L.label(L.num_vertices)


def test_option_arcs_are_where_the_index_says():
    n = 9
    L = haythorpe_layout(n)
    arcs = blank_arcs(n)
    i, j, k = 4, 7, 2          # digit 3 in cell (5,8), block 6 (0-based 5)
    a = 5
    expected = {
        CHOICE: (L.b(a, k), L.x(i, j, k + 1, 0)),
        HANDOVER: (L.x(i, j, k - 1, 2), L.y(i, j, k + 1, 0)),
        RETURN: (L.y(i, j, k - 1, 2), L.b(a, k + 1)),
        ROW_ENTRY: (L.r(i, k), L.x(i, j, k, 2)),
        ROW_EXIT: (L.x(i, j, k, 0), L.v(i, j)),
        COL_ENTRY: (L.c(j, k), L.y(i, j, k, 2)),
        COL_EXIT: (L.y(i, j, k, 0), L.w(i, j)),
    }
    for kind, arc in expected.items():
        assert tuple(arcs[option_arc_index(n, kind, i, j, k)]) == arc
    # The return of the last digit of the last block goes to r[1,1] (paper error 1 fixed),
    # for every cell of that block.
    for ci, cj in itertools.product(range(6, 9), range(6, 9)):
        assert tuple(arcs[option_arc_index(n, RETURN, ci, cj, n - 1)]) == (
            L.y(ci, cj, n - 2, 2), L.r(0, 0))


# ----------------------------------------------------------------------------- pruning

def lone_clue(n: int, i: int, j: int, k: int) -> Grid:
    values = np.zeros((n, n), dtype=np.int16)
    values[i, j] = k + 1
    return Grid(values)


def removed_arcs(puzzle: Grid, prune: str) -> set[tuple[int, int]]:
    graph = haythorpe_graph(puzzle, prune)
    removed = arc_set(blank_arcs(puzzle.size)) - arc_set(graph.arcs)
    assert len(removed) == graph.removed_arcs
    return removed


@pytest.mark.parametrize("n", [4, 9, 16])
def test_lone_clue_removes_exactly_12_n_minus_1_arcs(n):
    rng = np.random.default_rng(n)
    cells = itertools.product(range(n), range(n), range(n)) if n == 4 else \
        [tuple(rng.integers(0, n, 3)) for _ in range(12)] + [(n - 1, n - 1, n - 1),
                                                              (0, 0, n - 1), (n - 1, 0, 0)]
    for i, j, k in cells:
        puzzle = lone_clue(n, i, j, k)
        graph = haythorpe_graph(puzzle, "paper")
        assert graph.removed_arcs == lone_clue_removals(n) == 12 * (n - 1)
        assert graph.num_vertices == directed_size(n)[0]
        sets = paper_sets(n, i + 1, j + 1, k + 1)
        assert all(len(s) == n - 1 for name, s in sets.items() if name[0] not in "56")
        assert sum(len(s) for name, s in sets.items() if name[0] == "5") == n - 1
        assert sum(len(s) for name, s in sets.items() if name[0] == "6") == n - 1
        union = set().union(*sets.values())
        assert len(union) == 12 * (n - 1)          # the twelve sets are disjoint
        if n <= 9:
            assert removed_arcs(puzzle, "paper") == union


def test_peers_removes_seven_arcs_per_excluded_option():
    for n in (4, 9, 16):
        rt = math.isqrt(n)
        puzzle = lone_clue(n, 1, 2, 0)
        excluded = 4 * (n - 1) - 2 * (rt - 1)      # cell, row, column, rest of the block
        assert excluded_options(puzzle).sum() == excluded
        assert haythorpe_graph(puzzle, "peers").removed_arcs == 7 * excluded


def loop_excluded_options(puzzle: Grid) -> np.ndarray:
    """Reference for :func:`excluded_options`: each clue's exclusions marked one by one."""
    n = puzzle.size
    rt = math.isqrt(n)
    excluded = np.zeros((n, n, n), dtype=bool)
    for i, j, v in puzzle.clues():
        k, r0, c0 = v - 1, (i // rt) * rt, (j // rt) * rt
        keep = excluded[i, j, k]
        excluded[i, j, :] = excluded[i, :, k] = excluded[:, j, k] = True
        excluded[r0:r0 + rt, c0:c0 + rt, k] = True
        excluded[i, j, k] = keep                       # the clue itself stays possible
    return excluded


def test_excluded_options_match_each_clue_marked_in_turn():
    """Valid and contradictory clue sets (a digit repeated in a row, column or block)."""
    rng = np.random.default_rng(23)
    for n in (4, 9, 16):
        for _ in range(20):
            values = np.where(rng.random((n, n)) < 0.3, rng.integers(1, n + 1, (n, n)), 0)
            puzzle = Grid(values, Shape.for_size(n))
            assert np.array_equal(excluded_options(puzzle), loop_excluded_options(puzzle))
    for puzzle in [parse_grid(PAPER_17)] + instance_puzzles("4x4.txt"):
        assert np.array_equal(excluded_options(puzzle), loop_excluded_options(puzzle))


def test_pruning_of_many_clues_is_the_union_of_the_papers_sets():
    for puzzle in [parse_grid(PAPER_17)] + instance_puzzles("4x4.txt"):
        n = puzzle.size
        union = set()
        for i, j, k in puzzle.clues():
            union |= set().union(*paper_sets(n, i + 1, j + 1, k).values())
        paper = removed_arcs(puzzle, "paper")
        assert paper == union
        assert len(paper) <= 12 * (n - 1) * puzzle.clue_count()
        assert paper <= removed_arcs(puzzle, "peers")
        # paper_removed_option_arcs marks (kind, option) pairs: as many as arcs removed.
        assert paper_removed_option_arcs(puzzle).sum() == len(paper)


def test_unknown_mode_and_non_square_shapes_are_refused():
    with pytest.raises(HcpError, match="unknown pruning mode"):
        haythorpe_graph(Grid.empty(4), "all")
    six = Grid.empty(Shape(2, 3))
    with pytest.raises(HcpError, match=r"square blocks .*2x3"):
        haythorpe_graph(six, "paper")
    with pytest.raises(HcpError, match="square blocks"):
        haythorpe_graph(Grid.empty(Shape(3, 4)), "none")


# ----------------------------------------------------------------------------- cycles

def test_forward_cycle_of_the_papers_instance_and_decoding_from_anywhere():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    for prune in PRUNE_MODES:
        graph = haythorpe_graph(puzzle, prune)
        cycle = cycle_from_solution(graph, solution)
        assert cycle[0] == graph.layout.s and cycle.size == graph.num_vertices
        assert is_hamiltonian_cycle(graph.num_vertices, graph.arcs, cycle)
        for shift in (0, 1, 17, 2000, graph.num_vertices - 1):
            rotated = np.roll(cycle, shift)
            assert grid_from_cycle(graph, rotated) == solution
            assert grid_from_cycle(graph, rotated[::-1]) == solution


def test_a_decoded_cycle_is_checked_first():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    graph = haythorpe_graph(puzzle, "paper")
    L = graph.layout
    cycle = cycle_from_solution(graph, solution)
    with pytest.raises(HcpError, match="appears twice"):
        grid_from_cycle(graph, np.concatenate([cycle[:-1], cycle[:1]]))
    with pytest.raises(HcpError, match="4798 vertices"):
        grid_from_cycle(graph, cycle[:-1])
    swapped = cycle.copy()
    swapped[[5, 9]] = swapped[[9, 5]]
    with pytest.raises(HcpError, match=r"not an arc of the graph"):
        grid_from_cycle(graph, swapped)
    message = hamiltonian_cycle_problem(graph.num_vertices, graph.arcs, swapped, True, L.name)
    assert "x[" in message and "→" in message


def test_a_grid_breaking_a_clue_has_no_cycle_in_pruned_graphs():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    wrong = Grid(np.where(solution.values == 1, 2, np.where(solution.values == 2, 1,
                                                             solution.values)))
    assert check_solution(Grid.empty(9), wrong) and not check_solution(puzzle, wrong)
    for prune in ("paper", "peers"):
        with pytest.raises(HcpError, match="not an arc"):
            cycle_from_solution(haythorpe_graph(puzzle, prune), wrong)
    # The blank graph (prune none) does not know the clues: any valid grid is a cycle.
    graph = haythorpe_graph(puzzle, "none")
    assert grid_from_cycle(graph, cycle_from_solution(graph, wrong)) == wrong
    broken = solution.values.copy()
    broken[0, 0], broken[0, 1] = broken[0, 1], broken[0, 0]
    with pytest.raises(HcpError, match="not a valid Sudoku grid"):
        cycle_from_solution(graph, Grid(broken))


def closed_loop(puzzle: Grid, solution: Grid) -> None:
    for prune in PRUNE_MODES:
        graph = haythorpe_graph(puzzle, prune)
        cycle = cycle_from_solution(graph, solution)        # checks it is Hamiltonian
        assert grid_from_cycle(graph, np.roll(cycle, 101)[::-1]) == solution


def test_closed_loop_on_shipped_puzzles():
    puzzles = (instance_puzzles("royle17-sample300.txt", 12)
               + instance_puzzles("forum-hardest-sample100.txt", 6)
               + instance_puzzles("top1465-sample100.txt", 6))
    for puzzle, solution in zip(puzzles, solutions(puzzles)):
        closed_loop(puzzle, solution)
    for name in ("4x4.txt", "16x16.txt", "25x25.txt"):
        for puzzle, solution in instance_pairs(name)[:2]:
            closed_loop(puzzle, solution)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([4, 9]), seed=st.integers(0, 10**6),
       density=st.floats(0.0, 1.0))
def test_random_solutions_survive_every_pruning(n, seed, density):
    rt = math.isqrt(n)
    solution = random_solution(Shape(rt, rt), seed)
    mask = np.random.default_rng(seed).random((n, n)) < density
    puzzle = Grid(np.where(mask, solution.values, 0))
    closed_loop(puzzle, solution)


# ----------------------------------------------------------------------------- exhaustive N=4

def cycle_projections(num_vertices: int, arcs: np.ndarray, project: np.ndarray,
                      limit: int = 10_000) -> list[np.ndarray]:
    """All Hamiltonian cycles of a small digraph, one per distinct set of ``project`` arcs
    used: SAT on one variable per arc (one arc in and one out at every vertex, no 2-cycles),
    subtours cut as found, each cycle blocked on its projected arcs."""
    m = len(arcs)
    pool = IDPool(start_from=m + 1)
    outs = [[] for _ in range(num_vertices)]
    ins = [[] for _ in range(num_vertices)]
    for e, (t, h) in enumerate(arcs.tolist()):
        outs[t].append(e + 1)
        ins[h].append(e + 1)
    cycles = []
    with Solver(name="cadical195") as sat:
        for lits in outs + ins:
            sat.append_formula(CardEnc.equals(lits, 1, vpool=pool,
                                              encoding=EncType.seqcounter).clauses)
        index = {tuple(a): e + 1 for e, a in enumerate(arcs.tolist())}
        for (t, h), e in index.items():
            if t < h and (h, t) in index:
                sat.add_clause([-e, -index[(h, t)]])
        while len(cycles) < limit and sat.solve():
            model = np.array(sat.get_model()[:m]) > 0
            succ = np.empty(num_vertices, dtype=np.int64)
            succ[arcs[model, 0]] = arcs[model, 1]
            seen = np.zeros(num_vertices, dtype=bool)
            pieces = []
            for start in range(num_vertices):
                if not seen[start]:
                    piece, v = [], start
                    while not seen[v]:
                        seen[v] = True
                        piece.append(v)
                        v = succ[v]
                    pieces.append(piece)
            if len(pieces) > 1:
                for piece in pieces:
                    inside = np.zeros(num_vertices, dtype=bool)
                    inside[piece] = True
                    leave = np.flatnonzero(inside[arcs[:, 0]] & ~inside[arcs[:, 1]]) + 1
                    sat.add_clause(leave.tolist())
                continue
            cycles.append(np.array(pieces[0]))
            sat.add_clause([-int(e) - 1 for e in np.flatnonzero(model & project)])
    return cycles


def test_every_hamiltonian_cycle_of_the_4x4_graph_is_a_sudoku_grid():
    """Theorem 3.1 checked exhaustively for N=4: the cycles of the blank graph, told apart
    by their choice and row/column exit arcs, are exactly the 288 grids."""
    graph = haythorpe_graph(Grid.empty(4), "none")
    n3 = 4**3
    index = np.arange(graph.num_arcs)
    project = (index < n3) | ((index >= ROW_EXIT * n3) & (index < (ROW_EXIT + 1) * n3)) | \
        ((index >= COL_EXIT * n3) & (index < (COL_EXIT + 1) * n3))
    cycles = cycle_projections(graph.num_vertices, graph.arcs, project)
    grids = {grid_from_cycle(graph, c) for c in cycles}
    assert len(cycles) == len(grids) == 288
    assert all(check_solution(Grid.empty(4), g) for g in grids)


def test_the_literal_paper_graph_loses_solutions():
    """With error 1 read literally, only grids with 4 in cell (4,4) keep a cycle."""
    literal = np.array(sorted(paper_arcs(4, literal_block_n=True)))
    graph = haythorpe_graph(Grid.empty(4), "none")
    choice = arc_set(blank_arcs(4)[:64])
    project = np.array([tuple(a) in choice for a in literal.tolist()])
    cycles = cycle_projections(graph.num_vertices, literal, project)
    grids = {grid_from_cycle(graph, c) for c in cycles}
    assert 0 < len(grids) < 288
    assert all(g[3, 3] == 4 for g in grids)


def all_solutions(puzzle: Grid) -> set[Grid]:
    """Every solution, by enumerating the models of the puzzle's CNF."""
    cnf = sudoku_cnf(puzzle, "extended", "pairwise", "units")
    n3 = puzzle.size**3
    found = set()
    with Solver(name="cadical195", bootstrap_with=list(cnf.iter_clauses())) as sat:
        while sat.solve():
            model = sat.get_model()
            found.add(grid_from_model(cnf, model))
            sat.add_clause([-lit for lit in model[:n3] if lit > 0])
    return found


def test_pruned_4x4_cycles_are_exactly_the_puzzles_solutions():
    puzzle = parse_grid("1.......2.......")
    expected = all_solutions(puzzle)
    assert len(expected) == 24
    for prune in ("paper", "peers"):
        graph = haythorpe_graph(puzzle, prune)
        kept = np.flatnonzero(graph.kept)
        cycles = cycle_projections(graph.num_vertices, graph.arcs, kept < 4**3)
        grids = {grid_from_cycle(graph, c) for c in cycles}
        assert len(cycles) == len(grids) and grids == expected


# ----------------------------------------------------------------------------- NO instances

def has_cycle_cover(num_vertices: int, arcs: np.ndarray) -> bool:
    """Is there a set of arcs with exactly one in and one out at every vertex, using no
    2-cycle u→v→u? A Hamiltonian cycle (of more than 2 vertices) is one, so False proves
    there is no Hamiltonian cycle."""
    pool = IDPool(start_from=len(arcs) + 1)
    outs = [[] for _ in range(num_vertices)]
    ins = [[] for _ in range(num_vertices)]
    for e, (t, h) in enumerate(arcs.tolist()):
        outs[t].append(e + 1)
        ins[h].append(e + 1)
    if any(not lits for lits in outs + ins):
        return False
    index = {tuple(a): e + 1 for e, a in enumerate(arcs.tolist())}
    with Solver(name="cadical195") as sat:
        for lits in outs + ins:
            sat.append_formula(CardEnc.equals(lits, 1, vpool=pool,
                                              encoding=EncType.seqcounter).clauses)
        for (t, h), e in index.items():
            if t < h and (h, t) in index:
                sat.add_clause([-e, -index[(h, t)]])
        return sat.solve()


def test_unsolvable_puzzles_have_no_hamiltonian_cycle():
    puzzles = instance_puzzles("unsolvable.txt")
    assert len(puzzles) == 4
    for puzzle in puzzles:
        for prune in ("paper", "peers"):
            graph = haythorpe_graph(puzzle, prune)
            assert not has_cycle_cover(graph.num_vertices, graph.arcs)
    # Sanity of the check: solvable puzzles do have a cycle cover.
    graph = haythorpe_graph(parse_grid(PAPER_17), "paper")
    assert has_cycle_cover(graph.num_vertices, graph.arcs)


def test_unsolvable_puzzles_with_the_exact_hcp_solver():
    import solvers.hamiltonian as hcp
    for puzzle in instance_puzzles("unsolvable.txt"):
        graph = haythorpe_graph(puzzle, "paper")
        result = hcp.solve_directed_hcp(graph.num_vertices, graph.arcs, time_limit=120)
        assert result.status == "no cycle"
    graph = haythorpe_graph(parse_grid(PAPER_17), "paper")
    result = hcp.solve_directed_hcp(graph.num_vertices, graph.arcs, time_limit=120)
    assert result.status == "hamiltonian"
    assert grid_from_cycle(graph, result.cycle) == parse_grid(PAPER_17_SOLUTION)


# ----------------------------------------------------------------------------- many puzzles

@pytest.mark.slow
def test_closed_loop_on_hundreds_of_shipped_puzzles():
    puzzles = (instance_puzzles("royle17-sample300.txt")
               + instance_puzzles("forum-hardest-sample100.txt")
               + instance_puzzles("hardest1905-sample100.txt")
               + instance_puzzles("top1465-sample100.txt"))
    for puzzle, solution in zip(puzzles, solutions(puzzles)):
        closed_loop(puzzle, solution)


@pytest.mark.slow
def test_closed_loop_on_the_shared_17_clue_set():
    path = shared_set("royle-17clue-49151.txt")
    lines = [line.strip() for line in open(path) if line.strip()][::100]     # 492 puzzles
    puzzles = [parse_grid(line) for line in lines]
    for puzzle, solution in zip(puzzles, solutions(puzzles)):
        closed_loop(puzzle, solution)
