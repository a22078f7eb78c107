"""Solving a puzzle through Haythorpe's Hamiltonian-cycle graph (the ``hcp`` routes).

``sudoku-bridge solve PUZZLE --via hcp [--graph directed|undirected] [--prune none|paper|peers]
[--triple] [--reduce] [--hcp-solver sat|cpsat|lkh|concorde] [--break-symmetry]
[--time-limit S] [--json]``

The steps: build the graph of the puzzle (its reduction rule,
:class:`reductions.hamiltonian.hcp_pipeline.SudokuToHcp`, over
:func:`~reductions.hamiltonian.hcp_pipeline.build_hcp_pipeline`:
directed graph, clue pruning, optionally the undirected 3-split with the triple trick and the
degree-2 reduction), find a Hamiltonian cycle, decode it back through every step to a grid,
and verify the grid against the puzzle (:func:`solvers.outcome.verified`).

Solvers (:mod:`solvers.hamiltonian`, :mod:`solvers.tools.lkh`, :mod:`solvers.tools.concorde`):

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

With the ``sat`` solver, puzzles up to 9×9 (without the triple trick) are solved on one
*shared* incremental model per process and graph kind (:func:`process_model`): the SAT model
of the blank grid's graph, built once, each puzzle's pruned arcs (and, after the degree-2
reduction, the edges it deleted) assumed absent; subtour cuts and learnt clauses stay for the
next puzzle (:class:`solvers.hamiltonian.SharedHcpModel`), which makes a file of 17-clue
puzzles several times faster (``benchmarks/results/hcp_corpus.md``).

With the ``sat`` solver, the model is also told that the seven arcs of each option go
together (:func:`reductions.hamiltonian.hcp_pipeline.option_groups`; not after the degree-2 reduction,
except on the shared model, whose graph is the unreduced 3-split): the empty 25×25 grid takes
seconds instead of minutes (``benchmarks/results/hcp_empty_25x25.md``,
``benchmarks/results/hcp_solve.md``).

Statistics (``--json``): sizes after each step, the solver's own statistics (iterations,
subtour cuts, seconds, ``model: shared`` and ``puzzles_on_model``, ...), and the total time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from reductions.errors import UserError
from reductions.sudoku.grid import Grid
from reductions.hamiltonian.hcp import check_square
from reductions.hamiltonian.hcp_pipeline import (
    HcpOptions,
    HcpPipeline,
    SudokuToHcp,
    first_row_fixed,
    grid_pairs,
    option_groups,
    required_pairs,
)

from ..hamiltonian import (CycleStatus, HcpResult, SharedHcpModel, solve_directed_hcp,
                          solve_undirected_hcp)
from ..outcome import Outcome, Status, verified
from ..runtime.kept_models import KeptModels
from .options import (EXACT_HCP_SOLVERS, GRAPH_KINDS, HCP, HCP_SOLVERS,
                      GraphKind, HcpSolver, Program, natural_graph_kind)

DEFAULTS = HCP.defaults
UNDIRECTED_ONLY = (HcpSolver.LKH, HcpSolver.LINKERN, HcpSolver.CONCORDE)


def check_options(options: HcpOptions, solver: str, has_clues: bool) -> None:
    """Refuse, in one line, a pipeline the solver cannot take (``solver``
    :attr:`Program.COMMAND`: an ``--hcp-cmd`` program)."""
    if solver != Program.COMMAND and solver not in HCP_SOLVERS:
        raise UserError(f"unknown --hcp-solver {solver!r}; choose one of "
                        f"{', '.join(HCP_SOLVERS)}")
    if solver in UNDIRECTED_ONLY and options.directed:
        raise UserError(f"--hcp-solver {solver} solves undirected graphs (TSPLIB HCP / TSP); "
                        f"use --graph undirected")
    if options.prune == "none" and has_clues:
        if solver not in EXACT_HCP_SOLVERS:
            raise UserError(f"--prune none does not encode the clues and {solver} cannot be "
                            f"given required edges; use --prune paper or peers")
        if options.reduce:
            raise UserError("--prune none with --reduce is not supported for a puzzle with "
                            "clues (the clues would have to be required edges of the reduced "
                            "graph); use --prune paper or peers")


@dataclass(frozen=True, kw_only=True)
class HcpRouteOptions:
    """The options of the ``hcp`` routes with their defaults, built once per puzzle from the
    keywords of :func:`solve_puzzle` (their names, flags and help are declared in
    :data:`solvers.routes.options.HCP`, which the registry checks a request against).

    ``graph``: ``directed``/``undirected``, or None for the natural kind (directed for the
    exact solvers unless ``triple``/``reduce`` ask for the undirected graph).
    ``hcp_solver``: one of :data:`HCP_SOLVERS` (``hcp_workers``: CP-SAT's search threads;
    ``lkh_binary``, ``lkh_runs``, ``lkh_seed``: LKH's program, ``RUNS`` and ``SEED``;
    ``linkern_binary``, ``concorde_binary``: those programs).
    ``hcp_cmd``: instead, any program by a command template
    (:mod:`solvers.tools.hcp_command`: ``{input}``, ``{input.FORMAT}``, ``{output}``),
    treated as a heuristic (a solved or unknown answer, never "no solution"); the graph is
    then undirected unless ``graph`` says otherwise.
    ``break_symmetry``: for a puzzle without clues, solve
    :func:`~reductions.hamiltonian.hcp_pipeline.first_row_fixed` instead (no effect when there are
    clues)."""

    graph: str | None = None
    prune: str = DEFAULTS["prune"]
    triple: bool = False
    reduce: bool = False
    hcp_solver: str = DEFAULTS["hcp_solver"]
    break_symmetry: bool = False
    hcp_workers: int = DEFAULTS["hcp_workers"]
    lkh_binary: str | None = None
    lkh_runs: int | None = None
    lkh_seed: int | None = None
    linkern_binary: str | None = None
    concorde_binary: str | None = None
    hcp_cmd: str | None = None

    @property
    def solver(self) -> str:
        """Who solves: ``hcp_solver``, or :attr:`Program.COMMAND` for an ``hcp_cmd``
        program."""
        return Program.COMMAND if self.hcp_cmd is not None else self.hcp_solver

    @property
    def lkh_given(self) -> list[str]:
        """The LKH options given, as their keyword names."""
        lkh = {"lkh_binary": self.lkh_binary, "lkh_runs": self.lkh_runs,
               "lkh_seed": self.lkh_seed}
        return [name for name, value in lkh.items() if value is not None]


def solve_puzzle(puzzle: Grid, *, unique: bool = False, time_limit: float | None = None,
                 **options: Any) -> Outcome:
    """Solve ``puzzle`` through its Hamiltonian-cycle graph; see the module docstring.

    ``options``: the fields of :class:`HcpRouteOptions` (TypeError for any other name; the
    registry refuses those first, in one line). ``unique`` (exact solvers only): after the
    first cycle, the same model is asked for a cycle whose grid differs
    (:func:`second_cycle`). The grids of a ``solved`` outcome have been verified against
    ``puzzle``."""
    return solve_with_options(puzzle, HcpRouteOptions(**options), unique=unique,
                              time_limit=time_limit)


def solve_with_options(puzzle: Grid, settings: HcpRouteOptions, *, unique: bool = False,
                       time_limit: float | None = None) -> Outcome:
    """:func:`solve_puzzle` with its options built."""
    start = time.perf_counter()
    solver = settings.hcp_solver
    if unique and (settings.hcp_cmd is not None or solver not in EXACT_HCP_SOLVERS):
        raise UserError(f"--unique needs an exact Hamiltonian-cycle solver (--hcp-solver "
                        f"sat or cpsat), not {'--hcp-cmd' if settings.hcp_cmd else solver}: "
                        f"a heuristic cannot prove that no other cycle exists")
    puzzle, symmetry = _break_symmetry(puzzle, settings.break_symmetry)
    check_square(puzzle.shape)
    options = _pipeline_options(settings, puzzle)
    rule = SudokuToHcp.build(puzzle, options=options)
    pipeline = rule.target
    stats = _pipeline_stats(pipeline, settings.solver, symmetry, start)
    if pipeline.status == Status.NO_SOLUTION:
        stats["reason"] = f"the degree-2 reduction proves no Hamiltonian cycle: " \
                          f"{pipeline.reduction.reason}"
        stats["seconds"] = round(time.perf_counter() - start, 4)
        return Outcome(Status.NO_SOLUTION, stats=stats)
    deadline_at = None if time_limit is None else start + time_limit
    remaining = None if deadline_at is None else max(deadline_at - time.perf_counter(), 0.0)
    if settings.hcp_cmd is not None:
        from ..tools.hcp_command import run_hcp_command
        result = run_hcp_command(settings.hcp_cmd, pipeline.num_vertices, pipeline.edges,
                                 directed=options.directed, time_limit=remaining)
    elif solver in EXACT_HCP_SOLVERS:
        with ExactSearch(rule, solver, workers=settings.hcp_workers) as search:
            result = search.cycle(time_limit=remaining)
            if result.found:
                return _exact_outcome(search, result, stats, unique=unique,
                                      start=start, deadline_at=deadline_at)
    else:
        result = run_heuristic(pipeline, settings, time_limit=remaining)
    return _cycle_outcome(result, rule, stats, start)


def _pipeline_options(settings: HcpRouteOptions, puzzle: Grid) -> HcpOptions:
    """The graph to build for ``puzzle``: its kind chosen (:func:`_graph_kind`), then the
    combination checked against the solver (:func:`check_options`) and the LKH options
    refused for any other solver."""
    graph = _graph_kind(settings)
    options = HcpOptions(directed=graph == GraphKind.DIRECTED, triple=settings.triple,
                         prune=settings.prune, reduce=settings.reduce)
    check_options(options, settings.solver, bool(puzzle.clue_count()))
    given = settings.lkh_given
    if given and (settings.hcp_solver != HcpSolver.LKH or settings.hcp_cmd is not None):
        raise UserError(f"--{given[0].replace('_', '-')} applies to --hcp-solver lkh only")
    return options


CYCLE_STATUS = {CycleStatus.HAMILTONIAN: Status.SOLVED, CycleStatus.NO_CYCLE: Status.NO_SOLUTION,
                CycleStatus.UNKNOWN: Status.UNKNOWN}
"""What a Hamiltonian-cycle answer about a puzzle's graph says about the puzzle."""


