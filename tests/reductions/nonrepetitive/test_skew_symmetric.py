"""Regular paths in skew-symmetric graphs (reductions/nonrepetitive/skew_symmetric.py): the graph type, the
checker, a hand-made instance that needs a blossom, and the blossom search against an
exhaustive search and against a maximum-matching formulation (networkx) on thousands of
random skew-symmetric graphs."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reductions.nonrepetitive.skew_symmetric as skew_module
from reductions.nonrepetitive.labelled_graph import GraphError
from reductions.nonrepetitive.skew_symmetric import (SkewSymmetricGraph, regular_path,
                                                     regular_path_problems)


# ----------------------------------------------------------------------------- references

def exhaustive_regular_path(g: SkewSymmetricGraph, s: int) -> list[int] | None:
    """Depth-first enumeration of the paths from s that never use a vertex pair twice
    (exponential: tiny graphs only); the first that reaches σ(s), as arcs."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(g.num_vertices)]
    for a, (t, h) in enumerate(zip(g.tails.tolist(), g.heads.tolist())):
        out[t].append((a, h))
    used, path = {s >> 1}, []

    def extend(x: int) -> list[int] | None:
        for a, h in out[x]:
            if h == s ^ 1:
                return path + [a]
            if h >> 1 in used:
                continue
            used.add(h >> 1)
            path.append(a)
            found = extend(h)
            if found:
                return found
            used.discard(h >> 1)
            path.pop()
        return None

    return extend(s)


