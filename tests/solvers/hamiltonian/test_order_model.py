"""The ordering encoding (solvers/hamiltonian/order_model.py) and the portfolio's ``order``
member: its models are exactly the Hamiltonian cycles (counted against brute force), and
the member alone answers as brute force does, directed and undirected, with its "no cycle"
a proof of the encoding's unsatisfiability."""

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
from solvers.hamiltonian.order_model import order_clauses, position_bits
from solvers.hamiltonian.portfolio import solve_with_portfolio
from solvers.hamiltonian.sat_model import _model_clauses
from solvers.runtime.budget import Deadline
from solvers.runtime.pysat_solvers import new_pysat_solver
from tests.solvers.hamiltonian.test_hamiltonian import (brute_force_hamiltonian,
                                                        petersen_edges)


@st.composite
def digraphs(draw, max_vertices: int = 6):
    """(n, normalised arcs, directed): a random digraph, or the directed double of a random
    undirected graph, every vertex with an arc out and in (the callers answer the others
    from degrees before any model is built)."""
    n = draw(st.integers(3, max_vertices))
    directed = draw(st.booleans())
    candidates = [(u, v) for u in range(n) for v in range(n) if u != v and (directed or u < v)]
    chosen = np.array(draw(st.lists(st.sampled_from(candidates), unique=True, min_size=1)),
                      dtype=np.int64)
    both = chosen if directed else np.concatenate([chosen, chosen[:, ::-1]])
    arcs = normalized_graph(n, both, True)
    degrees_ok = (np.bincount(arcs[:, 0], minlength=n).min() > 0
                  and np.bincount(arcs[:, 1], minlength=n).min() > 0)
    return n, arcs, directed if degrees_ok else None


def directed_cycles(n: int, arcs: np.ndarray) -> set[frozenset]:
    """Every directed Hamiltonian cycle of ``arcs``, as its set of arcs."""
    present = set(map(tuple, arcs.tolist()))
    found = set()
    for rest in itertools.permutations(range(1, n)):
        order = (0,) + rest
        steps = [(order[p], order[(p + 1) % n]) for p in range(n)]
        if all(step in present for step in steps):
            found.add(frozenset(steps))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=digraphs(), root_choice=st.integers(0, 10**6))
def test_models_are_exactly_the_hamiltonian_cycles(graph, root_choice):
    """All models, projected on the arcs, enumerated with blocking clauses: each is a
    Hamiltonian cycle, and every Hamiltonian cycle is one — from any root."""
    n, arcs, directed = graph
    if directed is None:
        return
    clauses, top = _model_clauses(n, arcs, True)
    order, new_top = order_clauses(n, arcs, top=top, root=root_choice % n)
    assert new_top == top + 2 * n * position_bits(n)
    assert max(abs(lit) for clause in order for lit in clause) <= new_top
    models = set()
    with new_pysat_solver("cadical195", clauses + order) as solver:
        while solver.solve():
            model = np.array(solver.get_model()[:len(arcs)])
            chosen = frozenset(map(tuple, arcs[model > 0].tolist()))
            assert chosen not in models
            models.add(chosen)
            solver.add_clause([-int(x) for x in model if x > 0])
    assert models == directed_cycles(n, arcs)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=digraphs(max_vertices=7), oriented=st.booleans())
def test_the_order_member_alone_agrees_with_brute_force(graph, oriented):
    n, arcs, directed = graph
    if directed is None:
        return
    result = solve_with_portfolio(n, arcs, undirected=not directed, deadline=Deadline(None),
                                  configurations=(("order", oriented and not directed),))
    if brute_force_hamiltonian(n, arcs, True):
        assert result.status == CycleStatus.HAMILTONIAN
        assert is_hamiltonian_cycle(n, arcs, result.cycle, True)
    else:
        assert result.status == CycleStatus.NO_CYCLE and result.cycle is None


