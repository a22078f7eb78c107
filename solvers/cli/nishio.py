"""CLI for single-digit (Nishio) deduction and its NP-hardness gadgets.

* ``gadget nishio FORMULA.cnf -o S.txt [--variant thm2|thm3] [--order N] [--picture S.svg|S.png
  [--view full|core] [--show-placement]] [--map S.json]`` — build the cell set S of Eppstein's
  Theorem 2 (or 3) from a DIMACS formula (clauses of at most 3 literals).
* ``gadget nishio --validate [FORMULA.cnf | --random V C COUNT [--widths 1,2,3] [--seed S]]
  [--variant thm2|thm3|both] [--no-split]`` — the closed loop on each formula, one table row
  per formula; exit 4 if any check fails. Without a formula or ``--random``: the fixed
  examples of :func:`solvers.gadgets.nishio.fixed_formulas`. A formula (or one theorem of it) estimated over
  ``--max-memory`` is not built: its row says ``too large: <estimate> > <limit>`` and the
  summary counts it; that is not a failure (exit 0), unless nothing at all was validated
  (exit 2).
* ``nishio S.txt [--method auto|dag|dag-sweep|overlay|sat] [--box AxB] [--cell R,C] [--decide]
  [-o NISHIO.txt] [--picture P.svg]`` — Nishio(S) of a cell-set file; exit 1 when S contains no
  valid placement.

Every command takes ``--max-memory SIZE``: what it would build (the n²×n² grid, a picture,
the placement model, the DAG) is estimated first (:mod:`reductions.estimate`) and refused in one
line (exit 2) when over the limit.

Only flags, calls and printing live here: building and writing the gadget is
:func:`reductions.nishio.theorem3.build_gadget` and :func:`solvers.formats.cellset.write_gadget_files`,
choosing and checking a method :mod:`solvers.gadgets.nishio`.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from reductions.errors import UserError, format_bytes
from reductions.formulas import Formula, seeded_random_formulas
from reductions.formulas import declared_variables_note
from reductions.estimate import ensure_fits
from reductions.nishio.sizes import nishio_build_estimate

from . import common
from .certify import (add_certify_options, certificate_lines, certificate_summary,
                      validation_certify)
from .parser import COMMAND_SUMMARIES
from .common import ExitCode
from ..formats.atomic import check_outputs
from ..formats.dimacs import read_formula, read_formulas
from ..runtime.pysat_solvers import DEFAULT_SOLVER

if TYPE_CHECKING:
    from reductions.nishio.placements import CellSet
    from reductions.nishio.theorem3 import BuiltGadget
    from ..gadgets.nishio import Validation


# ----------------------------------------------------------------------------- formulas

def parse_widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise UserError(f"--widths {text!r}: give clause widths like 3 or 1,2,3") from None
    if not widths or min(widths) < 1 or max(widths) > 3:
        raise UserError(f"--widths {text!r}: widths must be 1, 2 or 3")
    return widths


def random_formulas(args: argparse.Namespace) -> list[tuple[str, Formula]]:
    num_vars, num_clauses, count = args.random
    widths = parse_widths(args.widths)
    if num_vars < max(widths) or num_clauses < 0 or count < 1:
        raise UserError(f"--random {num_vars} {num_clauses} {count}: need V >= the widest "
                        f"clause ({max(widths)}), C >= 0 and COUNT >= 1")
    return [(f"random v{num_vars} c{num_clauses} seed {seed}", formula)
            for seed, formula in seeded_random_formulas(num_vars, num_clauses, count,
                                                        first_seed=args.seed, widths=widths)]


# ----------------------------------------------------------------------------- gadget nishio

def _check_build_args(args: argparse.Namespace) -> None:
    from ..formats.cellset import check_picture_name
    if len(args.formula) != 1:
        raise UserError("gadget nishio: give one FORMULA.cnf to build (several only with "
                        "--validate)")
    if args.output is None and args.picture is None and args.map is None:
        raise UserError("gadget nishio: nothing to write; give -o S.txt, --picture or --map")
    check_outputs({"-o": args.output, "--map": args.map, "--picture": args.picture},
                  inputs=args.formula)
    if args.picture:
        check_picture_name(args.picture)


def run_build(args: argparse.Namespace) -> int:
    from reductions.nishio.theorem3 import build_gadget
    from ..formats.cellset import picture_format, write_gadget_files
    from ..gadgets.nishio import shown_placement
    _check_build_args(args)
    path = args.formula[0]
    limit = common.memory_limit(args)
    formula = read_formula(path, max_memory=limit)
    estimate = nishio_build_estimate(
        formula, variant=args.variant, order=args.order, write=bool(args.output),
        picture=picture_format(args.picture) if args.picture else None, view=args.view,
        show_placement=args.show_placement)
    ensure_fits(estimate, limit, f"gadget nishio: {path}{declared_variables_note(formula)}")
    start = time.perf_counter()
    built = build_gadget(formula, variant=args.variant, order=args.order)
    print_built(built, path, args.output, time.perf_counter() - start)
    placement = None
    if args.picture and args.show_placement:
        placement = shown_placement(built.gadget, args.solver)
        if placement is None:
            print("no placement to show: the formula is unsatisfiable")
    write_gadget_files(built, cells_path=args.output, map_path=args.map,
                       picture_path=args.picture, placement=placement, view=args.view)
    if args.picture:
        print(f"picture: {args.picture}")
    return ExitCode.OK


def print_built(built: BuiltGadget, path: str, output: str | None, seconds: float) -> None:
    """What ``gadget nishio`` built: the grid, S, the gadgets and the theorem's claim."""
    gadget, instance, false_cells = built.gadget, built.theorem3, built.v0_false
    n, size = gadget.order, gadget.shape.size
    print(f"{output or 'S'}: n = {n}, a {size}x{size} grid with {n}x{n} blocks, "
          f"|S| = {gadget.cells.count():,} cells ({6 * gadget.occurrences} in gadgets); "
          f"built in {seconds:.2f} s")
    print(f"gadgets: {len(gadget.variables)} variable bands, {len(gadget.clauses)} clause bands, "
          f"{gadget.occurrences} occurrence stacks + terminal stack {gadget.terminal_stack + 1}")
    if instance is not None:
        print(f"Theorem 3: X' has {gadget.formula.num_vars} variables and "
              f"{gadget.formula.num_clauses} clauses "
              f"(v0 = x{instance.v0}); Nishio(S) is never empty, and v0's false cells "
              f"(e.g. row {false_cells[0][0] + 1}, column {false_cells[0][1] + 1}) are in it "
              f"iff {path} is satisfiable" if false_cells else
              "Theorem 3: the formula has no clause; v0 does not occur")
    else:
        print("Theorem 2: S contains a valid placement iff the formula is satisfiable")


