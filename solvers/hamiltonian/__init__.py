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
budget doubles up to :data:`solvers.budget.MAX_BUDGET` conflicts, so the limit is overrun by at most one
such round (a few seconds on the 25×25 graphs), not by as much again as was spent.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from scipy import sparse
from scipy.sparse import csgraph

from reductions.errors import UserError
from reductions.graphs import component_labels
from reductions.reading import InputTooLarge

from ..budget import Deadline, solve_within
from ..external import ProgramRun, output_limit
from ..formats.tsplib import TsplibError, read_tour
from ..sat import new_pysat_solver



class CycleStatus(enum.StrEnum):
    """What a Hamiltonian-cycle search found."""

    HAMILTONIAN = "hamiltonian"
    NO_CYCLE = "no cycle"
    UNKNOWN = "unknown"



class HcpBackend(enum.StrEnum):
    """The exact Hamiltonian-cycle solvers of this module."""

    SAT = "sat"
    CPSAT = "cpsat"


BACKENDS = tuple(HcpBackend)
DEFAULT_SAT_SOLVER = "cadical195"


class GraphInputError(UserError):
    """A graph that is not a valid input (vertex out of range, wrong array shape)."""


class BackendUnavailable(UserError):
    """A backend whose package is not installed."""


@dataclass
class HcpResult:
    """``status`` in {hamiltonian, no cycle, unknown}; ``cycle`` (vertex order) when found;
    ``stats``: backend, seconds, iterations, cuts, model size, and ``reason`` when not found.
    ``split_tour``: the cycle is a tour of a pipeline's 3-split graph, not of its reduced
    graph (the shared model searches the 3-split less the reduction's deleted edges, see
    :func:`solvers.hcp_puzzle.solve_on_shared_model`)."""

    status: CycleStatus
    cycle: np.ndarray | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    split_tour: bool = False

    @property
    def found(self) -> bool:
        return self.status == CycleStatus.HAMILTONIAN


# ----------------------------------------------------------------------------- input

def _as_pairs(num_vertices: int, pairs, what: str) -> np.ndarray:
    pairs = np.asarray(pairs if pairs is not None else np.zeros((0, 2)), dtype=np.int64)
    if pairs.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise GraphInputError(f"{what} must be an (m, 2) array, got shape {pairs.shape}")
    if 0 <= pairs.min() and pairs.max() < num_vertices:
        return pairs                         # the usual case: two reductions, no row scan
    bad = np.flatnonzero(((pairs < 0) | (pairs >= num_vertices)).any(axis=1))
    if bad.size:
        u, v = pairs[bad[0]]
        raise GraphInputError(f"{what} row {bad[0]}: ({u}, {v}) has a vertex outside "
                              f"0..{num_vertices - 1}")
    return pairs


def _pair_keys(num_vertices: int, pairs: np.ndarray, directed: bool) -> np.ndarray:
    if directed:
        return pairs[:, 0] * num_vertices + pairs[:, 1]
    lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return lo * num_vertices + hi


def normalized_graph(num_vertices: int, pairs, directed: bool) -> np.ndarray:
    """The distinct arcs (edges, as ``u < v``) of the graph, loops dropped, sorted."""
    if num_vertices < 1:
        raise GraphInputError(f"a graph needs at least one vertex, got {num_vertices}")
    pairs = _as_pairs(num_vertices, pairs, "arcs" if directed else "edges")
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    keys = _pair_keys(num_vertices, pairs, directed)
    if keys.size and np.all(keys[1:] > keys[:-1]) and (directed
                                                       or np.all(pairs[:, 0] < pairs[:, 1])):
        return pairs                   # already normalised (the builders' usual output)
    keys = np.unique(keys)
    return np.stack(np.divmod(keys, num_vertices), axis=1).astype(np.int64)


def _required_indices(num_vertices: int, pairs: np.ndarray, required, directed: bool
                      ) -> np.ndarray | str:
    """Indices into ``pairs`` of the required arcs/edges; a reason string if one is absent."""
    required = _as_pairs(num_vertices, required, "required")
    if required.size == 0:
        return np.zeros(0, dtype=np.int64)
    keys = _pair_keys(num_vertices, pairs, directed)
    wanted = _pair_keys(num_vertices, required, directed)
    pos = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    missing = np.flatnonzero(keys[pos] != wanted) if len(keys) else np.arange(len(wanted))
    if missing.size:
        u, v = required[missing[0]]
        return f"the required {'arc' if directed else 'edge'} ({u}, {v}) is not in the graph"
    return np.unique(pos)


