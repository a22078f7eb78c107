"""Sudoku → directed Hamiltonian cycle: Haythorpe's construction (Haythorpe 2016, §2–§6).

Reference: M. Haythorpe, "Reducing the generalised Sudoku problem to the Hamiltonian cycle
problem" (2016). Square Sudoku only, N = n² with n ≥ 2 (the paper's setting): other block
shapes are refused.

The graph (0-based indices in code, the paper's are 1-based; digit arithmetic wraps mod N)
---------------------------------------------------------------------------------------
Vertices, 6N³ + 5N² + 2N + 2 of them, numbered in the paper's order (:class:`HaythorpeLayout`):
``s``, ``f``; ``b[a,k]`` (digit k in block a); ``r[i,k]``, ``t[i]`` (rows); ``c[j,k]``,
``d[j]`` (columns); ``x[i,j,k,l]`` (l = 0,1,2: a triple per cell and digit); ``v[i,j]``;
``y[i,j,k,l]`` (a second copy of the triples); ``w[i,j]``.

Arcs, 19N³ + 2N² + 2N + 2 of them. Seven belong to each *option* "digit k in cell (i,j)" of
block a, and are used by a Hamiltonian cycle exactly when the solution puts k there:

====================  ==============================================
choice                ``b[a,k] → x[i,j,k+1,0]``
hand-over             ``x[i,j,k-1,2] → y[i,j,k+1,0]``
return                ``y[i,j,k-1,2] → next(a,k)``
row entry / exit      ``r[i,k] → x[i,j,k,2]``, ``x[i,j,k,0] → v[i,j]``
column entry / exit   ``c[j,k] → y[i,j,k,2]``, ``y[i,j,k,0] → w[i,j]``
====================  ==============================================

where ``next(a,k)`` is ``b[a,k+1]`` if k < N−1, else ``b[a+1,0]`` if a < N−1, else ``r[0,0]``.
The other 12N³ + 2N² + 2N + 2 arcs are the same for every solution or free per row/column:
the triples ``x[ijk0] ↔ x[ijk1] ↔ x[ijk2]`` and chains ``x[i,j,k,2] → x[i,j,k+1,0]`` (and the
same for y), ``v[i,j] → r[i,k]``, ``v[i,j] → t[i]``, ``t[i] → r[i+1,0]``, ``t[N-1] → c[0,0]``,
``w[i,j] → c[j,k]``, ``w[i,j] → d[j]``, ``d[j] → c[j+1,0]``, ``s → b[0,0]``, ``d[N-1] → f``,
``f → s``. Arcs are held as one ``(m, 2)`` int64 array; the 7N³ option arcs come first, kind
by kind, option (i,j,k) at index ``kind·N³ + (i·N + j)·N + k`` (:func:`option_arc_index`).

Correction of the paper. §2 sends ``y[i,j,N−1,3] → b[a+1,1]`` (1-based) for every cell but
(N,N), and only (N,N) on to ``r[1,1]``; for the other cells of block N the target
``b[N+1,1]`` does not exist, which, read literally, forces digit N into the last cell. Here the
return of every cell of the last block goes to ``r[0,0]`` (the paper's set (5c) agrees); the
count N² of these arcs is unchanged. Index typos (``x[i,i,…]`` for ``x[i,j,…]``, ``d_i`` for
``d_j``, …) are read by their meaning.

Why it is correct (§3). The cycle goes s; for each block a and digit k: ``b[a,k]``, then the
x-triples of the chosen cell for every digit but k (entered at l=0), the hand-over to the
y-triples, the same y-triples, the return to the next block vertex; then for each row i the row
vertices ``r[i,k]`` each followed by the skipped triple ``x[i,j,k,·]`` walked backwards and
``v[i,j]``, then ``t[i]``; the same for columns; f. ``x[·,·,·,1]`` has only triple neighbours,
so a triple is always walked whole; a row digit missing from the row leaves ``r[i,k]`` with no
unvisited successor, a digit twice in the row needs ``v[i,j]`` twice. So Hamiltonian cycles
and solutions correspond (each solution gives ((N−1)!)^(2N) cycles: the order of the digits
after the first in each row and column is free).

Clues (§5) only *remove* arcs; the vertex count never changes. ``prune="none"`` keeps the
blank graph (every valid grid is a cycle: the clues are not encoded at all); ``"paper"``
removes the paper's twelve sets (:func:`paper_removed_option_arcs`, exactly 12(N−1) arcs for a
lone clue); ``"peers"`` removes all seven arcs of every option a clue excludes (the clue cell's
other digits, and the clue's digit in the other cells of its row, column and block).

Forward map: :func:`cycle_from_solution`. Extraction (§6): :func:`grid_from_cycle` — the
predecessor of ``v[i,j]`` on the cycle is ``x[i,j,k,0]`` for the digit k of cell (i,j).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from .graphs import hamiltonian_cycle_problem
from .prune import PRUNE_MODES, Prune  # noqa: F401 - the modes, named here too
from ..sudoku.grid import Grid, Shape, clue_exclusions, solution_problems


# The seven arcs of an option "digit k in cell (i,j)", in the order they are stored.
CHOICE, HANDOVER, RETURN, ROW_ENTRY, ROW_EXIT, COL_ENTRY, COL_EXIT = range(7)
OPTION_ARC_KINDS = ("choice", "hand-over", "return", "row entry", "row exit",
                    "column entry", "column exit")

VERTEX_KINDS = ("s", "f", "b", "r", "t", "c", "d", "x", "v", "y", "w")


class HcpError(UserError):
    """A bad request (unsupported shape, unknown mode) or a cycle/tour that does not fit the
    graph; the message names the vertex, arc or position concerned."""


# ----------------------------------------------------------------------------- sizes

def directed_size(n: int) -> tuple[int, int]:
    """(vertices, arcs) of the blank directed graph: 6N³+5N²+2N+2, 19N³+2N²+2N+2 (§4)."""
    return 6 * n**3 + 5 * n**2 + 2 * n + 2, 19 * n**3 + 2 * n**2 + 2 * n + 2


def undirected_size(n: int, triple: bool = False) -> tuple[int, int]:
    """(vertices, edges) of the blank undirected graph (§4): 18N³+15N²+6N+6 and
    31N³+12N²+6N+6; with the triple trick 2N³ fewer of each."""
    trick = 2 * n**3 if triple else 0
    return (18 * n**3 + 15 * n**2 + 6 * n + 6 - trick,
            31 * n**3 + 12 * n**2 + 6 * n + 6 - trick)


def lone_clue_removals(n: int) -> int:
    """Arcs the paper's twelve sets remove for one clue on an empty grid: 12(N−1) (§5)."""
    return 12 * (n - 1)


