"""3-CNF → Nishio gadgets (reductions/nishio/gadget.py): exact sizes, the structure the proof
needs, the closed loop on hundreds of random formulas, an exhaustive count of the gadget
placements, the forward map and extraction, and Theorem 3."""

from __future__ import annotations

import itertools
import random
import time
from pathlib import Path

import pytest
from pysat.solvers import Solver

from reductions.formulas import (Formula, FormulaError, example_satisfiable, random_cnf,
                                 example_unsatisfiable, from_dimacs_clauses, random_3sat)
from reductions.nishio.placements import CellSet, is_valid_placement
from reductions.nishio.gadget import (GadgetError, assignment_from_placement, expected_cell_count,
                                      filler_units, nishio_gadget, order_problems,
                                      placement_from_assignment, theorem_order)
from reductions.nishio.theorem3 import theorem3_gadget, theorem3_instance, v0_false_cells
from solvers.formats.dimacs import read_cnf
from solvers.gadgets.nishio import PlacementModel

FORMULAS = Path(__file__).resolve().parents[3] / "instances" / "formulas"


def satisfiable(formula: Formula, assumptions=()) -> dict[int, bool] | None:
    with Solver(name="cadical195", bootstrap_with=[list(c) for c in formula.clauses]) as s:
        if not s.solve(assumptions=list(assumptions)):
            return None
        model = {abs(x): x > 0 for x in s.get_model() or []}
    return {v: model.get(v, False) for v in range(1, formula.num_vars + 1)}


def small_random_formula(seed: int) -> Formula:
    """Up to 5 variables and 6 clauses, widths 1-3 (3-literal clauses alone are always
    satisfiable below 8 clauses, so short clauses give the unsatisfiable cases)."""
    rng = random.Random(seed)
    return random_cnf(rng.randint(3, 5), rng.randint(4, 6), (1, 1, 2, 3), seed=seed)


# ----------------------------------------------------------------------------- sizes

def test_theorem_order():
    assert theorem_order(random_3sat(5, 6, seed=1)) == 19           # max(11, 19)
    assert theorem_order(random_3sat(10, 20, seed=1)) == 61
    assert theorem_order(Formula(12, ((1, 2, 3),))) == 13            # v + c dominates
    assert theorem_order(Formula(0, ())) == 2


