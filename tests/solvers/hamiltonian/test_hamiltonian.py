"""The exact Hamiltonian-cycle solvers (solvers/hamiltonian/) on generic graphs and on
Haythorpe's.

Answers are checked against brute force on tiny random graphs, on named graphs with known
answers (Petersen, Herschel, grid graphs, dodecahedron), and on the Sudoku graphs, where a
found cycle must decode to a valid grid and an unsolvable puzzle must give a proved
"no cycle". The SAT and CP-SAT backends must agree everywhere.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import Grid, Shape, check_solution
from reductions.hamiltonian.graphs import component_labels, is_hamiltonian_cycle
from reductions.errors import UserError
from reductions.hamiltonian.hcp import grid_from_cycle, haythorpe_graph
from reductions.hamiltonian.hcp_undirected import (directed_cycle_from_tour, haythorpe_split,
                                                   split_graph)
from solvers.hamiltonian import (CycleStatus, GraphInputError, forced_paths,
                                 solve_directed_hcp, solve_undirected_hcp)
from tests.conftest import instance_puzzles

try:
    import ortools  # noqa: F401
    HAS_ORTOOLS = True
except ImportError:                      # the cpsat extra is optional
    HAS_ORTOOLS = False
needs_ortools = pytest.mark.skipif(not HAS_ORTOOLS, reason="ortools not installed (extra "
                                                           "cpsat): the cpsat backend untested")
BACKENDS = ["sat", pytest.param("cpsat", marks=needs_ortools)]
"""Every backend; cpsat skips with the reason (visible in -rs) where ortools is missing."""


# ----------------------------------------------------------------------------- helpers

def brute_force_hamiltonian(n: int, pairs, directed: bool) -> bool:
    """Does any ordering of the vertices (vertex 0 first) close into a cycle of the graph?"""
    pairs = [tuple(p) for p in np.asarray(pairs).reshape(-1, 2).tolist()]
    if directed:
        present = set(pairs)
    else:
        present = {(u, v) for u, v in pairs if u != v} | {(v, u) for u, v in pairs if u != v}
    if n == 1:
        return (0, 0) in present
    if not directed and n < 3:
        return False
    for rest in itertools.permutations(range(1, n)):
        order = (0,) + rest
        if all((order[p], order[(p + 1) % n]) in present for p in range(n)):
            return True
    return False


def solve(n, pairs, directed, backend="sat", **kw):
    fn = solve_directed_hcp if directed else solve_undirected_hcp
    return fn(n, pairs, backend=backend, **kw)


def assert_cycle(n, pairs, result, directed):
    assert result.status == CycleStatus.HAMILTONIAN
    assert is_hamiltonian_cycle(n, np.asarray(pairs).reshape(-1, 2), result.cycle, directed)


def petersen_edges() -> np.ndarray:
    outer = [(i, (i + 1) % 5) for i in range(5)]
    spokes = [(i, i + 5) for i in range(5)]
    inner = [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    return np.array(outer + spokes + inner)


def grid_graph_edges(rows: int, cols: int) -> np.ndarray:
    vid = np.arange(rows * cols).reshape(rows, cols)
    right = np.stack([vid[:, :-1].ravel(), vid[:, 1:].ravel()], axis=1)
    down = np.stack([vid[:-1, :].ravel(), vid[1:, :].ravel()], axis=1)
    return np.concatenate([right, down])


def herschel_edges() -> np.ndarray:
    """The Herschel graph: 11 vertices, 18 edges, bipartite with parts of 5 and 6 vertices,
    so no Hamiltonian cycle (a cycle alternates sides)."""
    return np.array([(0, 2), (0, 3), (0, 4), (0, 5), (1, 2), (1, 3), (1, 6), (1, 7),
                     (2, 8), (3, 9), (4, 8), (4, 10), (5, 9), (5, 10), (6, 8), (6, 10),
                     (7, 9), (7, 10)])


def dodecahedron_edges() -> np.ndarray:
    """The dodecahedron (20 vertices, cubic, Hamiltonian — Hamilton's icosian game)."""
    outer = [(i, (i + 1) % 5) for i in range(5)]
    spokes = [(i, 5 + 2 * i) for i in range(5)]
    middle = [(5 + i, 5 + (i + 1) % 10) for i in range(10)]
    spokes2 = [(6 + 2 * i, 15 + i) for i in range(5)]
    inner = [(15 + i, 15 + (i + 1) % 5) for i in range(5)]
    return np.array(outer + spokes + middle + spokes2 + inner)


def both_directions(edges) -> np.ndarray:
    edges = np.asarray(edges)
    return np.concatenate([edges, edges[:, ::-1]])


# ----------------------------------------------------------------------------- brute force

@st.composite
def small_graphs(draw, directed: bool):
    """A random graph on 1..7 vertices (digraphs may have loops, which are never used)."""
    n = draw(st.integers(1, 7))
    candidates = [(u, v) for u in range(n) for v in range(n) if directed or u < v]
    chosen = draw(st.lists(st.sampled_from(candidates), unique=True)) if candidates else []
    return n, np.array(chosen, dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(directed=True))
def test_directed_matches_brute_force(backend, graph):
    n, arcs = graph
    result = solve(n, arcs, True, backend)
    if brute_force_hamiltonian(n, arcs, True):
        assert_cycle(n, arcs, result, True)
    else:
        assert result.status == CycleStatus.NO_CYCLE and result.cycle is None


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(directed=False))
def test_undirected_matches_brute_force(backend, graph):
    n, edges = graph
    result = solve(n, edges, False, backend)
    if brute_force_hamiltonian(n, edges, False):
        assert_cycle(n, edges, result, False)
    else:
        assert result.status == CycleStatus.NO_CYCLE and result.cycle is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(directed=True))
