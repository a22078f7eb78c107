"""Bridge to Concorde (Applegate, Bixby, Chvátal, Cook) for Hamiltonian-cycle instances.

Concorde solves the symmetric TSP; it has no HCP input type. The graph is handed to it as a
TSP through its *sparse edge file* (``-N 10``): a line ``ncount ecount``, then one line
``end1 end2 weight`` per edge, vertices 0-based. Every edge of the graph gets weight 0; pairs
that are not listed get Concorde's default length for a sparse file (larger than any listed
one). So a tour of length 0 is exactly a Hamiltonian cycle, and no dense matrix (14,397² entries
for a 9×9 puzzle) is ever written.

Concorde runs in a temporary directory (it writes its work files next to the problem), without
a shell, stdin closed, under the time limit; ``-o`` names the solution file (``ncount`` then
the vertex order, 0-based), read with :func:`solvers.formats.tsplib.read_tour`. The answer:

* ``hamiltonian`` — the tour uses only edges of the graph (cost 0), checked here;
* ``unknown`` — anything else (time-out, no solution file, a tour of positive cost). A
  completed Concorde run with optimum > 0 would in fact prove there is no Hamiltonian cycle;
  this bridge reports that optimum in its statistics but, being unable to test such runs here,
  does not turn it into a "no cycle" claim.

Concorde is academic-licence software and is not installable from Debian or PyPI; give the path
of a ``concorde`` binary, or put it on PATH.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import numpy as np

from reductions.errors import UserError

from .formats.atomic import atomic_write
from .formats.tsplib import CHUNK_ROWS, TsplibError, format_int_rows, read_tour
from .hcp import CycleStatus, HcpResult, heuristic_tour_result, normalized_graph
from .external import find_program, run_program
from .outcome import SolverUnavailable

CONCORDE_NAMES = ("concorde",)
SPARSE_NORM = 10
"""Concorde's ``-N`` code for a sparse edge file."""


class ConcordeError(UserError):
    """Concorde ran but gave no usable output (crash, unreadable solution file)."""


def find_concorde(binary: str | None = None) -> str | None:
    """Path of the concorde executable: ``binary`` if given (checked), else ``concorde`` on
    PATH, else None."""
    return find_program(binary, CONCORDE_NAMES, what="Concorde")


def write_concorde_edges(path: str | Path, num_vertices: int, edges, weight: int = 0) -> None:
    """Write the graph as Concorde's sparse edge file: ``ncount ecount``, then ``u v w`` per
    edge (0-based, weight ``weight`` on every edge), streamed and atomic."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    with atomic_write(path, "wb") as out:
        out.write(f"{num_vertices} {len(edges)}\n".encode())
        for lo in range(0, len(edges), CHUNK_ROWS):
            chunk = edges[lo:lo + CHUNK_ROWS]
            rows = np.concatenate([chunk, np.full((len(chunk), 1), weight, dtype=np.int64)],
                                  axis=1)
            out.write(format_int_rows(rows))


def concorde_command(binary: str, edge_file: str, solution_file: str,
                     seed: int | None = 1) -> list[str]:
    """The argument list: sparse norm, solution file, delete work files at the end."""
    args = [binary, "-x", "-N", str(SPARSE_NORM), "-o", solution_file]
    if seed is not None:
        args += ["-s", str(seed)]
    return args + [edge_file]


_OPTIMUM = re.compile(r"Optimal Solution:\s*([-+0-9.eE]+)")


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
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-concorde-") as tmp:
        work = Path(keep_dir) if keep_dir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        edge_file, solution = work / "graph.edg", work / "graph.sol"
        write_concorde_edges(edge_file, num_vertices, edges)
        run = run_program(concorde_command(path, edge_file.name, solution.name, seed),
                          cwd=work, time_limit=time_limit,
                          temp_dirs=[] if keep_dir else [work])
        stats["seconds"] = round(time.perf_counter() - start, 4)
        if run.timed_out:
            stats["reason"] = f"time limit {time_limit:g} s reached before Concorde finished"
            return HcpResult(CycleStatus.UNKNOWN, None, stats)
        stats["exit_code"] = run.exit_code
        found = _OPTIMUM.search(run.stdout.decode("utf-8", "replace"))
        if found:
            stats["reported_optimum"] = float(found.group(1))
        if not solution.exists():
            if run.exit_code != 0:
                raise ConcordeError(f"Concorde ({path}) {run.ended()} and wrote no tour: "
                                    f"{run.tail(3) or 'no output'}")
            stats["reason"] = "Concorde wrote no tour"
            return HcpResult(CycleStatus.UNKNOWN, None, stats)
        try:
            order = read_tour(solution, num_vertices)
        except TsplibError as exc:
            raise ConcordeError(f"Concorde's solution file is unusable: {exc}") from None
    return heuristic_tour_result(num_vertices, edges, order, stats, "Concorde",
                                 cost_key="non_edges_in_tour")
