"""Certified answers of the hcp routes (solvers/certify/hcp_puzzle.py): the route answers,
then its "no solution" or "unique" is proved on the puzzle's directed Haythorpe graph by a
real proof and a real checker process. Each tamper is first shown to break the proof (the
tampered formula is satisfiable, or unit propagation alone does not refute it), and each
false claim fed in is shown never to come out certified.

drat-trim and cake_lpr are built from source (their cases skip without them); dratify comes
with the ``certify`` extra, so CI certifies for real through it."""

from __future__ import annotations

import importlib.util
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pysat.solvers import Solver

from reductions.hamiltonian.hcp_pipeline import grid_pairs
from reductions.sudoku.grid import Grid, parse_grid
from solvers.certify import hamiltonian as certify_hcp
from solvers.certify.checkers import ProofRejected, check_proof, find_checker
from solvers.certify.hamiltonian import arc_variables, certified_arcs
from solvers.certify.hcp_puzzle import certify_hcp_outcome, puzzle_graph
from solvers.certify.refutation import CertifyOptions
from solvers.outcome import Outcome, Status, WrongAnswer

from tests.conftest import INSTANCES
from tests.processes import script
from tests.solvers.certify.checkers import MEMORY, checker  # noqa: F401
from tests.solvers.certify.test_certify import MULTIPLE, ROYLE, SEARCH_NEEDED, UNSOLVABLE

FOUR = [line for line in (INSTANCES / "4x4.txt").read_text().splitlines()
        if line and not line.startswith("#")]
NO_4X4 = "...1..2.2.4..3.."
"""A 4×4 puzzle without solution, its clues peer-consistent; the degree-2 reduction refutes
its graph by itself (a ring of degree-2 vertices)."""

pytestmark = pytest.mark.skipif(importlib.util.find_spec("dratify") is None,
                                reason="dratify not installed (pip install '.[certify]'): "
                                       "every test here checks through it at least")


def solve_json(run, puzzle: str, *argv) -> tuple[int, dict, str]:
    code, out, err = run("solve", puzzle, "--certify", "--checker", "dratify", "--json", *argv)
    return code, (json.loads(out) if out else {}), err


def dratify() -> CertifyOptions:
    return CertifyOptions(find_checker("dratify"), MEMORY)


def read_cnf(path) -> list[list[int]]:
    return [[int(x) for x in line.split()[:-1]] for line in path.read_text().splitlines()
            if line and line[0] not in "cp"]


# ----------------------------------------------------------------------------- no solution

@pytest.mark.parametrize("puzzle, argv", [
    (SEARCH_NEEDED[0], ["--via", "hcp"]),               # directed, peers pruning
    (SEARCH_NEEDED[0], ["--via", "hcp", "--graph", "undirected"]),      # the 3-split
    (NO_4X4, ["--via", "hcp", "--graph", "undirected", "--triple"]),
    (NO_4X4, ["--via", "hcp", "--prune", "none"]),      # clues as required arcs (unit clauses)
])
def test_no_solution_is_certified_through_each_graph(run, puzzle, argv):
    code, record, err = solve_json(run, puzzle, *argv)
    assert (code, err) == (1, "")
    assert record["status"] == "no solution" and record["certified"] == "dratify"
    assert record["stats"]["proof_bytes"] > 0
    assert record["stats"]["certified_on"].startswith("directed graph, prune ")


def test_the_reductions_own_no_cycle_is_certified_by_a_checker(run):
    """hcp-undirected: the degree-2 reduction answers "no cycle" before any solver; that
    claim of our code is proved again on the digraph it started from, by a checked proof."""
    code, record, err = solve_json(run, NO_4X4, "--via", "hcp-undirected")
    assert (code, err) == (1, "")
    assert record["stats"]["reason"].startswith("the degree-2 reduction proves no")
    assert record["stats"]["sizes"][-1]["vertices"] == 0     # no solver ever ran
    assert record["certified"] == "dratify" and record["stats"]["proof_bytes"] > 0


def test_a_graph_without_a_cycle_on_its_face_is_still_proved_to_a_checker(run):
    """A cell without candidates: its peers-pruned digraph is not strongly connected, which
    a reachability search of ours sees — not a checker; the puzzle's plain CNF is then
    proved unsatisfiable instead, and the record says so."""
    code, record, err = solve_json(run, UNSOLVABLE[-1], "--via", "hcp-directed")
    assert (code, err) == (1, "")
    assert record["certified"] == "dratify" and record["stats"]["proof_bytes"] > 0
    assert record["stats"]["certified_on"].startswith("plain CNF, clues as units (the "
                                                      "directed graph: not strongly connected")


def test_each_checker_certifies_no_solution(run, checker):  # noqa: F811
    code, out, err = run("solve", SEARCH_NEEDED[2], "--via", "hcp-directed", "--certify",
                         "--checker", checker.name)
    assert (code, err) == (1, "")
    assert out == f"no solution: the puzzle has no valid completion (certified by " \
                  f"{checker.name})\n"


# ----------------------------------------------------------------------------- uniqueness

