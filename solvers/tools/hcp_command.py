"""Any Hamiltonian-cycle program as a solver, by a command template (``--hcp-cmd``).

The template is one command line (:mod:`solvers.tools.templates`), split like a shell would
(``shlex``) but run **without** a shell, through the tour-program skeleton
(:mod:`solvers.tools.tour_programs`: own process group, time limit, no leftovers).
Placeholders, anywhere inside an argument:

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
  vertex once) → :class:`~solvers.runtime.processes.ExternalSolverError`, one line.

It never answers ``no cycle``: no template says how a program would prove that.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime.processes import ExternalSolverError, ProgramRun
from ..formats.graph_files import GRAPH_FORMATS, check_format, default_format, write_graph
from ..hamiltonian import HcpResult
from .templates import CommandTemplate, TemplateRules, parse_template
from .tour_programs import TourProgram, program_tour

_SUFFIX = {"tsplib": ".hcp", "arcs": ".arcs", "concorde": ".edg", "graphml": ".graphml",
           "edgelist": ".edgelist"}


def hcp_templates(directed: bool) -> TemplateRules:
    """``--hcp-cmd``'s rules for a graph that is ``directed`` or not (the forms it can be
    written in differ): ``{input}``, ``{input.FORMAT}`` (several allowed), ``{output}``;
    nothing else."""
    return TemplateRules(
        option="--hcp-cmd",
        hint="give a command line, e.g. 'linkern -r 1 -h 0.5 -Q -N 10 -g {input.concorde} "
             "-o {output} {input.concorde}'",
        default_format=str(default_format(directed)),
        input_format=lambda name: str(check_format(name, directed)),
        missing_input="{option}: the command names no graph file; put {{input}} (or "
                      "{{input.FORMAT}}) where the program reads the graph",
        unknown_placeholder="{option}: unknown placeholder {{{name}}}; use {{input}}, "
                            "{{input.FORMAT}} (FORMAT: " + ", ".join(GRAPH_FORMATS)
                            + ") or {{output}}")


def parse_hcp_template(template: str, directed: bool) -> CommandTemplate:
    """The parsed ``--hcp-cmd`` template; one-line errors for a bad one."""
    return parse_template(template, hcp_templates(directed))


class CommandRun(TourProgram):
    """The program of a ``--hcp-cmd`` template (module docstring)."""

    prefix = "sudoku-bridge-hcp-cmd-"

    def __init__(self, num_vertices: int, edges, *, template: CommandTemplate, comment: str,
                 **job):
        super().__init__(num_vertices, edges, **job)
        self.template, self.comment = template, comment
        self.files: dict[str, Path] = {}       # the graph's file of each form named

    def write_input(self, work: Path) -> None:
        for fmt in self.template.input_formats:
            path = self.files[fmt] = work / f"graph{_SUFFIX[fmt]}"
            write_graph(path, fmt, self.num_vertices, self.edges, directed=self.directed,
                        name="graph", comment=self.comment)

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        output = work / "tour.out"
        args = self.template.argv(None, inputs=self.files, output=output)
        run = self.run_program(args, work, temp_dirs,
                               output_files=[output] if self.template.answer_in_file else [])
        self.stats["exit_code"] = run.exit_code
        self.label = run.name
        return run

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        if self.template.answer_in_file:
            tour, where = work / "tour.out", f"the tour file of {run.name}"
        else:
            tour, where = work / "stdout.txt", f"the output of {run.name}"
            tour.write_bytes(run.stdout)
        return program_tour(run, tour, self.num_vertices, self.stats, name=run.name,
                            time_limit=self.time_limit, where=where,
                            error=ExternalSolverError)


def run_hcp_command(template: str, num_vertices: int, edges, *, directed: bool,
                    time_limit: float | None, comment: str = "") -> HcpResult:
    """Run the program of ``template`` on the graph and read its tour (module docstring)."""
    parsed = parse_hcp_template(template, directed)
    stats: dict = {"backend": "command", "command": template, "time_limit": time_limit,
                   "iterations": 1, "cuts": 0}
    return CommandRun(num_vertices, edges, template=parsed, comment=comment,
                      time_limit=time_limit, stats=stats, directed=directed).solve()
