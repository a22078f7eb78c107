"""The one-off solvers: a Hamiltonian cycle of one graph, a proof that it has none, or
``unknown`` past the time limit — :func:`solve_directed_hcp` and :func:`solve_undirected_hcp`.

The graph is normalised and checked (:mod:`solvers.hamiltonian.graph_input`), degrees give the
quick "no cycle" answers, then the chosen backend searches: ``sat`` (the model of
:mod:`solvers.hamiltonian.sat_model` in one pysat solver, :func:`_cut_loop`) or ``cpsat``.
Every cycle found is checked against the graph before it is returned."""

from __future__ import annotations

from typing import Any

import numpy as np

from reductions.errors import UserError

from ..runtime.budget import Deadline
from ..runtime.pysat_solvers import new_pysat_solver
from .cpsat import _cpsat
from .cut_loop import _check_cycle, _cut_loop
from .portfolio import solve_with_portfolio
from .graph_input import (_as_pairs, _degree_problem, _required_indices, _simple_too_small,
                          normalized_graph)
from .results import (BACKENDS, DEFAULT_SAT_SOLVER, CycleStatus, GraphInputError,
                      HcpResult)
from .sat_model import _model_clauses, together_clauses

__all__ = ["solve_directed_hcp", "solve_undirected_hcp"]


def _sat_loop(num_vertices: int, pairs: np.ndarray, directed: bool, required: np.ndarray,
              deadline: Deadline, solver_name: str, both_cuts: bool,
              patching: bool, together=None, not_all_of: np.ndarray | None = None
              ) -> HcpResult:
    clauses, top = _model_clauses(num_vertices, pairs, directed)
    clauses += [[int(e) + 1] for e in required]
    if not_all_of is not None:
        clauses.append((-(not_all_of + 1)).astype(int).tolist())
    extra = [] if together is None else together_clauses(num_vertices, pairs, together,
                                                          directed)
    clauses += extra
    stats: dict[str, Any] = {"backend": "sat", "solver": solver_name,
                             "variables": top, "clauses": len(clauses)}
    if together is not None:
        stats["together_clauses"] = len(extra)
    solver = new_pysat_solver(solver_name, clauses)
    try:
        return _cut_loop(solver, num_vertices, pairs, pairs, directed, required, (),
                         deadline, both_cuts, patching, stats, not_all_of)
    finally:
        solver.delete()


def _solve(num_vertices: int, pairs, *, directed: bool, time_limit: float | None,
           backend: str, required, solver_name: str, workers: int, both_cuts: bool,
           patching: bool, together=None, not_all_of=None,
           portfolio: bool = False) -> HcpResult:
    if backend not in BACKENDS:
        raise UserError(f"unknown Hamiltonian-cycle backend {backend!r}; choose one of "
                        f"{', '.join(BACKENDS)}")
    deadline = Deadline(time_limit)
    graph = normalized_graph(num_vertices, pairs, directed)
    raw = _as_pairs(num_vertices, pairs, "arcs" if directed else "edges")
    base = {"backend": backend, "vertices": num_vertices, "input_pairs": len(raw),
            "iterations": 0, "cuts": 0}
    if num_vertices == 1:
        # The only possible cycle is a loop at vertex 0 (an arc 0→0).
        has_loop = directed and bool(np.any((raw[:, 0] == 0) & (raw[:, 1] == 0)))
        base["seconds"] = deadline.seconds()
        if has_loop:
            return HcpResult(CycleStatus.HAMILTONIAN, np.zeros(1, dtype=np.int64), base)
        return HcpResult(CycleStatus.NO_CYCLE, None,
                         {**base, "reason": "one vertex without a loop"})
    required_idx = _required_indices(num_vertices, graph, required, directed)
    blocked = None
    if not_all_of is not None:
        blocked = _required_indices(num_vertices, graph, not_all_of, directed)
        if isinstance(blocked, str):
            raise GraphInputError(blocked.replace("required", "blocked"))
        if blocked.size == 0:
            base["seconds"] = deadline.seconds()
            return HcpResult(CycleStatus.NO_CYCLE, None,
                             {**base, "reason": "no blocked pair to leave out"})
    problem = (_simple_too_small(num_vertices, directed)
               or (required_idx if isinstance(required_idx, str) else None)
               or _degree_problem(num_vertices, graph, directed))
    if problem:
        return HcpResult(CycleStatus.NO_CYCLE, None, {**base, "reason": problem,
                                          "seconds": deadline.seconds()})
    if portfolio and backend == "sat" and required_idx.size == 0 and together is None \
            and blocked is None:
        result = _portfolio(num_vertices, graph, directed, deadline)
    elif backend == "cpsat":
        result = _cpsat(num_vertices, graph, directed, required_idx, deadline, workers,
                        blocked)
    else:
        result = _sat_loop(num_vertices, graph, directed, required_idx, deadline,
                           solver_name, both_cuts, patching, together, blocked)
    result.stats = {**base, **result.stats}
    if result.found:
        _check_cycle(num_vertices, graph, result.cycle, directed, required_idx, blocked)
    return result


