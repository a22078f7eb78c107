"""CLI for the exact-cover and ILP routes.

* ``solve PUZZLE --via exact-cover [--cover-solver auto|exact-cover|dlx|dlx1 | --cover-cmd
  CMD]`` (``--via dlx1``: Knuth's program) and
  ``solve PUZZLE --via ilp [--ilp-solver cbc|glpsol|highs|scip | --ilp-cmd CMD]
  [--cbc-path PATH]`` (also ``--via cbc|glpsol|scip|ilp-highs``), with the solve command's
  ``--unique``, ``--time-limit`` and ``--json``; both routes eliminate the clues before
  solving (the smallest instance).
* ``emit exact-cover PUZZLE -o FILE [--clues keep|eliminate]`` — Knuth's dlx format, runs
  unchanged in ``dlx1`` (``dlx1 m1 < FILE``; ``-o -``: to stdout, the summary to stderr).
* ``emit ilp PUZZLE -o FILE.lp|FILE.mps [--format lp|mps|free-mps] [--clues ...]`` — LP,
  fixed MPS (the default for .mps: glpsol --mps, cbc, HiGHS and SCIP read it) or free MPS.
* ``decode exact-cover MATRIX ANSWER`` and ``decode ilp MODEL SOLUTION`` — decode answers
  produced elsewhere using only the files (the puzzle is in their comment lines), verify and
  print the grid(s).
"""

from __future__ import annotations

import argparse

from reductions.encodings.exact_cover import CLUE_MODES as COVER_CLUE_MODES
from reductions.encodings.ilp import CLUE_MODES as ILP_CLUE_MODES

from . import common
from .common import ExitCode
from ..routes import options as route_options
from ..formats.atomic import check_outputs
from ..formats.mps import ModelFormat
from ..outcome import Status

FORMAT_NAMES = {ModelFormat.LP: "LP", ModelFormat.MPS: "fixed MPS",
                ModelFormat.FREE_MPS: "free MPS"}


# ----------------------------------------------------------------------------- exact cover

def run_emit_exact_cover(args: argparse.Namespace) -> int:
    from reductions.encodings.exact_cover import expected_size as cover_expected_size
    from reductions.encodings.exact_cover import sudoku_exact_cover
    from reductions.estimate import ensure_fits
    from reductions.encodings.sizes import exact_cover_estimate

    from ..formats.dlx import dlx1_limit_notes, write_dlx
    check_outputs({"-o": args.output}, stdout_ok=True, inputs=[args.puzzle])
    puzzle = common.read_puzzle_arg(args, single=True)[0][1]
    ensure_fits(exact_cover_estimate(puzzle.shape), common.memory_limit(args),
                f"emit exact-cover: the {puzzle.size}x{puzzle.size} puzzle")
    cover = sudoku_exact_cover(puzzle, args.clues)
    write_dlx(args.output, cover)
    expected = cover_expected_size(puzzle.shape, puzzle.clue_count(), args.clues)
    note = ""
    if expected:
        n = puzzle.size
        note = (f" (= N³ − (N−1)·k = {n}³ − {n - 1}·{puzzle.clue_count()}; "
                f"items 4N², nonzeros 4 per option)")
    report = common.report_stream(args.output)
    print(f"wrote {args.output}: {cover.num_options:,} options, {cover.num_items:,} items, "
          f"{cover.num_nonzeros:,} nonzeros, clues {args.clues}{note}", file=report)
    for line in dlx1_limit_notes(cover):
        print(f"note: {line}", file=report)
    empty = cover.uncoverable_items()
    if empty.size:
        names = cover.item_names()
        print(f"note: item {names[int(empty[0])]} has no option: the puzzle has no solution",
              file=report)
    return ExitCode.OK


def run_decode_exact_cover(args: argparse.Namespace) -> int:
    from ..formats.dlx import cover_from_dlx, read_answer
    limit = common.memory_limit(args)
    cover = cover_from_dlx(args.matrix, memory_limit=limit)
    answer = read_answer(args.answer, cover, zero_based=args.zero_based, memory_limit=limit)
    if not answer.solutions:
        if answer.timed_out:
            return common.report_verdict(args, Status.UNKNOWN, "the solver stopped at its "
                                         "mems limit (TIMEOUT!) before finding a solution")
        return common.report_verdict(args, Status.NO_SOLUTION,
                                     "the solver searched everything and reports 0 solutions")
    grids = [cover.grid_from_options(s) for s in answer.solutions]
    notes = []
    if answer.timed_out:
        notes.append("the solver stopped at its mems limit (TIMEOUT!): there may be more "
                     "solutions")
    if answer.reported_count is not None and answer.reported_count != len(grids):
        notes.append(f"the solver reported {answer.reported_count} solutions, the answer "
                     f"lists {len(grids)}")
    return common.report_decoded(args, cover.puzzle, grids, notes)


# ----------------------------------------------------------------------------- ILP

def run_emit_ilp(args: argparse.Namespace) -> int:
    from reductions.encodings.ilp import expected_size as ilp_expected_size
    from reductions.encodings.ilp import sudoku_ilp
    from reductions.estimate import ensure_fits
    from reductions.encodings.sizes import ilp_estimate

    from ..formats import ilp_model
    check_outputs({"-o": args.output}, inputs=[args.puzzle])
    puzzle = common.read_puzzle_arg(args, single=True)[0][1]
    fmt = ilp_model.model_format(args.output, args.format)   # refuse before building
    ensure_fits(ilp_estimate(puzzle.shape), common.memory_limit(args),
                f"emit ilp: the {puzzle.size}x{puzzle.size} puzzle")
    model = sudoku_ilp(puzzle, args.clues)
    ilp_model.write_model(args.output, model, fmt)
    expected = ilp_expected_size(puzzle.shape, puzzle.clue_count(), args.clues)
    note = " (= N³; 4N² + k; 4N³ + k)" if expected else ""
    print(f"wrote {args.output} ({FORMAT_NAMES[fmt]}): {model.num_variables:,} variables, "
          f"{model.num_constraints:,} constraints, {model.num_nonzeros:,} nonzeros, "
          f"clues {args.clues}{note}")
    return ExitCode.OK


