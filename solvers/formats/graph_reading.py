"""Read a graph for the ``hamiltonian`` command from any of the files Hamiltonian-cycle tools
exchange, told apart by their content (never by their name):

* TSPLIB ``TYPE : HCP`` with ``EDGE_DATA_FORMAT : EDGE_LIST`` (the default) or ``ADJ_LIST``
  (each list ``v w1 w2 ... -1``, the section ended by another ``-1``), ids 1-based — what LKH-3
  and the FHCP Challenge Set's ``.hcp`` files use;
* DIMACS: ``c`` comment lines, ``p N M`` (the FHCP ``.col`` form, its TSPLIB header kept as
  comments), ``p edge N M`` or ``p col N M``, then ``e U V`` lines, 1-based;
* the project's own exports (:mod:`solvers.formats.graph_files`): the arc list (``V A`` then
  ``tail head``, 1-based), Concorde's edge file (``N M`` then ``u v w``, 0-based) and the edge
  list (``#`` lines, one of them ``N vertices, ids 0-based``, then ``u v``, 0-based).

Each row is an edge, or an arc (tail, head) when the caller says the graph is directed
(TSPLIB has no directed HCP type: with ``--directed`` its pairs are read as arcs).

Inputs are untrusted. The file is read through :mod:`reductions.reading` (compression
recognised by content, size bounded by the memory limit) and parsed with numpy into one
``(m, 2)`` int64 array — never a Python object per edge, so 10⁷ edges fit in a few hundred
MB. A malformed header, a token that is not an integer, a vertex outside 1..N (0..N-1), an
edge count that disagrees with the header: :class:`~solvers.formats.tsplib.TsplibError`, one
line naming the file and the line. Loops and repeated edges are *kept* in the array and
counted (:func:`loops_and_repeats`): they cannot change whether a Hamiltonian cycle exists
(a loop is never on one, a second copy of an edge is never needed), so the command ignores
them with a note instead of refusing a file other tools accept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reductions.reading import DEFAULT_MEMORY_LIMIT
from reductions.hamiltonian.graphs import pair_keys

from .tsplib import (_END_MARKER, _Lines, _parse_ints, _read_header, _slow_numbers,
                     graph_limit)

__all__ = ["GraphFile", "loops_and_repeats", "read_any_graph"]


@dataclass(frozen=True)
class GraphFile:
    """A graph as read: ``pairs`` 0-based, loops and repeats included; ``form`` names the file
    form that was recognised."""

    num_vertices: int
    pairs: np.ndarray
    form: str


_TSPLIB_START = re.compile(r"[A-Za-z_]+\s*(:|$)")
_DIMACS_BAD_LINE = re.compile(
    r"^(?![ \t]*(?:c(?:[ \t][^\n]*)?|e[ \t]+\d+[ \t]+\d+[ \t]*|)\r?$)", re.M)
_DIMACS_COMMENT = re.compile(r"^[ \t]*c[^\n]*", re.M)
_EDGELIST_HEADER = re.compile(r"(\d+) vertices, ids 0-based")


def read_any_graph(path: str | Path, *,
                   memory_limit: int = DEFAULT_MEMORY_LIMIT) -> GraphFile:
    """Read the graph of ``path`` in whichever form it is (module docstring)."""
    f = _Lines(path, graph_limit(memory_limit))
    comments, first = [], None
    for index, raw, after in f.iter_lines():
        line = raw.strip()
        if line.startswith("#"):
            comments.append(line)
        elif line:
            first = (index, line, after)
            break
    if first is None:
        raise f.error(None, "no graph: the file is empty or only comments")
    index, line, after = first
    if line[0] in "cp" and (len(line) == 1 or line[1] in " \t"):
        return _dimacs(f)
    if line.startswith("<"):
        raise f.error(index + 1, "GraphML is not read here: export the graph as an edge "
                                 "list (networkx.write_edgelist) or TSPLIB")
    if _TSPLIB_START.match(line) and not line[0].isdigit():
        return _tsplib(f)
    for comment in comments:
        match = _EDGELIST_HEADER.search(comment)
        if match:
            return _edgelist(f, int(match.group(1)), index, after - len(raw) - 1)
    return _counted_list(f, index, line, after)


# ----------------------------------------------------------------------------- TSPLIB

def _tsplib(f: _Lines) -> GraphFile:
    keys, section, first, offset = _read_header(f, ("EDGE_DATA_SECTION",))
    kind = keys.get("TYPE", ("HCP", 0))
    if kind[0].upper() != "HCP":
        raise f.error(kind[1], f"TYPE is {kind[0]!r}: only HCP graphs are read (an edge "
                               f"list; with --directed its pairs are arcs)")
    n = _positive(f, keys)
    fmt = keys.get("EDGE_DATA_FORMAT", ("EDGE_LIST", 0))
    if fmt[0].upper() not in ("EDGE_LIST", "ADJ_LIST"):
        raise f.error(fmt[1], f"EDGE_DATA_FORMAT {fmt[0]!r} is not EDGE_LIST or ADJ_LIST")
    if section is None:
        raise f.error(None, "no EDGE_DATA_SECTION")
    if fmt[0].upper() == "ADJ_LIST":
        return _adjacency_lists(f, n, first, offset)
    body = f.text[offset:]
    marker = _END_MARKER.search(body)
    values = _numbers(f, body[:marker.start()] if marker else body, first)
    if values.size % 2:
        raise f.error(_token_line(f, first, values.size - 1), "the last edge has only one end")
    _in_range(f, values, 1, n, first)
    return GraphFile(n, values.reshape(-1, 2) - 1, "TSPLIB HCP (EDGE_LIST)")


def _adjacency_lists(f: _Lines, n: int, first: int, offset: int) -> GraphFile:
    """``v w1 w2 ... -1`` per list, ``-1`` after the last list (or EOF, or the end)."""
    body = f.text[offset:]
    eof = re.search(r"(?<!\S)EOF(?!\S)", body)
    values = _numbers(f, body[:eof.start()] if eof else body, first)
    ends = np.flatnonzero(values == -1)
    if ends.size == 0 or ends[-1] != values.size - 1:
        raise f.error(None, "ADJ_LIST: the last adjacency list is not ended by -1")
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts
    if lengths.size and lengths[-1] == 0:         # the closing -1 of the section
        starts, lengths = starts[:-1], lengths[:-1]
    if np.any(lengths == 0):
        bad = int(starts[np.flatnonzero(lengths == 0)[0]])
        raise f.error(_token_line(f, first, bad), "ADJ_LIST: an empty adjacency list "
                                                  "(-1 -1) before the end")
    _in_range(f, values, 1, n, first, skip=ends)
    owners = np.repeat(values[starts], lengths - 1)
    rows = np.ones(values.size, dtype=bool)
    rows[ends] = False
    rows[starts] = False
    return GraphFile(n, np.stack([owners, values[rows]], axis=1) - 1,
                     "TSPLIB HCP (ADJ_LIST)")


def _positive(f: _Lines, keys) -> int:
    if "DIMENSION" not in keys:
        raise f.error(None, "no DIMENSION line in the header")
    value, line = keys["DIMENSION"]
    if not value.isdigit() or int(value) < 1:
        raise f.error(line, f"DIMENSION must be a positive integer, got {value!r}")
    return int(value)


# ----------------------------------------------------------------------------- DIMACS

def _dimacs(f: _Lines) -> GraphFile:
    """``c`` lines, one ``p [edge|col] N M`` line, then ``e U V`` lines (comments between)."""
    problem = re.search(r"^[ \t]*p\b[^\n]*", f.text, re.M)
    if problem is None:
        raise f.error(None, "DIMACS: no 'p N M' (or 'p edge N M') line")
    p_line = f.text.count("\n", 0, problem.start()) + 1
    fields = problem.group(0).split()[1:]
    if fields and fields[0].lower() in ("edge", "edges", "col"):
        fields = fields[1:]
    if len(fields) != 2 or not all(x.isdigit() for x in fields) or int(fields[0]) < 1:
        raise f.error(p_line, f"expected 'p N M' or 'p edge N M' with N >= 1, got "
                              f"{problem.group(0).strip()[:60]!r}")
    n, m = int(fields[0]), int(fields[1])
    before = _DIMACS_BAD_LINE.search(f.text, 0, problem.start())
    if before is not None:
        raise f.error(f.text.count("\n", 0, before.start()) + 1,
                      "DIMACS: only 'c' comment lines may come before the 'p' line")
    rest = problem.end() + 1
    bad = _DIMACS_BAD_LINE.search(f.text, rest)
    if bad is not None and bad.start() < len(f.text):
        line = f.text.count("\n", 0, bad.start()) + 1
        raise f.error(line, f"expected 'e U V' (two vertex numbers) or a 'c' comment, got "
                            f"{f.lines[line - 1].strip()[:40]!r}")
    body = _DIMACS_COMMENT.sub("", f.text[rest:]).replace("e", " ")
    values = _parse_ints(body)
    if values is None:                     # every line was matched above: not expected
        raise f.error(None, "DIMACS: unreadable numbers")
    if values.size != 2 * m:
        raise f.error(p_line, f"announces {m} edges, the file has {values.size // 2}")
    bad_at = np.flatnonzero((values < 1) | (values > n))
    if bad_at.size:
        line = _dimacs_edge_line(f, rest, int(bad_at[0]) // 2)
        raise f.error(line, f"vertex {values[bad_at[0]]} is out of range 1..{n}")
    return GraphFile(n, values.reshape(-1, 2) - 1, "DIMACS")


def _dimacs_edge_line(f: _Lines, rest: int, edge: int) -> int:
    """The line of the ``edge``-th ``e`` line after character ``rest`` (an error's line)."""
    for k, match in enumerate(re.finditer(r"^[ \t]*e[ \t]", f.text[rest:], re.M)):
        if k == edge:
            return f.text.count("\n", 0, rest + match.start()) + 1
    return len(f.lines)


# ----------------------------------------------------------------------------- our exports

def _edgelist(f: _Lines, n: int, index: int, offset: int) -> GraphFile:
    """The edge list of :func:`~solvers.formats.graph_files.write_edgelist` (0-based), its
    data from line index ``index``, character ``offset``."""
    if n < 1:
        raise f.error(None, "the edge list's header announces 0 vertices")
    body = re.sub(r"^[ \t]*#[^\n]*", "", f.text[offset:], flags=re.M)
    values = _numbers(f, body, index)
    if values.size % 2:
        raise f.error(_token_line(f, index, values.size - 1), "the last edge has only one end")
    _in_range(f, values, 0, n - 1, index)
    return GraphFile(n, values.reshape(-1, 2), "edge list (0-based)")


def _counted_list(f: _Lines, index: int, line: str, after: int) -> GraphFile:
    """``V A`` then A pairs (the arc list, 1-based) or A triples (Concorde's edge file,
    0-based), told apart by the number of values."""
    head = line.split()
    if len(head) != 2 or not all(t.isdigit() for t in head) or int(head[0]) < 1:
        raise f.error(index + 1, f"not a graph file this command reads (TSPLIB HCP, DIMACS "
                                 f"'p edge', 'V A' arc list, Concorde edges, or an edge list "
                                 f"with a '# N vertices, ids 0-based' line): got "
                                 f"{line[:40]!r}")
    n, m = int(head[0]), int(head[1])
    values = _numbers(f, f.text[after:], index + 1)
    if values.size == 3 * m and m > 0:
        triples = values.reshape(-1, 3)
        _in_range(f, triples[:, :2].ravel(), 0, n - 1, index + 1, per_line=2)
        return GraphFile(n, triples[:, :2].copy(), "Concorde edge file (0-based)")
    if values.size != 2 * m:
        raise f.error(index + 1, f"announces {m} edges, the file has {values.size} numbers "
                                 f"after it (expected {2 * m} for 'u v' lines or {3 * m} "
                                 f"for Concorde's 'u v w')")
    _in_range(f, values, 1, n, index + 1)
    return GraphFile(n, values.reshape(-1, 2) - 1, "arc list (1-based)")


# ----------------------------------------------------------------------------- helpers

def _numbers(f: _Lines, text: str, first: int) -> np.ndarray:
    values = _parse_ints(text)
    if values is None:
        _slow_numbers(f, first, "graph data")
        raise f.error(None, "graph data: unreadable numbers")
    return values


def _in_range(f: _Lines, values: np.ndarray, lo: int, hi: int, first: int, *,
              skip: np.ndarray | None = None, per_line: int | None = None) -> None:
    """Every value within lo..hi (``skip``: positions not checked), else the line of the
    first that is not."""
    bad = (values < lo) | (values > hi)
    if skip is not None:
        bad[skip] = False
    where = np.flatnonzero(bad)
    if where.size:
        k = int(where[0])
        line = first + 1 + k // per_line if per_line else _token_line(f, first, k)
        raise f.error(line, f"vertex {values[k]} is out of range {lo}..{hi}")


def _token_line(f: _Lines, first: int, token: int) -> int:
    """The 1-based line of the ``token``-th number from line index ``first`` (comment lines
    starting with '#' hold none)."""
    count = 0
    for index in range(first, len(f.lines)):
        text = f.lines[index]
        if not text.lstrip().startswith("#"):
            count += len(text.split())
        if count > token:
            return index + 1
    return len(f.lines)


def loops_and_repeats(num_vertices: int, pairs: np.ndarray, directed: bool) -> tuple[int, int]:
    """How many rows of ``pairs`` are loops, and how many repeat an earlier arc (edge)."""
    loops = int(np.count_nonzero(pairs[:, 0] == pairs[:, 1]))
    keys = pair_keys(num_vertices, pairs[pairs[:, 0] != pairs[:, 1]], directed)
    return loops, int(keys.size - np.unique(keys).size)
