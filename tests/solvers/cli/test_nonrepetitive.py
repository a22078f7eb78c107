"""The command line: ``gadget nrpath`` (emit, --validate) and ``nonrepetitive``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reductions.formulas import Formula
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.nonrepetitive.nr_graph import cyclic_edges, edges_from, simple_path_problems
from reductions.nonrepetitive.nrpath_gadget import expected_size
from solvers import cli
from solvers.cli import ExitCode
from solvers.formats.labelled_edges import read_labelled_edges, write_labelled_edges

from tests.conftest import INSTANCES

SAT = INSTANCES / "formulas" / "nrpath-example-sat.cnf"
UNSAT = INSTANCES / "formulas" / "nrpath-pair-unsat.cnf"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def edge_lines(out: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split()) for line in out.splitlines() if line and not line.startswith("#")]


def test_gadget_writes_the_graph_and_pictures(capsys, tmp_path):
    g, dot, graphml = tmp_path / "g.txt", tmp_path / "g.dot", tmp_path / "g.graphml"
    code, out, _ = run(capsys, "gadget", "nrpath", SAT, "-o", g, "--dot", dot,
                       "--graphml", graphml)
    assert code == ExitCode.OK
    assert "46 vertices, 69 arcs (size formula: 46 and 69)" in out
    data = read_labelled_edges(g)
    assert (data.graph.num_vertices, data.graph.num_edges) == (46, 69)
    assert data.graph.vertex_name(data.p) == "p" and data.graph.vertex_name(data.q) == "q"
    assert dot.read_text().count(" -> ") == 69 and "<graphml" in graphml.read_text()


def test_cycle_version_adds_the_arc_q_p(capsys, tmp_path):
    g = tmp_path / "c.txt"
    code, out, _ = run(capsys, "gadget", "nrpath", UNSAT, "-o", g, "--cycle")
    assert code == ExitCode.OK and "arc q -> p" in out
    data = read_labelled_edges(g)
    assert data.graph.edge_names(data.graph.num_edges - 1) == ("q", "p", "0")
    formula = Formula.of([(1, 2), (1, -2), (-1, 2), (-1, -2)], 2)
    assert (data.graph.num_vertices, data.graph.num_edges) == expected_size(formula, cycle=True)
    # the arc q -> p is on no simple nonrepetitive cycle (unsatisfiable) ...
    code, out, _ = run(capsys, "nonrepetitive", g, "--simple-cycle")
    assert code == ExitCode.NO_SOLUTION and "no simple nonrepetitive cycle" in out
    # ... but on a nonrepetitive one (nr(G), Theorem 1)
    code, out, _ = run(capsys, "nonrepetitive", g, "--cyclic-edges")
    assert code == ExitCode.OK and ("q", "p", "0") in edge_lines(out)


def test_simple_path_exists_iff_satisfiable(capsys, tmp_path):
    for formula, expected in ((SAT, ExitCode.OK), (UNSAT, ExitCode.NO_SOLUTION)):
        g = tmp_path / "g.txt"
        run(capsys, "gadget", "nrpath", formula, "-o", g)
        code, out, _ = run(capsys, "nonrepetitive", g, "--path", "--simple")
        assert code == expected
        # without simplicity there is always a nonrepetitive walk
        code, walk_out, _ = run(capsys, "nonrepetitive", g, "--path", "p", "q")
        assert code == ExitCode.OK and "nonrepetitive path from p to q" in walk_out
        if expected == ExitCode.OK:
            data = read_labelled_edges(g)
            names = edge_lines(out)
            assert names[0][0] == "p" and names[-1][1] == "q"
            heads = [h for _, h, _ in names]
            assert len(set(heads)) == len(heads)          # simple
            labels = [x for _, _, x in names]
            assert all(a != b for a, b in zip(labels, labels[1:]))
            assert len(names) <= data.graph.num_edges
        else:
            assert "not simple" in walk_out


def test_cyclic_edges_and_from_match_the_library(capsys, tmp_path):
    g = tmp_path / "g.txt"
    g.write_text("undirected\na b 0\nb c 1\nc a 2\nc d 0\nd e 1\n")
    graph = read_labelled_edges(g).graph
    code, out, _ = run(capsys, "nonrepetitive", g, "--cyclic-edges")
    expected = [graph.edge_names(e) for e in range(graph.num_edges) if cyclic_edges(graph)[e]]
    assert code == ExitCode.OK and edge_lines(out) == expected
    assert "# 3 of 5 edges lie on nonrepetitive cycles" in out
    code, out, _ = run(capsys, "nonrepetitive", g, "--from", "e", "--label", "1")
    mask = edges_from(graph, graph.vertex_id("e"), graph.label_id("1"))
    assert code == ExitCode.OK and len(edge_lines(out)) == int(mask.sum()) == 5


def test_path_with_dot_highlight(capsys, tmp_path):
    g, dot = tmp_path / "g.txt", tmp_path / "p.dot"
    g.write_text("directed\ns a 0\na t 0\na b 1\nb c 2\nc a 1\n")
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "s", "t", "--dot", dot)
    assert code == ExitCode.OK and "5 edges, not simple" in out
    assert dot.read_text().count("color=red") == 5
    graph = read_labelled_edges(g).graph
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "s", "t", "--simple")
    assert code == ExitCode.NO_SOLUTION
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "t", "s")
    assert code == ExitCode.NO_SOLUTION and "no nonrepetitive path" in out
    walk = [graph.arcs_between(graph.vertex_id(u), graph.vertex_id(v))[0]
            for u, v in (("s", "a"), ("a", "b"), ("b", "c"), ("c", "a"), ("a", "t"))]
    assert "not simple" in simple_path_problems(graph, walk, 0, graph.vertex_id("t"))[0]


def test_validate_fixed_examples(capsys):
    code, out, _ = run(capsys, "gadget", "nrpath", "--validate")
    assert code == ExitCode.OK
    lines = out.splitlines()
    assert lines[0].startswith("formula") and "result" in lines[0]
    rows = [line for line in lines[1:] if line.endswith(" ok")]
    assert len(rows) == 8
    assert "8 formulas (5 satisfiable, 3 unsatisfiable)" in out and "all agree" in out


def test_validate_random_and_a_given_formula(capsys):
    code, out, _ = run(capsys, "gadget", "nrpath", "--validate", "--random", 6, 30, 12,
                       "--seed", 5, "--cycle")
    assert code == ExitCode.OK and "12 formulas" in out and "all agree" in out
    assert sum(line.startswith("random-6-30-s") for line in out.splitlines()) == 12
    code, out, _ = run(capsys, "gadget", "nrpath", UNSAT, "--validate", "--summary")
    assert code == ExitCode.OK and out.startswith("1 formulas (0 satisfiable, 1 unsatisfiable)")


def test_validate_every_shipped_formula(capsys):
    files = sorted((INSTANCES / "formulas").glob("nrpath-*.cnf"))
    code, out, _ = run(capsys, "gadget", "nrpath", "--validate", *files)
    sat = sum(f.stem.endswith("-sat") for f in files)
    assert code == ExitCode.OK and "all agree" in out
    assert f"{len(files)} formulas ({sat} satisfiable, {len(files) - sat} unsatisfiable)" in out


@pytest.mark.parametrize("argv, message", [
    (["gadget", "nrpath"], "needs one FORMULA.cnf and -o"),
    (["gadget", "nrpath", SAT], "needs one FORMULA.cnf and -o"),
    (["gadget", "nrpath", SAT, "-o", "out.txt", "--random", 3, 3, 3], "--random goes with"),
    (["gadget", "nrpath", "--validate", "--random", 2, 3, 1], "at least 3 variables"),
    (["gadget", "nrpath", "--validate", "--random", 3, 3, 0], "COUNT must be at least 1"),
    (["gadget", "nrpath", "missing.cnf", "-o", "x.txt"], "missing.cnf: no such file"),
    (["gadget", "nrpath", INSTANCES / "4x4.txt", "-o", "x.txt"], "4x4.txt line 1"),
])
def test_gadget_errors_are_one_line(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.BAD_INPUT
    assert err.startswith("sudoku-bridge: error:") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_wide_clauses_are_refused(capsys, tmp_path):
    cnf = tmp_path / "wide.cnf"
    cnf.write_text("p cnf 4 1\n1 2 3 4 0\n")
    code, _, err = run(capsys, "gadget", "nrpath", cnf, "-o", tmp_path / "g.txt")
    assert code == ExitCode.BAD_INPUT and "clause 1" in err and "at most 3" in err
    assert not (tmp_path / "g.txt").exists()


@pytest.mark.parametrize("args, message", [
    (["--from", "zz", "--label", "0"], "g.txt: no vertex 'zz'"),
    (["--from", "a", "--label", "7"], "g.txt: no label '7'"),
    (["--from", "a"], "--from V needs --label L"),
    (["--cyclic-edges", "--label", "0"], "--label goes with --from"),
    (["--cyclic-edges", "--simple"], "--simple goes with --path"),
    (["--path"], "needs p= and q= in the header"),
    (["--path", "a"], "takes two vertices or none"),
    (["--simple-cycle", "b", "a"], "no arc from b to a"),
    (["--simple-cyclic-edges", "--label", "0"], "--label goes with --from"),
    (["--simple-cyclic-edges", "--simple"], "--simple goes with --path"),
    (["--path", "a", "b", "--simple", "--max-memory", "100K"], "needs a simple-path model"),
])
def test_nonrepetitive_errors_are_one_line(capsys, tmp_path, args, message):
    g = tmp_path / "g.txt"
    g.write_text("directed\na b 0\n")
    code, _, err = run(capsys, "nonrepetitive", g, *args)
    assert code == ExitCode.BAD_INPUT and message in err
    assert len(err.strip().splitlines()) == 1


def test_bad_graph_file_names_the_line(capsys, tmp_path):
    g = tmp_path / "g.txt"
    g.write_text("directed\na b 0\na b\n")
    code, _, err = run(capsys, "nonrepetitive", g, "--cyclic-edges")
    assert code == ExitCode.BAD_INPUT and "g.txt line 3" in err


# ----------------------------------------------------------------------------- simple paths

def graph_file(tmp_path, text: str, name: str = "g.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_simple_paths_undirected_by_theorem_3_directed_by_the_sat_model(capsys, tmp_path):
    edges = "p a 0\na b 1\nb q 0\na q 0\np b 1\n"
    for kind, method in (("undirected", "skew-symmetric"), ("directed", "sat")):
        g = graph_file(tmp_path, f"{kind}\n{edges}", f"{kind}.txt")
        code, out, _ = run(capsys, "nonrepetitive", g, "--path", "p", "q", "--simple")
        assert code == ExitCode.OK and f"({method})" in out.splitlines()[0]
        code, out, _ = run(capsys, "nonrepetitive", g, "--path", "p", "q", "--simple", "--json")
        record = json.loads(out)
        assert code == ExitCode.OK and record["method"] == method
        assert record["status"] == "found" and record["task"] == "simple-path"
        graph = read_labelled_edges(g).graph
        arcs = [graph.arcs_between(graph.vertex_id(t), graph.vertex_id(h))
                for t, h, _ in record["path"]]
        assert all(arcs) and record["length"] == len(arcs)
        path = []
        for (t, h, x), candidates in zip(record["path"], arcs):
            path.append(next(a for a in candidates if graph.arc_names(a)[2] == x))
        assert simple_path_problems(graph, path, graph.vertex_id("p"),
                                    graph.vertex_id("q")) == []
    # q -0- a -1- b -0- p is the only way back from q undirected; none directed
    g = graph_file(tmp_path, f"directed\n{edges}")
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "q", "p", "--simple", "--json")
    assert code == ExitCode.NO_SOLUTION and json.loads(out)["status"] == "none"


def test_no_simple_path_is_exit_1_and_p_equal_q_is_the_empty_path(capsys, tmp_path):
    g = graph_file(tmp_path, "undirected\np a 0\na q 0\np q 1\nq r 1\n")
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "p", "r", "--simple")
    assert code == ExitCode.NO_SOLUTION
    assert out.startswith("no simple nonrepetitive path from p to r (proved: no regular path")
    code, out, _ = run(capsys, "nonrepetitive", g, "--path", "p", "p", "--simple", "--json")
    record = json.loads(out)
    assert code == ExitCode.OK and record["length"] == 0 and record["path"] == []
    for task, needs in ((["--path", "p", "r", "--simple"],
                         "needs a skew-symmetric graph of at most 42 vertices and 60 arcs"),
                        (["--simple-cyclic-edges"], "needs")):
        code, out, err = run(capsys, "nonrepetitive", g, *task, "--max-memory", "100K")
        assert code == ExitCode.BAD_INPUT and out == "" and len(err.splitlines()) == 1
        assert needs in err


def random_simple_graph_file(tmp_path, seed: int, directed: bool):
    """A random graph without parallel edges (so that an edge is named by its ends), with
    self-loops, labels 1-4, written as a file."""
    rng = np.random.default_rng(seed)
    n = 9
    pairs = {tuple(sorted(e)) if not directed else tuple(e)
             for e in rng.integers(0, n, (22, 2)).tolist()}
    edges = [(f"v{t}", f"v{h}", str(int(rng.integers(1, 5)))) for t, h in sorted(pairs)]
    graph = LabelledGraph.from_edges(edges, directed=directed)
    path = tmp_path / f"r{seed}.txt"
    write_labelled_edges(path, graph)
    return path, edges


@pytest.mark.parametrize("directed", [False, True])
def test_simple_cyclic_edges_agree_with_simple_cycle_edge_by_edge(capsys, tmp_path, directed):
    listed_total = unlisted_total = 0
    for seed in range(3):
        g, edges = random_simple_graph_file(tmp_path, seed, directed)
        code, out, _ = run(capsys, "nonrepetitive", g, "--simple-cyclic-edges", "--json")
        record = json.loads(out)
        assert code == ExitCode.OK and record["status"] == "listed"
        assert record["method"] == ("sat" if directed else "skew-symmetric")
        listed = {tuple(e) for e in record["listed"]}
        assert record["count"] == len(listed)
        for t, h, x in edges:
            code, out, _ = run(capsys, "nonrepetitive", g, "--simple-cycle", t, h)
            assert code == (ExitCode.OK if (t, h, x) in listed else ExitCode.NO_SOLUTION)
        listed_total += len(listed)
        unlisted_total += len(edges) - len(listed)
        code, out, _ = run(capsys, "nonrepetitive", g, "--simple-cyclic-edges")
        assert set(edge_lines(out)) == listed
        assert f"# {len(listed)} of {len(edges)} edges lie on simple nonrepetitive" in out
    assert listed_total > 10 and unlisted_total > 5


def test_json_records_of_the_other_tasks(capsys, tmp_path):
    g = graph_file(tmp_path, "undirected\na b 0\nb c 1\nc a 2\nc d 0\nd e 1\n")
    for argv, task, method, status in (
            (["--cyclic-edges"], "cyclic-edges", "nr(G)", "listed"),
            (["--from", "e", "--label", "1"], "from", "nr(G)", "listed"),
            (["--path", "a", "e"], "path", "nr(G)", "found"),
            (["--simple-cycle", "a", "b"], "simple-cycle", "skew-symmetric", "found"),
            (["--simple-cycle", "c", "d"], "simple-cycle", "skew-symmetric", "none")):
        code, out, _ = run(capsys, "nonrepetitive", g, *argv, "--json")
        record = json.loads(out)
        assert (record["task"], record["method"], record["status"]) == (task, method, status)
        assert code == (ExitCode.NO_SOLUTION if status == "none" else ExitCode.OK)
        assert record["vertices"] == 5 and record["edges"] == 5 and record["seconds"] >= 0
    assert record["summary"].startswith("no simple nonrepetitive cycle through an arc c -> d")


def test_a_wrong_answer_is_caught_before_printing(capsys, tmp_path, monkeypatch):
    """The command checks what the search returns (exit 4, nothing on stdout)."""
    import reductions.nonrepetitive.simple_nonrepetitive as theorem3
    g = graph_file(tmp_path, "undirected\np a 0\na q 1\np b 1\nb c 1\nc q 0\n")
    monkeypatch.setattr(theorem3, "simple_path", lambda graph, p, q: [2, 3])   # p b b c
    code, out, err = run(capsys, "nonrepetitive", g, "--path", "p", "q", "--simple")
    assert code == ExitCode.MISMATCH and out == "" and "invalid path" in err
    monkeypatch.setattr(theorem3, "simple_cycle", lambda graph, arc: [arc, arc])
    code, out, err = run(capsys, "nonrepetitive", g, "--simple-cycle", "p", "a")
    assert code == ExitCode.MISMATCH and out == "" and "invalid cycle" in err