def _break_symmetry(puzzle: Grid, asked: bool) -> tuple[Grid, str | None]:
    """``--break-symmetry``: a puzzle without clues gets its first row fixed (any solution is
    one with that row, relabelled); the note for the stats, or None when not asked."""
    if not asked:
        return puzzle, None
    if puzzle.clue_count():
        return puzzle, "none (the puzzle has clues)"
    return first_row_fixed(puzzle), "first row fixed to 1..N"


def _graph_kind(settings: HcpRouteOptions) -> str:
    """``directed`` or ``undirected``: as given (checked), else the natural kind — directed
    for the exact solvers unless ``triple``/``reduce`` ask for the undirected graph."""
    graph, solver, hcp_cmd = settings.graph, settings.hcp_solver, settings.hcp_cmd
    triple, reduce = settings.triple, settings.reduce
    if graph is not None and graph not in GRAPH_KINDS:
        raise UserError(f"unknown --graph {graph!r}; choose directed or undirected")
    if graph == GraphKind.DIRECTED and (triple or reduce):
        raise UserError("--triple and --reduce work on the undirected graph; use "
                        "--graph undirected")
    if hcp_cmd is not None and solver != HcpSolver.SAT:
        raise UserError("give either --hcp-cmd or --hcp-solver, not both")
    if graph is not None:
        return graph
    return natural_graph_kind(hcp_solver=solver, hcp_cmd=hcp_cmd, triple=triple, reduce=reduce)


