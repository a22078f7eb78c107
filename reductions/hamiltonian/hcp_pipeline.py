"""The Sudoku → Hamiltonian-cycle pipeline: every step from a puzzle to the graph a solver
sees, and every step back from a tour to a grid (pure: no solver calls, no files).

The steps (:func:`build_hcp_pipeline`):

1. Haythorpe's directed graph of the puzzle, with clue pruning ``none``/``paper``/``peers``
   (:mod:`reductions.hamiltonian.hcp`);
2. optionally the undirected 3-split, with or without the triple trick
   (:mod:`reductions.hamiltonian.hcp_undirected`);
3. optionally the degree-2 reduction of the undirected graph
   (:mod:`reductions.hamiltonian.graph_reduction`).

:meth:`HcpPipeline.decode` maps a Hamiltonian cycle of the output graph back through every
step (expand merged paths → undirected tour → directed cycle → grid);
:meth:`HcpPipeline.tour_of_solution` is the forward witness map (grid → cycle of the output
graph). Every step is deterministic, so a pipeline is rebuilt exactly from its puzzle and
:class:`HcpOptions` (this is what the JSON sidecar of an exported graph stores, see
:mod:`solvers.formats.sidecar`). As a :class:`~reductions.reduction.ReductionRule`:
:class:`SudokuToHcp`.

With ``prune="none"`` the graph is the blank-grid graph and does not encode the clues; the
clues are then the *required* choice arcs of :func:`required_pairs`, which exact solvers can
be told to use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reductions.hamiltonian.graph_reduction import (NO_CYCLE, SOLVED, Reduction, ReductionStatus,
                                                    compress_tour, expand_tour, reduce_degree_two)
from reductions.encodings.exact_cover import eliminated_size
from reductions.sudoku.grid import Grid, Shape, clue_conflicts, format_grid
from reductions.hamiltonian.hcp import (CHOICE, PRUNE_MODES, ROW_EXIT, HaythorpeGraph, HcpError,
                                        blank_arcs, cycle_from_solution, directed_size,
                                        grid_from_cycle, haythorpe_graph, option_arc_index,
                                        undirected_size)
from reductions.estimate import Estimate
from reductions.reduction import SolvesPuzzle, checked_grid
from reductions.hamiltonian.hcp_undirected import (SplitGraph, describe_split_vertex,
                                                   directed_cycle_from_tour, haythorpe_split,
                                                   tour_from_cycle)
from reductions.hamiltonian.split_reduction import reduce_split_degree_two
from reductions.status import Status

PAPER_17_CLUE = (".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1......"
                 "..8.6...")
"""The 17-clue instance of Haythorpe's Fig. 2 (line 1 of Royle's list)."""
PAPER_17_REDUCED = (12_036, 19_301)
"""The paper's graph for it after clue removal, undirected, degree-2 reduced (§7)."""
PAPER_17_UNREDUCED_EDGES = 22_873


@dataclass(frozen=True)
class HcpOptions:
    """How the graph is built: directed or undirected, triple trick, pruning, reduction
    (``closing``: the reduction's rule 3, see :mod:`reductions.hamiltonian.graph_reduction`)."""

    directed: bool = False
    triple: bool = False
    prune: str = "paper"
    reduce: bool = False
    closing: bool = True

    def __post_init__(self):
        if self.prune not in PRUNE_MODES:
            raise HcpError(f"unknown pruning mode {self.prune!r}; choose one of "
                           f"{', '.join(PRUNE_MODES)}")
        if self.directed and (self.triple or self.reduce):
            raise HcpError("--triple and --reduce work on the undirected graph; drop them or "
                           "--directed")

    def as_record(self) -> dict:
        return {"graph": "directed" if self.directed else "undirected", "prune": self.prune,
                "triple": self.triple, "reduce": self.reduce,
                "reduce_rules": ("extended" if self.closing else "paper") if self.reduce
                else None}

    @classmethod
    def from_record(cls, record: dict) -> "HcpOptions":
        rules = record.get("reduce_rules")
        return cls(directed=record["graph"] == "directed", triple=bool(record["triple"]),
                   prune=record["prune"], reduce=bool(record["reduce"]),
                   closing=rules != "paper")


@dataclass(frozen=True)
class Stage:
    """Size after one step, beside the paper's figure when it has one: its formula for the
    blank grid, or the size it reports for this very puzzle."""

    name: str
    vertices: int
    edges: int
    paper: tuple[int, int] | None = None
    note: str = ""


PUZZLE_STATUS = {ReductionStatus.REDUCED: Status.UNKNOWN,
                 ReductionStatus.NO_CYCLE: Status.NO_SOLUTION,
                 ReductionStatus.SOLVED: Status.SOLVED}
