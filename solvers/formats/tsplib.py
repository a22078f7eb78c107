"""TSPLIB files for Hamiltonian cycle problems: HCP graphs, tours, and plain arc lists.

* :func:`write_hcp` — ``TYPE : HCP`` with ``EDGE_DATA_FORMAT : EDGE_LIST``, vertices numbered
  1..DIMENSION, one ``u v`` per line, closed by ``-1`` and ``EOF`` (the form LKH-3 and the
  FHCP challenge set use). Written in chunks (numbers formatted by numpy, no Python object per
  edge) through :func:`~solvers.formats.atomic.atomic_write`.
* :func:`read_hcp` — the same format back, strictly (errors name the file and line).
* :func:`write_tour` / :func:`read_tour` — ``TYPE : TOUR`` files (``TOUR_SECTION``, 1-based ids,
  ``-1``). :func:`read_tour` also accepts Concorde's solution files (``concorde -o``: the
  count, then 0-based ids). It checks that the tour is a permutation and, given the graph,
  that consecutive vertices (and last → first) are joined; errors name the first bad line or
  pair.
* :func:`write_arc_list` / :func:`read_arc_list` — a directed graph as plain text: ``#``
  comment lines, a line ``V A``, then one ``tail head`` per line (1-based).

Arrays are 0-based in memory (``(m, 2)`` int64), 1-based in files.
"""

from __future__ import annotations

import enum
import functools
import re
import warnings
from pathlib import Path

import numpy as np

from reductions.errors import UserError
from reductions.hamiltonian.graphs import non_edge_steps
from reductions.reading import (DEFAULT_MEMORY_LIMIT, HEADER_BYTES, NUMBER_BYTES, STDIN_NAME,
                                ReadLimit, is_stdin, read_text)

from .atomic import OutputGroup, atomic_write

CHUNK_ROWS = 1 << 19

GRAPH_BYTES_PER_BYTE = 8
"""Memory per byte of a graph file read back (:func:`read_hcp`, :func:`read_arc_list`): the
text, and an int64 (8 bytes) for each number of a few digits and its sorted copy."""


class TsplibError(UserError):
    """A malformed TSPLIB/arc-list file or a tour that does not fit its graph."""


# ----------------------------------------------------------------------------- writing

