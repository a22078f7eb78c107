"""Memory estimates of the direct encodings (CNF, exact cover, ILP), before they are built
(see :mod:`reductions.estimate` for what an estimate is and how its constants were
measured)."""

from __future__ import annotations

from ..estimate import MB, Estimate, count_text, with_base
from ..sudoku.grid import Shape
from .cnf import AMO_ENCODINGS, expected_size as cnf_expected_size, resolve_amo
from .cnf import DEFAULT_ENCODING, DEFAULT_AMO

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


def cnf_estimate(shape: Shape, *, encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
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
    return Estimate(f"a CNF of {count_text(num_vars)} variables and "
                    f"{count_text(num_clauses)} clauses",
                    with_base(block, CNF_GROUPS_PER_VAR * n**3,
                              CNF_ELIMINATE_PER_CLAUSE * num_clauses if clues == "eliminate" else 0,
                              solver if solve else 0), (num_vars, num_clauses))


def exact_cover_estimate(shape: Shape, *, solve: bool = False, dense: bool = False) -> Estimate:
    """A puzzle's exact cover (N³ options, 4N² items; the blank grid bounds every puzzle);
    ``solve``: the built-in Algorithm X, and with ``dense`` the dense matrix the
    exact-cover package takes (capped at ``DENSE_LIMIT_BYTES``, beyond which it is not
    used)."""
    from .exact_cover import DENSE_LIMIT_BYTES      # the registry imports this module
    n = shape.size
    options, items = n**3, 4 * n * n
    dense_bytes = COVER_DENSE_PER_ENTRY * min(options * items, DENSE_LIMIT_BYTES) if dense else 0
    return Estimate(f"an exact cover of {count_text(options)} options and "
                    f"{count_text(items)} items",
                    with_base((COVER_SOLVE_PER_OPTION if solve else COVER_PER_OPTION) * options,
                              dense_bytes), (options, items))


def ilp_estimate(shape: Shape, *, solve: bool = False) -> Estimate:
    """A puzzle's 0/1 ILP as a PuLP model (N³ variables, 4N² equalities), written or
    solved."""
    n = shape.size
    variables = n**3
    per = ILP_SOLVE_PER_VARIABLE if solve else ILP_PER_VARIABLE
    return Estimate(f"an ILP of {count_text(variables)} variables and {count_text(4 * n * n)} "
                    f"constraints", with_base(per * variables), (variables, 4 * n * n))