def test_split_graph_agrees_with_its_digraph(graph):
    """The undirected solver on the 3-split (with its forced-path clauses) finds a cycle
    exactly when the digraph has one, and the tour maps back to a directed cycle."""
    n, arcs = graph
    directed = solve(n, arcs, True)
    split = split_graph(n, arcs)
    undirected = solve(split.num_vertices, split.edges, False)
    if n >= 2 or directed.status == CycleStatus.NO_CYCLE:
        assert undirected.status == directed.status
    if undirected.found:
        cycle = directed_cycle_from_tour(split, undirected.cycle)
        assert is_hamiltonian_cycle(n, arcs, cycle, True)


@st.composite
def planted_graphs(draw):
    """A graph with a known Hamiltonian cycle, many forced paths and free vertices: a random
    cycle plus random chords, then some cycle edges subdivided (new degree-2 vertices).
    Returns (n, edges, cycle)."""
    base = draw(st.integers(5, 16))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cycle = [int(v) for v in rng.permutation(base)]
    chords = {tuple(sorted(map(int, rng.choice(base, 2, replace=False))))
              for _ in range(draw(st.integers(0, 2 * base)))}
    n = base
    new_cycle = []
    for v in cycle:
        new_cycle.append(v)
        if rng.random() < draw(st.sampled_from([0.2, 0.5])):   # subdivide this cycle edge
            new_cycle.append(n)
            n += 1
    edges = {tuple(sorted((new_cycle[i], new_cycle[(i + 1) % len(new_cycle)])))
             for i in range(len(new_cycle))}
    edges = np.array(sorted(edges | chords), dtype=np.int64)
    return n, edges, np.array(new_cycle, dtype=np.int64)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=planted_graphs())
