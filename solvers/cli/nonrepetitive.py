"""CLI for nonrepetitive paths: ``gadget nrpath`` and ``nonrepetitive``.

* ``gadget nrpath FORMULA.cnf -o G.txt [--cycle] [--dot G.dot] [--graphml G.graphml]`` — the
  Theorem 4 graph of a CNF formula (clauses of 1–3 literals) as a labelled edge list with
  ``p=`` / ``q=`` in its header (``solvers.formats.labelled_edges``).
* ``gadget nrpath --validate [FORMULA.cnf] [--random V C COUNT --seed S] [--cycle]`` — the
  closed loop per formula (``solvers.nrpath.validate_formula``) printed as a table; without a
  formula and without ``--random`` the built-in fixed examples. Exit 4 on any disagreement.
  A formula whose check is estimated over ``--max-memory`` is a row ``too large: <estimate>
  > <limit>`` and is counted in the summary; it does not fail the run (exit 0), unless no
  formula could be validated at all (exit 2).
* ``nonrepetitive G.txt --cyclic-edges`` (Theorem 1), ``--from V --label L`` (Theorem 2),
  ``--path [P Q]`` (a nonrepetitive walk with fewest edges, via nr(G); ``--simple`` asks for
  a *simple* path instead, exactly, with the SAT model), ``--simple-cycle [U V]`` (is an arc
  U → V on a simple nonrepetitive cycle?). P Q / U V default to the file's p, q (resp. q, p).
  ``--dot OUT`` draws the graph with the answer highlighted.

Every command takes ``--max-memory SIZE``: the gadget, nr(G) or the SAT model of simple paths
is estimated first (:mod:`reductions.sizes`) and refused in one line (exit 2) over the limit.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reductions.errors import UserError, format_bytes
from reductions.formulas import Formula, random_3sat
from reductions.labelled_graph import LabelledGraph
from reductions.sizes import (TooLarge, declared_variables_note, ensure_fits,
                              nr_graph_estimate, nrpath_gadget_estimate)

from . import common
from .common import ExitCode
from ..formats.atomic import OutputGroup, check_outputs
from ..formats.dimacs import read_formula
from ..sat import DEFAULT_SOLVER

if TYPE_CHECKING:
    from ..nrpath import FormulaCheck


# ----------------------------------------------------------------------------- gadget nrpath

def run_gadget_nrpath(args: argparse.Namespace) -> int:
    from reductions.nrpath_gadget import expected_size, nrpath_gadget
    from ..formats.labelled_edges import write_dot, write_graphml, write_labelled_edges
    if args.validate:
        return run_validate(args)
    if args.random is not None:
        raise UserError("--random goes with --validate")
    if len(args.formula) != 1 or args.output is None:
        raise UserError("gadget nrpath needs one FORMULA.cnf and -o G.txt (several formulas "
                        "only with --validate)")
    check_outputs({"-o": args.output, "--dot": args.dot, "--graphml": args.graphml},
                  inputs=args.formula)
    path = args.formula[0]
    limit = common.memory_limit(args)
    formula = read_formula(path, max_memory=limit)
    ensure_fits(nrpath_gadget_estimate(formula, cycle=args.cycle), limit,
                f"gadget nrpath: {path}{declared_variables_note(formula)}")
    gadget = nrpath_gadget(formula, args.cycle)
    graph = gadget.graph
    vertices, arcs = expected_size(formula, args.cycle)
    comments = [
        f"Eppstein 2005 Theorem 4 gadget of {path}: {formula.num_vars} variables, "
        f"{formula.num_clauses} clauses",
        "a simple nonrepetitive path p -> q exists iff the formula is satisfiable;",
        "variable v is true iff the path takes the route ~xv:1, ~xv:2, ... (it uses up the",
        "~xv term vertices); term vertex cJtI:LIT is literal I of clause J",
    ]
    if args.cycle:
        comments.append("cycle version: the last arc 'q p 0' lies on a simple nonrepetitive "
                        "cycle iff the formula is satisfiable")
    with OutputGroup() as outputs:          # all files or none
        write_labelled_edges(args.output, graph, gadget.p, gadget.q, comments, group=outputs)
        if args.dot:
            write_dot(args.dot, graph, gadget.p, gadget.q, title=f"nrpath gadget of {path}",
                      group=outputs)
        if args.graphml:
            write_graphml(args.graphml, graph, gadget.p, gadget.q, group=outputs)
    written = [name for name in (args.output, args.dot, args.graphml) if name]
    print(f"wrote {', '.join(written)}: {graph.num_vertices:,} vertices, {graph.num_arcs:,} "
          f"arcs (size formula: {vertices:,} and {arcs:,}), labels 0/1, p and q"
          + (", arc q -> p" if args.cycle else ""))
    return ExitCode.OK


def _yes(value: bool | None, yes: str = "yes", no: str = "NO", none: str = "-") -> str:
    return none if value is None else yes if value else no


def format_check_row(check: FormulaCheck) -> str:
    walk = ("none" if not check.walk_found
            else "simple" if check.walk_simple else "not simple")
    milliseconds = 1000 * sum(check.seconds.values())
    return (f"{check.name[-28:]:<28} {check.num_vars:>5} {check.num_clauses:>7} "
            f"{check.vertices:>8} {check.arcs:>7}  {'sat' if check.satisfiable else 'unsat':<5}  "
            f"{_yes(check.path_found, 'yes', 'no'):<5}  {_yes(check.extraction_ok, 'ok'):<7}  "
            f"{_yes(check.forward_ok, 'ok'):<7}  {walk:<10}  "
            f"{_yes(check.brute_force_agrees, 'agrees'):<6}  {milliseconds:>8.1f}  "
            f"{'ok' if check.ok else 'MISMATCH'}")


TABLE_HEADER = (f"{'formula':<28} {'vars':>5} {'clauses':>7} {'vertices':>8} {'arcs':>7}  "
                f"{'3SAT':<5}  {'path':<5}  {'extract':<7}  {'forward':<7}  {'nr(G) walk':<10}  "
                f"{'brute':<6}  {'ms':>8}  result")


def format_too_large_row(name: str, formula: Formula | None, error: TooLarge) -> str:
    """The row of a formula skipped as over the memory limit (not a failure)."""
    counts = (f"{formula.num_vars:>5} {formula.num_clauses:>7}" if formula is not None
              else f"{'-':>5} {'-':>7}")
    return f"{name[-28:]:<28} {counts}  {error.row_text}"


def run_validate(args: argparse.Namespace) -> int:
    """Exit code: 4 on a mismatch; otherwise 0 — formulas over the memory limit are rows of
    their own ("too large: ...") and are counted in the summary, not failures — unless none
    could be validated at all (then 2, as for a single refused build)."""
    from ..nrpath import fixed_formulas, validate_formula
    limit = common.memory_limit(args)
    formulas: list[tuple[str, Formula | TooLarge]] = []
    for path in args.formula:
        try:
            formulas.append((Path(path).name, read_formula(path, max_memory=limit)))
        except TooLarge as exc:
            formulas.append((Path(path).name, exc))
    if args.random is not None:
        num_vars, num_clauses, count = args.random
        if count < 1:
            raise UserError(f"--random: COUNT must be at least 1, got {count}")
        for i in range(count):
            seed = args.seed + i
            formulas.append((f"random-{num_vars}-{num_clauses}-s{seed}",
                             random_3sat(num_vars, num_clauses, seed)))
    if not formulas:
        formulas = fixed_formulas()
    start = time.perf_counter()
    checks = []
    skipped = []
    if not args.summary:
        print(TABLE_HEADER)
    progress = common.Progress(len(formulas), "validate") if len(formulas) > 1 else None
    for name, formula in formulas:
        try:
            if isinstance(formula, TooLarge):
                raise formula
            check = validate_formula(formula, name, cycle=args.cycle, solver_name=args.solver,
                                     max_memory=limit)
            checks.append(check)
            row = format_check_row(check)
        except TooLarge as exc:
            skipped.append(name)
            row = format_too_large_row(name, None if formula is exc else formula, exc)
        if not args.summary:
            print(row, flush=True)
        if progress:
            progress.step()
    if progress:
        progress.close()
    seconds = time.perf_counter() - start
    satisfiable = sum(c.satisfiable for c in checks)
    bad = [c.name for c in checks if not c.ok]
    brute = sum(c.brute_force_agrees is not None for c in checks)
    what = "simple nonrepetitive cycle through q -> p" if args.cycle else \
        "simple nonrepetitive path p -> q"
    print(f"{len(formulas)} formulas ({satisfiable} satisfiable, {len(checks) - satisfiable} "
          f"unsatisfiable"
          + (f", {len(skipped)} too large for the memory limit of {format_bytes(limit)}, "
             f"skipped" if skipped else "")
          + f") in {seconds:.2f} s; brute force ran on {brute}")
    if bad:
        print(f"MISMATCH in {len(bad)}: {', '.join(bad[:10])}")
        return ExitCode.MISMATCH
    if not checks:
        raise UserError(f"gadget nrpath --validate: nothing validated, every formula is over "
                        f"the memory limit of {format_bytes(limit)} (--max-memory)")
    print(f"all agree: satisfiable <=> {what} (SAT model); every extracted assignment "
          f"satisfies its formula; nr(G) found a nonrepetitive walk p -> q for all "
          f"{len(checks)} validated, never simple for the unsatisfiable ones")
    return ExitCode.OK


# ----------------------------------------------------------------------------- nonrepetitive

def _vertex(graph: LabelledGraph, name: str, path: str) -> int:
    try:
        return graph.vertex_id(name)
    except UserError as exc:
        raise UserError(f"{path}: {exc}") from None


def _two_vertices(graph: LabelledGraph, path: str, names: list[str],
                  default: tuple[int | None, int | None], option: str,
                  default_text: str) -> tuple[int, int]:
    if len(names) == 2:
        return _vertex(graph, names[0], path), _vertex(graph, names[1], path)
    if names:
        raise UserError(f"{option} takes two vertices or none (then {default_text})")
    if default[0] is None or default[1] is None:
        raise UserError(f"{path}: {option} without vertices needs p= and q= in the header")
    return default[0], default[1]


def _print_arcs(graph: LabelledGraph, arcs) -> None:
    for a in arcs:
        print(" ".join(str(x) for x in graph.arc_names(int(a))))


def _print_edges(graph: LabelledGraph, mask: np.ndarray) -> None:
    """The edges of ``mask``, one ``TAIL HEAD LABEL`` line each, written in large pieces."""
    from ..formats.labelled_edges import edge_lines
    for piece in edge_lines(graph, np.flatnonzero(mask)):
        sys.stdout.write(piece)


def run_nonrepetitive(args: argparse.Namespace) -> int:
    from reductions.nonrepetitive import (cyclic_edges, edges_from, nonrepetitive_path,
                                          simple_path_problems)
    from ..formats.labelled_edges import read_labelled_edges, write_dot
    from ..nrpath import find_simple_cycle, find_simple_path
    check_outputs({"--dot": args.dot}, inputs=[args.graph])
    limit = common.memory_limit(args)
    data = read_labelled_edges(args.graph, memory_limit=limit)
    graph = data.graph
    simple = bool(args.simple) or args.simple_cycle is not None
    ensure_fits(nr_graph_estimate(graph.num_vertices, graph.num_arcs, simple=simple), limit,
                f"nonrepetitive: {args.graph}")
    name = graph.vertex_name
    highlight: list[int] = []
    code = ExitCode.OK
    if args.label is not None and args.start is None:
        raise UserError("--label goes with --from V")
    if args.simple and args.path is None:
        raise UserError("--simple goes with --path")
    if args.cyclic_edges:
        mask = cyclic_edges(graph)
        _print_edges(graph, mask)
        print(f"# {int(mask.sum())} of {graph.num_edges} edges lie on nonrepetitive cycles")
        highlight = np.flatnonzero(mask).tolist()
    elif args.start is not None:
        if args.label is None:
            raise UserError("--from V needs --label L")
        vertex = _vertex(graph, args.start, args.graph)
        try:
            label = graph.label_id(args.label)
        except UserError as exc:
            raise UserError(f"{args.graph}: {exc}") from None
        mask = edges_from(graph, vertex, label)
        _print_edges(graph, mask)
        print(f"# {int(mask.sum())} of {graph.num_edges} edges lie on nonrepetitive walks "
              f"from {args.start} starting with label {args.label}")
        highlight = np.flatnonzero(mask).tolist()
    elif args.path is not None:
        p, q = _two_vertices(graph, args.graph, args.path, (data.p, data.q), "--path",
                             "p and q")
        if args.simple:
            path = find_simple_path(graph, p, q, args.solver)
            if path is None:
                print(f"no simple nonrepetitive path from {name(p)} to {name(q)} "
                      f"(proved: the SAT model is unsatisfiable)")
                code = ExitCode.NO_SOLUTION
            else:
                print(f"# simple nonrepetitive path from {name(p)} to {name(q)}: "
                      f"{len(path)} edges")
                _print_arcs(graph, path)
        else:
            path = nonrepetitive_path(graph, p, q)
            if path is None:
                print(f"no nonrepetitive path from {name(p)} to {name(q)}")
                code = ExitCode.NO_SOLUTION
            else:
                simple = not simple_path_problems(graph, path, p, q)
                print(f"# nonrepetitive path from {name(p)} to {name(q)} with fewest edges: "
                      f"{len(path)} edges, {'simple' if simple else 'not simple'}")
                _print_arcs(graph, path)
        highlight = path or []
    else:
        u, v = _two_vertices(graph, args.graph, args.simple_cycle, (data.q, data.p),
                             "--simple-cycle", "the arc from q to p")
        candidates = graph.arcs_between(u, v)
        if not candidates:
            raise UserError(f"no arc from {name(u)} to {name(v)} in {args.graph}")
        cycle = None
        for arc in candidates:
            cycle = find_simple_cycle(graph, arc, args.solver)
            if cycle is not None:
                break
        if cycle is None:
            print(f"no simple nonrepetitive cycle through an arc {name(u)} -> {name(v)} "
                  f"(proved: the SAT model is unsatisfiable)")
            code = ExitCode.NO_SOLUTION
        else:
            print(f"# simple nonrepetitive cycle through {name(u)} -> {name(v)}: "
                  f"{len(cycle)} edges")
            _print_arcs(graph, cycle)
            highlight = cycle
    if args.dot:
        write_dot(args.dot, graph, data.p, data.q, highlight)
    return code


# ----------------------------------------------------------------------------- register

def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def register(commands: common.Commands) -> None:
    gadget = commands.gadget.add_parser(
        "nrpath", help="3SAT -> directed nonrepetitive simple path (Eppstein 2005, Thm 4)",
        description="Build the labelled digraph (labels 0/1, vertices p and q) that has a "
                    "simple nonrepetitive path p -> q iff the formula is satisfiable; or "
                    "validate the reduction with --validate.")
    gadget.add_argument("formula", nargs="*", metavar="FORMULA.cnf",
                        help="DIMACS CNF, clauses of 1-3 literals (with --validate: any "
                             "number, or none)")
    gadget.add_argument("-o", "--output", metavar="G.txt", help="labelled edge list to write")
    gadget.add_argument("--cycle", action="store_true",
                        help="add the arc q -> p: it lies on a simple nonrepetitive cycle iff "
                             "the formula is satisfiable")
    gadget.add_argument("--dot", metavar="G.dot", help="also write Graphviz DOT")
    gadget.add_argument("--graphml", metavar="G.graphml", help="also write GraphML")
    gadget.add_argument("--validate", action="store_true",
                        help="check satisfiable <=> path on FORMULA, on --random formulas, or "
                             "(neither given) on built-in fixed examples; print a table")
    gadget.add_argument("--random", nargs=3, type=_nonnegative_int, metavar=("V", "C", "COUNT"),
                        help="with --validate: COUNT random 3-CNF with V variables, C clauses")
    gadget.add_argument("--seed", type=int, default=0,
                        help="first seed of --random (formula i uses SEED + i; default 0)")
    gadget.add_argument("--summary", action="store_true",
                        help="with --validate: only the summary, no table rows")
    gadget.add_argument("--solver", default=DEFAULT_SOLVER,
                        help=f"pysat solver (default: {DEFAULT_SOLVER})")
    common.add_memory_option(gadget)
    gadget.set_defaults(run=run_gadget_nrpath)

    top = commands.top.add_parser(
        "nonrepetitive", help="nonrepetitive paths and cycles in a labelled graph",
        description="Questions about walks whose consecutive edges have different labels, "
                    "answered through nr(G) in linear time (Eppstein 2005, §2.1), or exactly "
                    "with a SAT model when the path must be simple (NP-complete, Thm 4).")
    top.add_argument("graph", metavar="G.txt", help="labelled edge list (see 'gadget nrpath')")
    task = top.add_mutually_exclusive_group(required=True)
    task.add_argument("--cyclic-edges", action="store_true",
                      help="the edges on nonrepetitive cycles (Theorem 1)")
    task.add_argument("--from", dest="start", metavar="V",
                      help="the edges on nonrepetitive walks from V (Theorem 2; with --label)")
    task.add_argument("--path", nargs="*", metavar="P Q",
                      help="a nonrepetitive walk P -> Q with fewest edges (default: the file's "
                           "p and q)")
    task.add_argument("--simple-cycle", nargs="*", metavar="U V",
                      help="is an arc U -> V on a simple nonrepetitive cycle? (SAT model; "
                           "default: the arc q -> p)")
    top.add_argument("--label", metavar="L", help="first label, with --from")
    top.add_argument("--simple", action="store_true",
                     help="with --path: the path must be simple (exact, SAT model)")
    top.add_argument("--dot", metavar="OUT.dot", help="write DOT with the answer highlighted")
    top.add_argument("--solver", default=DEFAULT_SOLVER,
                     help=f"pysat solver for --simple and --simple-cycle "
                          f"(default: {DEFAULT_SOLVER})")
    common.add_memory_option(top)
    top.set_defaults(run=run_nonrepetitive)
