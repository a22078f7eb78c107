"""The ``sudoku-bridge`` command line.

Commands (``sudoku-bridge COMMAND --help`` for each):

* ``solve PUZZLE --via ROUTE`` — solve through a reduction, decode, verify, print the grid;
* ``emit TARGET PUZZLE -o FILE`` — write the reduced instance for an outside solver;
* ``decode TARGET FILE ANSWER`` — turn an outside solver's answer back into a grid;
* ``verify PUZZLE GRID`` — check a grid against a puzzle;
* further groups (``crosscheck``, ``gadget``, ...) are added by the modules named in
  :data:`COMMAND_MODULES`, each through its ``register(commands)`` function.

PUZZLE is the puzzle text itself (e.g. an 81-character line) or a file of puzzles, one per
line (or one multi-line grid).

Exit codes (:data:`EXIT_CODES`): 0 solved / ok, 1 no solution, 2 bad input or usage (one
line on stderr, no traceback), 3 unknown (time limit, heuristic found nothing), 4 a mismatch
or a wrong answer was found, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from reductions.errors import UserError
from reductions.grid import (Grid, Shape, format_grid, load_puzzles, parse_grid, puzzle_texts,
                             solution_problems)

from .outcome import NO_SOLUTION, SOLVED, UNKNOWN, Outcome, WrongAnswer

EXIT_OK = 0
EXIT_NO_SOLUTION = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_MISMATCH = 4
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    EXIT_OK: "solved / success",
    EXIT_NO_SOLUTION: "no solution (proved)",
    EXIT_BAD_INPUT: "bad input, bad usage, or a solver that cannot be run",
    EXIT_UNKNOWN: "unknown: time limit reached or a heuristic found nothing",
    EXIT_MISMATCH: "a wrong answer or a disagreement between routes was found",
    EXIT_INTERRUPTED: "interrupted",
}

# Modules adding command groups or solving routes; each has register(commands).
COMMAND_MODULES = [
    "solvers.cli_sat",
    "solvers.cli_exact_cover_ilp",
    "solvers.cli_hcp",
    "solvers.cli_hcp_solve",
    "solvers.cli_nishio",
    "solvers.cli_nonrepetitive",
    "solvers.cli_crosscheck",
]


@dataclass
class Commands:
    """The parsers that command modules extend.

    ``emit`` / ``decode`` / ``gadget`` are sub-parser collections (add a target with
    ``commands.emit.add_parser(...)``); ``solve`` is the ``solve`` parser itself (add route
    options to it); ``routes`` maps ``--via`` names to functions
    ``(puzzle: Grid, args) -> Outcome``; ``batch_routes`` optionally gives a route a faster
    path for files of many puzzles, ``(texts, args) -> iterator of Solved`` in input order;
    ``top`` adds whole new commands.
    """

    top: Any
    solve: argparse.ArgumentParser
    emit: Any
    decode: Any
    gadget: Any
    routes: dict[str, Callable[[Grid, argparse.Namespace], Outcome]] = field(default_factory=dict)
    batch_routes: dict[str, Callable[[list[tuple[str, str]], argparse.Namespace],
                                     Iterator["Solved"]]] = field(default_factory=dict)


# ----------------------------------------------------------------------------- helpers
# Small pieces shared by every command module.

def add_shape_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--box", metavar="AxB", type=_shape_arg,
                        help="block shape, rows x columns (default: square, or the most "
                             "square a×b for non-square N, e.g. 2x3 for 6×6)")


def _shape_arg(text: str) -> Shape:
    try:
        return Shape.parse(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def read_puzzle_arg(args: argparse.Namespace, single: bool = False) -> list[tuple[str, Grid]]:
    """The puzzles named by ``args.puzzle`` (literal text or a file)."""
    puzzles = load_puzzles(args.puzzle, getattr(args, "box", None))
    if single and len(puzzles) != 1:
        raise UserError(f"{args.puzzle}: holds {len(puzzles)} puzzles; this command takes one")
    return puzzles


def print_grid(grid: Grid, out=None) -> None:
    out = out or sys.stdout
    style = "pretty" if grid.size <= 35 else "ints"
    print(format_grid(grid, style), file=out)


def grid_text(grid: Grid | None) -> str | None:
    return None if grid is None else format_grid(grid, "auto")


class Progress:
    """A one-line progress display on stderr, shown only when stderr is a terminal."""

    def __init__(self, total: int, label: str = "", enabled: bool | None = None):
        self.total = total
        self.label = label
        self.done = 0
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0

    def step(self, count: int = 1) -> None:
        self.done += count
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.2 or self.done == self.total):
            self._last = now
            rate = self.done / max(now - self.start, 1e-9)
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                             f"{self.done}/{self.total} {rate:,.0f}/s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def outcome_record(label: str, puzzle: Grid | str, outcome: Outcome,
                   route: str) -> dict[str, Any]:
    """The JSON-lines record of one solved puzzle."""
    return {
        "puzzle_id": label,
        "puzzle": puzzle if isinstance(puzzle, str) else grid_text(puzzle),
        "route": route,
        "status": outcome.status,
        "solution": grid_text(outcome.grid),
        "unique": outcome.unique,
        "second_solution": grid_text(outcome.second),
        "stats": outcome.stats,
    }


def exit_code_for(statuses: list[str]) -> int:
    if UNKNOWN in statuses:
        return EXIT_UNKNOWN
    if NO_SOLUTION in statuses:
        return EXIT_NO_SOLUTION
    return EXIT_OK


# ----------------------------------------------------------------------------- solve

@dataclass
class Solved:
    """One puzzle's result as the solve command reports it."""

    label: str
    text: str                     # the puzzle as given
    outcome: Outcome | None       # None when the puzzle could not be read
    error: str | None = None