def check_square(shape: Shape) -> int:
    """N for a square shape with n ≥ 2; :class:`HcpError` otherwise."""
    if not shape.is_square or shape.box_rows < 2:
        raise HcpError(
            f"Haythorpe's construction needs square blocks (N = n², n ≥ 2); this "
            f"{shape.size}x{shape.size} puzzle has {shape} blocks")
    return shape.size


# ----------------------------------------------------------------------------- vertices

class HaythorpeLayout:
    """Vertex numbering of the directed graph for one N, both ways.

    Kinds come in the paper's order s, f, b, r, t, c, d, x, v, y, w; inside a kind the indices
    are row-major in the order written (``x[i,j,k,l]`` is ``X + ((i·N + j)·N + k)·3 + l``).
    The id functions accept numpy arrays.
    """

    def __init__(self, n: int):
        self.n = n
        self.shapes = {"s": (), "f": (), "b": (n, n), "r": (n, n), "t": (n,), "c": (n, n),
                       "d": (n,), "x": (n, n, n, 3), "v": (n, n), "y": (n, n, n, 3),
                       "w": (n, n)}
        sizes = [math.prod(self.shapes[k]) for k in VERTEX_KINDS]
        starts = np.concatenate([[0], np.cumsum(sizes)])
        self.offset = {k: int(starts[i]) for i, k in enumerate(VERTEX_KINDS)}
        self._starts = starts
        self.num_vertices = int(starts[-1])

    # ids (0-based indices)
    @property
    def s(self) -> int:
        return self.offset["s"]

    @property
    def f(self) -> int:
        return self.offset["f"]

    def b(self, a, k):
        return self.offset["b"] + a * self.n + k

    def r(self, i, k):
        return self.offset["r"] + i * self.n + k

    def t(self, i):
        return self.offset["t"] + i

    def c(self, j, k):
        return self.offset["c"] + j * self.n + k

    def d(self, j):
        return self.offset["d"] + j

    def x(self, i, j, k, l):
        return self.offset["x"] + ((i * self.n + j) * self.n + k) * 3 + l

    def v(self, i, j):
        return self.offset["v"] + i * self.n + j

    def y(self, i, j, k, l):
        return self.offset["y"] + ((i * self.n + j) * self.n + k) * 3 + l

    def w(self, i, j):
        return self.offset["w"] + i * self.n + j

    def vertex(self, kind: str, *indices: int) -> int:
        """Id of a vertex from its kind and 0-based indices, e.g. ``vertex("x", i, j, k, l)``."""
        if kind not in self.shapes:
            raise HcpError(f"unknown vertex kind {kind!r} (kinds: {', '.join(VERTEX_KINDS)})")
        shape = self.shapes[kind]
        if len(indices) != len(shape) or any(not 0 <= i < s for i, s in zip(indices, shape)):
            raise HcpError(f"{kind}{list(indices)} is not a vertex for N={self.n}")
        flat = int(np.ravel_multi_index(indices, shape)) if shape else 0
        return self.offset[kind] + flat

    def kind_of(self, vertices) -> np.ndarray:
        """Index into :data:`VERTEX_KINDS` of each vertex."""
        return np.searchsorted(self._starts, np.asarray(vertices), side="right") - 1

    def label(self, vertex: int) -> tuple[str, tuple[int, ...]]:
        """(kind, 0-based indices) of a vertex id."""
        vertex = int(vertex)
        if not 0 <= vertex < self.num_vertices:
            raise HcpError(f"vertex {vertex} is out of range 0..{self.num_vertices - 1}")
        kind = VERTEX_KINDS[int(self.kind_of(vertex))]
        shape = self.shapes[kind]
        flat = vertex - self.offset[kind]
        return kind, tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    def name(self, vertex: int) -> str:
        """The paper's name of a vertex, 1-based, e.g. ``x[1,2,9,3]`` or ``s``."""
        kind, idx = self.label(vertex)
        return kind if not idx else f"{kind}[{','.join(str(i + 1) for i in idx)}]"

    def vertex_from_name(self, name: str) -> int:
        """Inverse of :meth:`name`: ``"x[1,2,9,3]"`` → id (1-based indices as in the paper)."""
        match = re.fullmatch(r"\s*([a-z])\s*(?:\[([\d,\s]*)\])?\s*", name)
        if not match:
            raise HcpError(f"{name!r} is not a vertex name such as s, b[1,2] or x[1,2,3,1]")
        idx = [int(p) - 1 for p in match.group(2).split(",")] if match.group(2) else []
        return self.vertex(match.group(1), *idx)

    def cell_option_indices(self, vertices) -> np.ndarray:
        """For x/y vertices: ``(len, 4)`` array of (i, j, k, l); rows of other kinds are −1."""
        vertices = np.asarray(vertices, dtype=np.int64)
        out = np.full((vertices.size, 4), -1, dtype=np.int64)
        for kind in ("x", "y"):
            sel = (vertices >= self.offset[kind]) & (vertices < self.offset[kind] + 3 * self.n**3)
            flat = vertices[sel] - self.offset[kind]
            out[sel] = np.stack(np.unravel_index(flat, self.shapes[kind]), axis=1)
        return out

    def describe_numbering(self) -> dict[str, object]:
        """The numbering as data (for sidecar files): first id and index shape of each kind."""
        return {"order": list(VERTEX_KINDS),
                "first_id": {k: self.offset[k] for k in VERTEX_KINDS},
                "index_shape": {k: list(self.shapes[k]) for k in VERTEX_KINDS},
                "rule": "id = first_id[kind] + row-major index of the 0-based indices; "
                        "x and y are [i,j,k,l], b is [a,k], r and c are [row/col, k]"}


