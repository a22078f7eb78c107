"""Theorem 3 (reductions/nonrepetitive/simple_nonrepetitive.py): simple nonrepetitive paths and cycles of
undirected graphs through usp(G), ssg and one regular-path search, against brute force and
the SAT model on thousands of random small multigraphs (labels 1–4, parallel edges,
self-loops, p = q), the closed loop through both lemmas, and the cyclic-edge listing against
per-edge answers."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reductions.nonrepetitive.simple_nonrepetitive as theorem3
from reductions.nonrepetitive.labelled_graph import GraphError, LabelledGraph, random_labelled_graph
from reductions.nonrepetitive.nr_graph import simple_cycle_problems, simple_path_problems
from reductions.nonrepetitive.simple_nonrepetitive import (binary_simple_path, simple_cycle,
                                                           simple_cyclic_edges, simple_path,
                                                           simple_path_size)
from reductions.nonrepetitive.skew_symmetric import regular_path_problems
from reductions.nonrepetitive.ssg import graph_path as ssg_back, ssg_graph, ssg_path
from reductions.nonrepetitive.usp import graph_path as usp_back, usp_graph, usp_path
from solvers.gadgets.nrpath import (brute_force_cycle, brute_force_path, find_simple_cycle,
                            find_simple_path)


def random_graph(rng: np.random.Generator, *, max_vertices: int = 7,
                 directed: bool = False) -> LabelledGraph:
    """A random multigraph: labels 1–4, parallel edges and self-loops allowed."""
    n = int(rng.integers(1, max_vertices + 1))
    return random_labelled_graph(n, int(rng.integers(0, 3 * n + 2)), int(rng.integers(1, 5)),
                                 directed=directed, seed=int(rng.integers(2**31)))


def check_path(g: LabelledGraph, p: int, q: int, reference) -> bool:
    found = simple_path(g, p, q)
    expected = reference(g, p, q)
    assert (found is None) == (expected is None), (p, q)
    if found is not None:
        assert simple_path_problems(g, found, p, q) == []
    return found is not None


def test_thousands_of_random_multigraphs_against_brute_force():
    rng = np.random.default_rng(1)
    answers, loops = [], 0
    for _ in range(3000):
        g = random_graph(rng)
        loops += int((g.tails == g.heads).sum())
        p, q = (int(v) for v in rng.integers(0, g.num_vertices, 2))
        answers.append(check_path(g, p, q, brute_force_path))
    assert 0.2 < np.mean(answers) < 0.8 and loops > 500


def test_random_multigraphs_against_the_sat_model():
    rng = np.random.default_rng(2)
    answers = []
    for _ in range(1000):
        g = random_graph(rng, max_vertices=12)
        p, q = (int(v) for v in rng.integers(0, g.num_vertices, 2))
        answers.append(check_path(g, p, q, find_simple_path))
    assert 0.2 < np.mean(answers) < 0.8


def test_the_empty_path_when_p_is_q():
    g = LabelledGraph(2, [0, 0], [1, 0], [0, 1], directed=False)
    assert simple_path(g, 0, 0) == [] == brute_force_path(g, 0, 0) == find_simple_path(g, 0, 0)
    assert simple_path(g, 1, 1) == []            # even without a nonrepetitive cycle


def test_a_graph_labelled_0_1_gives_the_same_answers_through_the_four_graphs():
    rng = np.random.default_rng(3)
    for _ in range(800):
        n = int(rng.integers(2, 8))
        g = random_labelled_graph(n, int(rng.integers(0, 3 * n)), 2, directed=False,
                                  seed=int(rng.integers(2**31)))
        p, q = (int(v) for v in rng.integers(0, n, 2))
        direct = binary_simple_path(g, p, q)
        assert (direct is None) == (simple_path(g, p, q) is None)
        if direct is not None:
            assert simple_path_problems(g, direct, p, q) == []


def test_closed_loop_through_both_lemmas():
    rng = np.random.default_rng(4)
    looped = 0
    for _ in range(500):
        g = random_graph(rng)
        p, q = (int(v) for v in rng.integers(0, g.num_vertices, 2))
        path = brute_force_path(g, p, q)
        if p == q or path is None:
            continue
        usp = usp_graph(g)
        ssg = ssg_graph(usp.graph, usp.centre(p), usp.centre(q), first_label=1, last_label=1)
        image = ssg_path(ssg, usp.graph, usp_path(usp, g, path))
        assert regular_path_problems(ssg.graph, ssg.source, image) == []
        assert usp_back(usp, ssg_back(ssg, image)) == path
        looped += 1
    assert looped > 200


def test_sizes_of_the_graphs_searched():
    rng = np.random.default_rng(5)
    for _ in range(100):
        g = random_graph(rng)
        if g.num_vertices < 2:
            continue
        sizes = simple_path_size(g)
        usp = usp_graph(g)
        ssg = ssg_graph(usp.graph, 0, 1, first_label=1, last_label=1)
        assert (sizes["ssg_vertices"], sizes["ssg_arcs"]) == \
            (ssg.graph.num_vertices, ssg.graph.num_arcs)
        assert sizes["pairs"] == usp.num_pairs


# ----------------------------------------------------------------------------- cycles

def test_cycles_through_every_arc_against_brute_force_and_the_listing():
    rng = np.random.default_rng(6)
    answers = []
    for _ in range(300):
        g = random_graph(rng, max_vertices=6)
        m = g.num_edges
        cycles = [simple_cycle(g, arc) for arc in range(g.num_arcs)]
        for arc, cycle in enumerate(cycles):
            assert (cycle is None) == (brute_force_cycle(g, arc) is None)
            if cycle is not None:
                assert cycle[0] == arc and simple_cycle_problems(g, cycle) == []
        forward = [cycle is not None for cycle in cycles[:m]]
        assert forward == [cycle is not None for cycle in cycles[m:]]   # either direction
        listed = simple_cyclic_edges(g)
        assert listed.mask.tolist() == forward
        for e in np.flatnonzero(listed.mask).tolist():
            cycle = listed.cycles[listed.witness[e]]
            assert simple_cycle_problems(g, cycle) == [] and e in [a % m for a in cycle]
        answers += forward
    assert 0.2 < np.mean(answers) < 0.8


def test_cycles_against_the_sat_model():
    rng = np.random.default_rng(7)
    for _ in range(150):
        g = random_graph(rng, max_vertices=10)
        for arc in rng.integers(0, max(g.num_arcs, 1), 3).tolist() if g.num_arcs else []:
            assert (simple_cycle(g, arc) is None) == (find_simple_cycle(g, arc) is None)


def test_cycles_by_hand():
    # a triangle with three labels, a pendant edge, a 2-cycle of parallel edges with two
    # labels, a pair of parallel edges with one label, and a self-loop
    g = LabelledGraph.from_edges([("a", "b", 0), ("b", "c", 1), ("c", "a", 2), ("c", "d", 0),
                                  ("d", "e", 1), ("d", "e", 2), ("e", "f", 0), ("e", "f", 0),
                                  ("f", "f", 1)], directed=False)
    assert simple_cyclic_edges(g).mask.tolist() == [True, True, True, False, True, True,
                                                    False, False, False]
    # Every edge passes Theorem 1 (the triangle helps), but the triangle's cycle serves
    # edges 1 and 2 and the 2-cycle edge 5: 9 − 3 = 6 searches.
    assert simple_cyclic_edges(g).searches == 6
    assert simple_cycle(g, 8) is None             # a self-loop follows itself


def test_directed_cycles_through_the_sat_model():
    rng = np.random.default_rng(8)
    for _ in range(150):
        g = random_graph(rng, max_vertices=6, directed=True)
        listed = simple_cyclic_edges(g, find_cycle=find_simple_cycle)
        expected = [brute_force_cycle(g, arc) is not None for arc in range(g.num_arcs)]
        assert listed.mask.tolist() == expected


def test_directed_graphs_are_refused():
    g = LabelledGraph(2, [0], [1], [0], directed=True)
    for call in (lambda: simple_path(g, 0, 1), lambda: simple_cycle(g, 0),
                 lambda: simple_cyclic_edges(g)):
        with pytest.raises(GraphError, match="NP-complete"):
            call()


def test_the_docstring_examples():
    assert doctest.testmod(theorem3, extraglobs={"LabelledGraph": LabelledGraph}).failed == 0


# ----------------------------------------------------------------------------- properties

@st.composite
def multigraphs(draw):
    n = draw(st.integers(1, 6))
    labels = draw(st.integers(1, 4))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(0, labels - 1)), max_size=12))
    g = LabelledGraph(n, [e[0] for e in edges], [e[1] for e in edges],
                      [e[2] for e in edges], directed=False, label_names=tuple(range(labels)))
    return g, draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))


@settings(max_examples=300, deadline=None)
@given(multigraphs())
def test_property_paths_agree_with_brute_force(case):
    check_path(*case, brute_force_path)


@settings(max_examples=150, deadline=None)
@given(multigraphs())
def test_property_the_listing_agrees_with_brute_force(case):
    g = case[0]
    expected = [any(brute_force_cycle(g, a) is not None for a in (e, e + g.num_edges))
                for e in range(g.num_edges)]
    assert simple_cyclic_edges(g).mask.tolist() == expected


@pytest.mark.slow
def test_many_more_random_multigraphs():
    rng = np.random.default_rng(9)
    for _ in range(30_000):
        g = random_graph(rng, max_vertices=8)
        p, q = (int(v) for v in rng.integers(0, g.num_vertices, 2))
        check_path(g, p, q, brute_force_path)
    for _ in range(300):
        g = random_labelled_graph(200, 400, int(rng.integers(1, 5)), directed=False,
                                  seed=int(rng.integers(2**31)))
        p, q = (int(v) for v in rng.integers(0, 200, 2))
        check_path(g, p, q, find_simple_path)
