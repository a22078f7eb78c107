"""The SAT model of a graph's Hamiltonian cycles, without the subtour cuts (those are added
lazily, :mod:`solvers.hamiltonian.cut_loop`): pair e is variable e + 1 of the normalised
pairs.

* Directed: exactly one arc out of and one arc into every vertex (``CardEnc`` templates
  instantiated with numpy for all vertices of one degree at once), and the two arcs of a
  2-cycle never both: a model is a cycle cover.
* Undirected: exactly two edges at every vertex, the edges at degree-2 vertices as unit
  clauses, and the shortest closures of forced paths forbidden (:func:`_short_closure_clauses`):
  a model is a 2-factor.
* :func:`together_clauses`: groups of pairs every Hamiltonian cycle uses all of or none of,
  said outright (the caller vouches for them)."""

from __future__ import annotations

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from reductions.hamiltonian.graphs import component_labels, pair_keys

from .graph_input import _as_pairs
from .results import GraphInputError

__all__ = ["forced_paths", "together_clauses"]


def _exactly_template(degree: int, k: int) -> tuple[list[list[int]], int]:
    """``CardEnc`` clauses for "exactly k of the literals 1..degree", and how many auxiliary
    variables (numbered from degree + 1) they use. Pairwise where that is small, sequential
    counter beyond."""
    small = k in (0, degree) or (k == 1 and degree <= 8) or (k == 2 and degree <= 3)
    if k == 1 and not small:
        return _exactly_one_counter(degree), degree - 1
    encoding = EncType.pairwise if small else EncType.seqcounter
    scratch = IDPool(start_from=degree + 1)
    clauses = CardEnc.equals(lits=list(range(1, degree + 1)), bound=k, vpool=scratch,
                             encoding=encoding).clauses
    return clauses, scratch.top - degree


def _exactly_one_counter(degree: int) -> list[list[int]]:
    """The clauses ``CardEnc.equals(1..degree, bound=1, encoding=seqcounter)`` gives, in its
    order (auxiliary s_i = degree + i): "at least one", then Sinz's sequential counter for
    "at most one". Built here because pysat's encoder took 41 of the 140 s FHCP graph 188
    spent building its model (1,123 vertices, nearly all of different degrees: a template
    each)."""
    d = degree
    s = np.arange(d + 1, 2 * d, dtype=np.int64)                     # s_1 .. s_{d-1}
    i = np.arange(2, d, dtype=np.int64)                              # x_2 .. x_{d-1}
    middle = np.stack([np.stack([-s[i - 2], s[i - 1]], axis=1),       # s_{i-1} -> s_i
                       np.stack([-i, -s[i - 2]], axis=1),             # not both x_i, s_{i-1}
                       np.stack([-i, s[i - 1]], axis=1)], axis=1)     # x_i -> s_i
    return ([list(range(1, d + 1)), [-1, int(s[0])]] + middle.reshape(-1, 2).tolist()
            + [[-d, -int(s[-1])]])


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
        clauses += _instantiate(template, degree, table, aux_base)
    return clauses


SHORT_CLAUSE = 4
"""Template clauses up to this length are instantiated together as one padded array."""


def _instantiate(template: list[list[int]], degree: int, table: np.ndarray,
                 aux_base: np.ndarray) -> list[list[int]]:
    """The clauses of ``template`` for each row of ``table`` (a vertex's literals), in the
    template's order, each clause for every row before the next clause.

    The short clauses (nearly all of a sequential counter) go through one padded numpy
    array; only the long ones (the "at least one" clause) one by one. One numpy pass per
    template clause took 24 s on FHCP graph 128, whose 677 vertices all have different
    degrees (a template per vertex, ~2,000 clauses each)."""
    rows = len(table)
    lengths = np.fromiter(map(len, template), dtype=np.int64, count=len(template))
    short = lengths <= SHORT_CLAUSE
    padded = np.zeros((len(template), SHORT_CLAUSE), dtype=np.int64)
    for i in np.flatnonzero(short).tolist():
        padded[i, :lengths[i]] = template[i]
    values = _literals(padded, degree, table, aux_base)           # (rows, clauses, 4)
    flat = values.transpose(1, 0, 2).reshape(-1, SHORT_CLAUSE).tolist()
    sizes = np.repeat(lengths, rows).tolist()
    out = [clause[:size] for clause, size in zip(flat, sizes)]
    for i in np.flatnonzero(~short).tolist():
        long = _literals(np.asarray(template[i], dtype=np.int64)[None, :], degree, table,
                         aux_base)[:, 0, :]
        out[i * rows:(i + 1) * rows] = long.tolist()
    return out


def _literals(clauses: np.ndarray, degree: int, table: np.ndarray,
              aux_base: np.ndarray) -> np.ndarray:
    """Template literals (``clauses``: an array, 0 = padding, kept 0) made the literals of
    each row: variables 1..degree are the row's entries of ``table``, larger ones its
    auxiliaries (``aux_base[row] + var``)."""
    var, sign = np.abs(clauses), np.sign(clauses)
    is_aux = var > degree
    cols = np.where(is_aux | (var == 0), 0, var - 1)
    values = np.where(is_aux, aux_base[:, None, None] + var, table[:, cols])
    return values * sign


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
    keys = pair_keys(n, edges, directed=False)            # sorted: edges are normalised

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
    keys = pair_keys(num_vertices, pairs, directed)
    wanted = pair_keys(num_vertices, flat, directed)
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
