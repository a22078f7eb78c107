"""The one skeleton of a tour program (LKH-3, linkern, Concorde, any ``--hcp-cmd`` program):
write the graph, run the program in its own process group under a time limit, read its tour
back, check it.

:class:`TourProgram` holds the steps in that order (:meth:`TourProgram.solve`); each program
is a subclass that says how to write its input, how to run it (:meth:`TourProgram.run`,
usually one :meth:`TourProgram.run_program`), how to read its tour and, for an exact one, what
a run without a cycle proves (:meth:`TourProgram.interpret`). The check is the same for all:
a tour is accepted only when it is a Hamiltonian cycle of the graph
(:func:`heuristic_tour_result`); any other tour, no tour, or a time limit is "unknown" with
the reason in the stats — never "no cycle", unless the program proves it (Concorde's
optimum).

Every program runs in a temporary directory (or ``keep_dir``, kept for inspection) through
:func:`solvers.runtime.processes.run_program`: no shell, stdin closed, its whole process group killed
at the time limit, on Ctrl-C and when we die, the directory removed then too.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import numpy as np

from reductions.errors import UserError
from reductions.hamiltonian.graphs import count_non_edges
from reductions.reading import InputTooLarge

from ..formats.tsplib import TsplibError, read_tour
from ..hamiltonian import CycleStatus, HcpResult
from ..runtime.processes import ProgramRun, output_limit, run_program
from ..runtime.scratch import temporary_directory

__all__ = ["TourProgram", "heuristic_tour_result", "program_tour"]


class TourProgram:
    """One run of an outside program on one graph (module docstring). Subclasses set
    :attr:`label`, :attr:`prefix` and override the steps; the stats they record go to
    :attr:`stats`, which the result carries."""

    label = "the program"
    """How reasons name the program (``LKH``, ``linkern``, ``Concorde``)."""
    prefix = "sudoku-bridge-tour-"
    """The temporary directory's prefix."""
    cost_key = "non_edges_in_tour"
    """The stats key of a tour's number of non-edges."""

    def __init__(self, num_vertices: int, edges: np.ndarray, *, time_limit: float | None,
                 stats: dict, directed: bool = False, keep_dir: str | Path | None = None):
        self.num_vertices, self.edges, self.directed = num_vertices, edges, directed
        self.time_limit, self.stats, self.keep_dir = time_limit, stats, keep_dir
        self.start = time.perf_counter()

    def solve(self) -> HcpResult:
        """Write, run, read, check, interpret (the skeleton)."""
        with temporary_directory(self.prefix) as tmp:
            work = Path(self.keep_dir) if self.keep_dir else tmp
            work.mkdir(parents=True, exist_ok=True)
            self.write_input(work)
            run = self.run(work, [] if self.keep_dir else [work])   # a kept one stays
            order = self.read_tour(run, work)
            if order is None:
                return HcpResult(CycleStatus.UNKNOWN, None, self.stats)
        result = heuristic_tour_result(self.num_vertices, self.edges, order, self.stats,
                                       self.label, cost_key=self.cost_key,
                                       directed=self.directed)
        return self.interpret(result, run)

    def write_input(self, work: Path) -> None:
        """Write the graph (and any parameter file) into ``work``."""
        raise NotImplementedError

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        """Run the program in ``work`` (``temp_dirs``: removed if we die)."""
        raise NotImplementedError

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        """The vertex order the run left, or None (unknown, ``stats["reason"]`` says why);
        a run that failed is an error."""
        raise NotImplementedError

    def interpret(self, result: HcpResult, run: ProgramRun) -> HcpResult:
        """The answer, from the checked tour: as it is for a heuristic."""
        return result

    def run_program(self, args: Sequence[str | Path], work: Path, temp_dirs: list[Path],
                    **options) -> ProgramRun:
        """One run in ``work`` under the time limit; its wall time (from the start of the
        job) in ``stats["seconds"]``."""
        run = run_program(args, cwd=work, time_limit=self.time_limit, temp_dirs=temp_dirs,
                          **options)
        self.stats["seconds"] = round(time.perf_counter() - self.start, 4)
        return run


def heuristic_tour_result(num_vertices: int, edges, order, stats: dict, solver: str,
                          cost_key: str = "tour_cost", directed: bool = False) -> HcpResult:
    """A tour from a heuristic or outside solver (LKH, linkern, Concorde, a command): accepted
    only when it is a Hamiltonian cycle of the graph (cost 0); otherwise "unknown", its cost
    in ``stats``."""
    cost = count_non_edges(num_vertices, edges, order, directed)
    stats[cost_key] = cost
    if cost == 0:
        return HcpResult(CycleStatus.HAMILTONIAN, np.asarray(order, dtype=np.int64), stats)
    stats["reason"] = (f"{solver}'s best tour uses {cost} non-edge{'s' if cost > 1 else ''} "
                       f"(cost {cost} > 0): no Hamiltonian cycle found")
    return HcpResult(CycleStatus.UNKNOWN, None, stats)


def program_tour(run: ProgramRun, tour: Path, num_vertices: int, stats: dict, *, name: str,
                 time_limit: float, where: str, error: type[UserError]) -> np.ndarray | None:
    """The vertex order a heuristic program (linkern, an ``--hcp-cmd`` program) left in
    ``tour``, or None with ``stats["reason"]`` saying why there is none: a time limit reached
    before or while the tour was written, or a program that ended well without one — all
    "unknown", never "no cycle". A program that failed without a tour, or a tour that does not
    read when the program was not killed, is ``error`` (the file named as ``where``)."""
    if _blank(tour):
        if run.timed_out:
            stats["reason"] = f"time limit {time_limit:g} s reached before {name} gave a tour"
            return None
        if run.exit_code != 0:
            raise error(f"{name} {run.ended()} without a tour: {run.tail(3) or 'no output'}")
        stats["reason"] = f"{name} gave no tour"
        return None
    try:
        return read_tour(tour, num_vertices, limit=output_limit())
    except InputTooLarge as exc:
        raise error(str(exc).replace(str(tour), where)) from None
    except TsplibError as exc:
        if run.timed_out:                    # killed while writing it
            stats["reason"] = (f"time limit {time_limit:g} s reached while {name} wrote its "
                               f"tour")
            return None
        raise error(str(exc).replace(str(tour), where)) from None


def _blank(path: Path) -> bool:
    """Is ``path`` missing, or only whitespace? (Read in blocks, never whole.)"""
    if not path.exists():
        return True
    with open(path, "rb") as handle:
        while block := handle.read(1 << 16):
            if block.strip():
                return False
    return True
