"""The ``sudoku-bridge`` command line: the parser, the ``solve`` and ``verify`` commands, and
:func:`main`, which keeps the exit-code contract.

Commands (``sudoku-bridge COMMAND --help`` for each):

* ``solve PUZZLE --via ROUTE`` — solve on a route of :data:`solvers.routes.ROUTES`, decode,
  verify, print the grid;
* ``emit TARGET PUZZLE -o FILE`` — write the reduced instance for an outside solver;
* ``decode TARGET FILE ANSWER`` — turn an outside solver's answer back into a grid;
* ``verify PUZZLE GRID`` — check a grid against a puzzle;
* further groups (``crosscheck``, ``gadget``, ...) come from the modules in
  :data:`COMMAND_MODULES`, each through its ``register(commands)`` function.

A command builds the parser of that command alone (:func:`build_parser` with the command,
the modules of :data:`MODULES_OF`), and the command modules import at module level only what
registering their options needs (light modules: the route options come from
:mod:`solvers.routes.options`, declared once as data); each imports its heavy solvers and
reductions inside the functions that run it. That keeps scipy, pulp, the rules engine, the
HCP modules and the cross-checking out of ``solve`` (the sat route), whose start-up they
would dominate (figures: ``benchmarks/results/startup.md``).

PUZZLE is the puzzle text itself (e.g. an 81-character line) or a file of puzzles, one per
line (or one multi-line grid).

The exit codes are :class:`~solvers.cli.common.ExitCode`. Whatever happens, :func:`main`
returns one of them: a :class:`~reductions.errors.UserError` is one line and 2, a wrong
answer 4, Ctrl-C 130, SIGTERM 143 (turned into an exception first, so that temporary files
and child processes are cleaned up on the way out), and anything unexpected one line
"internal error" and 70 (the traceback only with ``--debug``) — never 1, which means a
proof that there is no solution. A usage error is one line and 2 too
(:class:`OneLineParser`), and so is a stdout that cannot be written — full, too large, or
closed from the start — for every command (:class:`GuardedStream`); a reader that goes away
(``| head``) ends the run quietly with 0, and a closed stderr is /dev/null.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import signal
import sys
import traceback
from typing import Iterator

from reductions.errors import UserError, printable
from reductions.sudoku.puzzle_files import PuzzleLines, load_puzzles, puzzle_lines
from reductions.sudoku.grid import format_grid, parse_grid, solution_problems

from reductions.estimate import ensure_fits

from ..formats.atomic import OutputError, naming_write_errors
from ..outcome import Outcome, Status, WrongAnswer
from ..routes.options import ALL_OPTIONS
from ..routes import ROUTES, get_route, route_estimate, template_routes
from ..routes.registry import Target
from . import common, forget_interrupt_mark
from .common import ExitCode
from .parser import (COMMAND_SUMMARIES, command_named, to_devnull as _to_devnull, top_parser,
                     with_parent)

COMMAND_MODULES = [
    "solvers.cli.sat",
    "solvers.cli.exact_cover_ilp",
    "solvers.cli.hcp",
    "solvers.cli.hcp_solve",
    "solvers.cli.hamiltonian",
    "solvers.cli.nishio",
    "solvers.cli.nonrepetitive",
    "solvers.cli.crosscheck",
    "solvers.cli.rules",
    "solvers.cli.generate",
    "solvers.cli.routes_list",
    "solvers.cli.certify",
]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that cleanup runs as for Ctrl-C."""


# ----------------------------------------------------------------------------- solve

def route_options(args: argparse.Namespace) -> dict:
    """The route options given on the command line: those of
    :data:`solvers.routes.options.ALL_OPTIONS` that are set (each defaults to None)."""
    return {name: getattr(args, name) for name in ALL_OPTIONS
            if getattr(args, name, None) is not None}


def solve_each(lines: PuzzleLines, args: argparse.Namespace, options: dict, *,
               then=None) -> Iterator[common.Solved]:
    """Parse and solve the puzzles one by one on ``args.via``; a puzzle whose instance is
    estimated over the memory limit is refused like a bad one. ``then(puzzle, label,
    outcome)``: what each answer becomes before it is reported (its certificate, with
    ``--certify`` on an ``hcp`` route)."""
    route = get_route(args.via, args.defined_routes)
    limit = common.memory_limit(args)
    for label, text in lines.pairs():
        where = "" if label == "puzzle" else f"{label}: "
        try:
            puzzle = parse_grid(text, args.box, where=where)
            n = puzzle.size
            ensure_fits(route_estimate(route, puzzle.shape, options), limit,
                        f"{where}solve --via {route.name} ({n}x{n})")
        except UserError as exc:
            yield common.Solved(label, text, None, str(exc))
            continue
        outcome = route.solve(puzzle, unique=args.unique, time_limit=args.time_limit,
                              **options)
        if then is not None:
            outcome = then(puzzle, label, outcome)
        yield common.Solved(label, format_grid(puzzle, "auto"), outcome)


