"""The engine as it was before issue 27 (the same loop as :func:`reductions.rules.engine.deduce`, on
the numpy state of :mod:`.state` with the reference rules); levels and names as in
:data:`reductions.rules.engine.RULES`."""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from reductions.sudoku.grid import Grid, check_solution
from reductions.rules.base import Deduction, Rule
from reductions.rules.engine import MAX_LEVEL, RuleError, RulesResult
from reductions.status import Status

from . import chains, local, matching
from .state import CandidateState

RULES: dict[str, Rule] = {rule.name: rule for rule in [
    Rule("hidden-single", 1, local.hidden_singles,
         "a digit with one cell left in a row, column or block goes there", "2005 §3.1"),
    Rule("naked-single", 2, local.naked_singles,
         "a cell with one candidate left gets it", "2005 §3.1"),
    Rule("pointing", 3, local.pointing,
         "a block's cells for a digit in one line: the digit leaves the rest of the line",
         "2005 §3.1 (align)"),
    Rule("claiming", 4, local.claiming,
         "a line's cells for a digit in one block: the digit leaves the rest of the block",
         "2005 §3.1 (align)"),
    Rule("hidden-pair", 5, local.hidden_pairs,
         "two digits confined to the same two cells of a unit: other digits leave them",
         "2005 §3.1 (pair)"),
    Rule("line-block-triple", 6, local.line_block_triples,
         "the cells where a line meets a block and as many digits confined to them",
         "2005 §3.1 (triple)"),
    Rule("pile-exclusion", 7, local.pile_exclusion,
         "k digits whose cells in a unit are the same k cells: other digits leave them",
         "DDJ 2006 (pile)"),
    Rule("digit-matching", 8, matching.digit_matching,
         "per digit, rows x columns perfect matching + strong components (Hall sets)",
         "2005 §3.1; blog 2005"),
    Rule("unit-matching", 9, matching.unit_matching,
         "per unit, digits x cells perfect matching + strong components (naked sets)",
         "2005 §3.1; DDJ 2006 (chain exclusion)"),
    Rule("nishio", 10, matching.nishio_rule,
         "per digit, cells in no valid placement inside the digit's candidates (DAG)",
         "2012 §3"),
    Rule("bilocal-cycle", 11, chains.bilocal_cycle,
         "a cell on a nonrepetitive cycle of the bilocation graph holds one of its two labels",
         "2005 §3.2, Lemma 6"),
    Rule("bilocal-repetitive-cycle", 12, chains.bilocal_repetitive_cycle,
         "a bilocation cycle repeating one label at a cell: the cell holds that label",
         "2005 §3.3, Lemma 7"),
    Rule("bilocal-conflicting-paths", 13, chains.bilocal_conflicting_paths,
         "two bilocation paths from a cell forcing a conflict: the cell holds the start label",
         "2005 §3.4, Lemma 8"),
    Rule("bivalue-cycle", 14, chains.bivalue_cycle,
         "an edge on a nonrepetitive bivalue cycle: its digit is at one of its ends",
         "2005 §3.5"),
    Rule("bivalue-repetitive-cycle", 15, chains.bivalue_repetitive_cycle,
         "a bivalue cycle repeating one label at a cell: the cell does not hold it",
         "2005 §3.5"),
    Rule("bivalue-conflicting-paths", 16, chains.bivalue_conflicting_paths,
         "two bivalue paths from a cell forcing a conflict: the cell avoids the start label",
         "2005 §3.5"),
    Rule("bilocal-path", 17, chains.bilocal_path,
         "a bilocation path entering and leaving by one digit: it leaves cells seeing both ends",
         "PADS Sudoku.py (path)"),
    Rule("bivalue-path", 18, chains.bivalue_path,
         "a bivalue path (XY-chain) whose ends must hold one digit: it leaves cells seeing both",
         "PADS Sudoku.py (path)"),
    Rule("mixed-conflicting-paths", 19, chains.mixed_conflicting_paths,
         "bilocation and bivalue paths from a cell forcing a clash or emptying a unit or cell",
         "2005 §3.5; PADS Sudoku.py (conflict)"),
]}

