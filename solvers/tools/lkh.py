"""Bridge to LKH-3 (Helsgaun's Lin–Kernighan heuristic) for Hamiltonian-cycle instances.

LKH-3 reads a TSPLIB ``TYPE : HCP`` file with an ``EDGE_LIST`` section and treats it as a TSP in
which listed edges cost 0 and all other pairs cost 1, so a tour of cost 0 is a Hamiltonian
cycle. (Its ``ADJ_LIST`` reader is broken; only ``EDGE_LIST`` is written.) LKH is a
*heuristic*: a tour of positive cost proves nothing, so this bridge answers

* ``hamiltonian`` — the tour it wrote is a Hamiltonian cycle of the graph (checked here);
* ``unknown`` — anything else: a tour using non-edges (its cost is reported), no tour, a time-out.

It never answers ``no cycle``.

**The files.** For a puzzle the problem file is the one ``emit hcp`` writes for the same
options (:func:`solvers.formats.hcp_export.write_export`: same NAME, COMMENT and edge
order — LKH's search depends on the edge order), and the parameter file is
:func:`lkh_parameters`: ``OPTIMUM = 0`` (stop at a Hamiltonian cycle), ``RUNS``, ``SEED``,
``POPULATION_SIZE = 1`` (without it LKH goes on with its remaining runs after one has found the
cycle), the search keywords :data:`SEARCH_KEYWORDS` (chosen by measurement, see
``benchmarks/bench_lkh_params.py``), and the time limits. So ``LKH graph.par`` by hand on the
emitted file repeats the bridge's run exactly.

**The time limit** counts LKH's whole run: ``TOTAL_TIME_LIMIT`` (LKH-3, from program start,
preprocessing included) is set a little below our own limit, which stays the hard bound:
:func:`~solvers.runtime.processes.run_program` kills LKH's process group at the limit. LKH measures
*CPU* time, we measure wall time; on a loaded machine LKH may still be running at our limit.
LKH rewrites its ``OUTPUT_TOUR_FILE`` at every improvement, so a tour left by a killed LKH is
still read (and checked: a file cut short is no answer). A binary that does not know
``TOTAL_TIME_LIMIT`` (it says "Unknown keyword") is run again with the per-run
``TIME_LIMIT`` only (which does not count the preprocessing; our limit bounds the rest).

Two ways to run LKH:

* ``binary`` — an ``LKH`` executable on PATH (names tried: :data:`LKH_NAMES`) or given by path,
  run in a temporary directory without a shell, stdin closed; the ``OUTPUT_TOUR_FILE`` is read
  with :func:`solvers.formats.tsplib.read_tour`.
* ``elkai`` — the PyPI package ``elkai`` (2.0.1 bundles LKH 3.0.8, which has
  ``TOTAL_TIME_LIMIT``) as a library. Its private ``_elkai.solve_problem(params, problem)`` runs
  LKH with the same parameter text (naming the same ``PROBLEM_FILE``) and returns the best
  tour. It runs in a child Python process, so a crash or a time-out cannot take this process
  down (optional extra ``lkh``); a killed child leaves no tour. Used when asked for, or as
  the fallback when no binary is found.

Both go through the tour-program skeleton (:mod:`solvers.tools.tour_programs`, class
:class:`LkhRun`). LKH's licence allows research use only; it is not shipped with this project.
"""

from __future__ import annotations

import enum
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from reductions.errors import UserError
from reductions.reading import read_text

from ..runtime.processes import ExternalSolverError, ProgramRun, find_program, run_program
from ..formats.atomic import atomic_write
from ..formats.tsplib import TsplibError, read_tour, tour_limit, write_hcp
from ..hamiltonian import CycleStatus, HcpResult, normalized_graph
from ..outcome import SolverUnavailable
from .tour_programs import TourProgram

