"""Bridge to LKH-3 (Helsgaun's Lin–Kernighan heuristic) for Hamiltonian-cycle instances.

LKH-3 reads a TSPLIB ``TYPE : HCP`` file with an ``EDGE_LIST`` section and treats it as a TSP in
which listed edges cost 0 and all other pairs cost 1, so a tour of cost 0 is a Hamiltonian
cycle. (Its ``ADJ_LIST`` reader is broken; only ``EDGE_LIST`` is written.) LKH is a
*heuristic*: a tour of positive cost proves nothing, so this bridge answers

* ``hamiltonian`` — the tour it wrote is a Hamiltonian cycle of the graph (checked here);
* ``unknown`` — anything else: a tour using non-edges (its cost is reported), no tour, a time-out.

It never answers ``no cycle``.

Two ways to run LKH:

* ``binary`` — an ``LKH`` executable on PATH (names tried: :data:`LKH_NAMES`) or given by path.
  The graph and a parameter file go into a temporary directory; LKH runs there without a
  shell, stdin closed, under the time limit (LKH's own ``TIME_LIMIT`` is set a little below
  it, so it normally stops by itself and writes its best tour); the ``OUTPUT_TOUR_FILE`` is
  read with :func:`solvers.formats.tsplib.read_tour`.
* ``elkai`` — the PyPI package ``elkai`` bundles LKH-3 as a library. Its private
  ``_elkai.solve_problem(params, problem)`` runs LKH with a parameter string naming a
  ``PROBLEM_FILE`` and returns the best tour (1-based), Hamiltonian or not. It runs in a child
  Python process, so a crash or a time-out cannot take this process down (optional extra
  ``lkh``). Used when asked for, or as the fallback when no binary is found.

LKH's licence allows research use only; it is not shipped with this project.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from reductions.errors import UserError

from .formats.atomic import atomic_write
from .formats.tsplib import TsplibError, read_tour, write_hcp
from .hcp import CycleStatus, HcpResult, heuristic_tour_result, normalized_graph
from .external import find_program, run_program
from .outcome import SolverUnavailable

LKH_NAMES = ("LKH", "lkh", "LKH-3", "lkh3")
DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to LKH when the caller sets no limit (it is a heuristic: it never stops with
a proof, and on graphs without a Hamiltonian cycle it would run all its trials)."""


class LkhError(UserError):
    """LKH ran but gave no usable output (crash, unreadable tour file)."""


def find_lkh(binary: str | None = None) -> str | None:
    """Path of the LKH executable: ``binary`` if given (checked), else the first of
    :data:`LKH_NAMES` on PATH, else None."""
    return find_program(binary, LKH_NAMES, what="LKH")


def elkai_available() -> bool:
    try:
        from elkai import _elkai  # noqa: F401
    except ImportError:
        return False
    return hasattr(_elkai, "solve_problem")


def lkh_parameters(problem_file: str | Path, tour_file: str | Path | None,
                   time_limit: float | None, seed: int = 1, runs: int = 1,
                   trace_level: int = 1) -> str:
    """The text of an LKH parameter file for an HCP instance.

    ``OPTIMUM = 0`` with ``STOP_AT_OPTIMUM`` (LKH's default) makes LKH stop as soon as it has
    a tour of cost 0, i.e. a Hamiltonian cycle. ``TIME_LIMIT`` is LKH's own limit in seconds
    (per run, from the start of the search)."""
    lines = [f"PROBLEM_FILE = {problem_file}"]
    if tour_file is not None:
        lines.append(f"OUTPUT_TOUR_FILE = {tour_file}")
    lines += ["OPTIMUM = 0", "STOP_AT_OPTIMUM = YES", f"RUNS = {runs}", f"SEED = {seed}",
              f"TRACE_LEVEL = {trace_level}"]
    if time_limit is not None:
        lines.append(f"TIME_LIMIT = {max(time_limit, 0.01):.2f}")
    return "\n".join(lines) + "\n"


def write_lkh_parameters(path: str | Path, problem_file: str | Path,
                         tour_file: str | Path | None, time_limit: float | None,
                         seed: int = 1, runs: int = 1) -> None:
    """Write :func:`lkh_parameters` to ``path`` (atomically)."""
    with atomic_write(path, "w") as out:
        out.write(lkh_parameters(problem_file, tour_file, time_limit, seed, runs))


def _inner_limit(time_limit: float) -> float:
    """LKH's own TIME_LIMIT: below the hard limit, leaving time for reading the graph and
    building candidate sets (which LKH does not count)."""
    return max(0.5 * time_limit, time_limit - max(2.0, 0.25 * time_limit))