def select_rules(names: Iterable[str] | None = None, max_level: int | None = None) -> list[Rule]:
    """The rules to use, by level: all, those up to ``max_level``, or the ``names`` given."""
    if names is not None and max_level is not None:
        raise RuleError("give rule names or a maximum level, not both")
    if names is not None:
        chosen = []
        for name in names:
            if name not in RULES:
                raise RuleError(f"unknown rule {name!r}; rules: {', '.join(RULES)}")
            chosen.append(RULES[name])
        if not chosen:
            raise RuleError("no rule selected")
        return sorted(set(chosen), key=lambda r: r.level)
    if max_level is not None and not 1 <= max_level <= MAX_LEVEL:
        raise RuleError(f"level {max_level} is out of range 1..{MAX_LEVEL}")
    top = MAX_LEVEL if max_level is None else max_level
    return sorted((r for r in RULES.values() if r.level <= top), key=lambda r: r.level)


Trace = Callable[[CandidateState, list[Deduction]], None]


def apply(state: CandidateState, deduction: Deduction) -> int:
    """Apply one deduction; returns how many placements and eliminations changed the state."""
    changed = 0
    if deduction.placements:
        cells, digits = zip(*deduction.placements)
        changed += state.place(list(cells), list(digits))
    if deduction.eliminations:
        cells, digits = zip(*deduction.eliminations)
        changed += state.eliminate(list(cells), list(digits))
    return changed


def place_batch(state: CandidateState, found: list[Deduction]) -> list[Deduction]:
    """Apply placement-only deductions together (one peer update); returns those that placed
    their digit (a cell found twice keeps the first). Two placements of one digit in one unit
    both land and the contradiction check reports them."""
    before = state.values.reshape(-1).copy()
    cells = [c for d in found for c, _ in d.placements]
    digits = [v for d in found for _, v in d.placements]
    state.place(cells, digits)
    after = state.values.reshape(-1)
    applied, seen = [], set()
    for d in found:
        (cell, digit), = d.placements
        if before[cell] == 0 and after[cell] == digit and cell not in seen:
            seen.add(cell)
            applied.append(d)
    return applied


def deduce(puzzle: Grid, rules: Sequence[Rule] | None = None, trace: Trace | None = None,
           max_steps: int | None = None) -> RulesResult:
    """Run the rules on ``puzzle`` until solved, a contradiction, or no progress.

    ``trace(state, deductions)`` is called with a copy of the state before each batch a rule
    returns (tests re-check every witness against it). ``max_steps`` stops early (unknown).
    """
    rules = list(rules) if rules is not None else select_rules()
    state = CandidateState.from_puzzle(puzzle)
    result = RulesResult(Status.UNKNOWN, state)
    problem = state.placed_twice() or state.contradiction()
    if problem is not None:
        result.verdict, result.reason = Status.NO_SOLUTION, problem.describe(puzzle.shape)
        return result
    while not state.is_solved():
        if max_steps is not None and len(result.steps) >= max_steps:
            result.reason = f"stopped after {max_steps} steps"
            return result
        progress = False
        for rule in rules:
            found = rule.find(state)
            if not found:
                continue
            if trace is not None:
                trace(state.copy(), found)
            if all(d.placements and not d.eliminations for d in found):
                applied = place_batch(state, found)        # singles: one vectorised update
                result.steps.extend(applied)
                progress = bool(applied)
                digits = [d.placements[0][1] for d in applied]
                twice = state.placed_twice() if len(set(digits)) < len(digits) else None
                if twice is not None:
                    result.verdict = Status.NO_SOLUTION
                    result.reason = twice.describe(puzzle.shape)
                    return result
            for deduction in found if not progress else ():
                if deduction.contradiction:
                    result.steps.append(deduction)
                    result.verdict, result.reason = Status.NO_SOLUTION, deduction.why
                    return result
                if apply(state, deduction):
                    result.steps.append(deduction)
                    progress = True
            if progress:
                break
        if not progress:
            result.reason = "no rule makes progress"
            return result
        problem = state.contradiction()
        if problem is not None:
            result.verdict, result.reason = Status.NO_SOLUTION, problem.describe(puzzle.shape)
            return result
    grid = state.grid()
    if not check_solution(puzzle, grid):      # cannot happen with sound rules: a bug
        raise RuntimeError(f"the rules reached a wrong grid for {puzzle!r}: {grid!r}")
    result.verdict = Status.SOLVED
    return result
