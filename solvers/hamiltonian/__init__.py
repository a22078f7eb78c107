"""Exact Hamiltonian-cycle solvers for any graph given as numpy arrays.

Graphs are ``num_vertices`` and an ``(m, 2)`` int64 array: arcs ``(tail, head)`` for directed
graphs, edges ``(u, v)`` for undirected ones (0-based ids). A Hamiltonian cycle is returned as
the vertices in cycle order. Every answer is one of

* ``hamiltonian`` — ``cycle`` holds a Hamiltonian cycle, checked against the graph;
* ``no cycle`` — *proved*: the SAT formula is unsatisfiable, CP-SAT reports infeasible, or a
  simple count shows it (a vertex without an arc in or out, a vertex set nothing leaves);
* ``unknown`` — the time limit came first. Never "no cycle" on a time-out.

Backends
--------
``sat`` (default): a SAT model with lazy subtour elimination, solved by one incremental pysat
solver (CaDiCaL 1.9.5 by default) that keeps its learnt clauses across rounds.

* Directed: one variable per arc; exactly one arc out of and one arc into every vertex
  (pysat ``CardEnc`` with a shared ``IDPool``); the two arcs of a 2-cycle ``u→v→u`` never
  both (for more than two vertices). A model is then a *cycle cover*: a permutation whose
  cycles are read off. If it has one cycle, it is Hamiltonian. Otherwise, for *every* cycle
  S of the cover, add "some arc leaves S" and "some arc enters S" (each a clause over the
  arcs crossing S in that direction; every Hamiltonian cycle satisfies both, so no cycle is
  lost), and solve again. Each round forbids the cover just found, so the loop ends: with
  one cycle, or with an unsatisfiable formula — a proof that no Hamiltonian cycle exists
  (this is the classical subtour-elimination formulation of the ATSP, with its cuts added
  only when violated).
* Undirected: one variable per edge; exactly two edges at every vertex; a model is a
  2-factor (disjoint cycles). Each cycle S that is not the whole graph adds "some edge
  crosses S" — the cut constraint. At least one crossing edge is enough: with exactly two
  edges per vertex, the number of chosen edges crossing S is even, so one forces two.

Groups (``together``, optional): pairs the caller knows every Hamiltonian cycle uses all of
or none of — for Haythorpe's Sudoku graph the seven arcs of an option — become equality
clauses (:func:`together_clauses`). The cycle-cover model implies them only by counting, which
CDCL does not see; with them the empty 25×25 grid's first cover takes seconds, not minutes.

Patching (on by default): before cutting, the subtours of each model are merged greedily by
2-exchanges that use only graph arcs (:func:`patch_cover`, Karp's patching). If that leaves
one cycle, it is a Hamiltonian cycle and is returned (``found_by_patching``); otherwise the
patched cover only seeds the solver's phases for the next round. This is what makes most
Sudoku graphs finish in one or two rounds. It is a heuristic shortcut only: "no cycle" still
comes from the SAT solver alone.

Statistics (``HcpResult.stats``): ``iterations`` (SAT calls), ``cuts`` (subtour clauses
added), ``seconds``, ``variables``, ``clauses``, ``largest_subtours``, ``patch_merges``,
``found_by_patching``, and ``reason`` when no cycle is returned.

:class:`SharedHcpModel`: the same SAT model built once for a fixed graph and reused for any
of its spanning subgraphs (absent pairs as assumptions, cuts kept): the Sudoku routes keep one
per process for the blank grid's graph.

``cpsat``: OR-Tools CP-SAT's circuit constraint (``add_circuit``), one Boolean per arc, solved
in one call (optional: the ``ortools`` package, extra ``cpsat``). On undirected graphs each
edge becomes two opposite arcs; this works on generic graphs but was hopeless on the 3-split
Sudoku graphs (see the benchmarks) — use the directed graph with CP-SAT.

Both backends accept ``required`` pairs: arcs (edges) every returned cycle must use, enforced
as unit clauses / fixed literals. "no cycle" then means: none through all of them.

Time limits are wall-clock seconds for the whole solve. pysat solvers are run by rounds of a
conflict budget (``conf_budget`` + ``solve_limited``), the clock checked between rounds; the
budget doubles up to :data:`solvers.runtime.budget.MAX_BUDGET` conflicts, so the limit is overrun by
at most one such round (a few seconds on the 25×25 graphs), not by as much again as was spent.

Modules
-------
``results`` (what is answered, errors), ``graph_input`` (checked, normalised graphs; "no
cycle" from degrees), ``sat_model`` (the clauses), ``cut_loop`` (solve, cut, patch, check),
``patching`` (Karp's patching), ``covers`` (cycle covers as arrays), ``one_off`` (the entry
points), ``shared_model``, ``portfolio`` (the ``hamiltonian`` command's solver) and
``order_model`` (its ordering encoding), ``cpsat``, ``enumeration`` (every cycle of a small graph). Tours of
heuristic and outside programs are checked in :mod:`solvers.tools.tour_programs`. The general graph helpers
(pair keys, cycle labels, the Hamiltonian-cycle check) are in :mod:`reductions.hamiltonian.graphs`.
"""

from __future__ import annotations

from .enumeration import hamiltonian_cycles
from .graph_input import normalized_graph
from .one_off import solve_directed_hcp, solve_undirected_hcp
from .patching import PATCH_SLICE, patch_cover
from .results import (BACKENDS, DEFAULT_SAT_SOLVER, BackendUnavailable, CycleStatus,
                      GraphInputError, HcpBackend, HcpResult)
from .sat_model import forced_paths, together_clauses
from .shared_model import SharedHcpModel

__all__ = ["BACKENDS", "DEFAULT_SAT_SOLVER", "PATCH_SLICE", "BackendUnavailable",
           "CycleStatus", "GraphInputError", "HcpBackend", "HcpResult", "SharedHcpModel",
           "forced_paths", "hamiltonian_cycles", "normalized_graph",
           "patch_cover", "solve_directed_hcp", "solve_undirected_hcp",
           "together_clauses"]
