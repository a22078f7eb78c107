"""Certified answers of the ``hcp`` routes: a puzzle's "no solution" and "unique" backed by
a checked proof about its Hamiltonian-cycle graph.

**What is certified.** Whatever graph the route searched (directed; or undirected: the
3-split, with the triple trick, after the degree-2 reduction), the certificate is about the
graph all of them are built from: the puzzle's directed Haythorpe graph, pruned as the route
pruned it (:func:`puzzle_graph`). The claim checked is "this digraph has no Hamiltonian cycle"
(for "no solution") or "no Hamiltonian cycle of it leaves out one of the row exits of the
first grid" (for "unique"), by :func:`solvers.certify.hamiltonian.certify_no_cycle`: a formula
rebuilt from the graph (degree clauses, no 2-cycles, subtour cuts each re-checked against
the graph), a proof-logging solver's DRAT proof of it, an independent checker's verdict.

**Why that proves the puzzle's answer** (Haythorpe 2016, §3): every solution of the puzzle
is a Hamiltonian cycle of the blank grid's digraph that walks its clues' choice arcs, and
clue pruning only removes arcs that no solution's cycle walks; the cycle of a solution
enters each cell vertex ``v[i,j]`` by the row exit of the digit placed there
(:func:`~reductions.hamiltonian.hcp_pipeline.grid_pairs`). So a solution gives a Hamiltonian
cycle of the route's digraph (with ``--prune none``: one that walks the clues' choice arcs,
given to the formula as unit clauses) — none exists, none is a solution. The route's own
graph has the same Hamiltonian cycles as that digraph (the 3-split: Karp; the triple trick
and the degree-2 reduction: Haythorpe §§6–7), so its answer is the digraph's; the
certificate does not rest on our 3-split or reduction code at all. A "no cycle" the degree-2
reduction found by itself, before any solver, is certified the same way: the formula of the
digraph the reduction started from, proved unsatisfiable and checked — never the reduction's
own word. A digraph with no cycle on its face (not strongly connected, which
:func:`~solvers.certify.hamiltonian.certify_no_cycle` answers by a reachability search, no
proof) is not "certified" by that search: the puzzle's plain CNF is proved unsatisfiable
instead, by a checked proof (``stats["certified_on"]`` says which formula).

**The blocking clause of uniqueness** is one clause over the digraph's arcs, ``¬e₁ ∨ … ∨
¬e_k``, the row exits of the first grid's digits, re-derived here from the verified grid by
the reduction (not taken from the solver). It is sound: exactly one arc enters each cell
vertex on a Hamiltonian cycle, so the cycle of any other solution, which places another
digit in some cell, enters that cell by another row exit and leaves that ``e`` out; with the
clause, the formula still holds every other solution's cycle, and its unsatisfiability
proves that none exists. Only the first grid's cycles are blocked (they use every ``e``). A
second grid, when the route finds one, needs no certificate: it is verified against the
puzzle.

Measured on the undirected 3-split of an unsolvable 9×9 puzzle, the same formula needed
2,036 subtour cuts and a 64 MB proof that dratify had not checked in 600 s; on the digraph,
no cut and a 126 kB proof checked in under a second: the digraph's no-2-cycle clauses say at
once what the 3-split needs a cut for each.
"""

from __future__ import annotations

import time

import numpy as np

from reductions.hamiltonian.hcp_pipeline import (HcpOptions, HcpPipeline, build_hcp_pipeline,
                                                 grid_pairs, required_pairs)
from reductions.sudoku.grid import Grid

from ..outcome import Outcome, Status, WrongAnswer
from .hamiltonian import GRAPH_CHECK, arc_variables, certified_arcs, certify_no_cycle
from .refutation import CertifyOptions
from .sudoku import certified_solve, withdraw_negative_claim

__all__ = ["certify_hcp_outcome", "puzzle_graph"]