def count_non_edges(num_vertices: int, edges, order, directed: bool = False) -> int:
    """How many consecutive pairs of the closed tour ``order`` are not edges (arcs, if
    ``directed``) of the graph: its cost in the HCP-as-TSP reading (0 = a Hamiltonian
    cycle)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    order = np.asarray(order, dtype=np.int64)
    keys = _pair_keys(num_vertices, edges, directed=directed)
    steps = np.stack([order, np.roll(order, -1)], axis=1)
    return int(np.count_nonzero(~np.isin(_pair_keys(num_vertices, steps, directed=directed),
                                         keys)))


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


def _degree_problem(num_vertices: int, pairs: np.ndarray, directed: bool) -> str | None:
    """A reason no Hamiltonian cycle can exist that degrees alone show, or None."""
    if directed:
        out_deg = np.bincount(pairs[:, 0], minlength=num_vertices)
        in_deg = np.bincount(pairs[:, 1], minlength=num_vertices)
        for name, deg in (("out", out_deg), ("in", in_deg)):
            zero = np.flatnonzero(deg == 0)
            if zero.size:
                return f"vertex {zero[0]} has no arc {name}"
        return None
    deg = np.bincount(pairs.ravel(), minlength=num_vertices)
    low = np.flatnonzero(deg < 2)
    if low.size:
        return f"vertex {low[0]} has degree {deg[low[0]]} (a cycle needs 2)"
    forced = pairs[(deg[pairs[:, 0]] == 2) | (deg[pairs[:, 1]] == 2)]
    fdeg = np.bincount(forced.ravel(), minlength=num_vertices)
    many = np.flatnonzero(fdeg > 2)
    if many.size:
        return (f"vertex {many[0]} has {fdeg[many[0]]} neighbours of degree 2 (a cycle "
                f"would need all those edges)")
    return None


def _simple_too_small(num_vertices: int, directed: bool) -> str | None:
    """Why an undirected simple graph this small has no Hamiltonian cycle (it would need a
    loop or two parallel edges), or None."""
    if not directed and num_vertices <= 2:
        return f"a simple graph on {num_vertices} vertices has no cycle"
    return None


def _cycle_order(successor: np.ndarray) -> np.ndarray:
    """The vertices of a one-cycle permutation in cycle order, from vertex 0."""
    n = successor.size
    order = np.empty(n, dtype=np.int64)
    succ = successor.tolist()
    v = 0
    for p in range(n):
        order[p] = v
        v = succ[v]
    return order


def cycle_labels(successor: np.ndarray) -> np.ndarray:
    """For a permutation, each vertex's smallest cycle-mate (pointer doubling: after round
    r every label is the minimum over 2^r successive vertices)."""
    label = np.arange(successor.size, dtype=np.int64)
    jump = successor.astype(np.int64)
    span = 1
    while span < successor.size:
        label = np.minimum(label, label[jump])
        jump = jump[jump]
        span *= 2
    return label


def _label_roots(label: np.ndarray) -> np.ndarray:
    """The distinct labels of :func:`cycle_labels` / :func:`component_labels` (each vertex
    labelled by the smallest vertex of its cycle), ascending: the vertices that are their
    own label (no sort)."""
    return np.flatnonzero(label == np.arange(label.size))


def _groups(keys: np.ndarray, values: np.ndarray) -> list[np.ndarray]:
    """``values`` split into groups of equal ``keys``."""
    if keys.size == 0:
        return []
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    cuts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    return np.split(values, cuts)


# ----------------------------------------------------------------------------- SAT model

def _exactly_template(degree: int, k: int) -> tuple[list[list[int]], int]:
    """``CardEnc`` clauses for "exactly k of the literals 1..degree", and how many auxiliary
    variables (numbered from degree + 1) they use. Pairwise where that is small, sequential
    counter beyond."""
    small = k in (0, degree) or (k == 1 and degree <= 8) or (k == 2 and degree <= 3)
    encoding = EncType.pairwise if small else EncType.seqcounter
    scratch = IDPool(start_from=degree + 1)
    clauses = CardEnc.equals(lits=list(range(1, degree + 1)), bound=k, vpool=scratch,
                             encoding=encoding).clauses
    return clauses, scratch.top - degree


def _degree_clauses(incidence_vertex: np.ndarray, incidence_lit: np.ndarray, need,
                    vpool: IDPool) -> list[list[int]]:
    """"Exactly need[v] of the literals at vertex v", for every vertex at once (``need`` an
    int or an array over vertices).

    Vertices of equal (degree, need) share one ``CardEnc`` template, instantiated with numpy
    (one pysat call per vertex would dominate the whole solve on these graphs); each vertex
    gets its own block of auxiliary variables from ``vpool``."""
    order = np.argsort(incidence_vertex, kind="stable")
    vertices, starts, degrees = np.unique(incidence_vertex[order], return_index=True,
                                          return_counts=True)
    needs = np.broadcast_to(np.asarray(need, dtype=np.int64), vertices.shape) \
        if np.ndim(need) == 0 else np.asarray(need, dtype=np.int64)[vertices]
    lits = incidence_lit[order]
    clauses: list[list[int]] = []
    for degree, k in np.unique(np.stack([degrees, needs], axis=1), axis=0).tolist():
        rows = starts[(degrees == degree) & (needs == k)]
        table = lits[rows[:, None] + np.arange(degree)]            # (count, degree)
        template, aux = _exactly_template(degree, k)
        aux_base = np.zeros(len(rows), dtype=np.int64)
        if aux:                                  # reserve the block first..top
            first = vpool.top + 1
            vpool.top += aux * len(rows)
            aux_base = first + aux * np.arange(len(rows), dtype=np.int64) - (degree + 1)
        for clause in template:
            clause = np.asarray(clause, dtype=np.int64)
            var, sign = np.abs(clause), np.sign(clause)
            is_aux = var > degree
            cols = np.where(is_aux, 0, var - 1)
            values = np.where(is_aux, aux_base[:, None] + var, table[:, cols])
            clauses.extend((values * sign).tolist())
    return clauses


def _undirected_degree_clauses(num_vertices: int, edges: np.ndarray, lits: np.ndarray,
                               vpool: IDPool) -> list[list[int]]:
    """Exactly two chosen edges at every vertex, with the forced edges (those at a degree-2
    vertex) as unit clauses and taken out of the cardinality constraints: a vertex with f
    forced edges needs exactly 2 − f of its others (fewer, much smaller clauses — on a
    3-split graph every in/out vertex becomes "exactly one"). A vertex with three forced
    edges gets an empty constraint set that cannot be met (need −1 → unsatisfiable)."""
    degree = np.bincount(edges.ravel(), minlength=num_vertices)
    forced = (degree[edges[:, 0]] == 2) | (degree[edges[:, 1]] == 2)
    fdeg = np.bincount(edges[forced].ravel(), minlength=num_vertices)
    clauses = [[int(x)] for x in lits[forced]]
    free = np.flatnonzero(~forced)
    ends = np.concatenate([edges[free, 0], edges[free, 1]])
    clauses += _degree_clauses(ends, np.concatenate([lits[free], lits[free]]), 2 - fdeg,
                               vpool)
    # Vertices whose every edge is forced are complete; no constraint needed for them.
    return clauses


def forced_paths(num_vertices: int, edges: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The paths every Hamiltonian cycle walks because of degree-2 vertices.

    Both edges of a degree-2 vertex are on every Hamiltonian cycle ("forced"). The forced
    edges form paths (or worse: a vertex with three forced edges, a forced cycle — then the
    SAT model finds the contradiction itself; such components are skipped here). Returns
    ``(path_of, side, path_size, on_path)``: for each vertex that ends a forced path, the
    path's id and which end it is (0 or 1), −1 elsewhere; ``path_size[id]`` its number of
    vertices; ``on_path`` marks every vertex with a forced edge. Path ids are vertex ids."""
    path_of = np.full(num_vertices, -1, dtype=np.int64)
    side = np.full(num_vertices, -1, dtype=np.int64)
    degree = np.bincount(edges.ravel(), minlength=num_vertices)
    forced = edges[(degree[edges[:, 0]] == 2) | (degree[edges[:, 1]] == 2)]
    fdeg = np.bincount(forced.ravel(), minlength=num_vertices)
    label = component_labels(num_vertices, forced[:, 0], forced[:, 1])
    on_path = fdeg > 0
    path_size = np.bincount(label[on_path], minlength=num_vertices)
    ends_per = np.bincount(label[fdeg == 1], minlength=num_vertices)
    worst = np.zeros(num_vertices, dtype=np.int64)
    np.maximum.at(worst, label[on_path], fdeg[on_path])
    ends = np.flatnonzero(fdeg == 1)
    ends = ends[(ends_per[label[ends]] == 2) & (worst[label[ends]] <= 2)]
    ends = ends[np.argsort(label[ends], kind="stable")]      # the two ends of a path adjacent
    path_of[ends] = label[ends]
    side[ends[0::2]], side[ends[1::2]] = 0, 1
    return path_of, side, path_size, on_path