def _portfolio(num_vertices: int, graph: np.ndarray, directed: bool,
               deadline: Deadline) -> HcpResult:
    """:func:`~solvers.hamiltonian.portfolio.solve_with_portfolio` on the graph's arcs (an
    undirected graph's directed double); a dense undirected graph first on a sparse spanning
    subgraph, for a part of the time (a cycle of it is one of the graph; its "no cycle" or
    "unknown" says nothing of the graph, which is then solved whole)."""
    from . import portfolio
    if not directed and 2 * len(graph) > portfolio.DENSE_DEGREE * num_vertices:
        sparse = portfolio.sparse_spanning_subgraph(num_vertices, graph,
                                                    portfolio.SPARSE_KEEP)
        remaining = deadline.remaining()
        share = 30.0 if remaining is None else remaining * portfolio.SPARSE_SHARE
        result = _whole_portfolio(num_vertices, sparse, False, Deadline(share))
        if result.found:
            result.stats["sparse_edges"] = len(sparse)
            return result
    return _whole_portfolio(num_vertices, graph, directed, deadline)


def _whole_portfolio(num_vertices: int, graph: np.ndarray, directed: bool,
                     deadline: Deadline) -> HcpResult:
    """The portfolio on the graph's arcs (an undirected graph's directed double)."""
    arcs = graph if directed else normalized_graph(
        num_vertices, np.concatenate([graph, graph[:, ::-1]]), True)
    return solve_with_portfolio(num_vertices, arcs, undirected=not directed,
                                deadline=deadline)


def solve_directed_hcp(num_vertices: int, arcs, *, time_limit: float | None = None,
                       backend: str = "sat", required=None,
                       solver_name: str = DEFAULT_SAT_SOLVER, workers: int = 1,
                       both_cuts: bool = True, patching: bool = True,
                       together=None, not_all_of=None, portfolio: bool = False) -> HcpResult:
    """A Hamiltonian cycle of a digraph (``arcs`` rows are (tail, head)), or a proof that
    there is none, or ``unknown`` past ``time_limit`` seconds.

    ``backend``: ``sat`` (incremental SAT with lazy subtour cuts; ``solver_name`` a pysat
    solver; ``both_cuts`` adds "enters S" besides "leaves S"; ``patching`` tries to merge
    the subtours of each model into one cycle first, :func:`patch_cover`) or ``cpsat``
    (OR-Tools circuit constraint, ``workers`` search threads). ``required``: arcs every
    returned cycle must use. ``together``: groups of arcs every Hamiltonian cycle uses all of
    or none of (:func:`together_clauses`; the ``sat`` backend adds them to its model, CP-SAT
    does without). ``not_all_of``: arcs the cycle must not use all of (a no-good: "no cycle"
    then means none that avoids at least one of them). ``portfolio``: with the ``sat``
    backend and none of ``required``, ``together``, ``not_all_of``, solve by the portfolio
    of :mod:`solvers.hamiltonian.portfolio` (``solver_name``, ``both_cuts`` and
    ``patching`` then unused) — the choice for graphs other than the Sudoku ones. Loops and
    repeated arcs are ignored."""
    return _solve(num_vertices, arcs, directed=True, time_limit=time_limit, backend=backend,
                  required=required, solver_name=solver_name, workers=workers,
                  both_cuts=both_cuts, patching=patching, together=together,
                  not_all_of=not_all_of, portfolio=portfolio)


def solve_undirected_hcp(num_vertices: int, edges, *, time_limit: float | None = None,
                         backend: str = "sat", required=None,
                         solver_name: str = DEFAULT_SAT_SOLVER, workers: int = 1,
                         patching: bool = True, together=None,
                         not_all_of=None, portfolio: bool = False) -> HcpResult:
    """A Hamiltonian cycle of an undirected graph (``edges`` rows (u, v)), or a proof that
    there is none, or ``unknown`` past ``time_limit`` seconds. The cycle may be read in
    either direction. See :func:`solve_directed_hcp` for the options."""
    return _solve(num_vertices, edges, directed=False, time_limit=time_limit, backend=backend,
                  required=required, solver_name=solver_name, workers=workers,
                  both_cuts=True, patching=patching, together=together,
                  not_all_of=not_all_of, portfolio=portfolio)
