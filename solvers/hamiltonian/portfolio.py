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
* **An ordering encoding beside the cuts** (the ``order`` member,
  :mod:`solvers.hamiltonian.order_model`): binary positions along the chosen arcs, so that
  every model is a Hamiltonian cycle — one solve, no cut loop. It joins in the third round
  (:data:`ORDER_FIRST_ROUND`), last in turn, and takes the others' cuts too: a fallback
  for graphs whose covers keep splitting into new subtours (what it solves alone:
  docs/benchmarks.md). Left out when its model would be too large
  (:data:`ORDER_MAX_SIZE`).

* **A dense graph is tried on a sparse spanning subgraph first** (the caller,
  :func:`solvers.hamiltonian.one_off._portfolio`; :func:`sparse_spanning_subgraph`): the
  whole model of a graph of 300,000 edges is millions of clauses, most of a minute to build
  in Python, where the subgraph's first model is already a Hamiltonian cycle on the FHCP
  graphs.

"no cycle" is still only an unsatisfiable formula (or a set with no arc out), found by any
configuration: the symmetry clauses keep one orientation of every undirected cycle, so they
lose none, and the ordering encoding is exact (its module docstring). The answer is checked
against the graph by the caller."""

from __future__ import annotations

from typing import Any

import numpy as np

from reductions.hamiltonian.graphs import cycle_labels, label_roots

from ..runtime.budget import Deadline, solve_within
from ..runtime.pysat_solvers import new_pysat_solver
from .covers import _cycle_order
from .cut_loop import _cut_loop
from .order_model import order_clauses, position_bits
from .results import CycleStatus, HcpResult
from .sat_model import _model_clauses

__all__ = ["CONFIGURATIONS", "DENSE_DEGREE", "FIRST_SLICE", "ORDER_FIRST_ROUND",
           "ORDER_MAX_SIZE", "ORDER_SOLVER", "SPARSE_KEEP", "SPARSE_SHARE",
           "solve_with_portfolio", "sparse_spanning_subgraph"]

CONFIGURATIONS: tuple[tuple[str, bool], ...] = (
    ("cadical195", False), ("glucose4", True), ("glucose4", False), ("cpsat", False),
    ("cadical195", True), ("order", True))
"""(solver, orientation fixed) of each portfolio member, in turn order: a pysat solver name,
``cpsat`` (OR-Tools' circuit constraint with every cut found so far; skipped when OR-Tools
is not installed) or ``order`` (the ordering encoding of :mod:`solvers.hamiltonian.order_model`
in :data:`ORDER_SOLVER`, with every cut found so far: no cut loop). CaDiCaL first (it
answers most graphs in its first slice), Glucose with the orientation fixed second: the
member that answers the FHCP graphs whose CaDiCaL rounds stall (graph 156), given its
longer slices earlier (the same-run comparison: docs/benchmarks.md)."""

ORDER_FIRST_ROUND = 2
"""The ``order`` member takes its first turn in this round (counted from 0), after 7.5 s of
the others' turns: where the cut loop answers by then, the portfolio takes the turns it
took without the member. Earlier, its turns (which overrun their slices: 2.9 s for 1 s on
FHCP graph 164, the model's building included) slowed graphs that a cut member answers a
few rounds in — in one run each at load 6–7, from round 0: 151 from 44 s to unknown, 153,
154, 155, 157, 164 by 1.3–5×; from round 1: 164 and 166 from 7 and 26 s to unknown."""

ORDER_SOLVER = "cadical195"
"""The pysat solver of the ``order`` member."""

ORDER_MAX_SIZE = 400_000
"""The ``order`` member joins only when arcs × position bits is at most this (its model is
about four clauses per arc and bit: 1.6 million clauses here). FHCP graph 156 is 56,000;
the whole of the dense graph 188, 7 million (its sparse subgraph, 100,000)."""

FIRST_SLICE = 0.5
"""Seconds of each member's first turn; every full turn doubles it."""


SPARSE_KEEP = 8
"""Edges each vertex keeps in the sparse spanning subgraph tried first on a dense graph: those
to its lowest-degree neighbours (:func:`sparse_spanning_subgraph`)."""

DENSE_DEGREE = 32
"""An undirected graph of a higher average degree is dense: the sparse subgraph is tried
first. On FHCP graph 188 (1,123 vertices, 315,283 edges) the full model is 4.1 million
clauses, 50 s to build and 17 s to load at load 10; its subgraph of 4,480 edges gave a
Hamiltonian cycle in 2.5 s."""

SPARSE_SHARE = 0.25
"""The part of the remaining time the sparse subgraph may take (30 s without a limit)."""


def sparse_spanning_subgraph(num_vertices: int, edges: np.ndarray, keep: int) -> np.ndarray:
    """The edges (normalised rows u < v, sorted) of the spanning subgraph in which every
    vertex v keeps its ``keep`` edges to neighbours of least degree (ties: the neighbour u
    with the least (u − v) mod n, so that equal degrees spread — on a complete graph the
    subgraph is a circulant, not every vertex joined to the same few), an edge kept when
    either end keeps it. A low-degree vertex keeps all its edges, and a hub its edges to
    the vertices that need it most; any Hamiltonian cycle of the subgraph is one of the
    graph."""
    degree = np.bincount(edges.ravel(), minlength=num_vertices)
    both = np.concatenate([edges, edges[:, ::-1]])
    ahead = (both[:, 1] - both[:, 0]) % num_vertices
    both = both[np.lexsort((ahead, degree[both[:, 1]], both[:, 0]))]
    first = np.searchsorted(both[:, 0], np.arange(num_vertices))
    rank = np.arange(len(both)) - first[both[:, 0]]
    kept = np.sort(both[rank < keep], axis=1)
    return np.unique(kept, axis=0)


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
    stats: dict[str, Any] = {"backend": "sat", "solver": "portfolio", "variables": top,
                             "clauses": len(clauses), "iterations": 0, "cuts": 0,
                             "turns": 0}
    configurations = _runnable(configurations, len(arcs) * position_bits(num_vertices))
    if not configurations:
        return HcpResult(CycleStatus.UNKNOWN, None, {
            **stats, "reason": "no portfolio member can run on this graph here"})
    members: dict[int, dict[str, Any]] = {}
    try:
        slice_, round_ = first_slice, 0
        while True:
            for index, (name, oriented) in enumerate(configurations):
                if name == "order" and round_ < ORDER_FIRST_ROUND:
                    continue
                extra = symmetric if oriented else []
                if index not in members:
                    members[index] = _new_member(name, num_vertices, arcs, clauses, top,
                                                 extra)
                result = _member_turn(name, members[index], extra, cuts, num_vertices, arcs,
                                      deadline, slice_, stats)
                if result is not None:
                    result.stats = {**stats, **result.stats, "member": f"{name}+{oriented}",
                                    "seconds": deadline.seconds()}
                    if result.status == CycleStatus.NO_CYCLE:
                        result.cuts = [list(map(int, cut)) for cut in cuts]
                    return result
                stats["turns"] += 1
            round_, slice_ = round_ + 1, 2 * slice_
    finally:
        for member in members.values():
            if member["solver"] is not None:
                member["solver"].delete()


def _member_turn(name: str, member: dict[str, Any], extra: list[list[int]],
                 cuts: list[list[int]], num_vertices: int, arcs: np.ndarray,
                 deadline: Deadline, slice_: float, stats: dict[str, Any]
                 ) -> HcpResult | None:
    """One turn of the member called ``name`` (``extra``: its orientation clauses, for
    CP-SAT, which starts afresh each turn; a pysat member first takes the cuts found since
    its last turn): its answer, or None to go on."""
    if name == "cpsat":
        return _cpsat_turn(num_vertices, arcs, cuts + extra, deadline, slice_)
    for clause in cuts[member["seen"]:]:
        member["solver"].add_clause(clause)
    member["seen"] = len(cuts)
    turn = _order_turn if name == "order" else _turn
    return turn(member, cuts, num_vertices, arcs, deadline, slice_, stats)


def _runnable(configurations, order_size: int) -> list[tuple[str, bool]]:
    """The members that can run: ``cpsat`` when OR-Tools is installed, ``order`` when its
    model is small enough (:data:`ORDER_MAX_SIZE`)."""
    return [(name, oriented) for name, oriented in configurations
            if (name != "cpsat" or _has_cpsat())
            and (name != "order" or order_size <= ORDER_MAX_SIZE)]


def _new_member(name: str, num_vertices: int, arcs: np.ndarray, clauses: list[list[int]],
                top: int, extra: list[list[int]]) -> dict[str, Any]:
    """A member's state: its pysat solver holding the cover model and ``extra`` (none for
    CP-SAT, built afresh each turn); for ``order``, the ordering encoding too, rooted at
    the vertex the orientation clauses use (:func:`orientation_clauses`)."""
    if name == "cpsat":
        return {"solver": None, "seen": 0}
    if name != "order":
        return {"solver": new_pysat_solver(name, clauses + extra), "seen": 0}
    root = int(np.argmin(np.bincount(arcs[:, 0], minlength=num_vertices)))
    order, _ = order_clauses(num_vertices, arcs, top=top, root=root)
    return {"solver": new_pysat_solver(ORDER_SOLVER, clauses + extra + order), "seen": 0}


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


def _order_turn(member: dict[str, Any], cuts: list[list[int]], num_vertices: int,
                arcs: np.ndarray, deadline: Deadline, slice_: float,
                stats: dict[str, Any]) -> HcpResult | None:
    """One turn of the ordering encoding (:mod:`solvers.hamiltonian.order_model`, with every
    cut found so far): a Hamiltonian cycle, a proof (unsatisfiable: the encoding is exact
    and the cuts hold for every Hamiltonian cycle), or None to go on."""
    remaining = deadline.remaining()
    limit = slice_ if remaining is None else min(slice_, remaining)
    stats["iterations"] += 1
    answer = solve_within(member["solver"], Deadline(limit))
    if answer is False:
        return HcpResult(CycleStatus.NO_CYCLE, None, {
            "reason": "the ordering encoding (with the subtour cuts) is unsatisfiable"})
    if answer is None:
        if deadline.passed():
            return HcpResult(CycleStatus.UNKNOWN, None, {"reason": "time limit reached"})
        return None
    model = np.fromiter(member["solver"].get_model(), dtype=np.int64, count=len(arcs))
    successor = np.empty(num_vertices, dtype=np.int64)
    chosen = arcs[model > 0]
    successor[chosen[:, 0]] = chosen[:, 1]
    if label_roots(cycle_labels(successor)).size != 1:
        raise RuntimeError("internal error: a model of the ordering encoding is not one "
                           "cycle")
    return HcpResult(CycleStatus.HAMILTONIAN, _cycle_order(successor), {})


def _has_cpsat() -> bool:
    try:
        from ortools.sat.python import cp_model  # noqa: F401
    except ImportError:
        return False
    return True


def _cpsat_turn(num_vertices: int, arcs: np.ndarray, clauses: list[list[int]],
                deadline: Deadline, slice_: float) -> HcpResult | None:
    """CP-SAT's circuit constraint over the arcs with ``clauses`` (the cuts so far; literal
    e + 1 is arc e) for at most ``slice_`` seconds, from scratch each turn: a cycle, a proof
    (infeasible: the cuts hold for every Hamiltonian cycle), or None."""
    from ortools.sat.python import cp_model
    model = cp_model.CpModel()
    lits = [model.new_bool_var(f"a{e}") for e in range(len(arcs))]
    model.add_circuit(list(zip(arcs[:, 0].tolist(), arcs[:, 1].tolist(), lits)))
    for clause in clauses:
        model.add_bool_or([lits[x - 1] if x > 0 else lits[-x - 1].Not() for x in clause])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    remaining = deadline.remaining()
    solver.parameters.max_time_in_seconds = max(slice_ if remaining is None
                                                else min(slice_, remaining), 0.001)
    status = solver.solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        successor = np.empty(num_vertices, dtype=np.int64)
        chosen = arcs[[bool(solver.value(lit)) for lit in lits]]
        successor[chosen[:, 0]] = chosen[:, 1]
        return HcpResult(CycleStatus.HAMILTONIAN, _cycle_order(successor), {})
    if status == cp_model.INFEASIBLE:
        return HcpResult(CycleStatus.NO_CYCLE, None, {
            "reason": "CP-SAT proved the circuit constraint with the subtour cuts "
                      "infeasible"})
    if deadline.passed():
        return HcpResult(CycleStatus.UNKNOWN, None, {"reason": "time limit reached"})
    return None
