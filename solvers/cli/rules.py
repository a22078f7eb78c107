"""CLI for the rule-based solver: ``sudoku-bridge rules PUZZLE``.

* ``rules PUZZLE [--max-level L | --rules a,b,c] [--explain] [--json]`` — deduce with
  Eppstein's rules (:mod:`reductions.rules`): print the grid reached (solved, or the open
  cells' candidates when the rules get stuck); ``--explain`` prints every step in words
  first. Exit 0 solved, 1 no solution (proved by a rule), 3 unknown (stuck).
* A file of puzzles: one line per puzzle (status, grade, grid) — after its name and its
  steps with ``--explain``, as ``--json`` gives every puzzle its steps — or one JSON record
  each (``--json``), in input order, and a summary on stderr: solved per hardest level, steps per
  rule. ``--jobs N`` deduces the file on N worker processes
  (:func:`solvers.routes.deduction.grade_in_order`).
* ``rules --list`` prints the rules with their levels and sources.

Nothing here guesses: "unknown" means the selected rules made no further progress.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reductions.errors import UserError
from reductions.sudoku.grid import format_grid, parse_grid
from reductions.sudoku.puzzle_files import puzzle_texts
from reductions.rules.levels import MAX_LEVEL

from ..routes import options as route_options
from ..outcome import Status
from . import common
from .parser import COMMAND_SUMMARIES
from .common import ExitCode

if TYPE_CHECKING:
    from reductions.sudoku.grid import Shape
    from reductions.rules.engine import RulesResult


def _rule_names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def result_record(label: str, puzzle_text: str, result: RulesResult) -> dict:
    """The JSON record of one puzzle."""
    state = result.state
    shape = state.shape
    record = {
        "puzzle_id": label,
        "puzzle": puzzle_text,
        "status": result.verdict,
        "grid": format_grid(state.grid(), "auto").replace("\n", " "),
        "level": result.level,
        "hardest_rule": result.hardest_rule,
        "rules_used": result.rules_used(),
        "reason": result.reason or None,
        "steps": [step.record(shape) for step in result.steps],
    }
    if result.verdict == Status.UNKNOWN:
        record["candidates"] = [state.candidates_of(c) for c in range(shape.size ** 2)]
    return record


def explanation(result: RulesResult) -> list[str]:
    """Every step of a deduction in words, numbered: rule, cells, why."""
    shape = result.state.shape
    return [f"{number}. {step.rule}: {step.summary(shape)} -- {step.why}"
            for number, step in enumerate(result.steps, 1)]


def print_single(result: RulesResult) -> None:
    state = result.state
    if result.verdict == Status.SOLVED:
        common.print_grid(state.grid())
        print(f"solved by rules up to level {result.level} (hardest rule: "
              f"{result.hardest_rule or 'none'}), {len(result.steps)} steps")
    elif result.verdict == Status.NO_SOLUTION:
        print(f"no solution: {result.reason}")
    else:
        print(state.candidates_text())
        open_cells = int((state.values == 0).sum())
        print(f"unknown: {result.reason}; {open_cells} open cells, "
              f"{state.candidate_count() - (state.size ** 2 - open_cells)} candidates left")


@dataclass
class Graded:
    """One puzzle of a file as the command prints and counts it (made in a worker process
    with ``--jobs``): ``status`` None when the text could not be read (``error`` says why);
    the grade (``level``, ``hardest_rule``) counts for solved puzzles only."""

    status: Status | None
    printed: str
    error: str | None = None
    level: int = 0
    hardest_rule: str | None = None
    rules_used: dict[str, int] = field(default_factory=dict)


def grade_text(label: str, text: str, *, box: Shape | None, names: list[str] | None,
               max_level: int | None, as_json: bool, explain: bool = False) -> Graded:
    """Read and deduce one puzzle of a file; its output line (or JSON record) and counts.
    With ``explain`` (and not ``as_json``, whose record holds the steps anyway) the line
    comes after a header naming the puzzle and its steps in words."""
    from reductions.rules.engine import deduce, select_rules
    where = "" if label == "puzzle" else f"{label}: "
    header = [f"{label}:"] if explain and not as_json else []
    try:
        puzzle = parse_grid(text, box, where=where)
    except UserError as exc:
        printed = json.dumps({"puzzle_id": label, "puzzle": text, "status": "error",
                              "error": str(exc)}) if as_json else "\n".join(header + ["error"])
        return Graded(None, printed, str(exc))
    result = deduce(puzzle, select_rules(names, max_level))
    status = result.verdict
    if as_json:
        printed = json.dumps(result_record(label, format_grid(puzzle, "auto"), result))
    else:
        grade = f"level {result.level} {result.hardest_rule or '-'}"
        grid = format_grid(result.state.grid(), "auto").replace("\n", " ")
        steps = explanation(result) if header else []
        printed = "\n".join(header + steps + [f"{label}\t{status}\t{grade}\t{grid}"])
    return Graded(status, printed, None, result.level, result.hardest_rule,
                  result.rules_used())


def run_rules(args: argparse.Namespace) -> int:
    from reductions.rules.engine import RULES, deduce, select_rules
    from ..routes.deduction import grade_in_order
    if args.list:
        for rule in sorted(RULES.values(), key=lambda r: r.level):
            print(f"{rule.level:>2}  {rule.name:<26} {rule.summary} [{rule.source}]")
        return ExitCode.OK
    if args.puzzle is None:
        raise UserError("rules needs a PUZZLE (text or file), or --list")
    names = _rule_names(args.rules) if args.rules is not None else None
    rules = select_rules(names, args.max_level)
    texts = puzzle_texts(args.puzzle, args.box, memory_limit=common.memory_limit(args))
    if len(texts) == 1:
        label, text = texts[0]
        where = "" if label == "puzzle" else f"{label}: "
        puzzle = parse_grid(text, args.box, where=where)
        result = deduce(puzzle, rules)
        if args.json:
            print(json.dumps(result_record(label, format_grid(puzzle, "auto"), result)))
        else:
            for line in explanation(result) if args.explain else []:
                print(line)
            print_single(result)
        return common.exit_code_for([result.verdict])
    grade = functools.partial(grade_text, box=args.box, names=names,
                              max_level=args.max_level, as_json=args.json,
                              explain=args.explain)
    statuses, errors = [], 0
    by_level: Counter = Counter()
    rule_steps: Counter = Counter()
    hardest: Counter = Counter()
    progress = common.Progress(len(texts), "rules", asked=args.progress, unit="puzzle")
    for item in grade_in_order(texts, grade, jobs=args.jobs):
        if item.status is None:
            errors += 1
            print(f"sudoku-bridge: error: {item.error}", file=sys.stderr)
        else:
            statuses.append(item.status)
            rule_steps.update(item.rules_used)
            if item.status == Status.SOLVED:
                by_level[item.level] += 1
                hardest[item.hardest_rule or "none"] += 1
        print(item.printed)
        progress.step()
    progress.close()
    counts = Counter(statuses)
    print(f"solved {counts[Status.SOLVED]}, no solution {counts[Status.NO_SOLUTION]}, "
          f"unknown {counts[Status.UNKNOWN]}, bad input {errors}", file=sys.stderr)
    levels = ", ".join(f"{level}: {count}" for level, count in sorted(by_level.items()))
    print(f"solved by hardest level: {levels or '-'}", file=sys.stderr)
    grades = ", ".join(f"{name} {count}" for name, count in
                       sorted(hardest.items(), key=lambda kv: RULES[kv[0]].level
                              if kv[0] in RULES else 0))
    print(f"hardest rule needed: {grades or '-'}", file=sys.stderr)
    used = ", ".join(f"{name} {count}" for name, count in
                     sorted(rule_steps.items(), key=lambda kv: RULES[kv[0]].level))
    print(f"steps per rule: {used or '-'}", file=sys.stderr)
    if errors:
        return ExitCode.BAD_INPUT
    return common.exit_code_for(statuses)


def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group("rules route (solve --via rules)")
    common.add_route_options(group, route_options.DEDUCTION.options)
    parser = commands.top.add_parser(
        "rules", help=COMMAND_SUMMARIES["rules"],
        description="Deduce with polynomial-time rules, lowest level first: singles, locked "
                    "candidates, subsets, the two matching rules, Nishio, and the "
                    "nonrepetitive-path rules on the bilocation and bivalue graphs, then "
                    "the path and mixed conflicting-path rules of Eppstein's PADS solver. "
                    "Prints "
                    "the grid reached. Exit 0 solved, 1 no solution (proved), 3 unknown "
                    "(no rule makes progress). Never guesses.")
    parser.add_argument("puzzle", nargs="?", help="puzzle text, or a file of puzzles")
    common.add_shape_option(parser)
    choose = parser.add_mutually_exclusive_group()
    choose.add_argument("--max-level", type=int, metavar="L",
                        help=f"use the rules of levels 1..L (1..{MAX_LEVEL}; default all)")
    choose.add_argument("--rules", metavar="a,b,c",
                        help="use only these rules (names as in --list)")
    parser.add_argument("--explain", action="store_true",
                        help="print every step in words (rule, cells, why) before the grid; "
                             "for a file, each puzzle's name and steps before its line "
                             "(--json records always hold the steps)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON record per puzzle: status, grid, level, rules_used, "
                             "steps (with witnesses)")
    parser.add_argument("--list", action="store_true", help="list the rules and levels")
    parser.add_argument("--jobs", type=common.positive_int_arg,
                        default=min(2, os.cpu_count() or 1),
                        help="processes for a file of many puzzles (default: 2; results stay "
                             "in input order)")
    common.add_progress_option(parser)
    parser.set_defaults(run=run_rules)
