"""CLI for nonrepetitive paths: ``gadget nrpath`` and ``nonrepetitive``.

* ``gadget nrpath FORMULA.cnf -o G.txt [--cycle] [--dot G.dot] [--graphml G.graphml]`` — the
  Theorem 4 graph of a CNF formula (clauses of 1–3 literals) as a labelled edge list with
  ``p=`` / ``q=`` in its header (``solvers.formats.labelled_edges``).
* ``gadget nrpath --validate [FORMULA.cnf] [--random V C COUNT --seed S] [--cycle]`` — the
  closed loop per formula (``solvers.gadgets.nrpath.validate_formula``) printed as a table; without a
  formula and without ``--random`` the built-in fixed examples. Exit 4 on any disagreement.
  A formula whose check is estimated over ``--max-memory`` is a row ``too large: <estimate>
  > <limit>`` and is counted in the summary; it does not fail the run (exit 0), unless no
  formula could be validated at all (exit 2).
* ``nonrepetitive G.txt --cyclic-edges`` (Theorem 1), ``--from V --label L`` (Theorem 2),
  ``--path [P Q]`` (a nonrepetitive walk with fewest edges, via nr(G); ``--simple`` asks for
  a *simple* path instead), ``--simple-cycle [U V]`` (is an arc U → V on a simple
  nonrepetitive cycle?), ``--simple-cyclic-edges`` (every edge on one). The simple questions
  go to :mod:`solvers.nonrepetitive`: Theorem 3's polynomial search on an undirected graph,
  the SAT model on a directed one. P Q / U V default to the file's p, q (resp. q, p). ``--dot OUT``
  draws the graph with the answer highlighted; ``--json`` prints one record (``task``,
  ``method``: nr(G), skew-symmetric or sat, ``status``: found, none or listed, the path,
  cycle or edges, ``seconds``). Exit codes as everywhere: 0 found or listed, 1 none (proved).

Every command takes ``--max-memory SIZE``: the gadget, nr(G), the SAT model of simple paths
or Theorem 3's skew-symmetric graph is estimated first (:mod:`reductions.estimate`) and refused in
one line (exit 2) over the limit.

Only flags, calls and printing live here: the questions are answered by
:mod:`solvers.nonrepetitive` (``*_answer``), the gadget's files written by
:func:`solvers.formats.labelled_edges.write_gadget_files`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from reductions.errors import UserError, format_bytes
from reductions.formulas import Formula, seeded_random_formulas
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.estimate import TooLarge, ensure_fits
from reductions.formulas import declared_variables_note
from reductions.nonrepetitive.sizes import nrpath_gadget_estimate

from . import common
from .certify import (add_certify_options, certificate_lines, certificate_summary,
                      validation_certify)
from .parser import COMMAND_SUMMARIES
from .common import ExitCode
from ..formats.atomic import check_outputs
from ..formats.dimacs import read_formula, read_formulas
from ..runtime.pysat_solvers import DEFAULT_SOLVER

if TYPE_CHECKING:
    from ..gadgets.nrpath import FormulaCheck
    from ..nonrepetitive import Answer


# ----------------------------------------------------------------------------- gadget nrpath

def run_gadget_nrpath(args: argparse.Namespace) -> int:
    from reductions.nonrepetitive.nrpath_gadget import expected_size, nrpath_gadget
    from ..formats.labelled_edges import write_gadget_files
    certify = validation_certify(args, "gadget nrpath")
    if args.validate:
        return run_validate(args, certify)
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
    write_gadget_files(gadget, path, edges_path=args.output, dot_path=args.dot,
                       graphml_path=args.graphml)
    graph = gadget.graph
    vertices, arcs = expected_size(formula, args.cycle)
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


def validation_formulas(args: argparse.Namespace, limit: int
                        ) -> list[tuple[str, Formula | TooLarge]]:
    """The formulas ``--validate`` checks: the files, then ``--random`` ones, else the fixed
    examples."""
    from ..gadgets.nrpath import fixed_formulas
    formulas = read_formulas(args.formula, max_memory=limit)
    if args.random is not None:
        num_vars, num_clauses, count = args.random
        if count < 1:
            raise UserError(f"--random: COUNT must be at least 1, got {count}")
        formulas += [(f"random-{num_vars}-{num_clauses}-s{seed}", formula)
                     for seed, formula in seeded_random_formulas(
                         num_vars, num_clauses, count, first_seed=args.seed)]
    return formulas or fixed_formulas()


def run_validate(args: argparse.Namespace, certify=None) -> int:
    """Exit code: 4 on a mismatch; otherwise 0 — formulas over the memory limit are rows of
    their own ("too large: ...") and are counted in the summary, not failures — unless none
    could be validated at all (then 2, as for a single refused build). With ``certify``
    (--certify), 3 when the check of some negative claim did not finish (a rejected proof
    is 4, raised)."""
    from ..gadgets.nrpath import validate_formulas
    limit = common.memory_limit(args)
    formulas = validation_formulas(args, limit)
    start = time.perf_counter()
    checks: list[FormulaCheck] = []
    skipped = []
    if not args.summary:
        print(TABLE_HEADER)
    progress = common.Progress(len(formulas), "validate", asked=args.progress,
                               unit="formula") if len(formulas) > 1 else None
    for name, formula, result in validate_formulas(formulas, cycle=args.cycle,
                                                   solver_name=args.solver, max_memory=limit,
                                                   certify=certify):
        if isinstance(result, TooLarge):
            skipped.append(name)
            rows = [format_too_large_row(name, formula, result)]
        else:
            checks.append(result)
            rows = [format_check_row(result), *certificate_lines(result.certificates)]
        if not args.summary:
            print("\n".join(rows), flush=True)
        if progress:
            progress.step()
    if progress:
        progress.close()
    code = report_validation(args, len(formulas), checks, skipped,
                             time.perf_counter() - start, limit)
    if certify is not None:
        print(certificate_summary([c for check in checks for c in check.certificates]))
        if code == ExitCode.OK and any(check.uncertified for check in checks):
            return ExitCode.UNKNOWN
    return code


def report_validation(args: argparse.Namespace, total: int, checks: list[FormulaCheck],
                      skipped: list[str], seconds: float, limit: int) -> int:
    satisfiable = sum(c.satisfiable for c in checks)
    bad = [c.name for c in checks if not c.ok]
    brute = sum(c.brute_force_agrees is not None for c in checks)
    what = "simple nonrepetitive cycle through q -> p" if args.cycle else \
        "simple nonrepetitive path p -> q"
    print(f"{total} formulas ({satisfiable} satisfiable, {len(checks) - satisfiable} "
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
    return _named(graph.vertex_id, name, path)


def _named(lookup, name: str, path: str) -> int:
    """The number of a vertex or label given by name; an unknown name is refused naming
    the graph's file."""
    try:
        return lookup(name)
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


