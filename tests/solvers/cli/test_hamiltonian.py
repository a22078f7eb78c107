"""sudoku-bridge hamiltonian: answers against brute force, proofs only when proved, unknown on
a limit, tours checked, bad files in one line, several files, --json and --resume."""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from reductions.hamiltonian.graphs import hamiltonian_cycle_problem
from solvers.formats.tsplib import read_tour
from solvers.tools.graph_runs import solve_graph

PETERSEN = ([(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
            + [(5 + i, 5 + (i + 2) % 5) for i in range(5)])
K23 = [(a, b) for a in (0, 1) for b in (2, 3, 4)]          # bipartite, sides 2 and 3
PRISM = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)]


def brute_force(n: int, pairs, directed: bool) -> bool:
    """Whether a Hamiltonian cycle exists, by trying every order (n <= 9). One vertex: the
    loop 0→0 of a digraph is its cycle (an undirected loop is not a cycle)."""
    if n == 1:
        return directed and (0, 0) in {tuple(p) for p in pairs}
    have = {tuple(p) for p in pairs if p[0] != p[1]}
    if not directed:
        have |= {(b, a) for a, b in have}
    if n == 2 and not directed:
        return False
    for rest in itertools.permutations(range(1, n)):
        order = (0, *rest)
        if all((order[i], order[(i + 1) % n]) in have for i in range(n)):
            return True
    return False


def col_file(path, n: int, pairs) -> str:
    lines = [f"p {n} {len(pairs)}"] + [f"e {u + 1} {v + 1}" for u, v in pairs]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("graph, n", [(PETERSEN, 10), (K23, 5)])
@pytest.mark.parametrize("solver", ["sat", "cpsat"])
def test_no_cycle_is_exit_1(run, tmp_path, graph, n, solver):
    pytest.importorskip("ortools") if solver == "cpsat" else None
    code, out, err = run("hamiltonian", col_file(tmp_path / "g.col", n, graph),
                         "--solver", solver)
    assert code == 1, err
    assert ": no cycle (" in out


def test_time_limit_is_unknown_not_no_cycle(run, tmp_path):
    code, out, _ = run("hamiltonian", col_file(tmp_path / "g.col", 10, PETERSEN),
                       "--time-limit", "0")
    assert code == 3
    assert "unknown" in out and "no cycle" not in out


def test_tour_written_is_a_hamiltonian_cycle(run, tmp_path):
    graph = col_file(tmp_path / "g.col", 6, PRISM)
    code, out, _ = run("hamiltonian", graph, "-o", tmp_path / "g.tour")
    assert code == 0 and "hamiltonian" in out
    order = read_tour(tmp_path / "g.tour", 6)
    assert hamiltonian_cycle_problem(6, np.array(PRISM), order, directed=False) is None


def test_directed_reads_arcs(run, tmp_path):
    # 1→2→3→1 is a cycle; reversed arcs only would not be one as arcs of 3→... the
    # graph 1→2, 2→3, 1→3 has no directed Hamiltonian cycle but its undirected one has.
    graph = col_file(tmp_path / "g.col", 3, [(0, 1), (1, 2), (0, 2)])
    assert run("hamiltonian", graph)[0] == 0
    code, out, _ = run("hamiltonian", graph, "--directed")
    assert code == 1 and "arcs" in out


def test_bad_file_is_one_line_exit_2(run, tmp_path):
    path = tmp_path / "bad.col"
    path.write_text("p 3 2\ne 1 2\ne 2 4\n")
    code, out, err = run("hamiltonian", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "bad.col line 3" in err and "out of range" in err


def test_missing_file_is_exit_2(run, tmp_path):
    code, _, err = run("hamiltonian", tmp_path / "nothing.col")
    assert code == 2 and "no such file" in err


def test_folder_jobs_and_json_records(run, tmp_path):
    folder = tmp_path / "graphs"
    folder.mkdir()
    col_file(folder / "g2.col", 6, PRISM)
    col_file(folder / "g10.col", 10, PETERSEN)
    results = tmp_path / "out.jsonl"
    code, out, _ = run("hamiltonian", folder, "--jobs", "2", "--json", results)
    assert code == 1                                   # one graph proved to have none
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["file"].rsplit("/", 1)[1] for r in records] == ["g2.col", "g10.col"]
    assert [r["status"] for r in records] == ["hamiltonian", "no cycle"]
    tour = np.array(records[0]["tour"]) - 1
    assert hamiltonian_cycle_problem(6, np.array(PRISM), tour, directed=False) is None


