"""ssg(G) (Eppstein 2005, Lemma 4): exact size, the arcs of each rule (with the seed text's
"labeled 0" read as "labeled 1" in the second rule), and both maps: a simple nonrepetitive
path p → q with first label a and last label b ⇔ a regular path in the (a, b) graph, on
thousands of random graphs labelled 0/1."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import reductions.nonrepetitive.ssg as ssg_module
from reductions.nonrepetitive.labelled_graph import GraphError, LabelledGraph, random_labelled_graph
from reductions.nonrepetitive.nr_graph import simple_path_problems
from reductions.nonrepetitive.skew_symmetric import (SkewSymmetricGraph, regular_path,
                                                     regular_path_problems)
from reductions.nonrepetitive.ssg import graph_path, ssg_graph, ssg_path, ssg_size
from solvers.gadgets.nrpath import brute_force_paths


def arcs_of(ssg) -> list[tuple[int, int]]:
    return list(zip(ssg.graph.tails.tolist(), ssg.graph.heads.tolist()))


def test_arcs_by_hand():
    # p=0 -0- 1 -1- q=2; (v, i) = 2v + i, s = 6, σ(s) = 7
    g = LabelledGraph(3, [0, 1], [1, 2], [0, 1], directed=False)
    ssg = ssg_graph(g, 0, 2, first_label=0, last_label=1)
    assert ssg_size(g) == (ssg.graph.num_vertices, ssg.graph.num_arcs) == (8, 8)
    assert arcs_of(ssg) == [
        (1, 2), (3, 0),      # 0-edge {0, 1}: (0,1) → (1,0) and its mate (1,1) → (0,0)
        (2, 5), (4, 3),      # 1-edge {1, 2}: (1,0) → (2,1) and its mate (2,0) → (1,1)
        (6, 1), (0, 7),      # s → (p, 1 − a) and (p, a) → σ(s)
        (6, 4), (5, 7)]      # s → (q, 1 − b) and (q, b) → σ(s)
    path = regular_path(ssg.graph, ssg.source)
    assert [(int(ssg.graph.tails[a]), int(ssg.graph.heads[a])) for a in path] in (
        [(6, 1), (1, 2), (2, 5), (5, 7)], [(6, 4), (4, 3), (3, 0), (0, 7)])
    assert graph_path(ssg, path) == [0, 1]
    for first, last in ((0, 0), (1, 0), (1, 1)):        # the other three graphs: no path
        other = ssg_graph(g, 0, 2, first_label=first, last_label=last)
        assert regular_path(other.graph, other.source) is None


def test_the_second_rule_is_for_label_1():
    # p -0- a -0- q has no nonrepetitive path. Read literally ("labeled 0" twice), the seed's
    # proof would give each 0-edge both pairs of arcs, and a regular path would exist.
    g = LabelledGraph(3, [0, 1], [1, 2], [0, 0], directed=False)
    for first in (0, 1):
        for last in (0, 1):
            ssg = ssg_graph(g, 0, 2, first_label=first, last_label=last)
            assert regular_path(ssg.graph, ssg.source) is None
    # Both rules on both 0-edges, with s's arcs of the (0, 1) graph: s → (p,1) → (a,0) →
    # (q,1) → σ(s) would be "found", walking two 0-edges in a row.
    literal = SkewSymmetricGraph.from_arcs(8, [1, 0, 3, 2, 6, 6], [2, 3, 4, 5, 1, 4])
    found = regular_path(literal, 6)
    assert found is not None and regular_path_problems(literal, 6, found) == []


def random_binary_graph(seed: int) -> LabelledGraph:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    return random_labelled_graph(n, int(rng.integers(0, 2 * n + 3)), 2, directed=False,
                                 seed=seed)


def test_four_graphs_against_brute_force_and_both_maps():
    counts = {"found": 0, "none": 0, "turned round": 0, "mapped forward": 0}
    for seed in range(1500):
        g = random_binary_graph(seed)
        labels = g.arcs().labels
        rng = np.random.default_rng(seed)
        p, q = (int(v) for v in rng.choice(g.num_vertices, 2, replace=False))
        paths = list(brute_force_paths(g, p, q))
        for first in (0, 1):
            for last in (0, 1):
                ssg = ssg_graph(g, p, q, first_label=first, last_label=last)
                assert ssg_size(g) == (ssg.graph.num_vertices, ssg.graph.num_arcs)
                wanted = [path for path in paths
                          if labels[path[0]] == first and labels[path[-1]] == last]
                found = regular_path(ssg.graph, ssg.source)
                assert (found is None) == (not wanted)
                counts["none" if found is None else "found"] += 1
                if found is not None:
                    assert regular_path_problems(ssg.graph, ssg.source, found) == []
                    back = graph_path(ssg, found)
                    assert simple_path_problems(g, back, p, q) == []
                    assert (labels[back[0]], labels[back[-1]]) == (first, last)
                    counts["turned round"] += found[0] == 2 * g.num_edges + 2
                for path in wanted[:10]:
                    image = ssg_path(ssg, g, path)
                    assert regular_path_problems(ssg.graph, ssg.source, image) == []
                    assert graph_path(ssg, image) == path
                    counts["mapped forward"] += 1
    assert min(counts.values()) > 200, counts


def test_refusals():
    g = LabelledGraph(3, [0, 1], [1, 2], [0, 2], directed=False)
    with pytest.raises(GraphError, match="labels 0 and 1"):
        ssg_graph(g, 0, 2, first_label=0, last_label=0)
    g = LabelledGraph(3, [0, 1], [1, 2], [0, 1], directed=False)
    with pytest.raises(GraphError, match="different ends"):
        ssg_graph(g, 1, 1, first_label=0, last_label=0)
    with pytest.raises(GraphError, match="0 or 1"):
        ssg_graph(g, 0, 2, first_label=0, last_label=2)
    with pytest.raises(GraphError, match="undirected"):
        ssg_graph(LabelledGraph(3, [0], [1], [0], directed=True), 0, 1, first_label=0,
                  last_label=0)
    assert doctest.testmod(ssg_module, extraglobs={"LabelledGraph": LabelledGraph}).failed == 0
