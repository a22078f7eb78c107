"""The general graph helpers of reductions/hamiltonian/graphs.py: pair keys, cycle and component labels,
list ranking, and the one check of a proposed Hamiltonian cycle (every kind of wrong cycle,
directed and undirected, with the messages users see)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.hamiltonian.graphs import (component_labels, count_non_edges, cycle_labels,
                                           cycle_steps, hamiltonian_cycle_problem,
                                           is_hamiltonian_cycle, label_roots, list_ranking,
                                           non_edge_steps, pair_keys)

# A 5-cycle 0→1→2→3→4→0 with two chords 0→2 and 3→1; undirected, the same pairs as edges.
ARCS = np.array([[0, 1], [0, 2], [1, 2], [2, 3], [3, 1], [3, 4], [4, 0]], dtype=np.int64)


@pytest.mark.parametrize("directed", [True, False])
def test_a_hamiltonian_cycle_has_no_problem_from_any_start(directed):
    for shift in range(5):
        cycle = np.roll(np.arange(5), shift)
        assert hamiltonian_cycle_problem(5, ARCS, cycle, directed) is None
        assert is_hamiltonian_cycle(5, ARCS, cycle, directed)
    backwards = np.arange(5)[::-1]
    assert (hamiltonian_cycle_problem(5, ARCS, backwards, directed) is None) == (not directed)


@pytest.mark.parametrize("directed, kind", [(True, "arc"), (False, "edge")])
@pytest.mark.parametrize("cycle, message", [
    ([0, 1, 2, 3], "the cycle has 4 vertices, the graph 5"),
    ([[0, 1, 2, 3, 4]], "the cycle has 5 vertices, the graph 5"),
    ([0.0, 1.0, 2.0, 3.0, 4.0], "the cycle is not a list of vertex numbers"),
    ([0, 1, 2, 3, 7], "position 5: 7 is not a vertex (0..4)"),
    ([0, -1, 2, 3, 4], "position 2: -1 is not a vertex (0..4)"),
    ([0, 1, 2, 1, 4], "vertex 1 appears twice (positions 2 and 4)"),
    ([0, 1, 2, 4, 3], "positions 3→4: 2 → 4 is not an {kind} of the graph"),
])
def test_each_kind_of_wrong_cycle_is_named(directed, kind, cycle, message):
    assert hamiltonian_cycle_problem(5, ARCS, np.array(cycle), directed) == \
        message.format(kind=kind)


def test_a_directed_step_against_its_arc_is_not_an_arc():
    # 0→4 is the arc 4→0 backwards: no arc of the digraph, an edge of the undirected graph.
    cycle = np.array([0, 4, 3, 2, 1])
    assert hamiltonian_cycle_problem(5, ARCS, cycle, True) == \
        "positions 1→2: 0 → 4 is not an arc of the graph"
    assert hamiltonian_cycle_problem(5, ARCS, cycle, False) is None


@pytest.mark.parametrize("directed, kind", [(True, "arc"), (False, "edge")])
def test_required_pairs_must_be_steps_of_the_cycle(directed, kind):
    cycle = np.arange(5)
    used = np.array([[1, 2], [4, 0]])
    assert hamiltonian_cycle_problem(5, ARCS, cycle, directed, required=used) is None
    unused = np.array([[1, 2], [0, 2]])                # the chord 0–2 is not walked
    assert hamiltonian_cycle_problem(5, ARCS, cycle, directed, required=unused) == \
        f"the cycle does not use the required {kind} 0 → 2"
    if not directed:                                   # either orientation of an edge
        assert hamiltonian_cycle_problem(5, ARCS, cycle, False, required=used[:, ::-1]) is None


def test_vertices_are_named_by_describe_and_pairs_may_come_unsorted():
    names = "abcde"
    shuffled = ARCS[::-1]
    assert hamiltonian_cycle_problem(5, shuffled, np.arange(5), True) is None
    assert hamiltonian_cycle_problem(5, shuffled, np.array([0, 1, 3, 2, 4]), True,
                                     names.__getitem__) == \
        "positions 2→3: b → d is not an arc of the graph"
    assert hamiltonian_cycle_problem(5, shuffled, np.array([0, 1, 2, 1, 4]), True,
                                     names.__getitem__) == \
        "vertex b appears twice (positions 2 and 4)"


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 9), data=st.data())
def test_the_check_agrees_with_its_definition(n, data):
    directed = data.draw(st.booleans())
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               max_size=3 * n))
    cycle = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    graph = {(u, v) if directed else frozenset((u, v)) for u, v in pairs}
    steps = [(cycle[p], cycle[(p + 1) % n]) for p in range(n)]
    expected = sorted(cycle) == list(range(n)) and all(
        (s if directed else frozenset(s)) in graph for s in steps)
    edges = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    assert is_hamiltonian_cycle(n, edges, np.array(cycle), directed) == expected


def test_cycle_steps_and_non_edges():
    assert cycle_steps(np.array([3, 1, 2])).tolist() == [[3, 1], [1, 2], [2, 3]]
    assert non_edge_steps(5, ARCS, [0, 1, 3, 2, 4], directed=True).tolist() == [1, 2, 3]
    assert non_edge_steps(5, ARCS, [0, 1, 3, 2, 4], directed=False).tolist() == [3]


def test_pair_keys_identify_edges_in_either_orientation():
    pairs = np.array([[1, 2], [2, 1], [0, 4]])
    assert pair_keys(5, pairs, True).tolist() == [7, 11, 4]
    assert pair_keys(5, pairs, False).tolist() == [7, 7, 4]


def test_list_ranking_reaches_the_end_of_every_list():
    # Lists 0→1→2 (2 terminal) and 3→4 (4 terminal); weights to the successor.
    succ = np.array([1, 2, 2, 4, 4])
    last, total, converged = list_ranking(succ, np.array([1, 5, 0, 2, 0]))
    assert converged and last.tolist() == [2, 2, 2, 4, 4] and total.tolist() == [6, 5, 0, 2, 0]
    _, _, converged = list_ranking(np.array([1, 2, 0]), np.ones(3, dtype=np.int64))
    assert not converged                               # a cycle reaches no terminal


def test_component_labels():
    labels = component_labels(7, np.array([0, 2, 3, 5]), np.array([1, 3, 4, 6]))
    assert labels.tolist() == [0, 0, 2, 2, 2, 5, 5]


def union_find_labels(n: int, pairs) -> list[int]:
    """Reference for :func:`component_labels`: union by smaller root, per element."""
    parent = list(range(n))

    def root(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a), root(b)
        parent[max(ra, rb)] = min(ra, rb)
    return [root(x) for x in range(n)]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_component_labels_match_union_find(n, data):
    # Repeated edges and loops included: the labels must not care.
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               max_size=3 * n))
    u = np.array([a for a, _ in pairs], dtype=np.int64)
    v = np.array([b for _, b in pairs], dtype=np.int64)
    assert component_labels(n, u, v).tolist() == union_find_labels(n, pairs)


def test_cycle_labels_and_components():
    successor = np.array([1, 2, 0, 4, 3, 5])
    assert cycle_labels(successor).tolist() == [0, 0, 0, 3, 3, 5]
    rng = np.random.default_rng(0)
    perm = rng.permutation(1000)
    labels = cycle_labels(perm)
    # Every vertex's label is the minimum of its cycle.
    for v in rng.choice(1000, 20, replace=False):
        cycle, w = [v], perm[v]
        while w != v:
            cycle.append(w)
            w = perm[w]
        assert labels[v] == min(cycle)
    u, v = np.array([0, 1, 3, 5]), np.array([1, 2, 4, 6])
    labels = component_labels(7, u, v)
    assert len({labels[0], labels[1], labels[2]}) == 1 and labels[3] == labels[4]
    assert len(set(labels.tolist())) == 3
    assert np.array_equal(label_roots(labels), np.unique(labels))


def test_count_non_edges():
    cycle = [(i, (i + 1) % 6) for i in range(6)]
    assert count_non_edges(6, cycle, [0, 1, 2, 3, 4, 5]) == 0
    assert count_non_edges(6, cycle, [5, 4, 3, 2, 1, 0]) == 0
    assert count_non_edges(6, cycle, [0, 2, 1, 3, 4, 5]) == 2
