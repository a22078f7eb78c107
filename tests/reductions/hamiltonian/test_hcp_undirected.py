"""Directed → undirected (3-split, triple trick): exact sizes, cycles ↔ tours on small
graphs by brute force, the Sudoku graphs' tours both ways, and bad tours."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import Grid, parse_grid
from reductions.hamiltonian.hcp import (PRUNE_MODES, HcpError, cycle_from_solution,
                                        grid_from_cycle, haythorpe_graph, undirected_size)
from reductions.hamiltonian.hcp_undirected import (IN, MID, OUT, directed_cycle_from_tour,
                                                   haythorpe_split, split_graph, tour_from_cycle)

from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION

# The spec's table: undirected and triple-trick sizes of the blank grid's graph.
SPEC_UNDIRECTED = {4: (1_422, 2_206), 9: (14_397, 23_631), 16: (77_670, 130_150)}
SPEC_TRIPLE = {4: (1_294, 2_078), 9: (12_939, 22_173), 16: (69_478, 121_958)}


@pytest.mark.parametrize("n", [4, 9, 16])
def test_sizes_match_the_papers_formulas(n):
    graph = haythorpe_graph(Grid.empty(n), "none")
    for triple, spec in ((False, SPEC_UNDIRECTED), (True, SPEC_TRIPLE)):
        split = haythorpe_split(graph, triple)
        assert (split.num_vertices, split.num_edges) == spec[n] == undirected_size(n, triple)
        edges = split.edges
        assert edges.min() >= 0 and edges.max() < split.num_vertices
        assert not np.any(edges[:, 0] == edges[:, 1])
        keys = np.minimum(edges[:, 0], edges[:, 1]) * split.num_vertices + edges.max(axis=1)
        assert len(np.unique(keys)) == len(keys)


def test_numbering_is_the_papers_3i_scheme():
    graph = haythorpe_graph(Grid.empty(4), "paper")
    split = haythorpe_split(graph)
    u = np.arange(graph.num_vertices)
    assert np.array_equal(split.in_id, 3 * u) and np.array_equal(split.mid_id, 3 * u + 1)
    assert np.array_equal(split.out_id, 3 * u + 2)
    # arc (i, j) → edge (3i, 3j−2) in the paper's 1-based numbers
    arc_edges = split.edges[2 * graph.num_vertices:] + 1
    assert np.array_equal(arc_edges, np.stack([3 * (graph.arcs[:, 0] + 1),
                                               3 * (graph.arcs[:, 1] + 1) - 2], axis=1))
    assert np.array_equal(split.owner, np.repeat(u, 3))
    assert np.array_equal(split.role, np.tile([IN, MID, OUT], graph.num_vertices))


def test_triple_trick_drops_the_middle_of_every_x1_and_y1():
    graph = haythorpe_graph(Grid.empty(4), "none")
    split = haythorpe_split(graph, triple=True)
    L = graph.layout
    dropped = np.flatnonzero(split.mid_id < 0)
    labels = [L.label(v) for v in dropped]
    assert sorted(kind for kind, _ in labels) == ["x"] * 64 + ["y"] * 64
    assert all(idx[3] == 1 for _, idx in labels)       # x[i,j,k,2] in the paper's numbers
    assert dropped.size == 2 * 4**3
    kept = np.flatnonzero(split.mid_id >= 0)
    assert np.array_equal(np.sort(np.concatenate([split.in_id, split.out_id,
                                                  split.mid_id[kept]])),
                          np.arange(split.num_vertices))


# ----------------------------------------------------------------------------- brute force

def directed_cycles(n: int, arcs: set[tuple[int, int]]) -> set[tuple[int, ...]]:
    """Hamiltonian cycles of a digraph, each as the vertex tuple starting at 0."""
    return {(0,) + rest for rest in itertools.permutations(range(1, n))
            if all(((0,) + rest)[p] in [a for a, b in arcs if b == ((0,) + rest)[(p + 1) % n]]
                   for p in range(n))}


def undirected_cycles(n: int, edges: np.ndarray) -> set[tuple[int, ...]]:
    """Hamiltonian cycles of a graph, canonical: start at 0, smaller second vertex first."""
    adj = [set() for _ in range(n)]
    for a, b in edges.tolist():
        adj[a].add(b)
        adj[b].add(a)
    found = set()

    def extend(path, seen):
        if len(path) == n:
            if path[0] in adj[path[-1]] and path[1] < path[-1]:
                found.add(tuple(path))
            return
        for w in adj[path[-1]]:
            if not seen[w]:
                seen[w] = True
                path.append(w)
                extend(path, seen)
                path.pop()
                seen[w] = False

    seen = [False] * n
    seen[0] = True
    extend([0], seen)
    return found


def canonical(cycle) -> tuple[int, ...]:
    cycle = list(cycle)
    p = cycle.index(0)
    cycle = cycle[p:] + cycle[:p]
    return tuple(cycle if cycle[1] < cycle[-1] else [cycle[0]] + cycle[1:][::-1])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 5), data=st.data())
def test_tours_of_the_split_are_the_directed_cycles(n, data):
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    arcs = data.draw(st.sets(st.sampled_from(pairs), min_size=n))
    arc_array = np.array(sorted(arcs), dtype=np.int64)
    split = split_graph(n, arc_array)
    cycles = directed_cycles(n, arcs)
    tours = undirected_cycles(split.num_vertices, split.edges)
    assert len(tours) == len(cycles)
    for tour in tours:
        cycle = directed_cycle_from_tour(split, np.array(tour))
        p = list(cycle).index(0)
        assert tuple(np.roll(cycle, -p)) in cycles
    for cycle in cycles:
        assert canonical(tour_from_cycle(split, np.array(cycle))) in tours


@settings(max_examples=40, deadline=None)
@given(extra=st.integers(2, 3), data=st.data())
def test_triple_trick_keeps_the_cycles_of_a_planted_triple(extra, data):
    """A digraph with a triple 0 ↔ 1 ↔ 2 (1 touching nothing else) and a few other vertices:
    dropping the middle of vertex 1 keeps exactly the Hamiltonian cycles."""
    n = 3 + extra
    others = list(range(3, n))
    inner = {(0, 1), (1, 0), (1, 2), (2, 1)}
    outside = [(a, b) for a in [0, 2] + others for b in [0, 2] + others
               if a != b and not {a, b} <= {0, 2}]
    arcs = inner | data.draw(st.sets(st.sampled_from(outside), min_size=2))
    arc_array = np.array(sorted(arcs), dtype=np.int64)
    plain = split_graph(n, arc_array)
    trick = split_graph(n, arc_array, drop_mid=[1])
    assert trick.num_vertices == plain.num_vertices - 1
    assert trick.num_edges == plain.num_edges - 1
    cycles = directed_cycles(n, arcs)
    tours = undirected_cycles(trick.num_vertices, trick.edges)
    assert len(tours) == len(cycles)
    assert {canonical(directed_cycle_from_tour(trick, np.array(t))) for t in tours} == \
        {canonical(c) for c in cycles}


def test_the_trick_is_refused_where_its_argument_fails():
    arcs = np.array([[0, 1], [1, 0], [1, 2], [2, 1], [1, 3], [3, 0], [2, 3]])
    with pytest.raises(ValueError, match="exactly two"):
        split_graph(4, arcs, drop_mid=[1])
    with pytest.raises(ValueError, match="adjacent"):
        split_graph(4, arcs, drop_mid=[0, 1])


# ----------------------------------------------------------------------------- Sudoku graphs

@pytest.mark.parametrize("triple", [False, True])
@pytest.mark.parametrize("prune", PRUNE_MODES)
def test_sudoku_tours_decode_from_any_start_and_direction(prune, triple):
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    graph = haythorpe_graph(puzzle, prune)
    split = haythorpe_split(graph, triple)
    cycle = cycle_from_solution(graph, solution)
    tour = tour_from_cycle(split, cycle)
    assert tour.size == split.num_vertices
    for shift in (0, 1, 2, 3, 1000, split.num_vertices - 1):
        for reverse in (False, True):
            walked = np.roll(tour, shift)
            walked = walked[::-1] if reverse else walked
            back = directed_cycle_from_tour(split, walked)
            assert grid_from_cycle(graph, back) == solution


def test_bad_tours_are_refused_with_the_place():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    graph = haythorpe_graph(puzzle, "paper")
    split = haythorpe_split(graph)
    tour = tour_from_cycle(split, cycle_from_solution(graph, solution))
    with pytest.raises(HcpError, match="14396 vertices"):
        directed_cycle_from_tour(split, tour[:-1])
    broken = tour.copy()
    broken[[4, 7]] = broken[[7, 4]]
    with pytest.raises(HcpError, match=r"\.(in|mid|out) → .*\.(in|mid|out) is not an edge"):
        directed_cycle_from_tour(split, broken, graph.layout.name)


@pytest.mark.parametrize("n", [25, 36])
def test_larger_blank_graphs_match_the_formulas(n):
    # Directed 6N³+5N²+2N+2 / 19N³+2N²+2N+2; 3-split and triple trick as in the paper's §4.
    graph = haythorpe_graph(Grid.empty(n), "none")
    assert (graph.num_vertices, graph.num_arcs) == (6 * n**3 + 5 * n**2 + 2 * n + 2,
                                                    19 * n**3 + 2 * n**2 + 2 * n + 2)
    plain, triple = haythorpe_split(graph), haythorpe_split(graph, triple=True)
    assert (plain.num_vertices, len(plain.edges)) == (18 * n**3 + 15 * n**2 + 6 * n + 6,
                                                      31 * n**3 + 12 * n**2 + 6 * n + 6)
    assert (triple.num_vertices, len(triple.edges)) == (16 * n**3 + 15 * n**2 + 6 * n + 6,
                                                        29 * n**3 + 12 * n**2 + 6 * n + 6)
