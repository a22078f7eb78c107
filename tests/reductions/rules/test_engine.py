"""The rule-based solver (reductions.rules): each rule where it must fire and where it must
not, every witness re-checked independently (reductions.rules.checks), and soundness on
shipped puzzles against their solutions from the SAT route."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from reductions.sudoku.candidates import CandidateState
from reductions.sudoku.grid import Grid, Shape, parse_grid
from reductions.nishio.placements import CellSet, nishio_overlay
from reductions.rules.engine import RULES, RuleError, deduce, select_rules
from reductions.status import Status
from reductions.rules.chain_graphs import bilocation_edges, bivalue_edges
from reductions.rules.checks import deduction_problems
from reductions.rules.engine import apply
from reductions.rules.matching import hall_analysis
from solvers.routes.sat import solve_puzzle

from tests.conftest import instance_pairs, instance_puzzles

N9 = Shape(3, 3)


def empty_state(shape: Shape = N9) -> CandidateState:
    return CandidateState.from_puzzle(Grid.empty(shape))


def cell(r: int, c: int, n: int = 9) -> int:
    return (r - 1) * n + (c - 1)


def remove(state: CandidateState, cells, digit: int) -> None:
    cells = list(cells)
    state.eliminate(cells, [digit] * len(cells))


def effects(deductions):
    places = {p for d in deductions for p in d.placements}
    elims = {e for d in deductions for e in d.eliminations}
    return places, elims


def checked(state, rule_name):
    """Run one rule; every deduction's witness must re-check."""
    found = RULES[rule_name].find(state)
    for ded in found:
        assert deduction_problems(state, ded) == [], (ded.rule, ded.witness)
        assert ded.why
    return found


@pytest.mark.parametrize("name", [n for n in RULES if n != "nishio"])
def test_no_rule_fires_on_the_empty_grid(name):
    assert RULES[name].find(empty_state()) == []


def test_naked_single():
    state = empty_state()
    only(state, cell(5, 5), [7])
    assert effects(checked(state, "naked-single"))[0] == {(cell(5, 5), 7)}


def test_hidden_single():
    state = empty_state()
    remove(state, [cell(1, c) for c in range(1, 10) if c != 5], 1)
    places, _ = effects(checked(state, "hidden-single"))
    assert places == {(cell(1, 5), 1)}


def test_pointing_and_claiming():
    state = empty_state()
    remove(state, [cell(r, c) for r in (2, 3) for c in (1, 2, 3)], 5)   # block 1: row 1 only
    _, elims = effects(checked(state, "pointing"))
    assert elims == {(cell(1, c), 5) for c in range(4, 10)}
    assert checked(state, "claiming") == []
    state = empty_state()
    remove(state, [cell(1, c) for c in range(4, 10)], 5)                 # row 1: block 1 only
    _, elims = effects(checked(state, "claiming"))
    assert elims == {(cell(r, c), 5) for r in (2, 3) for c in (1, 2, 3)}
    # columns too
    state = empty_state()
    remove(state, [cell(r, c) for r in (1, 2, 3) for c in (2, 3)], 4)    # block 1: column 1
    _, elims = effects(checked(state, "pointing"))
    assert elims == {(cell(r, 1), 4) for r in range(4, 10)}


def test_hidden_pair_and_pile_exclusion():
    state = empty_state()
    for d in (1, 2):
        remove(state, [cell(1, c) for c in range(1, 10) if c not in (4, 8)], d)
    _, elims = effects(checked(state, "hidden-pair"))
    assert elims == {(cell(1, c), d) for c in (4, 8) for d in range(3, 10)}
    state = empty_state()
    for d in (1, 2, 3):
        remove(state, [cell(1, c) for c in range(1, 10) if c not in (1, 5, 9)], d)
    assert checked(state, "hidden-pair") == []
    _, elims = effects(checked(state, "pile-exclusion"))
    assert elims == {(cell(1, c), d) for c in (1, 5, 9) for d in range(4, 10)}


def test_line_block_triple():
    state = empty_state()
    for d in (1, 2, 3):                 # in block 1, digits 1-3 only in row 1
        remove(state, [cell(r, c) for r in (2, 3) for c in (1, 2, 3)], d)
    _, elims = effects(checked(state, "line-block-triple"))
    assert {(cell(1, c), d) for c in (1, 2, 3) for d in range(4, 10)} <= elims
    assert {(cell(1, c), d) for c in range(4, 10) for d in (1, 2, 3)} <= elims


