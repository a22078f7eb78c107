"""Labelled graphs in files: a plain edge list (read and write), DOT and GraphML (write).

**Edge-list format** (``.txt``)::

    # comment lines start with '#'
    directed p=p q=q          <- header: 'directed' or 'undirected', then optional p=NAME q=NAME
    p x1:in 1                 <- an edge: TAIL HEAD LABEL (three names without spaces)
    lonely                    <- a vertex without edges: one name alone on a line

The header is the first line that is not a comment or blank. ``p=`` and ``q=`` name two
special vertices (the ends of the path in the Theorem 4 gadget); they are vertices of the
graph even without edges. Names are any tokens without whitespace; labels are tokens too
(the gadget uses 0 and 1). Errors name the file and line. Writing is streamed and atomic.

**DOT** (:func:`write_dot`): Graphviz text, p and q drawn as double circles, labels on the
arcs (0-arcs dashed, in the two-label case), an optional set of arcs highlighted (e.g. a
path found). **GraphML** (:func:`write_graphml`): plain XML that networkx, yEd, Gephi read;
each edge has a ``label`` attribute, each node a ``role`` (p / q / empty).
:func:`to_networkx` returns a networkx multigraph (networkx is optional: ``pip install
sudoku-bridge[graphs]``).

A Theorem 4 gadget's files (``gadget nrpath``): :func:`write_gadget_files`, the edge list
headed by :func:`gadget_comments`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Hashable, Iterable, Sequence
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from reductions.errors import UserError
from reductions.nonrepetitive.labelled_graph import GraphError, LabelledGraph
from reductions.reading import DEFAULT_MEMORY_LIMIT, ReadLimit, read_text

from .atomic import OutputGroup, atomic_write

CHUNK = 65_536

EDGE_LIST_BYTES_PER_BYTE = 48
"""Memory per byte of an edge list while it is read: the text, the arrays of the bulk reader
(a byte mask or two and an int64 per name), or the line reader's lists of names."""


class EdgeListError(UserError):
    """A malformed edge-list file; the message names the file and line."""


@dataclass(frozen=True)
class EdgeListFile:
    """A graph read from a file, with its special vertices p and q (ids, or None)."""

    graph: LabelledGraph
    p: int | None = None
    q: int | None = None


# ----------------------------------------------------------------------------- edge list

def parse_labelled_edges(lines: Iterable[str], name: str = "<edges>") -> EdgeListFile:
    """Parse the edge-list format from lines of text.

    Vertices are numbered in the order their names first appear (p and q of the header
    first), labels likewise. The names are collected in one pass and numbered afterwards in
    bulk (``dict.fromkeys``), which keeps a million-edge file to about a second."""
    ends: list[str] = []                 # tail, head of every edge, in file order
    label_text: list[str] = []
    lonely: list[tuple[int, str]] = []   # (position in ``ends``, name) of edgeless vertices
    directed: bool | None = None
    header_ends: dict[str, str] = {}
    for number, raw in enumerate(lines, start=1):
        tokens = raw.split()
        if len(tokens) == 3 and directed is not None and not tokens[0].startswith("#"):
            ends += tokens[:2]
            label_text.append(tokens[2])
        elif not tokens or tokens[0].startswith("#"):
            continue
        elif directed is None:
            directed, header_ends = _parse_header(tokens, name, number)
        elif len(tokens) == 1:
            lonely.append((len(ends), tokens[0]))
        else:
            raise EdgeListError(f"{name} line {number}: expected 'TAIL HEAD LABEL' (or one "
                                f"vertex name), found {len(tokens)} fields: {raw.strip()[:60]!r}")
    if directed is None:
        raise EdgeListError(f"{name}: no header line ('directed' or 'undirected')")
    vertex_ids = _numbered(_in_file_order(header_ends, ends, lonely))
    label_ids = _numbered(label_text)
    edge_ends = _ids(vertex_ids, ends)
    graph = LabelledGraph(len(vertex_ids), edge_ends[0::2].copy(), edge_ends[1::2].copy(),
                          _ids(label_ids, label_text), directed, tuple(vertex_ids),
                          tuple(label_ids))
    p = vertex_ids[header_ends["p"]] if "p" in header_ends else None
    q = vertex_ids[header_ends["q"]] if "q" in header_ends else None
    return EdgeListFile(graph, p, q)