def _short_closure_clauses(num_vertices: int, edges: np.ndarray) -> list[list[int]]:
    """Clauses forbidding the shortest subtours: forced paths closed into a cycle by a few
    edges and free vertices (vertices without forced edges).

    With forced paths (:func:`forced_paths`) P = a…b and Q = c…d and free vertices u, w, a
    Hamiltonian cycle of more vertices than the cycle named cannot use all of

    1. the edge a–b (P closed on itself);
    2. a–c and b–d, or a–d and b–c (P and Q closed into one cycle);
    3. a–u and u–b (P closed through u);
    4. a–u, u–w and w–b (P closed through the edge u–w);
    5. a–u, u–c, d–w and w–b, any ends paired (P and Q closed through u and w).

    One clause per such cycle, over its edges that are not forced. On a 3-split digraph
    (``u_in – u_mid – u_out``) rule 2 is exactly "no 2-cycle u→v→u", the clause the directed
    model adds; with Haythorpe's triple trick rules 4 and 5 are the 5- and 8-vertex cycles
    each shortened triple allows (``x0`` with ``x1_in``, ``x1_out``; ``x0``, ``x1_in``,
    ``x2``, ``x1_out``). Edge e has variable e + 1."""
    n = num_vertices
    path_of, side, path_size, on_path = forced_paths(n, edges)
    keys = _pair_keys(n, edges, directed=False)            # sorted: edges are normalised

    def lit(u, v) -> int:
        return -(int(np.searchsorted(keys, min(u, v) * n + max(u, v))) + 1)

    pu, pv = path_of[edges[:, 0]], path_of[edges[:, 1]]
    joins = np.flatnonzero((pu >= 0) & (pv >= 0))
    clauses: list[list[int]] = []
    same = joins[pu[joins] == pv[joins]]
    for e in same[path_size[pu[same]] < n]:                                  # rule 1
        clauses.append([-int(e) - 1])
    other = joins[pu[joins] != pv[joins]]
    # Key of an edge joining end s of path p to end t of path q (p < q): (p, q, s, t); its
    # partner closing the cycle is (p, q, 1-s, 1-t). Keys are distinct (simple graph).
    a, b = pu[other], pv[other]
    sa, sb = side[edges[other, 0]], side[edges[other, 1]]
    swap = a > b
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    slo, shi = np.where(swap, sb, sa), np.where(swap, sa, sb)
    pkeys = ((lo * n + hi) * 2 + slo) * 2 + shi
    partner = ((lo * n + hi) * 2 + (1 - slo)) * 2 + (1 - shi)
    order = np.argsort(pkeys)
    pos = np.searchsorted(pkeys[order], partner).clip(max=max(pkeys.size - 1, 0))
    match = (pkeys[order][pos] == partner) & (pkeys < partner) if pkeys.size else pkeys > 0
    small = path_size[lo] + path_size[hi] < n
    for i in np.flatnonzero(match & small):                                  # rule 2
        clauses.append([-int(other[i]) - 1, -int(other[order[pos[i]]]) - 1])
    clauses += _bridge_clauses(n, edges, path_of, side, path_size, on_path, lit)
    return clauses