def test_digit_matching_x_wing_and_deficiency():
    state = empty_state()
    remove(state, [cell(r, c) for r in (1, 5) for c in range(1, 10) if c not in (2, 8)], 7)
    _, elims = effects(checked(state, "digit-matching"))
    assert elims == {(cell(r, c), 7) for c in (2, 8) for r in range(1, 10) if r not in (1, 5)}
    state = empty_state()
    remove(state, [cell(r, c) for r in (1, 4, 7) for c in range(3, 10)], 7)
    found = checked(state, "digit-matching")
    assert len(found) == 1 and found[0].contradiction
    witness = found[0].witness         # columns 3-9 have only rows 2, 3, 5, 6, 8, 9 left
    assert len(witness["rows"]) < len(witness["columns"])


def test_unit_matching_naked_set_and_deficiency():
    state = empty_state()
    for c in (2, 5, 9):                 # three cells of row 1 hold only 1, 2, 3
        only(state, cell(1, c), [1, 2, 3])
    _, elims = effects(checked(state, "unit-matching"))
    row_part = {(cell(1, c), d) for c in range(1, 10) if c not in (2, 5, 9) for d in (1, 2, 3)}
    assert row_part <= elims
    state = empty_state()
    for c in (1, 2, 3):                 # three cells of row 1 hold only 1, 2
        only(state, cell(1, c), [1, 2])
    found = checked(state, "unit-matching")
    assert found and found[0].contradiction


def test_hall_analysis_sets():
    adj = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 1]], bool)
    kind, groups = hall_analysis(adj)
    assert kind == "hall"
    assert {e for _, _, edges in groups for e in edges} == {(2, 0), (2, 1), (3, 1)}
    assert hall_analysis(np.array([[1, 1, 0]] * 3, bool))[0] == "deficient"


BLOG_PATTERN = """
#....#...
.#......#
....#.##.
...#..#..
#.....#..
.#..#....
...#...#.
#.#.....#
..#..#...
"""


def test_digit_rule_misses_what_nishio_finds():
    """The blog's point: the rows x columns matching ignores blocks, so it keeps cells that
    no valid placement (one per row, column and block) uses; Nishio removes them."""
    mask = np.array([[ch == "#" for ch in line] for line in BLOG_PATTERN.split()])
    state = empty_state()
    remove(state, np.flatnonzero(~mask.ravel()).tolist(), 1)
    assert checked(state, "digit-matching") == []
    _, elims = effects(checked(state, "nishio"))
    kept = nishio_overlay(CellSet(mask, N9)).mask
    assert elims == {(int(c), 1) for c in np.flatnonzero(mask & ~kept)}
    assert elims == {(cell(3, 7), 1), (cell(8, 1), 1)}


def test_bilocation_and_bivalue_graphs():
    state = empty_state()
    remove(state, [cell(1, c) for c in range(1, 10) if c not in (2, 8)], 7)
    assert [tuple(e) for e in bilocation_edges(state)] == [(cell(1, 2), cell(1, 8), 7)]
    for c in (1, 4):
        only(state, cell(2, c), [3, 6])
    assert {tuple(e) for e in bivalue_edges(state)} == {(cell(2, 1), cell(2, 4), 3),
                                                        (cell(2, 1), cell(2, 4), 6)}


def _solution(puzzle):
    return solve_puzzle(puzzle).grid.values.ravel()


def run_checked(puzzle, solution, rules=None, witnesses=True):
    """Deduce with every deduction checked against the solution (and its witness)."""
    fired = []

    def trace(state, found):
        for ded in found:
            fired.append(ded.rule)
            assert not ded.contradiction, ded.why
            for c, d in ded.eliminations:
                assert solution[c] != d, (ded.rule, ded.why)
            for c, d in ded.placements:
                assert solution[c] == d, (ded.rule, ded.why)
            if witnesses and ded.rule not in ("hidden-single", "naked-single"):
                assert deduction_problems(state, ded) == [], (ded.rule, ded.witness)

    result = deduce(puzzle, rules, trace=trace)
    if result.verdict == Status.SOLVED:
        assert np.array_equal(result.state.values.ravel(), solution)
    else:
        assert result.verdict == Status.UNKNOWN
        # the solution survives among the remaining candidates
        flat = result.state.flat_cand()
        assert flat[np.arange(len(solution)), solution - 1].all()
    return result, fired


