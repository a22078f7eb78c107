"""HCP exports in every form (emit hcp --format), tours in every form the tools write (decode
hcp), the linkern and concorde routes, and --hcp-cmd programs.

Tour files are written here exactly as the tools write them (recorded in /work/tools/NOTES.md
and observed): LKH's TSPLIB TOUR, Concorde's ``-o`` order (the count, then ten 0-based ids per
line, each line ending with a space), linkern's ``-o`` edge list (``n n``, then ``u v w`` in
tour order, 0-based). Runs of the real linkern / concorde happen when they are on PATH and
skip otherwise.
"""

from __future__ import annotations

import re
import shutil
import sys

import numpy as np
import pytest

from reductions.errors import UserError
from reductions.sudoku.grid import format_grid
from solvers import cli
from solvers.cli import ExitCode
from solvers.formats.graph_files import GRAPH_FORMATS, write_graph
from solvers.formats.sidecar import load_hcp_export, sidecar_path
from solvers.formats.tsplib import read_arc_list, read_hcp, write_tour

from tests.conftest import instance_pairs
from tests.processes import running_with, wait_until

PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]
UNSOLVABLE = "..1....41..23..."        # peer-consistent, no solution; its reduced graph: 324 vertices
LINKERN = shutil.which("linkern")
CONCORDE = shutil.which("concorde")
needs_linkern = pytest.mark.skipif(LINKERN is None, reason="no linkern binary on PATH "
                                                            "(Concorde's, not packaged)")
needs_concorde = pytest.mark.skipif(CONCORDE is None, reason="no concorde binary on PATH "
                                                              "(not packaged)")
try:
    import networkx as nx
except ImportError:                                            # pragma: no cover
    nx = None
needs_networkx = pytest.mark.skipif(nx is None, reason="networkx not installed (extra graphs)")


def digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def edge_set(edges, directed=False):
    return {tuple(e) if directed else frozenset(e) for e in np.asarray(edges).tolist()}


# ----------------------------------------------------------------------------- writers

GRAPH = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [11, 12], [3, 12]])


def read_back(path, fmt, directed):
    """(n, edges) from a written file, by an independent reader for each format."""
    if fmt == "tsplib":
        return read_hcp(path)
    if fmt == "arcs":
        return read_arc_list(path)
    if fmt == "concorde":
        rows = [list(map(int, line.split())) for line in path.read_text().splitlines()]
        n, m = rows[0]
        assert len(rows) == m + 1 and all(len(r) == 3 and r[2] == 0 for r in rows[1:])
        return n, np.array([r[:2] for r in rows[1:]])
    kind = nx.DiGraph if directed else nx.Graph
    if fmt == "graphml":
        g = nx.read_graphml(path, node_type=int)
        assert g.is_directed() == directed
    else:
        assert "ids 0-based" in path.read_text().splitlines()[1]
        g = nx.read_edgelist(path, nodetype=int, create_using=kind)
    return g.number_of_nodes(), np.array(list(g.edges()))


@needs_networkx
@pytest.mark.parametrize("fmt", GRAPH_FORMATS)
@pytest.mark.parametrize("directed", [False, True])
def test_each_format_reads_back(tmp_path, fmt, directed):
    path = tmp_path / f"g.{fmt}"
    if directed and fmt in ("tsplib", "concorde"):
        with pytest.raises(UserError, match=f"format {fmt} holds undirected graphs only"):
            write_graph(path, fmt, 13, GRAPH, directed=True)
        return
    write_graph(path, fmt, 13, GRAPH, directed=directed, comment="a -- test\nwith <xml> & co")
    n, edges = read_back(path, fmt, directed)
    # An edge list cannot hold a vertex without edges (4..10 here; every vertex of a Sudoku
    # graph has edges); every other form keeps the vertex count.
    assert n == (6 if fmt == "edgelist" else 13)
    assert edge_set(edges, directed) == edge_set(GRAPH, directed)