def run_solve(args: argparse.Namespace) -> int:
    args.defined_routes = template_routes(args.route)
    if args.via is None:       # one --route and no --via: that route
        args.via = next(iter(args.defined_routes)) if len(args.defined_routes) == 1 else "sat"
    route = get_route(args.via, args.defined_routes)
    options = route_options(args)
    route.check_request(options, unique=args.unique)
    if args.certify:
        from .certify import certify_options, check_certified_route
        check_certified_route(route, options)
        certify_options(args)                   # a missing checker: before any work
    elif args.checker is not None or args.keep_proofs is not None:
        raise UserError("--checker and --keep-proofs need --certify")
    reason = route.unavailable(options)
    if reason:
        raise UserError(reason)
    lines = puzzle_lines(args.puzzle, args.box, memory_limit=common.memory_limit(args))
    if lines.numbers is None and lines.source == "puzzle":
        # A literal puzzle: a reading error is the command's error (one line, exit 2).
        parse_grid(lines.texts[0], args.box)
    many = len(lines) > 1
    results = None
    if args.certify and route.target == Target.HCP:
        from .certify import certify_graph_answer
        results = solve_each(lines, args, options,
                             then=certify_graph_answer(route, options, args))
    elif args.certify:
        from .certify import certified_each
        results = certified_each(lines, args, route, options)
    elif many:
        batch = route.solve_batch(lines.texts, unique=args.unique, time_limit=args.time_limit,
                                  jobs=args.jobs, box=args.box,
                                  memory_limit=common.memory_limit(args),
                                  what=f"solve --via {args.via}", **options)
        if batch is not None:
            from .sat import batch_results
            results = batch_results(batch, lines, args)
    if results is None:
        results = solve_each(lines, args, options)
    return _report(results, args, count=len(lines))


def _report(results: Iterator[common.Solved | common.SolvedLines], args: argparse.Namespace,
            *, count: int) -> int:
    """Print the results of ``solve`` in order; the counts on stderr for a file."""
    many = count > 1
    progress = common.Progress(count, f"solve --via {args.via}", asked=args.progress,
                               unit="puzzle") if many else None
    counts = dict.fromkeys(Status, 0)
    errors = certified = 0
    for item in results:
        if isinstance(item, common.SolvedLines):
            sys.stdout.write(item.text)
            counts[Status.SOLVED] += item.count
            if progress:
                progress.step(item.count)
            continue
        if item.outcome is None:
            errors += 1
            print(f"sudoku-bridge: error: {printable(item.error)}", file=sys.stderr)
            if args.json:
                print(json.dumps({"puzzle_id": item.label, "puzzle": item.text,
                                  "route": args.via, "status": "error", "error": item.error}))
            elif many:
                print("error")
        else:
            counts[item.outcome.status] += 1
            certified += bool(item.outcome.stats.get("certified"))
            if args.json:
                print(json.dumps(common.outcome_record(item.label, item.text, item.outcome,
                                                       args.via)))
            elif many:
                print(common.batch_line(item.outcome, args.unique))
            else:
                report_outcome(item.outcome, args)
        if progress:
            progress.step()
    if progress:
        progress.close()
    if many:
        print(f"solved {counts[Status.SOLVED]}, no solution {counts[Status.NO_SOLUTION]}, "
              f"unknown {counts[Status.UNKNOWN]}, bad input {errors}"
              + (f", certified {certified}" if args.certify else ""), file=sys.stderr)
    if errors:
        return ExitCode.BAD_INPUT
    return common.exit_code_for([status for status, n in counts.items() if n])


def report_outcome(outcome: Outcome, args: argparse.Namespace) -> None:
    if outcome.status == Status.SOLVED:
        common.print_grid(outcome.grid)
        if outcome.unique is True:
            print(f"unique: yes (no second solution exists; {whose_word(outcome, args)})")
        elif outcome.unique is False:
            print("unique: no — a second solution:")
            common.print_grid(outcome.second)
        elif args.unique:
            print("unique: unknown (the uniqueness check did not finish)")
    elif outcome.status == Status.NO_SOLUTION:
        print(f"no solution: the puzzle has no valid completion ({whose_word(outcome, args)})")
    else:
        reason = outcome.stats.get("reason", "")
        print(f"unknown: no answer{': ' + reason if reason else ''}")