@pytest.mark.parametrize("first", [0, 150])
def test_sound_on_royle_puzzles(first):
    """Every elimination misses the solution's digit, every placement is it; witnesses of
    the non-single rules re-check (all 300 Royle puzzles, in two halves)."""
    solved = 0
    for puzzle in instance_puzzles("royle17-sample300.txt")[first:first + 150]:
        result, _ = run_checked(puzzle, _solution(puzzle))
        solved += result.verdict == Status.SOLVED
    assert solved >= 145


def test_sound_on_top1465_and_nonlocal_rules_fire():
    """The 100 top1465 puzzles with every rule: sound, witnesses re-check, and the nonlocal
    rules all find deductions somewhere."""
    fired, solved = set(), 0
    for puzzle in instance_puzzles("top1465-sample100.txt"):
        result, rules = run_checked(puzzle, _solution(puzzle))
        fired.update(rules)
        solved += result.verdict == Status.SOLVED
    assert solved >= 36              # Eppstein's PADS Sudoku.py solves 36 of these
    assert {"nishio", "bilocal-cycle", "bilocal-repetitive-cycle", "bilocal-conflicting-paths",
            "bivalue-cycle", "bivalue-repetitive-cycle", "bilocal-path", "bivalue-path",
            "mixed-conflicting-paths"} <= fired


def test_hardest_are_unknown_not_wrong():
    for puzzle in instance_puzzles("hardest1905-sample100.txt")[:25]:
        result, _ = run_checked(puzzle, _solution(puzzle), witnesses=False)
        assert result.verdict == Status.UNKNOWN
        assert result.reason


@pytest.mark.parametrize("name", ["16x16.txt", "25x25.txt", "6x6-2x3.txt", "12x12-3x4.txt"])
def test_other_sizes(name):
    """Other shapes: sound against the shipped solution (16x16 and 25x25 need not be unique,
    but every solution survives sound deductions); small unique ones solve."""
    for puzzle, solution in instance_pairs(name)[:2]:
        rules = select_rules(max_level=9) if puzzle.size >= 16 else None
        result, _ = run_checked(puzzle, solution.values.ravel(), rules, witnesses=False)
        if puzzle.size <= 6:
            assert result.verdict == Status.SOLVED


def test_no_solution_is_proved():
    for puzzle in instance_puzzles("unsolvable.txt"):
        assert deduce(puzzle).verdict == Status.NO_SOLUTION
    twice = parse_grid("11" + "." * 79, check=False)
    result = deduce(twice)
    assert result.verdict == Status.NO_SOLUTION and "twice" in result.reason


def test_selection():
    assert [r.name for r in select_rules(max_level=2)] == ["hidden-single", "naked-single"]
    assert [r.name for r in select_rules(["naked-single", "hidden-single"])] == [
        "hidden-single", "naked-single"]
    with pytest.raises(RuleError):
        select_rules(["no-such-rule"])
    with pytest.raises(RuleError):
        select_rules(max_level=99)
    puzzle = instance_puzzles("royle17-sample300.txt")[0]
    only_naked = deduce(puzzle, select_rules(["naked-single"]))
    assert only_naked.verdict == Status.UNKNOWN
    assert {step.rule for step in only_naked.steps} == {"naked-single"}


def test_apply_never_removes_a_placed_digit():
    state = CandidateState.from_puzzle(parse_grid("1" + "." * 80))
    from reductions.rules.base import Deduction
    assert apply(state, Deduction("claiming", eliminations=((0, 1),))) == 0
    assert state.has(0, 1)


def only(state: CandidateState, flat: int, digits) -> None:
    """Leave ``digits`` as the only candidates of cell ``flat``."""
    others = [d for d in state.candidates_of(flat) if d not in digits]
    state.eliminate([flat] * len(others), others)


def keep_places(state: CandidateState, unit_cells, kept, digit: int) -> None:
    """In a unit (its cells), leave ``digit`` only in the ``kept`` cells."""
    remove(state, [c for c in unit_cells if c not in kept], digit)


