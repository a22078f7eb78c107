"""LP/MIP solution files in every form (solvers/formats/lp_solution.py): written by the real
tools where they are installed (cbc, glpsol, highspy, pyscipopt), read back by content, and
their values decode to the puzzle's solution; an unsolvable puzzle gives "no solution" where the
form can say it. Hand-written files cover malformed input."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from reductions.sudoku.grid import Grid, parse_grid
from reductions.encodings.ilp import SudokuToIlp, sudoku_ilp
from solvers.formats import ilp_model
from solvers.formats.lp_solution import (LpSolutionFormat, SolutionFormatError, model_columns,
                                         read_lp_solution)
from solvers.formats.mps import sniff_model_format
from solvers.outcome import Status

from tests.conftest import instance_pairs, instance_puzzles

PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]
UNSOLVABLE = instance_puzzles("unsolvable.txt")[0]


MODEL_FILES = {"lp": "{}.lp", "mps": "{}.mps", "free-mps": "{}-free.mps"}


@pytest.fixture(params=list(MODEL_FILES))
def models(request, tmp_path):
    """The model of a solvable and of an unsolvable puzzle, written by write_model in each
    form (LP, fixed MPS, free MPS)."""
    paths = {}
    for name, puzzle in (("p", PUZZLE), ("u", UNSOLVABLE)):
        paths[name] = tmp_path / MODEL_FILES[request.param].format(name)
        ilp_model.write_model(paths[name], sudoku_ilp(puzzle), request.param)
    return paths


def decoded(path, model_path) -> Grid:
    solution = read_lp_solution(path, model_columns(model_path))
    model = ilp_model.model_from_file(model_path)
    return ilp_model.grid_from_solution(SudokuToIlp(model.puzzle, model), solution, path,
                                        ilp_model.column_names(model, model_path))


def glpsol_flag(model_path) -> str:
    """glpsol's option for the form the file is in (read from its content)."""
    return {"lp": "--lp", "mps": "--mps", "free-mps": "--freemps"}[
        sniff_model_format(model_path)]


def need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed")
    return found


def test_cbc_solu_and_csv(models, tmp_path):
    cbc = need("cbc")
    for name in ("p", "u"):
        for form, extra in ((LpSolutionFormat.CBC, []),
                            (LpSolutionFormat.CBC_CSV, ["printi", "csv"])):
            out = tmp_path / f"{name}.{form}"
            subprocess.run([cbc, str(models[name]), "solve", *extra, "solu", str(out)],
                           check=True, capture_output=True)
            solution = read_lp_solution(out)
            assert solution.format == form
            if name == "p":
                assert solution.status in (Status.SOLVED, None)
                assert decoded(out, models["p"]) == SOLUTION
            elif form == LpSolutionFormat.CBC:
                assert solution.status == Status.NO_SOLUTION
            else:
                assert solution.status is None      # csv has no status: values decide


def test_glpsol_printable_and_raw(models, tmp_path):
    glpsol = need("glpsol")
    for name in ("p", "u"):
        kind = glpsol_flag(models[name])
        printable, raw = tmp_path / f"{name}.out", tmp_path / f"{name}.raw"
        subprocess.run([glpsol, kind, str(models[name]), "-o", str(printable), "-w", str(raw)],
                       check=True, capture_output=True)
        for path, form in ((printable, LpSolutionFormat.GLPSOL),
                           (raw, LpSolutionFormat.GLPSOL_RAW)):
            solution = read_lp_solution(path, model_columns(models[name]))
            assert solution.format == form
            if name == "p":
                assert solution.status == Status.SOLVED
                assert decoded(path, models["p"]) == SOLUTION
            else:
                assert solution.status == Status.NO_SOLUTION


