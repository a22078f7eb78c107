"""Graph files for the Hamiltonian-cycle exports, in every form an outside tool reads.

:class:`GraphFormat` names them; :func:`write_graph` writes one (streamed in chunks, numbers
formatted by numpy as :func:`~solvers.formats.tsplib.format_int_rows` does, atomically):

* ``tsplib`` — TSPLIB ``TYPE : HCP``, ``EDGE_LIST``, 1-based (LKH-3, the FHCP set); undirected
  graphs only (TSPLIB has no directed HCP type). Written by
  :func:`solvers.formats.tsplib.write_hcp`.
* ``arcs`` — the plain arc list: ``#`` comments, ``V A``, then ``tail head`` per line, 1-based
  (:func:`solvers.formats.tsplib.write_arc_list`); for an undirected graph each edge once.
* ``concorde`` — Concorde's sparse edge file (``linkern -N 10 -g FILE`` / ``concorde -N 10``):
  ``ncount ecount``, then ``u v w`` per edge, 0-based, weight 0 on every edge (pairs not listed
  get Concorde's default length, larger than any listed one, so a tour of length 0 is a
  Hamiltonian cycle); undirected only (Concorde solves the symmetric TSP).
* ``graphml`` — GraphML, 0-based node ids ``"0"``, ``"1"``, ... (``networkx.read_graphml(path,
  node_type=int)``), ``edgedefault`` directed or undirected.
* ``edgelist`` — ``u v`` per line, 0-based, after ``#`` comment lines (one says the ids are
  0-based); ``networkx.read_edgelist(path, nodetype=int)`` (``create_using=nx.DiGraph`` for a
  directed graph). Every vertex of these graphs has an edge, so none is lost.

tsplib95 (the Python TSPLIB package) misreads ``EDGE_LIST`` sections (its open issue #18): read
the TSPLIB file with LKH or with :func:`solvers.formats.tsplib.read_hcp`, and use ``graphml``
or ``edgelist`` for networkx.
"""

from __future__ import annotations

import enum
from pathlib import Path

import numpy as np

from reductions.errors import UserError

from .atomic import OutputGroup, atomic_write
from .tsplib import CHUNK_ROWS, format_int_rows, write_arc_list, write_hcp


class GraphFormat(enum.StrEnum):
    """The file forms of an exported graph (``emit hcp --format``)."""

    TSPLIB = "tsplib"
    ARCS = "arcs"
    CONCORDE = "concorde"
    GRAPHML = "graphml"
    EDGELIST = "edgelist"


GRAPH_FORMATS = tuple(GraphFormat)
UNDIRECTED_ONLY = (GraphFormat.TSPLIB, GraphFormat.CONCORDE)
ZERO_BASED = (GraphFormat.CONCORDE, GraphFormat.GRAPHML, GraphFormat.EDGELIST)
SIDECAR_NAMES = {GraphFormat.TSPLIB: "tsplib-hcp", GraphFormat.ARCS: "arc-list",
                 GraphFormat.CONCORDE: "concorde-edges", GraphFormat.GRAPHML: "graphml",
                 GraphFormat.EDGELIST: "edgelist"}
"""The ``graph_format`` recorded in the sidecar (the first two are the names of version 1)."""


def default_format(directed: bool) -> GraphFormat:
    """TSPLIB HCP for undirected graphs, the arc list for directed ones."""
    return GraphFormat.ARCS if directed else GraphFormat.TSPLIB