def solve_hcp_lkh(num_vertices: int, edges, *, time_limit: float | None = None,
                  binary: str | None = None, backend: str = "auto", seed: int = 1,
                  keep_dir: str | Path | None = None) -> HcpResult:
    """Look for a Hamiltonian cycle of an undirected graph with LKH-3.

    ``backend``: ``binary`` (an LKH executable, ``binary`` or on PATH), ``elkai`` (the PyPI
    package), or ``auto`` (the binary if there is one, else elkai). ``time_limit`` defaults to
    :data:`DEFAULT_TIME_LIMIT`. ``keep_dir``: write the files there instead of a temporary
    directory (to inspect them). Raises :class:`~solvers.outcome.SolverUnavailable` when neither
    is available."""
    edges = normalized_graph(num_vertices, edges, directed=False)
    if num_vertices < 3:
        raise UserError("LKH needs a graph of at least 3 vertices")
    time_limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    path = find_lkh(binary) if backend in ("auto", "binary") else None
    if path is None and backend == "binary":
        raise SolverUnavailable(f"no LKH binary found on PATH (tried {', '.join(LKH_NAMES)}); "
                                f"build LKH-3 and put it on PATH, or give its path")
    if path is None and not elkai_available():
        raise SolverUnavailable("LKH is not available: no LKH binary on PATH (tried "
                                f"{', '.join(LKH_NAMES)}) and the elkai package is not "
                                f"installed (pip install 'sudoku-bridge[lkh]')")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-lkh-") as tmp:
        work = Path(keep_dir) if keep_dir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        problem = work / "graph.hcp"
        write_hcp(problem, num_vertices, edges, name="graph",
                  comment="written by sudoku-bridge for LKH-3")
        temp_dirs = [] if keep_dir else [work]     # removed if we die; a kept one stays
        if path is not None:
            result = _run_binary(path, num_vertices, edges, work, problem, time_limit, seed,
                                 temp_dirs)
        else:
            result = _run_elkai(num_vertices, edges, work, problem, time_limit, seed,
                                temp_dirs)
    result.stats["seconds"] = round(time.perf_counter() - start, 4)
    return result


def _run_binary(path: str, num_vertices: int, edges: np.ndarray, work: Path, problem: Path,
                time_limit: float, seed: int, temp_dirs: list[Path]) -> HcpResult:
    tour_file = work / "graph.tour"
    params = work / "graph.par"
    write_lkh_parameters(params, problem.name, tour_file.name, _inner_limit(time_limit), seed)
    stats = {"backend": "lkh", "lkh": path, "time_limit": time_limit, "iterations": 1,
             "cuts": 0}
    run = run_program([path, params.name], cwd=work, time_limit=time_limit,
                      temp_dirs=temp_dirs)
    if run.timed_out:
        stats["reason"] = f"time limit {time_limit:g} s reached before LKH wrote a tour"
        return HcpResult(CycleStatus.UNKNOWN, None, stats)
    stats["exit_code"] = run.exit_code
    if not tour_file.exists():
        if run.exit_code != 0:
            raise LkhError(f"LKH ({path}) {run.ended()} and wrote no tour: "
                           f"{run.tail(3) or 'no output'}")
        stats["reason"] = "LKH wrote no tour"
        return HcpResult(CycleStatus.UNKNOWN, None, stats)
    try:
        order = read_tour(tour_file, num_vertices)
    except TsplibError as exc:
        raise LkhError(f"LKH's tour file is unusable: {exc}") from None
    return heuristic_tour_result(num_vertices, edges, order, stats, "LKH")


_ELKAI_CHILD = """
import json, sys
from elkai import _elkai
params = open(sys.argv[1]).read()
tour = _elkai.solve_problem(params, "")
with open(sys.argv[2] + ".part", "w") as out:
    json.dump(list(tour), out)
import os
os.replace(sys.argv[2] + ".part", sys.argv[2])
"""


def _run_elkai(num_vertices: int, edges: np.ndarray, work: Path, problem: Path,
               time_limit: float, seed: int, temp_dirs: list[Path]) -> HcpResult:
    params = work / "graph.par"
    answer = work / "tour.json"
    write_lkh_parameters(params, problem.resolve(), None, _inner_limit(time_limit), seed)
    stats = {"backend": "lkh", "lkh": "elkai", "time_limit": time_limit, "iterations": 1,
             "cuts": 0}
    run = run_program([sys.executable, "-c", _ELKAI_CHILD, str(params), str(answer)],
                      cwd=work, time_limit=time_limit, temp_dirs=temp_dirs,
                      env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if run.timed_out:
        stats["reason"] = f"time limit {time_limit:g} s reached before LKH (elkai) finished"
        return HcpResult(CycleStatus.UNKNOWN, None, stats)
    stats["exit_code"] = run.exit_code
    if run.exit_code != 0 or not answer.exists():
        raise LkhError(f"LKH (elkai) {run.ended()} without a tour: "
                       f"{run.tail() or 'no output'}")
    values = np.asarray(json.loads(answer.read_text()), dtype=np.int64) - 1
    if values.size != num_vertices or not np.array_equal(np.sort(values),
                                                         np.arange(num_vertices)):
        raise LkhError(f"LKH (elkai) returned {values.size} vertices that are not a "
                       f"permutation of the graph's {num_vertices}")
    return heuristic_tour_result(num_vertices, edges, values, stats, "LKH")