@pytest.mark.parametrize("seed", range(12))
def test_exact_sizes_and_balance(seed):
    formula = small_random_formula(seed) if seed % 2 else random_3sat(4, seed % 5 + 1, seed=seed)
    gadget = nishio_gadget(formula)
    n, N = gadget.order, gadget.shape.size
    L, c = sum(map(len, formula.clauses)), formula.num_clauses
    assert n == theorem_order(formula) and N == n * n
    assert gadget.cells.count() == expected_cell_count(formula)
    assert len(gadget.gadget_rows) == len(gadget.gadget_cols) == len(gadget.gadget_blocks) \
        == 2 * L + c
    assert len(gadget.gadget_cells()) == len(set(gadget.gadget_cells())) == 6 * L
    # the requirement of the filler: in every band gadget rows = gadget blocks, in every
    # stack gadget columns = gadget blocks
    for band in range(n):
        rows = sum(r // n == band for r in gadget.gadget_rows)
        assert rows == sum(k // n == band for k in gadget.gadget_blocks)
    for stack in range(n):
        cols = sum(col // n == stack for col in gadget.gadget_cols)
        assert cols == sum(k % n == stack for k in gadget.gadget_blocks)
    # S = gadget cells + every cell outside all gadget rows, columns and blocks
    rows, cols, blocks = map(set, filler_units(gadget))
    mask = gadget.cells.mask
    for r, col in gadget.gadget_cells():
        assert mask[r, col]
    filler = mask.copy()
    for r, col in gadget.gadget_cells():
        filler[r, col] = False
    recount = sum(1 for r in rows for col in cols if gadget.shape.block_of(r, col) in blocks)
    assert int(filler.sum()) == recount
    assert not filler[sorted(gadget.gadget_rows), :].any()
    assert not filler[:, sorted(gadget.gadget_cols)].any()


def test_a_361_grid_for_six_clauses():
    formula = random_cnf(5, 6, (3,), seed=4)
    gadget = nishio_gadget(formula)
    assert gadget.shape.size == 361 and gadget.order == 19
    assert gadget.cells.count() == expected_cell_count(formula)
    assert 85_000 < gadget.cells.count() < 95_000         # ~70% of the 130,321 cells


def test_order_checks():
    formula = example_satisfiable()
    assert order_problems(formula, theorem_order(formula)) == []
    with pytest.raises(GadgetError, match="order 5 is too small"):
        nishio_gadget(formula, order=5)
    bigger = nishio_gadget(formula, order=15)
    assert bigger.shape.size == 225 and bigger.cells.count() == expected_cell_count(formula, 15)
    assert order_problems(formula, 8) and not order_problems(formula, 13)


def test_bad_formulas_are_refused_with_the_clause_named():
    with pytest.raises(GadgetError, match=r"clause 2 \[1, 2, 3, 4\] has 4 literals"):
        nishio_gadget(Formula(4, ((1,), (1, 2, 3, 4))))
    with pytest.raises(GadgetError, match="clause 1 is empty"):
        nishio_gadget(Formula(2, ((),)))
    with pytest.raises(FormulaError, match="clause 1"):
        from_dimacs_clauses(4, [[1, 2, 3, 4]], max_width=3)


# ----------------------------------------------------------------------------- structure

def test_variable_gadgets_are_single_conflict_cycles():
    formula = Formula(4, ((1, 2, 3), (-1, 2, 4), (1, -2, -3), (-1,), (2, 4)))
    gadget = nishio_gadget(formula)
    shape = gadget.shape
    for var, g in gadget.variables.items():
        k = len(g.rows)
        assert k == sum(abs(x) == var for c in formula.clauses for x in c)
        cells = list(g.true_cells + g.false_cells)
        assert len(set(cells)) == 2 * k
        # conflict graph: same row or same block
        adjacent = {x: {y for y in cells if y != x and (y[0] == x[0] or
                                                          shape.block_of(*y) == shape.block_of(*x))}
                    for x in cells}
        if k >= 2:
            assert all(len(neigh) == 2 for neigh in adjacent.values())
            seen, todo = set(), [cells[0]]
            while todo:                                    # connected: one cycle of 2k
                x = todo.pop()
                if x not in seen:
                    seen.add(x)
                    todo.extend(adjacent[x])
            assert seen == set(cells)
        # true cells use column X of each occurrence stack, false cells column Y
        for t, (true_cell, false_cell) in enumerate(zip(g.true_cells, g.false_cells)):
            assert true_cell[1] % gadget.order == 0 and false_cell[1] % gadget.order == 1
            assert true_cell[0] != false_cell[0] or k == 1
    single = nishio_gadget(Formula(3, ((1, 2, 3),)))
    for g in single.variables.values():                 # one occurrence: one row, one block
        assert len(g.rows) == 1 and g.true_cells[0][0] == g.false_cells[0][0]


def test_clause_gadgets_layout():
    formula = Formula(3, ((1, -2, 3), (-1,), (2, 3)))
    gadget = nishio_gadget(formula)
    for clause in gadget.clauses:
        w = len(clause.literals)
        assert len(clause.conflict_rows) == len(clause.terms) == len(clause.terminal_cells) == w
        assert {r for r, _ in clause.terminal_cells} == set(clause.conflict_rows)
        assert {col for _, col in clause.terminal_cells} == {clause.terminal_column}
        for term in clause.terms:
            x_col, y_col = term.columns
            # the truth cell sits in the column the variable leaves free when the literal is true
            assert term.truth_cell == (clause.truth_row, y_col if term.literal > 0 else x_col)
            assert term.conflict_cells == ((clause.conflict_rows[term.position], x_col),
                                           (clause.conflict_rows[term.position], y_col))
            assert term.block % gadget.order == term.variable_block % gadget.order
    assert gadget.owner_of_row(gadget.clauses[0].truth_row) == "C1 truth"
    assert gadget.owner_of_row(gadget.variables[2].rows[1]) == "x2 ρ1"
    assert gadget.owner_of_column(gadget.clauses[2].terminal_column) == "C3 terminal"
    assert "¬x2" in gadget.owner_of_column(gadget.clauses[0].terms[1].columns[0])
    assert gadget.block_kind(gadget.clauses[1].terminal_block) == "terminal"
    assert gadget.labels[gadget.clauses[0].terms[1].block] == "C1:¬x2"


# ----------------------------------------------------------------------------- exhaustive count

def exact_covers(units: dict[str, list], cell_units: dict) -> list[frozenset]:
    """All sets of cells covering every unit exactly once (a tiny Algorithm X)."""
    solutions = []

    def search(open_units: set, used: frozenset, blocked: set) -> None:
        if not open_units:
            solutions.append(used)
            return
        unit = min(open_units, key=lambda u: sum(c not in blocked for c in units[u]))
        for cell in units[unit]:
            if cell in blocked:
                continue
            covered = set(cell_units[cell])
            newly_blocked = {x for u in covered for x in units[u]}
            search(open_units - covered, used | {cell}, blocked | newly_blocked)

    search(set(units), frozenset(), set())
    return solutions


@pytest.mark.parametrize("formula", [
    Formula(3, ((1, 2, -3), (-1, 2), (3,))),
    Formula(2, ((1, 2), (-1, -2), (1, -2))),
    Formula(3, ((1, 2, 3), (-1, -2, -3))),
    Formula(2, ((1,), (-1,))),
    Formula(3, ((1, -2), (2, 3), (-3, -1))),
])
def test_gadget_placements_are_assignments_times_true_terms(formula):
    """The gadget part of S (its rows, columns, blocks) has exactly Σ over satisfying
    assignments of Π_clauses (number of true literals) placements: one per assignment and
    choice of a true literal per clause — and each decodes to its assignment."""
    gadget = nishio_gadget(formula)
    shape = gadget.shape
    cells = gadget.gadget_cells()
    cell_units = {cell: (("row", cell[0]), ("col", cell[1]), ("block", shape.block_of(*cell)))
                  for cell in cells}
    units: dict = {}
    for cell, us in cell_units.items():
        for u in us:
            units.setdefault(u, []).append(cell)
    assert len(units) == 3 * len(gadget.gadget_rows)     # every gadget unit has a cell
    covers = exact_covers(units, cell_units)
    variables = sorted(gadget.variables)
    expected = {}
    for values in itertools.product((False, True), repeat=len(variables)):
        assignment = dict(zip(variables, values))
        ways = 1
        for clause in formula.clauses:
            ways *= sum(assignment[abs(x)] == (x > 0) for x in clause)
        if ways:
            expected[values] = ways
    found: dict = {}
    rows, cols, blocks = filler_units(gadget)
    from reductions.nishio.parts import subgrid_placement
    filler = subgrid_placement(shape, rows, cols, blocks)
    for cover in covers:
        extraction = assignment_from_placement(gadget, sorted(cover) + filler)
        key = tuple(extraction.assignment[v] for v in variables)
        found[key] = found.get(key, 0) + 1
    assert found == expected


# ----------------------------------------------------------------------------- closed loop

def test_closed_loop_on_hundreds_of_random_formulas():
    """satisfiable ⇔ S contains a valid placement; extraction satisfies; forward map valid."""
    answers = {True: 0, False: 0}
    start = time.perf_counter()
    for seed in range(300):
        formula = small_random_formula(seed)
        model = satisfiable(formula)
        gadget = nishio_gadget(formula)
        with PlacementModel(gadget.cells) as placements:
            placement = placements.find()
        assert (placement is not None) == (model is not None), formula
        answers[model is not None] += 1
        if placement is not None:
            extraction = assignment_from_placement(gadget, placement)
            assert formula.is_satisfied_by(extraction.assignment)
            for clause, p in zip(formula.clauses, extraction.witnesses):
                assert extraction.assignment[abs(clause[p])] == (clause[p] > 0)
        if model is not None:
            forward = placement_from_assignment(gadget, model)
            assert is_valid_placement(forward, gadget.shape, gadget.cells)
            back = assignment_from_placement(gadget, forward).assignment
            assert all(back[v] == model[v] for v in gadget.variables)
    # measured: 203 satisfiable, 97 unsatisfiable
    assert answers[True] >= 90 and answers[False] >= 80, answers
    assert time.perf_counter() - start < 60


def test_forward_map_for_every_assignment_of_small_formulas():
    for seed in range(20):
        formula = random_cnf(3, 4, (1, 2, 3), seed=seed)
        gadget = nishio_gadget(formula)
        for values in itertools.product((False, True), repeat=3):
            assignment = dict(zip((1, 2, 3), values))
            if formula.is_satisfied_by(assignment):
                placement = placement_from_assignment(gadget, assignment)
                assert is_valid_placement(placement, gadget.shape, gadget.cells)
                back = assignment_from_placement(gadget, placement).assignment
                assert all(back[v] == assignment[v] for v in gadget.variables)
                assert all(back[v] is False for v in (1, 2, 3) if v not in gadget.variables)
            else:
                with pytest.raises(GadgetError, match="falsifies clause"):
                    placement_from_assignment(gadget, assignment)


def test_extraction_refuses_invalid_placements():
    gadget = nishio_gadget(example_satisfiable())
    placement = placement_from_assignment(gadget, {1: True, 3: True})
    with pytest.raises(GadgetError, match="not a valid placement"):
        assignment_from_placement(gadget, placement[1:])
    r, c = placement[0]
    moved = [(r, c + 1 if c + 1 < gadget.shape.size else c - 1)] + placement[1:]
    with pytest.raises(GadgetError, match="not a valid placement"):
        assignment_from_placement(gadget, moved)


@pytest.mark.parametrize("path", sorted(FORMULAS.glob("nishio-*.cnf")), ids=lambda p: p.name)
def test_fixed_example_files(path):
    cnf = read_cnf(path)
    formula = from_dimacs_clauses(cnf.num_vars, cnf.clauses, max_width=3, name=str(path))
    expected = "-sat-" in path.name
    assert (satisfiable(formula) is not None) == expected
    gadget = nishio_gadget(formula)
    with PlacementModel(gadget.cells) as placements:
        placement = placements.find()
    assert (placement is not None) == expected
    if placement:
        assert formula.is_satisfied_by(assignment_from_placement(gadget, placement).assignment)


def test_fixed_examples_cover_both_answers():
    names = [p.name for p in FORMULAS.glob("nishio-*.cnf")]
    assert sum("-sat-" in n for n in names) >= 3 and sum("-unsat-" in n for n in names) >= 3


def test_formula_without_clauses_and_unused_variables():
    empty = nishio_gadget(Formula(3, ()))
    assert empty.order == 3 and empty.cells == CellSet.full(empty.shape)
    assert assignment_from_placement(
        empty, placement_from_assignment(empty, {})).assignment == {1: False, 2: False, 3: False}
    unused = nishio_gadget(Formula(5, ((1, 2), (-1,))))
    assert set(unused.variables) == {1, 2}


# ----------------------------------------------------------------------------- Theorem 3

def test_theorem3_formula():
    formula = Formula(4, ((1, 2, 3), (-1, 4), (2,), (-2, -3, -4)))
    instance = theorem3_instance(formula)
    v0 = instance.v0
    assert v0 == 5 and instance.split_variables == {0: 6, 3: 7}
    assert instance.formula.clauses == ((1, 2, 6), (-6, 3, 5), (-1, 4, 5), (2, 5),
                                        (-2, -3, 7), (-7, -4, 5))
    assert instance.formula.max_width <= 3


def test_theorem3_on_random_formulas():
    """X' is satisfiable with v0 true always, and with v0 false iff X is satisfiable; the
    gadget's Nishio(S') is never empty and holds v0's false cells iff X is satisfiable."""
    answers = {True: 0, False: 0}
    for seed in range(80):
        formula = small_random_formula(1000 + seed)
        model = satisfiable(formula)
        instance, gadget = theorem3_gadget(formula)
        v0 = instance.v0
        assert satisfiable(instance.formula, [v0]) is not None
        assert (satisfiable(instance.formula, [-v0]) is not None) == (model is not None)
        false_cells = v0_false_cells(instance, gadget)
        assert len(false_cells) == formula.num_clauses
        with PlacementModel(gadget.cells) as placements:
            assert placements.find() is not None
            through = placements.find(false_cells[0])
        assert (through is not None) == (model is not None)
        answers[model is not None] += 1
        if through is not None:
            assert set(false_cells) <= set(through)
            extraction = assignment_from_placement(gadget, through)
            assert extraction.assignment[v0] is False
            assert formula.is_satisfied_by(instance.restrict(extraction.assignment))
            lifted = instance.lift(model, False)
            assert instance.formula.is_satisfied_by(lifted)
            assert set(false_cells) <= set(placement_from_assignment(gadget, lifted))
        v0_true = instance.lift({}, True)
        assert instance.formula.is_satisfied_by(v0_true)
        assert is_valid_placement(placement_from_assignment(gadget, v0_true), gadget.shape,
                                  gadget.cells)
    assert min(answers.values()) >= 20, answers


def test_theorem3_fixed_examples():
    for formula, expected in ((example_satisfiable(), True), (example_unsatisfiable(), False)):
        instance, gadget = theorem3_gadget(formula)
        with PlacementModel(gadget.cells) as placements:
            kept_any = placements.find() is not None
            kept_false = placements.find(v0_false_cells(instance, gadget)[-1]) is not None
        assert kept_any and kept_false == expected


def test_build_gadget_and_its_json_map():
    import json
    from reductions.nishio.theorem3 import build_gadget, theorem3_instance, v0_false_cells
    formula = example_satisfiable()
    built = build_gadget(formula)
    assert built.theorem3 is None and built.v0_false == ()
    assert built.gadget.cells == nishio_gadget(formula).cells
    record = json.loads(json.dumps(built.record()))
    assert record["theorem"] == 2 and record["order"] == built.gadget.order
    assert record["clauses"] == [list(c) for c in formula.clauses]
    for v, g in built.gadget.variables.items():
        assert record["variables"][str(v)]["true_cells"] == [list(c) for c in g.true_cells]
    terms = [t for c in record["clause_gadgets"] for t in c["terms"]]
    assert [t["literal"] for t in terms] == [lit for c in formula.clauses for lit in c]
    three = build_gadget(formula, variant="thm3")
    instance = theorem3_instance(formula)
    assert three.gadget.formula == instance.formula
    assert three.v0_false == v0_false_cells(three.theorem3, three.gadget) != ()
    record = three.record()
    assert (record["theorem"], record["v0"]) == (3, instance.v0)
    assert record["v0_false_cells"] == [list(c) for c in three.v0_false]
    with pytest.raises(GadgetError, match="unknown variant"):
        build_gadget(formula, variant="both")