def format_int_rows(rows: np.ndarray) -> bytes:
    """Rows of non-negative integers as text, one line per row, fields separated by a space.

    Vectorised: every number is written right-aligned in a fixed-width byte field, and the
    padding is dropped with one boolean mask.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim == 1:
        rows = rows[:, None]
    k, c = rows.shape
    if k == 0:
        return b""
    if rows.min() < 0:
        raise ValueError("format_int_rows takes non-negative integers only")
    width = len(str(int(rows.max())))
    field = np.empty((k, c, width + 1), dtype=np.uint8)
    ndigits = np.ones((k, c), dtype=np.int64)
    rest = rows.copy()
    for p in range(width - 1, -1, -1):
        field[:, :, p] = rest % 10 + ord("0")
        rest //= 10
        if p:
            ndigits += rest > 0
    field[:, :, width] = ord(" ")
    field[:, -1, width] = ord("\n")
    keep = np.empty((k, c, width + 1), dtype=bool)
    keep[:, :, :width] = np.arange(width) >= (width - ndigits)[:, :, None]
    keep[:, :, width] = True
    return field[keep].tobytes()


def _header(pairs: list[tuple[str, object]]) -> bytes:
    lines = []
    for key, value in pairs:
        text = " ".join(str(value).split())          # one line, no stray newlines
        lines.append(f"{key} : {text}\n")
    return "".join(lines).encode("utf-8")


def write_hcp(path: str | Path, num_vertices: int, edges: np.ndarray, name: str = "graph",
              comment: str = "", *, group: OutputGroup | None = None) -> None:
    """Write an undirected graph as a TSPLIB HCP file (EDGE_LIST, 1-based), atomically (with
    ``group``: together with the group's other files)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    header = [("NAME", name)]
    if comment:
        header.append(("COMMENT", comment))
    header += [("TYPE", "HCP"), ("DIMENSION", num_vertices),
               ("EDGE_DATA_FORMAT", "EDGE_LIST")]
    with atomic_write(path, "wb", group=group) as out:
        out.write(_header(header))
        out.write(b"EDGE_DATA_SECTION\n")
        for lo in range(0, len(edges), CHUNK_ROWS):
            out.write(format_int_rows(edges[lo:lo + CHUNK_ROWS] + 1))
        out.write(b"-1\nEOF\n")


def write_tour(path: str | Path, order, name: str = "tour", comment: str = "") -> None:
    """Write a tour (0-based vertex order) as a TSPLIB TOUR file, atomically."""
    order = np.asarray(order, dtype=np.int64)
    header = [("NAME", name)]
    if comment:
        header.append(("COMMENT", comment))
    header += [("TYPE", "TOUR"), ("DIMENSION", order.size)]
    with atomic_write(path, "wb") as out:
        out.write(_header(header))
        out.write(b"TOUR_SECTION\n")
        for lo in range(0, order.size, CHUNK_ROWS):
            out.write(format_int_rows(order[lo:lo + CHUNK_ROWS] + 1))
        out.write(b"-1\nEOF\n")


def write_arc_list(path: str | Path, num_vertices: int, arcs: np.ndarray,
                   comments: list[str] = (), *, group: OutputGroup | None = None) -> None:
    """Write a directed graph as ``#`` comments, ``V A``, then ``tail head`` lines (1-based),
    atomically (with ``group``: together with the group's other files)."""
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    with atomic_write(path, "wb", group=group) as out:
        for line in comments:
            out.write(("# " + " ".join(line.split()) + "\n").encode("utf-8"))
        out.write(f"{num_vertices} {len(arcs)}\n".encode())
        for lo in range(0, len(arcs), CHUNK_ROWS):
            out.write(format_int_rows(arcs[lo:lo + CHUNK_ROWS] + 1))


# ----------------------------------------------------------------------------- reading

_KEYWORD = re.compile(r"^\s*([A-Za-z_]+)\s*(?::\s*(.*?))?\s*$")
_END_MARKER = re.compile(r"(?<!\S)(?:-1|EOF)(?!\S)")


class _Lines:
    """A file's text, with 1-based line numbers for error messages (the list of lines is
    only built when an error needs it: big files are parsed straight from the text)."""

    def __init__(self, path: str | Path, limit: ReadLimit):
        self.path = STDIN_NAME if is_stdin(path) else str(path)     # as messages name it
        self.text = read_text(path, limit, TsplibError)

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def iter_lines(self, start: int = 0):
        """(line index, line, offset of the next line) from character ``start`` on."""
        text, pos = self.text, start
        index = self.text.count("\n", 0, start)
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            yield index, text[pos:end], end + 1
            pos, index = end + 1, index + 1

    def error(self, line: int | None, message: str) -> TsplibError:
        where = f"{self.path} line {line}" if line else self.path
        return TsplibError(f"{where}: {message}")


def _read_header(f: _Lines, sections: tuple[str, ...]) -> tuple[dict[str, tuple[str, int]],
                                                                  str | None, int, int]:
    """Keywords (value, line) up to the first data section; returns (keywords, section,
    index of the first data line, its character offset)."""
    keys: dict[str, tuple[str, int]] = {}
    index, after = -1, 0
    for index, raw, after in f.iter_lines():
        line = raw.strip()
        if not line:
            continue
        match = _KEYWORD.match(line)
        if not match:
            raise f.error(index + 1, f"expected 'KEYWORD : value' or a section name, got "
                                     f"{line[:40]!r}")
        key, value = match.group(1).upper(), (match.group(2) or "").strip()
        if key in sections:
            return keys, key, index + 1, after
        if key == "EOF":
            return keys, None, index + 1, after
        if match.group(2) is None:
            raise f.error(index + 1, f"unknown section {key!r} (expected "
                                     f"{' or '.join(sections)})")
        keys[key] = (value, index + 1)
    return keys, None, index + 1, len(f.text)


def _dimension(f: _Lines, keys, required: bool = True) -> int | None:
    if "DIMENSION" not in keys:
        if required:
            raise f.error(None, "no DIMENSION line in the header")
        return None
    value, line = keys["DIMENSION"]
    if not value.isdigit() or int(value) < 1:
        raise f.error(line, f"DIMENSION must be a positive integer, got {value!r}")
    return int(value)


def _parse_ints(text: str) -> np.ndarray | None:
    """Whitespace-separated integers, parsed by numpy in one pass; None when some token is
    not an integer (the caller then reports the line)."""
    if not text.strip():
        return np.zeros(0, dtype=np.int64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # a partial parse warns: make it fail
            return np.fromstring(text, dtype=np.int64, sep=" ")
    except (ValueError, DeprecationWarning, AttributeError):
        return None


def _slow_numbers(f: _Lines, first: int, what: str) -> None:
    """Walk the data lines from index ``first`` and raise on the first bad token."""
    for index in range(first, len(f.lines)):
        for token in f.lines[index].split():
            if token in ("-1", "EOF"):
                return
            try:
                int(token)
            except ValueError:
                raise f.error(index + 1, f"{what}: {token!r} is not an integer") from None


def _section_numbers(f: _Lines, first: int, offset: int, what: str) -> tuple[np.ndarray,
                                                                               callable]:
    """The integers of a data section (from line index ``first``, character ``offset``) up
    to ``-1``/``EOF``/the end, and ``line_of(token index)`` for error messages."""
    body = f.text[offset:]
    marker = _END_MARKER.search(body)
    chunk = body[:marker.start()] if marker else body
    values = _parse_ints(chunk)
    if values is None:
        _slow_numbers(f, first, what)
        raise f.error(None, f"{what}: unreadable numbers")       # not reached

    def line_of(token_index: int) -> int:
        count = 0
        for index in range(first, len(f.lines)):
            count += len(f.lines[index].split())
            if count > token_index:
                return index + 1
        return len(f.lines)

    return values, line_of


def graph_limit(memory_limit: int) -> ReadLimit:
    """What a graph file may hold: what the memory limit allows."""
    return ReadLimit.share(memory_limit, what="a graph file", per_byte=GRAPH_BYTES_PER_BYTE)


def tour_limit(num_vertices: int) -> ReadLimit:
    """The most a tour of ``num_vertices`` vertices can take, in its longest form (linkern's
    ``n n`` then ``u v w`` per vertex), with a header."""
    return ReadLimit(HEADER_BYTES + (3 * num_vertices + 2) * NUMBER_BYTES,
                     f"more than a tour of {num_vertices:,} vertices can take")


def read_hcp(path: str | Path, *,
             memory_limit: int = DEFAULT_MEMORY_LIMIT) -> tuple[int, np.ndarray]:
    """Read a TSPLIB HCP file (EDGE_LIST): (number of vertices, 0-based edges)."""
    f = _Lines(path, graph_limit(memory_limit))
    keys, section, first, offset = _read_header(f, ("EDGE_DATA_SECTION",))
    if "TYPE" in keys and keys["TYPE"][0].upper() != "HCP":
        raise f.error(keys["TYPE"][1], f"TYPE is {keys['TYPE'][0]!r}, expected HCP")
    n = _dimension(f, keys)
    fmt = keys.get("EDGE_DATA_FORMAT", ("EDGE_LIST", 0))
    if fmt[0].upper() != "EDGE_LIST":
        raise f.error(fmt[1], f"EDGE_DATA_FORMAT {fmt[0]} is not supported (only EDGE_LIST)")
    if section is None:
        raise f.error(None, "no EDGE_DATA_SECTION")
    values, line_of = _section_numbers(f, first, offset, "EDGE_DATA_SECTION")
    if values.size % 2:
        raise f.error(line_of(values.size - 1), "the last edge has only one end")
    bad = np.flatnonzero((values < 1) | (values > n))
    if bad.size:
        raise f.error(line_of(int(bad[0])), f"vertex {values[bad[0]]} is out of range "
                                            f"1..{n}")
    edges = values.reshape(-1, 2) - 1
    loops = np.flatnonzero(edges[:, 0] == edges[:, 1])
    if loops.size:
        raise f.error(line_of(2 * int(loops[0])), f"edge {edges[loops[0], 0] + 1} "
                                                  f"{edges[loops[0], 1] + 1} is a loop")
    keys_ = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    order = np.argsort(keys_, kind="stable")
    repeat = np.flatnonzero(keys_[order][1:] == keys_[order][:-1])
    if repeat.size:
        second = int(order[repeat[0] + 1])
        first_seen = int(order[repeat[0]])
        raise f.error(line_of(2 * second), f"edge {edges[second, 0] + 1} "
                                           f"{edges[second, 1] + 1} repeats the edge of line "
                                           f"{line_of(2 * first_seen)}")
    return n, edges


def read_arc_list(path: str | Path, *,
                  memory_limit: int = DEFAULT_MEMORY_LIMIT) -> tuple[int, np.ndarray]:
    """Read a plain arc list written by :func:`write_arc_list`: (V, 0-based arcs)."""
    f = _Lines(path, graph_limit(memory_limit))
    for index, raw, after in f.iter_lines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            break
    else:
        raise f.error(None, "no 'V A' line")
    head = raw.split()
    if len(head) != 2 or not all(t.isdigit() for t in head):
        raise f.error(index + 1, f"expected 'VERTICES ARCS', got {raw.strip()!r}")
    n, m = int(head[0]), int(head[1])
    values = _parse_ints(f.text[after:])
    if values is None:
        _slow_numbers(f, index + 1, "arc list")
        raise f.error(None, "arc list: unreadable numbers")       # not reached
    if values.size != 2 * m:
        raise f.error(index + 1, f"announces {m} arcs, the file has {values.size / 2:g}")
    bad = np.flatnonzero((values < 1) | (values > n))
    if bad.size:
        raise f.error(index + 2 + int(bad[0]) // 2, f"vertex {values[bad[0]]} is out of "
                                                   f"range 1..{n}")
    return n, values.reshape(-1, 2) - 1


class TourForm(enum.StrEnum):
    """The tour files :func:`read_tour` recognises, by their content."""

    TSPLIB = "TSPLIB TOUR"
    CONCORDE = "Concorde order"
    LINKERN = "linkern edge list"
    VERTEX_LIST = "vertex list"


TOUR_FORMS_HELP = ("a TSPLIB TOUR (TOUR_SECTION, ids from 1, ended by -1 or EOF); Concorde's "
                   "-o order (the vertex count, then the ids from 0); linkern's -o edge list "
                   "(a line 'n n', then n lines 'u v w' in tour order, ids from 0); or a "
                   "plain list of the n vertex ids (from 0 or from 1)")


def read_tour(path: str | Path, num_vertices: int, edges: np.ndarray | None = None,
              directed: bool = False, *, limit: ReadLimit | None = None) -> np.ndarray:
    """Read a tour as a 0-based vertex order, recognising its form by content
    (:func:`tour_numbers`), at most :func:`tour_limit` (``limit``: a tighter one, e.g. the
    cap on a program's output).

    Checks: DIMENSION (when given) equals ``num_vertices``; every vertex exactly once; with
    ``edges``, each consecutive pair and the closing pair is an edge (an arc, if
    ``directed``). :class:`TsplibError` names the first bad line or pair.
    """
    bound = tour_limit(num_vertices)
    f = _Lines(path, bound if limit is None else bound.within(limit))
    form, values, base, line_of = tour_numbers(f, num_vertices)
    bad = np.flatnonzero((values < base) | (values >= num_vertices + base))
    if bad.size:
        raise f.error(line_of(int(bad[0])), f"vertex {values[bad[0]]} is out of range "
                                            f"{base}..{num_vertices - 1 + base} ({form})")
    order = values - base
    firsts = np.full(num_vertices, order.size, dtype=np.int64)
    np.minimum.at(firsts, order, np.arange(order.size))
    repeats = np.flatnonzero(firsts[order] != np.arange(order.size))
    if repeats.size:
        p = int(repeats[0])
        raise f.error(line_of(p), f"vertex {values[p]} appears a second time (first at line "
                                  f"{line_of(int(firsts[order[p]]))})")
    if order.size != num_vertices:
        missing = np.setdiff1d(np.arange(num_vertices), order)
        raise f.error(None, f"the tour has {order.size} vertices, the graph {num_vertices} "
                            f"(vertex {missing[0] + base} is missing)")
    if edges is not None:
        non_edges = non_edge_steps(num_vertices, edges, order, directed)
        if non_edges.size:
            p = int(non_edges[0])
            q = (p + 1) % order.size
            kind = "an arc" if directed else "an edge"
            raise f.error(line_of(q) if q else line_of(p),
                          f"vertices {order[p] + base} (line {line_of(p)}) → {order[q] + base} "
                          f"(line {line_of(q)}) are consecutive in the tour but not {kind} "
                          f"of the graph")
    return order


def tour_numbers(f: _Lines, num_vertices: int) -> tuple[TourForm, np.ndarray, int, callable]:
    """The form of a tour file, its vertex ids as written, their base (0 or 1), and
    ``line_of(position)``.

    The forms are told apart by content, never by the file name:

    * a ``TOUR_SECTION`` line: TSPLIB (1-based);
    * otherwise the file must be integers only, and their count decides: ``n + 1`` numbers
      on a first line holding ``n`` alone is Concorde's order (0-based); a first line of
      exactly two numbers followed by ``3n`` numbers is linkern's edge list (0-based; the
      first line must be ``n n``, each edge must start where the previous one ended, the
      last end where the first started); ``n`` numbers is a plain vertex list. A plain list
      is 0-based when it holds 0 and 1-based when it holds ``n``: a list of every vertex once
      holds exactly one of them, so the two readings never compete; a list holding both or
      neither is refused (it cannot be a tour).
    """
    if re.search(r"(?im)^\s*TOUR_SECTION\b", f.text):
        keys, section, first, offset = _read_header(f, ("TOUR_SECTION",))
        if "TYPE" in keys and keys["TYPE"][0].upper() != "TOUR":
            raise f.error(keys["TYPE"][1], f"TYPE is {keys['TYPE'][0]!r}, expected TOUR")
        dim = _dimension(f, keys, required=False)
        if dim is not None and dim != num_vertices:
            raise f.error(keys["DIMENSION"][1], f"DIMENSION {dim} does not match the graph's "
                                                f"{num_vertices} vertices")
        values, line_of = _section_numbers(f, first, offset, "TOUR_SECTION")
        return TourForm.TSPLIB, values, 1, line_of
    numbers = _parse_ints(f.text)
    if numbers is None:
        _first_non_integer(f)
    n = num_vertices
    if numbers.size == 0:
        raise f.error(None, f"empty: expected a tour, i.e. {TOUR_FORMS_HELP}")
    first_line = next((line.split() for line in f.lines if line.strip()), [])
    if numbers.size == n + 1 and numbers[0] == n and len(first_line) == 1:
        return TourForm.CONCORDE, numbers[1:], 0, _token_line_of(f, skip=1)
    if numbers.size == 3 * n + 2 and len(first_line) == 2:
        return TourForm.LINKERN, _linkern_order(f, numbers, n), 0, \
            lambda position: _data_line(f, 1 + position)
    if numbers.size == n:
        has_zero, has_n = bool((numbers == 0).any()), bool((numbers == n).any())
        if has_zero == has_n:
            raise f.error(None, f"a plain list of {n} vertex ids must hold 0 (ids from 0) or "
                                f"{n} (ids from 1), not {'both' if has_zero else 'neither'}")
        return TourForm.VERTEX_LIST, numbers, 0 if has_zero else 1, _token_line_of(f, skip=0)
    raise f.error(None, f"{numbers.size} numbers fit no tour form of a graph of {n} vertices: "
                        f"expected {TOUR_FORMS_HELP}")


def _first_non_integer(f: _Lines) -> None:
    for index, line in enumerate(f.lines):
        for token in line.split():
            try:
                int(token)
            except ValueError:
                raise f.error(index + 1, f"{token[:40]!r} is not an integer, and there is no "
                                         f"TOUR_SECTION: expected {TOUR_FORMS_HELP}") from None
    raise f.error(None, "unreadable numbers")         # not reached


def _data_line(f: _Lines, k: int) -> int:
    """1-based line number of the ``k``-th (0-based) non-blank line."""
    seen = -1
    for index, line in enumerate(f.lines):
        if line.strip():
            seen += 1
            if seen == k:
                return index + 1
    return len(f.lines)


def _token_line_of(f: _Lines, skip: int):
    """``line_of(position)`` for a file of numbers whose first ``skip`` tokens are a header."""
    def line_of(position: int) -> int:
        count = -skip
        for index, line in enumerate(f.lines):
            count += len(line.split())
            if count > position:
                return index + 1
        return len(f.lines)
    return line_of


def _linkern_order(f: _Lines, numbers: np.ndarray, n: int) -> np.ndarray:
    """The 0-based vertex order of linkern's ``-o`` file: ``n n``, then ``u v w`` per edge in
    tour order, each edge starting where the previous one ended."""
    if numbers[0] != n or numbers[1] != n:
        raise f.error(_data_line(f, 0), f"linkern's edge list starts with 'n n' (here "
                                        f"'{n} {n}'), got '{numbers[0]} {numbers[1]}'")
    rows = numbers[2:].reshape(n, 3)
    ends, starts = rows[:, 1], np.roll(rows[:, 0], -1)
    broken = np.flatnonzero(ends != starts)
    if broken.size:
        k = int(broken[0])
        nxt = (k + 1) % n
        raise f.error(_data_line(f, 1 + nxt), f"linkern edge '{rows[nxt, 0]} {rows[nxt, 1]}' "
                                              f"does not start where the edge of line "
                                              f"{_data_line(f, 1 + k)} ended ({ends[k]}): not "
                                              f"a tour in order")
    return rows[:, 0].copy()
