"""CLI for Eppstein's puzzle generator: ``sudoku-bridge generate``.

``generate [--count K] [--seed S] [--symmetric] [--size N | --box AxB] [-o FILE]`` prints
(or writes atomically to FILE) K minimal puzzles, one line of N² symbols each (``.`` open),
built as in Eppstein 2005 §3.6 (:mod:`reductions.rules.generator`) with SAT proving every
uniqueness (:mod:`solvers.generate`). The same seed gives the same puzzles; without
``--seed`` a random seed is drawn and reported on stderr, so any run can be repeated.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time

from reductions.errors import UserError
from reductions.sudoku.grid import Shape, format_grid
from reductions.estimate import ensure_fits

from ..formats.atomic import check_outputs, open_output
from . import common
from .parser import COMMAND_SUMMARIES
from .common import ExitCode

MAX_COUNT = 10_000_000
MAX_SEED = 2**63 - 1


def _bounded_int(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number from {low} to {high}")
        return value
    return parse


def generation_shape(args: argparse.Namespace) -> Shape:
    """The block shape from ``--box`` and/or ``--size`` (default 9×9)."""
    if args.box is not None:
        if args.size is not None and args.size != args.box.size:
            raise UserError(f"--size {args.size} does not match --box {args.box} "
                            f"({args.box.size}x{args.box.size})")
        return args.box
    return Shape.for_size(args.size if args.size is not None else 9)


def run_generate(args: argparse.Namespace) -> int:
    from ..generate import generate_puzzles, generator_estimate
    shape = generation_shape(args)
    n = shape.size
    output = args.output if args.output is not None else "-"
    check_outputs({"-o": output}, stdout_ok=True)
    ensure_fits(generator_estimate(shape), common.memory_limit(args), f"generate ({n}x{n})")
    seed = args.seed if args.seed is not None else secrets.randbelow(MAX_SEED)
    mode = "symmetric" if args.symmetric else "not symmetric"
    start = time.perf_counter()
    clues, restarts, checks = [], 0, 0
    progress = common.Progress(args.count, "generate", asked=args.progress, unit="puzzle")
    puzzles = generate_puzzles(shape, count=args.count, seed=seed, symmetric=args.symmetric)
    with open_output(output) as out:
        for made in puzzles:
            out.write(format_grid(made.puzzle, "line") + "\n")
            clues.append(made.clues)
            restarts += made.restarts
            checks += made.oracle_calls
            progress.step()
    progress.close()
    print(f"generated {len(clues)} minimal {n}x{n} puzzles ({mode}, --seed {seed}) in "
          f"{time.perf_counter() - start:.1f} s: clues min {min(clues)}, median "
          f"{statistics.median(clues):g}, max {max(clues)}; {restarts} restarts, {checks} "
          f"uniqueness proofs", file=sys.stderr)
    if output != "-":
        print(f"wrote {len(clues)} puzzles to {output}")
    return ExitCode.OK


def register(commands: common.Commands) -> None:
    parser = commands.top.add_parser(
        "generate", help=COMMAND_SUMMARIES["generate"],
        description="Generate minimal puzzles as Eppstein 2005 §3.6 does: random (symmetric) "
                    "placements propagated by the singles until the grid is determined, then "
                    "clues (symmetric pairs) removed in placement order while SAT proves the "
                    "solution unique. No clue (pair) of a result can be removed. One puzzle "
                    "per line. The same --seed gives the same puzzles.")
    parser.add_argument("--count", type=_bounded_int(1, MAX_COUNT), default=1, metavar="K",
                        help="how many puzzles (default 1)")
    parser.add_argument("--seed", type=_bounded_int(0, MAX_SEED), metavar="S",
                        help="random seed (default: drawn at random and reported on stderr)")
    parser.add_argument("--symmetric", action="store_true",
                        help="clue cells symmetric under 180° rotation; symmetric pairs are "
                             "removed together (minimal among symmetric puzzles)")
    parser.add_argument("--size", type=_bounded_int(1, 255), metavar="N",
                        help="N for an N×N grid, 4 to 16 (default 9; blocks as --box or the "
                             "most square a×b; 9×9 takes tens of milliseconds a puzzle, 16×16 "
                             "up to minutes)")
    common.add_shape_option(parser)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the puzzles to FILE (atomically: all or nothing) instead "
                             "of standard output")
    common.add_memory_option(parser)
    common.add_progress_option(parser)
    parser.set_defaults(run=run_generate)
