"""What every construction would build, and how much memory it would take — known before
anything is built.

Each builder of this package (and each solver model built on one) has an estimate here: a
pure function of size numbers (grid side, variables and clauses, vertices and arcs) that
returns an :class:`Estimate` — what would be built, in words, and an upper bound of the peak
memory it adds to the process. :func:`ensure_fits` compares an estimate with a limit the
caller gives (the command line's ``--max-memory``, see :mod:`solvers.runtime.memory`) and raises
:class:`TooLarge`, a one-line :class:`~reductions.errors.UserError`, before anything is
allocated.

The byte counts are linear models with constants measured on this project's machine
(peak RSS added by the whole command, in a fresh process: ``benchmarks/bench_memory.py``,
results in ``benchmarks/results/memory.md``) and rounded up, so that an estimate stays above
the measured peak by a factor of about 1.2 to 2 from a few tens of MiB up (below, the fixed
``BASE`` dominates). Each constant's comment gives what it was measured at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .encodings.cnf import AMO_ENCODINGS, expected_size as cnf_expected_size, resolve_amo
from .errors import UserError, format_bytes, scientific
from .encodings.exact_cover import DENSE_LIMIT_BYTES
from .formulas import Formula
from .sudoku.grid import Shape
from .hamiltonian.hcp import directed_size, undirected_size

MB = 2**20
BASE = 4 * MB
"""Added to every estimate: the small Python objects any command makes on its way, and the
rounding of resident memory where the kernel backs the heap with transparent huge pages
(2 MiB each): the same 9×9 command measured 7.3 MiB here and 10.1 MiB on a CI machine."""

# Nishio gadgets (Theorems 2 and 3): the n²×n² boolean mask and its temporaries dominate.
NISHIO_BUILD_PER_CELL = 4        # measured 3.0 bytes per grid cell (n^4 cells) at n = 61..181
NISHIO_WRITE_PER_CELL = 12       # building and writing S.txt: measured 10.0 per grid cell
SVG_PER_CELL = 6                 # an SVG picture, per grid cell drawn: measured 2.5-4
PNG_BASE = 40 * 2**20            # a PNG through matplotlib: a canvas of 800 to 2000 pixels
PNG_PER_PIXEL = 100              # a side (measured 83 MB at 800², 362 MB at 2000²) and
PNG_PER_CELL = 100               # the image of the cells (76 per cell)
PLACEMENT_MODEL_PER_CELL = 3_000  # SAT model of placements: measured 2,330 per cell variable
CELL_SET_READ_PER_BYTE = 6       # reading S.txt: text, lines, rows, array, copy
DAG_PER_VERTEX = 700             # the almost-balanced-matrix DAG: measured 390-520
OVERLAY_PER_ENTRY = 24           # pattern overlay: (placements, N) int64 arrays, 3 of them

# CNF formulas read from DIMACS (the gadgets' input) and solved by pysat.
FORMULA_PER_CLAUSE = 500         # parsed list + Formula tuple of a clause of ≤ 3 literals:
                                 # measured 275 (random 3-SAT, 300,000 clauses)
FORMULA_SAT_PER_VAR = 300        # pysat, its model, the value tuple and dict: measured
FORMULA_SAT_PER_CLAUSE = 400     # 152 MB for 300,000 variables and 300,000 clauses

# Theorem 4 (nonrepetitive simple path) gadgets and nr(G).
NRPATH_PER_VERTEX = 200          # names, lists, arrays: measured 280 per arc all in
NRPATH_PER_ARC = 300
EDGE_LINES_ROWS = 65_536         # edge-list lines assembled at once (the writer's CHUNK,
EDGE_LINES_PER_ROW = 800         # checked by a test): the bytes, their indices; measured
                                 # about 700 per line with the gadgets' names
PATH_MODEL_PER_ARC = 4_500       # SAT model of simple paths + nr(G): measured 2,900-3,600
NR_GRAPH_PER_ARC = 1_200         # nr(G) and its searches: measured 600-820 per arc of G
SIMPLE_PER_SSG_ARC = 70          # undirected simple paths (Theorem 3): usp(G), ssg, its
SIMPLE_PER_SSG_VERTEX = 50       # adjacency and the search's arrays, per arc / vertex of
                                 # ssg(usp(G)) at the bound K = 2m: measured 1,022 MiB at
                                 # m = 10^6 with K = 2m (estimate 1.34 GiB), 674 MiB with
                                 # 3 labels (K = 1.1m)

# Haythorpe's graph, per arc of the directed graph (19N³ + ...).
HCP_DIRECTED_PER_ARC = 200       # measured 97-140
HCP_UNDIRECTED_PER_ARC = 350     # 3-split: measured 256
HCP_REDUCED_PER_ARC = 750        # 3-split + degree-2 reduction: measured 510-560
HCP_SOLVE_BASE = 16 * 2**20      # exact SAT model with subtour cuts, directed graph:
HCP_SOLVE_PER_ARC = 1_200        # measured 1,030 per arc at 25x25 (+ about 14 MB at 9x9);
HCP_SOLVE_UNDIRECTED_PER_ARC = 300   # undirected graph, per arc of the directed one

# Sudoku CNF: clause blocks formatted for writing, clause lists, pysat.
CNF_FORMAT_ROWS = 1 << 16        # clauses of an array block formatted at once (the DIMACS
                                 # writer's FORMAT_ROWS, checked by a test)
CNF_ARRAY_PER_LITERAL = 48       # an array block and its temporaries (negations, stacks):
                                 # measured 34 per literal of pairwise blocks (N = 25, 36)
CNF_FORMAT_PER_LITERAL = 64      # a formatted piece: the list and tuple of Python ints, the
                                 # template and the text (about 60 per literal by count)
CNF_WRITE_BUFFERS = 2 * MB       # the DIMACS writer's body buffer and copy buffer, 1 MiB each
CNF_GROUPS_PER_VAR = 40          # the four (N², N) group arrays, int64, and their copies
CNF_WRITE_PER_CLAUSE = 260       # a block of clause lists (encodings pysat builds) being
CNF_WRITE_PER_LITERAL = 220      # formatted: measured 483-512 per 2-literal clause
CNF_LIST_PER_CLAUSE = 100        # a clause block turned into lists for pysat, plus
CNF_LIST_PER_LITERAL = 50        # per literal
CNF_ELIMINATE_PER_CLAUSE = 450   # clues eliminated: the reduced clause list, measured 338-360
CNF_SOLVER_PER_CLAUSE = 60       # pysat holding the formula: measured 19 MB for 16x16
CNF_SOLVER_PER_LITERAL = 40      # pairwise, 55 MB for 25x25 seqcounter (CaDiCaL); then
CNF_SOLVER_PER_VAR = 300         # learnt clauses: Glucose grew to 125 MB on the blank 25x25
CNF_SEARCH_FACTOR = 2            # in 20 s, so the formula's share counts twice

# Exact cover and ILP, per option (= variable, N³ of them for a blank grid).
COVER_PER_OPTION = 700           # emit: measured 330-470
COVER_SOLVE_PER_OPTION = 1_200   # built-in Algorithm X: measured 760
COVER_DENSE_PER_ENTRY = 4        # the exact-cover package's dense matrix and its copies:
                                 # measured 2.9 bytes per (option, item) on the blank 25x25
ILP_PER_VARIABLE = 1_200         # PuLP model, emit: measured 716
ILP_SOLVE_PER_VARIABLE = 3_000   # PuLP model and solution: measured 2,100


class TooLarge(UserError):
    """A construction whose estimate is over the memory limit; refused before it is built."""

    def __init__(self, subject: str, estimate: "Estimate", limit: int):
        self.subject = subject
        self.estimate = estimate
        self.limit = limit
        super().__init__(f"{subject} needs {estimate} — over the memory limit of "
                         f"{format_bytes(limit)} (--max-memory)")

    @property
    def row_text(self) -> str:
        """The short form for a table row: ``too large: <estimate> > <limit>``."""
        return f"too large: {self.estimate} > {format_bytes(self.limit)}"


@dataclass(frozen=True)
class Estimate:
    """What a builder would make (``what``, in words) and an upper bound of the peak memory
    it would add (``bytes``)."""

    what: str
    bytes: int
    counts: tuple[int, ...] = ()
    """The numbers ``what`` names, for checks: (grid side,), (vertices, arcs),
    (variables, clauses), (options, items), (variables, constraints)."""

    def __str__(self) -> str:
        return f"{self.what} (about {format_bytes(self.bytes)})"

    def plus(self, other: "Estimate") -> "Estimate":
        """Both held at once in one process: the words of the larger, the bytes of both
        (the process's ``BASE`` counted once)."""
        main = self if self.bytes >= other.bytes else other
        return Estimate(main.what, self.bytes + other.bytes - BASE, main.counts)

    def times(self, count: int, why: str) -> "Estimate":
        """``count`` copies at once (e.g. one per worker process)."""
        if count <= 1:
            return self
        return Estimate(f"{self.what}, x {count} {why}", self.bytes * count, self.counts)


def ensure_fits(estimate: Estimate, limit: int | None, subject: str) -> None:
    """Raise :class:`TooLarge` when ``estimate`` is over ``limit`` bytes (None: no limit)."""
    if limit is not None and estimate.bytes > limit:
        raise TooLarge(subject, estimate, limit)


def _count(value: int) -> str:
    """``5.6e9`` from ten million up, else with thousands separators."""
    return scientific(value) if value >= 10**7 else f"{value:,}"


def _bytes(*terms: float) -> int:
    return int(BASE + sum(terms))


# ----------------------------------------------------------------------------- formulas

def formula_reading_estimate(num_clauses: int, max_width: int) -> Estimate:
    """Reading a DIMACS formula of ``num_clauses`` clauses of at most ``max_width``
    literals (the header's count, known before the clauses are read)."""
    per_clause = FORMULA_PER_CLAUSE * max(1, max_width) / 3
    return Estimate(f"{num_clauses:,} clauses in memory", _bytes(num_clauses * per_clause))


def formula_sat_estimate(formula: Formula) -> Estimate:
    """Deciding the formula itself with pysat (the validations' reference answer)."""
    return Estimate(f"a SAT solver over {formula.num_vars:,} variables",
                    _bytes(FORMULA_SAT_PER_VAR * formula.num_vars,
                           FORMULA_SAT_PER_CLAUSE * formula.num_clauses))


def declared_variables_note(formula: Formula) -> str:
    """`` (its header declares 1,000,000 variables, 5 used)`` when most declared variables
    never occur — the gadgets are sized by the declared count — else empty."""
    used = len({abs(lit) for clause in formula.clauses for lit in clause})
    if formula.num_vars <= max(2 * used, 16):
        return ""
    return f" (its header declares {formula.num_vars:,} variables, {used:,} used)"


# ----------------------------------------------------------------------------- Nishio

def _grid(side: int) -> str:
    return f"a {side:,} x {side:,} grid of {_count(side * side)} cells"


def nishio_gadget_estimate(formula: Formula, *, order: int | None = None,
                           write: bool = False, picture: str | None = None,
                           picture_cells: int = 0) -> Estimate:
    """Building the cell set S of Theorem 2 for ``formula`` (Theorem 3: pass its X'), on
    the n²×n² grid of ``order`` n (default Theorem 2's); ``write``: also writing S.txt;
    ``picture`` ("svg" or "png"): also drawing ``picture_cells`` grid cells."""
    from .nishio.gadget import theorem_order
    n = theorem_order(formula) if order is None else order
    side = n * n
    per_cell = NISHIO_WRITE_PER_CELL if write else NISHIO_BUILD_PER_CELL
    occurrences = sum(len(c) for c in formula.clauses)
    pixels = min(2000, max(800, 8 * math.isqrt(picture_cells)))    # as picture_png draws
    drawing = {None: 0, "svg": SVG_PER_CELL * picture_cells,
               "png": PNG_BASE + PNG_PER_PIXEL * pixels**2 + PNG_PER_CELL * picture_cells
               }[picture]
    return Estimate(_grid(side), _bytes(per_cell * side * side, 2_000 * occurrences, drawing),
                    (side,))


def nishio_build_estimate(formula: Formula, *, variant: str = "thm2", order: int | None = None,
                          write: bool = False, picture: str | None = None,
                          view: str = "full", show_placement: bool = False) -> Estimate:
    """Building (and writing, drawing) the gadget of ``variant`` ("thm2", or "thm3": that
    of X') for ``formula`` before it is built: the grid, S.txt when ``write``, a
    ``picture`` ("svg" or "png") of the whole grid or of its gadget rows and columns only
    (``view="core"``: 2L + c of each), and the formula's own SAT call that
    ``show_placement`` needs."""
    from .nishio.gadget import theorem3_instance, theorem_order
    built = theorem3_instance(formula).formula if variant == "thm3" else formula
    drawn = 0
    if picture:
        n = theorem_order(built) if order is None else order
        side = (2 * sum(len(c) for c in built.clauses) + built.num_clauses
                if view == "core" else n * n)
        drawn = side * side
    estimate = nishio_gadget_estimate(built, order=order, write=write, picture=picture,
                                      picture_cells=drawn)
    return estimate.plus(formula_sat_estimate(built)) if picture and show_placement else estimate


def nishio_validation_estimate(formula: Formula, *, order: int | None = None,
                               split: bool = True) -> Estimate:
    """Validating one theorem on ``formula`` (Theorem 3: pass its X'): S, the placement
    model, extraction and forward map. With ``split`` the model holds the gadget cells only
    (the filler is solved without SAT; :class:`solvers.gadgets.nishio.PlacementModel` checks its own
    size again), without it every cell of S."""
    from .nishio.gadget import expected_cell_count, theorem_order
    n = theorem_order(formula) if order is None else order
    occurrences = sum(len(c) for c in formula.clauses)
    model_cells = 6 * occurrences if split else expected_cell_count(formula, n)
    grid = nishio_gadget_estimate(formula, order=n)
    return grid.plus(placement_model_estimate(model_cells))


def placement_model_estimate(cell_variables: int) -> Estimate:
    """The SAT model of valid placements with ``cell_variables`` cells of S as variables."""
    return Estimate(f"a placement model of {_count(cell_variables)} cell variables",
                    _bytes(PLACEMENT_MODEL_PER_CELL * cell_variables))


def cell_set_reading_estimate(file_bytes: int) -> Estimate:
    """Reading a cell-set file of ``file_bytes`` bytes (one character per cell)."""
    return Estimate(f"a cell set of about {_count(file_bytes)} cells",
                    _bytes(CELL_SET_READ_PER_BYTE * file_bytes))


def nishio_dag_estimate(shape: Shape) -> Estimate:
    """Nishio(S) by the almost-balanced-matrix DAG (its vertices: a closed formula)."""
    from .nishio.placements import almost_balanced_count
    vertices = almost_balanced_count(shape)
    return Estimate(f"a DAG of {_count(vertices)} vertices", _bytes(DAG_PER_VERTEX * vertices))


def nishio_overlay_estimate(shape: Shape) -> Estimate:
    """Nishio(S) by pattern overlay: every valid placement as a row of N cells."""
    from .nishio.placements import valid_placement_count
    count = valid_placement_count(shape)
    return Estimate(f"{_count(count)} placements",
                    _bytes(OVERLAY_PER_ENTRY * count * shape.size))


# ----------------------------------------------------------------------------- nonrepetitive

def nrpath_gadget_estimate(formula: Formula, *, cycle: bool = False,
                           validate: bool = False) -> Estimate:
    """Theorem 4's graph of ``formula`` (2 + 2n + 2L + 3c vertices, 1 + 3n + 4L + 2c arcs,
    n from the header: every variable gets its gadget), written as an edge list;
    ``validate``: instead of writing, the SAT model of simple paths and nr(G) on it."""
    from .nonrepetitive.nrpath_gadget import expected_size as nrpath_expected_size
    vertices, arcs = nrpath_expected_size(formula, cycle)
    last = (PATH_MODEL_PER_ARC * arcs if validate
            else EDGE_LINES_PER_ROW * min(arcs, EDGE_LINES_ROWS))
    return Estimate(f"a graph of {_count(vertices)} vertices and {_count(arcs)} arcs",
                    _bytes(NRPATH_PER_VERTEX * vertices, NRPATH_PER_ARC * arcs, last),
                    (vertices, arcs))


def nr_graph_estimate(num_vertices: int, num_arcs: int, *, simple: bool = False) -> Estimate:
    """nr(G) of a labelled graph with ``num_arcs`` arcs (an undirected edge is two) and the
    searches on it: at most 2 (vertex, label) pairs per arc, each a Lemma 1 gadget of at most
    4 vertices and 6 arcs per label; ``simple``: the SAT model of simple paths instead."""
    per_arc = PATH_MODEL_PER_ARC if simple else NR_GRAPH_PER_ARC
    what = "a simple-path model" if simple else "nr(G)"
    return Estimate(f"{what} of a graph with {_count(num_vertices)} vertices and "
                    f"{_count(num_arcs)} arcs",
                    _bytes(per_arc * num_arcs, 100 * num_vertices))


def simple_path_estimate(num_vertices: int, num_edges: int, *, cycles: bool = False
                         ) -> Estimate:
    """The polynomial search for simple nonrepetitive paths of an undirected graph with
    ``num_edges`` edges (Theorem 3, :mod:`reductions.nonrepetitive.simple_nonrepetitive`): usp(G) of
    n + 2K vertices and m + 3K edges and its skew-symmetric graph of 2(n + 2K) + 2 vertices and
    2(m + 3K) + 4 arcs, with K ≤ 2m (vertex, label) pairs taken at its bound; ``cycles``: one
    such search per edge, one at a time, after nr(G) for Theorem 1."""
    k = 2 * num_edges
    vertices = 2 * (num_vertices + 2 * k) + 2
    arcs = 2 * (num_edges + 3 * k) + 4
    search = Estimate(f"a skew-symmetric graph of at most {_count(vertices)} vertices and "
                      f"{_count(arcs)} arcs",
                      _bytes(SIMPLE_PER_SSG_ARC * arcs, SIMPLE_PER_SSG_VERTEX * vertices),
                      (vertices, arcs))
    if not cycles:
        return search
    theorem_1 = nr_graph_estimate(num_vertices, 2 * num_edges)
    return search if search.bytes >= theorem_1.bytes else theorem_1


# ----------------------------------------------------------------------------- Haythorpe

def hcp_estimate(n: int, *, directed: bool, triple: bool = False, reduce: bool = False,
                 solve: bool = False) -> Estimate:
    """Haythorpe's graph of an N×N puzzle (the blank grid's size bounds every puzzle's:
    clues only remove arcs), through the pipeline of :mod:`reductions.hamiltonian.hcp_pipeline`;
    ``solve``: also the exact SAT model of Hamiltonian cycles on it."""
    vertices, arcs = directed_size(n)
    counts = (vertices, arcs)
    if directed:
        what = f"a directed graph of {_count(vertices)} vertices and {_count(arcs)} arcs"
        per_arc, solve_per_arc = HCP_DIRECTED_PER_ARC, HCP_SOLVE_PER_ARC
    else:
        u_vertices, u_edges = counts = undirected_size(n, triple)
        what = f"an undirected graph of {_count(u_vertices)} vertices and {_count(u_edges)} edges"
        per_arc = HCP_REDUCED_PER_ARC if reduce else HCP_UNDIRECTED_PER_ARC
        solve_per_arc = HCP_SOLVE_UNDIRECTED_PER_ARC
    return Estimate(what, _bytes(per_arc * arcs,
                                 HCP_SOLVE_BASE + solve_per_arc * arcs if solve else 0), counts)


# ----------------------------------------------------------------------------- CNF, cover, ILP

def _amo_group_size(n: int, amo: str) -> tuple[int, int]:
    """(auxiliary variables, clauses) of one at-most-one over N literals."""
    if amo == "pairwise":
        return 0, n * (n - 1) // 2
    if amo == "seqcounter":
        return n - 1, 3 * n - 4
    from pysat.card import CardEnc              # no closed formula: encode one group (tiny)
    from pysat.formula import IDPool
    pool = IDPool(occupied=[[1, n]])
    clauses = CardEnc.atmost(list(range(1, n + 1)), 1, vpool=pool,
                             encoding=AMO_ENCODINGS[amo]).clauses
    return max(pool.top - n, 0), len(clauses)


def _cnf_write_block(n: int, amo: str, per_group: int) -> float:
    """The largest clause block of :func:`reductions.encodings.cnf.encoding_blocks` while the DIMACS
    writer formats it: array blocks (at-least-one kinds, N² clauses of N literals; pairwise,
    a whole kind; sequential counter, 256 groups) cost their array and temporaries plus one
    formatted piece of at most ``CNF_FORMAT_ROWS`` clauses; other at-most-one encodings come
    as lists, 256 groups at a time."""
    def array_block(rows: int, width: int) -> float:
        return (CNF_ARRAY_PER_LITERAL * rows * width
                + CNF_FORMAT_PER_LITERAL * min(rows, CNF_FORMAT_ROWS) * width)
    alo = array_block(n * n, n)
    if amo == "pairwise":
        return max(alo, array_block(n * n * per_group, 2))
    if amo == "seqcounter":
        return max(alo, array_block(min(256, n * n) * per_group, 2))
    return max(alo, min(256, n * n) * per_group * (CNF_WRITE_PER_CLAUSE
                                                   + 3 * CNF_WRITE_PER_LITERAL))


def cnf_estimate(shape: Shape, *, encoding: str = "extended", amo: str = "auto",
                 clues: str = "units", solve: bool = False) -> Estimate:
    """A puzzle's CNF (:func:`reductions.encodings.cnf.sudoku_cnf`) written as DIMACS or (``solve``)
    loaded into pysat. The rule clauses stream by blocks, so the largest block counts, plus
    the whole clause list when clues are eliminated, plus the solver's copy."""
    n = shape.size
    amo = resolve_amo(amo, n)
    sizes = cnf_expected_size(shape, encoding, amo)
    aux, per_group = _amo_group_size(n, amo)
    amo_kinds = 3 if encoding == "minimal" else 4
    alo_kinds = 1 if encoding == "minimal" else 4
    if sizes is None:
        sizes = (n**3 + amo_kinds * n * n * aux,
                 alo_kinds * n * n + amo_kinds * n * n * per_group)
    num_vars, num_clauses = sizes
    if solve:
        # Each block turned into lists for pysat: an at-least-one kind (N² clauses of N
        # literals), a pairwise kind, or 256 groups of another at-most-one (clauses of 2-3).
        amo_rows = n * n * per_group if amo == "pairwise" else min(256, n * n) * per_group
        block = max(n * n * (CNF_LIST_PER_CLAUSE + n * CNF_LIST_PER_LITERAL),
                    amo_rows * (CNF_LIST_PER_CLAUSE + 3 * CNF_LIST_PER_LITERAL))
    else:
        block = CNF_WRITE_BUFFERS + _cnf_write_block(n, amo, per_group)
    literals = alo_kinds * n**3 + 3 * (num_clauses - alo_kinds * n * n)
    solver = CNF_SEARCH_FACTOR * (CNF_SOLVER_PER_CLAUSE * num_clauses
                                  + CNF_SOLVER_PER_LITERAL * literals
                                  + CNF_SOLVER_PER_VAR * num_vars)
    return Estimate(f"a CNF of {_count(num_vars)} variables and {_count(num_clauses)} clauses",
                    _bytes(block, CNF_GROUPS_PER_VAR * n**3,
                           CNF_ELIMINATE_PER_CLAUSE * num_clauses if clues == "eliminate" else 0,
                           solver if solve else 0), (num_vars, num_clauses))


def exact_cover_estimate(shape: Shape, *, solve: bool = False, dense: bool = False) -> Estimate:
    """A puzzle's exact cover (N³ options, 4N² items; the blank grid bounds every puzzle);
    ``solve``: the built-in Algorithm X, and with ``dense`` the dense matrix the
    exact-cover package takes (capped at ``DENSE_LIMIT_BYTES``, beyond which it is not
    used)."""
    n = shape.size
    options, items = n**3, 4 * n * n
    dense_bytes = COVER_DENSE_PER_ENTRY * min(options * items, DENSE_LIMIT_BYTES) if dense else 0
    return Estimate(f"an exact cover of {_count(options)} options and {_count(items)} items",
                    _bytes((COVER_SOLVE_PER_OPTION if solve else COVER_PER_OPTION) * options,
                           dense_bytes), (options, items))


def ilp_estimate(shape: Shape, *, solve: bool = False) -> Estimate:
    """A puzzle's 0/1 ILP as a PuLP model (N³ variables, 4N² equalities), written or
    solved."""
    n = shape.size
    variables = n**3
    per = ILP_SOLVE_PER_VARIABLE if solve else ILP_PER_VARIABLE
    return Estimate(f"an ILP of {_count(variables)} variables and {_count(4 * n * n)} "
                    f"constraints", _bytes(per * variables), (variables, 4 * n * n))


RULES_PER_CELL_PAIR = 16          # peer matrix (float32) and the rules' per-unit copies
RULES_PER_ARC = NR_GRAPH_PER_ARC  # bilocation / bipartite bivalue graphs through nr(G)


def rules_estimate(shape: Shape) -> Estimate:
    """The rule engine (:mod:`reductions.rules`) on an N×N puzzle: the (N², N²) peer matrix
    and candidate arrays, and the nonlocal rules' graphs — the bipartite bivalue graph has at
    most 6N² edges and the bilocation graph 3N² (Eppstein 2005 §3.5), each through nr(G)."""
    n = shape.size
    arcs = 2 * (6 + 3) * n * n
    return Estimate(f"the rule engine's state for {n}x{n} ({_count(arcs)} graph arcs)",
                    _bytes(RULES_PER_CELL_PAIR * n**4, RULES_PER_ARC * arcs), (n,))
