"""nr(G): the Lemma 1 gadget (exact size, reachability), Theorems 1 and 2 and shortest
nonrepetitive walks, each checked against the naive (vertex, last label) state graph on
thousands of random labelled graphs, directed and undirected."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.nonrepetitive.labelled_graph import LabelledGraph, random_labelled_graph
from reductions.nonrepetitive.nr_graph import (group_pairs, _label_gadgets, cyclic_edges,
                                               edges_from, label_gadget, label_gadget_size,
                                               naive_cyclic_edges, naive_edges_from,
                                               naive_path_length, nonrepetitive_path, nr_graph,
                                               nr_graph_size, simple_cycle_problems,
                                               simple_path_problems, strongly_connected_components,
                                               walk_problems)


def reachable(num_vertices, tails, heads, start):
    adjacency = [[] for _ in range(num_vertices)]
    for t, h in zip(tails.tolist(), heads.tolist()):
        adjacency[t].append(h)
    seen, todo = {start}, [start]
    while todo:
        for w in adjacency[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


# ----------------------------------------------------------------------------- Lemma 1

@pytest.mark.parametrize("k", range(1, 41))
def test_gadget_reaches_exactly_the_other_labels(k):
    n, tails, heads = label_gadget(k)
    for x in range(k):
        seen = reachable(n, tails, heads, 2 * x)
        assert {y for y in range(k) if 2 * y + 1 in seen} == set(range(k)) - {x}


def test_gadget_in_vertices_have_no_in_arcs_and_out_vertices_no_out_arcs():
    n, tails, heads = label_gadget(25)
    assert not np.any(heads[heads < 50] % 2 == 0)
    assert not np.any(tails[tails < 50] % 2 == 1)


def test_gadget_size_recurrence_by_hand():
    # V(k) = 2k + V(ceil(k/2)), A(k) = 3k - (k mod 2) + A(ceil(k/2)); V(1)=2, A(1)=0,
    # V(2)=4, A(2)=2. k = 9 (Sudoku digits): 18+10+6+4 = 38 vertices, 26+14+8+2 = 50 arcs.
    assert [label_gadget_size(k) for k in range(1, 6)] == [(2, 0), (4, 2), (10, 10),
                                                           (12, 14), (20, 24)]
    assert label_gadget_size(9) == (38, 50)
    assert label_gadget_size(1024) == (4 * 1024 - 4, 6 * 1024 - 10)


@pytest.mark.parametrize("k", list(range(1, 300)) + [511, 512, 513, 1000, 4097])
def test_built_gadget_has_the_exact_size(k):
    n, tails, heads = label_gadget(k)
    assert (n, len(tails)) == label_gadget_size(k)


def test_gadget_size_is_linear():
    for k in range(2, 1 << 14):
        vertices, arcs = label_gadget_size(k)
        log = math.ceil(math.log2(k))
        assert vertices <= 4 * k + 2 * log and arcs <= 6 * k + 2 * log


def test_many_gadgets_at_once_equal_separate_gadgets():
    sizes = [3, 1, 9, 2, 17, 4]
    n, tails, heads = _label_gadgets(np.array(sizes))
    assert n == sum(label_gadget_size(k)[0] for k in sizes)
    assert len(tails) == sum(label_gadget_size(k)[1] for k in sizes)
    offset = 0
    for k in sizes:
        for x in range(k):
            seen = reachable(n, tails, heads, 2 * (offset + x))
            reached_outs = {v for v in seen if v < 2 * sum(sizes) and v % 2 == 1}
            assert reached_outs == {2 * (offset + y) + 1 for y in range(k) if y != x}
        offset += k


# ----------------------------------------------------------------------------- nr(G)

def test_nr_graph_size_matches_the_formula():
    for seed in range(40):
        g = random_labelled_graph(8, 40, 1 + seed % 9, directed=seed % 2 == 0, seed=seed)
        nr = nr_graph(g)
        assert (nr.num_vertices, nr.num_arcs) == nr_graph_size(g)
        assert nr.num_graph_arcs == g.num_arcs


def test_nr_graph_arcs_of_g_leave_out_vertices_and_enter_in_vertices():
    g = random_labelled_graph(30, 200, 5, seed=2)
    nr = nr_graph(g)
    arcs = g.arcs()
    first = slice(0, g.num_arcs)
    assert np.all(nr.tails[first] % 2 == 1) and np.all(nr.heads[first] % 2 == 0)
    keys = nr.pair_keys
    assert np.array_equal(keys[nr.arc_tail_pair], arcs.tails * nr.num_labels + arcs.labels)
    assert np.array_equal(keys[nr.arc_head_pair], arcs.heads * nr.num_labels + arcs.labels)


def test_pair_grouping_by_table_and_by_sort_agree():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 5000, 3000)
    by_table = group_pairs(keys, 5000)          # 5000 <= 4 * 3000 + 1024: table
    by_sort = group_pairs(keys, 10 ** 9)        # a huge range: sort
    assert np.array_equal(by_table[0], by_sort[0]) and np.array_equal(by_table[1], by_sort[1])
    assert np.array_equal(by_table[0][by_table[1]], keys)


def test_every_edge_its_own_label_takes_the_sort_path():
    # 30 vertices x 300 labels is far more than 4 x 600 keys: grouped by sorting
    g = random_labelled_graph(30, 300, 300, directed=False, seed=4)
    g = LabelledGraph(30, g.tails, g.heads, np.arange(300), directed=False)
    nr = nr_graph(g)
    assert (nr.num_vertices, nr.num_arcs) == nr_graph_size(g)
    assert np.array_equal(cyclic_edges(g, nr), naive_cyclic_edges(g))
    assert np.array_equal(edges_from(g, int(g.tails[0]), 0, nr),
                          naive_edges_from(g, int(g.tails[0]), 0))


def test_nr_graph_of_an_empty_graph():
    g = LabelledGraph(3, [], [], [])
    nr = nr_graph(g)
    assert nr.num_vertices == 0 and nr.num_arcs == 0
    assert not cyclic_edges(g).any()
    assert nonrepetitive_path(g, 0, 1) is None and nonrepetitive_path(g, 2, 2) == []


# ----------------------------------------------------------------------------- small cases

def named(edges, directed=True):
    return LabelledGraph.from_edges(edges, directed=directed)


def test_cycles_by_hand():
    triangle = named([("a", "b", 1), ("b", "c", 2), ("c", "a", 3)])
    assert cyclic_edges(triangle).all()
    monochrome = named([("a", "b", 1), ("b", "a", 1)])
    assert not cyclic_edges(monochrome).any()
    # a 2-cycle with two labels, plus a dangling edge
    two = named([("a", "b", 1), ("b", "a", 2), ("b", "c", 1)])
    assert cyclic_edges(two).tolist() == [True, True, False]
    # odd cycle with two labels: some label must repeat
    odd = named([("a", "b", 0), ("b", "c", 1), ("c", "a", 0)])
    assert not cyclic_edges(odd).any()
    # a self-loop alone follows itself; next to a 2-cycle it can be inserted
    loop = named([("a", "a", 0)])
    assert not cyclic_edges(loop).any()
    loop2 = named([("a", "a", 0), ("a", "b", 1), ("b", "a", 2)])
    assert cyclic_edges(loop2).all()


def test_undirected_cycles_by_hand():
    # one edge: going back uses the same label at once
    assert not cyclic_edges(named([("a", "b", 0)], directed=False)).any()
    # two parallel edges with different labels: a - b - a is a nonrepetitive closed walk
    assert cyclic_edges(named([("a", "b", 0), ("a", "b", 1)], directed=False)).all()
    # a path with a nonrepetitive cycle at its end: the tail edge is on no cycle... unless
    # the walk can turn around: it cannot, the tail edge would be used twice in a row
    g = named([("x", "a", 5), ("a", "b", 0), ("b", "c", 1), ("c", "a", 2)], directed=False)
    assert cyclic_edges(g).tolist() == [False, True, True, True]


def test_edges_from_by_hand():
    g = named([("s", "a", 0), ("a", "b", 0), ("a", "c", 1), ("c", "d", 1), ("c", "e", 0),
               ("s", "f", 1)])
    assert edges_from(g, 0, 0).tolist() == [True, False, True, False, True, False]
    assert edges_from(g, 0, 1).tolist() == [False] * 5 + [True]
    assert not edges_from(g, 0, 7).any()          # a label that does not occur
    assert not edges_from(g, g.vertex_id("b"), 0).any()  # b has only an incoming 0


def test_shortest_walk_need_not_be_simple():
    # s -> t directly repeats a label at a, so the walk goes around the triangle a b c a
    g = named([("s", "a", 0), ("a", "t", 0), ("a", "b", 1), ("b", "c", 2), ("c", "a", 1)])
    s, t = g.vertex_id("s"), g.vertex_id("t")
    walk = nonrepetitive_path(g, s, t)
    assert len(walk) == 5 and not walk_problems(g, walk)
    assert simple_path_problems(g, walk, s, t)  # it visits a twice
    assert naive_path_length(g, s, t) == 5


def test_long_cycle_needs_no_recursion():
    # a directed cycle of 100,000 edges with alternating labels: every edge is cyclic
    n = 100_000
    v = np.arange(n)
    g = LabelledGraph(n, v, (v + 1) % n, v % 2)
    assert cyclic_edges(g).all()
    g_odd = LabelledGraph(n + 1, np.arange(n + 1), (np.arange(n + 1) + 1) % (n + 1),
                          np.arange(n + 1) % 2)
    assert not cyclic_edges(g_odd).any()  # the two ends of an odd cycle share label 0
    walk = nonrepetitive_path(g, 0, n - 1)
    assert len(walk) == n - 1
    assert edges_from(g, 5, 1).all()


def test_scc_of_a_small_digraph():
    # 0 <-> 1, 1 -> 2, 2 <-> 3 <-> 4, 5 alone
    tails = np.array([0, 1, 1, 2, 3, 3, 4])
    heads = np.array([1, 0, 2, 3, 2, 4, 3])
    comp = strongly_connected_components(6, tails, heads)
    assert comp[0] == comp[1] and comp[2] == comp[3] == comp[4]
    assert len({comp[0], comp[2], comp[5]}) == 3


# ----------------------------------------------------------------------------- checks

def test_walk_problems_name_the_step():
    g = named([("a", "b", 0), ("b", "c", 0), ("b", "c", 1), ("c", "a", 0)])
    assert walk_problems(g, [0, 2, 3]) == []
    assert "repeat label 0" in walk_problems(g, [0, 1])[0]
    assert "does not end where" in walk_problems(g, [0, 3])[0]
    assert walk_problems(g, [0, 2, 3], closed=True)[0].startswith("step 3")
    assert walk_problems(g, [9]) == ["arc 9 does not exist"]
    assert simple_path_problems(g, [0, 2], 0, 2) == []
    assert "starts at 'b'" in simple_path_problems(g, [2], 0, 2)[0]
    assert simple_cycle_problems(g, []) == ["the cycle is empty"]


# ----------------------------------------------------------------------------- vs naive

def check_against_naive(g: LabelledGraph) -> None:
    nr = nr_graph(g)
    assert (nr.num_vertices, nr.num_arcs) == nr_graph_size(g)
    assert np.array_equal(cyclic_edges(g, nr), naive_cyclic_edges(g))
    for v in range(g.num_vertices):
        for x in range(g.num_labels):
            assert np.array_equal(edges_from(g, v, x, nr), naive_edges_from(g, v, x))
        for w in range(g.num_vertices):
            walk = nonrepetitive_path(g, v, w, nr)
            length = naive_path_length(g, v, w)
            assert (walk is None) == (length is None)
            if walk is not None:
                assert len(walk) == length
                assert not walk_problems(g, walk)
                if walk:
                    arcs = g.arcs()
                    assert arcs.tails[walk[0]] == v and arcs.heads[walk[-1]] == w


@st.composite
def small_graphs(draw, directed):
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 4))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(0, k - 1)), max_size=12))
    return LabelledGraph(n, [e[0] for e in edges], [e[1] for e in edges],
                         [e[2] for e in edges], directed, label_names=tuple(range(k)))


@settings(max_examples=400, deadline=None)
@given(small_graphs(directed=True))
def test_directed_graphs_agree_with_the_state_graph(g):
    check_against_naive(g)


@settings(max_examples=400, deadline=None)
@given(small_graphs(directed=False))
def test_undirected_graphs_agree_with_the_state_graph(g):
    check_against_naive(g)


@pytest.mark.parametrize("directed", [True, False])
def test_thousands_of_random_graphs_agree_with_the_state_graph(directed):
    rng = np.random.default_rng(7 if directed else 8)
    for trial in range(1500):
        n = int(rng.integers(1, 8))
        g = random_labelled_graph(n, int(rng.integers(0, 3 * n + 2)), int(rng.integers(1, 5)),
                                  directed, seed=trial)
        check_against_naive(g)


def test_theorem_1_on_a_bigger_graph_against_the_state_graph():
    g = random_labelled_graph(120, 200, 3, seed=11)
    mask = cyclic_edges(g)
    assert np.array_equal(mask, naive_cyclic_edges(g))
    assert 0 < mask.sum() < g.num_edges  # a mixed answer: the test could fail either way