def test_graphml_text_and_big_chunks(tmp_path):
    """The markup (an exact small file) and a graph larger than one chunk."""
    path = tmp_path / "g.graphml"
    write_graph(path, "graphml", 3, [[0, 1], [1, 2]], directed=False)
    assert path.read_text() == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        '  <graph id="G" edgedefault="undirected">\n'
        '    <node id="0"/>\n    <node id="1"/>\n    <node id="2"/>\n'
        '    <edge source="0" target="1"/>\n    <edge source="1" target="2"/>\n'
        '  </graph>\n</graphml>\n')
    from solvers.formats import graph_files
    n = graph_files.CHUNK_ROWS + 5
    ring = np.stack([np.arange(n), (np.arange(n) + 1) % n], axis=1)
    write_graph(path, "edgelist", n, ring, directed=False)
    lines = path.read_text().splitlines()
    assert len(lines) == n + 1 and lines[-1] == f"{n - 1} 0"


# ----------------------------------------------------------------------------- tour forms

def tour_texts(order: np.ndarray) -> dict[str, str]:
    """One tour in every form the tools write, byte for byte."""
    n = len(order)
    concorde = f"{n}\n" + "".join(" ".join(map(str, order[i:i + 10])) + " \n"
                                  for i in range(0, n, 10))
    nxt = np.roll(order, -1)
    linkern = f"{n} {n}\n" + "".join(f"{u} {v} 0\n" for u, v in zip(order, nxt))
    return {"concorde": concorde, "linkern": linkern,
            "plain0": "\n".join(map(str, order)) + "\n",
            "plain1": " ".join(map(str, order + 1)) + "\n"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The 4×4 puzzle's reduced graph in every format, with its Hamiltonian cycle."""
    folder = tmp_path_factory.mktemp("export")
    files = {}
    for fmt in GRAPH_FORMATS:
        if fmt == "arcs":
            continue                                   # directed below
        path = folder / f"g.{fmt}"
        assert cli.main(["emit", "hcp", format_grid(PUZZLE, "line"), "--reduce", "--format",
                         fmt, "-o", str(path)]) == 0
        files[fmt] = path
    pipeline, _ = load_hcp_export(files["tsplib"])
    return files, pipeline.tour_of_solution(SOLUTION), pipeline.num_vertices


@pytest.mark.parametrize("fmt", ["tsplib", "concorde", "graphml", "edgelist"])
@pytest.mark.parametrize("form", ["tsplib", "concorde", "linkern", "plain0", "plain1"])
def test_decode_every_tour_form_of_every_export(run, exported, tmp_path, fmt, form):
    files, order, n = exported
    tour = tmp_path / "tour.out"
    if form == "tsplib":
        write_tour(tour, np.roll(order, 3)[::-1])
    else:
        tour.write_text(tour_texts(np.roll(order, 5))[form])
    code, out, err = run("decode", "hcp", files[fmt], tour)
    assert code == ExitCode.OK, err
    assert digits(out) == format_grid(SOLUTION, "line")


def test_sidecar_records_format_and_numbering(exported):
    import json
    files, _, _ = exported
    for fmt, name, base in [("tsplib", "tsplib-hcp", "+ 1"), ("concorde", "concorde-edges",
                                                               "from 0"),
                            ("graphml", "graphml", "from 0"), ("edgelist", "edgelist",
                                                               "from 0")]:
        record = json.loads(sidecar_path(files[fmt]).read_text())
        assert record["graph_format"] == name and base in record["vertex_map"]["file_ids"]


def test_directed_export_refuses_undirected_only_formats(run, tmp_path):
    code, out, err = run("emit", "hcp", format_grid(PUZZLE, "line"), "--directed",
                         "--format", "concorde", "-o", tmp_path / "x")
    assert code == ExitCode.BAD_INPUT and "undirected graphs only" in err and not out
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("form, text, message", [
    ("plain both", None, "must hold 0 .* or 96 .*, not both"),
    ("linkern broken", None, r"line 3: linkern edge '\d+ \d+' does not start where the edge "
                             r"of line 2 ended"),
    ("linkern header", None, "line 1: linkern's edge list starts with 'n n'"),
    ("non-edge", None, r"line \d+: vertices \d+ \(line \d+\) → \d+ .* not an edge"),
    ("garbage", "96\n0 1 x\n", "line 2: 'x' is not an integer, and there is no TOUR_SECTION"),
    ("count", "1 2 3\n", "3 numbers fit no tour form of a graph of 96 vertices"),
])
def test_bad_tours_are_one_line_errors(run, exported, tmp_path, form, text, message):
    files, order, n = exported
    texts = tour_texts(order)
    if form == "plain both":
        text = " ".join(map(str, [0] + list(range(2, n)) + [n])) + "\n"
    elif form == "linkern broken":
        lines = texts["linkern"].splitlines()
        lines[2], lines[3] = lines[3], lines[2]
        text = "\n".join(lines) + "\n"
    elif form == "linkern header":
        text = texts["linkern"].replace(f"{n} {n}\n", f"{n} {n + 1}\n", 1)
    elif form == "non-edge":
        swapped = order.copy()
        swapped[[0, 1]] = swapped[[1, 0]]
        text = tour_texts(swapped)["concorde"]
    tour = tmp_path / "bad.tour"
    tour.write_text(text)
    code, out, err = run("decode", "hcp", files["tsplib"], tour)
    assert code == ExitCode.BAD_INPUT and not out
    assert err.count("\n") == 1 and str(tour) in err
    assert re.search(message, err), err


# ----------------------------------------------------------------------------- --hcp-cmd

def fake_program(tmp_path, body: str) -> str:
    """A real program (python script) the tests use as an HCP solver."""
    script = tmp_path / "fake-hcp-solver"
    script.write_text(f"#!{sys.executable}\n# marker sudoku-bridge-hcpfmt-fake\n"
                      f"import sys, time\n{body}\n")
    script.chmod(0o755)
    return str(script)


def solved_tour_file(tmp_path, form="linkern", break_it=False):
    from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
    pipeline = build_hcp_pipeline(PUZZLE, HcpOptions(directed=False, reduce=True))
    order = pipeline.tour_of_solution(SOLUTION)
    if break_it:
        order[[0, 1]] = order[[1, 0]]
    answer = tmp_path / "answer.txt"
    answer.write_text(tour_texts(order)[form])
    return answer


@pytest.mark.parametrize("where", ["output", "stdout"])
def test_hcp_cmd_reads_the_tour_from_output_or_stdout(run, tmp_path, where):
    answer = solved_tour_file(tmp_path, "concorde" if where == "output" else "plain1")
    program = fake_program(tmp_path, f"""
graph = open(sys.argv[1]).read()
assert graph.startswith("96 "), graph[:20]            # the Concorde edge file asked for
text = open({str(answer)!r}).read()
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write(text)
else:
    print(text)""")
    template = f"{program} {{input.concorde}}" + (" {output}" if where == "output" else "")
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "hcp", "--reduce",
                         "--hcp-cmd", template)
    assert code == ExitCode.OK, err
    assert digits(out) == format_grid(SOLUTION, "line")