@pytest.mark.parametrize("puzzle, argv", [
    (ROYLE[0], ["--via", "hcp"]),
    (ROYLE[1], ["--via", "hcp-undirected"]),
    (FOUR[0], ["--via", "hcp", "--prune", "none"]),
    (FOUR[1], ["--via", "hcp", "--graph", "undirected", "--triple"]),
])
def test_unique_is_certified_through_the_cycle(run, puzzle, argv):
    code, record, err = solve_json(run, puzzle, "--unique", *argv)
    assert (code, err) == (0, "")
    assert record["unique"] is True and record["certified"] == "dratify"
    assert record["stats"]["proof_bytes"] > 0


def test_several_solutions_need_no_certificate(run):
    code, record, err = solve_json(run, MULTIPLE[0], "--unique", "--via", "hcp-undirected")
    assert (code, err) == (0, "")
    assert record["unique"] is False and record["second_solution"] != record["solution"]
    assert "certified" not in record


def test_the_blocking_clause_leaves_every_other_solution(tmp_path):
    """Its soundness, shown on a puzzle with several solutions: the digraph's formula with
    the clause blocking one grid still has a Hamiltonian cycle, of another verified grid —
    so a 'unique' claimed there is refused, never certified."""
    puzzle = parse_grid(MULTIPLE[0])
    first = certify_hcp_outcome(puzzle, Outcome(Status.SOLVED, parse_grid(
        (INSTANCES / "haythorpe-17clue.solution.txt").read_text())), prune="peers",
        certify=dratify())
    assert "certified" not in first.stats       # not asked: no claim of uniqueness
    first.unique = True                          # a route that lied
    with pytest.raises(WrongAnswer, match="has a Hamiltonian cycle"):
        certify_hcp_outcome(puzzle, first, prune="peers", certify=dratify())


def test_a_false_no_solution_is_never_certified():
    """A solvable puzzle said to have no solution (as a wrong reduction or solver would):
    the certified formula finds the cycle."""
    with pytest.raises(WrongAnswer, match="has a Hamiltonian cycle"):
        certify_hcp_outcome(parse_grid(FOUR[2]), Outcome(Status.NO_SOLUTION),
                            prune="paper", certify=dratify())


def test_the_row_exits_spell_out_the_grid_and_no_other():
    """What the blocking clause rests on: the first grid's cycle walks every row exit of the
    first grid, and the cycle of a second solution leaves at least one of them out."""
    from solvers.routes import ROUTES
    puzzle = parse_grid(MULTIPLE[0])
    outcome = ROUTES["sat"].solve(puzzle, unique=True)
    assert outcome.unique is False
    graph = puzzle_graph(puzzle, "peers")
    arcs = certified_arcs(graph.num_vertices, graph.edges, directed=True)

    def walked(grid: Grid) -> set[int]:
        cycle = graph.tour_of_solution(grid).tolist()
        steps = list(zip(cycle, cycle[1:] + cycle[:1]))
        return set(arc_variables(graph.num_vertices, arcs, steps).tolist())

    exits = set(arc_variables(graph.num_vertices, arcs,
                              grid_pairs(graph, outcome.grid)).tolist())
    assert len(exits) == 81 and exits <= walked(outcome.grid)
    assert exits - walked(outcome.second)


FULL_4X4 = "3421124321344312"          # a solution of FOUR[0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.integers(0, 15), min_size=5, max_size=10), st.permutations("1234"))
def test_unique_is_certified_exactly_when_it_is_true(clues, digits):
    """Any 4×4 puzzle cut from a full grid, its first grid claimed unique: the claim is
    certified when the puzzle has one solution (the sat route's count), and refused — the
    blocked formula has the other solution's cycle — when it has more."""
    from solvers.routes import ROUTES
    full = "".join(digits[int(c) - 1] for c in FULL_4X4)
    puzzle = parse_grid("".join(full[i] if i in clues else "." for i in range(16)))
    truth = ROUTES["sat"].solve(puzzle, unique=True)
    claim = Outcome(Status.SOLVED, truth.grid, unique=True)
    if truth.unique:
        done = certify_hcp_outcome(puzzle, claim, prune="peers", certify=dratify())
        assert done.unique is True and done.stats["certified"] == "dratify"
    else:
        with pytest.raises(WrongAnswer):
            certify_hcp_outcome(puzzle, claim, prune="peers", certify=dratify())


# ----------------------------------------------------------------------------- tampers

