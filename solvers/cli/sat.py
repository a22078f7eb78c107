"""CLI for the CNF route: ``solve --via sat``, ``emit cnf``, ``decode cnf``.

* ``solve PUZZLE --via sat [--solver NAME | --solver-cmd CMD] [--encoding ...] [--amo ...]
  [--clues units|eliminate] [--jobs N]`` — a file of many puzzles goes through the route's
  batch path (:func:`solvers.routes.sat_batch.solve_lines`: one incremental pysat solver per
  process, clues as assumptions) unless an outside solver program or ``--clues eliminate``
  is asked for; :func:`batch_results` prints its chunks.
* ``emit cnf PUZZLE -o FILE`` — DIMACS with comments recording the puzzle and the encoding
  (``-o -``: to stdout, the summary to stderr).
* ``decode cnf FILE MODEL`` — decode a solver's output for FILE using FILE's comments only.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from reductions.encodings.cnf import (
    CnfError,
    cnf_recipe,
    expected_size,
    grid_from_model,
    sudoku_cnf,
)
from reductions.sudoku.grid import SYMBOLS, clue_rows, format_grid, parse_grid
from reductions.sudoku.puzzle_files import PuzzleLines
from reductions.sudoku.puzzle_record import comment_metadata
from reductions.encodings.sizes import cnf_estimate
from reductions.estimate import ensure_fits
from reductions.errors import UserError

from . import common
from ..routes import options as route_options
from .certify import add_certify_options, certify_options
from .common import ExitCode
from ..formats.atomic import check_outputs
from ..formats.dimacs import SatAnswer, read_cnf_header, read_solver_output, write_cnf
from ..outcome import Outcome, Status
from ..routes.sat import answer_stats

if TYPE_CHECKING:      # the batch modules load when a file is solved, not at start-up
    from ..routes.sat_batch import LineBatch
    from ..routes.sat_incremental import BatchChunk, BatchItem, SolvedRun


def add_encoding_options(parser, clues_default: str) -> None:
    """--encoding, --amo (the sat routes' options, with their defaults) and --clues for
    ``emit cnf``."""
    common.add_route_option(parser, route_options.ENCODING,
                            default=route_options.DEFAULT_ENCODING)
    common.add_route_option(parser, route_options.AMO, default=route_options.DEFAULT_AMO)
    parser.add_argument("--clues", choices=["units", "eliminate"], default=clues_default,
                        help=f"clues as unit clauses or eliminated from the formula "
                             f"(default: {clues_default})")


def batch_results(batch: LineBatch, lines: PuzzleLines, args: argparse.Namespace
                  ) -> Iterator[common.Solved | common.SolvedLines]:
    """What ``solve`` prints for a file solved on a route's batch path
    (:meth:`~solvers.routes.registry.Route.solve_batch`), chunk by chunk in input order:
    runs of consecutive solved puzzles as their lines at once (:func:`_chunk_reports`),
    anything else one puzzle at a time. Either way each answer is reported as the route's
    one-puzzle path reports it (:func:`solvers.cli.program.solve_each`): the puzzle as parsed,
    and the instance's sizes (:meth:`LineBatch.instance`) with the seconds it took."""
    shape = batch.shape
    fast = shape is not None and shape.size <= len(SYMBOLS) and lines.numbers is not None
    for chunk in batch.chunks:
        if fast:
            yield from _chunk_reports(chunk, lines, batch, args)
        else:
            yield from _solved(chunk.items(), lines, batch)


def _solved(items: Iterable[BatchItem], lines: PuzzleLines,
            batch: LineBatch) -> Iterator[common.Solved]:
    for item in items:
        label, text = lines.label(item.index), lines.texts[item.index]
        if item.error is not None:
            where = "" if label == "puzzle" else f"{label}: "
            yield common.Solved(label, text, None, where + item.error)
            continue
        shape = item.shape or batch.shape
        puzzle = parse_grid(text, shape, check=False)      # read by the worker already
        stats = answer_stats(batch.instance(shape, puzzle.clue_count()), item.status,
                             item.seconds)
        outcome = Outcome(item.status, item.grid(shape), item.unique, item.second_grid(shape),
                          stats)
        yield common.Solved(label, format_grid(puzzle, "auto"), outcome)


def _chunk_reports(chunk: BatchChunk, lines: PuzzleLines, batch: LineBatch,
                   args: argparse.Namespace) -> Iterator[common.Solved | common.SolvedLines]:
    """The output of a chunk: each run of consecutive solved puzzles (verified in the
    worker; with ``--unique``, also proved unique: :meth:`BatchChunk.parts`) becomes its
    printed lines at once — with ``--json`` their records from one template
    (:func:`_run_records`) — and anything else goes through the per-puzzle report."""
    from ..routes.sat_incremental import BatchItem
    records = _run_records(lines, batch, args) if args.json else None
    ending = f"\t{common.UNIQUE_WORDS[True]}\n" if args.unique else "\n"
    for part in chunk.parts(args.unique):
        if isinstance(part, BatchItem):
            yield from _solved([part], lines, batch)
        else:
            text = part.lines(ending) if records is None else records(part)
            yield common.SolvedLines(text, len(part))


def _run_records(lines: PuzzleLines, batch: LineBatch, args: argparse.Namespace):
    """``records(run)``: the JSON lines of a run of solved puzzles, each as the one-puzzle
    path prints it (:func:`~solvers.cli.common.solved_records`): the puzzle as parsed (its
    symbols normalised, ``0`` as ``.``), its instance's clauses and its seconds."""
    from ..routes.sat_incremental import one_line_grids
    shape = batch.shape
    mark = common.RECORD_MARK
    stats = answer_stats({**batch.instance(shape, 0), "clauses": mark}, Status.SOLVED, mark)
    template = common.solved_records(source=lines.source, route=args.via,
                                     unique=True if args.unique else None, stats=stats)

    def records(run: SolvedRun) -> str:
        first, last = run.first, run.first + len(run)
        clues = clue_rows(lines.texts[first:last], shape)
        return template(lines.numbers[first:last], one_line_grids(clues), run.solutions(),
                        batch.clauses(shape, np.count_nonzero(clues, axis=1)).tolist(),
                        run.seconds())

    return records


def run_emit_cnf(args: argparse.Namespace) -> int:
    check_outputs({"-o": args.output}, stdout_ok=True, inputs=[args.puzzle])
    puzzle = common.read_puzzle_arg(args, single=True)[0][1]
    n = puzzle.size
    ensure_fits(cnf_estimate(puzzle.shape, encoding=args.encoding, amo=args.amo,
                             clues=args.clues), common.memory_limit(args),
                f"emit cnf: the {n}x{n} puzzle")
    cnf = sudoku_cnf(puzzle, args.encoding, args.amo, args.clues)
    count = write_cnf(args.output, cnf.num_vars, cnf.clause_blocks(), cnf.metadata())
    note = ""
    expected = expected_size(puzzle.shape, args.encoding, cnf.amo)
    if args.clues == "units" and expected:
        note = f" (rules: {expected[1]:,} clauses by formula, + {puzzle.clue_count()} clue units)"
    report = common.report_stream(args.output)
    print(f"wrote {args.output}: {cnf.num_vars:,} variables, {count:,} clauses, "
          f"encoding {args.encoding}, at-most-one {cnf.amo}, clues {args.clues}{note}",
          file=report)
    if cnf.contradiction:
        print("note: clue elimination left an empty clause: the puzzle has no solution",
              file=report)
    return ExitCode.OK


def run_decode_cnf(args: argparse.Namespace) -> int:
    limit = common.memory_limit(args)
    header = read_cnf_header(args.cnf, memory_limit=limit)
    meta = comment_metadata(header.comments, str(args.cnf), CnfError)
    puzzle, encoding, amo, clues = cnf_recipe(meta)
    n = puzzle.size
    ensure_fits(cnf_estimate(puzzle.shape, encoding=encoding, amo=amo, clues=clues), limit,
                f"decode cnf: the {n}x{n} puzzle of {args.cnf}")
    cnf = sudoku_cnf(puzzle, encoding, amo, clues)
    if cnf.num_vars != header.num_vars or cnf.num_clauses != header.declared_clauses:
        raise CnfError(f"{args.cnf}: header says {header.num_vars} variables / "
                       f"{header.declared_clauses} clauses, but its comments describe a "
                       f"formula of {cnf.num_vars} / {cnf.num_clauses}: the file was changed")
    certify = _decode_certify(args, clues)
    answer = read_solver_output(args.model, num_vars=cnf.num_vars)
    if answer.status == SatAnswer.UNSAT:
        return _decoded_unsat(args, cnf, certify)
    if answer.status == SatAnswer.UNKNOWN:
        return common.report_verdict(args, Status.UNKNOWN, "the solver gave no answer")
    try:
        grid = grid_from_model(cnf, answer.model)
    except CnfError as exc:
        raise CnfError(f"{args.model}: {exc}") from None
    return common.report_decoded(args, cnf.puzzle, [grid])


def _decode_certify(args: argparse.Namespace, clues: str):
    """``decode cnf``'s certification options (None without --certify); --certify needs
    --proof and a formula with its clues as unit clauses (the plain encoding)."""
    if args.proof is not None and not args.certify:
        raise UserError("--proof needs --certify (the proof is only read to be checked)")
    if args.certify and args.proof is None:
        raise UserError("--certify needs --proof FILE: the solver's DRAT proof")
    if args.certify and clues != "units":
        raise UserError(f"{args.cnf}: --certify needs the plain encoding, clues as unit "
                        f"clauses ('emit cnf' without --clues eliminate)")
    return certify_options(args)


def _decoded_unsat(args: argparse.Namespace, cnf, certify) -> int:
    """An outside solver said UNSAT: without --certify its word, said so (exit 1); with
    it, its proof checked against the formula rebuilt from the file's recipe (exit 1
    certified, 3 check unfinished, 4 rejected)."""
    if certify is None:
        return common.report_verdict(args, Status.NO_SOLUTION,
                                     "the solver says the formula is unsatisfiable "
                                     "(its word, uncertified: check its proof with --proof "
                                     "FILE --certify)")
    from ..certify.outside import check_outside_proof
    check = check_outside_proof(cnf, Path(args.proof), certify=certify, time_limit=None,
                                claim=f"the proof {args.proof}")
    if not check.certified:
        return common.report_verdict(args, Status.UNKNOWN,
                                     f"the solver says unsatisfiable, but its proof was not "
                                     f"certified: {check.unfinished}")
    return common.report_verdict(args, Status.NO_SOLUTION,
                                 f"the formula is unsatisfiable (certified by "
                                 f"{check.checker})", certified=check.checker)


def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group("sat routes (sat, sat-glucose, sat-incremental, "
                                              "cadical, minisat)")
    common.add_route_options(group, route_options.CNF.options)

    emit = commands.emit.add_parser("cnf", help="DIMACS CNF",
                                    description="Write the puzzle's CNF in DIMACS form, with "
                                                "comments from which a model can be decoded.")
    emit.add_argument("puzzle", help="the puzzle (text or a file holding one)")
    emit.add_argument("-o", "--output", required=True,
                      help="output .cnf file ('-': stdout; the summary then goes to stderr)")
    common.add_shape_option(emit)
    add_encoding_options(emit, "units")
    common.add_memory_option(emit)
    emit.set_defaults(run=run_emit_cnf)

    decode = commands.decode.add_parser(
        "cnf", help="decode a SAT solver's output for a CNF written by emit cnf",
        description="Decode a model (SAT-competition output with s/v lines, or a MiniSat "
                    "result file) using only the CNF file's comments; verify and print it.")
    decode.add_argument("cnf", help="the .cnf file written by 'emit cnf'")
    decode.add_argument("model", help="the solver's output")
    common.add_decode_json_option(decode)
    decode.add_argument("--proof", metavar="FILE",
                        help="the solver's DRAT proof that the formula is unsatisfiable "
                             "(checked with --certify)")
    add_certify_options(decode)
    decode.set_defaults(run=run_decode_cnf)