def _pipeline_stats(pipeline: HcpPipeline, solver: str, symmetry: str | None,
                    start: float) -> dict[str, Any]:
    """The stats every outcome of the route starts from: the pipeline's options and sizes."""
    options = pipeline.options
    return {
        "graph": "directed" if options.directed else "undirected", "prune": options.prune,
        "triple": options.triple, "reduce": options.reduce, "hcp_solver": solver,
        **({"symmetry_breaking": symmetry} if symmetry else {}),
        "sizes": [{"stage": s.name, "vertices": int(s.vertices), "edges": int(s.edges)}
                  for s in pipeline.stages],
        "build_seconds": round(time.perf_counter() - start, 4),
        # the size of the graph the solver searches
        "arcs" if options.directed else "edges": int(pipeline.stages[-1].edges)}


def _exact_outcome(search: ExactSearch, result: HcpResult, stats: dict, *,
                   unique: bool, start: float, deadline_at: float | None) -> Outcome:
    """A cycle found by an exact solver: its grid verified, then (``unique``) the second
    question asked on the same model."""
    stats["solver"] = result.stats
    outcome = Outcome(Status.SOLVED, search.verified(result), stats=stats)
    if unique:
        second_cycle(search, outcome, deadline_at=deadline_at)
    stats["seconds"] = round(time.perf_counter() - start, 4)
    return outcome


