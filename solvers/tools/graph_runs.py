"""One graph file through one Hamiltonian-cycle solver, as a JSON-ready record: what the
``hamiltonian`` command and ``benchmarks/bench_fhcp.py`` run, once per file, in this process
or in a pool worker.

:func:`solve_graph` dispatches to the exact backends of :mod:`solvers.hamiltonian` (``sat``,
``cpsat``) or to the outside programs of this package (``lkh``, ``linkern``, ``concorde``, a
``--hcp-cmd`` template). Whatever answers, a cycle is checked against the graph *as read*
before it is recorded (:func:`check_tour`): a solver's wrong tour is a ``wrong`` record, never
a ``hamiltonian`` one. "no cycle" comes only from a proof (an unsatisfiable SAT model, CP-SAT's
infeasible, Concorde's optimum, or the degrees), "unknown" from a limit or a heuristic that
found nothing."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from reductions.errors import UserError
from reductions.hamiltonian.graphs import hamiltonian_cycle_problem

from ..hamiltonian.graph_input import normalized_graph
from ..hamiltonian.results import CycleStatus, HcpResult

__all__ = ["GraphSolver", "GraphTask", "RecordStatus", "check_tour", "run_graph_task",
           "solve_graph"]


class GraphSolver(enum.StrEnum):
    """The solvers of the ``hamiltonian`` command (``command``: the ``--hcp-cmd`` template)."""

    SAT = "sat"
    CPSAT = "cpsat"
    LKH = "lkh"
    LINKERN = "linkern"
    CONCORDE = "concorde"
    COMMAND = "command"


UNDIRECTED_ONLY = (GraphSolver.LKH, GraphSolver.LINKERN, GraphSolver.CONCORDE)


class RecordStatus(enum.StrEnum):
    """A record's status: a :class:`CycleStatus`, or what kept the graph from an answer."""

    HAMILTONIAN = "hamiltonian"
    NO_CYCLE = "no cycle"
    UNKNOWN = "unknown"
    ERROR = "error"                   # the file or the options: bad input
    NOT_AVAILABLE = "not available"   # the solver cannot run here
    WRONG = "wrong"                   # a solver's tour that is not a Hamiltonian cycle


@dataclass(frozen=True, kw_only=True)
class GraphTask:
    """One file for one solver (picklable: pool workers get these)."""

    path: str
    solver: str = GraphSolver.SAT
    directed: bool = False
    time_limit: float | None = None
    command: str | None = None
    memory_limit: int | None = None
    portfolio: bool = True


def solve_graph(num_vertices: int, pairs: np.ndarray, *, directed: bool, solver: str,
                time_limit: float | None, command: str | None = None,
                portfolio: bool = True) -> HcpResult:
    """The answer of ``solver`` for the graph (see the module docstring); raises
    :class:`~solvers.outcome.SolverUnavailable` when it cannot run here and
    :class:`~reductions.errors.UserError` when it cannot take this graph. ``portfolio``
    (``sat`` only): the portfolio of :mod:`solvers.hamiltonian.portfolio`, else the one-off
    SAT solver the Sudoku routes use (benchmarks compare the two)."""
    solver = GraphSolver(solver)
    if directed and solver in UNDIRECTED_ONLY:
        raise UserError(f"{solver} solves undirected graphs only; for a directed graph use "
                        f"sat, cpsat or --hcp-cmd")
    if solver in (GraphSolver.SAT, GraphSolver.CPSAT):
        from ..hamiltonian.one_off import solve_directed_hcp, solve_undirected_hcp
        solve = solve_directed_hcp if directed else solve_undirected_hcp
        return solve(num_vertices, pairs, time_limit=time_limit, backend=str(solver),
                     portfolio=portfolio)
    graph = normalized_graph(num_vertices, pairs, directed)
    if solver == GraphSolver.COMMAND:
        from .hcp_command import run_hcp_command
        if not command:
            raise UserError("the command solver needs --hcp-cmd TEMPLATE")
        return run_hcp_command(command, num_vertices, graph, directed=directed,
                               time_limit=time_limit)
    if solver == GraphSolver.LKH:
        from .lkh import solve_hcp_lkh
        return solve_hcp_lkh(num_vertices, graph, time_limit=time_limit)
    if solver == GraphSolver.LINKERN:
        from .linkern import solve_hcp_linkern
        return solve_hcp_linkern(num_vertices, graph, time_limit=time_limit)
    from .concorde import solve_hcp_concorde
    return solve_hcp_concorde(num_vertices, graph, time_limit=time_limit)


def check_tour(num_vertices: int, pairs: np.ndarray, cycle, directed: bool) -> str | None:
    """Why ``cycle`` is not a Hamiltonian cycle of the graph read, or None when it is one
    (a repeated pair is the same step; a loop is a step only of the one-vertex cycle)."""
    return hamiltonian_cycle_problem(num_vertices, pairs, cycle, directed,
                                     describe=lambda v: str(int(v) + 1))


def run_graph_task(task: GraphTask, certify=None) -> dict[str, Any]:
    """The record of one file (never raises for a bad file or a missing solver: those are
    ``error`` / ``not available`` records, a wrong answer or a rejected certificate a
    ``wrong`` one; Ctrl-C and bugs go up). ``certify``: a callable ``(result, n, pairs,
    directed=, name=, time_limit=)`` that certifies a "no cycle" (from
    :mod:`solvers.certify.hamiltonian`, a layer above this one)."""
    from ..formats.graph_reading import loops_and_repeats, read_any_graph
    from ..outcome import SolverUnavailable, WrongAnswer
    from reductions.reading import DEFAULT_MEMORY_LIMIT
    start = time.perf_counter()
    record: dict[str, Any] = {"file": task.path, "solver": str(task.solver),
                              "directed": task.directed}
    try:
        graph = read_any_graph(task.path, memory_limit=task.memory_limit
                               or DEFAULT_MEMORY_LIMIT)
        n, pairs = graph.num_vertices, graph.pairs
        loops, repeats = loops_and_repeats(n, pairs, task.directed)
        record.update(form=graph.form, vertices=n, pairs=int(len(pairs)))
        if loops or repeats:
            record["ignored"] = f"{loops} loop(s), {repeats} repeated pair(s)"
        result = solve_graph(n, pairs, directed=task.directed, solver=task.solver,
                             time_limit=task.time_limit, command=task.command,
                             portfolio=task.portfolio)
        if certify is not None:
            result = certify(result, n, pairs, directed=task.directed,
                             name=task.path, time_limit=task.time_limit)
    except WrongAnswer as exc:
        return {**record, "status": str(RecordStatus.WRONG), "reason": _line(exc)}
    except SolverUnavailable as exc:
        return {**record, "status": str(RecordStatus.NOT_AVAILABLE), "reason": _line(exc)}
    except UserError as exc:
        return {**record, "status": str(RecordStatus.ERROR), "reason": _line(exc)}
    record.update(status=str(result.status), seconds=round(time.perf_counter() - start, 4))
    for key in ("iterations", "cuts", "member", "reason", "certified", "proof_bytes",
                "check_seconds", "cuts_checked"):
        if key in result.stats:
            record[key] = result.stats[key]
    if result.status == CycleStatus.HAMILTONIAN:
        problem = check_tour(n, pairs, result.cycle, task.directed)
        if problem is not None:
            return {**record, "status": str(RecordStatus.WRONG),
                    "reason": f"the solver's tour is not a Hamiltonian cycle: {problem}"}
        record["tour"] = (np.asarray(result.cycle, dtype=np.int64) + 1).tolist()
    return record


def _line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__
