"""CLI: ``sudoku-bridge crosscheck PUZZLES [--routes ...] ...`` (see solvers/crosscheck/)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from reductions.errors import UserError
from reductions.sudoku.grid import Shape, parse_grid
from reductions.sudoku.puzzle_files import puzzle_texts
from reductions.estimate import Estimate, ensure_fits
from reductions.suggestions import unknown_name

from . import common
from .parser import COMMAND_SUMMARIES
from .common import ExitCode
from ..formats.atomic import check_outputs
from ..routes import ROUTES, Route, available_routes, route_estimate, template_routes
from ..crosscheck.records import CrosscheckError, RecordStatus
from ..crosscheck.report import (find_mismatches, format_summary, plot_results, summary_rows,
                                 unavailable_routes)
from ..crosscheck.run import DEFAULT_ROUTES, run_crosscheck
from ..crosscheck.runners import Execution


def run_crosscheck_command(args: argparse.Namespace) -> int:
    check_outputs({"--json": args.json, "--plot": args.plot}, inputs=[args.puzzles])
    if args.resume and not args.json:
        raise CrosscheckError("--resume needs --json OUT.jsonl (the file to resume from)")
    defined = template_routes(args.route)
    routes = [r.strip() for r in args.routes.split(",") if r.strip()] if args.routes \
        else [r for r in DEFAULT_ROUTES if r in available_routes()]
    routes += [name for name in defined if name not in routes]
    known = {**ROUTES, **defined}
    unknown = [r for r in routes if r not in known]
    if unknown:
        message = unknown_name("route", unknown[0], known, "routes")
        if "did you mean" not in message:
            message += f" (available here: {', '.join(available_routes())})"
        raise CrosscheckError(message)
    checker = _checker(args, [known[name] for name in routes])
    texts = puzzle_texts(args.puzzles, args.box, memory_limit=common.memory_limit(args))
    if args.scheduler is None:          # a cluster's workers have memory of their own
        check_memory(texts, [known[name] for name in routes], args)
    progress = common.Progress(len(texts) * len(routes), "crosscheck", asked=args.progress,
                               unit="run")
    try:
        execution = Execution(jobs=args.jobs, scheduler=args.scheduler,
                              worker_timeout=args.worker_timeout)
        results = run_crosscheck(texts, routes, shape=args.box, unique=args.unique,
                                 time_limit=args.time_limit, execution=execution,
                                 results_path=Path(args.json) if args.json else None,
                                 resume=args.resume,
                                 on_result=lambda _: progress.step(),
                                 templates=args.route, memory_limit=common.memory_limit(args),
                                 certify=checker)
    finally:
        progress.close()
    print(f"{len(texts)} puzzle(s) x {len(routes)} route(s)"
          + (", uniqueness checked" if args.unique else ""))
    print(format_summary(summary_rows(results, routes), unique=args.unique))
    cannot = [name for name in routes if not known[name].checks_uniqueness]
    if args.unique and cannot:
        print(f"\nuniqueness not checked by {', '.join(cannot)} (the route cannot); their "
              f"grids are still compared with the others'")
    if checker is not None:
        _report_certified(results, routes, [known[name] for name in routes], checker)
    missing = unavailable_routes(results)
    for route, reason in missing.items():
        print(f"\nnot available here: {route} ({reason})")
    errors = [r for r in results if r.status == RecordStatus.ERROR]
    for r in errors:
        first = (r.error or "").splitlines()[0] if r.error else ""
        print(f"\nERROR {r.route} on {r.puzzle_id}: {first}")
    mismatches = find_mismatches(results, args.unique)
    for m in mismatches:
        print(f"\nMISMATCH on {m.puzzle_id} ({m.puzzle}): {m.reason}")
        for route, answer in m.answers.items():
            print(f"  {route:>14}: {answer}")
    if args.plot:
        plot_results(results, routes, Path(args.plot))
        print(f"\nplot written to {args.plot}")
    if mismatches or errors:
        print(f"\n{len(mismatches)} mismatch(es), {len(errors)} error(s)", file=sys.stderr)
        return ExitCode.MISMATCH
    ran = "the routes that ran" if missing else "all routes"
    print(f"\nno mismatches: every answer verified, {ran} agree")
    return ExitCode.OK


def puzzle_shapes(texts: list[tuple[str, str]], box: Shape | None) -> set[Shape]:
    """The shapes of the puzzles, from one puzzle per text length (a line of N² symbols
    fixes N; unreadable puzzles are the run's errors, not this check's)."""
    shapes = set()
    for text in {len(text): text for _, text in texts}.values():
        try:
            shapes.add(parse_grid(text, box, check=False).shape)
        except UserError:
            continue
    return shapes


def check_memory(texts: list[tuple[str, str]], routes: list[Route],
                 args: argparse.Namespace) -> None:
    """Refuse the run when the largest instance of any route, once per worker process, is
    over the memory limit."""
    worst: tuple[Estimate, str, Shape] | None = None
    for shape in puzzle_shapes(texts, args.box):
        for route in routes:
            if route.not_applicable(shape):
                continue
            estimate = route_estimate(route, shape, {})
            if worst is None or estimate.bytes > worst[0].bytes:
                worst = (estimate, route.name, shape)
    if worst is not None:
        estimate, name, shape = worst
        workers = max(1, min(args.jobs, len(texts) * len(routes)))
        ensure_fits(estimate.times(workers, "worker processes"), common.memory_limit(args),
                    f"crosscheck: route {name} on {shape.size}x{shape.size} puzzles")


def _checker(args: argparse.Namespace, routes: list[Route]) -> str | None:
    """--certify: the checker's name (found now: none is exit 2), after making sure some
    route of the run certifies."""
    if not args.certify:
        if args.checker is not None:
            raise UserError("--checker needs --certify")
        return None
    from ..certify.checkers import find_checker
    from ..crosscheck.runners import certifies
    if not any(certifies(route) for route in routes):
        raise UserError("--certify: no route of this run certifies its negative answers; add "
                        "sat (a SAT route with a proof-logging solver) or hcp-directed")
    return find_checker(args.checker).name


def _report_certified(results, names: list[str], routes: list[Route], checker: str) -> None:
    """How many negative claims were certified, and which routes' are their word only."""
    from ..crosscheck.runners import certifies
    negative = [r for r in results if r.status == RecordStatus.NO_SOLUTION or r.unique is True]
    certified = sum(r.certified is not None for r in negative)
    print(f"\ncertified by {checker}: {certified} of {len(negative)} negative claims "
          f"('no solution', 'unique')")
    word = [name for name, route in zip(names, routes) if not certifies(route)]
    if word:
        print(f"uncertified (the route's word, beside a certified peer): {', '.join(word)}")


