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
  go to :mod:`solvers.gadgets.nrpath`: Theorem 3's polynomial search on an undirected graph, the SAT
  model on a directed one. P Q / U V default to the file's p, q (resp. q, p). ``--dot OUT``
  draws the graph with the answer highlighted; ``--json`` prints one record (``task``,
  ``method``: nr(G), skew-symmetric or sat, ``status``: found, none or listed, the path,
  cycle or edges, ``seconds``). Exit codes as everywhere: 0 found or listed, 1 none (proved).

Every command takes ``--max-memory SIZE``: the gadget, nr(G), the SAT model of simple paths
or Theorem 3's skew-symmetric graph is estimated first (:mod:`reductions.sizes`) and refused in
one line (exit 2) over the limit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reductions.errors import UserError, format_bytes
from reductions.formulas import Formula, random_3sat
from reductions.labelled_graph import LabelledGraph
from reductions.sizes import (Estimate, TooLarge, declared_variables_note, ensure_fits,
                              nr_graph_estimate, nrpath_gadget_estimate, simple_path_estimate)

from . import common
from .common import ExitCode
from ..formats.atomic import OutputGroup, check_outputs
from ..formats.dimacs import read_formula
from ..runtime.pysat_solvers import DEFAULT_SOLVER

if TYPE_CHECKING:
    from ..gadgets.nrpath import FormulaCheck


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
    from ..gadgets.nrpath import fixed_formulas, validate_formula
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


def _print_edges(graph: LabelledGraph, mask: np.ndarray) -> None:
    """The edges of ``mask``, one ``TAIL HEAD LABEL`` line each, written in large pieces."""
    from ..formats.labelled_edges import edge_lines
    for piece in edge_lines(graph, np.flatnonzero(mask)):
        sys.stdout.write(piece)


def _arc_records(graph: LabelledGraph, arcs) -> list[list[str]]:
    return [[str(x) for x in graph.arc_names(int(a))] for a in arcs]


@dataclass
class Answer:
    """What one ``nonrepetitive`` task found, before it is printed as text or as JSON.

    ``found``: a path or cycle was found (None for the listing tasks); ``arcs``: that path or
    cycle, in order; ``mask``: the edges listed; ``summary``: the text line that goes with it
    (a ``#`` line above a path, below a listing; the whole answer when nothing was found)."""

    task: str
    method: str
    summary: str
    found: bool | None = None
    arcs: list[int] = field(default_factory=list)
    mask: np.ndarray | None = None
    details: dict = field(default_factory=dict)

    @property
    def code(self) -> int:
        return ExitCode.NO_SOLUTION if self.found is False else ExitCode.OK

    @property
    def highlight(self) -> list[int]:
        return np.flatnonzero(self.mask).tolist() if self.mask is not None else self.arcs

    def print_text(self, graph: LabelledGraph) -> None:
        if self.mask is not None:
            _print_edges(graph, self.mask)
            print(self.summary)
            return
        print(self.summary)
        for tail, head, label in _arc_records(graph, self.arcs):
            print(tail, head, label)

    def record(self, graph: LabelledGraph, path: str, seconds: float) -> dict:
        status = "listed" if self.found is None else "found" if self.found else "none"
        record = {"task": self.task, "method": self.method, "status": status,
                  "graph": path, "directed": graph.directed,
                  "vertices": graph.num_vertices, "edges": graph.num_edges, **self.details}
        if self.mask is not None:
            listed = np.flatnonzero(self.mask)
            record["count"] = len(listed)
            record["listed"] = [list(map(str, graph.edge_names(int(e)))) for e in listed]
        elif self.found:
            record["length"] = len(self.arcs)
            record["path" if "path" in self.task else "cycle"] = _arc_records(graph, self.arcs)
        record["summary"] = self.summary.lstrip("# ")
        record["seconds"] = round(seconds, 6)
        return record


METHOD_NR = "nr(G)"


def _proof(method: str) -> str:
    """Why "none" is proved, by the method that said so."""
    from ..gadgets.nrpath import METHOD_SAT
    return ("proved: the SAT model is unsatisfiable" if method == METHOD_SAT else
            "proved: no regular path in the skew-symmetric graph, Theorem 3")


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


def _estimate(graph: LabelledGraph, task: str) -> Estimate:
    """What the task builds: nr(G), the SAT model (digraphs) or Theorem 3's search."""
    simple = task.startswith("simple")
    if simple and not graph.directed:
        return simple_path_estimate(graph.num_vertices, graph.num_edges,
                                    cycles=task == "simple-cyclic-edges")
    return nr_graph_estimate(graph.num_vertices, graph.num_arcs, simple=simple)


def _listing(graph: LabelledGraph, args: argparse.Namespace, task: str) -> Answer:
    from reductions.nonrepetitive import cyclic_edges, edges_from
    from ..gadgets.nrpath import simple_cyclic_edges
    m = graph.num_edges
    if task == "cyclic-edges":
        mask = cyclic_edges(graph)
        return Answer(task, METHOD_NR, f"# {int(mask.sum())} of {m} edges lie on "
                      f"nonrepetitive cycles", mask=mask)
    if task == "simple-cyclic-edges":
        result, method = simple_cyclic_edges(graph, args.solver)
        return Answer(task, method, f"# {int(result.mask.sum())} of {m} edges lie on simple "
                      f"nonrepetitive cycles ({method}: {result.searches} "
                      f"search{'' if result.searches == 1 else 'es'})",
                      mask=result.mask, details={"searches": result.searches})
    vertex = _vertex(graph, args.start, args.graph)
    try:
        label = graph.label_id(args.label)
    except UserError as exc:
        raise UserError(f"{args.graph}: {exc}") from None
    mask = edges_from(graph, vertex, label)
    return Answer(task, METHOD_NR, f"# {int(mask.sum())} of {m} edges lie on nonrepetitive "
                  f"walks from {args.start} starting with label {args.label}", mask=mask,
                  details={"from": args.start, "label": args.label})