def _cycle_outcome(result: HcpResult, rule: SudokuToHcp, stats: dict,
                   start: float) -> Outcome:
    """The outcome of any other answer: a cycle decoded and verified, or no cycle (proved)
    or unknown with the solver's reason."""
    stats["solver"] = result.stats
    status = CYCLE_STATUS[result.status]
    if status == Status.SOLVED:
        grid = verified(rule, rule.decode(result.cycle), "the hcp route")
        stats["seconds"] = round(time.perf_counter() - start, 4)
        return Outcome(Status.SOLVED, grid, stats=stats)
    stats["seconds"] = round(time.perf_counter() - start, 4)
    stats["reason"] = result.stats.get("reason", "")
    return Outcome(status, stats=stats)


def run_heuristic(pipeline: HcpPipeline, settings: HcpRouteOptions, *,
                  time_limit: float | None) -> HcpResult:
    """Hand the pipeline's output graph to LKH, linkern or Concorde (``settings.hcp_solver``;
    LKH gets the very file ``emit hcp`` writes for the same options); the exact solvers go
    through :class:`ExactSearch`."""
    solver, lkh_runs, lkh_seed = settings.hcp_solver, settings.lkh_runs, settings.lkh_seed
    n, edges = pipeline.num_vertices, pipeline.edges
    if solver == HcpSolver.LKH:
        from ..formats.hcp_export import write_export
        from ..tools.lkh import DEFAULT_RUNS, DEFAULT_SEED, solve_hcp_lkh
        return solve_hcp_lkh(n, edges, time_limit=time_limit, binary=settings.lkh_binary,
                             runs=DEFAULT_RUNS if lkh_runs is None else lkh_runs,
                             seed=DEFAULT_SEED if lkh_seed is None else lkh_seed,
                             write_problem=lambda path: write_export(path, pipeline, "tsplib"))
    if solver == HcpSolver.LINKERN:
        from ..tools.linkern import solve_hcp_linkern
        return solve_hcp_linkern(n, edges, time_limit=time_limit,
                                 binary=settings.linkern_binary)
    from ..tools.concorde import solve_hcp_concorde
    return solve_hcp_concorde(n, edges, time_limit=time_limit,
                              binary=settings.concorde_binary)


# ----------------------------------------------------------------------------- uniqueness

