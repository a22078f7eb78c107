"""Knuth's exact-cover format: writing, reading back, running in dlx1, answers, bad files."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reductions.encodings.exact_cover import CLUE_MODES, sudoku_exact_cover
from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid
from solvers.routes.exact_cover import find_covers
from solvers.formats.dlx import (DlxFormatError, cover_from_dlx, dlx1_limit_notes, read_answer,
                                 read_dlx, write_dlx)

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION

DLX1 = shutil.which(os.environ.get("DLX1", "dlx1"))
needs_dlx1 = pytest.mark.skipif(DLX1 is None, reason="Knuth's dlx1 is not on PATH (set DLX1 "
                                                     "to its path to run these tests)")


def dlx1_style(cover, chosen) -> str:
    """An answer as dlx1 prints it: a 'K:' line, then each option with its item names
    starting from the second one (dlx1 starts from the item it branched on) and '(i of n)'."""
    lines = ["1:"]
    for option in chosen:
        names = cover.option_names(int(option))
        lines.append(" " + " ".join(names[1:] + names[:1]) + " (1 of 3)")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- writing

@pytest.mark.parametrize("mode", CLUE_MODES)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "16x16.txt"])
def test_write_then_read_back(tmp_path, name, mode):
    for puzzle in instance_puzzles(name):
        cover = sudoku_exact_cover(puzzle, mode)
        path = tmp_path / "p.dlx"
        assert write_dlx(path, cover) == cover.num_options
        parsed = read_dlx(path)
        assert parsed.primary == cover.item_names() and parsed.secondary == []
        assert len(parsed.options) == cover.num_options
        assert parsed.metadata["clues"] == mode and parsed.metadata["shape"] == str(puzzle.shape)
        again = cover_from_dlx(path)
        assert again.puzzle == puzzle and again.clues == mode
        assert (again.options == cover.options).all()


def test_file_layout(tmp_path):
    cover = sudoku_exact_cover(parse_grid(PAPER_17), "keep")
    path = tmp_path / "p.dlx"
    write_dlx(path, cover)
    lines = path.read_text().splitlines()
    comments = [line for line in lines if line.startswith("|")]
    body = [line for line in lines if not line.startswith("|")]
    assert f"| puzzle {PAPER_17}" in comments and "| shape 3x3" in comments
    assert len(body) == 1 + cover.num_options == 1 + 729 - 8 * 17
    assert len(body[0].split()) == 324
    assert body[1] == "p0_0 r0_1 c0_1 b0_1"
    assert all(len(line.split()) == 4 for line in body[1:])
    assert "| size 593 options, 324 items, 2372 nonzeros" in comments


def test_big_puzzle_written_with_integers(tmp_path):
    values = Grid.empty(36).values.copy()
    values[0, :6] = [1, 2, 3, 4, 5, 36]
    puzzle = Grid(values)
    cover = sudoku_exact_cover(puzzle, "eliminate")
    path = tmp_path / "p36.dlx"
    write_dlx(path, cover)
    assert cover_from_dlx(path).puzzle == puzzle
    assert any("max_level" in note for note in dlx1_limit_notes(cover))


def test_dlx1_limit_notes():
    assert dlx1_limit_notes(sudoku_exact_cover(parse_grid(PAPER_17), "keep")) == []
    notes = dlx1_limit_notes(sudoku_exact_cover(Grid.empty(25), "keep"))
    assert len(notes) == 1 and "625 options" in notes[0]
    notes = dlx1_limit_notes(sudoku_exact_cover(parse_grid(PAPER_17_SOLUTION), "eliminate"))
    assert "nothing is left to cover" in notes[0]


# ----------------------------------------------------------------------------- Knuth's dlx1

def run_dlx1(path, *args):
    with open(path) as handle:
        return subprocess.run([DLX1, *args], stdin=handle, capture_output=True, text=True,
                              timeout=60)


@needs_dlx1
@pytest.mark.parametrize("mode", CLUE_MODES)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt"])
def test_files_run_unchanged_in_dlx1(tmp_path, name, mode):
    for puzzle, _ in instance_pairs(name)[:2]:
        cover = sudoku_exact_cover(puzzle, mode)
        matrix = tmp_path / "p.dlx"
        write_dlx(matrix, cover)
        result = run_dlx1(matrix, "m1", "t2")
        assert result.returncode == 0, result.stderr
        assert f"({cover.num_options} options, {cover.num_items}+0 items" in result.stderr
        answer_file = tmp_path / "p.out"
        answer_file.write_text(result.stdout)
        answer = read_answer(answer_file, cover_from_dlx(matrix))
        assert answer.solutions
        for chosen in answer.solutions:
            assert check_solution(puzzle, cover.grid_from_options(chosen))


@needs_dlx1
def test_dlx1_counts_the_same_solutions_as_we_do(tmp_path):
    cover = sudoku_exact_cover(Grid.empty(4))
    matrix = tmp_path / "empty4.dlx"
    write_dlx(matrix, cover)
    result = run_dlx1(matrix)
    assert "Altogether 288 solutions" in result.stderr
    assert len(find_covers(cover, 1000, "dlx").solutions) == 288


@needs_dlx1
def test_dlx1_finds_nothing_for_an_unsolvable_puzzle(tmp_path):
    for puzzle in instance_puzzles("unsolvable.txt"):
        cover = sudoku_exact_cover(puzzle, "keep")
        matrix = tmp_path / "no.dlx"
        write_dlx(matrix, cover)
        result = run_dlx1(matrix, "m1")
        assert result.stdout == "" and "Altogether 0 solutions" in result.stderr
        answer_file = tmp_path / "no.out"
        answer_file.write_text(result.stdout + result.stderr)
        assert read_answer(answer_file, cover).solutions == []


# ----------------------------------------------------------------------------- answers

@pytest.mark.parametrize("mode", CLUE_MODES)
def test_answer_forms(tmp_path, mode):
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    cover = sudoku_exact_cover(puzzle, mode)
    chosen = cover.options_from_grid(solution)
    forms = {
        "dlx1": dlx1_style(cover, chosen) + "Altogether 1 solution, 1+2 mems\n",
        "lines": "\n".join(" ".join(reversed(cover.option_names(int(o)))) for o in chosen),
        "numbers": " ".join(str(int(o) + 1) for o in chosen),
        "numbers by line": "\n".join(str(int(o) + 1) for o in chosen),
    }
    for form, text in forms.items():
        path = tmp_path / "answer.txt"
        path.write_text(text)
        answer = read_answer(path, cover)
        assert len(answer.solutions) == 1, form
        assert cover.grid_from_options(answer.solutions[0]) == solution, form
    path.write_text(" ".join(str(int(o)) for o in chosen))
    answer = read_answer(path, cover, zero_based=True)
    assert cover.grid_from_options(answer.solutions[0]) == solution


def test_answer_with_several_solutions(tmp_path):
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    cover = sudoku_exact_cover(puzzle, "eliminate")
    first, second = find_covers(cover, 2, "dlx").solutions
    text = dlx1_style(cover, first) + dlx1_style(cover, second).replace("1:", "2:")
    path = tmp_path / "answer.txt"
    path.write_text(text + "Altogether 2 solutions, 5+6 mems\n")
    answer = read_answer(path, cover)
    grids = [cover.grid_from_options(s) for s in answer.solutions]
    assert answer.reported_count == 2 and len(grids) == 2 and grids[0] != grids[1]
    assert all(check_solution(puzzle, g) for g in grids)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("text,message", [
    ("| only a comment\n", r"line|no item line"),
    ("A B A\nA\n", r"line 1: item 'A' is named twice"),
    ("A B|C|D\nA\n", r"line 1: the item line contains '\|' twice"),
    ("A toolongname\nA\n", r"line 1: item name 'toolongname' is longer than 8"),
    ("A B:1\nA\n", r"line 1: item name 'B:1' contains"),
    ("A B\nA\n| comment\nA C\n", r"line 4: unknown item 'C'"),
    ("A B\nA A\n", r"line 2: item 'A' appears twice"),
    ("A | S\nS\n", r"line 2: the option has no primary item"),
])
def test_broken_dlx_files(tmp_path, text, message):
    path = tmp_path / "bad.dlx"
    path.write_text(text)
    with pytest.raises(DlxFormatError, match=message):
        read_dlx(path)


def test_changed_or_foreign_files_are_refused(tmp_path):
    cover = sudoku_exact_cover(parse_grid(PAPER_17), "keep")
    path = tmp_path / "p.dlx"
    write_dlx(path, cover)
    lines = path.read_text().splitlines()
    (tmp_path / "dropped.dlx").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(DlxFormatError, match="592 options, but .* 593: the file was changed"):
        cover_from_dlx(tmp_path / "dropped.dlx")
    swapped = lines[:]
    swapped[-1], swapped[-2] = swapped[-2], swapped[-1]
    (tmp_path / "swapped.dlx").write_text("\n".join(swapped) + "\n")
    with pytest.raises(DlxFormatError, match=f"line {len(lines) - 1}: option 592 differs"):
        cover_from_dlx(tmp_path / "swapped.dlx")
    foreign = tmp_path / "foreign.dlx"
    foreign.write_text("A B\nA B\n")
    with pytest.raises(DlxFormatError, match="no 'shape ...' comment line"):
        cover_from_dlx(foreign)
    with pytest.raises(DlxFormatError, match="no such file"):
        cover_from_dlx(tmp_path / "missing.dlx")


@pytest.mark.parametrize("text,message", [
    ("", r"answer.txt: no chosen options and no 'Altogether N solutions' line: nothing says"),
    ("(303 options, 256+0 items, 1515 entries successfully read)\n",
     r"no chosen options and no 'Altogether N solutions' line.*'dlx1 m1 < FILE > OUT 2>&1'"),
    ("Altogether 3 solutions, 1+2 mems\n", r"reports 3 solutions but lists none .*m1"),
    ("(303 options, 256+0 items, 1515 entries)\nToo many levels!\n",
     r"line 2: the solver stopped with an error: Too many levels!"),
    ("Unknown item name!\n2: A C\n", r"line 1: the solver stopped with an error: Unknown"),
    ("Altogether 1 sol", r"line 1: 'Altogether' is not an item"),
    ("1:\n p0_7 r0_1 c7_1 b2_1 (1 of 2)\n", r"line 2: no option of the matrix has exactly"),
    ("p0_0 r0_5 c0_5\n", r"line 1: no option of the matrix has exactly the items"),
    ("p0_0 r0_5 zz c0_5 b0_5\n", r"line 1: 'zz' is not an item of a 9x9"),
    ("1 2 99999\n", r"line 1: option number 99999 is out of range: the matrix has 303"),
    ("0\n", r"line 1: option number 0 is out of range"),
    ("1\n1\n", r"line 2: a solution chooses an option twice"),
])
def test_broken_answers(tmp_path, text, message):
    cover = sudoku_exact_cover(parse_grid(PAPER_17), "eliminate")
    path = tmp_path / "answer.txt"
    path.write_text(text)
    with pytest.raises(DlxFormatError, match=message):
        read_answer(path, cover)


def test_answer_for_another_shape_is_refused(tmp_path):
    cover = sudoku_exact_cover(Grid.empty(Shape(2, 3)))
    path = tmp_path / "answer.txt"
    path.write_text("p0_0 r0_7 c0_7 b0_7\n")
    with pytest.raises(DlxFormatError, match=r"'r0_7' is not an item of a 6x6 Sudoku"):
        read_answer(path, cover)


def test_large_puzzles_are_written_one_row_per_comment(tmp_path):
    values = Grid.empty(25).values.copy()
    values[3, :5] = [1, 2, 3, 4, 25]
    puzzle = Grid(values)
    path = tmp_path / "p25.dlx"
    write_dlx(path, sudoku_exact_cover(puzzle, "eliminate"))
    comments = [line for line in path.read_text().splitlines() if line.startswith("|")]
    rows = [line for line in comments if line.startswith("| puzzle-row ")]
    assert len(rows) == 25 and rows[3] == "| puzzle-row 3 " + "1234P" + "." * 20
    assert max(len(line) for line in comments) <= 202
    assert cover_from_dlx(path).puzzle == puzzle
    # rows out of order are refused
    text = path.read_text().replace("| puzzle-row 3 ", "| puzzle-row 4 ", 1)
    (tmp_path / "bad.dlx").write_text(text)
    with pytest.raises(DlxFormatError, match="'puzzle-row 4' comes where row 3 is expected"):
        read_dlx(tmp_path / "bad.dlx")