def _path(graph: LabelledGraph, data, args: argparse.Namespace, task: str) -> Answer:
    from reductions.nonrepetitive import nonrepetitive_path, simple_path_problems
    from ..gadgets.nrpath import simple_path
    name = graph.vertex_name
    p, q = _two_vertices(graph, args.graph, args.path, (data.p, data.q), "--path", "p and q")
    ends = {"source": str(name(p)), "target": str(name(q))}
    if task == "simple-path":
        answer = simple_path(graph, p, q, args.solver)
        if answer.arcs is None:
            return Answer(task, answer.method, f"no simple nonrepetitive path from {name(p)} "
                          f"to {name(q)} ({_proof(answer.method)})", False, details=ends)
        return Answer(task, answer.method, f"# simple nonrepetitive path from {name(p)} to "
                      f"{name(q)}: {len(answer.arcs)} edges ({answer.method})", True,
                      answer.arcs, details=ends)
    path = nonrepetitive_path(graph, p, q)
    if path is None:
        return Answer(task, METHOD_NR, f"no nonrepetitive path from {name(p)} to {name(q)}",
                      False, details=ends)
    simple = not simple_path_problems(graph, path, p, q)
    return Answer(task, METHOD_NR, f"# nonrepetitive path from {name(p)} to {name(q)} with "
                  f"fewest edges: {len(path)} edges, {'simple' if simple else 'not simple'}",
                  True, path, details={**ends, "simple": simple})


def _cycle(graph: LabelledGraph, data, args: argparse.Namespace, task: str) -> Answer:
    from ..gadgets.nrpath import method_for, simple_cycle
    name = graph.vertex_name
    u, v = _two_vertices(graph, args.graph, args.simple_cycle, (data.q, data.p),
                         "--simple-cycle", "the arc from q to p")
    candidates = graph.arcs_between(u, v)
    if not candidates:
        raise UserError(f"no arc from {name(u)} to {name(v)} in {args.graph}")
    if not graph.directed:
        # Parallel edges with one label have the same answer (the test removes them all).
        labels = graph.arcs().labels
        candidates = list({int(labels[a]): a for a in reversed(candidates)}.values())[::-1]
    ends = {"source": str(name(u)), "target": str(name(v))}
    method = method_for(graph)
    for arc in candidates:
        answer = simple_cycle(graph, arc, args.solver)
        if answer.arcs is not None:
            return Answer(task, method, f"# simple nonrepetitive cycle through {name(u)} -> "
                          f"{name(v)}: {len(answer.arcs)} edges ({method})", True,
                          answer.arcs, details=ends)
    return Answer(task, method, f"no simple nonrepetitive cycle through an arc {name(u)} -> "
                  f"{name(v)} ({_proof(method)})", False, details=ends)


def run_nonrepetitive(args: argparse.Namespace) -> int:
    from ..formats.labelled_edges import read_labelled_edges, write_dot
    check_outputs({"--dot": args.dot}, inputs=[args.graph])
    limit = common.memory_limit(args)
    data = read_labelled_edges(args.graph, memory_limit=limit)
    graph = data.graph
    task = _task(args)
    ensure_fits(_estimate(graph, task), limit, f"nonrepetitive: {args.graph}")
    start = time.perf_counter()
    if task in ("cyclic-edges", "simple-cyclic-edges", "from"):
        answer = _listing(graph, args, task)
    elif task in ("path", "simple-path"):
        answer = _path(graph, data, args, task)
    else:
        answer = _cycle(graph, data, args, task)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(answer.record(graph, args.graph, seconds)))
    else:
        answer.print_text(graph)
    if args.dot:
        write_dot(args.dot, graph, data.p, data.q, answer.highlight)
    return answer.code


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
                    "answered through nr(G) in linear time (Eppstein 2005, §2.1). When the "
                    "path or cycle must be simple: on an undirected graph by the polynomial "
                    "algorithm of Theorem 3 (usp(G), a skew-symmetric graph, one regular-path "
                    "search); on a directed graph exactly with a SAT model (NP-complete, "
                    "Thm 4).")
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
                      help="is an arc U -> V on a simple nonrepetitive cycle? (Theorem 3 "
                           "undirected, SAT model directed; default: the arc q -> p)")
    task.add_argument("--simple-cyclic-edges", action="store_true",
                      help="the edges on simple nonrepetitive cycles (one cycle test per "
                           "edge: polynomial undirected, the SAT model directed)")
    top.add_argument("--label", metavar="L", help="first label, with --from")
    top.add_argument("--simple", action="store_true",
                     help="with --path: the path must be simple (exact: Theorem 3 "
                          "undirected, SAT model directed)")
    top.add_argument("--json", action="store_true",
                     help="print one JSON record (task, method that answered, status, the "
                          "path or the edges, seconds) instead of text")
    top.add_argument("--dot", metavar="OUT.dot", help="write DOT with the answer highlighted")
    top.add_argument("--solver", default=DEFAULT_SOLVER,
                     help=f"pysat solver for the simple questions on directed graphs "
                          f"(default: {DEFAULT_SOLVER})")
    common.add_memory_option(top)
    top.set_defaults(run=run_nonrepetitive)