def _bridge_clauses(n: int, edges: np.ndarray, path_of: np.ndarray, side: np.ndarray,
                    path_size: np.ndarray, on_path: np.ndarray, lit) -> list[list[int]]:
    """Rules 3–5 of :func:`_short_closure_clauses` (closures through free vertices)."""
    free = ~on_path
    ends = np.flatnonzero(path_of >= 0)
    if ends.size == 0 or not free.any():
        return []
    other_end = np.full(n, -1, dtype=np.int64)
    first = np.full(n, -1, dtype=np.int64)
    first[path_of[ends[side[ends] == 0]]] = ends[side[ends] == 0]
    second = np.full(n, -1, dtype=np.int64)
    second[path_of[ends[side[ends] == 1]]] = ends[side[ends] == 1]
    other_end[ends] = np.where(side[ends] == 0, second[path_of[ends]], first[path_of[ends]])
    both = np.concatenate([edges, edges[:, ::-1]])
    # Free vertex x next to path end y.
    near = both[free[both[:, 0]] & (path_of[both[:, 1]] >= 0)]
    ends_near: dict[int, list[int]] = {}
    for x, y in near.tolist():
        ends_near.setdefault(x, []).append(y)
    clauses: list[list[int]] = []
    # Rule 3 (P through u), and the pairs (end, end) around each free vertex for rule 5.
    around: dict[tuple[int, int], list[int]] = {}
    for u, ys in ends_near.items():
        for i, y1 in enumerate(ys):
            for y2 in ys[i + 1:]:
                if path_of[y1] == path_of[y2]:
                    if path_size[path_of[y1]] + 1 < n:
                        clauses.append([lit(y1, u), lit(u, y2)])
                else:
                    around.setdefault((min(y1, y2), max(y1, y2)), []).append(u)
    # Rule 4 (P through the free edge u–w).
    for u, w in both[free[both[:, 0]] & free[both[:, 1]]].tolist():
        for y1 in ends_near.get(u, ()):
            for y2 in ends_near.get(w, ()):
                p = path_of[y1]
                if y2 == other_end[y1] and y1 < y2 and path_size[p] + 2 < n:
                    clauses.append([lit(y1, u), lit(u, w), lit(w, y2)])
    # Rule 5 (P and Q through u and w): u next to ends y1 (of P) and y2 (of Q), w next to
    # their other ends.
    for (y1, y2), us in around.items():
        z1, z2 = other_end[y1], other_end[y2]
        ws = around.get((min(z1, z2), max(z1, z2)), ())
        if (y1, y2) > (min(z1, z2), max(z1, z2)):
            continue                          # each cycle once, from its smaller end pair
        size = path_size[path_of[y1]] + path_size[path_of[y2]] + 2
        if size >= n:
            continue
        for u in us:
            for w in ws:
                if u != w:
                    clauses.append([lit(y1, u), lit(u, y2), lit(z1, w), lit(w, z2)])
    return clauses


def _model_clauses(num_vertices: int, pairs: np.ndarray, directed: bool
                   ) -> tuple[list[list[int]], int]:
    """The SAT model of a graph's cycle covers (2-factors when undirected) with the short
    closures forbidden; pair e has variable e + 1. Returns the clauses and the top variable."""
    m = len(pairs)
    lits = np.arange(1, m + 1, dtype=np.int64)
    vpool = IDPool(start_from=m + 1)
    if directed:
        clauses = _degree_clauses(pairs[:, 0], lits, 1, vpool)
        clauses += _degree_clauses(pairs[:, 1], lits, 1, vpool)
        if num_vertices > 2:
            # No 2-cycles: arcs u→v and v→u never both.
            keys = pairs[:, 0] * num_vertices + pairs[:, 1]
            back = pairs[:, 1] * num_vertices + pairs[:, 0]
            pos = np.minimum(np.searchsorted(keys, back), m - 1)
            has_back = (keys[pos] == back) & (pairs[:, 0] < pairs[:, 1])
            clauses += np.stack([-lits[has_back], -lits[pos[has_back]]], axis=1).tolist()
    else:
        clauses = _undirected_degree_clauses(num_vertices, pairs, lits, vpool)
        clauses += _short_closure_clauses(num_vertices, pairs)
    return clauses, vpool.top


def together_clauses(num_vertices: int, pairs: np.ndarray, groups, directed: bool
                     ) -> list[list[int]]:
    """Clauses saying that the pairs of each group are all on the cycle or none is.

    ``groups``: a ``(g, s, 2)`` array of pairs that every Hamiltonian cycle of the graph uses
    all of or none of (the caller vouches for it: for Haythorpe's graph, the seven arcs of a
    Sudoku option, §3 of the paper). A group with a pair that is not in the graph (``pairs``,
    normalised) is then never used: its other pairs get unit clauses "not chosen". A full
    group becomes the ring of implications e1 → e2 → … → es → e1 (s binary clauses). Pair e
    has variable e + 1.

    The cycle-cover model implies these equalities only through counting (a block's N
    digits each choose one of its N cells, each cell needs one) that unit propagation cannot
    see; said outright, the SAT solver meets each option as one decision, as in the direct
    Sudoku encoding (the empty 25×25 grid: a cycle cover in seconds instead of minutes)."""
    groups = np.asarray(groups, dtype=np.int64)
    if groups.size == 0:
        return []
    if groups.ndim != 3 or groups.shape[2] != 2:
        raise GraphInputError(f"together groups must be a (g, s, 2) array, got shape "
                              f"{groups.shape}")
    flat = _as_pairs(num_vertices, groups.reshape(-1, 2), "together pairs")
    keys = _pair_keys(num_vertices, pairs, directed)
    wanted = _pair_keys(num_vertices, flat, directed)
    pos = np.searchsorted(keys, wanted).clip(max=max(keys.size - 1, 0))
    present = (keys[pos] == wanted) if keys.size else np.zeros(wanted.size, dtype=bool)
    present, lits = present.reshape(groups.shape[:2]), (pos + 1).reshape(groups.shape[:2])
    full = present.all(axis=1)
    partial = present.any(axis=1) & ~full
    clauses = [[-int(e)] for e in lits[partial][present[partial]]]
    ring = lits[full]
    if ring.shape[1] > 1:
        clauses += np.stack([-ring, np.roll(ring, -1, axis=1)], axis=2).reshape(-1, 2).tolist()
    return clauses


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


