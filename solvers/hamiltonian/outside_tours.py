"""Tours from heuristic and outside programs (LKH, linkern, Concorde, ``--hcp-cmd``): read from
the program's file, and accepted only when they are Hamiltonian cycles of the graph.

A heuristic tour is never a proof: one that uses non-edges (cost > 0), no tour, or a time-out
is ``unknown``, never "no cycle"."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reductions.errors import UserError
from reductions.graphs import count_non_edges
from reductions.reading import InputTooLarge

from ..external import ProgramRun, output_limit
from ..formats.tsplib import TsplibError, read_tour
from .results import CycleStatus, HcpResult

__all__ = ["heuristic_tour_result", "program_tour"]


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
