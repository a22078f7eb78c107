"""Certified negative answers (solvers/certify/): real solvers write real proofs, real checker
processes judge them. Every tamper is first shown to break the proof (the formula it is
checked against is satisfiable, or unit propagation alone does not refute it), so that a
rejection means the checker works.

drat-trim and cake_lpr are not packages (built from source): their tests skip without them.
dratify comes with the ``certify`` extra, so CI checks certification for real through it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

from reductions.encodings.cnf import sudoku_cnf
from reductions.sudoku.grid import parse_grid
from solvers.certify.checkers import (CheckerUnavailable, ProofRejected, check_proof,
                                      find_checker)
from solvers.certify.proofs import (PROOF_SOLVERS, proof_solver, solve_with_proof,
                                    write_proof)
from solvers.certify.sudoku import blocking_clause
from solvers.formats.dimacs import write_cnf
from solvers.outcome import SolverUnavailable
from solvers.runtime.budget import Deadline

from tests.conftest import INSTANCES
from tests.solvers.certify.checkers import (MEMORY, NEEDS_DRATIFY, checker,  # noqa: F401
                                            checker_or_skip)
from tests.processes import script

UNSOLVABLE = [line for line in (INSTANCES / "unsolvable.txt").read_text().splitlines()
              if line and not line.startswith("#")]
SEARCH_NEEDED = UNSOLVABLE[:3]          # unit propagation does not refute these (the file says)
ROYLE = [line.split()[0] for line in (INSTANCES / "royle17-sample300.txt").read_text()
         .splitlines() if line and not line.startswith("#")]
MULTIPLE = [line for line in (INSTANCES / "multiple-solutions.txt").read_text().splitlines()
            if line and not line.startswith("#")]
MEMORY = 1 << 30

pytestmark = pytest.mark.skipif(importlib.util.find_spec("dratify") is None,
                                reason="dratify not installed (pip install '.[certify]'): "
                                       "every test here checks through it at least")


def clauses_of(text: str, *, blocked: bool = False) -> list[list[int]]:
    """The plain formula of a puzzle (clue units); ``blocked``: plus the clause blocking its
    first solution (cadical195's)."""
    puzzle = parse_grid(text)
    clauses = list(sudoku_cnf(puzzle, "extended", "auto", "units").iter_clauses())
    if blocked:
        from reductions.encodings.cnf import grid_from_model
        run = solve_with_proof(clauses, solver="cadical195", deadline=Deadline(None))
        grid = grid_from_model(sudoku_cnf(puzzle), run.model)
        clauses.append(blocking_clause(puzzle, grid))
    return clauses


def write_formula(path: Path, clauses: list[list[int]], num_vars: int = 729) -> Path:
    write_cnf(path, num_vars, [clauses])
    return path


def proof_of(clauses, solver: str = "cadical195") -> list[str]:
    run = solve_with_proof(clauses, solver=solver, deadline=Deadline(None))
    assert run.satisfiable is False
    return run.proof


def satisfiable(clauses) -> bool:
    return solve_with_proof(clauses, solver="cadical195",
                            deadline=Deadline(None)).satisfiable


def check(checker, tmp_path: Path, clauses, proof_lines: list[str] | None, *,
          raw: str | None = None):
    cnf = write_formula(tmp_path / "f.cnf", clauses)
    proof = tmp_path / "p.drat"
    if raw is not None:
        proof.write_text(raw)
    else:
        write_proof(proof_lines, proof, max_bytes=MEMORY)
    return check_proof(checker, cnf, proof, work=tmp_path, time_limit=60,
                       memory_limit=MEMORY, claim="the test's proof")


# ----------------------------------------------------------------------------- checkers

def test_each_checker_accepts_a_real_proof_and_names_itself(checker, tmp_path):
    clauses = clauses_of(SEARCH_NEEDED[0])
    result = check(checker, tmp_path, clauses, proof_of(clauses))
    assert result.certified and result.checker == checker.name and result.proof_bytes > 2


def test_each_checker_rejects_another_formulas_proof(checker, tmp_path):
    """The proof of an unsolvable puzzle, against a solvable puzzle's formula: the formula
    is satisfiable, so no proof of it can be right."""
    target = clauses_of(ROYLE[0])
    assert satisfiable(target)
    with pytest.raises(ProofRejected, match=checker.name if checker.name != "cake_lpr"
                       else "drat-trim|cake_lpr"):
        check(checker, tmp_path, target, proof_of(clauses_of(SEARCH_NEEDED[0])))


def test_each_checker_rejects_an_empty_proof_where_propagation_does_not_refute(checker,
                                                                               tmp_path):
    from pysat.solvers import Solver
    clauses = clauses_of(SEARCH_NEEDED[1])
    with Solver("cadical195", bootstrap_with=clauses) as sat:
        no_conflict, _ = sat.propagate()
    assert no_conflict                          # so the empty proof really proves nothing
    assert not satisfiable(clauses)
    with pytest.raises(ProofRejected):
        check(checker, tmp_path, clauses, None, raw="")


def test_an_empty_proof_is_accepted_where_propagation_refutes(checker, tmp_path):
    """The converse, so that the test above cannot pass by rejecting every empty proof for
    another reason: the last unsolvable puzzle has a cell without candidates."""
    clauses = clauses_of(UNSOLVABLE[-1])
    assert check(checker, tmp_path, clauses, [], raw="0\n").certified


def test_dratify_runs_without_rat_steps(tmp_path):
    """dratify's RAT check accepts this proof that a satisfiable formula is not; ours
    refuses it (RUP only)."""
    checker = checker_or_skip("dratify")
    clauses = [[1], [-1, 2]]
    assert satisfiable(clauses)
    cnf = write_formula(tmp_path / "sat.cnf", clauses, num_vars=2)
    proof = tmp_path / "trick.drat"
    proof.write_text("d -1 2 0\n-2 0\n0\n")
    with pytest.raises(ProofRejected, match="dratify"):
        check_proof(checker, cnf, proof, work=tmp_path, time_limit=60, memory_limit=MEMORY,
                    claim="the trick")


def test_a_check_out_of_time_is_not_certified(checker, tmp_path):
    clauses = clauses_of(SEARCH_NEEDED[0])
    cnf = write_formula(tmp_path / "f.cnf", clauses)
    write_proof(proof_of(clauses), tmp_path / "p.drat", max_bytes=MEMORY)
    result = check_proof(checker, cnf, tmp_path / "p.drat", work=tmp_path, time_limit=0,
                         memory_limit=MEMORY, claim="x")
    assert not result.certified and "time limit" in result.unfinished


def test_a_missing_checker_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SUDOKU_BRIDGE_DRAT_TRIM", raising=False)
    monkeypatch.delenv("SUDOKU_BRIDGE_CAKE_LPR", raising=False)
    for name in ("drat-trim", "cake_lpr"):
        with pytest.raises(CheckerUnavailable, match="build drat-trim"):
            find_checker(name)
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(tmp_path / "nowhere"))
    with pytest.raises(SolverUnavailable, match="SUDOKU_BRIDGE_DRAT_TRIM"):
        find_checker("drat-trim")


