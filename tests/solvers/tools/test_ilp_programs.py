"""Every ILP tool's answer comes back (issue 14): the model forms (LP, fixed MPS, free MPS)
load in the real glpsol, cbc, HiGHS and SCIP; their answers decode to verified grids through
``decode ilp``; the routes ``cbc``, ``glpsol``, ``scip`` (and ``ilp``, ``ilp-highs``) solve,
prove "no solution" and check uniqueness; ``--ilp-cmd`` runs any program by a template, and
fake programs (real processes) that print garbage, hang, crash or lie give one-line errors,
"unknown" or "wrong answer", leaving nothing running. Tests of a missing tool skip with a
reason."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess

import pytest

from reductions.sudoku.grid import check_solution, format_grid, parse_grid
from reductions.encodings.ilp import sudoku_ilp
from solvers.cli import ExitCode
from solvers.formats import ilp_model
from solvers.formats.mps import ModelFileError, ModelFormat, mps_number, short_name, sniff_model_format
from solvers.routes import ROUTES
from solvers.tools.ilp_programs import ilp_template

from tests.conftest import INSTANCES, instance_puzzles
from tests.processes import fakes  # noqa: F401  (fixture)
from tests.solvers.cli.test_exact_cover_ilp import grids_in, run
from tests.solvers.cli.test_external import assert_clean, run_cli, tmpdir_for_cli  # noqa: F401
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION

GLPSOL = shutil.which("glpsol")
CBC = shutil.which("cbc")
HAVE_HIGHS = importlib.util.find_spec("highspy") is not None
HAVE_SCIP = importlib.util.find_spec("pyscipopt") is not None
needs_glpsol = pytest.mark.skipif(GLPSOL is None, reason="glpsol not installed (Debian: "
                                                          "glpk-utils)")
needs_cbc = pytest.mark.skipif(CBC is None, reason="cbc not installed (Debian: coinor-cbc)")
needs_highs = pytest.mark.skipif(not HAVE_HIGHS, reason="highspy not installed (extra highs)")
needs_scip = pytest.mark.skipif(not HAVE_SCIP, reason="pyscipopt not installed (extra scip)")

SOLUTION = parse_grid(PAPER_17_SOLUTION)
UNSOLVABLE = format_grid(instance_puzzles("unsolvable.txt")[0], "line")
"""Peer-consistent clues (the basic clue check passes) and no solution."""
FILE_NAMES = {"lp": "m.lp", "mps": "m.mps", "free-mps": "m-free.mps"}
GLPSOL_FLAGS = {"lp": "--lp", "mps": "--mps", "free-mps": "--freemps"}


# ----------------------------------------------------------------------------- fixed MPS

def test_short_names_and_numbers():
    assert [short_name("C", k) for k in (0, 9, 10, 35, 36, 36 ** 2)] == \
        ["C0", "C9", "CA", "CZ", "C10", "C100"]
    assert len(short_name("R", 36 ** 7 - 1)) == 8
    assert [mps_number(x) for x in (1.0, -3.0, 0.5, 15.0)] == ["1", "-3", "0.5", "15"]
    with pytest.raises(ModelFileError, match="does not fit a fixed field"):
        mps_number(1 / 3)


@pytest.mark.parametrize("text, message", [
    ("* a comment\n\nhello world\n", "line 3: neither an LP nor an MPS model file (found "
                                      "'hello world')"),
    ("", "empty model file"),
    ("* only comments\n", "empty model file"),
])
def test_files_that_are_no_model_are_one_line_errors(tmp_path, capsys, text, message):
    model = tmp_path / "m.mps"
    model.write_text(text)
    (tmp_path / "s.sol").write_text("Optimal - objective value 0\n")
    code, out, err = run(capsys, "decode", "ilp", model, tmp_path / "s.sol")
    assert (code, out) == (ExitCode.BAD_INPUT, "") and err.count("\n") == 1
    assert message in err


def test_emit_format_flag_overrides_the_suffix(tmp_path, capsys):
    for fmt, expected in (("lp", "LP"), ("mps", "fixed MPS"), ("free-mps", "free MPS")):
        path = tmp_path / f"{fmt}.model"
        code, out, _ = run(capsys, "emit", "ilp", PAPER_17, "-o", path, "--format", fmt)
        assert code == ExitCode.OK and f"({expected})" in out
        assert sniff_model_format(path) == fmt
    code, out, err = run(capsys, "emit", "ilp", PAPER_17, "-o", tmp_path / "m.txt")
    assert code == ExitCode.BAD_INPUT and "--format lp|mps|free-mps" in err
    run(capsys, "emit", "ilp", PAPER_17, "-o", tmp_path / "m.mps")
    assert sniff_model_format(tmp_path / "m.mps") == ModelFormat.MPS


def test_a_changed_column_list_is_refused(tmp_path, capsys):
    path = tmp_path / "m.mps"
    ilp_model.write_model(path, sudoku_ilp(parse_grid(PAPER_17)))
    text = path.read_text().replace("    C0        R0", "    C00       R0")
    path.write_text(text)
    (tmp_path / "s.sol").write_text("Optimal - objective value 0\n")
    code, _, err = run(capsys, "decode", "ilp", path, tmp_path / "s.sol")
    assert code == ExitCode.BAD_INPUT and "the file was changed" in err


# ----------------------------------------------------------------------------- round trips

def answer_of(tool: str, fmt: str, model, out) -> None:
    """Run a real tool on ``model`` (in form ``fmt``), its answer into ``out``."""
    if tool == "glpsol":
        subprocess.run([GLPSOL, GLPSOL_FLAGS[fmt], str(model), "-w", str(out)], check=True,
                       capture_output=True)
    elif tool == "cbc":
        subprocess.run([CBC, str(model), "solve", "solu", str(out)], check=True,
                       capture_output=True)
    elif tool == "highs":
        import highspy
        highs = highspy.Highs()
        highs.silent()
        assert highs.readModel(str(model)) == highspy.HighsStatus.kOk
        highs.run()
        highs.writeSolution(str(out), 1)          # the pretty style
    else:
        import pyscipopt
        scip = pyscipopt.Model()
        scip.hideOutput()
        scip.readProblem(str(model))
        scip.optimize()
        if scip.getStatus() == "infeasible":
            # SCIP's .sol cannot say 'infeasible' ('no solution available'): not written
            out.write_text("no solution available\n")
        else:
            scip.writeBestSol(str(out))


TOOLS = [pytest.param("glpsol", marks=needs_glpsol), pytest.param("cbc", marks=needs_cbc),
         pytest.param("highs", marks=needs_highs), pytest.param("scip", marks=needs_scip)]


@pytest.mark.parametrize("fmt", list(ModelFormat))
@pytest.mark.parametrize("tool", TOOLS)
def test_emit_real_tool_decode(tmp_path, capsys, tool, fmt):
    """emit ilp → the real tool → decode ilp: the verified grid, and for a puzzle with no
    solution 'no solution' (exit 1) where the tool's file can say so (SCIP's cannot: 3)."""
    model, answer = tmp_path / FILE_NAMES[fmt], tmp_path / "answer.sol"
    assert run(capsys, "emit", "ilp", PAPER_17, "-o", model, "--format", fmt)[0] == 0
    answer_of(tool, fmt, model, answer)
    code, out, err = run(capsys, "decode", "ilp", model, answer)
    assert (code, err) == (ExitCode.OK, "") and grids_in(out) == [SOLUTION]

    assert run(capsys, "emit", "ilp", UNSOLVABLE, "-o", model, "--format", fmt)[0] == 0
    answer_of(tool, fmt, model, answer)
    code, out, err = run(capsys, "decode", "ilp", model, answer)
    if tool == "scip":
        assert code == ExitCode.UNKNOWN and out.startswith("unknown")
    else:
        assert code == ExitCode.NO_SOLUTION and out.startswith("no solution"), out


@needs_glpsol
def test_glpsol_reads_the_fixed_form_of_a_36_by_36_model(tmp_path):
    """Names of 4 characters, 2 puzzle rows a line: still a fixed file glpsol --mps reads
    (the model only; solving it is not the point)."""
    from tests.solvers.routes.test_exact_cover import hard_36
    model = tmp_path / "m.mps"
    ilp_model.write_model(model, sudoku_ilp(hard_36(), "eliminate"))
    done = subprocess.run([GLPSOL, "--mps", str(model), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-500:]
    assert max(map(len, model.read_text().splitlines())) <= 80


# ----------------------------------------------------------------------------- routes

ROUTE_PARAMS = [pytest.param("glpsol", marks=needs_glpsol), pytest.param("cbc", marks=needs_cbc),
                pytest.param("scip", marks=needs_scip),
                pytest.param("ilp-highs", marks=needs_highs)]


@pytest.mark.parametrize("route", ROUTE_PARAMS)
def test_routes_solve_prove_no_solution_and_check_uniqueness(capsys, route):
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", route, "--unique")
    assert code == ExitCode.OK and "unique: yes" in out and grids_in(out) == [SOLUTION]
    code, out, _ = run(capsys, "solve", UNSOLVABLE, "--via", route)
    assert code == ExitCode.NO_SOLUTION and out.startswith("no solution")
    code, out, _ = run(capsys, "solve", INSTANCES / "multiple-solutions.txt", "--via", route,
                       "--unique")
    assert code == ExitCode.OK and "unique: no" in out
    first, second = grids_in(out)
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    assert first != second and check_solution(puzzle, first) and check_solution(puzzle, second)


@pytest.mark.parametrize("route", [pytest.param("glpsol", marks=needs_glpsol),
                                   pytest.param("scip", marks=needs_scip)])
def test_routes_stop_at_the_time_limit_with_unknown(capsys, route):
    from tests.solvers.routes.test_exact_cover import hard_36
    code, out, _ = run(capsys, "solve", format_grid(hard_36(), "ints").replace("\n", " "),
                       "--via", route, "--time-limit", "1")
    assert code == ExitCode.UNKNOWN and out.startswith("unknown")


@needs_scip
def test_scip_prints_nothing_of_its_own(tmpdir_for_cli):  # noqa: F811
    code, out, err, _ = run_cli(["solve", PAPER_17, "--via", "scip", "--unique"],
                                tmpdir_for_cli)
    assert (code, err) == (0, "") and grids_in(out) == [SOLUTION]
    assert out.splitlines()[-1] == "unique: yes (no second solution exists; scip, uncertified)"
    assert all(line.count("|") == 2 or set(line) <= set("-+ ") for line in
               out.splitlines()[:-1]), out


def test_missing_tools_make_their_routes_unavailable(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert "needs the 'glpsol' program" in ROUTES["glpsol"].unavailable()
    assert "needs the 'cbc' program" in ROUTES["cbc"].unavailable()
    assert ROUTES["scip"].needs_module == "pyscipopt"


@pytest.mark.parametrize("argv", [pytest.param(["--via", "cbc"], marks=needs_cbc),
                                  ["--via", "ilp", "--ilp-solver", "glpsol"]])
def test_a_solver_and_a_template_together_are_refused(capsys, argv):
    code, out, err = run(capsys, "solve", PAPER_17, *argv, "--ilp-cmd", "glpsol")
    assert (code, out) == (ExitCode.BAD_INPUT, "") and "not both" in err


# ----------------------------------------------------------------------------- --ilp-cmd

@needs_glpsol
@pytest.mark.parametrize("template", ["glpsol --mps {input} -w {output}",
                                      "glpsol --lp {input.lp} -o {output}",
                                      "glpsol --freemps {input.free-mps} -w {output}",
                                      "glpsol --mps {input.mps} -o {output}"])
def test_ilp_cmd_with_glpsol(capsys, template):
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", "ilp", "--ilp-cmd", template,
                       "--unique")
    assert code == ExitCode.OK and "unique: yes" in out and grids_in(out) == [SOLUTION]
    code, out, _ = run(capsys, "solve", UNSOLVABLE, "--ilp-cmd", template, "--via", "ilp")
    assert code == ExitCode.NO_SOLUTION


@needs_cbc
def test_ilp_cmd_with_cbc_csv_which_has_no_status(capsys):
    template = "cbc {input} solve printi csv solu {output}"
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", "ilp", "--ilp-cmd", template)
    assert code == ExitCode.OK and grids_in(out) == [SOLUTION]
    code, out, _ = run(capsys, "solve", UNSOLVABLE, "--via", "ilp", "--ilp-cmd", template)
    assert code == ExitCode.UNKNOWN and "does not say" in out


@needs_glpsol
def test_ilp_cmd_answer_on_stdout(fakes, tmpdir_for_cli):  # noqa: F811
    """Without {output} the answer is the program's stdout: a wrapper that runs the real
    glpsol and prints its raw solution."""
    wrapper = fakes.script("wrapper", f'{GLPSOL} --mps "$1" -w "$1.raw" >/dev/null && '
                                      f'cat "$1.raw"\n')
    code, out, err, _ = run_cli(["solve", PAPER_17, "--via", "ilp", "--ilp-cmd",
                                 f"{wrapper} {{input}}"], tmpdir_for_cli)
    assert (code, err) == (0, "") and grids_in(out) == [SOLUTION]
    assert_clean(fakes, tmpdir_for_cli)


@pytest.mark.parametrize("body, code, message", [
    ("echo hello garbage\n", 2, r"error: wrapper-\w+\.sh exited with code 0 and gave no "
                                r"usable answer \(output of wrapper-\w+\.sh line 1: not a "
                                r"solution file .*found 'hello garbage'\)"),
    ("kill -s SEGV $$\n", 2, r"error: wrapper-\w+\.sh was killed by SIGSEGV and gave no "
                             r"usable answer"),
    ("echo 'Optimal - objective value 0'\n", 4,            # all zeros: an empty grid
     r"WRONG ANSWER: ILP \(.*\) returned a grid that does not solve the puzzle"),
    ("printf 'Optimal - objective value 0\\n0 C0 1 0\\n0 C1 1 0\\n'\n", 2,
     r"error: output of wrapper-\w+\.sh: cell \(1,1\) gets two digits"),
    ("printf 'Optimal - objective value 0\\n0 C0 0.5 0\\n'\n", 2,
     r"error: output of wrapper-\w+\.sh line 2: variable x_0_0_\d = 0.5: not a 0/1 "
     r"solution \(column C0 of the model file\)"),
    ("printf 'Optimal - objective value 0\\n0 ZZZ 1 0\\n'\n", 2,
     r"error: output of wrapper-\w+\.sh line 2: variable ZZZ is not in the model"),
])
def test_ilp_cmd_programs_without_a_usable_answer(fakes, tmpdir_for_cli, body, code,  # noqa: F811
                                                  message):
    """Garbage, a crash, a claim whose values are no grid, values that are no 0/1
    solution or name no column: one line on stderr, nothing on stdout."""
    wrapper = fakes.script("wrapper", body)
    got, out, err, _ = run_cli(["solve", PAPER_17, "--via", "ilp", "--ilp-cmd",
                                f"{wrapper} {{input}}"], tmpdir_for_cli)
    assert (got, out) == (code, ""), (got, out, err)
    assert err.startswith("sudoku-bridge: ") and err.count("\n") == 1, err
    assert re.search(message, err), err
    assert_clean(fakes, tmpdir_for_cli)


def test_ilp_cmd_that_writes_no_answer_file(fakes, tmpdir_for_cli):  # noqa: F811
    wrapper = fakes.script("wrapper", "echo 'cannot open file' >&2; exit 1\n")
    code, out, err, _ = run_cli(["solve", PAPER_17, "--via", "ilp", "--ilp-cmd",
                                 f"{wrapper} {{input}} {{output}}"], tmpdir_for_cli)
    assert (code, out) == (2, "")
    assert re.fullmatch(r"sudoku-bridge: error: wrapper-\w+\.sh exited with code 1 and wrote "
                        r"no solution file; last output: cannot open file\n", err), err
    assert_clean(fakes, tmpdir_for_cli)


def test_ilp_cmd_that_hangs_is_unknown_at_the_time_limit(fakes, tmpdir_for_cli):  # noqa: F811
    wrapper = fakes.script("wrapper", "$SLEEP 1000 &\n$SLEEP 1001\nwait\n")
    code, out, err, seconds = run_cli(["solve", PAPER_17, "--via", "ilp", "--ilp-cmd",
                                       f"{wrapper} {{input}} {{output}}", "--time-limit", "2"],
                                      tmpdir_for_cli, timeout=60)
    assert (code, err) == (3, "") and out.startswith("unknown: no answer: time limit")
    # stopped by us at the limit, not before it; the wrapper would hang for 1000 s (the
    # upper bound only says "stopped": start-up on a loaded machine varies)
    assert 2 <= seconds < 60
    assert_clean(fakes, tmpdir_for_cli)


@pytest.mark.parametrize("template, message", [
    ("", "--ilp-cmd is empty"),
    ("'unbalanced", "No closing quotation"),
    ("tool {input.lp} {input.mps}", "one model form per command"),
    ("no-such-ilp-solver-xyz {input}", "ILP solver program 'no-such-ilp-solver-xyz' not found"),
])
def test_bad_ilp_templates_are_one_line_errors(capsys, template, message):
    code, out, err = run(capsys, "solve", PAPER_17, "--via", "ilp", "--ilp-cmd", template)
    assert (code, out) == (ExitCode.BAD_INPUT, "") and err.count("\n") == 1
    assert message in err, err


def test_template_fields():
    lp = ilp_template("glpsol --lp {input.lp} -o {output}")
    assert lp.args == ("glpsol", "--lp", "{input.lp}", "-o", "{output}")
    assert (lp.input_formats, lp.answer_in_file) == ({ModelFormat.LP}, True)
    plain = ilp_template("mytool")
    assert (plain.args, plain.input_formats) == (("mytool", "{input}"), {ModelFormat.MPS})
    free = ilp_template("t --model={input.free-mps}")
    assert (free.args, free.input_formats) == (("t", "--model={input.free-mps}"),
                                               {ModelFormat.FREE_MPS})
    assert free.argv("/bin/t", inputs={ModelFormat.FREE_MPS: "m.mps"}) == ["/bin/t",
                                                                          "--model=m.mps"]
