"""What every command module shares: the exit-code contract, the parsers they extend, and
small helpers for puzzles, grids and progress."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from reductions.errors import UserError
from reductions.sudoku.grid import Grid, Shape, format_grid, solution_problems
from reductions.sudoku.puzzle_files import load_puzzles

from reductions.reading import STDIN

from ..formats.atomic import STDOUT
from ..runtime.memory import default_limit, parse_size
from ..outcome import Outcome, Status
from ..routes.options import RouteOption
from .exit_codes import EXIT_MEANINGS, ExitCode  # noqa: F401 - the commands' vocabulary


def exit_code_for(statuses: list[Status]) -> ExitCode:
    """The exit code of a run that answered ``statuses`` (unknown beats no solution)."""
    if Status.UNKNOWN in statuses:
        return ExitCode.UNKNOWN
    if Status.NO_SOLUTION in statuses:
        return ExitCode.NO_SOLUTION
    return ExitCode.OK


@dataclass
class Solved:
    """One puzzle's result as the solve command reports it."""

    label: str
    text: str                     # the puzzle as given
    outcome: Outcome | None       # None when the puzzle could not be read
    error: str | None = None


UNIQUE_WORDS = {True: "unique", False: "not unique", None: "uniqueness unknown"}


def batch_line(outcome: Outcome, unique: bool) -> str:
    """The line printed for one puzzle of a file: the grid (or the status), then with
    ``--unique`` a tab and the verdict (the second solution is in the --json records)."""
    grid = outcome.grid
    if grid is None:
        return outcome.status
    line = format_grid(grid, "auto").replace("\n", " ")
    return f"{line}\t{UNIQUE_WORDS[outcome.unique]}" if unique else line


@dataclass
class SolvedLines:
    """Consecutive puzzles of a batch, all solved and verified, as the lines ``solve`` prints
    for them (one per puzzle, each ending in a newline): the batch path formats them in one
    array operation instead of one Grid a puzzle."""

    text: str
    count: int


@dataclass
class Commands:
    """The parsers that command modules extend (each module has ``register(commands)``).

    ``emit`` / ``decode`` / ``gadget`` are sub-parser collections (add a target with
    ``commands.emit.add_parser(...)``); ``solve`` is the ``solve`` parser itself (add the
    options of a route family to it; they must default to None, so that an option given for
    the wrong route can be refused); ``top`` adds whole new commands.
    """

    top: Any
    solve: argparse.ArgumentParser
    emit: Any
    decode: Any
    gadget: Any


def add_shape_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--box", metavar="AxB", type=_shape_arg,
                        help="block shape, rows x columns (default: square, or the most "
                             "square a×b for non-square N, e.g. 2x3 for 6×6)")


def _shape_arg(text: str) -> Shape:
    try:
        return Shape.parse(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value < 10**9:        # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 or more seconds (below 10^9)")
    return value


def positive_int_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 4096:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number from 1 to 4096")
    return value


def add_memory_option(parser: argparse.ArgumentParser) -> None:
    """``--max-memory SIZE``: the limit every construction of the command is estimated
    against before it is built (default: a safe share of this machine)."""
    parser.add_argument("--max-memory", metavar="SIZE",
                        help="refuse, before building, anything estimated to need more memory "
                             "than this (e.g. 512M, 8G; K/M/G/T are powers of 1024; default: "
                             "half of this machine's memory, less when less is available or "
                             "a ulimit is set)")


def read_memory_option(args: argparse.Namespace) -> None:
    """Turn ``--max-memory SIZE`` into bytes, or refuse it in one line (main calls this
    before any command runs; argparse's own errors would print the usage too)."""
    if isinstance(getattr(args, "max_memory", None), str):
        args.max_memory = parse_size(args.max_memory)


INPUT_ARGUMENTS = ("puzzle", "puzzles", "grid", "cnf", "model", "matrix", "answer", "solution",
                   "graph", "tour", "cells", "formula", "files")
"""The destinations of every command's input-file arguments; each may be ``-``, standard
input (read by :mod:`reductions.reading`)."""


def check_one_stdin(args: argparse.Namespace) -> None:
    """Refuse ``-`` for more than one input: standard input can be read only once."""
    given = [name for name in INPUT_ARGUMENTS
             for value in _listed(getattr(args, name, None)) if value == STDIN]
    if len(given) > 1:
        raise UserError(f"'-' (standard input) is given {len(given)} times "
                        f"({', '.join(dict.fromkeys(given))}); it can be read by one input only, "
                        f"give the others as files")


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def memory_limit(args: argparse.Namespace) -> int:
    """The memory limit of this run in bytes: ``--max-memory``, or the machine's default."""
    given = getattr(args, "max_memory", None)
    return given if given is not None else default_limit()


def read_puzzle_arg(args: argparse.Namespace, single: bool = False) -> list[tuple[str, Grid]]:
    """The puzzles named by ``args.puzzle`` (literal text or a file)."""
    puzzles = load_puzzles(args.puzzle, getattr(args, "box", None),
                           memory_limit=memory_limit(args))
    if single and len(puzzles) != 1:
        raise UserError(f"{args.puzzle}: holds {len(puzzles)} puzzles; this command takes one")
    return puzzles


def report_stream(output: str):
    """Where a command that writes ``output`` reports what it wrote: stdout, unless the
    output itself goes there (``-o -``), then stderr."""
    return sys.stderr if output == STDOUT else sys.stdout


def print_grid(grid: Grid, out=None) -> None:
    out = out or sys.stdout
    style = "pretty" if grid.size <= 35 else "ints"
    print(format_grid(grid, style), file=out)


def grid_text(grid: Grid | None) -> str | None:
    return None if grid is None else format_grid(grid, "auto")


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
        **({"certified": outcome.stats["certified"]} if "certified" in outcome.stats else {}),
        "stats": outcome.stats,
    }


