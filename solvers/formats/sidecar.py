"""The Sudoku → HCP pipeline, and the JSON sidecar that lets a tour be decoded later.

An exported graph is the end of a pipeline (:func:`build_hcp_pipeline`):

1. Haythorpe's directed graph of the puzzle, with clue pruning ``none``/``paper``/``peers``
   (:mod:`reductions.hcp`);
2. optionally the undirected 3-split, with or without the triple trick
   (:mod:`reductions.hcp_undirected`);
3. optionally the degree-2 reduction of the undirected graph (:mod:`reductions.graph_reduction`).

Every step is deterministic, so the sidecar ``GRAPH.json`` stores the *recipe* (puzzle, N,
block shape, pipeline options) rather than the vertex maps themselves, plus SHA-256 digests of
the graph file and of the edge array. :func:`load_hcp_export` rebuilds the pipeline from the
sidecar alone, checks that it reproduces exactly the graph in the file, and
:meth:`HcpPipeline.decode` maps a tour of that graph back through every step (expand groups →
undirected tour → directed cycle → grid). The sidecar also spells out the numbering for
people reading the files (``vertex_map``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reductions.errors import UserError, read_text
from reductions.graph_reduction import (NO_CYCLE, SOLVED, Reduction, compress_tour,
                                        expand_tour, reduce_degree_two)
from reductions.grid import Grid, Shape, format_grid, parse_grid
from reductions.hcp import (PRUNE_MODES, HaythorpeGraph, HcpError, blank_arcs,
                            cycle_from_solution, directed_size, grid_from_cycle,
                            haythorpe_graph, undirected_size)
from reductions.hcp_undirected import (SplitGraph, describe_split_vertex,
                                       directed_cycle_from_tour, haythorpe_split,
                                       tour_from_cycle)

from .atomic import atomic_write

SIDECAR_FORMAT = "sudoku-bridge hcp sidecar"
SIDECAR_VERSION = 1

PAPER_17_CLUE = (".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1......"
                 "..8.6...")
"""The 17-clue instance of Haythorpe's Fig. 2 (line 1 of Royle's list)."""
PAPER_17_REDUCED = (12_036, 19_301)
"""The paper's graph for it after clue removal, undirected, degree-2 reduced (§7)."""
PAPER_17_UNREDUCED_EDGES = 22_873


class SidecarError(UserError):
    """A missing or malformed sidecar, or a graph file that no longer matches it."""


@dataclass(frozen=True)
class HcpOptions:
    """How the graph is built: directed or undirected, triple trick, pruning, reduction
    (``closing``: the reduction's rule 3, see :mod:`reductions.graph_reduction`)."""

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
    def status(self) -> str:
        """``ok``; ``no cycle`` (the reduction proved it); ``solved`` (it found the cycle)."""
        if self.reduction is not None and self.reduction.status in (NO_CYCLE, SOLVED):
            return self.reduction.status
        return "ok"

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

    def decode(self, tour) -> Grid:
        """A Hamiltonian cycle of the output graph → the grid it encodes (not yet verified
        against the puzzle: with ``prune="none"`` the clues are not in the graph)."""
        order = np.asarray(tour, dtype=np.int64)
        if self.reduction is not None:
            order = expand_tour(self.reduction, order)
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
        reduction = reduce_degree_two(split.num_vertices, split.edges, options.closing,
                                      lambda w: describe_split_vertex(split, w,
                                                                      graph.layout.name))
        pipeline.reduction = reduction
        paper = PAPER_17_REDUCED if is_paper_17 else None
        rules = "rules 1-3" if options.closing else "paper's rules 1-2"
        if reduction.status == NO_CYCLE:
            note = f"no Hamiltonian cycle: {reduction.reason}"
        elif reduction.status == SOLVED:
            note = "the reduction alone determines the Hamiltonian cycle"
        else:
            note = (f"{reduction.deleted_edges:,} edges removed, {rules}, "
                    f"{reduction.rounds} rounds")
        if paper:
            note += "; the paper's reduced graph for this puzzle: 12,036 / 19,301"
        stages.append(Stage("degree-2 reduction", reduction.num_vertices,
                            reduction.num_edges, paper, note))
    return pipeline


# ----------------------------------------------------------------------------- sidecar

def sidecar_path(graph_path: str | Path) -> Path:
    """``GRAPH.json`` beside ``GRAPH``."""
    return Path(str(graph_path) + ".json")


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def edges_sha256(edges: np.ndarray) -> str:
    """Digest of a 0-based edge array (int64 little-endian, row-major)."""
    return hashlib.sha256(np.ascontiguousarray(edges, dtype="<i8").tobytes()).hexdigest()


