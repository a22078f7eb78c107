"""``solve --via hcp``: solve a puzzle through Haythorpe's Hamiltonian-cycle graph.

``sudoku-bridge solve PUZZLE --via hcp [--graph directed|undirected] [--prune none|paper|peers]
[--triple] [--reduce] [--hcp-solver sat|cpsat|lkh|concorde] [--break-symmetry]
[--time-limit S] [--json]``

The steps: build the graph of the puzzle (:func:`solvers.formats.sidecar.build_hcp_pipeline`:
directed graph, clue pruning, optionally the undirected 3-split with the triple trick and the
degree-2 reduction), find a Hamiltonian cycle, decode it back through every step to a grid,
and verify the grid against the puzzle (:func:`solvers.outcome.verified`).

Solvers (:mod:`solvers.hcp`, :mod:`solvers.lkh`, :mod:`solvers.concorde`):

* ``sat`` (default) — exact: SAT model with lazy subtour cuts; "no solution" is a proof;
* ``cpsat`` — exact: OR-Tools CP-SAT circuit constraint (best on the directed graph);
* ``lkh`` — LKH-3 heuristic (an ``LKH`` binary, else the ``elkai`` package), undirected only;
* ``concorde`` — Concorde (a ``concorde`` binary), undirected only.

The graph defaults to directed for the exact solvers and undirected for LKH and Concorde.
``--prune none`` is the blank-grid graph, which does not encode the clues: with the exact
solvers the clues are then given as *required arcs* (the choice arc ``b[a,k] → x[i,j,k+1,1]``
of every clue must be on the cycle), which says the same thing; LKH and Concorde cannot take
required edges here, and the degree-2 reduction would need them mapped through its merges, so
those combinations are refused for puzzles with clues.

Statistics (``--json``): sizes after each step, the solver's own statistics (iterations,
subtour cuts, seconds, ...), and the total time.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from reductions.errors import UserError
from reductions.graph_reduction import NO_CYCLE as REDUCTION_NO_CYCLE
from reductions.grid import Grid
from reductions.hcp import CHOICE, check_square, option_arc_index

from . import cli
from .formats.sidecar import HcpOptions, HcpPipeline, build_hcp_pipeline
from .hcp import HAMILTONIAN, NO_CYCLE, HcpResult, solve_directed_hcp, solve_undirected_hcp
from .outcome import NO_SOLUTION, SOLVED, UNKNOWN, Outcome, verified

HCP_SOLVERS = ("sat", "cpsat", "lkh", "concorde")
EXACT_SOLVERS = ("sat", "cpsat")
ROUTE = "hcp"


def clue_choice_arcs(pipeline: HcpPipeline) -> np.ndarray:
    """The choice arcs ``b[a,k] → x[i,j,k+1,0]`` of the puzzle's clues, as (tail, head)
    pairs of the *directed* graph (its unpruned blank graph keeps every arc at its index)."""
    graph = pipeline.graph
    n = graph.size
    clues = [(r, c, v - 1) for r, c, v in graph.puzzle.clues()]
    if not clues:
        return np.zeros((0, 2), dtype=np.int64)
    i, j, k = (np.array(t, dtype=np.int64) for t in zip(*clues))
    index = option_arc_index(n, CHOICE, i, j, k)
    if graph.prune != "none":
        # Pruned graphs drop arcs; map blank indices to positions among the kept ones.
        index = np.cumsum(graph.kept)[index] - 1
    return graph.arcs[index]


def required_pairs(pipeline: HcpPipeline) -> np.ndarray | None:
    """Pairs the solver must use so that the cycle respects the clues: only for
    ``--prune none`` (the pruned graphs encode the clues themselves)."""
    if pipeline.options.prune != "none" or not pipeline.puzzle.clue_count():
        return None
    arcs = clue_choice_arcs(pipeline)
    if pipeline.options.directed:
        return arcs
    split = pipeline.split
    return np.stack([split.out_id[arcs[:, 0]], split.in_id[arcs[:, 1]]], axis=1)


def check_options(options: HcpOptions, solver: str, has_clues: bool) -> None:
    if solver not in HCP_SOLVERS:
        raise UserError(f"unknown --hcp-solver {solver!r}; choose one of "
                        f"{', '.join(HCP_SOLVERS)}")
    if solver in ("lkh", "concorde") and options.directed:
        raise UserError(f"--hcp-solver {solver} solves undirected graphs (TSPLIB HCP / TSP); "
                        f"use --graph undirected")
    if options.prune == "none" and has_clues:
        if solver not in EXACT_SOLVERS:
            raise UserError(f"--prune none does not encode the clues and {solver} cannot be "
                            f"given required edges; use --prune paper or peers")
        if options.reduce:
            raise UserError("--prune none with --reduce is not supported for a puzzle with "
                            "clues (the clues would have to be required edges of the reduced "
                            "graph); use --prune paper or peers")


def first_row_fixed(puzzle: Grid) -> Grid:
    """The clue-free grid with its first row set to 1..N (digit-symmetry breaking).

    With no clues, the digits are interchangeable: relabelling them maps any solution to one
    whose first row is 1..N. So solving this grid instead loses no solution class, and its
    answer also solves the empty puzzle; the graph is then pruned by N clues."""
    values = np.zeros_like(puzzle.values)
    values[0] = np.arange(1, puzzle.size + 1)
    return Grid(values, puzzle.shape)


def solve_hcp_puzzle(puzzle: Grid, graph: str | None = None, prune: str = "paper",
                     triple: bool = False, reduce: bool = False, solver: str = "sat",
                     time_limit: float | None = None, lkh_binary: str | None = None,
                     concorde_binary: str | None = None, workers: int = 1,
                     break_symmetry: bool = False) -> Outcome:
    """Solve ``puzzle`` through its Hamiltonian-cycle graph; see the module docstring.

    ``graph``: ``directed``/``undirected``, or None for the natural kind (directed for the
    exact solvers unless ``triple``/``reduce`` ask for the undirected graph).
    ``break_symmetry``: for a puzzle without clues, solve :func:`first_row_fixed` instead
    (no effect when there are clues). The grid of a ``solved`` outcome has been verified
    against ``puzzle``."""
    start = time.perf_counter()
    original = puzzle
    symmetry = None
    if break_symmetry:
        if puzzle.clue_count():
            symmetry = "none (the puzzle has clues)"
        else:
            puzzle, symmetry = first_row_fixed(puzzle), "first row fixed to 1..N"
    check_square(puzzle.shape)
    if graph not in (None, "directed", "undirected"):
        raise UserError(f"unknown --graph {graph!r}; choose directed or undirected")
    if graph == "directed" and (triple or reduce):
        raise UserError("--triple and --reduce work on the undirected graph; use "
                        "--graph undirected")
    if graph is None:
        graph = "directed" if solver in EXACT_SOLVERS and not (triple or reduce) \
            else "undirected"
    directed = graph == "directed"
    options = HcpOptions(directed=directed, triple=triple, prune=prune, reduce=reduce)
    check_options(options, solver, bool(puzzle.clue_count()))
    pipeline = build_hcp_pipeline(puzzle, options)
    stats: dict[str, Any] = {
        "graph": "directed" if directed else "undirected", "prune": prune, "triple": triple,
        "reduce": reduce, "hcp_solver": solver,
        **({"symmetry_breaking": symmetry} if symmetry else {}),
        "sizes": [{"stage": s.name, "vertices": int(s.vertices), "edges": int(s.edges)}
                  for s in pipeline.stages],
        "build_seconds": round(time.perf_counter() - start, 4)}
    if pipeline.status == REDUCTION_NO_CYCLE:
        stats["reason"] = f"the degree-2 reduction proves no Hamiltonian cycle: " \
                          f"{pipeline.reduction.reason}"
        stats["seconds"] = round(time.perf_counter() - start, 4)
        return Outcome(NO_SOLUTION, stats=stats)
    remaining = None if time_limit is None else max(time_limit - (time.perf_counter() - start),
                                                    0.0)
    result = run_hcp_solver(pipeline, solver, remaining, lkh_binary, concorde_binary, workers)
    stats["solver"] = result.stats
    if result.status == HAMILTONIAN:
        grid = verified(original, pipeline.decode(result.cycle), f"--via {ROUTE}")
        stats["seconds"] = round(time.perf_counter() - start, 4)
        return Outcome(SOLVED, grid, stats=stats)
    stats["seconds"] = round(time.perf_counter() - start, 4)
    stats["reason"] = result.stats.get("reason", "")
    if result.status == NO_CYCLE:
        return Outcome(NO_SOLUTION, stats=stats)
    return Outcome(UNKNOWN, stats=stats)


def run_hcp_solver(pipeline: HcpPipeline, solver: str, time_limit: float | None,
                   lkh_binary: str | None = None, concorde_binary: str | None = None,
                   workers: int = 1) -> HcpResult:
    """Hand the pipeline's output graph to the chosen solver."""
    n, edges = pipeline.num_vertices, pipeline.edges
    required = required_pairs(pipeline)
    if solver in EXACT_SOLVERS:
        if pipeline.directed:
            return solve_directed_hcp(n, edges, time_limit, solver, required, workers=workers)
        return solve_undirected_hcp(n, edges, time_limit, solver, required, workers=workers)
    if solver == "lkh":
        from .lkh import solve_hcp_lkh
        return solve_hcp_lkh(n, edges, time_limit, binary=lkh_binary)
    from .concorde import solve_hcp_concorde
    return solve_hcp_concorde(n, edges, time_limit, binary=concorde_binary)


