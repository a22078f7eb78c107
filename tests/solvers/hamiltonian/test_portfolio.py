"""The portfolio's first try on a dense graph (solvers/hamiltonian/portfolio.py and its caller
in one_off.py): the sparse spanning subgraph, and answers that stay those of the whole graph
(against brute force, with the thresholds lowered so that every small graph is "dense")."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.hamiltonian.graphs import is_hamiltonian_cycle
from solvers.hamiltonian import CycleStatus, solve_undirected_hcp
from solvers.hamiltonian import portfolio
from solvers.hamiltonian.graph_input import normalized_graph
from solvers.hamiltonian.portfolio import sparse_spanning_subgraph
from tests.solvers.hamiltonian.test_hamiltonian import brute_force_hamiltonian


@st.composite
def simple_graphs(draw, max_vertices=8):
    n = draw(st.integers(3, max_vertices))
    candidates = list(itertools.combinations(range(n), 2))
    chosen = draw(st.lists(st.sampled_from(candidates), unique=True, min_size=1))
    return n, normalized_graph(n, np.array(chosen, dtype=np.int64), False)


@settings(max_examples=100, deadline=None)
@given(graph=simple_graphs(max_vertices=14), keep=st.integers(1, 5))
def test_every_vertex_keeps_its_edges_to_its_least_degree_neighbours(graph, keep):
    n, edges = graph
    sparse = sparse_spanning_subgraph(n, edges, keep)
    all_keys = {tuple(e) for e in edges.tolist()}
    kept = {tuple(e) for e in sparse.tolist()}
    assert kept <= all_keys and len(kept) == len(sparse)
    degree = np.bincount(edges.ravel(), minlength=n)
    wanted = set()
    for v in range(n):
        neighbours = sorted((int(degree[u]), (u - v) % n, u) for u in range(n)
                            if (min(u, v), max(u, v)) in all_keys)
        wanted |= {(min(u, v), max(u, v)) for _, _, u in neighbours[:keep]}
    assert kept == wanted


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=simple_graphs(), keep=st.integers(2, 3))
def test_dense_first_try_keeps_the_answers_of_the_whole_graph(graph, keep):
    """Every graph counts as dense and keeps 2 or 3 edges a vertex: the subgraph often has
    no Hamiltonian cycle where the graph has one, and the graph's answer must not change."""
    n, edges = graph
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(portfolio, "DENSE_DEGREE", 0)
        patch.setattr(portfolio, "SPARSE_KEEP", keep)
        result = solve_undirected_hcp(n, edges, portfolio=True, time_limit=60)
    if brute_force_hamiltonian(n, edges, False):
        assert result.status == CycleStatus.HAMILTONIAN
        assert is_hamiltonian_cycle(n, edges, result.cycle, False)
    else:
        assert result.status == CycleStatus.NO_CYCLE and result.cycle is None


def test_a_dense_graph_is_solved_on_its_sparse_subgraph():
    n = 60                                             # K_60: average degree 59 > 32
    edges = np.array(list(itertools.combinations(range(n), 2)), dtype=np.int64)
    result = solve_undirected_hcp(n, edges, portfolio=True, time_limit=60)
    assert result.status == CycleStatus.HAMILTONIAN
    assert is_hamiltonian_cycle(n, edges, result.cycle, False)
    assert 0 < result.stats["sparse_edges"] <= portfolio.SPARSE_KEEP * n < len(edges)


def test_a_sparse_graph_is_solved_whole():
    n = 40                                             # a cycle with chords: degree 4
    edges = np.array([(i, (i + 1) % n) for i in range(n)]
                     + [(i, (i + 7) % n) for i in range(n)], dtype=np.int64)
    result = solve_undirected_hcp(n, edges, portfolio=True, time_limit=60)
    assert result.status == CycleStatus.HAMILTONIAN and "sparse_edges" not in result.stats
