"""The command line of solvers/cli/nishio.py: gadget nishio (build, pictures, map, validate)
and nishio (three methods, single cells, decision), exit codes, one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from reductions.sudoku.grid import Shape
from reductions.nishio.placements import CellSet, random_cell_set, random_placement
from reductions.nishio.dag import nishio_dag
from reductions.nishio.gadget import expected_cell_count
from reductions.formulas import example_satisfiable
from solvers import cli
from solvers.cli import ExitCode
from solvers.formats.cellset import read_cell_set, write_cell_set

FORMULAS = Path(__file__).resolve().parents[3] / "instances" / "formulas"
SAT_EXAMPLE = FORMULAS / "nishio-sat-example.cnf"
UNSAT_EXAMPLE = FORMULAS / "nishio-unsat-short-clauses.cnf"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- gadget nishio

def test_build_writes_s_map_and_picture(capsys, tmp_path):
    s_path, map_path, svg = tmp_path / "S.txt", tmp_path / "S.json", tmp_path / "S.svg"
    code, out, err = run(capsys, "gadget", "nishio", SAT_EXAMPLE, "-o", s_path, "--map", map_path,
                         "--picture", svg, "--show-placement")
    assert code == ExitCode.OK and err == ""
    cells = read_cell_set(s_path)
    assert cells.size == 169 and cells.count() == expected_cell_count(example_satisfiable())
    assert "n = 13, a 169x169 grid" in out and "17,143 cells" in out
    data = json.loads(map_path.read_text())
    assert data["order"] == 13 and data["theorem"] == 2 and len(data["clause_gadgets"]) == 4
    for var in data["variables"].values():
        for r, c in var["true_cells"] + var["false_cells"]:
            assert (r, c) in cells
    text = svg.read_text()
    assert text.startswith("<svg") and text.count("<circle") == 169


def test_build_theorem3(capsys, tmp_path):
    s_path, map_path = tmp_path / "S3.txt", tmp_path / "S3.json"
    code, out, _ = run(capsys, "gadget", "nishio", UNSAT_EXAMPLE, "-o", s_path,
                       "--variant", "thm3", "--map", map_path)
    assert code == ExitCode.OK and "Theorem 3" in out and "v0 = x4" in out
    data = json.loads(map_path.read_text())
    false_cells = data["v0_false_cells"]
    assert data["theorem"] == 3 and len(false_cells) == 4
    # unsatisfiable original: every v0-false cell is eliminated by Nishio (SAT method)
    r, c = false_cells[0]
    code, out, _ = run(capsys, "nishio", s_path, "--cell", f"{r + 1},{c + 1}")
    assert code == ExitCode.NO_SOLUTION and "not in Nishio(S)" in out
    code, out, _ = run(capsys, "nishio", s_path, "--decide")
    assert code == ExitCode.OK and "a valid placement inside S" in out


def test_build_png_core_view(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "core.png"
    code, _, _ = run(capsys, "gadget", "nishio", SAT_EXAMPLE, "--picture", png, "--view", "core")
    assert code == ExitCode.OK and png.read_bytes()[:4] == b"\x89PNG"


def test_build_errors_are_one_line(capsys, tmp_path):
    wide = tmp_path / "wide.cnf"
    wide.write_text("p cnf 4 2\n1 2 0\n1 -2 3 4 0\n")
    code, out, err = run(capsys, "gadget", "nishio", wide, "-o", tmp_path / "S.txt")
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err.startswith("sudoku-bridge: error:") and "clause 2 [1, -2, 3, 4]" in err
    assert err.count("\n") == 1 and not (tmp_path / "S.txt").exists()
    for argv, message in [
        (["gadget", "nishio", "-o", tmp_path / "S.txt"], "give one FORMULA.cnf"),
        (["gadget", "nishio", SAT_EXAMPLE], "nothing to write"),
        (["gadget", "nishio", tmp_path / "missing.cnf", "-o", tmp_path / "S.txt"],
         "no such file"),
        (["gadget", "nishio", SAT_EXAMPLE, "-o", tmp_path / "S.txt", "--order", "5"],
         "too small"),
        (["gadget", "nishio", "--random", "3", "3", "1"], "--random goes with --validate"),
        (["gadget", "nishio", "--validate", "--random", "2", "3", "1"], "need V >="),
        (["gadget", "nishio", "--validate", "--random", "4", "3", "1", "--widths", "1,5"],
         "widths must be"),
        (["gadget", "nishio", "--validate", SAT_EXAMPLE, "--random", "4", "3", "1"],
         "not both"),
        (["gadget", "nishio", SAT_EXAMPLE, "--picture", tmp_path / "S.gif"], ".svg or .png"),
        (["gadget", "nishio", SAT_EXAMPLE, "-o", tmp_path / "no" / "S.txt"], "does not exist"),
    ]:
        code, out, err = run(capsys, *argv)
        assert code == ExitCode.BAD_INPUT, (argv, out, err)
        assert message in err and err.count("\n") == 1, (argv, err)


# ----------------------------------------------------------------------------- validate

def test_validate_fixed_examples(capsys):
    code, out, _ = run(capsys, "gadget", "nishio", "--validate")
    assert code == ExitCode.OK
    assert "6 formulas: 3 satisfiable, 3 unsatisfiable; all checks passed" in out
    rows = [line for line in out.splitlines() if line.endswith("| ok")]
    assert len(rows) == 7 and rows[0].startswith("formula")        # header + 6 formulas


def test_validate_random_mixed_widths(capsys):
    code, out, _ = run(capsys, "gadget", "nishio", "--validate", "--random", "4", "5", "12",
                       "--widths", "1,1,2,3", "--seed", "7")
    assert code == ExitCode.OK and "12 formulas" in out and "all checks passed" in out
    rows = [line for line in out.splitlines() if line.startswith("random v4 c5 seed")]
    answers = {r.split("|")[0].split()[-1] for r in rows}
    assert len(rows) == 12 and answers == {"yes", "no"}


def test_validate_one_file_theorem2_only_and_pure_sat(capsys):
    code, out, _ = run(capsys, "gadget", "nishio", "--validate", UNSAT_EXAMPLE,
                       "--variant", "thm2", "--no-split")
    assert code == ExitCode.OK and "n3" not in out and "0 satisfiable, 1 unsatisfiable" in out


def test_validate_every_shipped_formula(capsys):
    files = sorted(FORMULAS.glob("nishio-*.cnf"))
    code, out, _ = run(capsys, "gadget", "nishio", "--validate", *files)
    sat = sum("-sat-" in f.name for f in files)
    assert code == ExitCode.OK and f"{len(files)} formulas: {sat} satisfiable, " \
        f"{len(files) - sat} unsatisfiable; all checks passed" in out
    assert all(f.name[:20] in out for f in files)


def test_validate_reports_failures_with_exit_4(capsys, monkeypatch):
    import solvers.gadgets.nishio as module
    from reductions.formulas import Formula
    real = module.nishio_gadget
    monkeypatch.setattr(module, "nishio_gadget",
                        lambda f, order=None: real(Formula(f.num_vars, f.clauses[:-1]), order))
    code, out, _ = run(capsys, "gadget", "nishio", "--validate", UNSAT_EXAMPLE, "--variant", "thm2")
    assert code == ExitCode.MISMATCH and "FAIL" in out and "1 FAILED" in out


# ----------------------------------------------------------------------------- nishio

def test_nishio_methods_agree(capsys, tmp_path):
    rng = random.Random(3)
    shape = Shape(3, 3)
    for i in range(5):
        cells = random_cell_set(shape, rng, placements=rng.randint(1, 2), density=0.2)
        path = tmp_path / f"s{i}.txt"
        write_cell_set(path, cells)
        expected = nishio_dag(cells)
        outputs = []
        for method in ("dag", "dag-sweep", "overlay", "sat", "auto"):
            out_path = tmp_path / f"k{i}{method}.txt"
            code, out, _ = run(capsys, "nishio", path, "--method", method, "-o", out_path)
            assert code == ExitCode.OK
            assert read_cell_set(out_path) == expected
            outputs.append(out.split("(method")[0])
        assert len(set(outputs)) == 1
        assert f"Nishio(S): {expected.count()} cells" in outputs[0]


def test_nishio_prints_eliminated_cells_and_grid(capsys, tmp_path):
    shape = Shape(2, 2)
    cells = CellSet.from_cells(shape, [(0, 0), (0, 1), (1, 2), (2, 1), (3, 3), (1, 3)])
    path = tmp_path / "s.txt"
    write_cell_set(path, cells)
    code, out, _ = run(capsys, "nishio", path)
    kept = nishio_dag(cells)
    eliminated = [c for c in cells.cells() if c not in kept]
    assert code == ExitCode.OK and eliminated
    assert "eliminated: " + " ".join(f"r{r + 1}c{c + 1}" for r, c in eliminated) in out
    assert out.count("x") >= len(eliminated)


def test_nishio_empty_and_box_and_picture(capsys, tmp_path):
    shape = Shape(3, 2)
    placement = random_placement(shape, random.Random(1))
    path = tmp_path / "one.txt"
    write_cell_set(path, CellSet.from_cells(shape, placement[1:]))
    code, out, _ = run(capsys, "nishio", path, "--box", "3x2", "--picture", tmp_path / "p.svg")
    assert code == ExitCode.NO_SOLUTION and "Nishio(S): 0 cells" in out
    assert (tmp_path / "p.svg").read_text().startswith("<svg")
    write_cell_set(path, CellSet.from_cells(shape, placement))
    code, out, _ = run(capsys, "nishio", path, "--box", "3x2", "--decide")
    assert code == ExitCode.OK
    assert " ".join(f"r{r + 1}c{c + 1}" for r, c in sorted(placement)) in out


def test_nishio_bad_input(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("##\n#?\n")
    big = tmp_path / "big.txt"
    write_cell_set(big, CellSet.full(Shape(5, 5)))
    nine = tmp_path / "nine.txt"
    write_cell_set(nine, CellSet.full(Shape(3, 3)))
    for argv, message in [
        (["nishio", bad], "line 2, column 2"),
        (["nishio", tmp_path / "missing.txt"], "no such file"),
        (["nishio", big, "--method", "dag"], "use --method sat"),
        (["nishio", big, "--method", "overlay"], "pattern overlay would enumerate"),
        (["nishio", nine, "--cell", "10,1"], "outside the 9x9 grid"),
        (["nishio", nine, "--cell", "a,b"], "ROW,COLUMN"),
        (["nishio", nine, "--box", "2x2"], "does not fit"),
    ]:
        code, out, err = run(capsys, *argv)
        assert code == ExitCode.BAD_INPUT, (argv, err)
        assert message in err and err.count("\n") == 1, (argv, err)


def test_nishio_sat_on_a_25x25_set(capsys, tmp_path):
    shape = Shape(5, 5)
    rng = random.Random(25)
    cells = random_cell_set(shape, rng, placements=2, density=0.05)
    path = tmp_path / "s25.txt"
    write_cell_set(path, cells)
    code, out, _ = run(capsys, "nishio", path, "--quiet")
    assert code == ExitCode.OK and "method sat" in out