def whose_word(outcome: Outcome, args: argparse.Namespace) -> str:
    """Who backs a negative answer: the checker that accepted its proof ("certified by
    drat-trim"), else the solver whose word it is ("cadical195, uncertified")."""
    checker = outcome.stats.get("certified")
    if checker:
        return f"certified by {checker}"
    solver = outcome.stats.get("solver")
    if isinstance(solver, dict):            # the hcp routes: the backend's own stats
        solver = solver.get("solver") or solver.get("backend")
    return f"{solver if isinstance(solver, str) and solver else args.via}, uncertified"


# ----------------------------------------------------------------------------- verify

def run_verify(args: argparse.Namespace) -> int:
    puzzle = common.read_puzzle_arg(args, single=True)[0][1]
    grids = load_puzzles(args.grid, puzzle.shape, check=False,
                         memory_limit=common.memory_limit(args))
    if len(grids) != 1:
        raise UserError(f"{args.grid}: holds {len(grids)} grids; verify takes one")
    problems = solution_problems(puzzle, grids[0][1])
    if problems:
        for p in problems:
            print(f"invalid: {p}", file=sys.stderr)
        return ExitCode.MISMATCH
    print("valid: the grid is a solution of the puzzle")
    return ExitCode.OK


# ----------------------------------------------------------------------------- parser

def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``command`` (one of
    :data:`~solvers.cli.parser.COMMAND_SUMMARIES`), the same parser for that command alone:
    only the modules declaring its options are imported (:data:`MODULES_OF`), and every other
    command is its one-line summary, as ``--help`` lists it."""
    parser, full_top, debug = top_parser()
    top = full_top if command is None else _OneCommand(full_top, command)
    solve = _declare_solve(top)
    emit = _declare_collection(top, debug, "emit", COMMAND_SUMMARIES["emit"])
    decode = _declare_collection(top, debug, "decode", COMMAND_SUMMARIES["decode"])
    gadget = _declare_collection(top, debug, "gadget", COMMAND_SUMMARIES["gadget"],
                                 dest="gadget", metavar="GADGET")
    _declare_verify(top)
    commands = common.Commands(top=top, solve=solve, emit=emit, decode=decode, gadget=gadget)
    for name in COMMAND_MODULES:
        if command is None or name in MODULES_OF[command]:
            importlib.import_module(name).register(commands)
    if command is not None:
        top.list_the_rest()
    return parser


MODULES_OF = {
    "solve": {"solvers.cli.sat", "solvers.cli.exact_cover_ilp", "solvers.cli.hcp_solve",
              "solvers.cli.rules", "solvers.cli.certify"},
    "emit": {"solvers.cli.sat", "solvers.cli.exact_cover_ilp", "solvers.cli.hcp"},
    "decode": {"solvers.cli.sat", "solvers.cli.exact_cover_ilp", "solvers.cli.hcp"},
    "gadget": {"solvers.cli.nishio", "solvers.cli.nonrepetitive"},
    "verify": set(),
    "hamiltonian": {"solvers.cli.hamiltonian"},
    "nishio": {"solvers.cli.nishio"},
    "nonrepetitive": {"solvers.cli.nonrepetitive"},
    "crosscheck": {"solvers.cli.crosscheck"},
    "rules": {"solvers.cli.rules"},
    "generate": {"solvers.cli.generate"},
    "routes": {"solvers.cli.routes_list"},
}
"""The modules of :data:`COMMAND_MODULES` that declare (part of) each command: ``solve``
takes the route options of several, ``emit`` and ``decode`` their targets. A test checks
that every command's parser built alone prints the full parser's help."""


class _OneCommand:
    """The collection of commands while the parser of one command is built: that command's
    parser joins the collection; any other a module declares on the way goes nowhere; every
    other command is listed by its summary alone, in the order of the full parser."""

    def __init__(self, top, command: str):
        self.top = top
        self.command = command
        names = list(COMMAND_SUMMARIES)
        for name in names[:names.index(command)]:
            top.add_parser(name, help=COMMAND_SUMMARIES[name])
        self.rest = names[names.index(command) + 1:]

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        if name == self.command:
            return self.top.add_parser(name, **kwargs)
        return argparse.ArgumentParser(prog=name, add_help=False)      # not this command

    def list_the_rest(self) -> None:
        for name in self.rest:
            self.top.add_parser(name, help=COMMAND_SUMMARIES[name])


def _declare_collection(top, debug: argparse.ArgumentParser, name: str, summary: str, *,
                        dest: str = "target", metavar: str = "TARGET"):
    """A command made of sub-commands (``emit``, ``decode``, ``gadget``): the collection
    that the command modules add their targets to."""
    collection = top.add_parser(name, help=summary).add_subparsers(dest=dest, required=True,
                                                                   metavar=metavar)
    with_parent(collection, debug)
    return collection


def _declare_solve(top) -> argparse.ArgumentParser:
    solve = top.add_parser(
        "solve", help=COMMAND_SUMMARIES["solve"],
        description="Solve through a reduction; every answer is decoded and verified against "
                    "the puzzle before it is printed. Routes: " + "; ".join(
                        f"{name}: {route.summary}" for name, route in ROUTES.items()))
    solve.add_argument("puzzle", help="puzzle text, or a file with one puzzle per line")
    common.add_shape_option(solve)
    solve.add_argument("--via", metavar="ROUTE",
                       help=f"route: {', '.join(ROUTES)}, or one defined by --route "
                            f"(default: sat, or the one --route)")
    common.add_route_template_option(solve)
    solve.add_argument("--unique", action="store_true",
                       help="also look for a second solution")
    solve.add_argument("--time-limit", type=common.seconds_arg, metavar="S",
                       help="seconds per puzzle; past it the answer is 'unknown'")
    solve.add_argument("--json", action="store_true",
                       help="print one JSON record per puzzle (JSON lines)")
    solve.add_argument("--jobs", type=common.positive_int_arg, default=min(2, os.cpu_count() or 1),
                       help="processes for a file of many puzzles (default: 2)")
    common.add_memory_option(solve)
    common.add_progress_option(solve)
    solve.set_defaults(run=run_solve)
    return solve


def _declare_verify(top) -> None:
    verify = top.add_parser("verify", help=COMMAND_SUMMARIES["verify"])
    verify.add_argument("puzzle", help="the puzzle (text or file)")
    verify.add_argument("grid", help="the proposed solution (text or file)")
    common.add_shape_option(verify)
    verify.set_defaults(run=run_verify)


# ----------------------------------------------------------------------------- main

@contextlib.contextmanager
def _signals_as_exceptions() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, each noted in
    :data:`_ARRIVED` (a C extension may turn the exception into another: the note says what
    it was); SIGXFSZ (a file-size limit) is ignored, so that the write fails with an error we
    report in one line instead of killing us with temporary files left behind (children get
    the default back: ``subprocess`` restores it)."""
    def handler(signum, frame):
        _ARRIVED.append(signum)
        raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated()
    _ARRIVED.clear()
    watched = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:     # not ignored
        watched.append(signal.SIGINT)
    try:
        previous = {signum: signal.signal(signum, handler) for signum in watched}
        previous[signal.SIGXFSZ] = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except ValueError:              # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