def register(commands: common.Commands) -> None:
    parser = commands.top.add_parser(
        "crosscheck", help=COMMAND_SUMMARIES["crosscheck"],
        description="Run every puzzle through every route, verify each answer, and list "
                    "mismatches: an invalid grid, 'no solution' where another route solved "
                    "it, or (with --unique) disagreement about uniqueness. Exit code 4 when "
                    "any mismatch or route error is found. A route that cannot run here (its "
                    "program or package is missing) is listed as 'not available', not as an "
                    "error. With --json, records are written as they arrive (a file "
                    "named .gz, .xz or .bz2 compressed): after an interruption (Ctrl-C, "
                    "kill), --resume runs only the missing pairs and the claims it cannot "
                    "re-check.")
    parser.add_argument("puzzles", help="a puzzle, or a file with one puzzle per line")
    parser.add_argument("--routes", help=f"comma-separated routes (default: "
                                         f"{','.join(DEFAULT_ROUTES)}); known: "
                                         f"{', '.join(ROUTES)}")
    common.add_route_template_option(parser)
    parser.add_argument("--unique", action="store_true",
                        help="every route that can (all but lkh, linkern, concorde and "
                             "--route NAME=hcp:CMD, counted 'unchecked') also checks "
                             "uniqueness; disagreement is a mismatch, and so is another "
                             "valid grid from any route for a puzzle called unique")
    parser.add_argument("--time-limit", type=common.seconds_arg, metavar="S",
                        help="seconds per puzzle and route ('unknown' past it)")
    parser.add_argument("--jobs", type=common.positive_int_arg, default=min(2, os.cpu_count() or 1),
                        help="local worker processes (default: 2)")
    parser.add_argument("--json", metavar="OUT.jsonl",
                        help="stream one JSON record per puzzle and route to this file")
    parser.add_argument("--resume", action="store_true",
                        help="go on from the --json file of an interrupted run: its records "
                             "are re-checked, not believed; those claiming what no record "
                             "can show (no solution; with --unique, unique) run again")
    parser.add_argument("--plot", metavar="OUT.png",
                        help="plot time distributions and sizes (needs matplotlib)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a Dask distributed cluster (e.g. tcp://host:8786; "
                             "needs the 'distributed' extra)")
    parser.add_argument("--worker-timeout", type=common.seconds_arg, default=60.0, metavar="S",
                        help="with --scheduler: give up (exit 2, records kept for --resume) "
                             "after this many seconds without any Dask worker (default: 60)")
    parser.add_argument("--certify", action="store_true",
                        help="the routes that can (sat and the other CNF routes with "
                             "proof-logging solvers, the exact hcp routes) back every 'no "
                             "solution' and 'unique' by a DRAT proof a checker accepts; a "
                             "rejected proof is an error (exit 4)")
    parser.add_argument("--checker", choices=["cake_lpr", "drat-trim", "dratify"],
                        help="with --certify: the proof checker (default: the most trusted "
                             "found)")
    common.add_shape_option(parser)
    common.add_progress_option(parser)
    common.add_memory_option(parser)
    parser.set_defaults(run=run_crosscheck_command)
