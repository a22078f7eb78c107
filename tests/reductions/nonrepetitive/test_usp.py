"""usp(G) (Eppstein 2005, Lemma 3): exact size, the numbering, and both maps — every simple
nonrepetitive path of G maps to one of usp(G) and back, every such path of usp(G) between two
centres decodes to one of G, and a graph without such a path gives a usp(G) without one."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import reductions.nonrepetitive.usp as usp_module
from reductions.nonrepetitive.labelled_graph import GraphError, LabelledGraph, random_labelled_graph
from reductions.nonrepetitive.nr_graph import simple_path_problems
from reductions.nonrepetitive.simple_nonrepetitive import simple_path_size
from reductions.nonrepetitive.usp import graph_path, usp_graph, usp_path, usp_size
from solvers.gadgets.nrpath import brute_force_paths


def random_graph(seed: int, max_vertices: int = 6, max_labels: int = 4) -> LabelledGraph:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, max_vertices + 1))
    return random_labelled_graph(n, int(rng.integers(0, 2 * n + 2)),
                                 int(rng.integers(1, max_labels + 1)), directed=False,
                                 seed=seed)


def test_size_and_numbering_by_hand():
    # a-b x, b-c y, a-b x again (parallel), c-c x (a self-loop): pairs (a,x) (b,x) (b,y)
    # (c,y) (c,x): K = 5, so 3 + 10 vertices and 4 + 15 edges.
    g = LabelledGraph.from_edges([("a", "b", "x"), ("b", "c", "y"), ("a", "b", "x"),
                                  ("c", "c", "x")], directed=False)
    u = usp_graph(g)
    assert usp_size(g) == (u.graph.num_vertices, u.graph.num_edges) == (13, 19)
    assert u.num_pairs == 5 and u.graph.label_names == (0, 1)
    a, b, c = (g.vertex_id(v) for v in "abc")
    x, y = g.label_id("x"), g.label_id("y")
    low, high = u.low, u.high
    # edges of G: between the (v, i, 0) vertices, label 0, same orientation
    assert [u.graph.edge_names(e) for e in range(4)] == [
        (low(u.pair(a, x)), low(u.pair(b, x)), 0), (low(u.pair(b, y)), low(u.pair(c, y)), 0),
        (low(u.pair(a, x)), low(u.pair(b, x)), 0), (low(u.pair(c, x)), low(u.pair(c, x)), 0)]
    # the three gadget edges of pair (b, y)
    j = u.pair(b, y)
    assert [u.graph.edge_names(4 + 3 * j + i) for i in range(3)] == [
        (u.centre(b), low(j), 1), (u.centre(b), high(j), 0), (low(j), high(j), 1)]
    # each gadget is a block of consecutive vertices: a's (1 label), b's (2), c's (2)
    assert [u.centre(v) for v in (a, b, c)] == [0, 3, 8]
    assert sorted([low(u.pair(b, x)), high(u.pair(b, x)), low(j), high(j)]) == [4, 5, 6, 7]
    with pytest.raises(GraphError):
        u.pair(a, y)


def test_gadget_shape_on_random_graphs():
    for seed in range(200):
        g = random_graph(seed)
        u = usp_graph(g)
        assert (u.graph.num_vertices, u.graph.num_edges) == usp_size(g)
        sizes = simple_path_size(g)
        assert (sizes["usp_vertices"], sizes["usp_edges"]) == usp_size(g)
        assert set(u.graph.labels.tolist()) <= {0, 1}
        degree = np.bincount(np.concatenate([u.graph.tails, u.graph.heads]),
                             minlength=u.graph.num_vertices)
        labels_at = [set() for _ in range(g.num_vertices)]
        for t, h, x in zip(g.tails.tolist(), g.heads.tolist(), g.labels.tolist()):
            labels_at[t].add(x)
            labels_at[h].add(x)
        # a centre meets 2 gadget edges per label; (v, i, 1) meets exactly two edges
        assert degree[u.centres].tolist() == [2 * len(s) for s in labels_at]
        assert (degree[[u.high(j) for j in range(u.num_pairs)]] == 2).all()
        blocks = sorted([u.centre(v) for v in range(g.num_vertices)]
                        + [u.low(j) for j in range(u.num_pairs)]
                        + [u.high(j) for j in range(u.num_pairs)])
        assert blocks == list(range(u.graph.num_vertices))


def every_simple_path(g: LabelledGraph, limit: int = 200):
    for p in range(g.num_vertices):
        for q in range(g.num_vertices):
            if p != q:
                for count, path in enumerate(brute_force_paths(g, p, q)):
                    if count >= limit:
                        break
                    yield p, q, path


def test_forward_map_then_backward_map_is_the_identity():
    mapped = 0
    for seed in range(300):
        g = random_graph(seed)
        u = usp_graph(g)
        for p, q, path in every_simple_path(g, limit=20):
            image = usp_path(u, g, path)
            assert simple_path_problems(u.graph, image, u.centre(p), u.centre(q)) == []
            labels = u.graph.arcs().labels[image]
            assert labels[0] == labels[-1] == 1                 # starts and ends with 1
            assert graph_path(u, image) == path
            mapped += 1
    assert mapped > 1000


def test_paths_of_usp_decode_and_no_stays_no():
    answers = []
    for seed in range(400):
        g = random_graph(seed, max_vertices=5, max_labels=3)
        if g.num_edges > 7:
            continue
        u = usp_graph(g)
        for p in range(g.num_vertices):
            for q in range(g.num_vertices):
                if p == q:
                    continue
                in_g = next(brute_force_paths(g, p, q), None)
                in_usp = list(brute_force_paths(u.graph, u.centre(p), u.centre(q)))
                assert (in_g is None) == (not in_usp)
                for path in in_usp[:30]:
                    assert simple_path_problems(g, graph_path(u, path), p, q) == []
                answers.append(in_g is not None)
    assert 0.2 < np.mean(answers) < 0.8


def test_directed_graphs_are_refused():
    with pytest.raises(GraphError, match="undirected"):
        usp_graph(LabelledGraph(2, [0], [1], [0], directed=True))


def test_empty_path_and_the_docstring_example():
    g = random_graph(1)
    assert usp_path(usp_graph(g), g, []) == [] and graph_path(usp_graph(g), []) == []
    assert doctest.testmod(usp_module, extraglobs={"LabelledGraph": LabelledGraph}).failed == 0
