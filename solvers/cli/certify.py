"""``--certify``: every negative answer backed by a proof an independent checker accepts.

* ``solve PUZZLE --via sat --certify [--unique] [--checker NAME] [--keep-proofs DIR]`` —
  the puzzles one by one through :func:`solvers.certify.sudoku.certified_solve` (a pysat
  solver that logs proofs) or :func:`solvers.certify.outside.certified_with_command` (an
  outside DIMACS program given a ``{proof}`` file).
* The checker (``--checker``; default: the most trusted found, cake_lpr > drat-trim >
  dratify) is looked for before anything is solved: none is one line and exit 2.

* ``solve PUZZLE --via hcp|hcp-directed|hcp-undirected --certify [--unique]`` — the route
  answers as without ``--certify`` (any graph, pruning, reduction; an exact solver: ``sat`` or
  ``cpsat``), then :func:`solvers.certify.hcp_puzzle.certify_hcp_outcome` certifies its "no
  solution" or "unique" on the puzzle's directed Haythorpe graph (why that graph: that
  module's docstring).

(The ``hamiltonian`` command takes the same three options, :mod:`solvers.cli.hamiltonian`;
so do ``gadget nishio|nrpath --validate``, whose table gains a line per formula naming the
checker of its negative claims: :func:`validation_certify`, :func:`certificate_lines`.)

The CNF and exact Hamiltonian-cycle routes give proofs: exact cover, ILP, deduction and the
heuristic Hamiltonian-cycle solvers (LKH, linkern, Concorde, ``--hcp-cmd``) are refused with
``--certify`` (``crosscheck --certify`` puts a certified answer beside theirs).
``sat-incremental`` is refused too: its answers rest on assumptions in a solver shared by
many puzzles; ``--via sat --certify`` is its honest, per-puzzle counterpart.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterator

from reductions.errors import UserError
from reductions.sudoku.puzzle_files import PuzzleLines
from reductions.sudoku.grid import format_grid, parse_grid

from . import common
from ..routes import options as route_options


def add_certify_options(parser, claims: str = "every 'no solution' and 'unique'") -> None:
    """``--certify``, ``--checker``, ``--keep-proofs`` (for ``solve``, ``decode cnf``,
    ``hamiltonian`` and the gadgets' ``--validate``); ``claims`` says what is certified."""
    parser.add_argument("--certify", action="store_true",
                        help=f"back {claims} by a DRAT proof that an "
                             "independent checker accepts (a rejected proof: exit 4)")
    parser.add_argument("--checker", choices=["cake_lpr", "drat-trim", "dratify"],
                        help="the proof checker (default: the most trusted found: cake_lpr, "
                             "then drat-trim, then dratify; drat-trim and cake_lpr from PATH "
                             "or $SUDOKU_BRIDGE_DRAT_TRIM / $SUDOKU_BRIDGE_CAKE_LPR)")
    parser.add_argument("--keep-proofs", metavar="DIR",
                        help="keep each certified formula and its proof in DIR (NAME.cnf, "
                             "NAME.drat) instead of deleting them after the check")


def certify_options(args: argparse.Namespace):
    """The :class:`~solvers.certify.refutation.CertifyOptions` of the command line; a missing
    checker or a --keep-proofs that is not a directory is one line, exit 2."""
    from ..certify.checkers import find_checker
    from ..certify.refutation import CertifyOptions
    if not args.certify:
        for flag in ("checker", "keep_proofs"):
            if getattr(args, flag, None) is not None:
                raise UserError(f"--{flag.replace('_', '-')} needs --certify")
        return None
    keep = None
    if args.keep_proofs is not None:
        keep = Path(args.keep_proofs)
        if not keep.is_dir():
            raise UserError(f"--keep-proofs {args.keep_proofs}: not a directory")
    return CertifyOptions(find_checker(args.checker), common.memory_limit(args), keep)


def validation_certify(args: argparse.Namespace, command: str):
    """The certification options of ``gadget nishio|nrpath`` (None without --certify):
    only with --validate; the checker and a proof-logging --solver found before any work
    (one line, exit 2)."""
    if args.certify and not args.validate:
        raise UserError(f"{command}: --certify goes with --validate")
    certify = certify_options(args)
    if certify is not None:
        from ..certify.proofs import proof_solver
        proof_solver(args.solver)
    return certify


def certificate_lines(certificates) -> list[str]:
    """A validation row's negative claims, indented: one line naming the checker of those
    certified, one per claim that is not (and why)."""
    done = [c for c in certificates if c.certified]
    lines = []
    for checker in dict.fromkeys(c.checker for c in done):
        claims = "; ".join(c.claim for c in done if c.checker == checker)
        lines.append(f"    certified: {checker} ({claims})")
    lines += [f"    not certified: {c.claim} ({c.reason})" for c in certificates
              if not c.certified]
    return lines


def certificate_summary(certificates) -> str:
    """The run's count of certified negative claims (and of those left unknown)."""
    done = [c for c in certificates if c.certified]
    checkers = ", ".join(dict.fromkeys(c.checker for c in done)) or "no checker"
    left = len(certificates) - len(done)
    return (f"certified: {len(done)} negative claims by {checkers}"
            + (f"; {left} NOT certified (unknown)" if left else ""))


def check_certified_route(route, options: dict) -> dict:
    """The options a certified solve on ``route`` runs with (its presets and the given
    ones); a route that gives no proofs is one line, exit 2."""
    from ..routes.registry import Target
    if route.target == Target.HCP:
        return check_certified_graph_route(route, options)
    if route.target != Target.CNF or route.family is route_options.CNF_INCREMENTAL:
        raise UserError(f"--certify: route {route.name} gives no proof of its negative answers; "
                        f"use --via sat (or crosscheck --certify, which certifies a SAT peer)")
    given = {**route.presets, **options}
    if options.get("clues") == "eliminate":     # a route's preset gives way (sat-glucose)
        raise UserError("--certify: the certified formula has the clues as unit clauses "
                        "(what 'emit cnf' writes); drop --clues eliminate")
    if given.get("solver") is not None and given.get("solver_cmd") is not None:
        raise UserError("give a pysat --solver or a --solver-cmd, not both")
    # A solver whose proofs cannot be certified is refused before any work.
    if given.get("solver_cmd") is not None:
        from ..tools.dimacs_programs import proof_command
        proof_command(given["solver_cmd"])
    else:
        from ..certify.proofs import proof_solver
        proof_solver(given.get("solver") or "cadical195")
    return given


def check_certified_graph_route(route, options: dict) -> dict:
    """The options of a certified ``hcp`` route: an exact solver, ``sat`` or ``cpsat`` (a
    heuristic never proves "no"; Concorde's "no" is not bridged to a certificate) and no
    ``--break-symmetry`` (its answer is about a relabelled puzzle); else one line, exit 2."""
    given = {**route.presets, **options}
    solver = given.get("hcp_solver") or route_options.HCP.defaults["hcp_solver"]
    if given.get("hcp_cmd") is not None or solver not in route_options.EXACT_HCP_SOLVERS:
        who = "--hcp-cmd" if given.get("hcp_cmd") is not None else solver
        raise UserError(f"--certify: {who} is not certified (LKH, linkern and --hcp-cmd "
                        f"programs are heuristics that never prove 'no solution'); use "
                        f"--hcp-solver sat or cpsat")
    if given.get("break_symmetry"):
        raise UserError("--certify: --break-symmetry answers for a relabelled puzzle; drop it")
    return given


def certify_graph_answer(route, options: dict, args: argparse.Namespace):
    """The function that certifies each answer of a certified ``hcp`` route
    (:func:`~solvers.certify.hcp_puzzle.certify_hcp_outcome`), for
    :func:`solvers.cli.program.solve_each`."""
    from ..certify.hcp_puzzle import certify_hcp_outcome
    from ..certify.refutation import proof_name
    given = check_certified_graph_route(route, options)
    certify = certify_options(args)
    prune = given.get("prune") or route_options.HCP.defaults["prune"]

    def certified(puzzle, label: str, outcome):
        return certify_hcp_outcome(puzzle, outcome, prune=prune, certify=certify,
                                   name=proof_name(label), time_limit=args.time_limit)
    return certified


def certified_each(lines: PuzzleLines, args: argparse.Namespace, route,
                   options: dict) -> Iterator[common.Solved]:
    """Solve the puzzles certified (module docstring): with a pysat solver, a file's puzzles
    in batches (:func:`~solvers.certify.batch.batch_size`), one proof a batch; one by one
    otherwise."""
    from ..certify.batch import batch_size
    from ..certify.refutation import proof_name
    given = check_certified_route(route, options)
    certify = certify_options(args)
    settings = dict(certify=certify,
                    encoding=given.get("encoding") or route_options.DEFAULT_ENCODING,
                    amo=given.get("amo") or route_options.DEFAULT_AMO, unique=args.unique,
                    time_limit=args.time_limit)
    pairs = lines.pairs()
    size = batch_size(certify.checker.name) \
        if given.get("solver_cmd") is None and len(pairs) > 1 else 1
    for first in range(0, len(pairs), size):
        yield from _certified_chunk(pairs[first:first + size], args, given, settings,
                                    name=f"{proof_name(lines.source)}-batch{first // size + 1}")


def _certified_chunk(pairs: list[tuple[str, str]], args: argparse.Namespace, given: dict,
                     settings: dict, *, name: str) -> Iterator[common.Solved]:
    """One chunk of puzzles, in order: those of the first puzzle's shape as one batch
    (more than one), others one by one."""
    from ..certify.batch import certified_batch
    from ..certify.outside import certified_with_command
    from ..certify.refutation import proof_name
    from ..certify.sudoku import certified_solve
    results: dict[int, common.Solved] = {}
    puzzles: dict[int, object] = {}
    for index, (label, text) in enumerate(pairs):
        where = "" if label == "puzzle" else f"{label}: "
        try:
            puzzles[index] = parse_grid(text, args.box, where=where)
        except UserError as exc:
            results[index] = common.Solved(label, text, None, str(exc))
    shape = next((p.shape for p in puzzles.values()), None)
    together = [i for i, p in puzzles.items() if p.shape == shape]
    if len(together) > 1:
        outcomes = certified_batch([puzzles[i] for i in together], name=name,
                                   solver=given.get("solver"), **settings)
        for index, outcome in zip(together, outcomes):
            results[index] = common.Solved(pairs[index][0], format_grid(puzzles[index], "auto"),
                                           outcome)
    for index in range(len(pairs)):
        if index not in results:
            puzzle, label = puzzles[index], pairs[index][0]
            if given.get("solver_cmd") is not None:
                outcome = certified_with_command(puzzle, given["solver_cmd"],
                                                 name=proof_name(label), **settings)
            else:
                outcome = certified_solve(puzzle, solver=given.get("solver"),
                                          name=proof_name(label), **settings)
            results[index] = common.Solved(label, format_grid(puzzle, "auto"), outcome)
        yield results.pop(index)


def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group("certification (the sat and exact hcp routes)")
    add_certify_options(group)