def test_resume_rechecks_kept_tours(run, tmp_path):
    good = col_file(tmp_path / "a.col", 6, PRISM)
    other = col_file(tmp_path / "b.col", 6, PRISM)
    results = tmp_path / "out.jsonl"
    forged = {"file": other, "solver": "sat", "directed": False, "status": "hamiltonian",
              "tour": [1, 2, 3, 4, 5, 6]}          # 3→4 is not an edge: not believed
    assert run("hamiltonian", good, "--json", results)[0] == 0
    kept = json.loads(results.read_text())
    with open(results, "a") as out:
        out.write(json.dumps(forged) + "\n" + '{"file": "cut off')
    code, _, _ = run("hamiltonian", good, other, "--json", results, "--resume")
    assert code == 0
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert records[0] == kept                                  # kept as it was
    assert records[1]["tour"] != forged["tour"]                # run again
    tour = np.array(records[1]["tour"]) - 1
    assert hamiltonian_cycle_problem(6, np.array(PRISM), tour, directed=False) is None


def _available(solver: str) -> bool:
    if solver == "lkh":
        from solvers.tools.lkh import unavailable_reason
        return unavailable_reason() is None
    if solver == "cpsat":
        return _has_ortools()
    return solver == "sat" or shutil.which(solver) is not None


ALL_SOLVERS = ["sat", "cpsat", "lkh", "linkern", "concorde"]


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_every_solver_same_answers_or_not_available(run, tmp_path, solver):
    """The prism has a cycle: every solver that runs here finds it (a checked tour); on the
    Petersen graph the exact ones prove there is none, the heuristics say unknown. A solver
    missing here is 'not available' (a package: how to install it), exit 2."""
    prism = col_file(tmp_path / "prism.col", 6, PRISM)
    petersen = col_file(tmp_path / "petersen.col", 10, PETERSEN)
    code, out, err = run("hamiltonian", prism, "--solver", solver, "--time-limit", "20",
                         "-o", tmp_path / "t.tour")
    if not _available(solver):
        # one line naming the solver, and for a missing package how to get it
        assert code == 2 and len(err.splitlines()) == 1 and solver in err
        assert "not available" in err or "pip install" in err
        return
    assert code == 0, err
    order = read_tour(tmp_path / "t.tour", 6)
    assert hamiltonian_cycle_problem(6, np.array(PRISM), order, directed=False) is None
    code, _, err = run("hamiltonian", petersen, "--solver", solver, "--time-limit", "5")
    assert code == (1 if solver in ("sat", "cpsat", "concorde") else 3), err


BRUTE_PROGRAM = textwrap.dedent("""\
    import itertools, sys
    lines = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
    n = int(sys.argv[3])
    have = {(int(a), int(b)) for a, b in lines} | {(int(b), int(a)) for a, b in lines}
    for rest in itertools.permutations(range(1, n)):
        order = (0, *rest)
        if all((order[i], order[(i + 1) % n]) in have for i in range(n)):
            open(sys.argv[2], "w").write(" ".join(str(v + 1) for v in order) + "\\n")
            break
    """)


def test_hcp_cmd_fake_program_agrees(run, tmp_path):
    """A real process (a brute-force script) through --hcp-cmd: its tour is checked and
    accepted; on a graph without a cycle it gives none, which is unknown, not no cycle."""
    program = tmp_path / "brute.py"
    program.write_text(BRUTE_PROGRAM)
    for pairs, n, expected in ((PRISM, 6, 0), (PETERSEN, 10, 3)):
        graph = col_file(tmp_path / f"g{n}.col", n, pairs)
        template = f"{sys.executable} {program} {{input.edgelist}} {{output}} {n}"
        code, out, err = run("hamiltonian", graph, "--hcp-cmd", template)
        assert code == expected, err


def test_hcp_cmd_wrong_tour_is_not_accepted(run, tmp_path):
    program = tmp_path / "liar.py"
    program.write_text("import sys\nopen(sys.argv[1], 'w').write('1 2 3 4 5 6\\n')\n")
    graph = col_file(tmp_path / "g.col", 6, PRISM)
    code, out, _ = run("hamiltonian", graph, "--hcp-cmd",
                       f"{sys.executable} {program} {{output}} {{input}}")
    assert code == 3 and "hamiltonian" not in out


@st.composite
def small_graphs(draw):
    n = draw(st.integers(1, 8))
    all_pairs = [(u, v) for u in range(n) for v in range(n)]
    pairs = draw(st.lists(st.sampled_from(all_pairs), max_size=3 * n)) if all_pairs else []
    return n, pairs, draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_graphs())
