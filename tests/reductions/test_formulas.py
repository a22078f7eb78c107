"""The 3-CNF model and formula families (shared by the Nishio and nonrepetitive gadgets)."""

from __future__ import annotations

import itertools

import pytest
from pysat.solvers import Solver

from reductions.formulas import (Formula, FormulaError, all_sign_patterns, example_satisfiable,
                                 example_unsatisfiable, from_dimacs_clauses, pigeonhole,
                                 random_3sat)


def brute_force_satisfiable(formula: Formula) -> bool:
    return any(formula.is_satisfied_by(bits)
               for bits in itertools.product((False, True), repeat=formula.num_vars))


def test_fixed_examples():
    sat, unsat = example_satisfiable(), example_unsatisfiable()
    assert sat.is_satisfied_by({1: True, 3: True})
    assert brute_force_satisfiable(sat) and not brute_force_satisfiable(unsat)
    assert unsat.num_clauses == 8 and unsat.max_width == 3
    assert not brute_force_satisfiable(pigeonhole(2))


def test_random_formulas_are_reproducible_and_well_formed():
    a, b = random_3sat(6, 20, seed=5), random_3sat(6, 20, seed=5)
    assert a == b and a != random_3sat(6, 20, seed=6)
    for clause in a.clauses:
        assert len({abs(x) for x in clause}) == 3


def test_random_formulas_agree_with_a_sat_solver():
    answers = []
    for seed in range(60):
        formula = random_3sat(5, 22, seed=seed)
        with Solver(name="cadical195", bootstrap_with=[list(c) for c in formula.clauses]) as s:
            answers.append(s.solve())
        assert answers[-1] == brute_force_satisfiable(formula)
    assert 0 < sum(answers) < len(answers)     # both answers occur at this ratio


def test_falsified_clauses():
    formula = all_sign_patterns(2)
    assert formula.falsified_clauses([True, True]) == [3]


def test_width_and_literal_errors():
    with pytest.raises(FormulaError, match="clause 2 \\[1, 2, 3, 4\\] has 4 literals"):
        from_dimacs_clauses(4, [[1], [1, 2, 3, 4]], name="f.cnf")
    with pytest.raises(FormulaError, match="clause 1 is empty"):
        from_dimacs_clauses(2, [[]])
    with pytest.raises(FormulaError, match="repeats a variable"):
        from_dimacs_clauses(2, [[1, -1]])
    with pytest.raises(FormulaError, match="literal 5"):
        Formula(3, ((1, 5),))
    assert from_dimacs_clauses(5, [[1, 2, 3, 4, 5]], max_width=None).max_width == 5


def test_seeded_random_formulas_are_the_series_of_their_seeds():
    from reductions.formulas import random_3sat, random_cnf, seeded_random_formulas
    series = seeded_random_formulas(5, 7, 3, first_seed=10)
    assert [seed for seed, _ in series] == [10, 11, 12]
    assert [f for _, f in series] == [random_3sat(5, 7, seed=s) for s in (10, 11, 12)]
    mixed = seeded_random_formulas(4, 6, 2, first_seed=0, widths=(1, 2, 3))
    assert [f for _, f in mixed] == [random_cnf(4, 6, (1, 2, 3), seed=s) for s in (0, 1)]
    assert {len(c) for _, f in mixed for c in f.clauses} - {1, 2, 3} == set()
    assert seeded_random_formulas(5, 7, 0, first_seed=0) == []