def matching_says_reachable(g: SkewSymmetricGraph, s: int) -> bool:
    """The same question through a maximum matching (networkx): every pair {x, σx} but s's is
    a matched edge, every arc u → w the edge {u, σw}, and s's pair is split into two exposed
    vertices r1, r2 that both take the edges of s. A regular s → σ(s) path is an augmenting
    path r1 … r2 and back, so it exists iff the maximum matching is one larger."""
    nx = pytest.importorskip("networkx")
    h = nx.Graph()
    pairs = [(2 * k, 2 * k + 1) for k in range(g.num_vertices // 2) if k != s >> 1]
    h.add_edges_from(pairs)
    sink = s ^ 1
    for u, w in zip(g.tails.tolist(), g.heads.tolist()):
        if w == s or u == sink:
            continue                      # never on a regular s → σ(s) path
        ends = ["r" if u == s else u, "r" if w == sink else w ^ 1]
        if ends[0] == ends[1] == "r":
            h.add_edge("r1", "r2")        # the arc s → σ(s) itself
            continue
        if ends[0] == ends[1]:
            continue                      # u → σ(u): uses a pair twice
        for which in ("r1", "r2"):
            h.add_edge(*[which if e == "r" else e for e in ends])
    return len(nx.max_weight_matching(h, maxcardinality=True)) > len(pairs)


def random_graph(rng: np.random.Generator, pairs: int, arcs: int) -> SkewSymmetricGraph:
    n = 2 * pairs
    return SkewSymmetricGraph.from_arcs(n, rng.integers(0, n, arcs), rng.integers(0, n, arcs))


def check(g: SkewSymmetricGraph, s: int) -> bool:
    found = regular_path(g, s)
    assert (found is None) == (exhaustive_regular_path(g, s) is None)
    if found is not None:
        assert regular_path_problems(g, s, found) == []
    return found is not None


# ----------------------------------------------------------------------------- the type

def test_from_arcs_adds_the_mates_and_the_checks_refuse_what_is_not_skew():
    g = SkewSymmetricGraph.from_arcs(6, [0, 2], [3, 4])
    assert g.tails.tolist() == [0, 2, 2, 5] and g.heads.tolist() == [3, 1, 4, 3]
    assert g.num_arcs == 4
    with pytest.raises(GraphError, match="even number"):
        SkewSymmetricGraph(5, [], [])
    with pytest.raises(GraphError, match="mate"):
        SkewSymmetricGraph(4, [0, 2], [2, 0])          # the mate of 0 → 2 is 3 → 1
    with pytest.raises(GraphError, match="outside"):
        SkewSymmetricGraph.from_arcs(4, [0], [4])
    with pytest.raises(GraphError, match="pairs"):
        SkewSymmetricGraph(4, [0], [2])


def test_adjacency_keeps_parallel_arcs_apart():
    g = SkewSymmetricGraph.from_arcs(4, [0, 0, 2], [2, 2, 1])
    indptr, targets, arc_ids = g.adjacency
    row = sorted(zip(targets[indptr[0]:indptr[1]], arc_ids[indptr[0]:indptr[1]].tolist()))
    assert row == [(2, 0), (2, 2), (3, 5)]           # 0 → 3 is the mate of 2 → 1
    assert [g.arc_between(int(g.tails[a]), int(g.heads[a])) for a in (1, 4)] == [1, 4]


def test_the_checker_names_each_problem():
    g = SkewSymmetricGraph.from_arcs(8, [0, 2, 4, 2], [2, 4, 1, 3])   # s = 0, σ(s) = 1
    good = [0, 2, 4]                                        # 0 → 2 → 4 → 1
    assert regular_path_problems(g, 0, good) == []
    assert regular_path_problems(g, 0, []) == ["the path is empty"]
    assert regular_path_problems(g, 0, [99]) == ["an arc does not exist"]
    assert "starts at" in regular_path_problems(g, 0, [2, 4])[0]
    assert "ends at" in regular_path_problems(g, 0, [0, 2])[0]
    assert "step 1" in regular_path_problems(g, 0, [0, 4])[0]
    # 0 → 2 → 3 → 1 (the arc 2 → 3 is its own mate) uses the pair {2, 3} twice
    assert regular_path_problems(g, 0, [0, 6, 1]) == [
        "not regular: a vertex pair {x, σ(x)} is used twice"]
    # 0 → 2 → 1 → 4 → 1 comes back to σ(s) on the way
    h = SkewSymmetricGraph.from_arcs(6, [0, 2, 1, 4], [2, 1, 4, 1])
    assert regular_path_problems(h, 0, [0, 2, 4, 6])[0].startswith("the path passes")


# ----------------------------------------------------------------------------- by hand

# Matched pairs a = (2, 3), b = (4, 5), c = (6, 7), d = (8, 9); s = 0. The only regular paths
# are 0 → 3 → 7 → 4 → 9 → 1 and its mate 0 → 8 → 5 → 6 → 2 → 1. Searching from 3 first, a
# search that reaches a vertex and forbids its mate for good reaches 5 and 7 and is stuck:
# the odd cycle 3, 5/4, 7/6 has to be shrunk (a blossom with base 3) before 4 can go on to 9.
BLOSSOM = SkewSymmetricGraph.from_arcs(10, [0, 3, 3, 5, 4, 0], [3, 5, 7, 6, 9, 8])


def greedy_reaches(g: SkewSymmetricGraph, s: int) -> bool:
    """The search without blossoms: a vertex reached forbids its mate for good."""
    out: list[list[int]] = [[] for _ in range(g.num_vertices)]
    for t, h in zip(g.tails.tolist(), g.heads.tolist()):
        out[t].append(h)
    reached, todo = {s}, [s]
    while todo:
        for w in out[todo.pop()]:
            if w == s ^ 1:
                return True
            if w not in reached and w ^ 1 not in reached:
                reached.add(w)
                todo.append(w)
    return False


def test_a_path_that_needs_a_blossom_is_found_whatever_the_arc_order():
    rng = np.random.default_rng(1)
    tails, heads = BLOSSOM.tails[0::2], BLOSSOM.heads[0::2]
    greedy_failed = 0
    for _ in range(60):
        order = rng.permutation(len(tails))
        g = SkewSymmetricGraph.from_arcs(10, tails[order], heads[order])
        path = regular_path(g, 0)
        assert path is not None and regular_path_problems(g, 0, path) == []
        vertices = [0] + [int(g.heads[a]) for a in path]
        assert vertices in ([0, 3, 7, 4, 9, 1], [0, 8, 5, 6, 2, 1])
        greedy_failed += not greedy_reaches(g, 0)
    assert greedy_failed > 0          # the instance really needs the blossom


def test_direct_arc_and_no_path():
    assert regular_path(SkewSymmetricGraph.from_arcs(2, [0], [1]), 0) == [0]
    # s → 2 alone: its mate 3 → σ(s) would reuse the pair {2, 3}
    assert regular_path(SkewSymmetricGraph.from_arcs(4, [0], [2]), 0) is None
    assert regular_path(SkewSymmetricGraph(4, [], []), 0) is None
    with pytest.raises(GraphError):
        regular_path(SkewSymmetricGraph(4, [], []), 4)


def test_arcs_into_the_source_are_never_used():
    # 0 → 2 → 0 → … would revisit s: here the only way to σ(s) = 1 is through s again
    g = SkewSymmetricGraph.from_arcs(6, [0, 2, 4], [2, 0, 1])
    assert regular_path(g, 0) is None and exhaustive_regular_path(g, 0) is None


def test_a_long_path_needs_no_recursion():
    pairs = 60_000
    chain = np.arange(1, pairs, dtype=np.int64)
    # s = 0 → 2 → 4 → … → 2(pairs−1) → σ(s), nothing else
    g = SkewSymmetricGraph.from_arcs(2 * pairs, np.r_[2 * (chain - 1), 2 * (pairs - 1)],
                                     np.r_[2 * chain, 1])
    path = regular_path(g, 0)
    assert len(path) == pairs and regular_path_problems(g, 0, path) == []


def nested_blossoms(k: int) -> tuple[SkewSymmetricGraph, list[int]]:
    """BLOSSOM's pattern k times over: block i has pairs a = (2+6i, 3+6i), c = (4+6i, 5+6i),
    b = (6+6i, 7+6i) and the arcs a' → c', a' → b', b' → c (an odd cycle with base a'),
    b → next a'; then b_k → d' and s → d with d = (2+6k, 3+6k). Searched from a_1' first, the
    path runs through every blossom the long way round, so recovering it recurses k deep.
    Returns the graph and that path's vertices."""
    tails, heads, path = [], [], [0]
    for i in range(k):
        a, c, b = 2 + 6 * i, 4 + 6 * i, 6 + 6 * i
        tails += [a + 1, a + 1, b + 1, b]
        heads += [c + 1, b + 1, c, b + 3 if i + 1 < k else 2 + 6 * k + 1]
        path += [a + 1, c + 1, b]
    d = 2 + 6 * k
    tails, heads = [0] + tails + [0], [d] + heads + [3]
    return SkewSymmetricGraph.from_arcs(d + 2, tails, heads), path + [d + 1, 1]


def test_a_long_path_through_nested_blossoms():
    g, expected = nested_blossoms(3)
    assert exhaustive_regular_path(g, 0) is not None
    for k in (1, 3, 20_000):
        g, expected = nested_blossoms(k)
        path = regular_path(g, 0)
        assert regular_path_problems(g, 0, path) == []
        assert [0] + [int(g.heads[a]) for a in path] == expected


def test_the_docstring_examples():
    assert doctest.testmod(skew_module).failed == 0


# ----------------------------------------------------------------------------- random

def test_thousands_of_random_graphs_against_the_exhaustive_search():
    rng = np.random.default_rng(7)
    answers = []
    for _ in range(4000):
        pairs = int(rng.integers(1, 8))
        g = random_graph(rng, pairs, int(rng.integers(0, 3 * pairs + 3)))
        answers.append(check(g, int(rng.integers(0, 2 * pairs))))
    assert 0.15 < np.mean(answers) < 0.85            # both answers well represented


def test_random_graphs_against_the_matching_formulation():
    rng = np.random.default_rng(11)
    answers = []
    for _ in range(400):
        pairs = int(rng.integers(2, 12))
        g = random_graph(rng, pairs, int(rng.integers(pairs, 3 * pairs)))
        s = int(rng.integers(0, 2 * pairs))
        found = regular_path(g, s) is not None
        assert found == matching_says_reachable(g, s)
        answers.append(found)
    assert 0.15 < np.mean(answers) < 0.85


@st.composite
def skew_graphs(draw):
    pairs = draw(st.integers(1, 6))
    arcs = draw(st.lists(st.tuples(st.integers(0, 2 * pairs - 1),
                                   st.integers(0, 2 * pairs - 1)), max_size=14))
    g = SkewSymmetricGraph.from_arcs(2 * pairs, [a for a, _ in arcs], [b for _, b in arcs])
    return g, draw(st.integers(0, 2 * pairs - 1))


@settings(max_examples=400, deadline=None)
@given(skew_graphs())
def test_property_the_search_agrees_with_the_exhaustive_search(case):
    check(*case)


@pytest.mark.slow
def test_many_more_random_graphs():
    rng = np.random.default_rng(13)
    for _ in range(40_000):
        pairs = int(rng.integers(3, 10))
        check(random_graph(rng, pairs, int(rng.integers(pairs, 3 * pairs))),
              int(rng.integers(0, 2 * pairs)))
    for _ in range(2_000):
        pairs = int(rng.integers(10, 40))
        g = random_graph(rng, pairs, int(rng.integers(pairs, 3 * pairs)))
        s = int(rng.integers(0, 2 * pairs))
        assert (regular_path(g, s) is not None) == matching_says_reachable(g, s)
