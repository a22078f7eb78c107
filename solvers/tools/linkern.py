"""Bridge to Concorde's ``linkern`` (chained Lin–Kernighan) for Hamiltonian-cycle instances.

linkern reads the graph as Concorde's sparse edge file (``-N 10``, the file ``emit hcp
--format concorde`` writes: ``ncount ecount``, then ``u v 0`` per edge, 0-based); the same file
is given with ``-g`` as its candidate edge set (without it, small graphs fail with
``CCedgegen_junk_k_nearest failed``). Listed edges cost 0 and missing pairs linkern's default
length ``ncount``, so a tour of length 0 is a Hamiltonian cycle. Its ``-o`` file is the tour as
an edge list in tour order (``ncount ncount``, then ``u v w``), read with
:func:`solvers.formats.tsplib.read_tour`.

The command: ``linkern -s SEED -r 1 -h 0.5 -R KICKS [-t SECONDS] -Q -N 10 -g G -o OUT G``.

* ``-r 1`` with ``-h 0.5``: one run that stops as soon as a tour of length ≤ 0.5, i.e. 0, is
  found. (Without ``-r``, linkern *repeats* its whole search until the ``-h`` bound is met:
  on a graph without a Hamiltonian cycle ``-h 0`` would never end. With ``-h 0`` the bound is
  ignored, ``length_bound > 0`` being linkern's test.)
* ``-R KICKS``: a large number of kicks, so that the search goes on until ``-t``; ``-t`` is
  checked after each kick, in CPU seconds. It is set below our own wall-clock limit
  (:func:`solvers.runtime.processes.run_program` kills the group at that limit), so that linkern
  normally stops by itself and writes its best tour. (On a loaded machine CPU time runs
  slower than the wall clock, and the hard limit may come first: then "unknown".)

It runs through the tour-program skeleton (:mod:`solvers.tools.tour_programs`). linkern is
a heuristic: a tour of positive length proves nothing. The answer is ``hamiltonian`` (the
tour, checked against the graph) or ``unknown`` — never ``no cycle``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from reductions.errors import UserError

from ..runtime.processes import ProgramRun, find_program
from ..formats.graph_files import write_concorde_edges
from ..hamiltonian import HcpResult, normalized_graph
from ..outcome import SolverUnavailable
from .tour_programs import TourProgram, program_tour

LINKERN_NAMES = ("linkern",)
DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to linkern when the caller sets no limit (it never stops with a proof)."""
KICKS = 1_000_000_000
"""linkern's ``-R``: in effect unbounded, the time limit ends the search."""


class LinkernError(UserError):
    """linkern ran but gave no usable output (crash, unreadable tour file)."""


def find_linkern(binary: str | None = None) -> str | None:
    """Path of linkern: ``binary`` if given (checked), else ``linkern`` on PATH, else None."""
    return find_program(binary, LINKERN_NAMES, what="linkern")


def linkern_command(binary: str, edge_file: str, tour_file: str, *, seed: int = 1,
                    cpu_seconds: float | None = None) -> list[str]:
    """The argument list (see the module docstring)."""
    args = [binary, "-s", str(seed), "-r", "1", "-h", "0.5", "-R", str(KICKS)]
    if cpu_seconds is not None:
        args += ["-t", f"{max(cpu_seconds, 0.01):.2f}"]
    return args + ["-Q", "-N", "10", "-g", edge_file, "-o", tour_file, edge_file]


def _inner_limit(time_limit: float) -> float:
    """linkern's own ``-t``: below the hard limit, leaving time to read the graph and write
    the tour."""
    return max(0.5 * time_limit, time_limit - max(2.0, 0.1 * time_limit))


_FINAL = re.compile(r"Overall Best Cycle:\s*([0-9.eE+-]+)")


class LinkernRun(TourProgram):
    """linkern on Concorde's sparse edge file (module docstring)."""

    label = "linkern"
    prefix = "sudoku-bridge-linkern-"

    def __init__(self, num_vertices: int, edges, *, binary: str, seed: int, **job):
        super().__init__(num_vertices, edges, **job)
        self.binary, self.seed = binary, seed

    def write_input(self, work: Path) -> None:
        write_concorde_edges(work / "graph.edg", self.num_vertices, self.edges)

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        run = self.run_program(linkern_command(self.binary, "graph.edg", "graph.lk",
                                               seed=self.seed,
                                               cpu_seconds=_inner_limit(self.time_limit)),
                               work, temp_dirs)
        self.stats["exit_code"] = run.exit_code
        found = _FINAL.search(run.stdout.decode("utf-8", "replace"))
        if found:
            self.stats["reported_length"] = float(found.group(1))
        return run

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        return program_tour(run, work / "graph.lk", self.num_vertices, self.stats,
                            name=f"linkern ({self.binary})", time_limit=self.time_limit,
                            where="linkern's tour file", error=LinkernError)


def solve_hcp_linkern(num_vertices: int, edges, *, time_limit: float | None = None,
                      binary: str | None = None, seed: int = 1,
                      keep_dir: str | Path | None = None) -> HcpResult:
    """Look for a Hamiltonian cycle of an undirected graph with linkern (see the module
    docstring). Raises :class:`~solvers.outcome.SolverUnavailable` without a binary."""
    path = find_linkern(binary)
    if path is None:
        raise SolverUnavailable("no linkern binary found on PATH; linkern is part of Concorde "
                                "(academic licence, not packaged): build it and put it on "
                                "PATH or give its path")
    edges = normalized_graph(num_vertices, edges, directed=False)
    if num_vertices < 3:
        raise UserError("linkern needs a graph of at least 3 vertices")
    time_limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    stats: dict = {"backend": "linkern", "linkern": path, "time_limit": time_limit,
                   "iterations": 1, "cuts": 0}
    return LinkernRun(num_vertices, edges, binary=path, seed=seed, time_limit=time_limit,
                      stats=stats, keep_dir=keep_dir).solve()