@pytest.mark.parametrize("body, code, message", [
    ("open(sys.argv[2], 'w').write(open(ANSWER).read())", ExitCode.UNKNOWN,
     "uses 2 non-edges"),
    ("pass", ExitCode.UNKNOWN, "gave no tour"),
    ("sys.exit(5)", ExitCode.BAD_INPUT, "exited with code 5 without a tour"),
    ("open(sys.argv[2], 'w').write('hello')", ExitCode.BAD_INPUT,
     "the tour file of fake-hcp-solver line 1: 'hello' is not an integer"),
    ("time.sleep(60)", ExitCode.UNKNOWN, "time limit"),
])
def test_hcp_cmd_failures(run, tmp_path, body, code, message):
    answer = solved_tour_file(tmp_path, break_it=True)
    program = fake_program(tmp_path, body.replace("ANSWER", repr(str(answer))))
    got, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "hcp", "--reduce",
                        "--hcp-cmd", f"{program} {{input}} {{output}}", "--time-limit", "2")
    assert got == code, err
    assert message in (out + err)
    if code == ExitCode.BAD_INPUT:
        assert err.count("\n") == 1 and not out
    # The script's path is unique; the group was sent SIGKILL, which a loaded machine may
    # take a moment to carry out.
    assert wait_until(lambda: running_with(str(tmp_path)) == [], 5)


