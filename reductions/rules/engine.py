"""The rule registry and the engine: apply the lowest-level rule that makes progress, repeat.

Levels follow Eppstein 2005 §3 (local rules, then the two matching rules) with DDJ's pile
exclusion among the subset rules, Nishio (Eppstein 2012) after the matching rules, then the
nonlocal rules on the bilocation and bivalue graphs (§3.2–3.5), then the rules of Eppstein's
own program (PADS ``Sudoku.py``) that the paper only mentions: bilocation and bivalue paths
whose ends must hold one digit, and conflicting paths through both graphs at once (levels
17–19, after the paper's rules so that the paper's grades stay as they were). The *grade* of
a solved puzzle is the highest level it needed.

Soundness: every deduction a rule returns holds in the state it was found in, so applying a
whole batch is sound; the state only ever loses candidates. The result is

* ``solved`` — every cell placed; the grid is checked against the puzzle (a failure is a bug
  and raises);
* ``no solution`` — proved: an open cell lost every candidate, a digit lost every place in a
  unit, or a rule returned a contradiction (no perfect matching, empty Nishio(S));
* ``unknown`` — no selected rule makes progress; the remaining candidates are in the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ..errors import UserError
from ..sudoku.grid import Grid, check_solution
from .levels import MAX_LEVEL
from ..status import Status
from ..suggestions import unknown_name
from ..sudoku.candidates import CandidateState
from . import chain_paths, chains, local, matching
from .base import Deduction, Rule


class RuleError(UserError):
    """An unknown rule name or an impossible rule selection."""


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
    Rule("bilocal-path", 17, chain_paths.bilocal_path,
         "a bilocation path entering and leaving by one digit: it leaves cells seeing both ends",
         "PADS Sudoku.py (path)"),
    Rule("bivalue-path", 18, chain_paths.bivalue_path,
         "a bivalue path (XY-chain) whose ends must hold one digit: it leaves cells seeing both",
         "PADS Sudoku.py (path)"),
    Rule("mixed-conflicting-paths", 19, chain_paths.mixed_conflicting_paths,
         "bilocation and bivalue paths from a cell forcing a clash or emptying a unit or cell",
         "2005 §3.5; PADS Sudoku.py (conflict)"),
]}

if sorted(rule.level for rule in RULES.values()) != list(range(1, MAX_LEVEL + 1)):
    raise ImportError("the rules' levels must be 1..reductions.rules.levels.MAX_LEVEL, each once")
LOCAL_LEVEL = RULES["unit-matching"].level
"""The local and matching rules are the levels up to this one."""


def select_rules(names: Iterable[str] | None = None, max_level: int | None = None) -> list[Rule]:
    """The rules to use, by level: all, those up to ``max_level``, or the ``names`` given."""
    if names is not None and max_level is not None:
        raise RuleError("give rule names or a maximum level, not both")
    if names is not None:
        chosen = []
        for name in names:
            if name not in RULES:
                raise RuleError(unknown_name("rule", name, RULES, "rules"))
            chosen.append(RULES[name])
        if not chosen:
            raise RuleError("no rule selected")
        return sorted(set(chosen), key=lambda r: r.level)
    if max_level is not None and not 1 <= max_level <= MAX_LEVEL:
        raise RuleError(f"level {max_level} is out of range 1..{MAX_LEVEL}")
    top = MAX_LEVEL if max_level is None else max_level
    return sorted((r for r in RULES.values() if r.level <= top), key=lambda r: r.level)


@dataclass
class RulesResult:
    """What the engine reached: verdict, the final state, the steps taken (deductions that
    changed the state, in order) and why there is no solution (if so)."""

    verdict: Status
    state: CandidateState
    steps: list[Deduction] = field(default_factory=list)
    reason: str = ""

    def rules_used(self) -> dict[str, int]:
        """Steps per rule, in level order."""
        counts: dict[str, int] = {}
        for step in self.steps:
            counts[step.rule] = counts.get(step.rule, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: RULES[kv[0]].level))

    @property
    def level(self) -> int:
        """The highest rule level used (0 when no step was needed)."""
        return max((RULES[s.rule].level for s in self.steps), default=0)

    @property
    def hardest_rule(self) -> str | None:
        top = self.level
        return next((s.rule for s in self.steps if RULES[s.rule].level == top), None)


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
    made = state.place_pairs([pair for d in found for pair in d.placements])
    applied = []
    for d in found:
        (cell, digit), = d.placements
        if made.get(cell) == digit:
            del made[cell]                  # a cell found twice: the first deduction
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