def _mark(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _num(value: int | None, width: int) -> str:
    return f"{'-' if value is None else f'{value:,}':>{width}}"


def _verdict(r: Validation) -> str:
    """The last column: FAIL, ok, or what was skipped as too large."""
    if not r.ok:
        return "FAIL"
    if not r.too_large:
        return "ok"
    if not r.validated:
        return "too large"
    return "ok; " + ", ".join(sorted(r.too_large)) + " too large"


def print_validation_table(results: list[Validation], variants: list[str]) -> None:
    head = f"{'formula':<32} {'v':>3} {'c':>3} {'SAT':>4}"
    if "thm2" in variants:
        head += f" | {'n':>4} {'|S|':>11} {'placement':>9} {'extract':>7} {'forward':>7} {'sec':>6}"
    if "thm3" in variants:
        head += f" | {'n3':>4} {'|S3|':>12} {'nonempty':>8} {'v0false':>7} {'maps':>4} {'sec':>6}"
    head += " | ok"
    print(head)
    print("-" * len(head))
    for r in results:
        line = (f"{r.name[:32]:<32} {_num(r.num_vars, 3)} {_num(r.num_clauses, 3)} "
                f"{_mark(r.satisfiable):>4}")
        if "thm2" in variants:
            line += (f" | {_num(r.order, 4)} {_num(r.cells, 11)} {_mark(r.placement_found):>9} "
                     f"{_mark(r.extraction_ok):>7} {_mark(r.forward_ok):>7} {r.seconds:>6.2f}")
        if "thm3" in variants:
            line += (f" | {_num(r.thm3_order, 4)} {_num(r.thm3_cells, 12)} "
                     f"{_mark(r.thm3_nonempty):>8} {_mark(r.thm3_v0_false):>7} "
                     f"{_mark(r.thm3_checks_ok):>4} {r.thm3_seconds:>6.2f}")
        line += f" | {_verdict(r)}"
        print(line, flush=True)
        for problem in r.problems:
            print(f"    {problem}")
        for what, text in r.too_large.items():
            label = {"thm2": "Theorem 2", "thm3": "Theorem 3"}.get(what, "the formula")
            print(f"    {label}: {text}")
        for line in certificate_lines(r.certificates):
            print(line)


def run_validate(args: argparse.Namespace, certify=None) -> int:
    """Exit code: 4 if any check failed; otherwise 0 — formulas (or one theorem of a formula)
    skipped as over the memory limit are rows of their own and are counted in the summary,
    but are not failures — unless nothing at all could be validated (then 2, as for a
    single refused build). With ``certify`` (--certify), 3 when the check of some negative
    claim did not finish (a rejected proof is 4, raised)."""
    from ..gadgets.nishio import fixed_formulas, validate_formulas
    if args.formula and args.random:
        raise UserError("gadget nishio --validate: give FORMULA or --random, not both")
    limit = common.memory_limit(args)
    if args.formula:
        formulas = read_formulas(args.formula, max_memory=limit)
    elif args.random:
        formulas = random_formulas(args)
    else:
        formulas = fixed_formulas()
    variants = ["thm2", "thm3"] if args.variant in (None, "both") else [args.variant]
    results = []
    progress = common.Progress(len(formulas), "validate", asked=args.progress, unit="formula")
    for result in validate_formulas(formulas, variants=variants, solver=args.solver,
                                    split=not args.no_split, order=args.order,
                                    max_memory=limit, certify=certify):
        results.append(result)
        progress.step()
    progress.close()
    print_validation_table(results, variants)
    print_validation_summary(results, limit)
    if certify is not None:
        print(certificate_summary([c for r in results for c in r.certificates]))
    if any(not r.ok for r in results):
        return ExitCode.MISMATCH
    if not any(r.validated for r in results):
        raise UserError(f"gadget nishio --validate: nothing validated, every formula is over "
                        f"the memory limit of {format_bytes(limit)} (--max-memory)")
    return ExitCode.UNKNOWN if any(r.uncertified for r in results) else ExitCode.OK


def print_validation_summary(results: list[Validation], limit: int) -> None:
    decided = [r for r in results if r.satisfiable is not None]
    sat = sum(bool(r.satisfiable) for r in decided)
    failed = sum(not r.ok for r in results)
    skipped = sum(bool(r.too_large) for r in results)
    total = sum(r.seconds + r.thm3_seconds for r in results)
    print(f"{len(results)} formulas: {sat} satisfiable, {len(decided) - sat} unsatisfiable"
          f"{f', {len(results) - len(decided)} not decided' if len(decided) < len(results) else ''}"
          f"; {'all checks passed' if not failed else f'{failed} FAILED'}"
          + (f"; {skipped} too large for the memory limit of {format_bytes(limit)} "
             f"(skipped in whole or in part)" if skipped else "")
          + f" ({total:.2f} s in gadgets and placement models)")


def run_gadget_nishio(args: argparse.Namespace) -> int:
    if args.validate:
        if (args.output, args.picture, args.map) != (None, None, None):
            raise UserError("gadget nishio --validate writes no files; drop -o/--picture/--map")
        return run_validate(args, validation_certify(args, "gadget nishio"))
    validation_certify(args, "gadget nishio")
    if args.random:
        raise UserError("gadget nishio: --random goes with --validate")
    if args.variant == "both":
        raise UserError("gadget nishio: --variant both goes with --validate")
    return run_build(args)


# ----------------------------------------------------------------------------- nishio

def parse_cell_arg(text: str, size: int) -> tuple[int, int]:
    """``R,C`` (1-based, as people count) → a 0-based cell."""
    parts = text.replace("r", "").replace("R", "").replace("c", ",").replace("C", ",").split(",")
    parts = [p for p in parts if p.strip()]
    try:
        r, c = (int(p) for p in parts)
    except ValueError:
        raise UserError(f"--cell {text!r}: give ROW,COLUMN counted from 1, e.g. 9,5") from None
    if not (1 <= r <= size and 1 <= c <= size):
        raise UserError(f"--cell {text!r}: outside the {size}x{size} grid")
    return r - 1, c - 1


def run_nishio(args: argparse.Namespace) -> int:
    from ..formats.cellset import check_picture_name, read_cell_set, write_nishio_files
    from ..gadgets.nishio import check_nishio_method, choose_method, nishio_with_stats
    check_outputs({"-o": args.output, "--picture": args.picture}, inputs=[args.cells])
    if args.picture:
        check_picture_name(args.picture)
    limit = common.memory_limit(args)
    cells = read_cell_set(args.cells, args.box, memory_limit=limit)
    method = choose_method(cells, args.method)
    decide = bool(args.cell or args.decide)
    check_nishio_method(cells, method, solver=args.solver, decide=decide, max_memory=limit,
                        subject=f"nishio: {args.cells}")
    n = cells.size
    print(f"S: {cells.count():,} cells of a {n}x{n} grid (blocks {cells.shape})")
    if decide:
        return run_decide(args, cells, limit)
    start = time.perf_counter()
    kept, stats = nishio_with_stats(cells, method, solver=args.solver, max_memory=limit)
    seconds = time.perf_counter() - start
    detail = "" if stats is None else (f", {stats['solver_calls']} solver calls, "
                                       f"{stats['cell_variables']:,} cell variables")
    eliminated = [cell for cell in cells.cells() if not kept.mask[cell]] if n <= 400 else []
    print(f"Nishio(S): {kept.count():,} cells; {cells.count() - kept.count():,} eliminated "
          f"(method {method}, {seconds * 1000:.1f} ms{detail})")
    if eliminated and len(eliminated) <= 40:
        print("eliminated: " + _cells_text(eliminated))
    if n <= 36 and not args.quiet:
        from ..formats.cellset import format_cell_set
        print(format_cell_set(cells, spaced=True, kept=kept))
    write_nishio_files(cells, kept, cells_path=args.output, picture_path=args.picture)
    if args.output:
        print(f"wrote {args.output}")
    if args.picture:
        print(f"picture: {args.picture}")
    return ExitCode.OK if kept.count() else ExitCode.NO_SOLUTION


def run_decide(args: argparse.Namespace, cells: CellSet, limit: int) -> int:
    """``--decide`` / ``--cell R,C``: one question to the placement model, its placement."""
    from reductions.nishio.placements import CellSet
    from ..formats.cellset import write_cell_set
    from ..gadgets.nishio import PlacementModel
    n = cells.size
    start = time.perf_counter()
    target = parse_cell_arg(args.cell, n) if args.cell else None
    with PlacementModel(cells, args.solver, max_memory=limit) as model:
        placement = model.find(target)
    seconds = time.perf_counter() - start
    where = (f" containing row {target[0] + 1}, column {target[1] + 1}" if target else "")
    if placement is None:
        print(f"no valid placement inside S{where} ({seconds:.3f} s, sat)")
        if target is not None and not args.decide:
            print("the cell is not in Nishio(S): the digit can be eliminated there")
        return ExitCode.NO_SOLUTION
    print(f"a valid placement inside S{where} ({seconds:.3f} s, sat)"
          + (":" if n <= 81 else f" ({n} cells; -o FILE saves it)"))
    if n <= 81:
        print(_cells_text(placement))
    if args.output:
        write_cell_set(args.output, CellSet.from_cells(cells.shape, placement))
        print(f"wrote the placement to {args.output}")
    return ExitCode.OK


def _cells_text(cells) -> str:
    return " ".join(f"r{r + 1}c{c + 1}" for r, c in cells)


# ----------------------------------------------------------------------------- register

def register(commands: common.Commands) -> None:
    _declare_gadget_nishio(commands.gadget)
    _declare_nishio(commands.top)


def _declare_gadget_nishio(gadgets) -> None:
    parser = common.add_gadget_parser(
        gadgets, "nishio",
        help="3-CNF -> Nishio decision instance (Eppstein 2012, Theorems 2 and 3)",
        description="Build the cell set S of Eppstein's reduction from 3SAT to single-digit "
                    "Sudoku deduction: S contains a valid placement (one cell per row, column "
                    "and block) iff the formula is satisfiable. With --validate, run the "
                    "closed loop (SAT solver vs placement model, extraction, forward map, "
                    "Theorem 3) on formulas and print a table.",
        formula_help="DIMACS CNF with clauses of 1 to 3 literals (with --validate: any "
                     "number, or none)",
        output_metavar="S.txt", output_help="write S (one row per line, # in S, . not)")
    parser.add_argument("--variant", choices=["thm2", "thm3", "both"], default=None,
                        help="thm2: S for the formula (default when building); thm3: add v0 "
                             "and split, so Nishio(S) is never empty; both: validate both "
                             "(default with --validate)")
    parser.add_argument("--order", type=int, metavar="N",
                        help="block side n (default: Theorem 2's max(v + c, 3c + 1))")
    _add_drawing_options(parser)
    _add_validation_options(parser)
    parser.add_argument("--solver", default=DEFAULT_SOLVER,
                        help=f"pysat solver (default {DEFAULT_SOLVER})")
    common.add_memory_option(parser)
    parser.set_defaults(run=lambda args: run_gadget_nishio(_default_variant(args)))


def _add_drawing_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--picture", metavar="FILE", help="draw S (.svg, or .png with "
                        "matplotlib) with the gadget blocks shaded and labelled")
    parser.add_argument("--view", choices=["full", "core"], default="full",
                        help="full grid, or only the gadgets' rows and columns (default full)")
    parser.add_argument("--show-placement", action="store_true",
                        help="draw a valid placement (from a satisfying assignment) on top")
    parser.add_argument("--map", metavar="S.json", help="write which rows, columns, blocks "
                        "and cells belong to which variable, clause and term (0-based)")


def _add_validation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--validate", action="store_true",
                        help="validate on FORMULA, on --random formulas, or on fixed examples")
    parser.add_argument("--random", nargs=3, type=int, metavar=("V", "C", "COUNT"),
                        help="with --validate: COUNT random formulas of V variables, C clauses")
    parser.add_argument("--widths", default="3", help="clause widths for --random, e.g. 3 "
                        "(random 3-SAT, the default) or 1,1,2,3 (mixed: both answers at "
                        "small sizes)")
    parser.add_argument("--seed", type=int, default=0, help="first seed for --random (default 0)")
    parser.add_argument("--no-split", action="store_true",
                        help="validate with every cell of S in the SAT model (no independent-"
                             "part presolve; about 1 s per 361x361 grid)")
    add_certify_options(parser, claims="every negative answer of --validate (formula "
                                       "unsatisfiable, no placement)")