def test_solvers_agree_with_brute_force(graph):
    n, pairs, directed = graph
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    expected = brute_force(n, pairs, directed)
    solvers = ["sat"] + (["cpsat"] if _has_ortools() else [])
    for solver in solvers:
        result = solve_graph(n, array, directed=directed, solver=solver, time_limit=None)
        assert str(result.status) == ("hamiltonian" if expected else "no cycle"), solver
        if expected:
            assert hamiltonian_cycle_problem(n, array, result.cycle, directed) is None


def _has_ortools() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


def test_orientation_clauses_keep_one_direction_of_each_cycle():
    """Every undirected Hamiltonian cycle of K5 satisfies the clauses in exactly one of its
    two directions (so the portfolio's 'no cycle' loses none)."""
    from solvers.hamiltonian.graph_input import normalized_graph
    from solvers.hamiltonian.portfolio import orientation_clauses
    n = 5
    arcs = normalized_graph(n, [(u, v) for u in range(n) for v in range(n) if u != v], True)
    index = {tuple(a): e + 1 for e, a in enumerate(arcs.tolist())}
    clauses = orientation_clauses(n, arcs)
    assert clauses
    for rest in itertools.permutations(range(1, n)):
        if rest[0] > rest[-1]:
            continue                                 # each undirected cycle once
        order = (0, *rest)
        kept = []
        for seq in (order, order[::-1]):
            true = {index[(seq[i], seq[(i + 1) % n])] for i in range(n)}
            kept.append(all(any(abs(l) not in true for l in c) for c in clauses))
        assert sum(kept) == 1, order


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_graphs())
def test_plain_and_portfolio_sat_agree(graph):
    n, pairs, directed = graph
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    answers = {str(solve_graph(n, array, directed=directed, solver="sat", time_limit=None,
                               portfolio=flag).status) for flag in (True, False)}
    assert answers == {"hamiltonian" if brute_force(n, pairs, directed) else "no cycle"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_graphs())
def test_portfolio_members_taking_short_turns_agree_with_brute_force(graph):
    """Turns of 0.1 ms: the members (CP-SAT with the shared cuts among them, the orientation
    fixed or not) take over from each other many times per graph."""
    from solvers.hamiltonian.graph_input import normalized_graph
    from solvers.hamiltonian.portfolio import solve_with_portfolio
    from solvers.runtime.budget import Deadline
    n, pairs, directed = graph
    if n < 3:
        return                        # the caller answers these (no simple cycle, loops)
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    both = array if directed else np.concatenate([array, array[:, ::-1]])
    arcs = normalized_graph(n, both, True)
    if len(arcs) == 0 or np.bincount(arcs[:, 0], minlength=n).min() == 0 \
            or np.bincount(arcs[:, 1], minlength=n).min() == 0:
        return                        # the caller's degree check answers these
    members = (("cpsat", True), ("minisat22", False), ("glucose4", True)) \
        if _has_ortools() else (("minisat22", False), ("glucose4", True))
    result = solve_with_portfolio(n, arcs, undirected=not directed, deadline=Deadline(None),
                                  configurations=members, first_slice=1e-4)
    expected = brute_force(n, pairs, directed)
    assert str(result.status) == ("hamiltonian" if expected else "no cycle")
    if expected:
        assert hamiltonian_cycle_problem(n, array, result.cycle, directed) is None


def test_dimension_larger_than_the_edges_is_a_proved_no_cycle(run, tmp_path):
    path = tmp_path / "g.hcp"
    path.write_text("NAME : g\nTYPE : HCP\nDIMENSION : 7\nEDGE_DATA_SECTION\n"
                    + "".join(f"{u + 1} {v + 1}\n" for u, v in PRISM) + "-1\nEOF\n")
    code, out, _ = run("hamiltonian", path)
    assert code == 1 and "vertex 6 has degree 0" in out


def test_loops_and_repeated_edges_are_ignored_with_a_note(run, tmp_path):
    graph = col_file(tmp_path / "g.col", 6, PRISM + [(2, 2), (1, 0), (0, 1)])
    code, out, _ = run("hamiltonian", graph)
    assert code == 0
    assert "ignored 1 loop(s), 2 repeated pair(s)" in out


def test_outside_tsp_solver_refuses_a_directed_graph(run, tmp_path):
    code, _, err = run("hamiltonian", col_file(tmp_path / "g.col", 6, PRISM), "--directed",
                       "--solver", "lkh")
    assert code == 2 and "undirected graphs only" in err


def test_compressed_json_name_is_refused(run, tmp_path):
    code, _, err = run("hamiltonian", col_file(tmp_path / "g.col", 6, PRISM), "--json",
                       tmp_path / "r.jsonl.gz")
    assert code == 2 and "written plain" in err and not (tmp_path / "r.jsonl.gz").exists()