def _cut_loop(solver, num_vertices: int, model_pairs: np.ndarray, pairs: np.ndarray,
              directed: bool, required: np.ndarray, assumptions, deadline: Deadline,
              both_cuts: bool, patching: bool, stats: dict[str, Any],
              not_all_of: np.ndarray | None = None) -> HcpResult:
    """Solve, cut the subtours of the model, solve again, until one cycle or a proof.

    ``model_pairs`` are the pairs of the solver's model (pair e is variable e + 1); ``pairs``
    the graph searched, a subset of them whose other pairs are false by ``assumptions``
    (``required``: indices into ``pairs``). Subtour cuts are over ``model_pairs``: valid for
    every Hamiltonian cycle of that graph, so they may stay in the solver for later calls.
    ``not_all_of``: indices into ``model_pairs`` that the caller has forbidden together (a
    clause in the solver, see :meth:`SharedHcpModel.solve`); a cycle found by patching that
    uses all of them is not an answer, only a phase hint."""
    stats.update(iterations=0, cuts=0, largest_subtours=0, patch_merges=0,
                 found_by_patching=False)
    m = len(model_pairs)
    lits = np.arange(1, m + 1, dtype=np.int64)
    required_keys = _pair_keys(num_vertices, pairs[required], directed)
    forbidden_keys = None if not_all_of is None else \
        _pair_keys(num_vertices, model_pairs[not_all_of], directed)
    while True:
        if deadline.passed():
            return _unknown(stats, deadline)
        stats["iterations"] += 1
        result = solve_within(solver, deadline, assumptions)
        if result is None:
            return _unknown(stats, deadline)
        if result is False:
            stats["seconds"] = deadline.seconds()
            stats["reason"] = ("the SAT model is unsatisfiable after "
                               f"{stats['cuts']} subtour cuts")
            return HcpResult(CycleStatus.NO_CYCLE, None, stats)
        model = np.fromiter(solver.get_model(), dtype=np.int64, count=m)
        chosen = model_pairs[model > 0]
        if directed:
            successor = np.empty(num_vertices, dtype=np.int64)
            successor[chosen[:, 0]] = chosen[:, 1]
            label = cycle_labels(successor)
        else:
            label = component_labels(num_vertices, chosen[:, 0], chosen[:, 1])
        subtours = _label_roots(label).size
        stats["largest_subtours"] = max(stats["largest_subtours"], subtours)
        if subtours == 1:
            stats["seconds"] = deadline.seconds()
            return HcpResult(CycleStatus.HAMILTONIAN, _order_of(num_vertices, chosen, directed),
                             stats)
        if patching:
            patched, left, merges = patch_cover(num_vertices, pairs, chosen, directed,
                                                required_keys, label)
            stats["patch_merges"] += merges
            if left == 1 and not _uses_all(num_vertices, patched, forbidden_keys, directed):
                stats["seconds"] = deadline.seconds()
                stats["found_by_patching"] = True
                return HcpResult(CycleStatus.HAMILTONIAN,
                                 _order_of(num_vertices, patched, directed), stats)
            # Steer the next solve towards the patched cover (phases only).
            phase = np.full(m, -1, dtype=np.int64)
            phase[_pair_index(num_vertices, model_pairs, patched, directed)] = 1
            solver.set_phases((phase * lits).tolist())
        cuts = _subtour_cuts(model_pairs, label, directed, both_cuts)
        if isinstance(cuts, str):
            stats["seconds"] = deadline.seconds()
            stats["reason"] = cuts
            return HcpResult(CycleStatus.NO_CYCLE, None, stats)
        for clause in cuts:
            solver.add_clause(clause)
        stats["cuts"] += len(cuts)


def _uses_all(num_vertices: int, chosen: np.ndarray, keys: np.ndarray | None,
              directed: bool) -> bool:
    """Whether the pairs ``chosen`` include every pair of ``keys`` (False when None)."""
    if keys is None:
        return False
    return bool(np.all(np.isin(keys, _pair_keys(num_vertices, chosen, directed))))


def _unknown(stats: dict[str, Any], deadline: Deadline) -> HcpResult:
    stats["seconds"] = deadline.seconds()
    stats["reason"] = "time limit reached"
    return HcpResult(CycleStatus.UNKNOWN, None, stats)