_ARRIVED: list[int] = []
"""SIGINT and SIGTERM as they came in while the command ran."""


def _signals_stay_with_python() -> None:
    """Keep pysat from taking over SIGINT.

    On the main thread pysat's C code swaps in its own SIGINT handler for each solver or
    encoder call, which ``longjmp``s out of the running C++ code and raises
    ``pysolvers.error`` / ``pycard.error`` ('Caught keyboard interrupt'). A Ctrl-C that lands
    inside ``malloc`` leaves the heap locked or corrupt: measured on an empty 36×36 grid, 1
    Ctrl-C in 10 ended in an abort (``munmap_chunk(): invalid pointer``) and others hung at
    exit. pysat skips its handler off the main thread, and asks
    ``pysat._utils.MainThread.check`` where it is; answering "not the main thread" leaves
    Ctrl-C (and SIGTERM) to Python, which raises them as soon as the C call returns — safely,
    at the cost of waiting for that call (pysat's CaDiCaL has no other way to be stopped).
    """
    from pysat._utils import MainThread
    MainThread.check = staticmethod(lambda: False)


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser(command_named(sys.argv[1:] if argv is None else argv))
        args = parser.parse_args(argv)
    except SystemExit as exc:       # --help (0) or a usage error (2), already printed
        return int(exc.code or 0)
    except KeyboardInterrupt:       # the parser imports the commands' modules
        return _interrupted()
    debug = getattr(args, "debug", False) or bool(os.environ.get("SUDOKU_BRIDGE_DEBUG"))
    if sys.stdout is None:          # started with descriptor 1 closed (`>&-`)
        return _fail("error: stdout is closed, so no result could be shown; redirect it "
                     "instead (e.g. >/dev/null)", ExitCode.BAD_INPUT)
    _signals_stay_with_python()
    streams = sys.stdout, sys.stderr
    guards = GuardedStream(sys.stdout, "stdout"), GuardedStream(_stderr(), "stderr")
    sys.stdout, sys.stderr = guards
    try:
        return _run(args, debug)
    finally:
        sys.stdout, sys.stderr = streams
        for guard, descriptor in zip(guards, (1, 2)):
            if guard.failed:
                _to_devnull(descriptor)