def run_decode_ilp(args: argparse.Namespace) -> int:
    from reductions.encodings.ilp import SudokuToIlp
    from ..formats import ilp_model
    from ..formats.lp_solution import model_columns, read_lp_solution
    from ..routes import ilp as ilp_solver
    limit = common.memory_limit(args)
    model = ilp_model.model_from_file(args.model, memory_limit=limit)
    names = ilp_model.column_names(model, args.model)
    solution = read_lp_solution(args.solution, model_columns(args.model, memory_limit=limit),
                                num_columns=model.num_variables)
    answer = ilp_solver.answer_from_solution(SudokuToIlp(model.puzzle, model), solution,
                                             args.solution, names)
    if answer.status != Status.SOLVED:
        # CBC's csv carries no status: values that are no solution may mean "infeasible".
        reason = answer.detail if solution.status is None else \
            f"the solver says {solution.detail!r}"
        return common.report_verdict(args, answer.status, reason)
    return common.report_decoded(args, model.puzzle, [answer.grid])


# ----------------------------------------------------------------------------- registration

def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group("exact-cover and ilp routes")
    common.add_route_options(group, route_options.EXACT_COVER.options
                             + route_options.ILP.options)
    _declare_emit_exact_cover(commands.emit)
    _declare_emit_ilp(commands.emit)
    _declare_decode_exact_cover(commands.decode)
    _declare_decode_ilp(commands.decode)


def _declare_emit_exact_cover(emit) -> None:
    parser = common.add_emit_parser(
        emit, "exact-cover", help="exact cover in Knuth's dlx format",
        description="Write the puzzle's exact-cover matrix in Knuth's text format (runs in "
                    "dlx1: 'dlx1 m1 < FILE'), with comments from which answers are decoded.",
        output_help="output file, e.g. puzzle.dlx ('-': stdout; the summary then goes to "
                    "stderr)")
    _add_model_options(parser, COVER_CLUE_MODES, "keep", run_emit_exact_cover,
                       "keep: a clue's cell keeps only the clue's option (N³ − (N−1)k "
                       "options, 4N² items); eliminate: also drop what the clues exclude and "
                       "the forced clue options (default: keep)")


def _declare_emit_ilp(emit) -> None:
    parser = common.add_emit_parser(
        emit, "ilp", help="0/1 ILP as an LP or MPS file",
        description="Write the puzzle's ILP (Bartlett et al. 2008) as LP, fixed MPS or free "
                    "MPS (each loads in glpsol, cbc, HiGHS and SCIP), with comments from which "
                    "solutions are decoded.",
        output_help="output file (.lp: LP, .mps: fixed MPS, unless --format says)")
    parser.add_argument("--format", choices=[str(f) for f in ModelFormat],
                        help="lp (CPLEX LP), mps (fixed MPS, short names C<k>/R<k>: reads in "
                             "glpsol --mps, cbc, HiGHS, SCIP) or free-mps (names kept; glpsol "
                             "--freemps) (default: by the suffix)")
    _add_model_options(parser, ILP_CLUE_MODES, "equalities", run_emit_ilp,
                       "equalities: one x = 1 per clue (N³ variables, 4N² + k equalities); "
                       "eliminate: leave out the variables the clues fix (default: "
                       "equalities)")


def _add_model_options(parser: argparse.ArgumentParser, clue_modes, default: str, run,
                       clues_help: str) -> None:
    """What both emit targets end with: the block shape, how clues are encoded, the memory
    limit, and the command to run."""
    common.add_shape_option(parser)
    parser.add_argument("--clues", choices=clue_modes, default=default, help=clues_help)
    common.add_memory_option(parser)
    parser.set_defaults(run=run)


def _declare_decode_exact_cover(decode) -> None:
    parser = common.add_decode_parser(
        decode, "exact-cover",
        help="decode chosen options for a file written by emit exact-cover",
        description="Decode dlx1's output, both streams in one file ('dlx1 m1 < FILE > OUT "
                    "2>&1': 'Altogether 0 solutions' is then a proof of no solution, exit 1; "
                    "'TIMEOUT!' is unknown, exit 3), plain option lines or option numbers "
                    "(from 1 in file order) using only the matrix file's comments; verify and "
                    "print every solution.",
        files={"matrix": "the file written by 'emit exact-cover'",
               "answer": "the chosen options (e.g. dlx1's stdout and stderr)"})
    parser.add_argument("--zero-based", action="store_true",
                        help="option numbers in the answer count from 0, not 1")
    common.add_decode_json_option(parser)
    parser.set_defaults(run=run_decode_exact_cover)


def _declare_decode_ilp(decode) -> None:
    parser = common.add_decode_parser(
        decode, "ilp",
        help="decode a CBC, glpsol, HiGHS or SCIP solution for a model written by emit ilp",
        description="Decode a solution file (CBC's solu or csv, glpsol's -o or -w, HiGHS's "
                    "raw or pretty, SCIP's .sol; told apart by content) using only the model "
                    "file's comments; verify and print the grid.",
        files={"model": "the LP or MPS file written by 'emit ilp'",
               "solution": "the solver's solution file"})
    common.add_decode_json_option(parser)
    parser.set_defaults(run=run_decode_ilp)