def _task(args: argparse.Namespace) -> str:
    if args.label is not None and args.start is None:
        raise UserError("--label goes with --from V")
    if args.simple and args.path is None:
        raise UserError("--simple goes with --path")
    if args.cyclic_edges:
        return "cyclic-edges"
    if args.simple_cyclic_edges:
        return "simple-cyclic-edges"
    if args.start is not None:
        if args.label is None:
            raise UserError("--from V needs --label L")
        return "from"
    if args.path is not None:
        return "simple-path" if args.simple else "path"
    return "simple-cycle"


def ask(graph: LabelledGraph, data, args: argparse.Namespace, task: str) -> Answer:
    """The question of the flags, its vertices and label read from their names."""
    from .. import nonrepetitive as answers
    if task in ("cyclic-edges", "simple-cyclic-edges"):
        return answers.cyclic_edges_answer(graph, simple=task == "simple-cyclic-edges",
                                          solver_name=args.solver)
    if task == "from":
        vertex = _vertex(graph, args.start, args.graph)
        label = _named(graph.label_id, args.label, args.graph)
        return answers.edges_from_answer(graph, vertex, label, start_name=args.start,
                                        label_name=args.label)
    if task in ("path", "simple-path"):
        p, q = _two_vertices(graph, args.graph, args.path, (data.p, data.q), "--path",
                             "p and q")
        return answers.path_answer(graph, p, q, simple=task == "simple-path",
                                  solver_name=args.solver)
    u, v = _two_vertices(graph, args.graph, args.simple_cycle, (data.q, data.p),
                         "--simple-cycle", "the arc from q to p")
    return answers.cycle_answer(graph, u, v, source=args.graph, solver_name=args.solver)


def print_answer(answer: Answer, graph: LabelledGraph) -> None:
    """A listing (one ``TAIL HEAD LABEL`` line an edge, written in large pieces) then its
    summary, or the summary then the path or cycle."""
    from ..formats.labelled_edges import edge_lines
    from ..nonrepetitive import arc_records
    if answer.mask is not None:
        for piece in edge_lines(graph, np.flatnonzero(answer.mask)):
            sys.stdout.write(piece)
        print(answer.summary)
        return
    print(answer.summary)
    for tail, head, label in arc_records(graph, answer.arcs):
        print(tail, head, label)


def run_nonrepetitive(args: argparse.Namespace) -> int:
    from ..formats.labelled_edges import read_labelled_edges, write_dot
    from ..nonrepetitive import task_estimate
    check_outputs({"--dot": args.dot}, inputs=[args.graph])
    limit = common.memory_limit(args)
    data = read_labelled_edges(args.graph, memory_limit=limit)
    graph = data.graph
    task = _task(args)
    ensure_fits(task_estimate(graph, task), limit, f"nonrepetitive: {args.graph}")
    start = time.perf_counter()
    answer = ask(graph, data, args, task)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(answer.record(graph, args.graph, seconds)))
    else:
        print_answer(answer, graph)
    if args.dot:
        write_dot(args.dot, graph, data.p, data.q, answer.highlight)
    return ExitCode.NO_SOLUTION if answer.found is False else ExitCode.OK


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
    _declare_gadget_nrpath(commands.gadget)
    _declare_nonrepetitive(commands.top)