@pytest.mark.parametrize("oriented", [False, True])
def test_petersen_has_no_cycle_by_the_ordering_encoding_alone(oriented):
    edges = petersen_edges()
    arcs = normalized_graph(10, np.concatenate([edges, edges[:, ::-1]]), True)
    result = solve_with_portfolio(10, arcs, undirected=True, deadline=Deadline(60),
                                  configurations=(("order", oriented),))
    assert result.status == CycleStatus.NO_CYCLE
    assert "ordering encoding" in result.stats["reason"] and result.cuts == []


def torus_edges(rows: int, cols: int) -> np.ndarray:
    """The rows × cols torus grid: 4-regular, full of short cycles (many cycle covers)."""
    cell = np.arange(rows * cols).reshape(rows, cols)
    right = np.stack([cell.ravel(), np.roll(cell, -1, axis=1).ravel()], axis=1)
    down = np.stack([cell.ravel(), np.roll(cell, -1, axis=0).ravel()], axis=1)
    return np.concatenate([right, down])


def test_the_order_member_needs_one_solve_where_covers_abound():
    """A graph of many cycle covers, where a cut loop goes round after round: every model
    of the ordering encoding is already a Hamiltonian cycle, so one solve answers."""
    n, edges = 64, torus_edges(8, 8)
    arcs = normalized_graph(n, np.concatenate([edges, edges[:, ::-1]]), True)
    result = solve_with_portfolio(n, arcs, undirected=True, deadline=Deadline(60),
                                  configurations=(("order", True),))
    assert result.status == CycleStatus.HAMILTONIAN and result.stats["iterations"] == 1
    assert is_hamiltonian_cycle(n, edges, result.cycle, False)


def test_a_model_too_large_leaves_the_order_member_out(monkeypatch):
    edges = torus_edges(4, 5)
    arcs = normalized_graph(20, np.concatenate([edges, edges[:, ::-1]]), True)
    monkeypatch.setattr(portfolio, "ORDER_MAX_SIZE", len(arcs) * position_bits(20) - 1)
    alone = solve_with_portfolio(20, arcs, undirected=True, deadline=Deadline(60),
                                 configurations=(("order", True),))
    assert alone.status == CycleStatus.UNKNOWN and "no portfolio member" in \
        alone.stats["reason"]
    with_cuts = solve_with_portfolio(20, arcs, undirected=True, deadline=Deadline(60),
                                     configurations=(("order", True), ("glucose4", False)))
    assert with_cuts.status == CycleStatus.HAMILTONIAN
    assert with_cuts.stats["member"] == "glucose4+False"


def test_the_default_portfolio_keeps_an_order_member():
    assert any(name == "order" for name, _ in portfolio.CONFIGURATIONS)
    edges = torus_edges(6, 7)
    result = solve_undirected_hcp(42, edges, portfolio=True, time_limit=60)
    assert result.status == CycleStatus.HAMILTONIAN
    assert is_hamiltonian_cycle(42, edges, result.cycle, False)


def test_the_order_member_waits_for_its_round(monkeypatch):
    """Where a cut member answers in the first round, no ordering model is even built; the
    order member alone answers in its first turn, in round ORDER_FIRST_ROUND."""
    edges = torus_edges(5, 6)
    arcs = normalized_graph(30, np.concatenate([edges, edges[:, ::-1]]), True)
    members = (("order", True), ("glucose4", False))     # order first, yet it waits

    def refuse(*args, **kwargs):
        raise AssertionError("the ordering model was built in the first round")
    with monkeypatch.context() as patch:
        patch.setattr(portfolio, "order_clauses", refuse)
        early = solve_with_portfolio(30, arcs, undirected=True, deadline=Deadline(60),
                                     configurations=members)
    assert early.status == CycleStatus.HAMILTONIAN and early.stats["member"] == \
        "glucose4+False"
    late = solve_with_portfolio(30, arcs, undirected=True, deadline=Deadline(60),
                                configurations=(("order", True),))
    assert late.status == CycleStatus.HAMILTONIAN and late.stats["turns"] == 0
