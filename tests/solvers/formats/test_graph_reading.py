"""solvers.formats.graph_reading: every graph form read by content, compressed or not; a
malformed file is one TsplibError naming the file and line; loops and repeats counted."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from solvers.formats.graph_files import write_graph
from solvers.formats.graph_reading import loops_and_repeats, read_any_graph
from solvers.formats.tsplib import TsplibError

SQUARE = np.array([[0, 1], [1, 2], [2, 3], [0, 3]])     # a 4-cycle, 0-based


def _read(tmp_path, text: str, name: str = "g.txt"):
    path = tmp_path / name
    path.write_text(text)
    return read_any_graph(path)


def _pairs(graph) -> set[tuple[int, int]]:
    return {tuple(sorted(p)) for p in graph.pairs.tolist()}


@pytest.mark.parametrize("fmt", ["tsplib", "arcs", "concorde", "edgelist"])
def test_our_exports_read_back(tmp_path, fmt):
    path = tmp_path / f"g.{fmt}"
    write_graph(path, fmt, 4, SQUARE, directed=False)
    graph = read_any_graph(path)
    assert graph.num_vertices == 4
    assert _pairs(graph) == {(0, 1), (1, 2), (2, 3), (0, 3)}


def test_fhcp_col_form(tmp_path):
    text = ("p 4 4\nc NAME : sq.hcp\nc TYPE : HCP\nc DIMENSION : 4\n"
            "c EDGE_DATA_SECTION\ne 1 2\ne 2 3\nc between\ne 3 4\ne 1 4\n")
    graph = _read(tmp_path, text, "sq.col")
    assert (graph.num_vertices, graph.form) == (4, "DIMACS")
    assert _pairs(graph) == {(0, 1), (1, 2), (2, 3), (0, 3)}


def test_dimacs_p_edge_with_leading_comments(tmp_path):
    graph = _read(tmp_path, "c a square\np edge 4 4\ne 1 2\ne 2 3\ne 3 4\ne 4 1\n")
    assert _pairs(graph) == {(0, 1), (1, 2), (2, 3), (0, 3)}


def test_tsplib_adjacency_lists(tmp_path):
    text = ("NAME : sq\nTYPE : HCP\nDIMENSION : 4\nEDGE_DATA_FORMAT : ADJ_LIST\n"
            "EDGE_DATA_SECTION\n1 2 4 -1\n3 2 4 -1\n-1\nEOF\n")
    graph = _read(tmp_path, text)
    assert graph.form == "TSPLIB HCP (ADJ_LIST)"
    assert _pairs(graph) == {(0, 1), (0, 3), (1, 2), (2, 3)}


def test_gzip_is_read_by_content(tmp_path):
    path = tmp_path / "g.col"                   # no .gz in the name: the content decides
    path.write_bytes(gzip.compress(b"p 3 3\ne 1 2\ne 2 3\ne 1 3\n"))
    assert read_any_graph(path).num_vertices == 3


@pytest.mark.parametrize("text, line, words", [
    ("p 4 2\ne 1 2\ne 2 9\n", 3, "vertex 9 is out of range 1..4"),
    ("p 4 2\ne 1 2\ne 0 3\n", 3, "vertex 0 is out of range 1..4"),
    ("p 4 3\ne 1 2\ne 2 3\n", 1, "announces 3 edges, the file has 2"),
    ("p 4 2\ne 1 2\nx 2 3\n", 3, "expected 'e U V'"),
    ("p 4 2\ne 1 2\ne 2\n", 3, "expected 'e U V'"),
    ("p four 2\n", 1, "expected 'p N M'"),
    ("NAME : x\nTYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 7\n-1\n", 6,
     "vertex 7 is out of range 1..3"),
    ("NAME : x\nTYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 x\n-1\n", 6,
     "'x' is not an integer"),
    ("NAME : x\nTYPE : TSP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n-1\n", 2, "TYPE is 'TSP'"),
    ("NAME : x\nTYPE : HCP\nDIMENSION : -3\nEDGE_DATA_SECTION\n1 2\n-1\n", 3,
     "DIMENSION must be a positive integer"),
    ("NAME : x\nTYPE : HCP\nDIMENSION : 3\nEDGE_DATA_FORMAT : ADJ_LIST\n"
     "EDGE_DATA_SECTION\n1 2 3\n", None, "not ended by -1"),
    ("3 2\n1 2\n2 4\n", 3, "vertex 4 is out of range 1..3"),
    ("3 2\n1 2\n", 1, "announces 2 edges"),
    ("hello world\n", 1, "not a graph file this command reads"),
    ("# 3 vertices, ids 0-based (0..2)\n0 1\n1 3\n", 3, "vertex 3 is out of range 0..2"),
    ("<graphml/>\n", 1, "GraphML is not read here"),
    ("", None, "no graph"),
])
def test_malformed_files_name_file_and_line(tmp_path, text, line, words):
    with pytest.raises(TsplibError) as caught:
        _read(tmp_path, text)
    message = str(caught.value)
    where = f"g.txt line {line}:" if line else "g.txt:"
    assert where in message and words in message, message
    assert "\n" not in message


def test_loops_and_repeats_are_counted_not_refused(tmp_path):
    graph = _read(tmp_path, "p 3 5\ne 1 2\ne 2 3\ne 3 1\ne 2 2\ne 2 1\n")
    assert loops_and_repeats(graph.num_vertices, graph.pairs, directed=False) == (1, 1)
    # as arcs, 2→1 is not 1→2
    assert loops_and_repeats(graph.num_vertices, graph.pairs, directed=True) == (1, 0)


def test_big_edge_list_is_one_array(tmp_path):
    """10^6 edges parse into one int64 array (the 10^7 case is the same code path)."""
    n, m = 200_000, 1_000_000
    rng = np.random.default_rng(1)
    edges = rng.integers(1, n + 1, size=(m, 2))
    path = tmp_path / "big.col"
    with open(path, "w") as out:
        out.write(f"p edge {n} {m}\n")
        np.savetxt(out, edges, fmt="e %d %d")
    graph = read_any_graph(path)
    assert graph.pairs.dtype == np.int64 and graph.pairs.shape == (m, 2)
    assert np.array_equal(graph.pairs, edges - 1)