class ExactSearch:
    """One exact solver's model of one pipeline's graph, asked for a Hamiltonian cycle and
    then, for uniqueness, for one that does not spell out a given grid.

    The SAT solver keeps one incremental model for both questions: this process's shared
    blank-grid model when the pipeline uses it (:func:`uses_shared_model`), else a model of
    this graph alone, closed afterwards; either is told that an option's seven arcs go
    together (it cannot deduce it by propagation; the empty 25×25 grid needs it, see
    :func:`solvers.hamiltonian.together_clauses`). The second question adds its no-good behind
    an activation literal (:meth:`solvers.hamiltonian.SharedHcpModel.solve`), so a shared model
    stays exact for the next puzzle. CP-SAT, which is not incremental, solves twice."""

    def __init__(self, rule: SudokuToHcp, solver: str, *, workers: int = 1):
        pipeline = rule.target
        self.rule, self.pipeline, self.solver, self.workers = rule, pipeline, solver, workers
        self.required = required_pairs(pipeline)
        self.shared = solver == HcpSolver.SAT and uses_shared_model(pipeline)
        self.model: SharedHcpModel | None = None
        if solver == HcpSolver.SAT and not self.shared:
            self.model = SharedHcpModel(pipeline.num_vertices, pipeline.edges,
                                        directed=pipeline.directed,
                                        together=option_groups(pipeline), label="puzzle")

    def __enter__(self) -> "ExactSearch":
        return self

    def __exit__(self, *exc) -> None:
        if self.model is not None:
            self.model.close()

    def cycle(self, *, not_all_of=None, time_limit: float | None) -> HcpResult:
        """A Hamiltonian cycle of the pipeline's graph that (with ``not_all_of``, pairs of
        the graph searched: :meth:`pairs_of`) does not use all of those pairs."""
        pipeline = self.pipeline
        if self.shared:
            return solve_on_shared_model(pipeline, self.required, time_limit,
                                         not_all_of=not_all_of)
        if self.model is not None:
            return self.model.solve(pipeline.edges, required=self.required,
                                    not_all_of=not_all_of, time_limit=time_limit)
        solve = solve_directed_hcp if pipeline.directed else solve_undirected_hcp
        return solve(pipeline.num_vertices, pipeline.edges, time_limit=time_limit,
                     backend=self.solver, required=self.required, workers=self.workers,
                     not_all_of=not_all_of)

    def pairs_of(self, grid: Grid) -> np.ndarray:
        """The pairs of the graph searched that spell out ``grid`` (the 3-split's when the
        shared model searches it in place of the reduced graph)."""
        on_split = self.shared and self.pipeline.reduction is not None
        return grid_pairs(self.pipeline, grid, on_split=on_split)

    def verified(self, result: HcpResult) -> Grid:
        """The grid of a cycle found, decoded by the rule (from the 3-split when the shared
        model searched it) and checked by the rule's closed loop."""
        return verified(self.rule, self.rule.decode(result.cycle, split_tour=result.split_tour),
                        "the hcp route")


def second_cycle(search: ExactSearch, outcome: Outcome, *,
                 deadline_at: float | None) -> None:
    """Prove ``outcome``'s grid unique, or find a second one, on the model that found it.

    The question asked: a Hamiltonian cycle that leaves out at least one of the pairs
    spelling out the first grid (:func:`reductions.hamiltonian.hcp_pipeline.grid_pairs`: the row
    exits of its digits, mapped through the 3-split and the reduction). Every cycle of another
    grid qualifies and no cycle of the first grid does, so "no cycle" proves the grid
    unique, and a cycle found decodes to a second, different solution (verified). This
    does not depend on how many cycles each grid has. Sets ``unique`` (None when the time
    runs out), ``second`` and ``stats["uniqueness"]``."""
    remaining = None if deadline_at is None else max(deadline_at - time.perf_counter(), 0.0)
    result = search.cycle(not_all_of=search.pairs_of(outcome.grid), time_limit=remaining)
    outcome.stats["uniqueness"] = result.stats
    if result.status == CycleStatus.UNKNOWN:
        outcome.unique = None
    elif result.status == CycleStatus.NO_CYCLE:
        outcome.unique = True
    else:
        second = search.verified(result)
        if second == outcome.grid:
            raise RuntimeError("internal error: the second cycle spells out the first grid")
        outcome.unique, outcome.second = False, second