"""The degree-2 reduction's end, said of the puzzle: its graph has no Hamiltonian cycle (no
solution), the reduction found the cycle (solved), or a smaller graph is left to search."""


@dataclass
class HcpPipeline:
    """All steps for one puzzle; the output graph is the last one built."""

    puzzle: Grid
    options: HcpOptions
    graph: HaythorpeGraph
    split: SplitGraph | None = None
    reduction: Reduction | None = None
    stages: list[Stage] = field(default_factory=list)

    @property
    def status(self) -> Status:
        """What building the graph proved about the puzzle: ``no solution`` (the degree-2
        reduction found no Hamiltonian cycle), ``solved`` (it found the cycle), else
        ``unknown`` (a graph for a solver to search)."""
        if self.reduction is None:
            return Status.UNKNOWN
        return PUZZLE_STATUS[self.reduction.status]

    @property
    def num_vertices(self) -> int:
        if self.reduction is not None:
            return self.reduction.num_vertices
        if self.split is not None:
            return self.split.num_vertices
        return self.graph.num_vertices

    @property
    def edges(self) -> np.ndarray:
        """Edges (or arcs, when directed) of the output graph, 0-based."""
        if self.reduction is not None:
            return self.reduction.edges
        if self.split is not None:
            return self.split.edges
        return self.graph.arcs

    @property
    def directed(self) -> bool:
        return self.options.directed

    def describe_vertex(self, vertex: int) -> str:
        """Name of an output vertex in the paper's terms (e.g. ``x[1,2,3,1].in``)."""
        name = self.graph.layout.name
        if self.reduction is not None:
            group = self.reduction.group(vertex)
            inner = describe_split_vertex(self.split, int(group[0]), name)
            return inner if group.size == 1 else f"{inner}…({group.size} vertices)"
        if self.split is not None:
            return describe_split_vertex(self.split, vertex, name)
        return name(vertex)

    def decode(self, tour, *, split_tour: bool = False) -> Grid:
        """A Hamiltonian cycle of the output graph → the grid it encodes (not yet verified
        against the puzzle: with ``prune="none"`` the clues are not in the graph).
        ``split_tour``: the cycle is one of the 3-split graph instead (a solver searched it
        less the reduction's deleted edges); decoding starts there."""
        order = np.asarray(tour, dtype=np.int64)
        if split_tour and self.split is None:
            raise HcpError("a tour of the 3-split graph given for a directed pipeline")
        if self.reduction is not None and not split_tour:
            # The expanded tour is a tour of the split graph, checked there just below.
            order = expand_tour(self.reduction, order, check_expanded=False)
        if self.split is not None:
            order = directed_cycle_from_tour(self.split, order, self.graph.layout.name)
        return grid_from_cycle(self.graph, order)

    def tour_of_solution(self, solution: Grid) -> np.ndarray:
        """Forward witness map: a solved grid → a Hamiltonian cycle of the output graph."""
        order = cycle_from_solution(self.graph, solution)
        if self.split is not None:
            order = tour_from_cycle(self.split, order)
        if self.reduction is not None:
            order = compress_tour(self.reduction, order)
        return order