def check_format(fmt: str, directed: bool) -> GraphFormat:
    """``fmt`` as a :class:`GraphFormat`, refusing in one line what cannot hold the graph."""
    try:
        fmt = GraphFormat(fmt)
    except ValueError:
        raise UserError(f"unknown graph format {fmt!r}; choose one of "
                        f"{', '.join(GRAPH_FORMATS)}") from None
    if directed and fmt in UNDIRECTED_ONLY:
        raise UserError(f"format {fmt} holds undirected graphs only; for the directed graph "
                        f"use arcs, graphml or edgelist")
    return fmt


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_concorde_edges(path: str | Path, num_vertices: int, edges, weight: int = 0, *,
                         group: OutputGroup | None = None) -> None:
    """Concorde's sparse edge file: ``ncount ecount``, then ``u v w`` per edge (0-based,
    ``weight`` on every edge)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    with atomic_write(path, "wb", group=group) as out:
        out.write(f"{num_vertices} {len(edges)}\n".encode())
        for lo in range(0, len(edges), CHUNK_ROWS):
            chunk = edges[lo:lo + CHUNK_ROWS]
            rows = np.concatenate([chunk, np.full((len(chunk), 1), weight, dtype=np.int64)],
                                  axis=1)
            out.write(format_int_rows(rows))


def _tagged(rows: np.ndarray, opening: bytes, between: bytes, closing: bytes) -> bytes:
    """``opening a between b closing`` per row (one or two columns), formatted by numpy:
    the spaces and newlines of :func:`format_int_rows` become the markup."""
    text = format_int_rows(rows)
    if not text:
        return b""
    text = text.replace(b" ", between).replace(b"\n", closing + b"\n" + opening)
    return opening + text[:-len(opening)]


def write_graphml(path: str | Path, num_vertices: int, edges, *, directed: bool,
                  comment: str = "", group: OutputGroup | None = None) -> None:
    """GraphML with nodes ``"0"`` .. ``"n-1"`` and one ``<edge>`` per edge (arc)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    kind = "directed" if directed else "undirected"
    with atomic_write(path, "wb", group=group) as out:
        out.write(b'<?xml version="1.0" encoding="UTF-8"?>\n')
        if comment:
            # "--" may not appear inside an XML comment.
            out.write(f"<!-- {_one_line(comment).replace('--', '- -')} -->\n"
                      .encode("utf-8"))
        out.write(b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                  + f'  <graph id="G" edgedefault="{kind}">\n'.encode())
        for lo in range(0, num_vertices, CHUNK_ROWS):
            ids = np.arange(lo, min(lo + CHUNK_ROWS, num_vertices), dtype=np.int64)
            out.write(_tagged(ids, b'    <node id="', b"", b'"/>'))
        for lo in range(0, len(edges), CHUNK_ROWS):
            out.write(_tagged(edges[lo:lo + CHUNK_ROWS], b'    <edge source="',
                              b'" target="', b'"/>'))
        out.write(b"  </graph>\n</graphml>\n")


def write_edgelist(path: str | Path, num_vertices: int, edges, *, directed: bool,
                   comment: str = "", group: OutputGroup | None = None) -> None:
    """``#`` comment lines (what the graph is, that ids are 0-based), then ``u v`` lines."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    kind = "arcs (tail head)" if directed else "edges"
    with atomic_write(path, "wb", group=group) as out:
        if comment:
            out.write(f"# {_one_line(comment)}\n".encode("utf-8"))
        out.write(f"# {num_vertices} vertices, ids 0-based (0..{num_vertices - 1}); "
                  f"{len(edges)} {kind}, one per line\n".encode())
        for lo in range(0, len(edges), CHUNK_ROWS):
            out.write(format_int_rows(edges[lo:lo + CHUNK_ROWS]))


def write_graph(path: str | Path, fmt: GraphFormat | str, num_vertices: int, edges, *,
                directed: bool, name: str = "graph", comment: str = "",
                group: OutputGroup | None = None) -> None:
    """Write the graph in ``fmt`` (see the module docstring)."""
    fmt = check_format(fmt, directed)
    if fmt == GraphFormat.TSPLIB:
        write_hcp(path, num_vertices, edges, name=name, comment=comment, group=group)
    elif fmt == GraphFormat.ARCS:
        write_arc_list(path, num_vertices, edges, [comment] if comment else [], group=group)
    elif fmt == GraphFormat.CONCORDE:
        write_concorde_edges(path, num_vertices, edges, group=group)
    elif fmt == GraphFormat.GRAPHML:
        write_graphml(path, num_vertices, edges, directed=directed, comment=comment,
                      group=group)
    else:
        write_edgelist(path, num_vertices, edges, directed=directed, comment=comment,
                       group=group)