def test_a_proof_without_the_blocking_clause_is_rejected(tmp_path):
    """The kept formula less its blocking clause is satisfiable (the first grid's cycle), so
    the kept proof must not check against it."""
    keep = tmp_path / "kept"
    keep.mkdir()
    certify = CertifyOptions(find_checker("dratify"), MEMORY, keep)
    puzzle = parse_grid(FOUR[3])
    solution = _solution(FOUR[3])
    outcome = certify_hcp_outcome(puzzle, Outcome(Status.SOLVED, solution, unique=True),
                                  prune="peers", certify=certify, name="u")
    assert outcome.stats["certified"] == "dratify"
    graph = puzzle_graph(puzzle, "peers")
    arcs = certified_arcs(graph.num_vertices, graph.edges, directed=True)
    blocking = sorted(-v for v in arc_variables(graph.num_vertices, arcs,
                                                grid_pairs(graph, solution)).tolist())
    clauses = read_cnf(keep / "u.cnf")
    assert sum(sorted(c) == blocking for c in clauses) == 1
    tampered = [c for c in clauses if sorted(c) != blocking]
    with Solver(name="cadical195", bootstrap_with=tampered) as sat:
        assert sat.solve()                       # the tamper breaks the proof
    lines = (keep / "u.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    variables = lines[header].split()[2]
    (tmp_path / "t.cnf").write_text(f"p cnf {variables} {len(tampered)}\n" + "".join(
        " ".join(map(str, c)) + " 0\n" for c in tampered))
    with pytest.raises(ProofRejected):
        check_proof(certify.checker, tmp_path / "t.cnf", keep / "u.drat", work=tmp_path,
                    time_limit=60, memory_limit=MEMORY, claim="tampered", plain=True)


def test_an_empty_proof_is_exit_4(run, tmp_path, monkeypatch):
    """A solver that claims UNSAT with an empty proof: unit propagation does not refute the
    certified formula (shown first), so dratify rejects it and the answer is exit 4."""
    keep = tmp_path / "kept"
    keep.mkdir()
    code, _, err = run("solve", SEARCH_NEEDED[0], "--via", "hcp", "--certify", "--checker",
                       "dratify", "--keep-proofs", keep)
    assert code == 1, err
    with Solver(name="cadical195", bootstrap_with=read_cnf(keep / "puzzle.cnf")) as sat:
        assert sat.propagate()[0]                # no conflict from unit propagation
    real = certify_hcp.solve_with_proof

    def empty_proof(clauses, **kwargs):
        done = real(clauses, **kwargs)
        if done.satisfiable is False:
            done.proof = []
        return done
    monkeypatch.setattr(certify_hcp, "solve_with_proof", empty_proof)
    code, out, err = run("solve", SEARCH_NEEDED[0], "--via", "hcp", "--certify", "--checker",
                         "dratify")
    assert (code, out) == (4, "") and "rejected by dratify" in err


# ----------------------------------------------------------------------------- refusals, exit codes

@pytest.mark.parametrize("argv, message", [
    (["--via", "lkh"], "lkh is not certified"),
    (["--via", "hcp", "--hcp-solver", "linkern", "--graph", "undirected"],
     "linkern is not certified"),
    (["--via", "hcp", "--hcp-cmd", "true {input} {output}"], "--hcp-cmd is not certified"),
    (["--via", "hcp", "--break-symmetry"], "drop it"),
])
def test_heuristics_are_refused_in_one_line(run, argv, message):
    code, out, err = run("solve", SEARCH_NEEDED[0], "--certify", "--checker", "dratify", *argv)
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1


def test_a_missing_checker_is_exit_2_before_any_work(run, tmp_path, monkeypatch):
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(tmp_path / "nowhere"))
    code, out, err = run("solve", SEARCH_NEEDED[0], "--via", "hcp", "--certify",
                         "--checker", "drat-trim")
    assert (code, out) == (2, "") and "SUDOKU_BRIDGE_DRAT_TRIM" in err


def test_a_checker_past_its_time_limit_is_exit_3(run, tmp_path, monkeypatch):
    fake = script(tmp_path / "drat-trim", "exec sleep 30\n")
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(fake))
    code, out, err = run("solve", SEARCH_NEEDED[0], "--via", "hcp", "--certify",
                         "--checker", "drat-trim", "--time-limit", "3")
    assert code == 3, (out, err)
    assert out.startswith("unknown: no answer: not certified")


# ----------------------------------------------------------------------------- crosscheck

def test_crosscheck_certifies_the_hcp_routes(run, tmp_path):
    """Without a SAT peer: the hcp routes' own claims are certified."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join([SEARCH_NEEDED[0], ROYLE[2], MULTIPLE[0]]) + "\n")
    results = tmp_path / "cc.jsonl"
    code, out, err = run("crosscheck", puzzles, "--routes", "hcp-directed,hcp-undirected",
                         "--unique", "--certify", "--checker", "dratify", "--json", results)
    assert code == 0, err
    assert "certified by dratify: 4 of 4 negative claims" in out
    records = {(r["puzzle_id"].split(":")[1], r["route"]): (r["status"], r.get("unique"),
                                                           r.get("certified"))
               for r in map(json.loads, results.read_text().splitlines())}
    for route in ("hcp-directed", "hcp-undirected"):
        assert records["1", route] == ("no solution", None, "dratify")
        assert records["2", route] == ("solved", True, "dratify")
        assert records["3", route] == ("solved", False, None)


def _solution(text: str) -> Grid:
    """The unique solution of a small puzzle (by the sat route, verified there)."""
    from solvers.routes import ROUTES
    return ROUTES["sat"].solve(parse_grid(text)).grid
