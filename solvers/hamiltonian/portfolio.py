"""The ``sat`` solver of the ``hamiltonian`` command on any graph: the cut loop of
:mod:`solvers.hamiltonian.cut_loop` run by a small portfolio of SAT solvers that share their
subtour cuts — what made the FHCP Challenge graphs go (see docs/benchmarks.md).

What differs from the one-off solver the Sudoku routes use (:func:`solve_undirected_hcp`),
each measured on FHCP graphs 1–40 (``benchmarks/bench_fhcp.py``):

* **An undirected graph is solved as its directed double** (each edge two opposite arcs,
  exactly one arc out of and one into every vertex, no 2-cycle), as the SAT-based CEGAR solver
  of Soh et al. does: its subtour cuts are two clauses per subtour ("some arc leaves S",
  "some arc enters S") instead of one, and a directed cover says more per model than a
  2-factor. On the cubic FHCP graphs 4, 8, 12, 25, 29 the undirected model spent 11,000–30,000
  rounds without an answer in 10 s.
* **The patched cover does not steer the next solve** (no phases): on these graphs the
  phases brought the solver back to the same region round after round. Patching is still
  tried as a shortcut to a cycle.
* **A portfolio with restarts**: the rounds' number of models before an answer is heavy-tailed
  and differs by solver (graph 29: CaDiCaL past 5 s, Glucose 0.6 s; graph 4 the other way).
  The configurations of :data:`CONFIGURATIONS` (solver, and whether the orientation of the
  cycle is fixed at a vertex of least degree — the CEGAR paper's symmetry breaking) take
  turns, each for a time slice that doubles every full turn; each keeps its own pysat solver,
  with its learnt clauses, and receives every cut the others found before it resumes (a cut
  holds for every Hamiltonian cycle, so any solver may have it).

"no cycle" is still only an unsatisfiable formula (or a set with no arc out), found by any
configuration: the symmetry clauses keep one orientation of every undirected cycle, so they
lose none. The answer is checked against the graph by the caller."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.budget import Deadline
from ..runtime.pysat_solvers import new_pysat_solver
from .cut_loop import _cut_loop
from .results import CycleStatus, HcpResult
from .sat_model import _model_clauses

__all__ = ["CONFIGURATIONS", "FIRST_SLICE", "solve_with_portfolio"]

CONFIGURATIONS: tuple[tuple[str, bool], ...] = (
    ("cadical195", False), ("glucose4", False), ("cadical195", True), ("glucose4", True))
"""(pysat solver, orientation fixed) of each portfolio member, in turn order."""

FIRST_SLICE = 0.5
"""Seconds of each member's first turn; every full turn doubles it."""


class _Recording:
    """A pysat solver whose added clauses are also kept in ``log`` (the shared cuts)."""

    def __init__(self, solver, log: list[list[int]]):
        self._solver, self._log = solver, log

    def add_clause(self, clause) -> None:
        self._log.append(clause)
        self._solver.add_clause(clause)

    def __getattr__(self, name: str):
        return getattr(self._solver, name)


def orientation_clauses(num_vertices: int, arcs: np.ndarray) -> list[list[int]]:
    """At a vertex v of least out-degree: its successor has a smaller id than its
    predecessor (¬(v→s ∧ p→v) for s > p). Every undirected cycle through v keeps one of its
    two orientations. Arc e is variable e + 1."""
    degree = np.bincount(arcs[:, 0], minlength=num_vertices)
    v = int(np.argmin(degree))
    out = np.flatnonzero(arcs[:, 0] == v)
    into = np.flatnonzero(arcs[:, 1] == v)
    return [[-(int(o) + 1), -(int(i) + 1)] for o in out.tolist() for i in into.tolist()
            if arcs[o, 1] > arcs[i, 0]]


def solve_with_portfolio(num_vertices: int, arcs: np.ndarray, *, undirected: bool,
                         deadline: Deadline, configurations=CONFIGURATIONS,
                         first_slice: float = FIRST_SLICE) -> HcpResult:
    """A Hamiltonian cycle of the digraph ``arcs`` (normalised; the directed double of an
    undirected graph when ``undirected``), a proof there is none, or unknown at the
    deadline (module docstring)."""
    clauses, top = _model_clauses(num_vertices, arcs, True)
    symmetric = orientation_clauses(num_vertices, arcs) if undirected else []
    cuts: list[list[int]] = []
    members: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"backend": "sat", "solver": "portfolio", "variables": top,
                             "clauses": len(clauses), "iterations": 0, "cuts": 0,
                             "turns": 0}
    try:
        slice_, turn = first_slice, 0
        while True:
            index = turn % len(configurations)
            if index == len(members):
                name, oriented = configurations[index]
                members.append({"solver": new_pysat_solver(
                    name, clauses + (symmetric if oriented else [])), "seen": 0})
            member = members[index]
            for clause in cuts[member["seen"]:]:
                member["solver"].add_clause(clause)
            member["seen"] = len(cuts)
            result = _turn(member, cuts, num_vertices, arcs, deadline, slice_, stats)
            if result is not None:
                result.stats = {**stats, **result.stats,
                                "member": "+".join(map(str, configurations[index])),
                                "seconds": deadline.seconds()}
                return result
            turn += 1
            stats["turns"] = turn
            if turn % len(configurations) == 0:
                slice_ *= 2
    finally:
        for member in members:
            member["solver"].delete()


def _turn(member: dict[str, Any], cuts: list[list[int]], num_vertices: int,
          arcs: np.ndarray, deadline: Deadline, slice_: float,
          stats: dict[str, Any]) -> HcpResult | None:
    """One member's turn of at most ``slice_`` seconds: its answer, or None to go on (its
    new cuts are in ``cuts``, already in its own solver)."""
    remaining = deadline.remaining()
    limit = slice_ if remaining is None else min(slice_, remaining)
    before = len(cuts)
    own: dict[str, Any] = {}
    result = _cut_loop(_Recording(member["solver"], cuts), num_vertices, arcs, arcs, True,
                       np.zeros(0, dtype=np.int64), (), Deadline(limit), True, True, own,
                       steer=False)
    member["seen"] = len(cuts)
    stats["iterations"] += own["iterations"]
    stats["cuts"] += len(cuts) - before
    if result.status != CycleStatus.UNKNOWN or deadline.passed():
        return result
    return None
