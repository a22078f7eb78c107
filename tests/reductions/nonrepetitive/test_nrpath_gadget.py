"""The 3SAT → directed nonrepetitive simple path gadget (Eppstein 2005, Theorem 4): exact
size, structure, forward map for every assignment, extraction, the cycle version, and the
contrast with nr(G), which finds a (non-simple) nonrepetitive walk even for unsatisfiable
formulas. The closed loop through solvers is in test_gadgets_nrpath.py."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.formulas import (Formula, example_satisfiable, example_unsatisfiable,
                                 from_dimacs_clauses, random_3sat)
from reductions.nonrepetitive.nr_graph import (cyclic_edges, nonrepetitive_path,
                                               simple_cycle_problems, simple_path_problems,
                                               walk_problems)
from reductions.nonrepetitive.nrpath_gadget import (NrPathError, assignment_from_cycle,
                                                    assignment_from_path, chosen_terms,
                                                    cycle_from_assignment, expected_size,
                                                    nrpath_gadget, path_from_assignment,
                                                    path_from_cycle)
from solvers.formats.dimacs import read_cnf

from tests.conftest import INSTANCES

FORMULA_FILES = sorted((INSTANCES / "formulas").glob("nrpath-*.cnf"))


def read_formula(path: Path) -> Formula:
    cnf = read_cnf(path)
    return from_dimacs_clauses(cnf.num_vars, cnf.clauses, max_width=3, name=path.name)


def all_assignments(formula: Formula):
    return itertools.product((False, True), repeat=formula.num_vars)


def satisfying(formula: Formula) -> list[tuple[bool, ...]]:
    return [a for a in all_assignments(formula) if formula.is_satisfied_by(a)]


formulas_1_to_3 = st.integers(1, 5).flatmap(lambda n: st.lists(
    st.lists(st.integers(1, n), min_size=1, max_size=min(3, n), unique=True).flatmap(
        lambda vs: st.tuples(*[st.sampled_from([v, -v]) for v in vs])),
    max_size=7).map(lambda clauses: Formula.of(clauses, n)))


# ----------------------------------------------------------------------------- size

def test_size_of_the_paper_style_example():
    f = example_satisfiable()          # 4 variables, 4 clauses of 3 literals
    g = nrpath_gadget(f)
    # vertices 2 + 2n + 9c = 2 + 8 + 36 = 46; arcs 1 + 3n + 14c = 1 + 12 + 56 = 69
    assert (g.graph.num_vertices, g.graph.num_arcs) == (46, 69) == expected_size(f)
    assert nrpath_gadget(f, cycle=True).graph.num_arcs == 70


@pytest.mark.parametrize("n, c", [(3, 1), (5, 21), (20, 91), (50, 218), (200, 850)])
def test_size_is_linear_in_the_formula(n, c):
    f = random_3sat(n, c, seed=n)
    for cycle in (False, True):
        g = nrpath_gadget(f, cycle).graph
        assert (g.num_vertices, g.num_arcs) == (2 + 2 * n + 9 * c, 1 + 3 * n + 14 * c + cycle)
        labels = g.labels.tolist()
        # zeros: per variable 2 + its occurrences, per clause its width + 1, the q -> p arc
        assert labels.count(0) == 2 * n + 3 * c + 3 * c + c + cycle


@settings(max_examples=200, deadline=None)
@given(formulas_1_to_3)
def test_size_formula_for_mixed_widths(f):
    g = nrpath_gadget(f).graph
    occurrences = sum(map(len, f.clauses))
    assert (g.num_vertices, g.num_arcs) == expected_size(f) == (
        2 + 2 * f.num_vars + 2 * occurrences + 3 * f.num_clauses,
        1 + 3 * f.num_vars + 4 * occurrences + 2 * f.num_clauses)


def test_vertex_names_are_unique_and_say_their_role():
    f = Formula.of([(1, -2, 3), (-1, -2), (2,)], 4)
    g = nrpath_gadget(f)
    names = [g.graph.vertex_name(v) for v in range(g.graph.num_vertices)]
    assert len(set(names)) == len(names)
    assert g.graph.vertex_name(g.term_vertex[0][1]) == "c1t2:~x2"
    assert g.graph.vertex_name(g.term_vertex[2][0]) == "c3t1:x2"
    assert names[g.p] == "p" and names[g.q] == "q"


# ----------------------------------------------------------------------------- structure

def test_term_vertices_switch_labels_both_ways():
    g = nrpath_gadget(example_satisfiable())
    graph = g.graph
    outgoing, incoming = graph.adjacency()
    labels = graph.labels
    for row in g.term_vertex:
        for u in row:
            assert sorted(labels[incoming[u]].tolist()) == [0, 1]
            assert sorted(labels[outgoing[u]].tolist()) == [0, 1]


def test_routes_alternate_and_hold_the_literal_occurrences():
    f = example_satisfiable()
    g = nrpath_gadget(f)
    occurrences = f.occurrences()
    for literal, route in g.route_arcs.items():
        labels = g.graph.labels[list(route)].tolist()
        assert labels == [0, 1] * len(occurrences.get(literal, [])) + [0]
        assert not walk_problems(g.graph, route)
        heads = g.graph.heads[list(route)].tolist()
        assert heads[1::2] == [g.term_vertex[j][i] for j, i in occurrences.get(literal, [])]


def test_chain_arcs_are_ones_from_p_to_q():
    g = nrpath_gadget(Formula.of([(1, 2), (-1,)], 3))
    assert len(g.chain_arcs) == 3 + 2 + 1
    assert set(g.graph.labels[list(g.chain_arcs)].tolist()) == {1}
    assert g.graph.tails[g.chain_arcs[0]] == g.p and g.graph.heads[g.chain_arcs[-1]] == g.q


def test_variable_without_occurrences_gets_two_parallel_zero_arcs():
    g = nrpath_gadget(Formula(2, ((1,),)))
    a, b = g.variable_entry[1], g.variable_exit[1]
    assert len(g.route_arcs[2]) == len(g.route_arcs[-2]) == 1
    assert sorted(g.graph.arcs_between(a, b)) == sorted([g.route_arcs[2][0], g.route_arcs[-2][0]])


def test_empty_formula_is_one_arc():
    g = nrpath_gadget(Formula(0, ()))
    assert path_from_assignment(g, ()) == [0] and assignment_from_path(g, [0]) == ()


def test_empty_clause_makes_the_gadget_impassable():
    g = nrpath_gadget(Formula(1, ((1,), ())))
    with pytest.raises(NrPathError, match="clause 2"):
        path_from_assignment(g, (True,))


# ----------------------------------------------------------------------------- forward / back

@pytest.mark.parametrize("formula", [example_satisfiable(), example_unsatisfiable(),
                                     Formula.of([(1,), (-1, 2), (2, -3, 4), (-4, -2, 3)], 5)],
                         ids=["example-sat", "example-unsat", "mixed"])
def test_forward_map_for_every_assignment(formula):
    g = nrpath_gadget(formula)
    for values in all_assignments(formula):
        if formula.is_satisfied_by(values):
            path = path_from_assignment(g, values)
            assert simple_path_problems(g.graph, path, g.p, g.q) == []
            assert assignment_from_path(g, path) == values
            terms = chosen_terms(g, path)
            assert all((lit > 0) == values[abs(lit) - 1]
                       for lit in (clause[i] for clause, i in zip(formula.clauses, terms)))
        else:
            with pytest.raises(NrPathError, match="false"):
                path_from_assignment(g, values)


@settings(max_examples=150, deadline=None)
@given(formulas_1_to_3)
def test_forward_map_and_extraction_round_trip(f):
    g = nrpath_gadget(f, cycle=True)
    for values in satisfying(f)[:8]:
        cycle = cycle_from_assignment(g, values)
        assert simple_cycle_problems(g.graph, cycle) == []
        assert assignment_from_cycle(g, cycle) == values
        assert assignment_from_path(g, path_from_cycle(g, cycle)) == values


def test_mapping_assignments_work_too():
    f = example_satisfiable()
    g = nrpath_gadget(f)
    path = path_from_assignment(g, {1: True, 3: True})
    assert assignment_from_path(g, path) == (True, False, True, False)


def test_extraction_refuses_walks_that_are_not_simple_paths():
    g = nrpath_gadget(example_satisfiable())
    walk = nonrepetitive_path(g.graph, g.p, g.q)
    if simple_path_problems(g.graph, walk, g.p, g.q):
        with pytest.raises(NrPathError, match="not simple"):
            assignment_from_path(g, walk)
    # into the term vertex of x1 in clause 1 along x1's route (label 1), then out to the
    # clause (label 1): the jump between gadgets repeats a label
    jump = [g.chain_arcs[0], *g.route_arcs[1][:2], g.term_arcs[0][0][1]]
    with pytest.raises(NrPathError, match="repeat label '1'"):
        assignment_from_path(g, jump)
    with pytest.raises(NrPathError, match="no arc q"):
        cycle_from_assignment(g, (True, False, True, False))


def test_cycle_extraction_needs_the_q_p_arc():
    g = nrpath_gadget(Formula.of([(1, 2)], 2), cycle=True)
    cycle = cycle_from_assignment(g, (True, True))
    assert cycle[-1] == g.cycle_arc
    rotated = cycle[3:] + cycle[:3]
    assert assignment_from_cycle(g, rotated) == (True, True)
    with pytest.raises(NrPathError, match="not a simple nonrepetitive cycle"):
        path_from_cycle(g, cycle[:-1])


# ----------------------------------------------------------------------------- contrast

def test_nr_graph_finds_a_walk_for_every_formula_but_simple_only_if_satisfiable():
    # (formula, satisfiable): the shipped files say it in their names; the small random
    # formulas are decided by trying every assignment
    cases = [(read_formula(p), "-unsat" not in p.name) for p in FORMULA_FILES]
    for seed, c in enumerate(range(10, 40)):
        f = random_3sat(5, c, seed)
        cases.append((f, bool(satisfying(f))))
    assert sum(not sat for _, sat in cases) >= 10 and sum(sat for _, sat in cases) >= 10
    for f, sat in cases:
        g = nrpath_gadget(f)
        walk = nonrepetitive_path(g.graph, g.p, g.q)
        assert walk is not None and not walk_problems(g.graph, walk)
        if not sat:
            assert simple_path_problems(g.graph, walk, g.p, g.q)


def test_unsatisfiable_gadget_still_has_nonrepetitive_cycles_through_q_p():
    g = nrpath_gadget(example_unsatisfiable(), cycle=True)
    assert cyclic_edges(g.graph)[g.cycle_arc]


def test_shipped_formula_files_exist():
    names = {p.name for p in FORMULA_FILES}
    assert {"nrpath-example-sat.cnf", "nrpath-example-unsat.cnf",
            "nrpath-random-20-91-sat.cnf", "nrpath-random-20-91-unsat.cnf"} <= names
    for path in FORMULA_FILES:
        f = read_formula(path)
        g = nrpath_gadget(f)
        assert (g.graph.num_vertices, g.graph.num_arcs) == expected_size(f)
        assert np.all(np.isin(g.graph.labels, [0, 1]))
