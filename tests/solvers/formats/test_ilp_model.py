"""ILP model files (solvers/formats/ilp_model.py): the header and its puzzle record, the fixed
MPS card columns, the form told by content, and changed or foreign files and solution values
refused with one-line errors."""

from __future__ import annotations

import re

import pytest

from reductions.sudoku.grid import parse_grid
from reductions.encodings.ilp import IlpError, SudokuToIlp, sudoku_ilp
from solvers.runtime.processes import ExternalSolverError
from solvers.formats import ilp_model
from solvers.formats.lp_solution import SolutionFormatError, read_lp_solution
from solvers.formats.mps import FIELD_STARTS, ModelFormat, sniff_model_format

from tests.conftest import instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17


def test_model_file_header(tmp_path):
    model = sudoku_ilp(parse_grid(PAPER_17))
    ilp_model.write_model(tmp_path / "m.lp", model)
    lines = (tmp_path / "m.lp").read_text().splitlines()
    assert lines[3:7] == ["\\ shape 3x3", "\\ clues equalities", f"\\ puzzle {PAPER_17}",
                          "\\ size 729 variables, 341 constraints, 2933 nonzeros"]
    ilp_model.write_model(tmp_path / "m.mps", model)
    assert (tmp_path / "m.mps").read_text().startswith("* sudoku-bridge ILP model")


def write_model_and(tmp_path, solution_text):
    ilp_model.write_model(tmp_path / "m.lp", sudoku_ilp(parse_grid(PAPER_17), "eliminate"))
    (tmp_path / "s.sol").write_text(solution_text)
    return ilp_model.model_from_file(tmp_path / "m.lp"), read_lp_solution(tmp_path / "s.sol")


@pytest.mark.parametrize("text,message", [
    ("Optimal - objective value 0\n      0 x_0_0_5 1 0\n  garbage here\n",
     r"s.sol line 3: expected 'index name value"),
    ("Optimal - objective value 0\n      0 x_0_0_5 one 0\n", r"line 2: value 'one' of x_0_0_5"),
    ("", r"empty solution file"),
])
def test_broken_solution_files(tmp_path, text, message):
    with pytest.raises(SolutionFormatError, match=message):
        write_model_and(tmp_path, text)


def test_solution_values_that_do_not_fit_the_model(tmp_path):
    model, solution = write_model_and(tmp_path, "Optimal - objective value 0\n"
                                                "      0 x_0_0_5 1 0\n      1 x_0_7_1 1 0\n")
    with pytest.raises(ExternalSolverError, match=r"line 3: variable x_0_7_1 is not in"):
        ilp_model.grid_from_solution(SudokuToIlp(model.puzzle, model), solution, tmp_path / "s.sol")
    model, solution = write_model_and(tmp_path, "Optimal - objective value 0\n"
                                                "      0 x_0_0_5 0.5 0\n")
    with pytest.raises(ExternalSolverError, match=r"line 2: variable x_0_0_5 = 0.5"):
        ilp_model.grid_from_solution(SudokuToIlp(model.puzzle, model), solution, tmp_path / "s.sol")


def test_changed_or_foreign_model_files(tmp_path):
    ilp_model.write_model(tmp_path / "m.lp", sudoku_ilp(parse_grid(PAPER_17)))
    text = (tmp_path / "m.lp").read_text()
    (tmp_path / "changed.lp").write_text(text.replace("341 constraints", "340 constraints"))
    with pytest.raises(ExternalSolverError, match="the file was changed"):
        ilp_model.model_from_file(tmp_path / "changed.lp")
    (tmp_path / "foreign.lp").write_text("Minimize\nobj: x\nEnd\n")
    with pytest.raises(ExternalSolverError, match="no 'shape ...' comment line"):
        ilp_model.model_from_file(tmp_path / "foreign.lp")
    with pytest.raises(IlpError, match="unknown model format '.txt'"):
        ilp_model.write_model(tmp_path / "m.txt", sudoku_ilp(parse_grid(PAPER_17)))
    with pytest.raises(ExternalSolverError, match="no such file"):
        ilp_model.model_from_file(tmp_path / "missing.mps")


@pytest.mark.parametrize("clues", ["equalities", "eliminate"])
def test_fixed_mps_fields_sit_in_their_card_columns(tmp_path, clues):
    """The 25×25 model (15,625 columns, base-36 names of 4 characters): every line within 80
    characters, every token in one of the six fixed fields, the numbers written '1', and
    the exact text of the first line of each section."""
    puzzle = instance_puzzles("25x25.txt")[0]
    path = tmp_path / "m.mps"
    assert ilp_model.write_model(path, sudoku_ilp(puzzle, clues)) == ModelFormat.MPS
    lines = path.read_text().splitlines()
    assert max(map(len, lines)) <= 80
    assert "e+" not in path.read_text() and ".0" not in path.read_text()
    body = lines[next(i for i, line in enumerate(lines) if not line.startswith("*")):]
    assert body[:3] == ["NAME          SUDOKU", "ROWS", " N  OBJ"]
    assert body[3] == " E  R0"
    columns = body.index("COLUMNS")
    assert body[columns + 1] == "    MARKER    'MARKER'                 'INTORG'"
    assert re.fullmatch(r"    C0 {8}R[0-9A-Z]+ +1", body[columns + 2])
    assert body[body.index("RHS") + 1] == "    RHS       R0        1"
    assert body[body.index("BOUNDS") + 1] == " UP BND       C0        1"
    assert body[-1] == "ENDATA"
    for line in body:
        if not line[0].isspace():
            continue
        position = 0
        for token in line.split():
            start = line.index(token, position)
            position = start + len(token)
            assert start in FIELD_STARTS, line
            assert len(token) <= (12 if start in (24, 49) else 8), line
    model = ilp_model.model_from_file(path)
    assert model.puzzle == puzzle and model.clues == clues


@pytest.mark.parametrize("fmt", list(ModelFormat))
def test_every_form_is_told_by_its_content(tmp_path, fmt):
    path = tmp_path / "model.txt"                      # the suffix says nothing
    ilp_model.write_model(path, sudoku_ilp(parse_grid(PAPER_17)), fmt)
    assert sniff_model_format(path) == fmt
    assert ilp_model.model_from_file(path).puzzle == parse_grid(PAPER_17)
