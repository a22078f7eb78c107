"""The ``cpsat`` backend: OR-Tools CP-SAT's circuit constraint, one Boolean per arc, solved in
one call (optional: the ``ortools`` package, extra ``cpsat``).

Undirected graphs give each edge two opposite arcs (a required edge: one of them); a no-good
("not all of these pairs") is one clause over "pair unused" literals."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..runtime.budget import Deadline
from .covers import _cycle_order
from .results import BackendUnavailable, CycleStatus, HcpResult

__all__: list[str] = []


def _cpsat(num_vertices: int, pairs: np.ndarray, directed: bool, required: np.ndarray,
           deadline: Deadline, workers: int, not_all_of: np.ndarray | None = None
           ) -> HcpResult:
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        raise BackendUnavailable("the cpsat backend needs OR-Tools: pip install "
                                 "'sudoku-bridge[cpsat]' (or ortools)") from None
    arcs = pairs if directed else np.concatenate([pairs, pairs[:, ::-1]])
    model = cp_model.CpModel()
    lits = [model.new_bool_var(f"a{e}") for e in range(len(arcs))]
    model.add_circuit(list(zip(arcs[:, 0].tolist(), arcs[:, 1].tolist(), lits)))
    for e in required.tolist():
        if directed:
            model.add(lits[e] == 1)
        else:                                  # an edge is used in one direction or the other
            model.add_bool_or([lits[e], lits[e + len(pairs)]])
    if not_all_of is not None:                 # some blocked pair unused
        unused = []
        for e in not_all_of.tolist():
            if directed:
                unused.append(lits[e].Not())
                continue
            off = model.new_bool_var(f"off{e}")     # neither direction of the edge
            model.add_implication(off, lits[e].Not())
            model.add_implication(off, lits[e + len(pairs)].Not())
            unused.append(off)
        model.add_bool_or(unused)
    stats: dict[str, Any] = {"backend": "cpsat", "variables": len(lits), "workers": workers,
                             "iterations": 1, "cuts": 0}
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if deadline.at is not None:
        solver.parameters.max_time_in_seconds = max(deadline.at - time.perf_counter(), 0.001)
    status = solver.solve(model)
    stats["seconds"] = deadline.seconds()
    stats["cpsat_status"] = solver.status_name(status)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = np.asarray(solver.response_proto.solution, dtype=np.int64)
        index = np.array([lit.index for lit in lits], dtype=np.int64)
        chosen = arcs[values[index] > 0]
        successor = np.empty(num_vertices, dtype=np.int64)
        successor[chosen[:, 0]] = chosen[:, 1]
        return HcpResult(CycleStatus.HAMILTONIAN, _cycle_order(successor), stats)
    if status == cp_model.INFEASIBLE:
        stats["reason"] = "CP-SAT proved the circuit constraint infeasible"
        return HcpResult(CycleStatus.NO_CYCLE, None, stats)
    stats["reason"] = ("time limit reached" if deadline.at is not None
                       else f"CP-SAT stopped with status {stats['cpsat_status']}")
    return HcpResult(CycleStatus.UNKNOWN, None, stats)