def _run(args: argparse.Namespace, debug: bool) -> int:
    """Run the command; whatever happens, an exit code of the contract.

    A SIGINT or SIGTERM that came in (:data:`_ARRIVED`) decides the exit code, whatever the
    command made of it: its exception may have been swallowed (raised inside a destructor,
    which Python ignores) or turned into another (by a C extension, or by the worker
    processes the same Ctrl-C ended)."""
    try:
        with _signals_as_exceptions():
            common.read_memory_option(args)
            common.check_one_stdin(args)
            code = args.run(args)
            sys.stdout.flush()
    except Terminated:
        return _fail("terminated", ExitCode.TERMINATED)
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): what it read was verified.
        _to_devnull(1)
        return ExitCode.OK
    except Exception as exc:  # noqa: BLE001 - the contract: one line, code 70, never 1
        return _signalled() if _ARRIVED else _failed(exc, debug)
    return _signalled() if _ARRIVED else int(code)


def _signalled() -> int:
    """The exit of the first signal in :data:`_ARRIVED`."""
    if _ARRIVED[0] == signal.SIGINT:
        return _interrupted()
    return _fail("terminated", ExitCode.TERMINATED)


def _failed(exc: Exception, debug: bool) -> int:
    """The exit of a command that raised ``exc``: bad input 2, a wrong answer 4, else a
    bug, 70."""
    if isinstance(exc, UserError):
        return _fail(f"error: {exc}", ExitCode.BAD_INPUT)
    if isinstance(exc, WrongAnswer):
        return _fail(f"WRONG ANSWER: {exc}", ExitCode.MISMATCH)
    if debug:
        traceback.print_exception(exc)
    what = "out of memory" if isinstance(exc, MemoryError) else \
        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return _fail(f"internal error, please report: {what}"
                 + ("" if debug else " (run with --debug for the traceback)"),
                 ExitCode.INTERNAL_ERROR)


class GuardedStream:
    """``sys.stdout`` (or ``sys.stderr``) while a command runs: every write and flush that
    fails (a full disk, a file too large, a descriptor closed under us) is an
    :class:`~solvers.formats.atomic.OutputError` "stdout: cannot write (...)" — a one-line
    error and exit 2, as for any output file — wherever the command prints, so that no
    command needs its own handling. A reader that went away (``BrokenPipeError``) goes on
    as it is (see :func:`_run`). Everything else is the stream's own."""

    def __init__(self, stream, name: str):
        self.stream = stream
        self.name = name
        self.failed = False

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            with naming_write_errors(self.name):
                yield
        except OutputError:
            self.failed = True
            raise

    def write(self, text: str) -> int:
        with self._guard():
            return self.stream.write(text)

    def writelines(self, lines) -> None:
        with self._guard():
            self.stream.writelines(lines)

    def flush(self) -> None:
        with self._guard():
            self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _stderr():
    """``sys.stderr``; when it is closed (`2>&-`), /dev/null — put on descriptor 2 too, so
    that no file opened later becomes descriptor 2, where the programs we run write."""
    if sys.stderr is not None:
        return sys.stderr
    with contextlib.suppress(OSError):
        os.fstat(2)
        return open(os.devnull, "w")            # descriptor 2 is open, just not ours
    _to_devnull(2)
    return open(os.devnull, "w")


def _interrupted() -> int:
    """Ctrl-C: one line, exit 130 (the process's, see :func:`forget_interrupt_mark`)."""
    forget_interrupt_mark()
    return _fail("interrupted", ExitCode.INTERRUPTED)


def _fail(message: str, code: ExitCode) -> int:
    """Print ``message`` as one line (control characters, e.g. of a file name, escaped);
    nothing when stderr cannot take it."""
    if sys.stderr is not None:          # print(file=None) would write to stdout
        with contextlib.suppress(OSError, ValueError):
            print(f"sudoku-bridge: {printable(message)}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