def test_bilocal_path():
    """r1c1 -1- r5c1 -2- r5c6 -1- r6c5 (column 1, row 5, block 5 links): 1 is in r1c1 or
    r6c5, so it leaves r1c5, the one cell seeing both that still has it. With the middle link
    labelled 1 too the walk repeats a label and proves nothing."""
    state = empty_state()
    keep_places(state, [cell(r, 1) for r in range(1, 10)], {cell(1, 1), cell(5, 1)}, 1)
    keep_places(state, [cell(5, c) for c in range(1, 10)], {cell(5, 1), cell(5, 6)}, 2)
    block5 = [cell(r, c) for r in (4, 5, 6) for c in (4, 5, 6)]
    keep_places(state, block5, {cell(5, 6), cell(6, 5)}, 1)
    _, elims = effects(checked(state, "bilocal-path"))
    assert elims == {(cell(1, 5), 1)}
    state = empty_state()
    keep_places(state, [cell(r, 1) for r in range(1, 10)], {cell(1, 1), cell(5, 1)}, 1)
    keep_places(state, [cell(5, c) for c in range(1, 10)], {cell(5, 1), cell(5, 6)}, 1)
    keep_places(state, block5, {cell(5, 6), cell(6, 5)}, 1)
    assert checked(state, "bilocal-path") == []


def test_bivalue_path_xy_chain():
    """r1c1 {1,2} -2- r1c5 {2,3} -3- r5c5 {3,1}: if r1c1 is not 1 it is 2, then r1c5 is 3 and
    r5c5 is 1; 1 leaves r5c1, which sees both ends. If the last cell is {3,4} nothing follows."""
    for last, expected in (((3, 1), {(cell(5, 1), 1)}), ((3, 4), set())):
        state = empty_state()
        only(state, cell(1, 1), (1, 2))
        only(state, cell(1, 5), (2, 3))
        only(state, cell(5, 5), last)
        _, elims = effects(checked(state, "bivalue-path"))
        assert elims == expected


def test_mixed_conflicting_paths():
    """If r1c1 {1,2} is not 1: the bilocation walk r1c1 -1- r1c5 -3- r6c5 makes r6c5 = 3, and
    r1c1 = 2 pulls r6c1 {2,3} to 3 along the bivalue edge; r6c1 and r6c5 share row 6. So
    r1c1 = 1, which neither graph finds alone. With r6c1 {2,4} there is no clash."""
    for pulled, expected in ((3, {(cell(1, 1), 1)}), (4, set())):
        state = empty_state()
        only(state, cell(1, 1), (1, 2))
        only(state, cell(6, 1), (2, pulled))
        keep_places(state, [cell(1, c) for c in range(1, 10)], {cell(1, 1), cell(1, 5)}, 1)
        keep_places(state, [cell(r, 5) for r in range(1, 10)], {cell(1, 5), cell(6, 5)}, 3)
        assert checked(state, "bilocal-conflicting-paths") == []
        assert checked(state, "bivalue-conflicting-paths") == []
        found = checked(state, "mixed-conflicting-paths")
        assert effects(found)[0] == expected
        if found:
            assert found[0].witness["conflict"] == {"kind": "pair"}
            assert sorted(map(tuple, found[0].witness["forced"])) == [(cell(6, 1), 3),
                                                                      (cell(6, 5), 3)]


def test_mixed_conflict_witness_rejects_a_wrong_claim():
    """The re-check is not a rubber stamp: the same witness with a forced pair altered fails."""
    state = empty_state()
    only(state, cell(1, 1), (1, 2))
    only(state, cell(6, 1), (2, 3))
    keep_places(state, [cell(1, c) for c in range(1, 10)], {cell(1, 1), cell(1, 5)}, 1)
    keep_places(state, [cell(r, 5) for r in range(1, 10)], {cell(1, 5), cell(6, 5)}, 3)
    ded, = RULES["mixed-conflicting-paths"].find(state)
    witness = dict(ded.witness, forced=[[cell(6, 1), 3], [cell(6, 6), 3]])
    assert deduction_problems(state, replace(ded, witness=witness))
    witness = dict(ded.witness, conflict={"kind": "unit", "unit": 5, "digit": 3})
    assert deduction_problems(state, replace(ded, witness=witness)) == []   # row 6: true
    witness = dict(ded.witness, conflict={"kind": "unit", "unit": 17, "digit": 3})
    assert deduction_problems(state, replace(ded, witness=witness))         # column 9: false
    witness = dict(ded.witness, conflict={"kind": "cell", "cell": cell(6, 9)})
    assert deduction_problems(state, replace(ded, witness=witness))