def build_hcp_pipeline(puzzle: Grid, options: HcpOptions = HcpOptions()) -> HcpPipeline:
    """Run the steps ``options`` asks for, recording sizes after each."""
    graph = haythorpe_graph(puzzle, options.prune)
    n = puzzle.size
    dv, da = directed_size(n)
    stages = [Stage("directed, blank grid", graph.num_vertices, len(blank_arcs(n)), (dv, da))]
    clues = puzzle.clue_count()
    if options.prune != "none":
        bound = f"at most 12(N-1) = {12 * (n - 1)} per clue, {12 * (n - 1) * clues:,} here" \
            if options.prune == "paper" else "7 per excluded (cell, digit)"
        stages.append(Stage(f"directed, pruned ({options.prune})", graph.num_vertices,
                            graph.num_arcs, None,
                            f"{graph.removed_arcs:,} arcs removed for {clues} clues ({bound})"))
    pipeline = HcpPipeline(puzzle, options, graph, stages=stages)
    is_paper_17 = format_grid(puzzle, "auto") == PAPER_17_CLUE and options.prune != "none"
    if options.directed:
        return pipeline
    split = haythorpe_split(graph, options.triple)
    pipeline.split = split
    plain = (3 * graph.num_vertices, 2 * graph.num_vertices + graph.num_arcs)
    if options.triple:
        stages.append(Stage("undirected, 3-split + triple trick", split.num_vertices,
                            split.num_edges, undirected_size(n, True),
                            f"plain 3-split would be {plain[0]:,} / {plain[1]:,}; the trick "
                            f"drops 2N^3 = {2 * n**3:,} vertices and edges"))
    else:
        stages.append(Stage("undirected, 3-split", split.num_vertices, split.num_edges,
                            undirected_size(n, False), "3V vertices, 2V + A edges" + (
                                f"; the paper's edges after its clue removal: "
                                f"{PAPER_17_UNREDUCED_EDGES:,}" if is_paper_17 else "")))
    if options.reduce:
        def describe(w: int) -> str:
            return describe_split_vertex(split, w, graph.layout.name)

        if options.closing:
            reduction = reduce_split_degree_two(split, describe=describe)
        else:
            reduction = reduce_degree_two(split.num_vertices, split.edges, False, describe)
        pipeline.reduction = reduction
        paper = PAPER_17_REDUCED if is_paper_17 else None
        rules = "rules 1-3" if options.closing else "paper's rules 1-2"
        if reduction.status == NO_CYCLE:
            note = f"no Hamiltonian cycle: {reduction.reason}"
        elif reduction.status == SOLVED:
            note = "the reduction alone determines the Hamiltonian cycle"
        else:
            note = (f"{reduction.deleted_edges:,} edges removed, {rules}, " + (
                f"{reduction.rounds} rounds" if reduction.rounds else "found on the digraph"))
        if paper:
            note += "; the paper's reduced graph for this puzzle: 12,036 / 19,301"
        stages.append(Stage("degree-2 reduction", reduction.num_vertices,
                            reduction.num_edges, paper, note))
    return pipeline


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


def option_groups(pipeline: HcpPipeline) -> np.ndarray | None:
    """The seven arcs of every option "digit k in cell (i,j)", as pairs of the output graph:
    a ``(N³, 7, 2)`` array (None after the degree-2 reduction, whose merged paths would have
    to be followed).

    Every Hamiltonian cycle of Haythorpe's graph uses the seven arcs of an option all
    together or not at all (§3 of the paper: the cycle is a solution, walked block by block,
    row by row, column by column); this also holds for every pruned graph, which only has
    fewer cycles, and for the 3-split, whose edge ``out(u)–in(v)`` is the arc u → v. Groups
    are over the blank graph's arcs: an option with an arc pruned is simply never used (see
    :func:`solvers.hamiltonian.together_clauses`)."""
    if pipeline.reduction is not None:
        return None
    n = pipeline.graph.size
    arcs = blank_arcs(n)[:7 * n**3].reshape(7, n**3, 2).transpose(1, 0, 2)
    if pipeline.options.directed:
        return arcs
    split = pipeline.split
    return np.stack([split.out_id[arcs[..., 0]], split.in_id[arcs[..., 1]]], axis=2)


def grid_pairs(pipeline: HcpPipeline, grid: Grid, *, on_split: bool = False) -> np.ndarray:
    """The pairs of the output graph that spell out ``grid``: a cycle decodes to ``grid``
    exactly when it uses all of them (the way back for uniqueness: a second cycle must
    leave one out).

    :func:`~reductions.hamiltonian.hcp.grid_from_cycle` reads cell (i, j) off the arc that enters
    ``v[i,j]``, the row exit ``x[i,j,k,0] → v[i,j]`` of the digit k+1 placed there, so the
    N² row exits of the grid's digits are the pairs: directed, those arcs; undirected, the
    3-split edges ``out(x[i,j,k,0]) – in(v[i,j])``; after the degree-2 reduction, the reduced
    edges they became — a pair that went inside a group (a path every cycle walks) is on
    every cycle and is left out, and none of them can be a deleted edge when ``grid`` is the
    grid of a cycle of this graph. ``on_split``: the 3-split's pairs even after a
    reduction (for a model that searches the 3-split, see ``solvers.routes.hcp``). Returns
    an ``(k, 2)`` int64 array, k ≤ N²."""
    n = pipeline.graph.size
    i, j = np.divmod(np.arange(n * n, dtype=np.int64), n)
    k = grid.values.ravel().astype(np.int64) - 1
    arcs = blank_arcs(n)[option_arc_index(n, ROW_EXIT, i, j, k)]
    if pipeline.options.directed:
        return arcs
    split = pipeline.split
    pairs = np.stack([split.out_id[arcs[:, 0]], split.in_id[arcs[:, 1]]], axis=1)
    if pipeline.reduction is None or on_split:
        return pairs
    group = pipeline.reduction.group_of()[pairs]
    return group[group[:, 0] != group[:, 1]]