RECORD_MARK = "\x00"
"""Stands in :func:`solved_records`' template for a value that each record has its own."""


def solved_records(*, source: str, route: str, unique: bool | None, stats: dict[str, Any]
                   ) -> Callable[[Sequence[int], str, str, Sequence[int], Sequence[float]], str]:
    """The JSON lines of consecutive solved puzzles of the file ``source``, made from one
    template: ``records(numbers, puzzles, solutions, clauses, seconds)`` is, byte for byte,
    what ``json.dumps(outcome_record(f"{source}:{number}", puzzle, outcome, route))`` prints
    for each (a newline after each), where the outcome is solved with no second solution,
    ``unique`` alike for all, and its stats are ``stats`` with the record's own ``clauses``
    and ``seconds`` in place of the :data:`RECORD_MARK` that ``stats`` holds for them (in
    that order). ``puzzles`` and ``solutions`` hold the one-line texts end to end.

    The template is :func:`outcome_record`'s own record dumped once with the mark in place
    of every value that varies or comes from the user (the label, the puzzle, the route,
    the solution, the clauses and the seconds), so that the two cannot drift apart, and
    nothing a user typed can be mistaken for a mark. It is correct because JSON escapes a
    string character by character: the escaped ``source:`` followed by the digits of a
    number is the escaped label, and a float is written as ``repr`` writes it. The puzzle
    texts and solutions are put in unescaped, so they must need no escaping: one-line grids
    of ASCII letters, digits and ``.`` (what the batch path's fast one-line parser
    accepts)."""
    record = outcome_record(RECORD_MARK, RECORD_MARK,
                            Outcome(Status.SOLVED, None, unique, None, stats), RECORD_MARK)
    record["solution"] = RECORD_MARK
    parts = json.dumps(record).split(json.dumps(RECORD_MARK))
    if len(parts) != 7:
        raise ValueError(f"solved_records: {len(parts) - 1} marks in the template, not 6")
    # The fixed text between the values, each string value's quotes included.
    before_number = parts[0] + json.dumps(f"{source}:")[:-1]     # the source escaped
    before_puzzle = f'"{parts[1]}"'
    before_solution = f'"{parts[2]}{json.dumps(route)}{parts[3]}"'
    before_clauses = f'"{parts[4]}'
    before_seconds, end = parts[5], parts[6] + "\n"

    def records(numbers: Sequence[int], puzzles: str, solutions: str, clauses: Sequence[int],
                seconds: Sequence[float]) -> str:
        width = len(solutions) // max(len(numbers), 1)
        return "".join([f"{before_number}{number}{before_puzzle}"
                        f"{puzzles[k * width:(k + 1) * width]}{before_solution}"
                        f"{solutions[k * width:(k + 1) * width]}{before_clauses}{clauses[k]}"
                        f"{before_seconds}{seconds[k]!r}{end}"
                        for k, number in enumerate(numbers)])

    return records


def add_emit_parser(emit: Any, name: str, *, output_help: str,
                    **kwargs: Any) -> argparse.ArgumentParser:
    """An ``emit`` target's parser (``kwargs``: its help and description) with what every
    target takes first: the puzzle and the required ``-o FILE``."""
    parser = emit.add_parser(name, **kwargs)
    parser.add_argument("puzzle", help="the puzzle (text or a file holding one)")
    parser.add_argument("-o", "--output", required=True, help=output_help)
    return parser