def _in_file_order(header_ends: dict[str, str], ends: list[str],
                   lonely: list[tuple[int, str]]) -> Iterable[str]:
    """Every vertex name in the order of the file: p and q, then edge ends with the edgeless
    vertices where their lines stand."""
    yield from header_ends.values()
    done = 0
    for position, vertex in lonely:
        yield from ends[done:position]
        yield vertex
        done = position
    yield from ends[done:]


def _numbered(names: Iterable[str]) -> dict[str, int]:
    """Each distinct name, numbered in order of first appearance."""
    distinct = dict.fromkeys(names)
    return dict(zip(distinct, range(len(distinct))))


def _ids(numbers: dict[str, int], names: list[str]) -> np.ndarray:
    return np.fromiter(map(numbers.__getitem__, names), dtype=np.int64, count=len(names))


def _parse_header(tokens: list[str], name: str, number: int) -> tuple[bool, dict[str, str]]:
    kind = tokens[0].lower()
    if kind not in ("directed", "undirected"):
        raise EdgeListError(f"{name} line {number}: expected the header 'directed' or "
                            f"'undirected' (optionally with p=NAME q=NAME), found "
                            f"{' '.join(tokens)[:60]!r}")
    ends: dict[str, str] = {}
    for token in tokens[1:]:
        key, sep, value = token.partition("=")
        if not sep or key not in ("p", "q") or not value:
            raise EdgeListError(f"{name} line {number}: header field {token!r} is not "
                                f"p=NAME or q=NAME")
        if key in ends:
            raise EdgeListError(f"{name} line {number}: {key}= given twice")
        ends[key] = value
    return kind == "directed", ends


def edge_list_limit(memory_limit: int) -> ReadLimit:
    """What an edge-list file may hold: what the memory limit allows."""
    return ReadLimit.share(memory_limit, what="an edge list", per_byte=EDGE_LIST_BYTES_PER_BYTE)


def read_labelled_edges(path: str | Path, *,
                        memory_limit: int = DEFAULT_MEMORY_LIMIT) -> EdgeListFile:
    """Read an edge-list file (at most :func:`edge_list_limit`); errors name the file and
    line.

    A file whose vertex names and labels are all plain integers (the common case for
    generated graphs) is read in bulk by :func:`_parse_integer_edges`; anything else, and any
    file with a mistake in it, goes line by line through :func:`parse_labelled_edges`, which
    names the line at fault."""
    text = read_text(path, edge_list_limit(memory_limit), EdgeListError)
    return (_parse_integer_edges(text, str(path))
            or parse_labelled_edges(text.splitlines(), str(path)))


# ----------------------------------------------------------------------------- bulk reading

_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\r\n\v\f")] = True
_INTEGER_TEXT = _SPACE.copy()
_INTEGER_TEXT[list(b"0123456789-")] = True
_DIGIT_1_9 = np.zeros(256, dtype=bool)
_DIGIT_1_9[list(b"123456789")] = True


