"""TSPLIB HCP / TOUR files and plain arc lists: round trips, exact text, strict reading with
errors that name the line, atomic writes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.formats.tsplib import (TsplibError, format_int_rows, read_arc_list, read_hcp,
                                    read_tour, write_arc_list, write_hcp, write_tour)

SQUARE = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 10**12), min_size=1, max_size=3).map(tuple),
                min_size=1, max_size=40).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_format_int_rows_matches_python(rows):
    expected = "".join(" ".join(map(str, r)) + "\n" for r in rows)
    assert format_int_rows(np.array(rows)).decode() == expected


def test_hcp_file_text_and_round_trip(tmp_path):
    path = tmp_path / "g.hcp"
    write_hcp(path, 4, SQUARE, name="square", comment="a test\nwith a newline")
    assert path.read_text() == (
        "NAME : square\nCOMMENT : a test with a newline\nTYPE : HCP\nDIMENSION : 4\n"
        "EDGE_DATA_FORMAT : EDGE_LIST\nEDGE_DATA_SECTION\n1 2\n2 3\n3 4\n4 1\n1 3\n-1\nEOF\n")
    n, edges = read_hcp(path)
    assert n == 4 and np.array_equal(edges, SQUARE) and edges.dtype == np.int64


def test_big_graph_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    n = 200_000
    keys = np.unique(rng.integers(0, n * n, size=600_000))
    edges = np.stack([keys // n, keys % n], axis=1)
    edges = edges[edges[:, 0] != edges[:, 1]]
    edges = edges[np.unique(np.minimum(edges[:, 0], edges[:, 1]) * n + edges.max(axis=1),
                            return_index=True)[1]]
    path = tmp_path / "big.hcp"
    write_hcp(path, n, edges)
    got_n, got = read_hcp(path)
    assert got_n == n and np.array_equal(got, edges)


@pytest.mark.parametrize("text, message", [
    ("NAME : x\nTYPE : HCP\nEDGE_DATA_SECTION\n1 2\n-1\n", "no DIMENSION"),
    ("TYPE : TSP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n-1\n", "line 1: TYPE is 'TSP'"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_FORMAT : ADJ_LIST\nEDGE_DATA_SECTION\n1 2 -1\n-1\n",
     "line 3: EDGE_DATA_FORMAT ADJ_LIST is not supported"),
    ("TYPE : HCP\nDIMENSION : three\nEDGE_DATA_SECTION\n", "line 2: DIMENSION must be"),
    ("TYPE : HCP\nDIMENSION : 3\n", "no EDGE_DATA_SECTION"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 x\n-1\n", "line 5: .*'x' is not an"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 3\n3 4\n-1\n",
     "line 6: vertex 4 is out of range 1..3"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 3\n3\n-1\n",
     "line 6: the last edge has only one end"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 2\n-1\n", "line 5: edge 2 2 is a loop"),
    ("TYPE : HCP\nDIMENSION : 3\nEDGE_DATA_SECTION\n1 2\n2 3\n2 1\n-1\n",
     "line 6: edge 2 1 repeats the edge of line 4"),
    ("TYPE HCP\n", "line 1: expected 'KEYWORD : value'"),
    ("DIMENSION : 3\nNODE_COORD_SECTION\n", "line 2: unknown section 'NODE_COORD_SECTION'"),
])
def test_bad_hcp_files_name_the_line(tmp_path, text, message):
    path = tmp_path / "bad.hcp"
    path.write_text(text)
    with pytest.raises(TsplibError, match=message) as info:
        read_hcp(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(TsplibError, match="no such file"):
        read_hcp(tmp_path / "nope.hcp")


# ----------------------------------------------------------------------------- tours

def test_tour_text_and_round_trip(tmp_path):
    path = tmp_path / "t.tour"
    write_tour(path, [0, 3, 2, 1], name="sq")
    assert path.read_text() == ("NAME : sq\nTYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n"
                                "1\n4\n3\n2\n-1\nEOF\n")
    assert read_tour(path, 4, SQUARE).tolist() == [0, 3, 2, 1]
    assert read_tour(path, 4).tolist() == [0, 3, 2, 1]


def write(tmp_path, text, name="t.tour"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("body, message", [
    ("1\n2\n2\n4\n-1\n", "line 7: vertex 2 appears a second time \\(first at line 6\\)"),
    ("1\n2\n5\n4\n-1\n", "line 7: vertex 5 is out of range 1..4"),
    ("1\n2\n3\n-1\n", "the tour has 3 vertices, the graph 4 \\(vertex 4 is missing\\)"),
    ("1\n3\n2\n4\n-1\n", "line 6: vertices 1 \\(line 5\\) → 3 \\(line 6\\)"),
    ("1 2 4 3\n-1\n", "line 5: vertices 2 \\(line 5\\) → 4 \\(line 5\\) are consecutive in the "
                      "tour but not an edge"),
])
def test_bad_tours_name_the_line_or_pair(tmp_path, body, message):
    header = "NAME : t\nTYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n"
    path = write(tmp_path, header + body)
    graph = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
    with pytest.raises(TsplibError, match=message):
        read_tour(path, 4, graph)


def test_closing_pair_must_be_an_edge_too(tmp_path):
    path = write(tmp_path, "TYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n1\n2\n3\n4\n-1\n")
    path_graph = np.array([[0, 1], [1, 2], [2, 3]])
    with pytest.raises(TsplibError, match=r"vertices 4 \(line 7\) → 1 \(line 4\)"):
        read_tour(path, 4, path_graph)


def test_tour_header_checks(tmp_path):
    path = write(tmp_path, "TYPE : TOUR\nDIMENSION : 5\nTOUR_SECTION\n1\n2\n3\n4\n-1\n")
    with pytest.raises(TsplibError, match="line 2: DIMENSION 5 does not match the graph's 4"):
        read_tour(path, 4)
    path = write(tmp_path, "TYPE : HCP\nTOUR_SECTION\n1\n-1\n")
    with pytest.raises(TsplibError, match="TYPE is 'HCP', expected TOUR"):
        read_tour(path, 1)
    path = write(tmp_path, "TYPE : TOUR\nDIMENSION : 4\n")
    with pytest.raises(TsplibError, match="no TOUR_SECTION"):
        read_tour(path, 4)


def test_directed_tours_follow_arcs(tmp_path):
    arcs = np.array([[0, 1], [1, 2], [2, 0]])
    forward = write(tmp_path, "TOUR_SECTION\n1\n2\n3\n-1\n", "f.tour")
    backward = write(tmp_path, "TOUR_SECTION\n3\n2\n1\n-1\n", "b.tour")
    assert read_tour(forward, 3, arcs, directed=True).tolist() == [0, 1, 2]
    assert read_tour(backward, 3, arcs).tolist() == [2, 1, 0]
    with pytest.raises(TsplibError, match="not an arc"):
        read_tour(backward, 3, arcs, directed=True)


def test_concorde_solution_files(tmp_path):
    path = write(tmp_path, "4\n0 3 2\n1\n", "c.sol")
    assert read_tour(path, 4, SQUARE).tolist() == [0, 3, 2, 1]
    path = write(tmp_path, "4\n0 3 3\n1\n", "bad.sol")
    with pytest.raises(TsplibError, match="line 2: vertex 3 appears a second time"):
        read_tour(path, 4, SQUARE)
    path = write(tmp_path, "0 3 2 1 0 3\n", "six.txt")
    with pytest.raises(TsplibError, match="6 numbers fit no tour form of a graph of 4 "
                                          "vertices: expected a TSPLIB TOUR"):
        read_tour(path, 4, SQUARE)


# ----------------------------------------------------------------------------- arc lists

def test_arc_list_round_trip_and_errors(tmp_path):
    arcs = np.array([[0, 1], [1, 2], [2, 0], [1, 0]])
    path = tmp_path / "g.arcs"
    write_arc_list(path, 3, arcs, ["made for a test"])
    assert path.read_text() == "# made for a test\n3 4\n1 2\n2 3\n3 1\n2 1\n"
    n, got = read_arc_list(path)
    assert n == 3 and np.array_equal(got, arcs)
    path.write_text("3 2\n1 2\n2 4\n")
    with pytest.raises(TsplibError, match="line 3: vertex 4 is out of range 1..3"):
        read_arc_list(path)
    path.write_text("3 3\n1 2\n2 3\n")
    with pytest.raises(TsplibError, match="announces 3 arcs, the file has 2"):
        read_arc_list(path)
    path.write_text("# nothing\n")
    with pytest.raises(TsplibError, match="no 'V A' line"):
        read_arc_list(path)


def test_writes_are_atomic(tmp_path):
    path = tmp_path / "g.hcp"
    write_hcp(path, 4, SQUARE)
    before = path.read_bytes()
    with pytest.raises(ValueError):
        write_hcp(path, 4, np.array([[0, 1], [-5, 2]]))     # fails after the header
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.hcp"]
