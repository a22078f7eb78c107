"""The SAT solver programs as routes (``solve --via kissat``), user routes from command
templates (``--route NAME=cnf:CMD``), compressed files in and out, and the answer forms of
the real programs (CaDiCaL's and Lingeling's limit stops, Glucose's model and result file).

The programs run for real when on PATH (CI installs Debian's cadical, minisat, picosat and
cryptominisat5; kissat, lingeling and glucose are built from source) and skip otherwise; the
forms of their answers are also checked on text written here exactly as they print it.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import subprocess
import sys

import pytest

from reductions.errors import UserError
from reductions.reading import ReadLimit, open_text, read_text, reading
from reductions.sudoku.grid import check_solution, format_grid, parse_grid
from solvers.cli import ExitCode, main
from solvers.formats.atomic import atomic_write
from solvers.formats.dimacs import SatAnswer, parse_solver_output, read_cnf
from solvers.outcome import Status
from solvers.routes import ROUTES, get_route, template_route
from solvers.tools.dimacs_programs import KNOWN_COMMANDS

from tests.conftest import INSTANCES, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION

PROGRAMS = sorted(KNOWN_COMMANDS)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} not on PATH")


# ----------------------------------------------------------------------------- the programs

@pytest.mark.parametrize("program", PROGRAMS)
def test_every_known_program_is_a_route(program):
    route = ROUTES[program]
    assert route.needs_program == program and route.presets == {"solver_cmd": program}
    assert (route.unavailable() is None) == (shutil.which(program) is not None)


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_routes_solve_and_prove_no_solution(program):
    need(program)
    outcome = ROUTES[program].solve(parse_grid(PAPER_17), unique=True)
    assert outcome.status == Status.SOLVED and outcome.grid == parse_grid(PAPER_17_SOLUTION)
    assert outcome.unique is True
    for puzzle in instance_puzzles("unsolvable.txt")[:2]:
        assert ROUTES[program].solve(puzzle).status == Status.NO_SOLUTION
    [several] = instance_puzzles("multiple-solutions.txt")
    outcome = ROUTES[program].solve(several, unique=True)
    assert outcome.unique is False and check_solution(several, outcome.second)


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_route_on_the_command_line(capsys, program):
    need(program)
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", program, "--json")
    record = json.loads(out)
    assert code == ExitCode.OK and record["route"] == program
    assert record["solution"] == PAPER_17_SOLUTION.replace("\n", "")
    code, out, _ = run(capsys, "solve", format_grid(instance_puzzles("unsolvable.txt")[0]),
                       "--via", program)
    assert code == ExitCode.NO_SOLUTION and "no solution" in out


def test_missing_program_route_is_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # nothing on PATH
    code, out, err = run(capsys, "solve", PAPER_17, "--via", "kissat")
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err.strip() == ("sudoku-bridge: error: route kissat needs the 'kissat' program on "
                           "PATH (build it from https://github.com/arminbiere/kissat)")


def test_cadical_limit_stop_is_unknown(capsys):
    need("cadical")
    hardest = format_grid(instance_puzzles("hardest1905-sample100.txt")[0])
    # CaDiCaL 1.5 stopped by a conflict limit prints only "c UNKNOWN" (no s line), exit 0.
    code, out, _ = run(capsys, "solve", hardest, "--solver-cmd", "cadical -q -c 0 {input}")
    assert code == ExitCode.UNKNOWN and out.startswith("unknown")


# ----------------------------------------------------------------------------- answer forms

def test_limit_stops_announced_in_comments():
    assert parse_solver_output("c UNKNOWN\n").status == SatAnswer.UNKNOWN         # CaDiCaL
    assert parse_solver_output("c s UNKNOWN\n").status == SatAnswer.UNKNOWN       # Lingeling
    assert parse_solver_output("c ---\nc UNKNOWN\nc exit 0\n").status == SatAnswer.UNKNOWN
    with pytest.raises(UserError, match="no status line"):
        parse_solver_output("c just a comment\n")


def test_glucose_model_and_result_file():
    stdout = ("c\nc This is glucose 4.2.1 --  based on MiniSAT (Many thanks to MiniSAT team)\n"
              "c\nc | Preprocesing is fully done\ns SATISFIABLE\nv 1 -2 3 0\n")
    assert parse_solver_output(stdout).model == [1, -2, 3]
    # "glucose in.cnf out": the result file holds the bare model, or UNSAT.
    assert parse_solver_output("1 -2 3 0\n").model == [1, -2, 3]
    assert parse_solver_output("-1 2 -3 0\n").model == [-1, 2, -3]
    assert parse_solver_output("UNSAT\n").status == SatAnswer.UNSAT
    with pytest.raises(UserError, match="line 1"):
        parse_solver_output("1 -2 x 0\n", "out.txt")


def test_glucose_result_file_decodes(capsys, tmp_path):
    need("glucose")
    cnf, result = tmp_path / "p.cnf", tmp_path / "p.res"
    assert run(capsys, "emit", "cnf", PAPER_17, "-o", cnf)[0] == ExitCode.OK
    subprocess.run(["glucose", "-verb=0", cnf, result], capture_output=True, timeout=60)
    code, out, _ = run(capsys, "decode", "cnf", cnf, result)
    assert code == ExitCode.OK and parse_grid(out) == parse_grid(PAPER_17_SOLUTION)


# ----------------------------------------------------------------------------- compression

@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".xz", lzma.open),
                                            (".bz2", bz2.open)])
def test_outputs_compressed_by_suffix_and_inputs_by_content(capsys, tmp_path, suffix, opener):
    cnf = tmp_path / f"p.cnf{suffix}"
    assert run(capsys, "emit", "cnf", PAPER_17, "-o", cnf)[0] == ExitCode.OK
    with opener(cnf, "rt") as handle:                    # really compressed
        assert handle.readline().startswith("c ")
    plain = tmp_path / "p.cnf"
    run(capsys, "emit", "cnf", PAPER_17, "-o", plain)
    with opener(cnf, "rt") as handle:
        assert handle.read() == plain.read_text()
    renamed = tmp_path / "no-suffix"                      # chosen by content, not by name
    shutil.copy(cnf, renamed)
    assert read_cnf(renamed).clauses == read_cnf(plain).clauses
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("program", ["cadical", "kissat"])
@pytest.mark.parametrize("suffix", [".gz", ".xz"])
def test_solvers_read_our_compressed_cnf(capsys, tmp_path, program, suffix):
    need(program)
    cnf = tmp_path / f"p.cnf{suffix}"
    run(capsys, "emit", "cnf", PAPER_17, "-o", cnf)
    answer = tmp_path / f"p.out{suffix}"
    done = subprocess.run([program, "-q", cnf], capture_output=True, timeout=60)
    assert done.returncode == 10
    with atomic_write(answer, "wb") as out:               # an answer compressed too
        out.write(done.stdout)
    code, out, _ = run(capsys, "decode", "cnf", cnf, answer)
    assert code == ExitCode.OK and parse_grid(out) == parse_grid(PAPER_17_SOLUTION)


def test_corrupt_compressed_inputs_are_one_line_errors(tmp_path):
    limit = ReadLimit(1 << 20, "test")
    data = gzip.compress(b"c hello\np cnf 1 1\n1 0\n" * 1000)
    truncated = tmp_path / "t.cnf.gz"
    truncated.write_bytes(data[:len(data) // 2])
    with pytest.raises(UserError, match=r"t\.cnf\.gz: compressed data ends early"):
        read_text(truncated, limit)
    bad = tmp_path / "bad.xz"
    bad.write_bytes(b"\xfd7zXZ\x00" + b"\x00" * 40)
    with pytest.raises(UserError, match=r"bad\.xz: corrupt compressed data"):
        read_text(bad, limit)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"\x1f\x8b" + b"\xff" * 40)
    with pytest.raises(UserError, match=r"bad\.gz: cannot read \(corrupt compressed data"):
        with reading(bad), open_text(bad, limit) as handle:
            handle.read()


def test_compressed_graph_and_puzzle_files(capsys, tmp_path):
    puzzles = tmp_path / "puzzles.txt.gz"
    puzzles.write_bytes(gzip.compress((INSTANCES / "4x4.txt").read_bytes()))
    code, out, _ = run(capsys, "solve", puzzles)
    assert code == ExitCode.OK and len(out.splitlines()) == len(instance_puzzles("4x4.txt"))
    graph = tmp_path / "g.hcp.xz"
    assert run(capsys, "emit", "hcp", PAPER_17, "-o", graph)[0] == ExitCode.OK
    assert (tmp_path / "g.hcp.xz.json").exists()
    with lzma.open(graph, "rt") as handle:
        assert "TYPE : HCP" in handle.read(500)


# ----------------------------------------------------------------------------- templates

def test_template_route_parsing():
    route = template_route("k=cnf:kissat -q {input}")
    assert (route.name, route.target, route.needs_program) == ("k", "cnf", "kissat")
    assert route.presets == {"solver_cmd": "kissat -q {input}"}
    assert get_route("k", {"k": route}) is route
    for spec, message in [("k=cnf", "expected NAME=TARGET:COMMAND"),
                          ("=cnf:kissat", "expected NAME=TARGET:COMMAND"),
                          ("k=sat:kissat", "unknown target 'sat'"),
                          ("sat=cnf:kissat", "built-in route"),
                          ("a b=cnf:kissat", "a route name is"),
                          ("k=cnf:'kissat", "cannot split")]:
        with pytest.raises(UserError, match=message):
            template_route(spec)


def test_template_route_solves_with_a_real_program(capsys):
    need("cadical")
    code, out, _ = run(capsys, "solve", PAPER_17, "--route", "mine=cnf:cadical -q {input}",
                       "--unique", "--json")
    record = json.loads(out)
    assert code == ExitCode.OK and record["route"] == "mine" and record["unique"] is True
    assert record["solution"] == PAPER_17_SOLUTION.replace("\n", "")


def test_template_route_with_a_python_program(capsys, tmp_path):
    # A user's own "solver": a script that runs pysat and prints SAT-competition output.
    script = tmp_path / "mysolver.py"
    script.write_text(
        "import sys\nfrom pysat.formula import CNF\nfrom pysat.solvers import Solver\n"
        "cnf = CNF(from_file=sys.argv[1])\n"
        "with Solver(name='minisat22', bootstrap_with=cnf.clauses) as s:\n"
        "    if s.solve():\n"
        "        print('s SATISFIABLE'); print('v', *s.get_model(), 0)\n"
        "    else:\n"
        "        print('s UNSATISFIABLE')\n")
    route = f"py=cnf:{sys.executable} {script} {{input}}"
    code, out, _ = run(capsys, "solve", PAPER_17, "--route", route)
    assert code == ExitCode.OK and parse_grid(out) == parse_grid(PAPER_17_SOLUTION)
    code, out, _ = run(capsys, "solve", format_grid(instance_puzzles("unsolvable.txt")[0]),
                       "--route", route)
    assert code == ExitCode.NO_SOLUTION


def test_crosscheck_with_template_routes(capsys, tmp_path):
    jsonl = tmp_path / "r.jsonl"
    code, out, err = run(capsys, "crosscheck", INSTANCES / "4x4.txt", "--routes", "sat",
                         "--route", f"py=cnf:{sys.executable} -m solvers.nothing {{input}}",
                         "--route", "gone=cnf:no-such-solver-xyz {input}",
                         "--json", jsonl, "--jobs", 2)
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    by_route = {r["route"]: r["status"] for r in records}
    assert by_route["gone"] == "not available" and by_route["sat"] == "solved"
    # "py" runs a program that exists but fails: an error of that route, exit 4.
    assert by_route["py"] == "error" and code == ExitCode.MISMATCH
    assert "not available here: gone" in out


def test_duplicate_template_names(capsys):
    code, _, err = run(capsys, "solve", PAPER_17, "--route", "a=cnf:x {input}",
                       "--route", "a=cnf:y {input}")
    assert code == ExitCode.BAD_INPUT and "defined twice" in err
