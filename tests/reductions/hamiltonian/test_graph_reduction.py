"""Degree-2 reduction: the rules on small graphs, the Hamiltonian cycles kept exactly (brute
force), tours expanded and compressed, the Sudoku graphs (sizes against the paper, closed
loops through the exact solver, NO instances)."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.hamiltonian.graph_reduction import (NO_CYCLE, REDUCED, SOLVED, compress_tour,
                                                    expand_tour, reduce_degree_two)
from reductions.sudoku.grid import parse_grid
from reductions.hamiltonian.hcp import (HcpError, cycle_from_solution, grid_from_cycle,
                                        haythorpe_graph)
from reductions.hamiltonian.hcp_undirected import (directed_cycle_from_tour, haythorpe_split,
                                                   tour_from_cycle)

from tests.conftest import instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION
from tests.reductions.hamiltonian.test_hcp import solutions
from tests.reductions.hamiltonian.test_hcp_undirected import canonical, undirected_cycles

PAPER_REDUCED = (12_036, 19_301)         # §7, the 17-clue instance, undirected, reduced


def edges_of(pairs) -> np.ndarray:
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


# ----------------------------------------------------------------------------- the rules

def test_a_cycle_is_found_by_the_rules_alone():
    red = reduce_degree_two(6, edges_of([(i, (i + 1) % 6) for i in range(6)]))
    assert red.status == SOLVED and red.num_vertices == 3
    assert canonical(red.forced_tour) == (0, 1, 2, 3, 4, 5)
    assert canonical(expand_tour(red, [0, 1, 2])) == (0, 1, 2, 3, 4, 5)
    assert canonical(expand_tour(red, [2, 1, 0])) == (0, 1, 2, 3, 4, 5)


def test_rule_1_merges_runs_of_degree_2_vertices():
    # K4 on 0..3 with the edge 0–1 replaced by the path 0–4–5–1.
    red = reduce_degree_two(6, edges_of([(0, 4), (4, 5), (5, 1), (0, 2), (0, 3), (1, 2),
                                         (1, 3), (2, 3)]), closing=False)
    assert red.status == REDUCED and red.num_vertices == 5
    groups = [red.group(g).tolist() for g in range(red.num_vertices)]
    assert [4, 5] in groups or [5, 4] in groups
    assert red.num_edges == 7


def test_rule_2_removes_the_other_edges_of_a_vertex_with_two_forced_edges():
    # Vertex 0 has degree-2 neighbours 1 and 2, so its edge to 3 goes; then 3 has degree 2.
    edges = edges_of([(0, 1), (1, 4), (0, 2), (2, 5), (0, 3), (3, 4), (3, 5), (4, 5)])
    red = reduce_degree_two(6, edges, closing=False)
    assert red.deleted_edges >= 1
    live = {tuple(sorted(e)) for e in red.original_edges.tolist()}
    assert (0, 3) in live                              # the input is untouched
    for tour in undirected_cycles(6, edges):
        assert tour in {canonical(expand_tour(red, t))
                        for t in undirected_cycles(red.num_vertices, red.edges)}


@pytest.mark.parametrize("pairs, reason", [
    ([(0, 1), (1, 2), (2, 0), (2, 3)], "degree 1"),
    ([(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4), (4, 5), (5, 0)], "neighbours of degree 2"),
    ([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)], "ring|pieces"),
])
def test_no_cycle_is_reported_with_a_reason(pairs, reason):
    n = max(max(p) for p in pairs) + 1
    red = reduce_degree_two(n, edges_of(pairs))
    assert red.status == NO_CYCLE and red.infeasible
    assert not undirected_cycles(n, edges_of(pairs))
    assert re.search(reason, red.reason)
    with pytest.raises(HcpError, match="does not exist"):
        expand_tour(red, [0, 1, 2])


def test_closing_rule_removes_the_edge_that_would_close_a_short_cycle():
    # Path 0–1–2 forced (1 has degree 2); the edge 0–2 would close a triangle.
    edges = edges_of([(0, 1), (1, 2), (0, 2), (0, 3), (2, 4), (3, 4), (3, 5), (4, 5), (0, 5)])
    plain = reduce_degree_two(6, edges, closing=False)
    closed = reduce_degree_two(6, edges, closing=True)
    assert closed.deleted_edges > plain.deleted_edges
    assert {canonical(expand_tour(closed, t))
            for t in undirected_cycles(closed.num_vertices, closed.edges)} == \
        undirected_cycles(6, edges)


# The reductions of the first sample puzzles (3-split, peers pruning; plain and with the
# triple trick) as the per-round numpy version at b9816ad made them: status, vertices,
# edges, deleted edges, and a digest of edges, groups, members, group ends and ``alive``.
# The faster helpers must give the very same graph (checked on all 300 sample puzzles when
# they were written; these pin it).
PINNED_REDUCTIONS = [
    ("reduced", 5103, 8421, 3053, "38d5353f84733c90"),
    ("reduced", 9054, 14495, 930, "a615449cd6b95673"),
    ("reduced", 7026, 11257, 2217, "7e7cb4497bc68fb1"),
    ("reduced", 9119, 14640, 927, "4f44be4ad7836fb0"),
]


def reduction_digest(reduction) -> str:
    digest = hashlib.sha256()
    for part in (reduction.edges, reduction.group_start, reduction.members,
                 reduction.end_groups, reduction.alive):
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()[:16]


def test_reductions_of_sample_puzzles_are_unchanged():
    from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
    puzzles = instance_puzzles("royle17-sample300.txt", 2)
    got = []
    for puzzle in puzzles:
        for triple in (False, True):
            r = build_hcp_pipeline(puzzle, HcpOptions(prune="peers", reduce=True,
                                                      triple=triple)).reduction
            got.append((str(r.status), r.num_vertices, r.num_edges, r.deleted_edges,
                        reduction_digest(r)))
    assert got == PINNED_REDUCTIONS


@st.composite
def small_graphs(draw):
    n = draw(st.integers(3, 8))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    chosen = draw(st.sets(st.sampled_from(pairs), min_size=n, max_size=min(len(pairs), 2 * n)))
    order = draw(st.permutations(sorted(chosen)))
    return n, edges_of(order)


def reduction_record(reduction) -> tuple:
    return (str(reduction.status), reduction.reason, reduction.rounds,
            reduction.deleted_edges, reduction.num_vertices, reduction_digest(reduction))


def reduce_by_numpy_rounds_only(monkeypatch, n, edges, **options):
    """The reduction with every round of rule 2 vectorised (no plain-Python rounds)."""
    import reductions.hamiltonian.degree_two as degree_two
    with monkeypatch.context() as patch:
        patch.setattr(degree_two, "SMALL_FRONTIER", -1)
        return reduce_degree_two(n, edges, **options)


def test_python_rounds_of_rule_two_match_the_numpy_rounds_on_sample_puzzles(monkeypatch):
    # Same rounds, deletions, groups and "no cycle" reasons whichever way a round is done.
    for puzzle in instance_puzzles("royle17-sample300.txt", 3):
        split = haythorpe_split(haythorpe_graph(puzzle, "peers"), False)
        mixed = reduce_degree_two(split.num_vertices, split.edges)
        vectorised = reduce_by_numpy_rounds_only(monkeypatch, split.num_vertices, split.edges)
        assert mixed.rounds > 10
        assert reduction_record(mixed) == reduction_record(vectorised)


def test_both_kinds_of_round_name_the_first_overloaded_vertex_and_the_largest_count(
        monkeypatch):
    # Hubs 0 and 10 share the degree-2 vertices 2, 3, 4; hubs 1 and 9 share 5..8.
    edges = edges_of([(0, 2), (0, 3), (0, 4), (10, 2), (10, 3), (10, 4), (1, 5), (1, 6),
                      (1, 7), (1, 8), (9, 5), (9, 6), (9, 7), (9, 8), (0, 1), (9, 10)])
    expected = "vertex 0 has 4 neighbours of degree 2 (each of those edges must be on the cycle)"
    for red in (reduce_degree_two(11, edges),
                reduce_by_numpy_rounds_only(monkeypatch, 11, edges)):
        assert red.status == NO_CYCLE and red.reason == expected


@settings(max_examples=200, deadline=None)
@given(graph=small_graphs(), closing=st.booleans())
def test_python_rounds_of_rule_two_match_the_numpy_rounds_on_small_graphs(graph, closing):
    n, edges = graph
    with pytest.MonkeyPatch.context() as monkeypatch:
        vectorised = reduce_by_numpy_rounds_only(monkeypatch, n, edges, closing=closing)
    assert reduction_record(reduce_degree_two(n, edges, closing=closing)) == \
        reduction_record(vectorised)


@settings(max_examples=300, deadline=None)
@given(graph=small_graphs(), closing=st.booleans())
def test_the_reduction_keeps_exactly_the_hamiltonian_cycles(graph, closing):
    n, edges = graph
    cycles = undirected_cycles(n, edges)
    red = reduce_degree_two(n, edges, closing=closing)
    if red.status == NO_CYCLE:
        assert not cycles
        return
    assert red.num_vertices <= n and red.num_edges <= len(edges)
    # The sizes, known before the reduced graph is built, are those of the graph built.
    assert red.num_vertices == len(red.group_start) - 1 and red.num_edges == len(red.edges)
    if red.status == SOLVED:
        assert cycles == {canonical(red.forced_tour)}
        return
    reduced_cycles = undirected_cycles(red.num_vertices, red.edges)
    expanded = {canonical(expand_tour(red, t)) for t in reduced_cycles}
    assert len(expanded) == len(reduced_cycles)
    assert expanded == cycles
    for cycle in cycles:
        assert canonical(compress_tour(red, np.array(cycle))) in reduced_cycles
    # At the fixpoint no rule applies any more.
    deg = np.bincount(red.edges.ravel(), minlength=red.num_vertices)
    assert deg.min() >= 2
    two = deg == 2
    assert not np.any(two[red.edges[:, 0]] & two[red.edges[:, 1]])
    forced = np.bincount(red.edges[two[red.edges[:, 1]], 0], minlength=red.num_vertices) + \
        np.bincount(red.edges[two[red.edges[:, 0]], 1], minlength=red.num_vertices)
    assert not np.any((forced == 2) & (deg > 2))


# ----------------------------------------------------------------------------- Sudoku graphs

def reduce_sudoku(puzzle, prune, triple=False, closing=True):
    graph = haythorpe_graph(puzzle, prune)
    split = haythorpe_split(graph, triple)
    return graph, split, reduce_degree_two(split.num_vertices, split.edges, closing)


@pytest.mark.parametrize("closing", [False, True])
def test_papers_instance_lands_below_the_papers_sizes(closing):
    puzzle = parse_grid(PAPER_17)
    _, _, paper = reduce_sudoku(puzzle, "paper", closing=closing)
    assert paper.status == REDUCED
    assert paper.num_vertices < PAPER_REDUCED[0] and paper.num_edges < PAPER_REDUCED[1]
    _, _, peers = reduce_sudoku(puzzle, "peers", closing=closing)
    assert peers.num_vertices < paper.num_vertices
    if closing:                                 # the target: ≤ 60% of the paper's
        assert peers.num_vertices <= 0.6 * PAPER_REDUCED[0]


@pytest.mark.parametrize("triple", [False, True])
@pytest.mark.parametrize("prune", ["none", "paper", "peers"])
def test_the_solution_survives_the_reduction_and_decodes(prune, triple):
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    graph, split, red = reduce_sudoku(puzzle, prune, triple)
    assert red.status == REDUCED
    tour = tour_from_cycle(split, cycle_from_solution(graph, solution))
    reduced = compress_tour(red, tour)
    for shift in (0, 5, reduced.size - 1):
        for walked in (np.roll(reduced, shift), np.roll(reduced, shift)[::-1]):
            back = directed_cycle_from_tour(split, expand_tour(red, walked))
            assert grid_from_cycle(graph, back) == solution


def test_closed_loop_with_reduction_on_shipped_puzzles():
    puzzles = instance_puzzles("royle17-sample300.txt", 10) + \
        instance_puzzles("hardest1905-sample100.txt", 5)
    for puzzle, solution in zip(puzzles, solutions(puzzles)):
        for prune in ("paper", "peers"):
            graph, split, red = reduce_sudoku(puzzle, prune)
            tour = tour_from_cycle(split, cycle_from_solution(graph, solution))
            walked = compress_tour(red, tour)[::-1]
            back = directed_cycle_from_tour(split, expand_tour(red, walked))
            assert grid_from_cycle(graph, back) == solution


def test_the_exact_solver_on_reduced_graphs():
    import solvers.hamiltonian as hcp
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    graph, split, red = reduce_sudoku(puzzle, "peers")
    result = hcp.solve_undirected_hcp(red.num_vertices, red.edges, time_limit=120)
    assert result.status == "hamiltonian"
    back = directed_cycle_from_tour(split, expand_tour(red, result.cycle))
    assert grid_from_cycle(graph, back) == solution
    for puzzle in instance_puzzles("unsolvable.txt")[:3]:
        graph, split, red = reduce_sudoku(puzzle, "peers")
        assert red.status in (REDUCED, NO_CYCLE)
        if red.status == REDUCED:
            result = hcp.solve_undirected_hcp(red.num_vertices, red.edges, time_limit=120)
            assert result.status == "no cycle"


def test_unsolvable_puzzles_are_never_reduced_and_fine():
    """The reduction proves the last NO instance infeasible in both pruning modes; the
    others (refuted only by search) stay 'reduced' here and are refuted by the exact solver
    (test above, and tests/reductions/hamiltonian/test_hcp.py)."""
    puzzles = instance_puzzles("unsolvable.txt")
    for prune in ("paper", "peers"):
        for closing in (False, True):
            _, _, red = reduce_sudoku(puzzles[-1], prune, closing=closing)
            assert red.status == NO_CYCLE and red.reason
    for puzzle in puzzles[:3]:
        for prune in ("paper", "peers"):
            _, _, red = reduce_sudoku(puzzle, prune)
            assert red.status in (REDUCED, NO_CYCLE)


@pytest.mark.slow
def test_reduction_closed_loop_on_hundreds_of_puzzles():
    puzzles = (instance_puzzles("royle17-sample300.txt", 100)
               + instance_puzzles("forum-hardest-sample100.txt", 50)
               + instance_puzzles("top1465-sample100.txt", 50))
    for puzzle, solution in zip(puzzles, solutions(puzzles)):
        for prune in ("none", "paper", "peers"):
            for triple in (False, True):
                graph, split, red = reduce_sudoku(puzzle, prune, triple)
                assert red.status in (REDUCED, SOLVED)
                tour = tour_from_cycle(split, cycle_from_solution(graph, solution))
                back = directed_cycle_from_tour(split, expand_tour(red,
                                                                   compress_tour(red, tour)))
                assert grid_from_cycle(graph, back) == solution
