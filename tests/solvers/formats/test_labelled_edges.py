"""The labelled edge-list format (round trips, errors naming the line), DOT and GraphML."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.formulas import example_satisfiable
from reductions.nonrepetitive.labelled_graph import GraphError, LabelledGraph, random_labelled_graph
from reductions.nonrepetitive.nrpath_gadget import nrpath_gadget, path_from_assignment
from solvers.formats.labelled_edges import (EdgeListError, _parse_integer_edges, edge_lines,
                                            parse_labelled_edges, read_labelled_edges, to_networkx, write_dot,
                                            write_graphml, write_labelled_edges)


def test_round_trip_of_the_gadget(tmp_path):
    g = nrpath_gadget(example_satisfiable(), cycle=True)
    path = tmp_path / "g.txt"
    write_labelled_edges(path, g.graph, g.p, g.q, ["a comment"])
    text = path.read_text()
    assert text.startswith("# a comment\ndirected p=p q=q\np x1:in 1\n")
    back = read_labelled_edges(path)
    assert back.graph.same_as(g.graph)
    assert back.graph.vertex_name(back.p) == "p" and back.graph.vertex_name(back.q) == "q"
    assert back.graph.num_edges == g.graph.num_edges == len(text.splitlines()) - 2


@pytest.mark.parametrize("directed", [True, False])
def test_round_trip_of_random_graphs_with_isolated_vertices(tmp_path, directed):
    g = random_labelled_graph(40, 60, 4, directed=directed, seed=3)   # some vertices isolated
    path = tmp_path / "r.txt"
    write_labelled_edges(path, g)
    back = read_labelled_edges(path)
    assert back.graph.same_as(g) and back.p is None and back.q is None
    assert back.graph.directed == directed


def test_parse_by_hand():
    data = parse_labelled_edges([
        "# a comment", "", "undirected q=z", "a b red", "  b c blue  ", "lonely", "# end"])
    g = data.graph
    assert not g.directed and g.num_vertices == 5 and g.num_edges == 2
    assert g.vertex_name(data.q) == "z" and data.p is None
    assert g.edge_names(1) == ("b", "c", "blue")


@pytest.mark.parametrize("lines, message", [
    ([], "no header line"),
    (["# only comments"], "no header line"),
    (["a b c"], "line 1: expected the header"),
    (["directed", "a b"], "line 2: expected 'TAIL HEAD LABEL'"),
    (["directed", "a b c d"], "line 2: .* 4 fields"),
    (["directed x=1"], "line 1: header field 'x=1'"),
    (["directed p="], "line 1: header field 'p='"),
    (["directed p=a p=b"], "line 1: p= given twice"),
])
def test_errors_name_the_line(lines, message):
    with pytest.raises(EdgeListError, match=message):
        parse_labelled_edges(lines, "g.txt")


def test_file_errors(tmp_path):
    with pytest.raises(EdgeListError, match="no such file"):
        read_labelled_edges(tmp_path / "missing.txt")
    with pytest.raises(EdgeListError, match="is a directory"):
        read_labelled_edges(tmp_path)
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"directed\n\xff\xfe a b\n")
    with pytest.raises(EdgeListError, match="not a text file"):
        read_labelled_edges(binary)


def test_writer_refuses_names_with_spaces_and_leaves_no_file(tmp_path):
    g = LabelledGraph.from_edges([("a b", "c", 0)])
    path = tmp_path / "bad.txt"
    with pytest.raises(GraphError, match="without spaces"):
        write_labelled_edges(path, g)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_big_round_trip_is_fast(tmp_path):
    g = random_labelled_graph(50_000, 200_000, 9, seed=1)
    path = tmp_path / "big.txt"
    start = time.perf_counter()
    write_labelled_edges(path, g)
    back = read_labelled_edges(path)
    assert time.perf_counter() - start < 10
    assert back.graph.num_edges == 200_000
    assert back.graph.edge_names(123_456) == tuple(map(str, g.edge_names(123_456)))


def test_dot_export(tmp_path):
    g = nrpath_gadget(example_satisfiable())
    path = path_from_assignment(g, (True, False, True, False))
    out = tmp_path / "g.dot"
    write_dot(out, g.graph, g.p, g.q, highlight=path, title="example")
    text = out.read_text()
    assert text.startswith("digraph G {") and text.rstrip().endswith("}")
    edge_lines = [line for line in text.splitlines() if " -> " in line]
    assert len(edge_lines) == g.graph.num_arcs
    assert sum("color=red" in line for line in edge_lines) == len(path)
    assert sum("style=dashed" in line for line in edge_lines) == int((g.graph.labels == 0).sum())
    assert text.count("doublecircle") == 2
    undirected = LabelledGraph.from_edges([('say "hi"', "b", 0)], directed=False)
    write_dot(out, undirected)
    text = out.read_text()
    assert text.startswith("graph G {") and '"say \\"hi\\"" -- "b"' in text


def test_graphml_export(tmp_path):
    g = LabelledGraph.from_edges([("a", "b", "x<y"), ("b", "a", "&"), ("a", "b", "x<y")])
    out = tmp_path / "g.graphml"
    write_graphml(out, g, p=0, q=1)
    root = ET.parse(out).getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    edges = root.findall(".//g:edge", ns)
    assert [e.find("g:data", ns).text for e in edges] == ["x<y", "&", "x<y"]
    roles = [n.find("g:data", ns).text for n in root.findall(".//g:node", ns)]
    assert roles == ["p", "q"]


def test_networkx_interop(tmp_path):
    nx = pytest.importorskip("networkx")
    g = nrpath_gadget(example_satisfiable()).graph
    out = tmp_path / "g.graphml"
    write_graphml(out, g)
    read = nx.read_graphml(out, force_multigraph=True)
    assert read.number_of_nodes() == g.num_vertices and read.number_of_edges() == g.num_edges
    converted = to_networkx(g)
    assert converted.number_of_edges() == g.num_edges
    assert sorted(d["label"] for _, _, d in converted.edges(data=True)) == sorted(
        str(g.label_name(x)) for x in g.labels.tolist())


# The bulk reader of integer-named files must read exactly what the line parser reads, or
# step aside (None) so that the line parser reads it (and names the line of any mistake).

_TOKENS = st.one_of(st.integers(-30, 300).map(str),
                    st.sampled_from(["0", "-0", "007", "00", "-", "1-2", "+3", "x", "#c",
                                     "12345678901234567890", "-5"]))
_LINES = st.one_of(st.lists(_TOKENS, min_size=3, max_size=3).map(" ".join),
                   st.lists(_TOKENS, min_size=1, max_size=1).map(" ".join),
                   st.lists(st.integers(0, 40).map(str), min_size=3, max_size=3)
                   .map("\t".join),
                   st.sampled_from(["", "  ", "# note", "1 2", "1 2 3 4"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=25),
       st.sampled_from(["directed", "undirected", "directed p=4 q=-7", "undirected p=07",
                        "# first\ndirected q=3", "Directed", "nothing"]),
       st.sampled_from(["\n", "\r\n"]))
def test_bulk_reader_agrees_with_the_line_parser(lines, header, newline):
    text = newline.join([header, *lines]) + newline
    bulk = _parse_integer_edges(text, "g.txt")
    try:
        by_line = parse_labelled_edges(text.splitlines(), "g.txt")
    except EdgeListError:
        assert bulk is None
        return
    if bulk is not None:
        assert bulk.graph.same_as(by_line.graph)
        assert bulk.graph.vertex_names == by_line.graph.vertex_names
        assert bulk.graph.label_names == by_line.graph.label_names
        assert (bulk.p, bulk.q) == (by_line.p, by_line.q)


def test_files_the_bulk_reader_leaves_to_the_line_parser(tmp_path):
    """A '-' as the very last byte (a label named '-') is read by the line parser, and a bad
    header field is its one-line error naming the line — not an internal error, not
    'line 0'."""
    path = tmp_path / "g.txt"
    path.write_text("directed\n1 2 3\n4 5 -")
    assert _parse_integer_edges(path.read_text(), str(path)) is None
    assert read_labelled_edges(path).graph.edge_names(1) == ("4", "5", "-")
    path.write_text("# c\ndirected x=1\n1 2 3\n")
    assert _parse_integer_edges(path.read_text(), str(path)) is None
    with pytest.raises(EdgeListError, match="line 2: header field 'x=1'"):
        read_labelled_edges(path)


def test_bulk_reader_takes_generated_files_and_edge_lines_round_trip(tmp_path):
    graph = random_labelled_graph(500, 3000, 9, True, seed=5)
    path = tmp_path / "g.txt"
    write_labelled_edges(path, graph, 3, 9)
    text = path.read_text()
    bulk = _parse_integer_edges(text, str(path))
    assert bulk is not None and bulk.graph.same_as(graph)
    assert (bulk.graph.vertex_name(bulk.p), bulk.graph.vertex_name(bulk.q)) == ("3", "9")
    by_line = parse_labelled_edges(text.splitlines(), str(path))
    assert bulk.graph.vertex_names == by_line.graph.vertex_names
    assert np.array_equal(bulk.graph.tails, by_line.graph.tails)
    assert "".join(edge_lines(bulk.graph, np.arange(graph.num_edges))) == "".join(
        line + "\n" for line in text.splitlines()[1:] if len(line.split()) == 3)