def first_row_fixed(puzzle: Grid) -> Grid:
    """The clue-free grid with its first row set to 1..N (digit-symmetry breaking).

    With no clues, the digits are interchangeable: relabelling them maps any solution to one
    whose first row is 1..N. So solving this grid instead loses no solution class, and its
    answer also solves the empty puzzle; the graph is then pruned by N clues."""
    values = np.zeros_like(puzzle.values)
    values[0] = np.arange(1, puzzle.size + 1)
    return Grid(values, puzzle.shape)


# ----------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class SudokuToHcp(SolvesPuzzle):
    """Sudoku → Hamiltonian cycle as a :class:`~reductions.reduction.ReductionRule`
    (Haythorpe 2016: the graph §2, clue pruning §5, sizes §4, the 3-split and the degree-2
    reduction §7), through every step of :func:`build_hcp_pipeline`.

    Witness: a Hamiltonian cycle of the output graph, as its vertex order
    (:meth:`HcpPipeline.tour_of_solution` forward, :meth:`HcpPipeline.decode` back).
    Size formula (N×N, k clues, C candidates of the empty cells): directed
    6N³ + 5N² + 2N + 2 vertices and 19N³ + 2N² + 2N + 2 arcs for the blank graph
    (``prune="none"``), 7(N³ − k − C) arcs fewer with ``prune="peers"`` (seven per option a
    clue excludes); the paper's pruning keeps every vertex and removes at most 12(N − 1) arcs
    per clue (no exact count: only the vertices are predicted). The 3-split of V vertices
    and A arcs has 3V vertices and 2V + A edges, 2N³ fewer of each with the triple trick.
    The degree-2 reduced graph has no formula: the 3-split's counts are predicted instead
    (``split vertices``, ``split edges``).
    """

    target: HcpPipeline

    @classmethod
    def build(cls, puzzle: Grid, *, options: HcpOptions = HcpOptions()) -> "SudokuToHcp":
        """The graph of ``puzzle`` after the steps ``options`` asks for."""
        return cls(puzzle, build_hcp_pipeline(puzzle, options))

    def _directed_size(self) -> tuple[int, int | None]:
        n, prune = self.source.size, self.target.options.prune
        vertices, arcs = directed_size(n)
        if prune == "paper" or (prune == "peers" and clue_conflicts(self.source)):
            return vertices, None
        if prune == "peers":
            excluded = n ** 3 - self.source.clue_count() - eliminated_size(self.source)["options"]
            arcs -= 7 * excluded
        return vertices, arcs

    def expected_size(self) -> dict[str, int]:
        options = self.target.options
        vertices, arcs = self._directed_size()
        if options.directed:
            counts = {"vertices": vertices, "arcs": arcs}
        else:
            trick = 2 * self.source.size ** 3 if options.triple else 0
            counts = {"vertices": 3 * vertices - trick,
                      "edges": None if arcs is None else 2 * vertices + arcs - trick}
            if options.reduce:
                counts = {f"split {name}": count for name, count in counts.items()}
        return {name: count for name, count in counts.items() if count is not None}

    def actual_size(self) -> dict[str, int]:
        pipeline = self.target
        counts = {"vertices": pipeline.num_vertices,
                  "arcs" if pipeline.directed else "edges": len(pipeline.edges)}
        if pipeline.reduction is not None:
            counts.update({"split vertices": pipeline.split.num_vertices,
                           "split edges": pipeline.split.num_edges})
        return counts

    def forward(self, solution: Grid) -> np.ndarray:
        """The Hamiltonian cycle of a solved grid (:meth:`HcpPipeline.tour_of_solution`)."""
        checked_grid(self.source, solution, HcpError)
        return self.target.tour_of_solution(solution)

    def decode(self, witness, *, split_tour: bool = False) -> Grid:
        """The grid a Hamiltonian cycle encodes (:meth:`HcpPipeline.decode`; ``split_tour``
        as there), not checked against the puzzle."""
        return self.target.decode(witness, split_tour=split_tour)

    def extract(self, witness) -> Grid:
        """The grid a Hamiltonian cycle encodes (:meth:`decode`), checked against the puzzle
        (``prune="none"`` does not put the clues in the graph)."""
        return checked_grid(self.source, self.decode(witness), HcpError)

    @classmethod
    def estimate(cls, shape: Shape, **options) -> Estimate:
        """What building (``solve``: and searching) the graph of an N×N puzzle takes
        (:func:`reductions.hamiltonian.sizes.hcp_estimate`; options as there)."""
        from .sizes import hcp_estimate
        return hcp_estimate(shape.size, **options)