@functools.lru_cache(maxsize=8)
def haythorpe_layout(n: int) -> HaythorpeLayout:
    return HaythorpeLayout(n)


# ----------------------------------------------------------------------------- arcs

def option_arc_index(n: int, kind: int, i, j, k):
    """Index in the blank arc array of option (i,j,k)'s arc of the given kind."""
    return kind * n**3 + (i * n + j) * n + k


@functools.lru_cache(maxsize=4)
def blank_arcs(n: int) -> np.ndarray:
    """The arcs of the blank graph (no clue), ``(19N³+2N²+2N+2, 2)`` int64, read-only.

    Order: the seven option-arc kinds (N³ each, option-major inside a kind), then x triples,
    x chains, y triples, y chains, v→r, w→c, v→t, w→d, t→…, d→…, s→b, d→f, f→s.
    """
    L = haythorpe_layout(n)
    rt = math.isqrt(n)
    I, J, K = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    I, J, K = I.ravel(), J.ravel(), K.ravel()
    A = (I // rt) * rt + J // rt                     # block of the option's cell
    nxt, prv = (K + 1) % n, (K - 1) % n
    # next(a, k): the block vertex after placing k in block a (paper error 1 fixed here).
    after = np.where(K < n - 1, L.b(A, np.minimum(K + 1, n - 1)),
                     np.where(A < n - 1, L.b(np.minimum(A + 1, n - 1), 0), L.r(0, 0)))
    parts = [
        (L.b(A, K), L.x(I, J, nxt, 0)),              # choice
        (L.x(I, J, prv, 2), L.y(I, J, nxt, 0)),      # hand-over
        (L.y(I, J, prv, 2), after),                  # return
        (L.r(I, K), L.x(I, J, K, 2)),                # row entry
        (L.x(I, J, K, 0), L.v(I, J)),                # row exit
        (L.c(J, K), L.y(I, J, K, 2)),                # column entry
        (L.y(I, J, K, 0), L.w(I, J)),                # column exit
    ]
    for copy in (L.x, L.y):
        parts += [(copy(I, J, K, 0), copy(I, J, K, 1)), (copy(I, J, K, 1), copy(I, J, K, 0)),
                  (copy(I, J, K, 1), copy(I, J, K, 2)), (copy(I, J, K, 2), copy(I, J, K, 1)),
                  (copy(I, J, K, 2), copy(I, J, nxt, 0))]
    parts += [(L.v(I, J), L.r(I, K)), (L.w(I, J), L.c(J, K))]
    ci, cj = np.divmod(np.arange(n * n), n)
    rows = np.arange(n)
    parts += [(L.v(ci, cj), L.t(ci)), (L.w(ci, cj), L.d(cj)),
              (L.t(rows), np.where(rows < n - 1, L.r(np.minimum(rows + 1, n - 1), 0), L.c(0, 0))),
              (L.d(rows[:-1]), L.c(rows[:-1] + 1, 0)),
              ([L.s, L.d(n - 1), L.f], [L.b(0, 0), L.f, L.s])]
    arcs = np.concatenate([np.stack([np.asarray(t, dtype=np.int64).ravel(),
                                     np.asarray(h, dtype=np.int64).ravel()], axis=1)
                           for t, h in parts])
    arcs.setflags(write=False)
    return arcs


# ----------------------------------------------------------------------------- clue pruning

def _clue_list(puzzle: Grid) -> list[tuple[int, int, int]]:
    """Clues as 0-based (row, column, digit)."""
    return [(r, c, v - 1) for r, c, v in puzzle.clues()]


def paper_removed_option_arcs(puzzle: Grid) -> np.ndarray:
    """The twelve arc sets of §5, as a ``(7, N, N, N)`` bool array [kind, i, j, k].

    For a clue k at (i,j) in block a (each set is N−1 arcs; in terms of options):

    (1) choice of k in the other cells of block a — k is already placed in a;
    (2) choice of another digit m in (i,j) — the cell already holds k;
    (3), (4) the hand-overs that would follow the wrong choices (1), (2);
    (5a–c), (6a–c) the returns that would follow them (to ``b[a,k+1]``, ``b[a+1,1]`` or
        ``r[1,1]`` depending on k and a: exactly the return arc of the option);
    (7), (8) row entry into and row exit out of the other cells of row i for digit k;
    (9) row entry into (i,j) for the other digits;
    (10), (11) column entry and exit of the other cells of column j for digit k;
    (12) column entry into (i,j) for the other digits.

    The paper keeps the row and column *exits* of (i,j) for other digits: they are unusable
    too (:func:`peers_removed_option_arcs` drops them), but they are not in its list.

    Why a lone clue removes exactly 12(N−1) arcs. Each arc of the blank graph belongs to at
    most one (option, kind) pair: the kind shows in the kinds of its two ends (b→x choice,
    x→y hand-over, y→b/r return, r→x row entry, x→v row exit, c→y column entry, y→w column
    exit: seven disjoint patterns) and the option in one end (``x[i,j,k+1,0]`` for a choice,
    ``x[i,j,k-1,2]`` for a hand-over, ``y[i,j,k-1,2]`` for a return, ``x[i,j,k,·]`` or
    ``y[i,j,k,·]`` for the rest). So the arcs removed are as many as the (option, kind) pairs
    marked. For one clue k at (i,j) these are, in four groups: A = the options (m,n,k) of the
    N−1 other cells of block a with kinds choice, hand-over, return (sets 1, 3, 5): 3(N−1);
    B = the options (i,j,m), m ≠ k, with kinds choice, hand-over, return, row entry, column
    entry (sets 2, 4, 6, 9, 12): 5(N−1); C = the options (i,n,k), n ≠ j, with row entry and
    exit (7, 8): 2(N−1); D = the options (m,j,k), m ≠ i, with column entry and exit (10, 11):
    2(N−1). The option sets of A, B, C, D are pairwise disjoint except A ∩ C and A ∩ D (cells
    of block a in row i or column j), where the kinds differ. All 12(N−1) pairs are distinct.
    With several clues some pairs are marked more than once (e.g. two clues in one block), so
    12(N−1) per clue is an upper bound, as §5 says.
    """
    n = check_square(puzzle.shape)
    rt = math.isqrt(n)
    removed = np.zeros((7, n, n, n), dtype=bool)
    for i, j, k in _clue_list(puzzle):
        r0, c0 = (i // rt) * rt, (j // rt) * rt
        block_others = np.ones((rt, rt), dtype=bool)
        block_others[i - r0, j - c0] = False          # the other cells of block a
        line_others = np.ones(n, dtype=bool)
        other_digits = np.ones(n, dtype=bool)
        other_digits[k] = False
        for kind in (CHOICE, HANDOVER, RETURN):                 # sets (1), (3), (5)
            removed[kind, r0:r0 + rt, c0:c0 + rt, k] |= block_others
        for kind in (CHOICE, HANDOVER, RETURN, ROW_ENTRY, COL_ENTRY):  # (2) (4) (6) (9) (12)
            removed[kind, i, j, :] |= other_digits
        line_others[:] = True
        line_others[j] = False
        for kind in (ROW_ENTRY, ROW_EXIT):                      # sets (7), (8)
            removed[kind, i, :, k] |= line_others
        line_others[:] = True
        line_others[i] = False
        for kind in (COL_ENTRY, COL_EXIT):                      # sets (10), (11)
            removed[kind, :, j, k] |= line_others
    return removed


def excluded_options(puzzle: Grid) -> np.ndarray:
    """``(N, N, N)`` bool [i, j, k]: digit k cannot go in cell (i, j) because of one clue —
    the cell holds another clue, or a clue k sits in the same row, column or block.

    :func:`reductions.sudoku.grid.clue_exclusions` marks the second kind; a clue's own option is
    marked there too (the clue sits in its own row), and stays possible here unless a peer
    repeats its digit (contradictory clues)."""
    n = check_square(puzzle.shape)
    excluded = clue_exclusions(puzzle)
    rows, cols = np.nonzero(puzzle.values)
    digits = puzzle.values[rows, cols].astype(np.int64) - 1
    blocks = puzzle.shape.block_index_array()[rows, cols]
    repeated = np.zeros(rows.size, dtype=bool)
    for unit in (rows, cols, blocks):
        key = unit * n + digits
        repeated |= np.bincount(key, minlength=n * n)[key] > 1
    excluded[rows, cols, :] = True                     # the cell holds another clue
    excluded[rows, cols, digits] = repeated
    return excluded


def peers_removed_option_arcs(puzzle: Grid) -> np.ndarray:
    """All seven arcs of every excluded option (:func:`excluded_options`); contains the
    paper's sets, since those are arcs of excluded options."""
    return np.broadcast_to(excluded_options(puzzle), (7,) + (puzzle.size,) * 3).copy()


def removed_option_arcs(puzzle: Grid, prune: str) -> np.ndarray:
    if prune == "none":
        n = puzzle.size
        check_square(puzzle.shape)
        return np.zeros((7, n, n, n), dtype=bool)
    if prune == "paper":
        return paper_removed_option_arcs(puzzle)
    if prune == "peers":
        return peers_removed_option_arcs(puzzle)
    raise HcpError(f"unknown pruning mode {prune!r}; choose one of {', '.join(PRUNE_MODES)}")


# ----------------------------------------------------------------------------- the graph

@dataclass(frozen=True)
class HaythorpeGraph:
    """The directed graph of a puzzle: ``arcs`` (m, 2) int64 and its layout.

    ``kept`` is the bool mask over :func:`blank_arcs` of the arcs left after pruning.
    """

    puzzle: Grid
    prune: str
    layout: HaythorpeLayout
    arcs: np.ndarray
    kept: np.ndarray

    @property
    def size(self) -> int:
        return self.puzzle.size

    @property
    def num_vertices(self) -> int:
        return self.layout.num_vertices

    @property
    def num_arcs(self) -> int:
        return len(self.arcs)

    @property
    def removed_arcs(self) -> int:
        return int(self.kept.size - np.count_nonzero(self.kept))


def haythorpe_graph(puzzle: Grid, prune: str = "paper") -> HaythorpeGraph:
    """Build the directed graph of ``puzzle`` with the given clue pruning."""
    n = check_square(puzzle.shape)
    removed = removed_option_arcs(puzzle, prune)
    arcs = blank_arcs(n)
    kept = np.ones(len(arcs), dtype=bool)
    kept[:7 * n**3] = ~removed.ravel()
    pruned = arcs[kept] if prune != "none" else arcs
    return HaythorpeGraph(puzzle, prune, haythorpe_layout(n), pruned, kept)


# ----------------------------------------------------------------------------- cycles

def _solution_digits(graph: HaythorpeGraph, grid: Grid) -> np.ndarray:
    """0-based digits of a full valid grid of the graph's shape, or :class:`HcpError`."""
    if grid.shape != graph.puzzle.shape:
        raise HcpError(f"the grid is {grid.size}x{grid.size}, the graph is for "
                       f"{graph.size}x{graph.size}")
    empty = Grid.empty(grid.shape)
    problems = solution_problems(empty, grid)
    if problems:
        raise HcpError(f"not a valid Sudoku grid: {problems[0]}")
    return grid.values.astype(np.int64) - 1


def cycle_from_solution(graph: HaythorpeGraph, grid: Grid, check: bool = True) -> np.ndarray:
    """The forward witness map: the Hamiltonian cycle of a solved grid (§2 steps 1–5).

    Starts at s; rows and columns take their digits in increasing order. With ``check`` the
    result is verified to be a Hamiltonian cycle of ``graph``; a grid that breaks a clue the
    pruning encoded fails that check (:class:`HcpError` naming the missing arc).
    """
    digits = _solution_digits(graph, grid)
    n, L = graph.size, graph.layout
    rt = math.isqrt(n)
    # cell_of_digit[a, k] = (i, j): where block a holds digit k.
    I, J = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    A = (I // rt) * rt + J // rt
    cell_i = np.empty((n, n), dtype=np.int64)
    cell_j = np.empty((n, n), dtype=np.int64)
    cell_i[A, digits] = I
    cell_j[A, digits] = J
    # Block part: b[a,k], x[i,j,m,0..2] for m = k+1..k-1, then y likewise.
    ks = np.arange(n)[None, :, None]
    others = (ks + 1 + np.arange(n - 1)[None, None, :]) % n            # (1, N, N-1)
    ci, cj = cell_i[:, :, None, None], cell_j[:, :, None, None]
    ls = np.arange(3)[None, None, None, :]
    xs = L.x(ci, cj, others[..., None], ls).reshape(n, n, -1)
    ys = L.y(ci, cj, others[..., None], ls).reshape(n, n, -1)
    bs = L.b(np.arange(n)[:, None], np.arange(n)[None, :])[..., None]
    block_part = np.concatenate([bs, xs, ys], axis=2).ravel()
    # Row part: for row i, digit k in column j: r[i,k], x[i,j,k,2], x[i,j,k,1], x[i,j,k,0],
    # v[i,j]; then t[i].
    col_of = np.empty((n, n), dtype=np.int64)
    col_of[I, digits] = J
    ri, rk = np.arange(n)[:, None], np.arange(n)[None, :]
    rj = col_of
    row_visits = np.stack([L.r(ri, rk), L.x(ri, rj, rk, 2), L.x(ri, rj, rk, 1),
                           L.x(ri, rj, rk, 0), L.v(ri, rj)], axis=2).reshape(n, -1)
    row_part = np.concatenate([row_visits, L.t(np.arange(n))[:, None]], axis=1).ravel()
    row_of = np.empty((n, n), dtype=np.int64)
    row_of[J, digits] = I
    cj2, ck = np.arange(n)[:, None], np.arange(n)[None, :]
    ci2 = row_of
    col_visits = np.stack([L.c(cj2, ck), L.y(ci2, cj2, ck, 2), L.y(ci2, cj2, ck, 1),
                           L.y(ci2, cj2, ck, 0), L.w(ci2, cj2)], axis=2).reshape(n, -1)
    col_part = np.concatenate([col_visits, L.d(np.arange(n))[:, None]], axis=1).ravel()
    cycle = np.concatenate([[L.s], block_part, row_part, col_part, [L.f]]).astype(np.int64)
    if check:
        problem = hamiltonian_cycle_problem(graph.num_vertices, graph.arcs, cycle, True,
                                            L.name)
        if problem:
            raise HcpError(f"the grid's cycle is not Hamiltonian in this graph "
                           f"(prune={graph.prune}): {problem}")
    return cycle


def oriented_cycle(graph: HaythorpeGraph, cycle) -> np.ndarray:
    """``cycle`` as a directed Hamiltonian cycle of ``graph``: as given, or reversed when only
    the reverse follows the arcs. :class:`HcpError` names the first problem otherwise."""
    cycle = np.asarray(cycle, dtype=np.int64)
    problem = hamiltonian_cycle_problem(graph.num_vertices, graph.arcs, cycle, True,
                                        graph.layout.name)
    if problem is None:
        return cycle
    if hamiltonian_cycle_problem(graph.num_vertices, graph.arcs, cycle[::-1], True) is None:
        return cycle[::-1].copy()
    raise HcpError(f"not a Hamiltonian cycle of the graph: {problem}")


def grid_from_cycle(graph: HaythorpeGraph, cycle) -> Grid:
    """Extraction (§6): cell (i,j) holds k+1 where ``x[i,j,k,0]`` precedes ``v[i,j]``.

    Any start vertex; the cycle may be listed backwards. The cycle is checked to be
    Hamiltonian in ``graph`` first. The grid is returned as read; the caller verifies it
    against the puzzle (``prune="none"`` does not encode the clues).
    """
    cycle = oriented_cycle(graph, cycle)
    n, L = graph.size, graph.layout
    position = np.empty(graph.num_vertices, dtype=np.int64)
    position[cycle] = np.arange(cycle.size)
    vs = L.v(*np.divmod(np.arange(n * n), n))
    before = cycle[position[vs] - 1]
    idx = L.cell_option_indices(before)
    cells = np.stack(np.divmod(np.arange(n * n), n), axis=1)
    ok = (L.kind_of(before) == VERTEX_KINDS.index("x")) & (idx[:, 3] == 0) & np.all(
        idx[:, :2] == cells, axis=1)
    if not np.all(ok):
        bad = int(np.flatnonzero(~ok)[0])
        raise HcpError(f"{L.name(vs[bad])} is entered from {L.name(before[bad])}, not from an "
                       f"x[i,j,k,1] of its own cell")
    return Grid((idx[:, 2] + 1).reshape(n, n), graph.puzzle.shape)
