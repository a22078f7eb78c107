"""Any Hamiltonian-cycle program as a solver, by a command template (``--hcp-cmd``).

The template is one command line, split like a shell would (``shlex``) but run **without** a
shell, through :func:`solvers.external.run_program` (own process group, time limit, no
leftovers). Placeholders, anywhere inside an argument:

* ``{input}`` — the graph in its natural file form: TSPLIB HCP for the undirected graph, the
  plain arc list for the directed one (:func:`~solvers.formats.graph_files.default_format`);
* ``{input.FORMAT}`` — the graph in another form: ``{input.tsplib}``, ``{input.arcs}``,
  ``{input.concorde}`` (Concorde's sparse edge file, for ``linkern``/``concorde -N 10``),
  ``{input.graphml}``, ``{input.edgelist}`` (see :mod:`solvers.formats.graph_files`);
* ``{output}`` — a file name for the program's tour. Without it the tour is read from the
  program's stdout (which must then hold the tour only).

Only the files named are written. E.g.
``'linkern -N 10 -g {input.concorde} -o {output} {input.concorde}'``.

The tour is read by content (:func:`solvers.formats.tsplib.read_tour`: TSPLIB TOUR, Concorde's
order, linkern's edge list, a plain vertex list). The program is treated as a heuristic:

* a tour that is a Hamiltonian cycle of the graph → ``hamiltonian`` (then decoded and
  verified by the caller);
* a tour using non-edges, no tour (exit 0), or the time limit → ``unknown``;
* a non-zero exit without a tour, or a tour file that is no tour at all (garbage, not every
  vertex once) → :class:`~solvers.external.ExternalSolverError`, one line.

It never answers ``no cycle``: no template says how a program would prove that.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from reductions.errors import UserError

from .external import ExternalSolverError, run_program, split_command
from .formats.graph_files import GRAPH_FORMATS, check_format, default_format, write_graph
from .hamiltonian import CycleStatus, HcpResult, heuristic_tour_result, program_tour

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_SUFFIX = {"tsplib": ".hcp", "arcs": ".arcs", "concorde": ".edg", "graphml": ".graphml",
           "edgelist": ".edgelist"}


def parse_template(template: str, directed: bool) -> tuple[list[str], set[str], bool]:
    """The template's arguments, the graph formats it names, and whether it names
    ``{output}``; one-line errors for a bad template."""
    args = split_command(template, "--hcp-cmd", "give a command line, e.g. 'linkern -r 1 -h "
                         "0.5 -Q -N 10 -g {input.concorde} -o {output} {input.concorde}'")
    formats, output = set(), False
    for arg in args:
        for name in _PLACEHOLDER.findall(arg):
            if name == "output":
                output = True
            elif name == "input":
                formats.add(str(default_format(directed)))
            elif name.startswith("input."):
                formats.add(str(check_format(name[len("input."):], directed)))
            else:
                raise UserError(f"--hcp-cmd: unknown placeholder {{{name}}}; use {{input}}, "
                                f"{{input.FORMAT}} (FORMAT: {', '.join(GRAPH_FORMATS)}) or "
                                f"{{output}}")
    if not formats:
        raise UserError("--hcp-cmd: the command names no graph file; put {input} (or "
                        "{input.FORMAT}) where the program reads the graph")
    return args, formats, output


def run_hcp_command(template: str, num_vertices: int, edges, *, directed: bool,
                    time_limit: float | None, comment: str = "") -> HcpResult:
    """Run the program of ``template`` on the graph and read its tour (module docstring)."""
    args, formats, has_output = parse_template(template, directed)
    stats: dict = {"backend": "command", "command": template, "time_limit": time_limit,
                   "iterations": 1, "cuts": 0}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-hcp-cmd-") as tmp:
        work = Path(tmp)
        files = {"output": str(work / "tour.out")}
        for fmt in formats:
            path = work / f"graph{_SUFFIX[fmt]}"
            write_graph(path, fmt, num_vertices, edges, directed=directed, name="graph",
                        comment=comment)
            files[f"input.{fmt}"] = str(path)
        files["input"] = files.get(f"input.{default_format(directed)}", "")

        def substitute(arg: str) -> str:
            return _PLACEHOLDER.sub(lambda m: files[m.group(1)], arg)

        run = run_program([substitute(arg) for arg in args], cwd=work,
                          time_limit=time_limit, temp_dirs=[work],
                          output_files=[files["output"]] if has_output else [])
        stats["seconds"] = round(time.perf_counter() - start, 4)
        stats["exit_code"] = run.exit_code
        name = run.name
        tour = Path(files["output"]) if has_output else work / "stdout.txt"
        if not has_output:
            tour.write_bytes(run.stdout)
        order = program_tour(run, tour, num_vertices, stats, name=name, time_limit=time_limit,
                             where=(f"the tour file of {name}" if has_output
                                    else f"the output of {name}"),
                             error=ExternalSolverError)
        if order is None:
            return HcpResult(CycleStatus.UNKNOWN, None, stats)
    return heuristic_tour_result(num_vertices, edges, order, stats, name,
                                 cost_key="non_edges_in_tour", directed=directed)