@pytest.mark.parametrize("template, message", [
    ("prog {output}", "names no graph file"),
    ("prog {input.dimacs}", "unknown graph format 'dimacs'"),
    ("prog {inptu}", "unknown placeholder {inptu}"),
    ("prog 'unclosed {input}", "cannot split"),
])
def test_bad_templates(run, template, message):
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "hcp", "--reduce",
                         "--hcp-cmd", template)
    assert code == ExitCode.BAD_INPUT and message in err and err.count("\n") == 1


# ----------------------------------------------------------------------------- real tools

@needs_linkern
def test_linkern_round_trip_through_files(run, exported, tmp_path):
    """emit --format concorde → linkern (the command in docs/routes.md) → decode hcp."""
    from solvers.runtime.processes import run_program
    files, _, _ = exported
    tour = tmp_path / "g.lk"
    done = run_program([LINKERN, "-s", "1", "-r", "1", "-h", "0.5", "-Q", "-N", "10", "-g",
                        files["concorde"], "-o", tour, files["concorde"]], time_limit=60)
    assert done.exit_code == 0 and tour.read_text().startswith("96 96\n")
    code, out, err = run("decode", "hcp", files["concorde"], tour)
    assert code == ExitCode.OK, err


@needs_concorde
def test_concorde_round_trip_through_files(run, exported, tmp_path):
    from solvers.runtime.processes import run_program
    files, _, _ = exported
    done = run_program([CONCORDE, "-s", "1", "-N", "10", "-o", "g.sol", files["concorde"]],
                       cwd=tmp_path, time_limit=60)
    assert done.exit_code == 0 and b"Optimal Solution: 0.00" in done.stdout
    code, out, err = run("decode", "hcp", files["concorde"], tmp_path / "g.sol")
    assert code == ExitCode.OK, err


@needs_linkern
def test_linkern_route(run):
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "linkern")
    assert code == ExitCode.OK and digits(out) == format_grid(SOLUTION, "line")
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "hcp", "--reduce",
                         "--hcp-cmd", "linkern -r 1 -h 0.5 -Q -N 10 -g {input.concorde} "
                                      "-o {output} {input.concorde}")
    assert code == ExitCode.OK, err


@needs_linkern
def test_linkern_never_says_no_solution(run):
    """An unsolvable puzzle whose reduced graph linkern gets: unknown (3), never 1."""
    code, out, err = run("solve", UNSOLVABLE, "--via", "hcp", "--hcp-solver", "linkern",
                         "--reduce", "--time-limit", "5")
    assert code == ExitCode.UNKNOWN and out.startswith("unknown"), (code, out, err)


@needs_concorde
def test_concorde_route_solves_and_proves(run):
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "concorde")
    assert code == ExitCode.OK and digits(out) == format_grid(SOLUTION, "line")
    code, out, err = run("solve", UNSOLVABLE, "--via", "hcp", "--hcp-solver", "concorde",
                         "--reduce", "--time-limit", "60", "--json")
    assert code == ExitCode.NO_SOLUTION, (out, err)
    assert "Concorde proved the optimal tour uses 2 non-edges" in out
