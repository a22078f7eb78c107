"""Every Hamiltonian cycle of a small graph, each once: the SAT model asked again after each
cycle with a no-good that forbids exactly that cycle (for counting: is a reduction
parsimonious?)."""

from __future__ import annotations

import numpy as np

from reductions.hamiltonian.graphs import cycle_steps

from ..runtime.budget import Deadline
from ..runtime.pysat_solvers import new_pysat_solver
from .covers import _pair_index
from .cut_loop import _check_cycle, _cut_loop
from .graph_input import _degree_problem, normalized_graph
from .results import DEFAULT_SAT_SOLVER, CycleStatus
from .sat_model import _model_clauses

__all__ = ["hamiltonian_cycles"]


def hamiltonian_cycles(num_vertices: int, pairs, *, directed: bool, limit: int | None = None,
                       time_limit: float | None = None,
                       solver_name: str = DEFAULT_SAT_SOLVER):
    """Every Hamiltonian cycle of the graph, each once (up to its start and, undirected,
    its direction), as vertex orders; at most ``limit`` of them. Raises
    :class:`TimeoutError` past ``time_limit``: a count is only exact when complete.

    The SAT model of :func:`solve_directed_hcp`, asked again after each cycle with a clause
    that forbids using all of that cycle's pairs (a cycle is determined by its pairs, so
    exactly that cycle is excluded). Patching is off: a patched cover could be a cycle
    already listed. For counting cycles of small graphs (is a reduction parsimonious?)."""
    deadline = Deadline(time_limit)
    graph = normalized_graph(num_vertices, pairs, directed)
    if num_vertices < 3 or _degree_problem(num_vertices, graph, directed):
        return
    clauses, _ = _model_clauses(num_vertices, graph, directed)
    solver = new_pysat_solver(solver_name, clauses)
    found = 0
    try:
        while limit is None or found < limit:
            result = _cut_loop(solver, num_vertices, graph, graph, directed,
                               np.zeros(0, dtype=np.int64), (), deadline, True, False, {})
            if result.status == CycleStatus.UNKNOWN:
                raise TimeoutError(f"time limit reached after {found} cycles")
            if not result.found:
                return
            _check_cycle(num_vertices, graph, result.cycle, directed, np.zeros(0, np.int64))
            found += 1
            yield result.cycle
            used = _pair_index(num_vertices, graph, cycle_steps(result.cycle), directed)
            solver.add_clause((-(used + 1)).astype(int).tolist())
    finally:
        solver.delete()