def vertex_map_record(pipeline: HcpPipeline) -> dict:
    """How output vertex ids relate to the paper's vertices (documentation in the file;
    decoding rebuilds the maps from the recipe)."""
    record: dict = {"directed": pipeline.graph.layout.describe_numbering()}
    if pipeline.split is not None:
        record["undirected"] = (
            "directed vertex u becomes u.in, u.mid, u.out, numbered in that order for "
            "u = 0, 1, ... (3u, 3u+1, 3u+2); arc u->v becomes edge u.out - v.in" +
            ("; triple trick: the mid of every x[i,j,k,2] and y[i,j,k,2] (1-based) is "
             "dropped, joining its in and out, and the remaining vertices are renumbered "
             "consecutively in the same order" if pipeline.options.triple else ""))
    if pipeline.reduction is not None:
        record["reduced"] = (
            "each vertex is a path of undirected vertices (a single vertex, or a maximal run "
            "of degree-2 vertices merged); vertices numbered by their smallest member; "
            "rebuilt by reductions.graph_reduction.reduce_degree_two")
    record["file_ids"] = "ids in the graph and tour files are these ids + 1"
    return record


def write_sidecar(graph_path: str | Path, pipeline: HcpPipeline, graph_format: str) -> Path:
    """Write ``GRAPH.json`` for a graph file just written."""
    puzzle = pipeline.puzzle
    record = {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "graph_file": Path(graph_path).name,
        "graph_format": graph_format,
        "puzzle": format_grid(puzzle, "auto"),
        "size": puzzle.size,
        "box": str(puzzle.shape),
        "pipeline": pipeline.options.as_record(),
        "status": pipeline.status,
        "num_vertices": pipeline.num_vertices,
        "num_edges": int(len(pipeline.edges)),
        "edges_sha256": edges_sha256(pipeline.edges),
        "file_sha256": file_sha256(graph_path),
        "stages": [{"stage": s.name, "vertices": s.vertices, "edges": s.edges,
                    "paper": list(s.paper) if s.paper else None, "note": s.note}
                   for s in pipeline.stages],
        "vertex_map": vertex_map_record(pipeline),
    }
    path = sidecar_path(graph_path)
    with atomic_write(path) as out:
        json.dump(record, out, indent=1)
        out.write("\n")
    return path


def read_sidecar(graph_path: str | Path) -> dict:
    """The sidecar of a graph file, checked for the fields decoding needs."""
    path = sidecar_path(graph_path)
    if not path.exists():
        raise SidecarError(f"{path}: no such file — decoding needs the sidecar written by "
                           f"'sudoku-bridge emit hcp' beside {Path(graph_path).name}")
    try:
        record = json.loads(read_text(path, SidecarError))
    except json.JSONDecodeError as exc:
        raise SidecarError(f"{path} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(record, dict) or record.get("format") != SIDECAR_FORMAT:
        raise SidecarError(f"{path}: not a sudoku-bridge HCP sidecar")
    if record.get("version") != SIDECAR_VERSION:
        raise SidecarError(f"{path}: sidecar version {record.get('version')} is not supported "
                           f"(this program reads version {SIDECAR_VERSION})")
    needed = ("puzzle", "size", "box", "pipeline", "num_vertices", "num_edges",
              "edges_sha256", "file_sha256", "graph_format")
    missing = [key for key in needed if key not in record]
    if missing:
        raise SidecarError(f"{path}: missing field(s) {', '.join(missing)}")
    return record


def load_hcp_export(graph_path: str | Path) -> tuple[HcpPipeline, dict]:
    """Rebuild the pipeline of an exported graph from its sidecar, and check it reproduces
    the graph file exactly."""
    record = read_sidecar(graph_path)
    where = sidecar_path(graph_path)
    try:
        shape = Shape.parse(record["box"])
        puzzle = parse_grid(record["puzzle"], shape)
        options = HcpOptions.from_record(record["pipeline"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise SidecarError(f"{where}: malformed pipeline record ({exc})") from None
    except UserError as exc:
        raise SidecarError(f"{where}: {exc}") from None
    if not Path(graph_path).is_file():
        raise SidecarError(f"{graph_path}: no such file")
    if file_sha256(graph_path) != record["file_sha256"]:
        raise SidecarError(f"{graph_path} has changed since it was written (its SHA-256 "
                           f"differs from the one in {where.name})")
    pipeline = build_hcp_pipeline(puzzle, options)
    if (pipeline.num_vertices != record["num_vertices"]
            or edges_sha256(pipeline.edges) != record["edges_sha256"]):
        raise SidecarError(f"rebuilding the graph from {where.name} does not reproduce "
                           f"{Path(graph_path).name} (was it written by another version of "
                           f"sudoku-bridge?)")
    return pipeline, record