def _subtour_cuts(pairs: np.ndarray, label: np.ndarray, directed: bool,
                  both_cuts: bool) -> list[list[int]] | str:
    """One clause per subtour S (per direction for digraphs): some arc/edge crosses S.

    Returns a reason string instead when some S has no crossing arc at all (then no
    Hamiltonian cycle exists)."""
    tail_label, head_label = label[pairs[:, 0]], label[pairs[:, 1]]
    crossing = np.flatnonzero(tail_label != head_label)
    lits = crossing + 1
    subtours = _label_roots(label)
    if directed:
        sides = [(tail_label[crossing], "leaves")]
        if both_cuts:
            sides.append((head_label[crossing], "enters"))
    else:
        keys = np.concatenate([tail_label[crossing], head_label[crossing]])
        sides = [(keys, "crosses")]
        lits = np.concatenate([lits, lits])
    cuts: list[list[int]] = []
    for keys, verb in sides:
        groups = _groups(keys, lits)
        if len(groups) < subtours.size:
            lonely = np.setdiff1d(subtours, np.unique(keys))[0]
            size = int(np.count_nonzero(label == lonely))
            return (f"no {'arc' if directed else 'edge'} {verb} the set of {size} vertices "
                    f"around vertex {lonely}")
        cuts.extend(g.tolist() for g in groups)
    return cuts


PATCH_SLICE = 64
"""Moves :func:`patch_cover` tries between two vectorised filterings."""


def patch_cover(num_vertices: int, pairs: np.ndarray, chosen: np.ndarray, directed: bool,
                protected: np.ndarray | None = None, label: np.ndarray | None = None
                ) -> tuple[np.ndarray, int, int]:
    """Merge the cycles of a cycle cover by 2-exchanges (Karp's patching for the ATSP).

    ``chosen`` are the cover's arcs (every vertex one out, one in) or, undirected, its edges
    (two per vertex). An exchange removes two cover arcs a→b and c→d of different cycles and
    puts in the graph arcs a→d and c→b; undirected, it removes edges a–b and c–d and puts in
    a–c and b–d (either pairing closes one cycle). Each exchange turns two cycles into one.
    Candidates are found with numpy, then applied greedily while still valid (both removed
    pairs still in the cover, their cycles still different: union-find); pairs in
    ``protected`` (required ones, as keys from :func:`_pair_keys`) are never removed.

    ``label``: the cover's cycle labels when the caller has them (:func:`cycle_labels`,
    :func:`~reductions.graph_reduction.component_labels`), else computed here.

    Returns ``(chosen, cycles, merges)``: the patched cover, how many cycles it has, and how
    many exchanges were made. Only a heuristic: with one cycle left the cover is a
    Hamiltonian cycle of the graph (every pair put in is a graph pair), otherwise the caller
    goes on with cuts.
    """
    n = num_vertices
    keys = _pair_keys(n, pairs, directed)
    if np.any(keys[1:] < keys[:-1]):               # normalised pairs come sorted
        keys = np.sort(keys, kind="stable")
    protected = np.zeros(0, dtype=np.int64) if protected is None else np.sort(protected)

    def has_pair(u, v):
        wanted = _pair_keys(n, np.stack([u, v], axis=1), directed)
        pos = np.searchsorted(keys, wanted).clip(max=keys.size - 1)
        return keys[pos] == wanted

    def is_protected(u, v):
        if protected.size == 0:
            return np.zeros(np.shape(u), dtype=bool)
        wanted = _pair_keys(n, np.stack([u, v], axis=1), directed)
        pos = np.searchsorted(protected, wanted).clip(max=protected.size - 1)
        return protected[pos] == wanted

    if directed:
        succ = np.empty(n, dtype=np.int64)
        succ[chosen[:, 0]] = chosen[:, 1]
        if label is None:
            label = cycle_labels(succ)
        pred = np.empty(n, dtype=np.int64)
        pred[succ] = np.arange(n)
        a, d = pairs[:, 0], pairs[:, 1]                 # put in a→d, then c→b
        keep = label[a] != label[d]
        a, d = a[keep], d[keep]
        b, c = succ[a], pred[d]
        ok = has_pair(c, b) & ~is_protected(a, b) & ~is_protected(c, d)
        moves = np.stack([a[ok], b[ok], c[ok], d[ok]], axis=1)
        nbr = succ[:, None]
    else:
        nbr = _two_neighbours(n, chosen)
        if label is None:
            label = component_labels(n, chosen[:, 0], chosen[:, 1])
        a, c = pairs[:, 0], pairs[:, 1]                 # put in a–c, then b–d
        if np.any(a > c):
            a, c = np.minimum(a, c), np.maximum(a, c)
        keep = label[a] != label[c]
        a, c = a[keep], c[keep]
        found = []
        for i in range(2):
            for j in range(2):
                b, d = nbr[a, i], nbr[c, j]
                ok = has_pair(b, d) & ~is_protected(a, b) & ~is_protected(c, d)
                found.append(np.stack([a[ok], b[ok], c[ok], d[ok]], axis=1))
        moves = np.concatenate(found)
    roots = _label_roots(label)
    parent = dict(zip(roots.tolist(), roots.tolist()))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cycles, merges = len(roots), 0
    changed: dict[int, list[int]] = {}     # neighbour rows edited so far (the rest: nbr)

    def row(u: int) -> list[int]:
        got = changed.get(u)
        if got is None:
            got = changed[u] = nbr[u].tolist()
        return got

    # In slices: the first few moves usually leave one cycle. Before each slice, moves
    # between cycles already merged are dropped at once (most of them, after a few merges).
    chunk = np.concatenate([moves, label[moves[:, 0], None], label[moves[:, 2], None]],
                           axis=1)
    root_of = np.arange(n, dtype=np.int64)
    for first in range(0, len(moves), PATCH_SLICE):
        if cycles == 1:
            break
        part = chunk[first:first + PATCH_SLICE]
        if merges:
            root_of[roots] = [find(r) for r in roots.tolist()]
            part = part[root_of[part[:, 4]] != root_of[part[:, 5]]]
        for a_, b_, c_, d_, la, lc in part.tolist():
            if cycles == 1:
                break
            ra, rc = find(la), find(lc)
            if ra == rc or b_ not in row(a_) or d_ not in row(c_):
                continue
            if directed:
                row(a_)[0], row(c_)[0] = d_, b_
            else:
                for u, old, new in ((a_, b_, c_), (b_, a_, d_), (c_, d_, a_), (d_, c_, b_)):
                    r = row(u)
                    r[r.index(old)] = new
            parent[ra] = rc
            cycles -= 1
            merges += 1
    nb = nbr.copy()
    if changed:
        nb[list(changed)] = list(changed.values())
    if directed:
        patched = np.stack([np.arange(n), nb[:, 0]], axis=1)
    else:
        patched = np.stack([np.repeat(np.arange(n), 2), nb.ravel()], axis=1)
        patched = patched[patched[:, 0] < patched[:, 1]]
    return patched, cycles, merges