def test_up_front_clauses_never_exclude_a_hamiltonian_cycle(graph):
    """Requiring every edge of the planted cycle leaves exactly that cycle: if any clause
    added before the first solve (forced paths closed through free vertices, ...) wrongly
    excluded it, the answer would be 'no cycle'."""
    n, edges, cycle = graph
    required = np.stack([cycle, np.roll(cycle, -1)], axis=1)
    result = solve_undirected_hcp(n, edges, required=required)
    assert result.status == CycleStatus.HAMILTONIAN
    assert solve_undirected_hcp(n, edges).status == CycleStatus.HAMILTONIAN


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(3, 12))
def test_triple_trick_like_splits_keep_their_cycles(seed, size):
    """Digraphs with "triples" (a vertex whose only neighbours are two others, arcs both
    ways, like x[i,j,k,1]) split with the middle dropped, as in Haythorpe's triple trick:
    the planted cycle's tour must survive the up-front clauses (rules 4 and 5 fire here)."""
    rng = np.random.default_rng(seed)
    # Build a cycle over `size` triples a→m→b, linked b→next a, plus random extra arcs
    # between triple ends (never touching the middles).
    a, m, b = np.arange(size) * 3, np.arange(size) * 3 + 1, np.arange(size) * 3 + 2
    order = rng.permutation(size)
    arcs = {(int(a[t]), int(m[t])) for t in range(size)} | \
        {(int(m[t]), int(a[t])) for t in range(size)} | \
        {(int(m[t]), int(b[t])) for t in range(size)} | \
        {(int(b[t]), int(m[t])) for t in range(size)}
    arcs |= {(int(b[order[i]]), int(a[order[(i + 1) % size]])) for i in range(size)}
    ends = np.concatenate([a, b])
    for _ in range(3 * size):
        u, v = rng.choice(ends, 2, replace=False)
        arcs.add((int(u), int(v)))
    arcs = np.array(sorted(arcs), dtype=np.int64)
    planted = np.concatenate([[a[t], m[t], b[t]] for t in order])
    split = split_graph(3 * size, arcs, drop_mid=m)
    tour = np.concatenate([[split.in_id[v], split.mid_id[v], split.out_id[v]]
                           for v in planted])
    tour = tour[tour >= 0]
    required = np.stack([tour, np.roll(tour, -1)], axis=1)
    result = solve_undirected_hcp(split.num_vertices, split.edges, required=required)
    assert result.status == CycleStatus.HAMILTONIAN
    cycle = directed_cycle_from_tour(split, result.cycle)
    assert is_hamiltonian_cycle(3 * size, arcs, cycle, True)


def test_short_closure_clauses_on_the_triple_trick_graph():
    """On the 4×4 blank graph with the triple trick, the up-front clauses remove the 5- and
    8-vertex subtours of every shortened triple: few rounds of cuts are needed."""
    from solvers.hamiltonian.sat_model import _short_closure_clauses
    graph = haythorpe_graph(Grid.empty(Shape(2, 2)), "none")
    split = haythorpe_split(graph, triple=True)
    edges = np.unique(np.sort(split.edges, axis=1), axis=0)
    clauses = _short_closure_clauses(split.num_vertices, edges)
    by_length = {k: sum(len(c) == k for c in clauses) for k in (2, 3, 4)}
    triples = 2 * 4**3
    assert by_length[3] >= 2 * triples          # x0 and x2 each closed through x1_in–x1_out
    assert by_length[4] >= triples              # x0, x1_in, x2, x1_out


# ----------------------------------------------------------------------------- named graphs

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, edges, n, hamiltonian", [
    ("Petersen", petersen_edges(), 10, False),
    ("Herschel", herschel_edges(), 11, False),
    ("3x5 grid", grid_graph_edges(3, 5), 15, False),
    ("5x5 grid", grid_graph_edges(5, 5), 25, False),
    ("4x6 grid", grid_graph_edges(4, 6), 24, True),
    ("dodecahedron", dodecahedron_edges(), 20, True),
])
def test_named_graphs(backend, name, edges, n, hamiltonian):
    for directed, pairs in ((False, edges), (True, both_directions(edges))):
        result = solve(n, pairs, directed, backend)
        if hamiltonian:
            assert_cycle(n, pairs, result, directed)
        else:
            assert result.status == CycleStatus.NO_CYCLE, (name, directed, result.stats)


def test_petersen_needs_subtour_cuts():
    """Cubic, 2-factors exist (two 5-cycles), so the proof goes through cuts."""
    result = solve_undirected_hcp(10, petersen_edges())
    assert result.status == CycleStatus.NO_CYCLE
    assert result.stats["iterations"] >= 2 and result.stats["cuts"] >= 1


def test_directed_cycle_with_chords_in_one_direction():
    n = 9
    arcs = [(i, (i + 1) % n) for i in range(n)] + [(0, 4), (4, 2), (7, 3)]
    result = solve_directed_hcp(n, arcs)
    assert result.cycle.tolist() == list(range(n))       # the only Hamiltonian cycle, from 0
    reversed_arcs = [(v, u) for u, v in arcs]
    assert solve_directed_hcp(n, reversed_arcs).found


