"""The labelled multigraph type: numbering of names, arcs of undirected graphs, validation."""

from __future__ import annotations

import numpy as np
import pytest

from reductions.nonrepetitive.labelled_graph import (GraphError, LabelledGraph, edge_list,
                                                     random_labelled_graph)


def test_from_edges_numbers_names_in_first_seen_order():
    g = LabelledGraph.from_edges([("a", "b", "red"), ("b", "c", "blue"), ("c", "a", "red")],
                                 vertices=["z"])
    assert g.num_vertices == 4 and g.num_edges == 3 and g.num_labels == 2
    assert [g.vertex_name(v) for v in range(4)] == ["z", "a", "b", "c"]
    assert g.tails.tolist() == [1, 2, 3] and g.heads.tolist() == [2, 3, 1]
    assert g.labels.tolist() == [0, 1, 0]
    assert g.vertex_id("c") == 3 and g.label_id("blue") == 1
    assert g.edge_names(1) == ("b", "c", "blue")


def test_labels_may_be_any_hashable_tokens():
    g = LabelledGraph.from_edges([(0, 1, (1, 2)), (1, 2, frozenset({3})), (2, 0, (1, 2))])
    assert g.labels.tolist() == [0, 1, 0]
    assert g.label_name(1) == frozenset({3})


def test_fixed_label_numbering():
    g = LabelledGraph.from_edges([("u", "v", "1")], labels=["0", "1"])
    assert g.labels.tolist() == [1] and g.num_labels == 2


def test_directed_arcs_are_the_edges():
    g = LabelledGraph.from_edges([("a", "b", 0), ("b", "b", 1)])
    arcs = g.arcs()
    assert len(arcs) == g.num_arcs == 2
    assert arcs.tails.tolist() == [0, 1] and arcs.edge.tolist() == [0, 1]


def test_undirected_edges_give_two_arcs():
    g = LabelledGraph.from_edges([("a", "b", 0), ("b", "c", 1)], directed=False)
    arcs = g.arcs()
    assert g.num_arcs == 4
    assert arcs.tails.tolist() == [0, 1, 1, 2]
    assert arcs.heads.tolist() == [1, 2, 0, 1]
    assert arcs.labels.tolist() == [0, 1, 0, 1]
    assert arcs.edge.tolist() == [0, 1, 0, 1]
    assert g.arcs_between(1, 0) == [2]
    assert edge_list(g, [3, 2]) == [("c", "b", 1), ("b", "a", 0)]


def test_adjacency_lists_every_arc_once():
    g = random_labelled_graph(6, 30, 3, directed=False, seed=5)
    outgoing, incoming = g.adjacency()
    assert sorted(a for lst in outgoing for a in lst) == list(range(g.num_arcs))
    assert sorted(a for lst in incoming for a in lst) == list(range(g.num_arcs))
    arcs = g.arcs()
    for v in range(g.num_vertices):
        assert all(arcs.tails[a] == v for a in outgoing[v])
        assert all(arcs.heads[a] == v for a in incoming[v])


def test_unnamed_graph_looks_up_numbers():
    g = LabelledGraph(3, [0, 1], [1, 2], [0, 4])
    assert g.num_labels == 5 and g.vertex_name(2) == 2
    assert g.vertex_id("2") == 2 and g.vertex_id(1) == 1 and g.label_id("4") == 4
    with pytest.raises(GraphError, match="no vertex '3'"):
        g.vertex_id("3")
    with pytest.raises(GraphError, match="no label 'x'"):
        g.label_id("x")


def test_arrays_are_read_only():
    g = LabelledGraph(2, [0], [1], [0])
    with pytest.raises(ValueError):
        g.tails[0] = 1


@pytest.mark.parametrize("args, message", [
    ((2, [0, 1], [1], [0, 0]), "differ in length"),
    ((2, [0], [2], [0]), "outside the vertices"),
    ((2, [0], [-1], [0]), "outside the vertices"),
    ((2, [0], [1], [-1]), "non-negative"),
    ((-1, [], [], []), "negative vertex count"),
])
def test_malformed_graphs_are_refused(args, message):
    with pytest.raises(GraphError, match=message):
        LabelledGraph(*args)


def test_names_must_match_counts():
    with pytest.raises(GraphError, match="2 vertex names for 3"):
        LabelledGraph(3, [0], [1], [0], vertex_names=("a", "b"))
    with pytest.raises(GraphError, match="has no name"):
        LabelledGraph(2, [0], [1], [1], label_names=("x",))


def test_random_graph_is_reproducible_and_in_range():
    g1 = random_labelled_graph(50, 1000, 7, seed=3)
    g2 = random_labelled_graph(50, 1000, 7, seed=3)
    assert np.array_equal(g1.tails, g2.tails) and np.array_equal(g1.labels, g2.labels)
    assert g1.tails.max() < 50 and g1.labels.max() < 7
    loopless = random_labelled_graph(4, 500, 2, seed=1, self_loops=False)
    assert not np.any(loopless.tails == loopless.heads)


def test_same_as_compares_by_names():
    g = LabelledGraph.from_edges([("a", "b", "x"), ("b", "a", "y")])
    h = LabelledGraph.from_edges([("a", "b", "x"), ("b", "a", "y")], vertices=["b"])
    assert g.same_as(h)
    assert not g.same_as(LabelledGraph.from_edges([("a", "b", "x"), ("b", "a", "x")]))
    assert not g.same_as(LabelledGraph.from_edges([("a", "b", "x"), ("b", "a", "y")],
                                                  directed=False))