# ----------------------------------------------------------------------------- proof solvers

@pytest.mark.parametrize("solver", PROOF_SOLVERS)
def test_every_proof_solver_writes_proofs_that_check(solver, tmp_path):
    """No solution (two puzzles that need search) and uniqueness (a blocked 17-clue
    puzzle), each proof accepted by dratify and, when present, drat-trim."""
    checkers = [find_checker("dratify")]
    try:
        checkers.append(find_checker("drat-trim"))
    except CheckerUnavailable:
        pass
    for clauses in (clauses_of(SEARCH_NEEDED[0]), clauses_of(SEARCH_NEEDED[2]),
                    clauses_of(ROYLE[1], blocked=True)):
        proof = proof_of(clauses, solver)
        for each in checkers:
            assert check(each, tmp_path, clauses, proof).certified, (solver, each.name)


def test_maplesat_is_refused_and_its_proofs_really_fail(tmp_path):
    with pytest.raises(SolverUnavailable, match="maplesat cannot be certified.*#139"):
        proof_solver("maplesat")
    clauses = clauses_of(SEARCH_NEEDED[0])
    run = solve_with_proof(clauses, solver="maplesat", deadline=Deadline(None))
    with pytest.raises(ProofRejected):
        check(find_checker("dratify"), tmp_path, clauses, run.proof)


@pytest.mark.parametrize("name", ["minisat22", "m22", "kissat404", "mergesat3"])
def test_solvers_without_proofs_are_refused(name):
    with pytest.raises(SolverUnavailable, match="writes no proof"):
        proof_solver(name)


def test_aliases_are_certified_under_their_names():
    assert proof_solver("cd19") == "cadical195" and proof_solver("g3") == "glucose3"