def solve_each(texts: list[tuple[str, str]], args: argparse.Namespace,
               route: Callable[[Grid, argparse.Namespace], Outcome]) -> Iterator[Solved]:
    """The generic path: parse and solve the puzzles one by one."""
    shape = getattr(args, "box", None)
    for label, text in texts:
        where = "" if label == "puzzle" else f"{label}: "
        try:
            puzzle = parse_grid(text, shape, where=where)
        except UserError as exc:
            yield Solved(label, text, None, str(exc))
            continue
        yield Solved(label, format_grid(puzzle, "auto"), route(puzzle, args))


def run_solve(args: argparse.Namespace, commands: "Commands") -> int:
    texts = puzzle_texts(args.puzzle, getattr(args, "box", None))
    if len(texts) == 1 and texts[0][0] == "puzzle":
        # A literal puzzle: a reading error is the command's error (one line, exit 2).
        parse_grid(texts[0][1], getattr(args, "box", None))
    many = len(texts) > 1
    batch = commands.batch_routes.get(args.via) if many else None
    results = batch(texts, args) if batch else solve_each(texts, args, commands.routes[args.via])
    progress = Progress(len(texts), f"solve --via {args.via}") if many else None
    statuses = []
    errors = 0
    for item in results:
        if item.outcome is None:
            errors += 1
            print(f"sudoku-bridge: error: {item.error}", file=sys.stderr)
            if args.json:
                print(json.dumps({"puzzle_id": item.label, "puzzle": item.text,
                                  "route": args.via, "status": "error", "error": item.error}))
            elif many:
                print("error")
        else:
            statuses.append(item.outcome.status)
            if args.json:
                print(json.dumps(outcome_record(item.label, item.text, item.outcome, args.via)))
            elif many:
                grid = item.outcome.grid
                print(format_grid(grid, "auto").replace("\n", " ") if grid is not None
                      else item.outcome.status)
            else:
                report_outcome(item.outcome, args)
        if progress:
            progress.step()
    if progress:
        progress.close()
    if many:
        summary = {s: statuses.count(s) for s in (SOLVED, NO_SOLUTION, UNKNOWN)}
        summary["bad input"] = errors
        print("solved {solved}, no solution {no solution}, unknown {unknown}, "
              "bad input {bad input}".format(**summary), file=sys.stderr)
    if errors:
        return EXIT_BAD_INPUT
    return exit_code_for(statuses)


