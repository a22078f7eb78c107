"""The degree constraints of the Hamiltonian-cycle SAT model (solvers/hamiltonian/sat_model.py):
every vertex's "exactly need[v] of its literals", instantiated from shared CardEnc templates."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.formula import IDPool
from pysat.solvers import Solver

from solvers.hamiltonian.sat_model import _degree_clauses, _exactly_template


@st.composite
def incidences(draw, max_degree=11):
    """(incidence_vertex, incidence_lit, need): vertices of degrees 1..max_degree (many
    different degrees, as on the FHCP graphs where a template serves one vertex), each
    with its own literals, shuffled, and a need of 1 or 2 a vertex."""
    degrees = draw(st.lists(st.integers(1, max_degree), min_size=1, max_size=6))
    needs = [draw(st.integers(1, min(2, d))) for d in degrees]
    vertex = np.repeat(np.arange(len(degrees)), degrees)
    lits = np.arange(1, vertex.size + 1, dtype=np.int64)
    order = np.asarray(draw(st.permutations(range(vertex.size))), dtype=np.int64)
    return vertex[order], lits[order], np.asarray(needs, dtype=np.int64)


def _reference(vertex, lits, need, vpool):
    """The clauses one template clause at a time, vertex by vertex (the plain form of the
    instantiation, in its order: for each (degree, need) group and template clause, every
    vertex of the group)."""
    order = np.argsort(vertex, kind="stable")
    vertices, starts, degrees = np.unique(vertex[order], return_index=True, return_counts=True)
    sorted_lits = lits[order]
    clauses = []
    for degree, k in sorted(set(zip(degrees.tolist(), need[vertices].tolist()))):
        rows = [s for s, d, v in zip(starts, degrees, vertices) if d == degree
                and need[v] == k]
        template, aux = _exactly_template(degree, k)
        bases = []
        for _ in rows:
            bases.append(vpool.top + 1)
            vpool.top += aux
        for clause in template:
            for row, base in zip(rows, bases):
                clauses.append([(1 if x > 0 else -1)
                                * (int(sorted_lits[row + abs(x) - 1]) if abs(x) <= degree
                                   else base + abs(x) - degree - 1) for x in clause])
    return clauses


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=incidences())
def test_degree_clauses_equal_the_clause_by_clause_instantiation(case):
    vertex, lits, need = case
    top = int(lits.max())
    assert _degree_clauses(vertex, lits, need, IDPool(start_from=top + 1)) == \
        _reference(vertex, lits, need, IDPool(start_from=top + 1))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=incidences(max_degree=10))
def test_degree_clauses_mean_exactly_need_at_every_vertex(case):
    """Brute force over every assignment of the literals: satisfiable iff each vertex has
    exactly its need of them true (degrees up to 10: sequential counters included)."""
    vertex, lits, need = case
    if lits.size > 12:                               # 2^12 assignments at most
        lits, vertex = lits[:12], vertex[:12]
        need = np.minimum(need, np.bincount(vertex, minlength=need.size).clip(min=1))
    present = np.unique(vertex)
    clauses = _degree_clauses(vertex, lits, need, IDPool(start_from=int(lits.max()) + 1))
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        for values in itertools.product((False, True), repeat=lits.size):
            chosen = np.asarray(values)
            counts = np.bincount(vertex[chosen], minlength=need.size)
            expected = bool(np.all(counts[present] == need[present]))
            assumptions = [int(x) if on else -int(x) for x, on in zip(lits, values)]
            assert solver.solve(assumptions=assumptions) == expected


def test_exactly_one_counter_is_pysats_sequential_counter():
    """The numpy-built "exactly one" template is clause for clause what pysat's CardEnc
    gives (so the Sudoku routes' models are unchanged)."""
    from pysat.card import CardEnc, EncType

    from solvers.hamiltonian.sat_model import _exactly_one_counter
    for degree in list(range(9, 80)) + [127, 128, 500, 1201]:
        pool = IDPool(start_from=degree + 1)
        expected = CardEnc.equals(lits=list(range(1, degree + 1)), bound=1, vpool=pool,
                                  encoding=EncType.seqcounter).clauses
        assert _exactly_one_counter(degree) == expected
        assert pool.top - degree == degree - 1
        assert _exactly_template(degree, 1) == (expected, degree - 1)