def _two_neighbours(num_vertices: int, chosen: np.ndarray) -> np.ndarray:
    """``(n, 2)``: the two neighbours of every vertex of a 2-regular edge set, each row in
    the order its edges come in ``chosen`` read as (u, v) rows then as (v, u) rows (as a
    stable sort of both orientations by first end would give; without the sort)."""
    tails = np.concatenate([chosen[:, 0], chosen[:, 1]])
    heads = np.concatenate([chosen[:, 1], chosen[:, 0]])
    index = np.arange(tails.size, dtype=np.int64)
    first = np.empty(num_vertices, dtype=np.int64)
    first[tails[::-1]] = index[::-1]                    # the earliest row of each vertex
    is_first = first[tails] == index
    nbr = np.empty((num_vertices, 2), dtype=np.int64)
    nbr[tails[is_first], 0] = heads[is_first]
    nbr[tails[~is_first], 1] = heads[~is_first]
    return nbr


def _pair_index(num_vertices: int, pairs: np.ndarray, subset: np.ndarray,
                directed: bool) -> np.ndarray:
    """Positions in ``pairs`` (normalised, sorted by key) of the pairs in ``subset``."""
    return np.searchsorted(_pair_keys(num_vertices, pairs, directed),
                           _pair_keys(num_vertices, subset, directed))


def _order_of(num_vertices: int, chosen: np.ndarray, directed: bool) -> np.ndarray:
    """Vertex order of a cover that is one cycle."""
    if directed:
        successor = np.empty(num_vertices, dtype=np.int64)
        successor[chosen[:, 0]] = chosen[:, 1]
        return _cycle_order(successor)
    return _undirected_order(num_vertices, chosen)


def _undirected_order(num_vertices: int, chosen: np.ndarray) -> np.ndarray:
    """The vertex order of a 2-regular connected edge set (one cycle), from vertex 0: a
    depth-first search from vertex 0 can only walk around the cycle (scipy, compiled)."""
    n = num_vertices
    adjacency = sparse.coo_matrix((np.ones(len(chosen), dtype=np.int8),
                                   (chosen[:, 0], chosen[:, 1])), shape=(n, n)).tocsr()
    order = csgraph.depth_first_order(adjacency, 0, directed=False,
                                      return_predecessors=False)
    return order.astype(np.int64)


# ----------------------------------------------------------------------------- enumeration

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
            used = _pair_index(num_vertices, graph, _cycle_pairs(result.cycle), directed)
            solver.add_clause((-(used + 1)).astype(int).tolist())
    finally:
        solver.delete()


# ----------------------------------------------------------------------------- shared model

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
        self.keys = _pair_keys(num_vertices, self.pairs, directed)
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
        wanted = _pair_keys(self.num_vertices, pairs, self.directed)
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
        present = np.zeros(len(self.pairs), dtype=bool)
        present[self._positions(_as_pairs(n, pairs, "pairs"))] = True
        if false_pairs is not None and len(false_pairs):
            present[self._positions(_as_pairs(n, false_pairs, "false pairs"))] = False
        graph = self.pairs[present]                  # normalised: a part of the model's
        self.served += 1
        stats: dict[str, Any] = {"backend": "sat", "solver": self.solver_name,
                                 "model": self.label, "vertices": n,
                                 "input_pairs": len(graph), "variables": self.variables,
                                 "clauses": self.clauses, "iterations": 0, "cuts": 0,
                                 "puzzles_on_model": self.served}
        if self.together_clauses is not None:
            stats["together_clauses"] = self.together_clauses
        required_idx = _required_indices(n, graph, required, directed)
        problem = ((required_idx if isinstance(required_idx, str) else None)
                   or _simple_too_small(n, directed) or _degree_problem(n, graph, directed))
        if problem:
            return HcpResult(CycleStatus.NO_CYCLE, None, {**stats, "reason": problem,
                                                          "seconds": deadline.seconds()})
        assumptions = np.concatenate([-(np.flatnonzero(~present) + 1),
                                      np.flatnonzero(present)[required_idx] + 1])
        assumptions = assumptions.astype(int).tolist()
        blocked = None
        if not_all_of is not None:
            blocked = self._positions(_as_pairs(n, not_all_of, "blocked pairs"))
            if not present[blocked].all():
                raise GraphInputError("a blocked pair is not in the subgraph")
            self.top += 1
            activation = self.top
            self.solver.add_clause([-activation] + (-(blocked + 1)).astype(int).tolist())
            assumptions.append(activation)
        try:
            result = _cut_loop(self.solver, n, self.pairs, graph, directed, required_idx,
                               assumptions, deadline, True, True, stats, blocked)
        finally:
            if blocked is not None:
                self.solver.add_clause([-activation])      # retired for good
        self.cuts += result.stats["cuts"]
        if result.found:
            # blocked pairs are present: their places among the subgraph's pairs
            in_graph = None if blocked is None else np.cumsum(present)[blocked] - 1
            _check_cycle(n, graph, result.cycle, directed, required_idx, in_graph)
        return result