def _parse_integer_edges(text: str, name: str) -> EdgeListFile | None:
    """The edge-list format, read with array operations when every name after the header is
    an integer written the one way ``str(int)`` writes it (``-`` only in front, no leading
    zeros: then the name *is* its number, and "7" and "07" cannot be confused) and every
    line holds 1 or 3 of them; otherwise None. Numbering is the line-by-line parser's: names
    in order of first appearance (p and q first), labels likewise."""
    header_at, header_line = _header_position(text)
    if header_line is None:
        return None
    try:
        directed, header_ends = _parse_header(header_line.split(), name, 0)
    except EdgeListError:
        return None          # the line parser reports it, naming the right line
    body = text[header_at:]
    try:
        data = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    if not np.all(_INTEGER_TEXT[data]):
        return None
    space = _SPACE[data]
    before = np.concatenate([[True], space[:-1]])
    after = np.concatenate([space[1:], [True]])
    starts = np.flatnonzero(~space & before)
    ends = np.flatnonzero(~space & after)
    minus = data == ord("-")
    next_byte = np.concatenate([data[1:], [ord(" ")]])
    leading_zero = (data == ord("0")) & before & ~after
    if (np.any(minus & ~before) or np.any(minus & ~_DIGIT_1_9[next_byte])
            or np.any(leading_zero) or np.any(ends - starts >= 18)):
        return None
    line_of = np.searchsorted(np.flatnonzero(data == ord("\n")), starts)
    per_line = np.bincount(line_of)
    if not np.all(np.isin(per_line, (0, 1, 3))):
        return None
    values = np.fromstring(body, dtype=np.int64, sep=" ")
    if len(values) != len(starts):
        return None
    # Which tokens are labels: the third of a three-token line.
    first_of_line = np.concatenate([[0], np.cumsum(per_line)[:-1]])
    position = np.arange(len(values)) - first_of_line[line_of]
    three = per_line[line_of] == 3
    is_label = three & (position == 2)
    head_values = [int(v) for v in header_ends.values() if _is_integer_name(v)]
    if len(head_values) != len(header_ends):
        return None
    vertex_ids, vertex_names = _first_appearance(
        np.concatenate([np.array(head_values, dtype=np.int64), values[~is_label]]))
    label_ids, label_names = _first_appearance(values[is_label])
    edge_vertex = vertex_ids[len(head_values):][three[~is_label]]
    graph = LabelledGraph(len(vertex_names), edge_vertex[0::2].copy(), edge_vertex[1::2].copy(),
                          label_ids, directed, vertex_names, label_names)
    ids = dict(zip(header_ends, vertex_ids[:len(head_values)].tolist()))
    return EdgeListFile(graph, ids.get("p"), ids.get("q"))


def _header_position(text: str) -> tuple[int, str | None]:
    """(offset just after the header line, the header line), skipping blank and comment
    lines; (len(text), None) without a header."""
    at = 0
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end + 1
        line = text[at:end]
        if line.strip() and not line.lstrip().startswith("#"):
            return end, line
        at = end
    return at, None


def _is_integer_name(name: str) -> bool:
    try:
        return str(int(name)) == name
    except ValueError:
        return False