def _declare_nishio(top) -> None:
    parser = top.add_parser(
        "nishio", help=COMMAND_SUMMARIES["nishio"],
        description="Single-digit deduction: read a cell set S (the candidates of one digit) "
                    "and keep the cells lying in some valid placement inside S (one cell per "
                    "row, column and block). Printed grid: # kept, x eliminated, . not in S. "
                    "Exit code 1 when S contains no valid placement.")
    parser.add_argument("cells", metavar="S.txt", help="cell set: one row per line, # or 1 in S")
    parser.add_argument("--method", choices=["auto", "dag", "dag-sweep", "overlay", "sat"],
                        default="auto",
                        help="dag: Eppstein's almost-balanced-matrix DAG, one DFS (to 16x16); "
                             "dag-sweep: the same DAG by two array sweeps (faster); overlay: "
                             "all placements (9x9 and smaller); sat: placement model, any size; "
                             "auto: dag-sweep when small, else sat (default)")
    common.add_shape_option(parser)
    parser.add_argument("--cell", metavar="R,C", help="only decide whether a placement "
                        "contains this cell (counted from 1), by the SAT model")
    parser.add_argument("--decide", action="store_true",
                        help="only decide whether S contains a valid placement, by the SAT model")
    parser.add_argument("-o", "--output", metavar="FILE", help="write Nishio(S) as a cell set "
                        "(with --cell/--decide: the placement found)")
    parser.add_argument("--picture", metavar="FILE",
                        help="draw S with the eliminated cells pale")
    parser.add_argument("--quiet", action="store_true", help="do not print the grid")
    parser.add_argument("--solver", default=DEFAULT_SOLVER,
                        help=f"pysat solver for --method sat (default {DEFAULT_SOLVER})")
    common.add_memory_option(parser)
    parser.set_defaults(run=run_nishio)


def _default_variant(args: argparse.Namespace) -> argparse.Namespace:
    if args.variant is None:
        args.variant = "both" if args.validate else "thm2"
    return args