def puzzle_graph(puzzle: Grid, prune: str) -> HcpPipeline:
    """The puzzle's directed Haythorpe graph, pruned by ``prune``: what every ``hcp``
    pipeline of the puzzle starts from, and what its certificates are about."""
    return build_hcp_pipeline(puzzle, HcpOptions(directed=True, prune=prune))


def certify_hcp_outcome(puzzle: Grid, outcome: Outcome, *, prune: str,
                        certify: CertifyOptions, name: str = "puzzle",
                        time_limit: float | None = None) -> Outcome:
    """``outcome`` (an ``hcp`` route's answer about ``puzzle``, its grids verified) with its
    negative claim certified (module docstring): "no solution", or ``unique`` True. Its stats
    gain ``certified`` (the checker), ``certified_on`` (the formula), ``proof_bytes``,
    ``check_seconds``, ``cuts_checked`` and ``certify_seconds``; a certificate stopped by a
    limit withdraws the claim ("no solution" becomes unknown, unique None) with a
    ``reason``. Other answers are returned unchanged. Raises
    :class:`~solvers.certify.checkers.ProofRejected` (a rejected proof),
    :class:`~solvers.certify.hamiltonian.CutRejected` or
    :class:`~solvers.outcome.WrongAnswer` (the digraph has a cycle the claim denies)."""
    negative = outcome.status == Status.NO_SOLUTION
    if not negative and not (outcome.status == Status.SOLVED and outcome.unique is True):
        return outcome
    start = time.perf_counter()
    graph = puzzle_graph(puzzle, prune)
    n = graph.num_vertices
    arcs = certified_arcs(n, graph.edges, directed=True)
    extra = [[int(v)] for v in _variables(n, arcs, required_pairs(graph))]
    if not negative:
        row_exits = _variables(n, arcs, grid_pairs(graph, outcome.grid))
        extra.append([-int(v) for v in row_exits])
    added = certify_no_cycle(n, graph.edges, directed=True, certify=certify, extra=extra,
                             name=name, time_limit=time_limit)
    added["certified_on"] = f"directed graph, prune {prune}"
    if added["certified"] == GRAPH_CHECK:
        added = _on_plain_formula(puzzle, added["reason"], certify=certify, name=name,
                                  time_limit=time_limit)
    added["certify_seconds"] = round(time.perf_counter() - start, 4)
    return _with_certificate(outcome, added)


def _on_plain_formula(puzzle: Grid, why: str, *, certify: CertifyOptions, name: str,
                      time_limit: float | None) -> dict:
    """The certificate of "no solution" when the digraph has no Hamiltonian cycle on its
    face (not strongly connected: a reachability search of ours, which no checker sees):
    the puzzle's plain CNF proved unsatisfiable instead
    (:func:`solvers.certify.sudoku.certified_solve`), so that a checker does see a proof."""
    answer = certified_solve(puzzle, certify=certify, name=name, time_limit=time_limit)
    if answer.status == Status.SOLVED:
        raise WrongAnswer("the hcp route said 'no solution', but the puzzle has one (the "
                          "plain CNF's solution, verified)")
    added = {key: answer.stats.get(key) for key in ("certified", "proof_bytes",
                                                    "check_seconds")}
    if answer.status == Status.UNKNOWN:
        added |= {"certified": None, "reason": answer.stats.get("reason", "not certified")}
    added["certified_on"] = f"plain CNF, clues as units (the directed graph: {why})"
    return added


def _variables(num_vertices: int, arcs: np.ndarray, pairs) -> np.ndarray:
    if pairs is None or len(pairs) == 0:
        return np.zeros(0, dtype=np.int64)
    return arc_variables(num_vertices, arcs, pairs)


def _with_certificate(outcome: Outcome, added: dict) -> Outcome:
    """``outcome`` with the certificate's record; an unfinished one withdraws the claim."""
    if added["certified"] is None:
        withdraw_negative_claim(outcome)
    outcome.stats = {**outcome.stats, **added}
    return outcome