# ----------------------------------------------------------------------------- shared model

SHARED_MODEL_MAX_SIZE = 9
"""Largest N whose puzzles the SAT solver takes on this process's shared blank-grid model
(:func:`process_model`). Beyond it a puzzle's own pruned model is smaller: on the shipped
half-filled 16×16 puzzles the shared model, its build included, was no faster directed and
slower undirected and reduced (figures: ``benchmarks/results/design_figures.md``)."""
FRESH_MODEL_EVERY = 2000
"""Questions one shared model answers before a fresh one replaces it (learnt clauses and
cuts of earlier puzzles pile up, as in
:data:`solvers.routes.sat_incremental.FRESH_SOLVER_EVERY`)."""


def _blank_model(key: tuple[int, bool]) -> SharedHcpModel:
    """The SAT model of the blank N×N grid's graph (directed, or its 3-split)."""
    n, directed = key
    blank = SudokuToHcp.build(Grid.empty(n),
                              options=HcpOptions(directed=directed, prune="none")).target
    return SharedHcpModel(blank.num_vertices, blank.edges, directed=directed,
                          together=option_groups(blank))


_PROCESS_MODELS: KeptModels[SharedHcpModel] = KeptModels(
    "hcp shared model", build=_blank_model, close=SharedHcpModel.close,
    renew_after=FRESH_MODEL_EVERY)
"""This process's shared models, by (N, directed)."""


def uses_shared_model(pipeline: HcpPipeline) -> bool:
    """Whether the SAT solver takes this pipeline on the shared blank-grid model: N up to
    :data:`SHARED_MODEL_MAX_SIZE` and no triple trick (its graph's vertices are not the
    blank 3-split's)."""
    return pipeline.graph.size <= SHARED_MODEL_MAX_SIZE and not pipeline.options.triple


def process_model(n: int, directed: bool) -> SharedHcpModel:
    """This process's incremental SAT model of the blank N×N grid's graph (directed, or its
    3-split), for one question: made on first use and renewed every
    :data:`FRESH_MODEL_EVERY` questions (:class:`~solvers.runtime.kept_models.KeptModels`).
    Every pruned graph of an N×N puzzle is a subgraph of it on the same vertices."""
    return _PROCESS_MODELS.get((n, directed))


def solve_on_shared_model(pipeline: HcpPipeline, required, time_limit: float | None, *,
                          not_all_of=None) -> HcpResult:
    """Solve the pipeline's graph on :func:`process_model`.

    Directed, and undirected without reduction: the output graph itself is the subgraph.
    With the degree-2 reduction: the subgraph is the 3-split graph less the edges the
    reduction removed (``Reduction.alive``), which has exactly the reduced graph's
    Hamiltonian cycles, walked group by group. The tour found is returned as a tour of the
    3-split (``split_tour``), which the pipeline decodes from there (checked on the 3-split
    graph): the reduced graph is never built, and the tour not mapped onto it and back."""
    model = process_model(pipeline.graph.size, pipeline.directed)
    if pipeline.directed:
        return model.solve(pipeline.edges, required=required, not_all_of=not_all_of,
                           time_limit=time_limit)
    split, reduction = pipeline.split, pipeline.reduction
    if reduction is None:
        return model.solve(split.edges, required=required, not_all_of=not_all_of,
                           time_limit=time_limit)
    result = model.solve(split.edges[reduction.alive], not_all_of=not_all_of,
                         time_limit=time_limit)
    result.stats["searched"] = "3-split graph less the reduction's deleted edges"
    result.split_tour = result.found
    return result