def route_hcp(puzzle: Grid, args: argparse.Namespace) -> Outcome:
    if getattr(args, "unique", False):
        raise UserError("--via hcp does not check uniqueness; use --via sat --unique")
    return solve_hcp_puzzle(puzzle, args.graph, args.prune, args.triple, args.reduce,
                            args.hcp_solver, args.time_limit, args.lkh_binary,
                            args.concorde_binary, args.hcp_workers, args.break_symmetry)


def register(commands: cli.Commands) -> None:
    group = commands.solve.add_argument_group(
        "--via hcp", "Haythorpe's Hamiltonian-cycle graph, solved by an exact SAT or CP-SAT "
                     "model, LKH-3 or Concorde")
    group.add_argument("--graph", choices=["directed", "undirected"],
                       help="graph to solve (default: directed for sat/cpsat, undirected for "
                            "lkh/concorde)")
    group.add_argument("--prune", choices=["none", "paper", "peers"], default="paper",
                       help="clue pruning: none (blank graph; the clues become required "
                            "arcs), paper (the twelve arc sets of §5, default), peers (also "
                            "every (cell, digit) a clue excludes)")
    group.add_argument("--triple", action="store_true",
                       help="undirected graph with Haythorpe's triple trick")
    group.add_argument("--reduce", action="store_true",
                       help="undirected graph after the degree-2 reduction (§7)")
    group.add_argument("--hcp-solver", choices=HCP_SOLVERS, default="sat",
                       help="sat (default) and cpsat are exact; lkh is a heuristic (never "
                            "proves 'no solution'; 60 s unless --time-limit); concorde needs "
                            "a concorde binary")
    group.add_argument("--break-symmetry", action="store_true",
                       help="for a puzzle without clues, solve the grid with its first row "
                            "fixed to 1..N (any solution relabels to one; the empty 25x25 "
                            "needs it)")
    group.add_argument("--hcp-workers", type=int, default=1, metavar="N",
                       help="CP-SAT search workers (default 1)")
    group.add_argument("--lkh-binary", metavar="PATH",
                       help="LKH executable (default: LKH on PATH, else the elkai package)")
    group.add_argument("--concorde-binary", metavar="PATH",
                       help="concorde executable (default: concorde on PATH)")
    commands.routes[ROUTE] = route_hcp
