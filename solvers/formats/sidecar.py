"""The JSON sidecar that lets a tour of an exported Hamiltonian-cycle graph be decoded later.

An exported graph is the end of a pipeline (:mod:`reductions.hamiltonian.hcp_pipeline`). Every step
is deterministic, so the sidecar ``GRAPH.json`` stores the *recipe* (the puzzle, N and the block
shape: :class:`~reductions.sudoku.puzzle_record.PuzzleRecord`'s JSON fields; the pipeline options)
rather than the vertex maps themselves, plus SHA-256 digests of the graph file and of the
edge array. :func:`load_hcp_export` rebuilds the pipeline from the sidecar alone, checks that
it reproduces exactly the graph in the file, and :meth:`HcpPipeline.decode` maps a tour of
that graph back through every step (expand groups → undirected tour → directed cycle →
grid). The sidecar also spells out the numbering for people reading the files
(``vertex_map``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from reductions.errors import UserError
from reductions.sudoku.grid import MAX_GRID_TEXT, MAX_SIZE
from reductions.hamiltonian.hcp_pipeline import HcpOptions, HcpPipeline, build_hcp_pipeline
from reductions.sudoku.puzzle_record import PuzzleRecord
from reductions.reading import (DEFAULT_MEMORY_LIMIT, HEADER_BYTES, ReadLimit, is_stdin,
                                read_text)
from reductions.estimate import ensure_fits
from reductions.hamiltonian.sizes import hcp_estimate
from reductions.status import Status

from .atomic import OutputGroup, atomic_write

SIDECAR_FORMAT = "sudoku-bridge hcp sidecar"
SIDECAR_VERSION = 1
SIDECAR_STATUS = {Status.UNKNOWN: "ok", Status.NO_SOLUTION: "no cycle", Status.SOLVED: "solved"}
"""The sidecar's ``status`` field: the words it has always held for what building the graph
proved (``ok``: nothing, the graph is for a solver)."""
ZERO_BASED_NAMES = ("concorde-edges", "graphml", "edgelist")
"""Sidecar ``graph_format`` values whose files number vertices from 0."""


class SidecarError(UserError):
    """A missing or malformed sidecar, or a graph file that no longer matches it."""


SIDECAR_LIMIT = ReadLimit(2 * MAX_GRID_TEXT + HEADER_BYTES,
                          f"more than any sidecar holds (its puzzle, at most {MAX_SIZE}x"
                          f"{MAX_SIZE}, and a few lines about the graph)")
"""The most a sidecar can take: its puzzle written out (JSON escapes at most double it) and a
few short fields."""

GRAPH_FILE_BYTES_PER_EDGE = 256
"""The most one edge takes in any graph format written here (GraphML's is the longest, about
80 bytes): bounds the graph file whose digest ``decode hcp`` checks."""


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


def vertex_map_record(pipeline: HcpPipeline, zero_based: bool = False) -> dict:
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
            "rebuilt by reductions.hamiltonian.graph_reduction.reduce_degree_two")
    record["file_ids"] = ("ids in the graph file are these ids (from 0)" if zero_based else
                          "ids in the graph file are these ids + 1")
    record["tour_ids"] = ("decode hcp reads a tour in the form the tool writes: TSPLIB TOUR "
                          "(from 1), Concorde's or linkern's output (from 0), or a plain list "
                          "(from 0 or 1, told by whether it holds 0 or n)")
    return record


def write_sidecar(graph_path: str | Path, pipeline: HcpPipeline, graph_format: str, *,
                  group: OutputGroup | None = None) -> Path:
    """Write ``GRAPH.json`` for a graph file just written. With ``group`` (the graph's own),
    the digest is taken of the graph's new content, and both files appear together."""
    graph_content = group.content_path(graph_path) if group is not None else graph_path
    record = {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "graph_file": Path(graph_path).name,
        "graph_format": graph_format,
        **PuzzleRecord(pipeline.puzzle).json_fields(),
        "pipeline": pipeline.options.as_record(),
        "status": SIDECAR_STATUS[pipeline.status],
        "num_vertices": pipeline.num_vertices,
        "num_edges": int(len(pipeline.edges)),
        "edges_sha256": edges_sha256(pipeline.edges),
        "file_sha256": file_sha256(graph_content),
        "stages": [{"stage": s.name, "vertices": s.vertices, "edges": s.edges,
                    "paper": list(s.paper) if s.paper else None, "note": s.note}
                   for s in pipeline.stages],
        "vertex_map": vertex_map_record(pipeline, graph_format in ZERO_BASED_NAMES),
    }
    path = sidecar_path(graph_path)
    with atomic_write(path, group=group) as out:
        json.dump(record, out, indent=1)
        out.write("\n")
    return path


def read_sidecar(graph_path: str | Path) -> dict:
    """The sidecar of a graph file, checked for the fields decoding needs."""
    if is_stdin(graph_path):
        raise SidecarError("-: decoding needs the graph's own file, not standard input: its "
                           "sidecar GRAPH.json lies beside it (the tour may be '-')")
    path = sidecar_path(graph_path)
    if not path.exists():
        raise SidecarError(f"{path}: no such file — decoding needs the sidecar written by "
                           f"'sudoku-bridge emit hcp' beside {Path(graph_path).name}")
    text = read_text(path, SIDECAR_LIMIT, SidecarError)
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SidecarError(f"{path} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except ValueError as exc:          # e.g. an integer of thousands of digits
        raise SidecarError(f"{path}: not a valid sidecar ({str(exc).splitlines()[0]})") \
            from None
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


def load_hcp_export(graph_path: str | Path, *,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT) -> tuple[HcpPipeline, dict]:
    """Rebuild the pipeline of an exported graph from its sidecar, and check it reproduces
    the graph file exactly. The graph the sidecar describes is estimated against
    ``memory_limit`` before it is rebuilt, and the graph file's size against what that graph
    can take before its digest is computed."""
    record = read_sidecar(graph_path)
    where = sidecar_path(graph_path)
    puzzle = PuzzleRecord.from_json_fields(record, where=str(where), error=SidecarError).puzzle
    try:
        options = HcpOptions.from_record(record["pipeline"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise SidecarError(f"{where}: malformed pipeline record ({exc})") from None
    except UserError as exc:
        raise SidecarError(f"{where}: {exc}") from None
    graph = hcp_estimate(puzzle.size, directed=options.directed, triple=options.triple,
                         reduce=options.reduce)
    ensure_fits(graph, memory_limit, f"decode hcp: rebuilding {Path(graph_path).name} from "
                                     f"{where.name}")
    if not Path(graph_path).is_file():
        raise SidecarError(f"{graph_path}: no such file")
    bound = ReadLimit(HEADER_BYTES + GRAPH_FILE_BYTES_PER_EDGE * graph.counts[-1],
                      f"more than the graph its sidecar describes can take")
    if Path(graph_path).stat().st_size > bound.bytes:
        raise bound.refusal(str(graph_path))
    if file_sha256(graph_path) != record["file_sha256"]:
        raise SidecarError(f"{graph_path} does not match its sidecar {where.name} (the "
                           f"SHA-256 differs): the graph was changed since it was written, or "
                           f"'emit hcp' was killed between putting the new sidecar and the "
                           f"new graph in place; write both again")
    pipeline = build_hcp_pipeline(puzzle, options)
    if (pipeline.num_vertices != record["num_vertices"]
            or edges_sha256(pipeline.edges) != record["edges_sha256"]):
        raise SidecarError(f"rebuilding the graph from {where.name} does not reproduce "
                           f"{Path(graph_path).name} (was it written by another version of "
                           f"sudoku-bridge?)")
    return pipeline, record