def test_two_vertex_and_one_vertex_cases():
    assert solve_directed_hcp(2, [(0, 1), (1, 0)]).cycle.tolist() == [0, 1]
    assert solve_directed_hcp(2, [(0, 1)]).status == CycleStatus.NO_CYCLE
    assert solve_directed_hcp(1, [(0, 0)]).cycle.tolist() == [0]
    assert solve_directed_hcp(1, np.zeros((0, 2))).status == CycleStatus.NO_CYCLE
    assert solve_undirected_hcp(2, [(0, 1)]).status == CycleStatus.NO_CYCLE
    assert solve_undirected_hcp(3, [(0, 1), (1, 2), (2, 0)]).found


def test_loops_and_repeated_arcs_are_ignored():
    arcs = [(0, 1), (0, 1), (1, 2), (2, 2), (2, 0), (1, 1)]
    result = solve_directed_hcp(3, arcs)
    assert result.cycle.tolist() == [0, 1, 2]
    assert result.stats["input_pairs"] == 6


def test_degree_reasons():
    assert "no arc in" in solve_directed_hcp(3, [(0, 1), (1, 0), (2, 1)]).stats["reason"]
    star = [(0, 1), (0, 2), (0, 3), (1, 2)]
    assert "degree 1" in solve_undirected_hcp(4, star).stats["reason"]
    # Vertex 0 has three degree-2 neighbours: it cannot use all three forced edges.
    claw = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)]
    result = solve_undirected_hcp(5, claw)
    assert result.status == CycleStatus.NO_CYCLE and "neighbours of degree 2" in result.stats["reason"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_required_arcs_and_edges(backend):
    n = 6
    complete = [(u, v) for u in range(n) for v in range(n) if u != v]
    required = [(0, 3), (3, 1), (5, 2)]
    result = solve_directed_hcp(n, complete, backend=backend, required=required)
    steps = set(zip(result.cycle.tolist(), np.roll(result.cycle, -1).tolist()))
    assert set(required) <= steps
    edges = grid_graph_edges(4, 4)
    for edge in ([(0, 1)], [(5, 6)], [(1, 5), (5, 9)]):
        found = solve_undirected_hcp(16, edges, backend=backend, required=edge)
        tour_edges = {frozenset(p) for p in zip(found.cycle.tolist(),
                                                  np.roll(found.cycle, -1).tolist())}
        assert found.found and all(frozenset(e) in tour_edges for e in edge)
    # Both edges at 5 towards 1 and 9 plus both towards 4 and 6: four edges at one vertex.
    impossible = solve_undirected_hcp(16, edges, backend=backend,
                                      required=[(1, 5), (5, 9), (4, 5)])
    assert impossible.status == CycleStatus.NO_CYCLE
    missing = solve_directed_hcp(3, [(0, 1), (1, 2), (2, 0)], backend=backend,
                                 required=[(1, 0)])
    assert missing.status == CycleStatus.NO_CYCLE and "not in the graph" in missing.stats["reason"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_time_limit_gives_unknown_never_no_cycle(backend):
    for directed, pairs in ((False, petersen_edges()), (True, both_directions(
            petersen_edges()))):
        result = solve(10, pairs, directed, backend, time_limit=0.0)
        assert result.status == CycleStatus.UNKNOWN and result.cycle is None
        assert result.stats["reason"] == "time limit reached"


def test_bad_input_is_a_clear_error():
    with pytest.raises(GraphInputError, match="outside 0..2"):
        solve_directed_hcp(3, [(0, 1), (1, 3)])
    with pytest.raises(GraphInputError, match="shape"):
        solve_undirected_hcp(3, np.zeros((2, 3)))
    with pytest.raises(GraphInputError, match="at least one vertex"):
        solve_undirected_hcp(0, [])
    with pytest.raises(UserError, match="unknown Hamiltonian-cycle backend 'magic'; choose "
                                        "one of sat, cpsat"):
        solve_directed_hcp(3, [(0, 1)], backend="magic")


def test_sat_solver_choice():
    for name in ("glucose4", "minisat22"):
        result = solve_directed_hcp(20, both_directions(dodecahedron_edges()),
                                    solver_name=name)
        assert result.found and result.stats["solver"] == name


# ----------------------------------------------------------------------------- helpers

def test_forced_paths_of_a_split_graph():
    complete = np.array([(u, v) for u in range(4) for v in range(4) if u != v])
    split = split_graph(4, complete)
    path_of, side, size, on_path = forced_paths(split.num_vertices, split.edges)
    # Each directed vertex u gives the forced path u_in – u_mid – u_out (u_in and u_out
    # have degree 4 here, so the paths do not grow further).
    for u in range(4):
        ends = (split.in_id[u], split.out_id[u])
        assert path_of[ends[0]] == path_of[ends[1]] >= 0
        assert {side[ends[0]], side[ends[1]]} == {0, 1}
        assert size[path_of[ends[0]]] == 3
        assert path_of[split.mid_id[u]] == -1 and on_path[split.mid_id[u]]


# ----------------------------------------------------------------------------- Sudoku graphs

def decode_directed(graph, result) -> Grid:
    return grid_from_cycle(graph, result.cycle)


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_4x4_grid_both_graph_kinds(backend):
    empty = Grid.empty(Shape(2, 2))
    graph = haythorpe_graph(empty, "none")
    directed = solve_directed_hcp(graph.num_vertices, graph.arcs, backend=backend)
    assert check_solution(empty, decode_directed(graph, directed))
    for triple in (False, True):
        split = haythorpe_split(graph, triple)
        tour = solve_undirected_hcp(split.num_vertices, split.edges, backend="sat")
        grid = grid_from_cycle(graph, directed_cycle_from_tour(split, tour.cycle))
        assert check_solution(empty, grid)


@pytest.mark.parametrize("backend", [
    "sat", pytest.param("cpsat", marks=[pytest.mark.slow, needs_ortools])])
def test_empty_9x9_grid_directed(backend):
    """CP-SAT's time on the blank 9×9 graph varies from seconds to minutes (slow test)."""
    empty = Grid.empty(Shape(3, 3))
    graph = haythorpe_graph(empty, "none")
    result = solve_directed_hcp(graph.num_vertices, graph.arcs, backend=backend,
                                time_limit=300)
    assert result.status == CycleStatus.HAMILTONIAN, result.stats
    assert check_solution(empty, decode_directed(graph, result))


@pytest.mark.slow
def test_empty_9x9_grid_undirected():
    """Slow; the blank 9×9 undirected route also runs in test_cli_hcp_solve.test_empty_grids."""
    empty = Grid.empty(Shape(3, 3))
    graph = haythorpe_graph(empty, "none")
    split = haythorpe_split(graph)
    tour = solve_undirected_hcp(split.num_vertices, split.edges, time_limit=300)
    assert tour.status == CycleStatus.HAMILTONIAN, tour.stats
    assert check_solution(empty, grid_from_cycle(graph,
                                                 directed_cycle_from_tour(split, tour.cycle)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prune", ["paper", "peers"])
def test_unsolvable_puzzles_have_no_directed_cycle(prune, backend):
    """Proved by each exact backend."""
    for puzzle in instance_puzzles("unsolvable.txt"):
        graph = haythorpe_graph(puzzle, prune)
        result = solve_directed_hcp(graph.num_vertices, graph.arcs, backend=backend)
        assert result.status == CycleStatus.NO_CYCLE, (backend, result.stats)


@pytest.mark.parametrize("prune", ["paper", "peers"])
def test_unsolvable_puzzles_have_no_undirected_cycle(prune):
    for puzzle in instance_puzzles("unsolvable.txt"):
        split = haythorpe_split(haythorpe_graph(puzzle, prune))
        assert solve_undirected_hcp(split.num_vertices, split.edges).status == CycleStatus.NO_CYCLE


@needs_ortools
def test_backends_agree_on_puzzles():
    for puzzle in instance_puzzles("royle17-sample300.txt", 3) + \
            instance_puzzles("forum-hardest-sample100.txt", 2):
        graph = haythorpe_graph(puzzle, "peers")
        grids = [decode_directed(graph, solve_directed_hcp(graph.num_vertices, graph.arcs,
                                                           backend=b)) for b in ("sat", "cpsat")]
        assert check_solution(puzzle, grids[0])
        assert grids[0] == grids[1]           # the puzzles have one solution


def test_stats_are_reported():
    puzzle = instance_puzzles("haythorpe-17clue.txt")[0]
    graph = haythorpe_graph(puzzle, "paper")
    result = solve_directed_hcp(graph.num_vertices, graph.arcs)
    stats = result.stats
    assert stats["backend"] == "sat" and stats["iterations"] >= 1
    assert stats["cuts"] >= 0 and stats["seconds"] > 0
    assert stats["vertices"] == graph.num_vertices and stats["variables"] >= graph.num_arcs


def test_undirected_order_walks_any_hamiltonian_edge_set_from_vertex_0():
    """The pointer-jumping walk of a 2-regular connected edge set: starts at 0, visits every
    vertex once, along the given edges, whatever the edges' orientation and order."""
    from solvers.hamiltonian.covers import _undirected_order
    rng = np.random.default_rng(5)
    for n in (3, 4, 5, 17, 1000, 4097):
        cycle = rng.permutation(n)
        chosen = np.stack([cycle, np.roll(cycle, -1)], axis=1)
        chosen = chosen[rng.permutation(n)]
        flip = rng.random(n) < 0.5
        chosen[flip] = chosen[flip, ::-1]
        order = _undirected_order(n, chosen)
        assert order[0] == 0 and np.array_equal(np.sort(order), np.arange(n))
        edges = set(map(frozenset, chosen.tolist()))
        assert all(frozenset((int(a), int(b))) in edges
                   for a, b in zip(order, np.roll(order, -1)))


@settings(max_examples=100, deadline=None)
@given(n=st.integers(3, 40), data=st.data())
def test_undirected_order_walks_the_cycle_from_vertex_0(n, data):
    from solvers.hamiltonian.covers import _undirected_order
    cycle = data.draw(st.permutations(range(n)))
    edges = np.array([(cycle[i], cycle[(i + 1) % n]) for i in range(n)], dtype=np.int64)
    order = _undirected_order(n, edges[data.draw(st.permutations(range(n)))]).tolist()
    start = cycle.index(0)
    forward = cycle[start:] + cycle[:start]
    assert order in (forward, [0] + forward[1:][::-1])


def random_two_factor(rng: np.random.Generator, n: int) -> np.ndarray:
    """Edges of random disjoint cycles (each of three or more vertices) covering 0..n-1, in
    random order and orientation."""
    order, cuts = rng.permutation(n), [0]
    while n - cuts[-1] >= 6:                  # leave at least three for the last cycle
        cuts.append(cuts[-1] + int(rng.integers(3, min(7, n - cuts[-1] - 2))))
    cuts.append(n)
    edges = [(int(cycle[i]), int(cycle[(i + 1) % len(cycle)]))
             for a, b in zip(cuts, cuts[1:]) for cycle in [order[a:b]] for i in range(b - a)]
    edges = np.array(edges, dtype=np.int64)[rng.permutation(n)]
    flip = rng.random(n) < 0.5
    edges[flip] = edges[flip, ::-1]
    return edges


def test_two_neighbours_lists_each_vertex_s_edges_in_their_order():
    from reductions.hamiltonian.graphs import label_roots
    from solvers.hamiltonian.covers import _two_neighbours
    rng = np.random.default_rng(7)
    for n in (3, 7, 40, 200):
        chosen = random_two_factor(rng, n)
        ends = np.concatenate([chosen, chosen[:, ::-1]])
        expected = ends[np.argsort(ends[:, 0], kind="stable"), 1].reshape(n, 2)
        assert np.array_equal(_two_neighbours(n, chosen), expected)
        label = component_labels(n, chosen[:, 0], chosen[:, 1])
        assert np.array_equal(label_roots(label), np.unique(label))


def test_the_cycle_check_refuses_what_is_not_a_hamiltonian_cycle_of_the_graph():
    from solvers.hamiltonian.cut_loop import _check_cycle
    pairs = np.array([[0, 1], [0, 3], [1, 2], [1, 3], [2, 3]], dtype=np.int64)   # normalised
    none = np.zeros(0, dtype=np.int64)
    _check_cycle(4, pairs, np.array([0, 1, 2, 3]), False, none)
    _check_cycle(4, pairs, np.array([0, 1, 2, 3]), False, np.array([2]))        # uses 1–2
    for cycle, required in (([0, 1, 1, 3], none), ([0, 2, 1, 3], none), ([0, 1, 2], none),
                            ([0, 1, 2, 3], np.array([3]))):            # 1–3 required, unused
        with pytest.raises(RuntimeError, match="not a Hamiltonian cycle"):
            _check_cycle(4, pairs, np.array(cycle), False, required)