# ----------------------------------------------------------------------------- CP-SAT

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


# ----------------------------------------------------------------------------- entry points

def _solve(num_vertices: int, pairs, *, directed: bool, time_limit: float | None,
           backend: str, required, solver_name: str, workers: int, both_cuts: bool,
           patching: bool, together=None, not_all_of=None) -> HcpResult:
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
        return HcpResult(CycleStatus.NO_CYCLE, None, {**base, "reason": "one vertex without a loop"})
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
    if backend == "cpsat":
        result = _cpsat(num_vertices, graph, directed, required_idx, deadline, workers,
                        blocked)
    else:
        result = _sat_loop(num_vertices, graph, directed, required_idx, deadline,
                           solver_name, both_cuts, patching, together, blocked)
    result.stats = {**base, **result.stats}
    if result.found:
        _check_cycle(num_vertices, graph, result.cycle, directed, required_idx, blocked)
    return result


def _cycle_pairs(cycle: np.ndarray) -> np.ndarray:
    """The consecutive pairs (u, next u) of a closed vertex order."""
    return np.stack([cycle, np.roll(cycle, -1)], axis=1)


def _check_cycle(num_vertices: int, pairs: np.ndarray, cycle: np.ndarray, directed: bool,
                 required: np.ndarray, blocked: np.ndarray | None = None) -> None:
    """Guard against bugs: the cycle visits every vertex once along pairs of the graph,
    uses every required pair and (``blocked``: indices into ``pairs``, a no-good) leaves
    out at least one blocked pair."""
    ok = (cycle.size == num_vertices and int(cycle.min()) >= 0
          and np.all(np.bincount(cycle, minlength=num_vertices) == 1))    # a permutation
    if ok:
        keys = _pair_keys(num_vertices, pairs, directed)          # sorted: pairs normalised
        steps = _pair_keys(num_vertices, _cycle_pairs(cycle), directed)
        ok = bool(np.all(keys[np.searchsorted(keys, steps).clip(max=keys.size - 1)] == steps))
        if ok and required.size:
            steps = np.sort(steps)
            ok = bool(np.all(steps[np.searchsorted(steps, keys[required])
                                   .clip(max=steps.size - 1)] == keys[required]))
    if not ok:
        raise RuntimeError("internal error: the solver's cycle is not a Hamiltonian cycle of "
                           "the graph")
    if blocked is not None and _uses_all(num_vertices, _cycle_pairs(cycle),
                                         _pair_keys(num_vertices, pairs[blocked], directed),
                                         directed):
        raise RuntimeError("internal error: the cycle uses every blocked pair")


def solve_directed_hcp(num_vertices: int, arcs, *, time_limit: float | None = None,
                       backend: str = "sat", required=None,
                       solver_name: str = DEFAULT_SAT_SOLVER, workers: int = 1,
                       both_cuts: bool = True, patching: bool = True,
                       together=None, not_all_of=None) -> HcpResult:
    """A Hamiltonian cycle of a digraph (``arcs`` rows are (tail, head)), or a proof that
    there is none, or ``unknown`` past ``time_limit`` seconds.

    ``backend``: ``sat`` (incremental SAT with lazy subtour cuts; ``solver_name`` a pysat
    solver; ``both_cuts`` adds "enters S" besides "leaves S"; ``patching`` tries to merge
    the subtours of each model into one cycle first, :func:`patch_cover`) or ``cpsat``
    (OR-Tools circuit constraint, ``workers`` search threads). ``required``: arcs every
    returned cycle must use. ``together``: groups of arcs every Hamiltonian cycle uses all of
    or none of (:func:`together_clauses`; the ``sat`` backend adds them to its model, CP-SAT
    does without). ``not_all_of``: arcs the cycle must not use all of (a no-good: "no cycle"
    then means none that avoids at least one of them). Loops and repeated arcs are
    ignored."""
    return _solve(num_vertices, arcs, directed=True, time_limit=time_limit, backend=backend,
                  required=required, solver_name=solver_name, workers=workers,
                  both_cuts=both_cuts, patching=patching, together=together,
                  not_all_of=not_all_of)


def solve_undirected_hcp(num_vertices: int, edges, *, time_limit: float | None = None,
                         backend: str = "sat", required=None,
                         solver_name: str = DEFAULT_SAT_SOLVER, workers: int = 1,
                         patching: bool = True, together=None,
                         not_all_of=None) -> HcpResult:
    """A Hamiltonian cycle of an undirected graph (``edges`` rows (u, v)), or a proof that
    there is none, or ``unknown`` past ``time_limit`` seconds. The cycle may be read in
    either direction. See :func:`solve_directed_hcp` for the options."""
    return _solve(num_vertices, edges, directed=False, time_limit=time_limit, backend=backend,
                  required=required, solver_name=solver_name, workers=workers,
                  both_cuts=True, patching=patching, together=together,
                  not_all_of=not_all_of)
