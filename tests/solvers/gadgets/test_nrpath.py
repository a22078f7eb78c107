"""The exact check for simple nonrepetitive paths and cycles: the SAT model against brute
force on random labelled graphs, and the closed loop of the 3SAT reduction (satisfiable ⇔
simple nonrepetitive p → q path) on hundreds of random formulas and the fixed examples."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.formulas import Formula, random_3sat
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.nonrepetitive.nr_graph import simple_cycle_problems, simple_path_problems
from reductions.nonrepetitive.nrpath_gadget import assignment_from_path, chosen_terms, nrpath_gadget
from solvers.gadgets.nrpath import (_follow, brute_force_cycle, brute_force_path, brute_force_paths,
                            find_simple_cycle, find_simple_path, fixed_formulas,
                            path_model, validate_formula)
from solvers.runtime.pysat_solvers import solve_formula

from tests.reductions.nonrepetitive.test_nrpath_gadget import FORMULA_FILES, formulas_1_to_3, read_formula


@st.composite
def small_graphs(draw, directed=True):
    n = draw(st.integers(2, 6))
    k = draw(st.integers(1, 3))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(0, k - 1)), max_size=13))
    return LabelledGraph(n, [e[0] for e in edges], [e[1] for e in edges],
                         [e[2] for e in edges], directed, label_names=tuple(range(k)))


def check_model_against_brute_force(g: LabelledGraph) -> None:
    p, q = 0, g.num_vertices - 1
    found = find_simple_path(g, p, q)
    assert (found is None) == (brute_force_path(g, p, q) is None)
    if found is not None:
        assert simple_path_problems(g, found, p, q) == []
    for arc in range(g.num_arcs):
        cycle = find_simple_cycle(g, arc)
        assert (cycle is None) == (brute_force_cycle(g, arc) is None)
        if cycle is not None:
            assert cycle[0] == arc and simple_cycle_problems(g, cycle) == []


@settings(max_examples=250, deadline=None)
@given(small_graphs(directed=True))
def test_sat_model_agrees_with_brute_force_on_digraphs(g):
    check_model_against_brute_force(g)


@settings(max_examples=120, deadline=None)
@given(small_graphs(directed=False))
def test_sat_model_agrees_with_brute_force_on_undirected_graphs(g):
    check_model_against_brute_force(g)


def test_both_answers_occur_in_random_digraphs():
    # the brute-force comparison above is only meaningful if both answers are common
    import numpy as np
    from reductions.nonrepetitive.labelled_graph import random_labelled_graph
    answers = []
    for seed in range(150):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(3, 7))
        g = random_labelled_graph(n, int(rng.integers(n, 3 * n)), 2, seed=seed)
        answers.append(find_simple_path(g, 0, n - 1) is not None)
    assert 30 <= sum(answers) <= 120


def test_cycles_by_hand():
    g = LabelledGraph.from_edges([("a", "b", 0), ("b", "a", 1),     # a nonrepetitive 2-cycle
                                  ("c", "d", 0), ("d", "c", 0),     # a repetitive 2-cycle
                                  ("e", "e", 0)])                   # a loop follows itself
    assert find_simple_cycle(g, 0) == [0, 1]
    assert find_simple_cycle(g, 2) is None and brute_force_cycle(g, 2) is None
    assert find_simple_cycle(g, 4) is None and brute_force_cycle(g, 4) is None


def test_other_cycles_are_not_mistaken_for_the_answer():
    # The arc x -> y lies only on the repetitive cycle x y x, while a nonrepetitive cycle
    # a b a elsewhere satisfies every vertex constraint: the answer must still be None.
    g = LabelledGraph.from_edges([("x", "y", 0), ("y", "x", 0), ("a", "b", 0), ("b", "a", 1)])
    assert find_simple_cycle(g, 0) is None
    # decoding follows the component of the start only, even if the chosen arcs hold more
    path = LabelledGraph.from_edges([("p", "m", 0), ("m", "q", 1), ("a", "b", 0),
                                     ("b", "a", 1)])
    assert _follow(path, {0, 1, 2, 3}, 0, 2) == [0, 1]


def test_extra_cycles_do_not_spoil_the_path():
    # p -> q plus a separate nonrepetitive triangle: whatever the model picks for the
    # triangle, the decoded path is p -> m -> q
    g = LabelledGraph.from_edges([("p", "m", 0), ("m", "q", 1), ("a", "b", 0), ("b", "c", 1),
                                  ("c", "a", 2)])
    assert find_simple_path(g, g.vertex_id("p"), g.vertex_id("q")) == [0, 1]


def test_model_size_on_the_gadget():
    # one variable per arc, one 'used' per vertex other than p and q, one 'in(v, x)' for
    # the two labels of every term vertex (degrees are small: pairwise exactly-one)
    f = random_3sat(10, 43, seed=1)
    g = nrpath_gadget(f)
    model = path_model(g.graph, g.p, g.q)
    occurrences = sum(map(len, f.clauses))
    assert model.num_vars == g.graph.num_arcs + g.graph.num_vertices - 2 + 2 * occurrences


def true_literal_choices(f: Formula) -> int:
    """Simple p → q paths in the gadget ↔ (satisfying assignment, a true literal per
    clause): Σ over satisfying assignments of Π (true literals of each clause)."""
    total = 0
    for values in itertools.product((False, True), repeat=f.num_vars):
        total += math.prod(sum((lit > 0) == values[abs(lit) - 1] for lit in clause)
                           for clause in f.clauses)
    return total


@settings(max_examples=60, deadline=None)
@given(formulas_1_to_3.filter(lambda f: f.num_vars <= 4 and f.num_clauses <= 5))
def test_gadget_paths_correspond_one_to_one_to_satisfying_choices(f):
    g = nrpath_gadget(f)
    paths = list(brute_force_paths(g.graph, g.p, g.q))
    assert len(paths) == true_literal_choices(f)
    keys = set()
    for path in paths:
        values = assignment_from_path(g, path)
        assert f.is_satisfied_by(values)
        keys.add((values, tuple(chosen_terms(g, path))))
    assert len(keys) == len(paths)


# ----------------------------------------------------------------------------- closed loop

@pytest.mark.parametrize("cycle", [False, True], ids=["path", "cycle"])
def test_fixed_examples(cycle):
    cases = [(p.name, read_formula(p)) for p in FORMULA_FILES] + fixed_formulas()
    for name, f in cases:
        check = validate_formula(f, name, cycle=cycle)
        assert check.ok, check
        if name.endswith(("-unsat", "-unsat.cnf")):
            assert not check.satisfiable and check.walk_found and not check.walk_simple
        elif name.endswith(("-sat", "-sat.cnf")):
            assert check.satisfiable and check.path_found and check.extraction_ok


def test_hundreds_of_random_formulas_both_answers_well_represented():
    # n = 5..12 variables, 5.2 n clauses: near the satisfiability threshold for small n
    checks = []
    for seed in range(320):
        n = 5 + seed % 8
        checks.append(validate_formula(random_3sat(n, round(5.2 * n), seed), f"s{seed}"))
    bad = [c for c in checks if not c.ok]
    assert not bad, bad[:3]
    satisfiable = sum(c.satisfiable for c in checks)
    assert 0.3 * len(checks) <= satisfiable <= 0.7 * len(checks), satisfiable
    assert all(c.walk_found for c in checks)
    assert sum(c.brute_force_agrees is True for c in checks) == 0  # too big for brute force


def test_brute_force_agrees_on_tiny_random_gadgets():
    ran = 0
    for seed in range(120):
        n = 3 + seed % 2
        f = random_3sat(n, 4 + seed % 8, seed)
        check = validate_formula(f, f"t{seed}", cycle=seed % 3 == 0)
        assert check.ok, check
        ran += check.brute_force_agrees is True
    assert ran >= 100


def test_formula_satisfiable_returns_a_checked_assignment():
    f = random_3sat(8, 20, seed=4)
    values = solve_formula(f)
    assert values is not None and f.is_satisfied_by(values)
    assert solve_formula(Formula.of([(1,), (-1,)])) is None


@pytest.mark.slow
def test_a_thousand_larger_formulas_path_and_cycle():
    checks = []
    for seed in range(1000):
        n = 10 + seed % 21
        checks.append(validate_formula(random_3sat(n, round(4.6 * n), seed), f"s{seed}",
                                       cycle=seed % 2 == 1))
    assert all(c.ok for c in checks)
    satisfiable = sum(c.satisfiable for c in checks)
    assert 0.2 * len(checks) <= satisfiable <= 0.8 * len(checks)


def test_the_nonrepetitive_command_s_answers():
    from reductions.errors import UserError
    from solvers.nonrepetitive import (METHOD_NR, METHOD_SAT, METHOD_SKEW, cycle_answer,
                                       cyclic_edges_answer, path_answer)
    # s -0-> a -1-> t -0-> s: a nonrepetitive walk s -> t; t -> s -> a repeats label 0, so
    # there is no simple path t -> a and no nonrepetitive cycle through t -> s.
    g = LabelledGraph.from_edges([("s", "a", 0), ("a", "t", 1), ("t", "s", 0)])
    walk = path_answer(g, 0, 2, simple=False)
    assert (walk.task, walk.method, walk.found, len(walk.arcs)) == ("path", METHOD_NR, True, 2)
    assert walk.details["simple"] is True
    simple = path_answer(g, 2, 1, simple=True)                # t -0- s -0- a repeats 0
    assert (simple.task, simple.method, simple.found) == ("simple-path", METHOD_SAT, False)
    assert simple.summary.startswith("no simple nonrepetitive path from t to a")
    cycle = cycle_answer(g, 2, 0, source="G")                # t s a t: labels 0 0 1
    assert (cycle.found, cycle.method) == (False, METHOD_SAT)
    with pytest.raises(UserError, match="no arc from s to t in G"):
        cycle_answer(g, 0, 2, source="G")
    listing = cyclic_edges_answer(g, simple=False)
    assert listing.found is None and listing.mask is not None
    record = listing.record(g, "G", 0.5)
    assert record["status"] == "listed" and record["count"] == int(listing.mask.sum())
    undirected = LabelledGraph.from_edges([("s", "a", 0), ("a", "t", 1), ("t", "s", 0)],
                                          directed=False)
    assert path_answer(undirected, 0, 2, simple=True).method == METHOD_SKEW