LKH_NAMES = ("LKH", "lkh", "LKH-3", "lkh3")
DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to LKH when the caller sets no limit (it is a heuristic: it never stops with
a proof, and on graphs without a Hamiltonian cycle it would run all its trials)."""

DEFAULT_RUNS = 1
DEFAULT_SEED = 1

SEARCH_KEYWORDS: dict[str, str] = {"SUBGRADIENT": "NO"}
"""LKH keywords added to every parameter file (beyond the problem, tour, runs, seed and time
keywords), chosen by ``benchmarks/bench_lkh_params.py`` on Haythorpe's graphs: without the
subgradient ascent (LKH's preprocessing, which no time limit interrupts and which takes
longer than any sensible limit on unreduced graphs) the reduced graphs' cycles come sooner,
and LKH writes a tour within the limit on every graph measured (figures:
``benchmarks/results/lkh_params.md``, ``benchmarks/results/design_figures.md``)."""

UNKNOWN_TOTAL_LIMIT = b"Unknown keyword: TOTAL_TIME_LIMIT"


class LkhBackend(enum.StrEnum):
    """How LKH is run: ``auto`` (the binary if there is one, else elkai), ``binary``, ``elkai``."""

    AUTO = "auto"
    BINARY = "binary"
    ELKAI = "elkai"


class LkhError(ExternalSolverError):
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


def unavailable_reason(options: Mapping[str, Any] | None = None) -> str | None:
    """Why LKH cannot run here with the route's ``options`` (None when ``lkh_binary`` names
    a program — checked when it runs — or an LKH binary is on PATH, or elkai is installed):
    the availability check of the ``lkh`` route."""
    if (options or {}).get("lkh_binary") or find_lkh() is not None or elkai_available():
        return None
    return (f"LKH is not available: no LKH binary on PATH (tried {', '.join(LKH_NAMES)}) and "
            f"the elkai package is not installed (pip install 'sudoku-bridge[lkh]')")


def lkh_time_limit(time_limit: float) -> float:
    """LKH's own ``TOTAL_TIME_LIMIT`` for our hard limit ``time_limit``: a little below it,
    so that LKH stops by itself and writes its tour before we kill it (10%, at least 0.5 s,
    at most 5 s earlier)."""
    margin = min(5.0, max(0.5, 0.1 * time_limit))
    return max(time_limit - margin, 0.5 * time_limit, 0.01)


def lkh_parameters(problem_file: str | Path, tour_file: str | Path | None, *,
                   time_limit: float | None = None, total_time_limit: bool = True,
                   runs: int = DEFAULT_RUNS, seed: int = DEFAULT_SEED,
                   trace_level: int = 1) -> str:
    """The text of the LKH parameter file for an HCP instance (see the module docstring).

    ``time_limit``: LKH's own limit in seconds — as ``TOTAL_TIME_LIMIT`` (the whole run), or
    with ``total_time_limit=False`` (for an LKH that lacks it) as ``TIME_LIMIT`` shared
    among the runs (each run's search; preprocessing not counted)."""
    lines = [f"PROBLEM_FILE = {problem_file}"]
    if tour_file is not None:
        lines.append(f"OUTPUT_TOUR_FILE = {tour_file}")
    lines += ["OPTIMUM = 0", "STOP_AT_OPTIMUM = YES", f"RUNS = {runs}",
              "POPULATION_SIZE = 1", f"SEED = {seed}", f"TRACE_LEVEL = {trace_level}"]
    lines += [f"{key} = {value}" for key, value in SEARCH_KEYWORDS.items()]
    if time_limit is not None:
        if total_time_limit:
            lines.append(f"TOTAL_TIME_LIMIT = {max(time_limit, 0.01):.2f}")
        else:
            lines.append(f"TIME_LIMIT = {max(time_limit / runs, 0.01):.2f}")
    return "\n".join(lines) + "\n"


def write_lkh_parameters(path: str | Path, problem_file: str | Path,
                         tour_file: str | Path | None, **options) -> None:
    """Write :func:`lkh_parameters` to ``path`` (atomically)."""
    with atomic_write(path, "w") as out:
        out.write(lkh_parameters(problem_file, tour_file, **options))


def check_run_options(runs: int, seed: int) -> None:
    if not isinstance(runs, int) or runs < 1:
        raise UserError(f"--lkh-runs must be a positive integer, got {runs!r}")
    if not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise UserError(f"--lkh-seed must be an integer from 0 to 2^32-1, got {seed!r}")


def solve_hcp_lkh(num_vertices: int, edges, *, time_limit: float | None = None,
                  binary: str | None = None, backend: str = LkhBackend.AUTO,
                  runs: int = DEFAULT_RUNS, seed: int = DEFAULT_SEED,
                  keep_dir: str | Path | None = None,
                  write_problem: Callable[[Path], None] | None = None) -> HcpResult:
    """Look for a Hamiltonian cycle of an undirected graph with LKH-3.

    ``backend``: see :class:`LkhBackend`. ``time_limit`` (wall seconds, the whole run)
    defaults to :data:`DEFAULT_TIME_LIMIT`. ``runs``/``seed``: LKH's ``RUNS``/``SEED``.
    ``write_problem(path)`` writes the problem file (the puzzle route passes the ``emit hcp``
    writer); by default a plain TSPLIB HCP of ``edges`` in their order. ``keep_dir``: write
    the files there instead of a temporary directory (to inspect them). Raises
    :class:`~solvers.outcome.SolverUnavailable` when LKH is not available, :class:`LkhError`
    when it fails."""
    check_run_options(runs, seed)
    backend = LkhBackend(backend)
    graph = normalized_graph(num_vertices, edges, directed=False)     # checks the input
    if num_vertices < 3:
        raise UserError("LKH needs a graph of at least 3 vertices")
    time_limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    path = find_lkh(binary) if backend != LkhBackend.ELKAI else None
    if path is None and backend == LkhBackend.BINARY:
        raise SolverUnavailable(f"no LKH binary found on PATH (tried {', '.join(LKH_NAMES)}); "
                                f"build LKH-3 and put it on PATH, or give its path")
    if path is None and not elkai_available():
        raise SolverUnavailable(unavailable_reason() or "the elkai package is not installed "
                                                        "(pip install 'sudoku-bridge[lkh]')")
    if write_problem is None:           # the edges in their order: LKH's search depends on it
        def write_problem(problem: Path) -> None:
            write_hcp(problem, num_vertices, edges, name="graph",
                      comment="written by sudoku-bridge for LKH-3")
    start = time.perf_counter()
    result = LkhRun(num_vertices, graph, binary=path, runs=runs, seed=seed,
                    write_problem=write_problem, time_limit=time_limit, stats={},
                    keep_dir=keep_dir).solve()
    result.stats["seconds"] = round(time.perf_counter() - start, 4)
    return result


class LkhRun(TourProgram):
    """One LKH run on its problem file: the binary ``binary``, or elkai when that is None.
    Its stats are written once the run is over (they say which time limit LKH took)."""

    label = "LKH"
    prefix = "sudoku-bridge-lkh-"
    cost_key = "tour_cost"

    def __init__(self, num_vertices: int, edges: np.ndarray, *, binary: str | None,
                 runs: int, seed: int, write_problem: Callable[[Path], None], **job):
        super().__init__(num_vertices, edges, **job)
        self.binary, self.runs, self.seed = binary, runs, seed
        self.write_problem = write_problem

    def write_input(self, work: Path) -> None:
        self.write_problem(work / "graph.hcp")

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        """Run with ``TOTAL_TIME_LIMIT``, again with ``TIME_LIMIT`` for an LKH that lacks
        it (module docstring)."""
        for total in (True, False):
            run = self._run_once(work, temp_dirs, total)
            if not (total and _lacks_total_limit(run)):
                break
        self.stats.update(self._stats(self.binary or "elkai", total))
        if self.binary is None and run.timed_out:
            self.stats["reason"] = (f"time limit {self.time_limit:g} s reached before LKH "
                                    f"(elkai) finished")
        else:
            self.stats["exit_code"] = run.exit_code
        return run

    def _run_once(self, work: Path, temp_dirs: list[Path], total: bool) -> ProgramRun:
        params = work / "graph.par"
        limits = {"time_limit": lkh_time_limit(self.time_limit), "total_time_limit": total,
                  "runs": self.runs, "seed": self.seed}
        if self.binary is not None:
            write_lkh_parameters(params, "graph.hcp", "graph.tour", **limits)
            args = [self.binary, params.name]
            env = None
        else:       # elkai: the problem by its full name, the tour returned as JSON
            write_lkh_parameters(params, (work / "graph.hcp").resolve(), None, **limits)
            args = [sys.executable, "-c", _ELKAI_CHILD, str(params), str(work / "tour.json")]
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        return run_program(args, cwd=work, time_limit=self.time_limit, temp_dirs=temp_dirs,
                           env=env)

    def _stats(self, lkh: str, total: bool) -> dict:
        return {"backend": "lkh", "lkh": lkh, "time_limit": self.time_limit,
                "lkh_time_limit": ("TOTAL_TIME_LIMIT" if total else "TIME_LIMIT (per run)",
                                   round(lkh_time_limit(self.time_limit), 2)),
                "runs": self.runs, "seed": self.seed, "iterations": 1, "cuts": 0}

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        if self.binary is None:
            return self._elkai_tour(run, work / "tour.json")
        tour_file, stats = work / "graph.tour", self.stats
        if run.timed_out:
            stats["reason"] = f"time limit {self.time_limit:g} s reached"
            if not tour_file.exists():
                stats["reason"] += " before LKH wrote a tour"
                return None
            try:                    # LKH's last improvement; a file cut short is no answer
                return read_tour(tour_file, self.num_vertices)
            except TsplibError as exc:
                stats["reason"] += f"; LKH's last tour file is unusable ({exc})"
                return None
        if run.exit_code != 0:
            raise LkhError(f"LKH ({self.binary}) {run.ended()}: {run.tail(3) or 'no output'}")
        if not tour_file.exists():
            stats["reason"] = "LKH wrote no tour"
            return None
        try:
            return read_tour(tour_file, self.num_vertices)
        except TsplibError as exc:
            raise LkhError(f"LKH's tour file is unusable: {exc}") from None

    def _elkai_tour(self, run: ProgramRun, answer: Path) -> np.ndarray | None:
        """The tour of the elkai child (its JSON, 1-based), checked to be a permutation."""
        if run.timed_out:
            return None
        if run.exit_code != 0 or not answer.exists():
            raise LkhError(f"LKH (elkai) {run.ended()} without a tour: "
                           f"{run.tail() or 'no output'}")
        text = read_text(answer, tour_limit(self.num_vertices), LkhError)  # our helper's JSON
        values = np.asarray(json.loads(text), dtype=np.int64) - 1
        if values.size != self.num_vertices or not np.array_equal(
                np.sort(values), np.arange(self.num_vertices)):
            raise LkhError(f"LKH (elkai) returned {values.size} vertices that are not a "
                           f"permutation of the graph's {self.num_vertices}")
        return values

    def interpret(self, result: HcpResult, run: ProgramRun) -> HcpResult:
        """A killed LKH's last tour that is no cycle: the time limit comes first in the
        reason."""
        if run.timed_out and result.status != CycleStatus.HAMILTONIAN:
            self.stats["reason"] = (f"time limit {self.time_limit:g} s reached; "
                                    f"{self.stats['reason']}")
        return result


def _lacks_total_limit(run: ProgramRun) -> bool:
    """True when LKH stopped at once because it does not know TOTAL_TIME_LIMIT (LKH-2, early
    LKH-3): it names the keyword and exits 1 before reading the problem."""
    return (not run.timed_out and run.exit_code != 0
            and UNKNOWN_TOTAL_LIMIT in run.stdout + run.stderr)


_ELKAI_CHILD = """
import json, os, sys
from elkai import _elkai
params = open(sys.argv[1]).read()
tour = _elkai.solve_problem(params, "")
with open(sys.argv[2] + ".part", "w") as out:
    json.dump(list(tour), out)
os.replace(sys.argv[2] + ".part", sys.argv[2])
"""