def _declare_gadget_nrpath(gadgets) -> None:
    parser = common.add_gadget_parser(
        gadgets, "nrpath",
        help="3SAT -> directed nonrepetitive simple path (Eppstein 2005, Thm 4)",
        description="Build the labelled digraph (labels 0/1, vertices p and q) that has a "
                    "simple nonrepetitive path p -> q iff the formula is satisfiable; or "
                    "validate the reduction with --validate.",
        formula_help="DIMACS CNF, clauses of 1-3 literals (with --validate: any number, or "
                     "none)",
        output_metavar="G.txt", output_help="labelled edge list to write")
    parser.add_argument("--cycle", action="store_true",
                        help="add the arc q -> p: it lies on a simple nonrepetitive cycle iff "
                             "the formula is satisfiable")
    parser.add_argument("--dot", metavar="G.dot", help="also write Graphviz DOT")
    parser.add_argument("--graphml", metavar="G.graphml", help="also write GraphML")
    parser.add_argument("--validate", action="store_true",
                        help="check satisfiable <=> path on FORMULA, on --random formulas, or "
                             "(neither given) on built-in fixed examples; print a table")
    parser.add_argument("--random", nargs=3, type=_nonnegative_int, metavar=("V", "C", "COUNT"),
                        help="with --validate: COUNT random 3-CNF with V variables, C clauses")
    parser.add_argument("--seed", type=int, default=0,
                        help="first seed of --random (formula i uses SEED + i; default 0)")
    parser.add_argument("--summary", action="store_true",
                        help="with --validate: only the summary, no table rows")
    add_certify_options(parser, claims="every negative answer of --validate (formula "
                                       "unsatisfiable, no simple path or cycle)")
    parser.add_argument("--solver", default=DEFAULT_SOLVER,
                        help=f"pysat solver (default: {DEFAULT_SOLVER})")
    common.add_memory_option(parser)
    parser.set_defaults(run=run_gadget_nrpath)


def _declare_nonrepetitive(top) -> None:
    parser = top.add_parser(
        "nonrepetitive", help=COMMAND_SUMMARIES["nonrepetitive"],
        description="Questions about walks whose consecutive edges have different labels, "
                    "answered through nr(G) in linear time (Eppstein 2005, §2.1). When the "
                    "path or cycle must be simple: on an undirected graph by the polynomial "
                    "algorithm of Theorem 3 (usp(G), a skew-symmetric graph, one regular-path "
                    "search); on a directed graph exactly with a SAT model (NP-complete, "
                    "Thm 4).")
    parser.add_argument("graph", metavar="G.txt", help="labelled edge list (see 'gadget nrpath')")
    _add_task_options(parser.add_mutually_exclusive_group(required=True))
    parser.add_argument("--label", metavar="L", help="first label, with --from")
    parser.add_argument("--simple", action="store_true",
                        help="with --path: the path must be simple (exact: Theorem 3 "
                             "undirected, SAT model directed)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON record (task, method that answered, status, the "
                             "path or the edges, seconds) instead of text")
    parser.add_argument("--dot", metavar="OUT.dot", help="write DOT with the answer highlighted")
    parser.add_argument("--solver", default=DEFAULT_SOLVER,
                        help=f"pysat solver for the simple questions on directed graphs "
                             f"(default: {DEFAULT_SOLVER})")
    common.add_memory_option(parser)
    parser.set_defaults(run=run_nonrepetitive)


def _add_task_options(task) -> None:
    """The questions, one of which is asked (``task``: a required exclusive group)."""
    task.add_argument("--cyclic-edges", action="store_true",
                      help="the edges on nonrepetitive cycles (Theorem 1)")
    task.add_argument("--from", dest="start", metavar="V",
                      help="the edges on nonrepetitive walks from V (Theorem 2; with --label)")
    task.add_argument("--path", nargs="*", metavar="P Q",
                      help="a nonrepetitive walk P -> Q with fewest edges (default: the file's "
                           "p and q)")
    task.add_argument("--simple-cycle", nargs="*", metavar="U V",
                      help="is an arc U -> V on a simple nonrepetitive cycle? (Theorem 3 "
                           "undirected, SAT model directed; default: the arc q -> p)")
    task.add_argument("--simple-cyclic-edges", action="store_true",
                      help="the edges on simple nonrepetitive cycles (one cycle test per "
                           "edge: polynomial undirected, the SAT model directed)")