# ----------------------------------------------------------------------------- command line

def test_solve_certify_no_solution(run):
    code, out, err = run("solve", SEARCH_NEEDED[0], "--certify", "--checker", "dratify")
    assert (code, err) == (1, "")
    assert out == "no solution: the puzzle has no valid completion (certified by dratify)\n"


def test_sat_glucose_certifies_on_the_plain_formula(run):
    """Its preset clue elimination gives way: Glucose 4 and the minimal encoding, clues as
    unit clauses."""
    code, out, err = run("solve", SEARCH_NEEDED[2], "--via", "sat-glucose", "--certify",
                         "--checker", "dratify", "--json")
    record = json.loads(out)
    assert (code, err) == (1, "") and record["certified"] == "dratify"
    assert (record["stats"]["solver"], record["stats"]["encoding"],
            record["stats"]["clues"]) == ("glucose4", "minimal", "units")


def test_solve_without_certify_says_whose_word_it_is(run):
    code, out, _ = run("solve", SEARCH_NEEDED[0])
    assert code == 1 and "(cadical195, uncertified)" in out


def test_solve_certify_unique_with_records(run, tmp_path):
    code, out, err = run("solve", ROYLE[2], "--certify", "--unique", "--checker", "dratify",
                         "--json", "--solver", "glucose4")
    record = json.loads(out)
    assert (code, err) == (0, "") and record["unique"] is True
    assert record["certified"] == "dratify" and record["stats"]["proof_bytes"] > 0


def test_several_solutions_need_no_certificate(run):
    code, out, err = run("solve", MULTIPLE[0], "--certify", "--unique", "--checker", "dratify",
                         "--json")
    record = json.loads(out)
    assert code == 0 and record["unique"] is False and record["second_solution"]
    assert "certified" not in record


def test_keep_proofs_keeps_what_a_checker_accepts_again(run, tmp_path):
    keep = tmp_path / "proofs"
    keep.mkdir()
    code, out, err = run("solve", SEARCH_NEEDED[1], "--certify", "--checker", "dratify",
                         "--keep-proofs", keep)
    assert code == 1, err
    assert sorted(p.name for p in keep.iterdir()) == ["puzzle.cnf", "puzzle.drat"]
    again = check_proof(find_checker("dratify"), keep / "puzzle.cnf", keep / "puzzle.drat",
                        work=tmp_path, time_limit=60, memory_limit=MEMORY, claim="kept")
    assert again.certified


def test_a_file_is_certified_in_batches(run, tmp_path):
    """Unsolvable, unique and several-solution puzzles in one file: one proof for the
    batch, every negative claim certified, the several-solution one without a claim."""
    puzzles = tmp_path / "mixed.txt"
    puzzles.write_text("\n".join([SEARCH_NEEDED[0], ROYLE[5], MULTIPLE[0], UNSOLVABLE[-1],
                                   ROYLE[6]]) + "\n")
    code, out, err = run("solve", puzzles, "--certify", "--unique", "--json",
                         "--checker", "dratify")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and "certified 4" in err
    assert [(r["status"], r["unique"], r.get("certified")) for r in records] == [
        ("no solution", None, "dratify"), ("solved", True, "dratify"),
        ("solved", False, None), ("no solution", None, "dratify"),
        ("solved", True, "dratify")]


def test_a_batch_formula_missing_one_blocking_clause_is_rejected(tmp_path):
    """The batch construction's soundness rests on the checker: the kept batch formula less
    one puzzle's blocking clause is satisfiable, and its proof is then rejected."""
    from solvers.certify.batch import certified_batch
    from solvers.certify.refutation import CertifyOptions
    keep = tmp_path / "kept"
    keep.mkdir()
    certify = CertifyOptions(find_checker("dratify"), MEMORY, keep)
    outcomes = certified_batch([parse_grid(p) for p in ROYLE[7:10]], certify=certify,
                               name="b", unique=True)
    assert [o.unique for o in outcomes] == [True] * 3
    lines = (keep / "b.cnf").read_text().splitlines()
    blocks = [i for i, line in enumerate(lines)
              if line.startswith("-730 ") and len(line.split()) > 3]
    assert len(blocks) == 1                     # the first puzzle's guarded blocking clause
    del lines[blocks[0]]
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    variables, count = map(int, lines[header].split()[2:])
    lines[header] = f"p cnf {variables} {count - 1}"
    (keep / "b.cnf").write_text("\n".join(lines) + "\n")
    body = [[int(x) for x in line.split()[:-1]] for line in lines[header + 1:] if line]
    assert satisfiable(body)
    with pytest.raises(ProofRejected):
        check_proof(certify.checker, keep / "b.cnf", keep / "b.drat", work=tmp_path,
                    time_limit=60, memory_limit=MEMORY, claim="tampered", plain=True)