def test_highs_raw_and_pretty(models, tmp_path):
    highspy = pytest.importorskip("highspy", reason="the 'highs' extra is not installed")
    for name in ("p", "u"):
        h = highspy.Highs()
        h.silent()
        h.readModel(str(models[name]))
        h.run()
        for style, form in ((0, LpSolutionFormat.HIGHS), (1, LpSolutionFormat.HIGHS_PRETTY)):
            path = tmp_path / f"{name}.{style}.sol"
            h.writeSolution(str(path), style)
            solution = read_lp_solution(path)
            assert solution.format == form
            if name == "p":
                assert solution.status == Status.SOLVED
                assert decoded(path, models["p"]) == SOLUTION
            else:
                assert solution.status == Status.NO_SOLUTION and not solution.values


def test_scip_solution_file(models, tmp_path):
    pyscipopt = pytest.importorskip("pyscipopt", reason="the 'scip' extra is not installed")
    for name in ("p", "u"):
        model = pyscipopt.Model()
        model.hideOutput()
        model.readProblem(str(models[name]))
        model.optimize()
        path = tmp_path / f"{name}.sol"
        model.writeBestSol(str(path))
        solution = read_lp_solution(path)
        assert solution.format == LpSolutionFormat.SCIP
        if name == "p":
            assert solution.status == Status.SOLVED
            assert decoded(path, models["p"]) == SOLUTION
        else:
            assert solution.status == Status.UNKNOWN     # SCIP does not say why there is none


def test_model_columns_follow_glpsols_numbering(models):
    names = model_columns(models["p"])
    dummy = models["p"].suffix == ".lp"                             # PuLP's __dummy
    assert len(names) == sudoku_ilp(PUZZLE).num_variables + dummy
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("text, message", [
    ("", "empty solution file"),
    ("hello world\n", "line 1: not a solution file"),
    ("Optimal - objective value 0\n 0 x_0_0_1\n", "line 2: expected 'index name value"),
    ("name,solution\nx_0_0_1 1\n", "line 2: expected 'name,value'"),
    ("name,solution\nx_0_0_1,inf\n", "line 2: value 'inf' of x_0_0_1 is not a finite number"),
    ("Model status\nOptimal\n", "no '# Columns' section"),
    ("c Problem:\ns mip 1 2 o 0\nj 1 1\n", "the model file is needed"),
    ("objective value: 0\nx_0_0_1\n", "line 2: expected 'name value (obj:...)'"),
])
def test_malformed_files_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "s.sol"
    path.write_text(text)
    with pytest.raises(SolutionFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_lp_solution(path)


def test_glpsol_raw_column_numbers_are_checked(tmp_path):
    path = tmp_path / "s.raw"
    path.write_text("c Problem:\ns mip 1 2 o 0\ni 1 1\nj 3 1\n")
    with pytest.raises(SolutionFormatError, match="line 4: column 3 is out of range"):
        read_lp_solution(path, ["a", "b"])
    with pytest.raises(SolutionFormatError, match="2 columns, but the model has 3"):
        read_lp_solution(path, ["a", "b", "c"])


def test_decode_ilp_reads_every_form_through_the_command_line(models, tmp_path, capsys):
    """`decode ilp` takes glpsol's raw file (columns named from the model file) and CBC's
    csv, which has no status: an unsolvable puzzle's csv is 'unknown' (exit 3), never a
    grid and never 'no solution'."""
    from solvers.cli import ExitCode, main
    glpsol, cbc = need("glpsol"), need("cbc")
    kind = glpsol_flag(models["p"])
    raw = tmp_path / "p.raw"
    subprocess.run([glpsol, kind, str(models["p"]), "-w", str(raw)], check=True,
                   capture_output=True)
    assert main(["decode", "ilp", str(models["p"]), str(raw)]) == ExitCode.OK
    assert parse_grid(capsys.readouterr().out) == SOLUTION
    csv = tmp_path / "u.csv"
    subprocess.run([cbc, str(models["u"]), "solve", "printi", "csv", "solu", str(csv)],
                   check=True, capture_output=True)
    assert main(["decode", "ilp", str(models["u"]), str(csv)]) == ExitCode.UNKNOWN
    out = capsys.readouterr().out
    assert out.startswith("unknown:") and "does not say" in out