def _first_appearance(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """(ids, names): each value numbered in order of first appearance, and the distinct
    values in that order as the names they were read from."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), ()
    low = int(values.min())
    span = int(values.max()) - low + 1
    if span <= 4 * len(values) + 1024:
        # Dense values (vertex numbers): a table over the range instead of a sort.
        first = np.full(span, len(values), dtype=np.int64)
        first[values[::-1] - low] = np.arange(len(values) - 1, -1, -1)
        present = np.flatnonzero(first < len(values))
        in_order = present[np.argsort(first[present], kind="stable")]
        rank = np.zeros(span, dtype=np.int64)
        rank[in_order] = np.arange(len(in_order))
        return rank[values - low], tuple(map(str, (in_order + low).tolist()))
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse].astype(np.int64), tuple(map(str, distinct[order].tolist()))


def _token(name: Hashable, what: str) -> str:
    text = str(name)
    if not text or any(ch.isspace() for ch in text) or text.startswith("#"):
        raise GraphError(f"{what} {text!r} cannot be written to an edge list: names must be "
                         f"non-empty, without spaces, and not start with '#'")
    return text


def write_labelled_edges(path: str | Path, graph: LabelledGraph, p: int | None = None,
                         q: int | None = None, comments: Iterable[str] = (), *,
                         group: OutputGroup | None = None) -> None:
    """Write ``graph`` in the edge-list format (atomic, streamed in chunks; with ``group``:
    together with the group's other files)."""
    vertex_text = [_token(graph.vertex_name(v), "vertex") for v in range(graph.num_vertices)]
    label_text = [_token(graph.label_name(x), "label") for x in range(graph.num_labels)]
    header = "directed" if graph.directed else "undirected"
    if p is not None:
        header += f" p={vertex_text[p]}"
    if q is not None:
        header += f" q={vertex_text[q]}"
    has_edge = bytearray(graph.num_vertices)
    for v in graph.tails.tolist() + graph.heads.tolist():
        has_edge[v] = 1
    with atomic_write(path, group=group) as out:
        for line in comments:
            out.write(f"# {line}\n" if line else "#\n")
        out.write(header + "\n")
        for v in range(graph.num_vertices):
            if not has_edge[v] and v not in (p, q):
                out.write(vertex_text[v] + "\n")
        for piece in edge_lines(graph, np.arange(graph.num_edges), vertex_text, label_text):
            out.write(piece)


def edge_lines(graph: LabelledGraph, edges: np.ndarray, vertex_text: Sequence[str] | None = None,
               label_text: Sequence[str] | None = None) -> Iterable[str]:
    """The lines ``TAIL HEAD LABEL`` of ``edges`` (edge numbers), in pieces of :data:`CHUNK`
    lines. Each piece is assembled by array operations from the names' bytes: a million
    lines formatted one by one in Python cost more than everything else in a run."""
    if vertex_text is None:
        vertex_text = list(map(str, graph.vertex_names or range(graph.num_vertices)))
    if label_text is None:
        label_text = [str(graph.label_name(x)) for x in range(graph.num_labels)]
    # One table of byte strings: "vertex " for every vertex, then "label\n" for every label.
    table = [f"{v} ".encode() for v in vertex_text] + [f"{x}\n".encode() for x in label_text]
    lengths = np.fromiter(map(len, table), dtype=np.int64, count=len(table))
    offsets = np.cumsum(lengths) - lengths
    pool = np.frombuffer(b"".join(table), dtype=np.uint8)
    edges = np.asarray(edges, dtype=np.int64)
    for start in range(0, len(edges), CHUNK):
        piece = edges[start:start + CHUNK]
        index = np.stack([graph.tails[piece], graph.heads[piece],
                          graph.labels[piece] + len(vertex_text)], axis=1).ravel()
        size = lengths[index]
        where = np.cumsum(size) - size
        # Output byte j of entry i comes from pool[offsets[i] + j].
        source = np.arange(int(size.sum())) + np.repeat(offsets[index] - where, size)
        yield pool[source].tobytes().decode()


# ----------------------------------------------------------------------------- DOT, GraphML

def _dot_id(name: Hashable) -> str:
    return '"' + str(name).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _highlighted_edges(graph: LabelledGraph, arcs: Iterable[int]) -> set[int]:
    edge = graph.arcs().edge
    return {int(edge[a]) for a in arcs}


def write_dot(path: str | Path, graph: LabelledGraph, p: int | None = None, q: int | None = None,
              highlight: Sequence[int] = (), title: str | None = None, *,
              group: OutputGroup | None = None) -> None:
    """Write Graphviz DOT atomically; ``highlight`` is a set of arcs (e.g. a path) drawn bold
    red."""
    marked = _highlighted_edges(graph, highlight)
    two_labels = {str(graph.label_name(x)) for x in range(graph.num_labels)} <= {"0", "1"}
    arrow = "->" if graph.directed else "--"
    with atomic_write(path, group=group) as out:
        out.write(f"{'digraph' if graph.directed else 'graph'} G {{\n")
        if title:
            out.write(f"  label={_dot_id(title)};\n  labelloc=t;\n")
        out.write("  rankdir=LR;\n  node [shape=circle, fontsize=10];\n"
                  "  edge [fontsize=9];\n")
        for v in range(graph.num_vertices):
            shape = ", shape=doublecircle" if v in (p, q) else ""
            out.write(f"  {_dot_id(graph.vertex_name(v))} [label="
                      f"{_dot_id(graph.vertex_name(v))}{shape}];\n")
        for e in range(graph.num_edges):
            tail, head, label = graph.edge_names(e)
            style = [f"label={_dot_id(label)}"]
            if two_labels and str(label) == "0":
                style.append("style=dashed")
            if e in marked:
                style.append("color=red, penwidth=2.5")
            out.write(f"  {_dot_id(tail)} {arrow} {_dot_id(head)} [{', '.join(style)}];\n")
        out.write("}\n")


def write_graphml(path: str | Path, graph: LabelledGraph, p: int | None = None,
                  q: int | None = None, *, group: OutputGroup | None = None) -> None:
    """Write GraphML atomically (node ids are the vertex names; edges carry ``label``)."""
    with atomic_write(path, group=group) as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                  '  <key id="label" for="edge" attr.name="label" attr.type="string"/>\n'
                  '  <key id="role" for="node" attr.name="role" attr.type="string"/>\n'
                  f'  <graph id="G" edgedefault="{"directed" if graph.directed else "undirected"}"'
                  '>\n')
        for v in range(graph.num_vertices):
            role = "p" if v == p else "q" if v == q else ""
            out.write(f'    <node id={quoteattr(str(graph.vertex_name(v)))}>'
                      f'<data key="role">{role}</data></node>\n')
        for e in range(graph.num_edges):
            tail, head, label = graph.edge_names(e)
            out.write(f'    <edge id="e{e}" source={quoteattr(str(tail))} '
                      f'target={quoteattr(str(head))}><data key="label">'
                      f'{escape(str(label))}</data></edge>\n')
        out.write("  </graph>\n</graphml>\n")


def to_networkx(graph: LabelledGraph):
    """The graph as a networkx MultiDiGraph / MultiGraph (nodes by name, edge attribute
    ``label``). Needs networkx (optional)."""
    try:
        import networkx as nx
    except ImportError:
        raise UserError("networkx is not installed (pip install "
                        "'sudoku-bridge[graphs]')") from None
    result = nx.MultiDiGraph() if graph.directed else nx.MultiGraph()
    result.add_nodes_from(graph.vertex_name(v) for v in range(graph.num_vertices))
    for e in range(graph.num_edges):
        tail, head, label = graph.edge_names(e)
        result.add_edge(tail, head, key=e, label=label)
    return result


# ----------------------------------------------------------------------------- gadget nrpath

def gadget_comments(gadget, source: str) -> list[str]:
    """The comment lines above a Theorem 4 gadget (a
    :class:`reductions.nonrepetitive.nrpath_gadget.NrPathGadget`) built from the formula in
    ``source``: what it is and how its paths (or cycles) read as assignments."""
    formula = gadget.formula
    comments = [
        f"Eppstein 2005 Theorem 4 gadget of {source}: {formula.num_vars} variables, "
        f"{formula.num_clauses} clauses",
        "a simple nonrepetitive path p -> q exists iff the formula is satisfiable;",
        "variable v is true iff the path takes the route ~xv:1, ~xv:2, ... (it uses up the",
        "~xv term vertices); term vertex cJtI:LIT is literal I of clause J",
    ]
    if gadget.is_cycle_version:
        comments.append("cycle version: the last arc 'q p 0' lies on a simple nonrepetitive "
                        "cycle iff the formula is satisfiable")
    return comments


def write_gadget_files(gadget, source: str, *, edges_path: str | Path,
                       dot_path: str | Path | None = None,
                       graphml_path: str | Path | None = None) -> None:
    """A Theorem 4 gadget built from the formula in ``source`` as an edge list with
    :func:`gadget_comments`, and optionally DOT and GraphML: all files or none."""
    graph = gadget.graph
    with OutputGroup() as outputs:
        write_labelled_edges(edges_path, graph, gadget.p, gadget.q,
                             gadget_comments(gadget, source), group=outputs)
        if dot_path:
            write_dot(dot_path, graph, gadget.p, gadget.q, title=f"nrpath gadget of {source}",
                      group=outputs)
        if graphml_path:
            write_graphml(graphml_path, graph, gadget.p, gadget.q, group=outputs)