@pytest.mark.parametrize("argv, message", [
    (["--solver", "maplesat"], "maplesat cannot be certified"),
    (["--via", "exact-cover"], "route exact-cover gives no proof"),
    (["--via", "sat-incremental"], "route sat-incremental gives no proof"),
    (["--clues", "eliminate"], "drop --clues eliminate"),
    (["--solver-cmd", "minisat"], "minisat cannot be certified"),
    (["--solver-cmd", "cryptominisat5"], "FRAT"),
])
def test_refusals_are_one_line_exit_2(run, argv, message):
    code, out, err = run("solve", SEARCH_NEEDED[0], "--certify", "--checker", "dratify", *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_checker_options_need_certify(run):
    code, _, err = run("solve", SEARCH_NEEDED[0], "--checker", "dratify")
    assert code == 2 and "need --certify" in err


def test_a_missing_checker_is_exit_2(run, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SUDOKU_BRIDGE_DRAT_TRIM", raising=False)      # set where it is built
    code, out, err = run("solve", SEARCH_NEEDED[0], "--certify", "--checker", "drat-trim")
    assert (code, out) == (2, "") and "build drat-trim" in err


def fake_unsat_solver(folder: Path) -> Path:
    """An outside 'solver' that says UNSAT of anything and writes a bogus proof (the empty
    clause alone) to its second argument."""
    return script(folder / "liar.sh", 'printf "0\\n" > "$2"\necho "s UNSATISFIABLE"\nexit 20\n')


def test_a_lying_outside_solver_is_caught(run, tmp_path):
    """It claims a solvable puzzle has no solution: its word without --certify (exit 1,
    said to be uncertified), a rejected proof with it (exit 4)."""
    liar = fake_unsat_solver(tmp_path)
    command = f"{liar} {{input}} {{proof}}"
    code, out, _ = run("solve", ROYLE[0], "--solver-cmd", command, "--clues", "units")
    assert code == 1 and "uncertified" in out
    assert not Path("{proof}").exists()     # the unfilled placeholder is a temporary file
    code, out, err = run("solve", ROYLE[0], "--solver-cmd", command, "--certify",
                         "--checker", "dratify")
    assert (code, out) == (4, "") and "rejected by dratify" in err


@pytest.mark.parametrize("program", ["cadical", "picosat", "kissat", "glucose"])
def test_outside_solvers_proofs_are_certified(run, program):
    if shutil.which(program) is None:
        pytest.skip(f"{program} not on PATH")
    code, out, err = run("solve", SEARCH_NEEDED[2], "--via", "sat", "--solver-cmd", program,
                         "--certify", "--checker", "dratify")
    assert (code, err) == (1, "") and "certified by dratify" in out
    code, out, err = run("solve", ROYLE[4], "--solver-cmd", program, "--certify", "--unique",
                         "--checker", "dratify")
    assert (code, err) == (0, "") and "certified by dratify" in out


def test_decode_cnf_an_outside_unsat_is_not_proved_until_its_proof_checks(run, tmp_path):
    """A solver output 's UNSATISFIABLE' for a solvable puzzle: exit 1 said as the solver's
    word; with --certify and the proof of another formula, exit 4; an unsolvable puzzle's
    real proof (pysat's cadical, written as an outside solver would) is certified."""
    solvable = tmp_path / "p.cnf"
    assert run("emit", "cnf", ROYLE[0], "-o", solvable)[0] == 0
    answer = tmp_path / "answer.txt"
    answer.write_text("s UNSATISFIABLE\n")
    code, out, _ = run("decode", "cnf", solvable, answer)
    assert code == 1 and "uncertified" in out
    unsolvable = tmp_path / "u.cnf"
    assert run("emit", "cnf", SEARCH_NEEDED[0], "-o", unsolvable)[0] == 0
    proof = tmp_path / "u.drat"
    write_proof(proof_of(clauses_of(SEARCH_NEEDED[0])), proof, max_bytes=MEMORY)
    code, out, err = run("decode", "cnf", solvable, answer, "--proof", proof, "--certify",
                         "--checker", "dratify")
    assert (code, out) == (4, "") and "rejected" in err
    code, out, err = run("decode", "cnf", unsolvable, answer, "--proof", proof, "--certify",
                         "--checker", "dratify", "--json")
    assert (code, err) == (1, "") and json.loads(out)["certified"] == "dratify"


def test_decode_cnf_certify_needs_a_proof_and_units(run, tmp_path):
    cnf = tmp_path / "e.cnf"
    assert run("emit", "cnf", ROYLE[0], "-o", cnf, "--clues", "eliminate")[0] == 0
    answer = tmp_path / "answer.txt"
    answer.write_text("s UNSATISFIABLE\n")
    assert "needs --proof" in run("decode", "cnf", cnf, answer, "--certify")[2]
    proof = tmp_path / "p.drat"
    proof.write_text("0\n")
    code, _, err = run("decode", "cnf", cnf, answer, "--proof", proof, "--certify")
    assert code == 2 and "clues as unit clauses" in err
    assert "--proof needs --certify" in run("decode", "cnf", cnf, answer, "--proof", proof)[2]


def test_the_dratify_child_checks_its_arguments(tmp_path):
    """``python -m solvers.certify.dratify_check`` with a binary proof: exit 2 (it cannot
    read it), not a verdict."""
    import subprocess
    import sys
    cnf = write_formula(tmp_path / "f.cnf", [[1], [-1]], num_vars=1)
    proof = tmp_path / "p.drat"
    proof.write_bytes(b"a\x02\x00")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run([sys.executable, "-m", "solvers.certify.dratify_check", cnf, proof],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "text DRAT only" in done.stderr


# ----------------------------------------------------------------------------- crosscheck

def test_crosscheck_certify_certifies_the_sat_peer_and_resume_earns_it_again(run, tmp_path):
    """Every negative claim of the sat route is certified, exact cover's stay its word; a
    'certified' written into a record that resume keeps (a puzzle with several solutions)
    is not believed, and the negative claims run again, certified again."""
    puzzles = tmp_path / "mixed.txt"
    puzzles.write_text("\n".join([SEARCH_NEEDED[0], ROYLE[0], MULTIPLE[0]]) + "\n")
    results = tmp_path / "cc.jsonl"
    code, out, err = run("crosscheck", puzzles, "--routes", "sat,exact-cover", "--unique",
                         "--certify", "--checker", "dratify", "--json", results)
    assert code == 0, err
    assert "certified by dratify: 2 of 4 negative claims" in out
    assert "uncertified (the route's word, beside a certified peer): exact-cover" in out
    records = [json.loads(line) for line in results.read_text().splitlines()]
    certified = {(r["puzzle_id"].split(":")[1], r["route"]): r.get("certified")
                 for r in records}
    assert certified == {("1", "sat"): "dratify", ("1", "exact-cover"): None,
                         ("2", "sat"): "dratify", ("2", "exact-cover"): None,
                         ("3", "sat"): None, ("3", "exact-cover"): None}
    lines = results.read_text().splitlines()
    tampered = [json.loads(line) for line in lines]
    for record in tampered:
        if record["puzzle_id"].endswith(":3"):
            record["certified"] = "cake_lpr"
    results.write_text("".join(json.dumps(r) + "\n" for r in tampered[:-1]))
    code, out, err = run("crosscheck", puzzles, "--routes", "sat,exact-cover", "--unique",
                         "--certify", "--checker", "dratify", "--json", results, "--resume")
    assert code == 0, err
    again = [json.loads(line) for line in results.read_text().splitlines()]
    assert {(r["puzzle_id"].split(":")[1], r["route"]): r.get("certified")
            for r in again} == certified


def test_crosscheck_certify_catches_a_lying_outside_route(run, tmp_path):
    liar = fake_unsat_solver(tmp_path)
    code, out, err = run("crosscheck", ROYLE[0], "--routes", "sat", "--certify",
                         "--checker", "dratify", "--route", f"liar=cnf:{liar} {{input}} {{proof}}")
    assert code == 4 and "ERROR liar" in out and "proof rejected" in out


def test_crosscheck_certify_needs_a_certifying_route(run):
    code, out, err = run("crosscheck", ROYLE[0], "--routes", "exact-cover,ilp", "--certify",
                         "--checker", "dratify")
    assert code == 2 and "add sat" in err