def report_outcome(outcome: Outcome, args: argparse.Namespace) -> None:
    if outcome.status == SOLVED:
        print_grid(outcome.grid)
        if outcome.unique is True:
            print("unique: yes (no second solution exists)")
        elif outcome.unique is False:
            print("unique: no — a second solution:")
            print_grid(outcome.second)
        elif getattr(args, "unique", False):
            print("unique: unknown (the uniqueness check did not finish)")
    elif outcome.status == NO_SOLUTION:
        print("no solution: the puzzle has no valid completion")
    else:
        reason = outcome.stats.get("reason", "")
        print(f"unknown: no answer{': ' + reason if reason else ''}")


# ----------------------------------------------------------------------------- verify

def run_verify(args: argparse.Namespace) -> int:
    puzzle = read_puzzle_arg(args, single=True)[0][1]
    grids = load_puzzles(args.grid, puzzle.shape, check=False)
    if len(grids) != 1:
        raise UserError(f"{args.grid}: holds {len(grids)} grids; verify takes one")
    problems = solution_problems(puzzle, grids[0][1])
    if problems:
        for p in problems:
            print(f"invalid: {p}")
        return EXIT_MISMATCH
    print("valid: the grid is a solution of the puzzle")
    return EXIT_OK


# ----------------------------------------------------------------------------- parser

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sudoku-bridge",
        description="Reduce Sudoku to SAT, exact cover, ILP and Hamiltonian cycle; solve, "
                    "decode, verify and cross-check. NP-hardness gadgets from 3SAT.",
        epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()))
    top = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    solve = top.add_parser("solve", help="solve puzzles through a reduction",
                           description="Solve through a reduction; every answer is decoded "
                                       "and verified against the puzzle before it is printed.")
    solve.add_argument("puzzle", help="puzzle text, or a file with one puzzle per line")
    add_shape_option(solve)
    solve.add_argument("--via", default="sat", help="route (default: sat)")
    solve.add_argument("--unique", action="store_true",
                       help="also look for a second solution")
    solve.add_argument("--time-limit", type=float, metavar="S",
                       help="seconds per puzzle; past it the answer is 'unknown'")
    solve.add_argument("--json", action="store_true",
                       help="print one JSON record per puzzle (JSON lines)")

    emit = top.add_parser("emit", help="write a reduced instance to a file")
    emit_targets = emit.add_subparsers(dest="target", required=True, metavar="TARGET")
    decode = top.add_parser("decode", help="decode an outside solver's answer into a grid")
    decode_targets = decode.add_subparsers(dest="target", required=True, metavar="TARGET")
    gadget = top.add_parser("gadget", help="NP-hardness gadgets built from 3-CNF formulas")
    gadget_kinds = gadget.add_subparsers(dest="gadget", required=True, metavar="GADGET")

    verify = top.add_parser("verify", help="check a grid against a puzzle")
    verify.add_argument("puzzle", help="the puzzle (text or file)")
    verify.add_argument("grid", help="the proposed solution (text or file)")
    add_shape_option(verify)
    verify.set_defaults(run=run_verify)

    commands = Commands(top=top, solve=solve, emit=emit_targets, decode=decode_targets,
                        gadget=gadget_kinds)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    solve.set_defaults(run=lambda args: run_solve(args, commands))
    for action in solve._actions:
        if action.dest == "via":
            action.choices = sorted(commands.routes)
            action.help = f"route: {', '.join(sorted(commands.routes))} (default: sat)"
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except UserError as exc:
        print(f"sudoku-bridge: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except WrongAnswer as exc:
        print(f"sudoku-bridge: WRONG ANSWER: {exc}", file=sys.stderr)
        return EXIT_MISMATCH
    except KeyboardInterrupt:
        print("sudoku-bridge: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: not an error
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
