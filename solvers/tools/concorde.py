"""Bridge to Concorde (Applegate, Bixby, Chvátal, Cook) for Hamiltonian-cycle instances.

Concorde solves the symmetric TSP; it has no HCP input type. The graph is handed to it as a
TSP through its *sparse edge file* (``-N 10``, written by
:func:`solvers.formats.graph_files.write_concorde_edges`, the file ``emit hcp --format
concorde`` writes): a line ``ncount ecount``, then ``end1 end2 weight`` per edge, 0-based.
Every edge of the graph gets weight 0; pairs not listed get Concorde's default length for a
sparse file, ``(max weight + 1) * ncount`` = ``ncount``. So a tour of length 0 is exactly a
Hamiltonian cycle, a tour of length ``k * ncount`` uses ``k`` non-edges, and no dense matrix
(14,397² entries for a 9×9 puzzle) is ever written.

Concorde runs in a temporary directory (it writes its work files ``NAME.mas/.pul/.sav`` next to
the problem; ``-x`` is not used: with it the exit status is that of its last ``unlink``, 255
after a good run), without a shell, stdin closed, under the time limit; ``-o`` names the
solution file (``ncount`` then the vertex order, 0-based), read with
:func:`solvers.formats.tsplib.read_tour` (the tour-program skeleton,
:mod:`solvers.tools.tour_programs`). Concorde is exact, so the answer is

* ``hamiltonian`` — the tour uses only edges of the graph (cost 0), checked here;
* ``no cycle`` — Concorde ended normally (exit 0) printing ``Optimal Solution: V`` with
  ``V > 0``, and the tour it wrote costs exactly ``V`` (``V / ncount`` non-edges): its branch
  and bound proved that no tour of length 0, i.e. no Hamiltonian cycle, exists;
* ``unknown`` — anything else (time-out, no solution file, no optimum printed, an optimum
  that does not match the tour).

Concorde is academic-licence software and is not installable from Debian or PyPI; give the path
of a ``concorde`` binary, or put it on PATH. (The build used for testing links Debian's
QSopt_ex; on the reduced 9×9 Sudoku graphs its LP solver struggles, see the README.)
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from reductions.errors import UserError

from ..runtime.processes import ProgramRun, find_program
from ..formats.graph_files import write_concorde_edges
from ..formats.tsplib import TsplibError, read_tour
from ..hamiltonian import CycleStatus, HcpResult, normalized_graph
from ..outcome import SolverUnavailable
from .tour_programs import TourProgram

CONCORDE_NAMES = ("concorde",)
SPARSE_NORM = 10
"""Concorde's ``-N`` code for a sparse edge file."""


class ConcordeError(UserError):
    """Concorde ran but gave no usable output (crash, unreadable solution file)."""


def find_concorde(binary: str | None = None) -> str | None:
    """Path of the concorde executable: ``binary`` if given (checked), else ``concorde`` on
    PATH, else None."""
    return find_program(binary, CONCORDE_NAMES, what="Concorde")


def concorde_command(binary: str, edge_file: str, solution_file: str,
                     seed: int | None = 1) -> list[str]:
    """The argument list: sparse norm, solution file (run it in a scratch directory: its work
    files land there)."""
    args = [binary, "-N", str(SPARSE_NORM), "-o", solution_file]
    if seed is not None:
        args += ["-s", str(seed)]
    return args + [edge_file]


_OPTIMUM = re.compile(r"Optimal Solution:\s*([-+0-9.eE]+)")


class ConcordeRun(TourProgram):
    """Concorde on the sparse edge file; a completed run's positive optimum is a proof
    (module docstring)."""

    label = "Concorde"
    prefix = "sudoku-bridge-concorde-"

    def __init__(self, num_vertices: int, edges, *, binary: str, seed: int | None, **job):
        super().__init__(num_vertices, edges, **job)
        self.binary, self.seed = binary, seed

    def write_input(self, work: Path) -> None:
        write_concorde_edges(work / "graph.edg", self.num_vertices, self.edges)

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        return self.run_program(concorde_command(self.binary, "graph.edg", "graph.sol",
                                                 self.seed), work, temp_dirs)

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        stats, solution = self.stats, work / "graph.sol"
        if run.timed_out:
            stats["reason"] = (f"time limit {self.time_limit:g} s reached before Concorde "
                               f"finished")
            return None
        stats["exit_code"] = run.exit_code
        found = _OPTIMUM.search(run.stdout.decode("utf-8", "replace"))
        if found:
            stats["reported_optimum"] = float(found.group(1))
        if not solution.exists():
            if run.exit_code != 0:
                raise ConcordeError(f"Concorde ({self.binary}) {run.ended()} and wrote no "
                                    f"tour: {run.tail(3) or 'no output'}")
            stats["reason"] = "Concorde wrote no tour"
            return None
        try:
            return read_tour(solution, self.num_vertices)
        except TsplibError as exc:
            raise ConcordeError(f"Concorde's solution file is unusable: {exc}") from None

    def interpret(self, result: HcpResult, run: ProgramRun) -> HcpResult:
        return proved_no_cycle(result, self.num_vertices, run.exit_code)


def solve_hcp_concorde(num_vertices: int, edges, *, time_limit: float | None = None,
                       binary: str | None = None, seed: int | None = 1,
                       keep_dir: str | Path | None = None) -> HcpResult:
    """Look for a Hamiltonian cycle of an undirected graph with Concorde (see the module
    docstring). Raises :class:`~solvers.outcome.SolverUnavailable` without a binary."""
    path = find_concorde(binary)
    if path is None:
        raise SolverUnavailable("no concorde binary found on PATH; Concorde is not packaged "
                                "(academic licence): build it and put it on PATH or give "
                                "its path")
    edges = normalized_graph(num_vertices, edges, directed=False)
    if num_vertices < 3:
        raise UserError("Concorde needs a graph of at least 3 vertices")
    stats: dict = {"backend": "concorde", "concorde": path, "time_limit": time_limit,
                   "iterations": 1, "cuts": 0}
    return ConcordeRun(num_vertices, edges, binary=path, seed=seed, time_limit=time_limit,
                       stats=stats, keep_dir=keep_dir).solve()


def proved_no_cycle(result: HcpResult, num_vertices: int, exit_code: int | None) -> HcpResult:
    """Turn a completed Concorde run whose proved optimum is positive into "no cycle" (see the
    module docstring); any other result is returned as it is."""
    stats = result.stats
    optimum, non_edges = stats.get("reported_optimum"), stats.get("non_edges_in_tour")
    if (result.status != CycleStatus.UNKNOWN or exit_code != 0 or optimum is None
            or non_edges is None or optimum <= 0):
        return result
    if optimum != non_edges * num_vertices:
        stats["reason"] += (f"; Concorde's reported optimum {optimum:g} is not the cost of "
                            f"its tour ({non_edges} × {num_vertices}): no proof taken")
        return result
    stats["reason"] = (f"Concorde proved the optimal tour uses {non_edges} non-edge"
                       f"{'s' if non_edges > 1 else ''} (optimum {optimum:g} > 0): no "
                       f"Hamiltonian cycle")
    return HcpResult(CycleStatus.NO_CYCLE, None, stats)
