"""One incremental SAT model of a fixed graph, reused for any of its spanning subgraphs (the
Sudoku routes keep one per process for the blank grid's graph)."""

from __future__ import annotations

from typing import Any

import numpy as np

from reductions.hamiltonian.graphs import pair_keys

from ..runtime.budget import Deadline
from ..runtime.pysat_solvers import new_pysat_solver
from .cut_loop import _check_cycle, _cut_loop
from .graph_input import (_as_pairs, _degree_problem, _required_indices, _simple_too_small,
                          normalized_graph)
from .results import DEFAULT_SAT_SOLVER, CycleStatus, GraphInputError, HcpResult
from .sat_model import _model_clauses, together_clauses

__all__ = ["SharedHcpModel"]


class SharedHcpModel:
    """One incremental SAT model of a fixed graph, solving any of its spanning subgraphs.

    The model (degree constraints, no 2-cycles / short closures) is built once for the whole
    graph; a subgraph is solved with the pairs it lacks *assumed* false and its required
    pairs assumed true. Subtour cuts are clauses over the whole graph's pairs ("some pair
    crosses S"), true of every Hamiltonian cycle of the whole graph and so of every subgraph:
    they stay in the solver, with its learnt clauses, for the next subgraph. A corpus of
    puzzles on one blank-grid graph then costs one model and a few solver calls a puzzle.

    "no cycle" stays a proof: an unsatisfiable answer under assumptions that are exactly the
    subgraph's missing pairs (and its required pairs) means no Hamiltonian cycle of the whole
    graph avoids the missing pairs, i.e. the subgraph has none. ``false_pairs``, pairs of
    the subgraph also known to be on no Hamiltonian cycle of it (e.g. edges a reduction
    deleted), are then taken out of the subgraph too (the caller vouches for them).
    ``together``: groups of pairs every Hamiltonian cycle of the whole graph uses all of or
    none of (:func:`together_clauses`), true of every subgraph's cycles too."""

    def __init__(self, num_vertices: int, pairs, *, directed: bool,
                 solver_name: str = DEFAULT_SAT_SOLVER, together=None,
                 label: str = "shared"):
        self.num_vertices, self.directed, self.solver_name = num_vertices, directed, solver_name
        self.label = label
        self.pairs = normalized_graph(num_vertices, pairs, directed)
        self.keys = pair_keys(num_vertices, self.pairs, directed)
        clauses, self.variables = _model_clauses(num_vertices, self.pairs, directed)
        self.together_clauses = None
        if together is not None:           # valid for the whole graph, so for every subgraph
            extra = together_clauses(num_vertices, self.pairs, together, directed)
            clauses += extra
            self.together_clauses = len(extra)
        self.clauses = len(clauses)
        self.solver = new_pysat_solver(solver_name, clauses)
        self.top = self.variables           # activation literals are numbered above it
        self.served = 0
        self.cuts = 0

    def __enter__(self) -> "SharedHcpModel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.solver.delete()

    def _positions(self, pairs: np.ndarray) -> np.ndarray:
        """Indices in the model of ``pairs`` (either orientation when undirected); refuses
        pairs it lacks (loops included)."""
        wanted = pair_keys(self.num_vertices, pairs, self.directed)
        pos = np.searchsorted(self.keys, wanted).clip(max=self.keys.size - 1)
        missing = np.flatnonzero(self.keys[pos] != wanted)
        if missing.size:
            u, v = pairs[missing[0]]
            raise GraphInputError(f"({u}, {v}) is not a pair of the shared model's graph")
        return pos

    def solve(self, pairs, *, required=None, false_pairs=None, not_all_of=None,
              time_limit: float | None = None) -> HcpResult:
        """A Hamiltonian cycle of the subgraph ``pairs`` (same vertices), a proof that it has
        none, or ``unknown`` past ``time_limit``; as :func:`solve_directed_hcp` /
        :func:`solve_undirected_hcp` would answer on that graph alone.

        ``not_all_of``: pairs of the subgraph that the cycle must not use all of — a
        no-good, e.g. the arcs that spell out a grid already found (uniqueness). It is a
        clause behind a fresh activation literal, assumed for this call only and retired
        for good afterwards, so the model stays exact for every later call; "no cycle"
        then means no Hamiltonian cycle of the subgraph avoids using all of them. The
        subtour cuts found meanwhile are valid for every cycle and stay."""
        deadline = Deadline(time_limit)
        n, directed = self.num_vertices, self.directed
        present = self._present(pairs, false_pairs)
        graph = self.pairs[present]                  # normalised: a part of the model's
        self.served += 1
        stats = self._stats(len(graph))
        required_idx = _required_indices(n, graph, required, directed)
        problem = ((required_idx if isinstance(required_idx, str) else None)
                   or _simple_too_small(n, directed) or _degree_problem(n, graph, directed))
        if problem:
            return HcpResult(CycleStatus.NO_CYCLE, None, {**stats, "reason": problem,
                                                          "seconds": deadline.seconds()})
        assumptions = np.concatenate([-(np.flatnonzero(~present) + 1),
                                      np.flatnonzero(present)[required_idx] + 1])
        assumptions = assumptions.astype(int).tolist()
        blocked = activation = None
        if not_all_of is not None:
            blocked, activation = self._block(not_all_of, present)
            assumptions.append(activation)
        try:
            result = _cut_loop(self.solver, n, self.pairs, graph, directed, required_idx,
                               assumptions, deadline, True, True, stats, blocked)
        finally:
            if activation is not None:
                self.solver.add_clause([-activation])      # retired for good
        self.cuts += result.stats["cuts"]
        if result.found:
            # blocked pairs are present: their places among the subgraph's pairs
            in_graph = None if blocked is None else np.cumsum(present)[blocked] - 1
            _check_cycle(n, graph, result.cycle, directed, required_idx, in_graph)
        return result

    def _present(self, pairs, false_pairs) -> np.ndarray:
        """Which of the model's pairs are in the subgraph: ``pairs`` less ``false_pairs``."""
        n = self.num_vertices
        present = np.zeros(len(self.pairs), dtype=bool)
        present[self._positions(_as_pairs(n, pairs, "pairs"))] = True
        if false_pairs is not None and len(false_pairs):
            present[self._positions(_as_pairs(n, false_pairs, "false pairs"))] = False
        return present

    def _stats(self, input_pairs: int) -> dict[str, Any]:
        stats: dict[str, Any] = {"backend": "sat", "solver": self.solver_name,
                                 "model": self.label, "vertices": self.num_vertices,
                                 "input_pairs": input_pairs, "variables": self.variables,
                                 "clauses": self.clauses, "iterations": 0, "cuts": 0,
                                 "puzzles_on_model": self.served}
        if self.together_clauses is not None:
            stats["together_clauses"] = self.together_clauses
        return stats

    def _block(self, not_all_of, present: np.ndarray) -> tuple[np.ndarray, int]:
        """The no-good "not all of ``not_all_of``" as a clause behind a fresh activation
        literal: (the blocked pairs' positions in the model, the literal to assume)."""
        blocked = self._positions(_as_pairs(self.num_vertices, not_all_of, "blocked pairs"))
        if not present[blocked].all():
            raise GraphInputError("a blocked pair is not in the subgraph")
        self.top += 1
        self.solver.add_clause([-self.top] + (-(blocked + 1)).astype(int).tolist())
        return blocked, self.top