def add_gadget_parser(gadget: Any, name: str, *, formula_help: str, output_metavar: str,
                      output_help: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A ``gadget`` kind's parser (``kwargs``: its help and description) with what every
    kind takes first: the formulas (one to build, any number to validate) and ``-o``."""
    parser = gadget.add_parser(name, **kwargs)
    parser.add_argument("formula", nargs="*", metavar="FORMULA.cnf", help=formula_help)
    parser.add_argument("-o", "--output", metavar=output_metavar, help=output_help)
    add_progress_option(parser)
    return parser


# ----------------------------------------------------------------------------- decode
# Every decode command ends here: stdout carries a grid only when it has been verified.

def add_decode_parser(decode: Any, name: str, *, files: dict[str, str],
                      **kwargs: Any) -> argparse.ArgumentParser:
    """A ``decode`` target's parser (``kwargs``: its help and description) with its input
    ``files`` (name → help), in order."""
    parser = decode.add_parser(name, **kwargs)
    for file, text in files.items():
        parser.add_argument(file, help=text)
    return parser


def add_decode_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON record (status, solutions, problems) instead")


def report_verdict(args: argparse.Namespace, status: Status, reason: str, *,
                   certified: str | None = None) -> ExitCode:
    """An answer without a grid: no solution (proved by the solver; ``certified``: the
    checker that accepted its proof) or unknown."""
    if getattr(args, "json", False):
        record = {"status": status, "reason": reason, "solutions": []}
        if certified is not None:
            record["certified"] = certified
        print(json.dumps(record))
    else:
        print(f"{status}: {reason}")
    return ExitCode.NO_SOLUTION if status == Status.NO_SOLUTION else ExitCode.UNKNOWN


def report_decoded(args: argparse.Namespace, puzzle: Grid, grids: list[Grid],
                   notes: list[str] = ()) -> ExitCode:
    """Print decoded grids once all are verified against ``puzzle``; otherwise print none
    (the problems go to stderr, or into the JSON record as status ``invalid``) and return 4.
    ``notes`` go to stderr."""
    problems = [f"solution {k}: {p}" if len(grids) > 1 else p
                for k, grid in enumerate(grids, 1) for p in solution_problems(puzzle, grid)]
    if len(set(grids)) < len(grids):
        problems.append("the answer holds the same solution twice")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if getattr(args, "json", False):
        record = {"status": "invalid" if problems else Status.SOLVED,
                  "solutions": [] if problems else [grid_text(g) for g in grids],
                  "problems": problems}
        print(json.dumps(record))
    elif problems:
        for problem in problems:
            print(f"invalid: {problem}", file=sys.stderr)
    else:
        for index, grid in enumerate(grids, 1):
            if len(grids) > 1:
                print(f"solution {index}:")
            print_grid(grid)
    return ExitCode.MISMATCH if problems else ExitCode.OK


PLAIN_EVERY = 10.0
"""Seconds between the plain progress lines of ``--progress`` (stderr not a terminal)."""


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action="store_true",
                        help="report progress on stderr when it is not a terminal too (a log, "
                             "CI): a line every 10 s with the count, rate and time left (on a "
                             "terminal a bar is shown anyway)")


class Progress:
    """The progress of a long command, on stderr only (stdout carries verified answers):
    on a terminal a tqdm bar with the rate and the time left; elsewhere nothing unless
    ``asked`` (``--progress``), then a plain line every :data:`PLAIN_EVERY` seconds and one
    at the end, in tqdm's words. tqdm is imported only when something is shown."""

    def __init__(self, total: int, label: str, *, asked: bool = False, unit: str = "it"):
        self.total = total
        self.label = label
        self.unit = unit
        self.done = 0
        self.start = time.monotonic()
        self._last = self.start
        self._bar = None
        self._plain = False
        stream = sys.stderr
        if stream is None:
            return
        if stream.isatty():
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=label, unit=f" {unit}", file=stream,
                             dynamic_ncols=True, mininterval=0.2)
        else:
            self._plain = asked

    def step(self, count: int = 1) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
        elif self._plain and time.monotonic() - self._last >= PLAIN_EVERY:
            self._line()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._plain:
            self._line()

    def _line(self) -> None:
        from tqdm import tqdm
        self._last = time.monotonic()
        print(tqdm.format_meter(self.done, self.total, self._last - self.start,
                                prefix=self.label, unit=f" {self.unit}",
                                bar_format="{desc}: {n_fmt}/{total_fmt} ({percentage:.0f}%) "
                                           "in {elapsed}, {rate_fmt}, {remaining} left"),
              file=sys.stderr, flush=True)


def add_route_template_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--route", action="append", default=[], metavar="NAME=TARGET:CMD",
        help="define a route running any program on a target's file: TARGET is cnf, "
             "exact-cover, ilp or hcp; CMD a command line with {input} (the file written) and "
             "optionally {output} (a file the program writes; else its standard output is "
             "read), e.g. \"mysat=cnf:kissat -q {input}\" (repeatable)")


def add_route_options(group: Any, options: Iterable[RouteOption]) -> None:
    """Add to ``solve`` (``group``: the parser or one of its argument groups) the flags of
    route options declared in :mod:`solvers.routes.options`, each once: an option several
    families share (``--clues``) comes with the first family that adds it."""
    present = {action.dest for action in group._actions}     # a group shares its parser's
    for option in options:
        if option.name not in present:
            add_route_option(group, option)


def add_route_option(parser: Any, option: RouteOption, default: Any = None) -> None:
    """The flag of one route option; None by default, so that the route decides and an
    option given for another route can be refused (``emit`` passes its own default)."""
    if option.type is bool:
        parser.add_argument(option.flag, action="store_true", default=default,
                            help=option.help)
    else:
        parser.add_argument(option.flag, type=None if option.type is str else option.type,
                            choices=option.choices, metavar=option.metavar, default=default,
                            help=option.help)
