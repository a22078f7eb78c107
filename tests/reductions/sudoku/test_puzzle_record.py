"""The one "which puzzle is this file about" record (reductions/sudoku/puzzle_record.py): written into a
comment header in each spelling and read back to the same puzzle and settings; a tampered
header is refused with a one-line error naming the file."""

from __future__ import annotations

import numpy as np
import pytest

from reductions.errors import UserError
from reductions.sudoku.grid import Grid, Shape, parse_grid, pattern_solution
from reductions.sudoku.puzzle_record import (CNF_SPELLING, MODEL_SPELLING, PuzzleRecord,
                                             comment_metadata, prefixed, puzzle_comment_lines,
                                             read_comment_header)
from reductions.reading import ReadLimit

from tests.reductions.sudoku.test_grid import PAPER_17


class RecordError(UserError):
    pass


def puzzle_of(shape: Shape, seed: int) -> Grid:
    """A valid grid of ``shape`` with about 60 % of its cells blanked."""
    values = pattern_solution(shape).values.copy()
    values[np.random.default_rng(seed).random(values.shape) < 0.6] = 0
    return Grid(values, shape)


PUZZLES = [parse_grid(PAPER_17), puzzle_of(Shape(2, 3), 1), puzzle_of(Shape(4, 4), 2),
           puzzle_of(Shape(6, 6), 3), puzzle_of(Shape(5, 8), 4)]
"""9×9, a 2×3-block 6×6, 16×16, 36×36 (symbols, rows of their own) and 40×40 (numbers)."""
SETTINGS = {id(CNF_SPELLING): (("encoding", "extended"), ("amo", "pairwise"), ("clues", "units")),
            id(MODEL_SPELLING): (("clues", "eliminate"),)}


def read_back(tmp_path, record: PuzzleRecord, spelling, prefix: str, width: int = 200):
    """Write the record behind ``prefix`` in front of a body line, read it back."""
    path = tmp_path / "f.txt"
    lines = prefixed(prefix, record.comments(spelling, width))
    path.write_text("\n".join(lines) + "\nbody line\n")
    comments = read_comment_header(path, prefix, ReadLimit(1 << 20, "test"), RecordError)
    metadata = comment_metadata(comments, str(path), RecordError)
    return PuzzleRecord.from_metadata(metadata, spelling, [k for k, _ in record.settings],
                                      where=str(path), error=RecordError)


@pytest.mark.parametrize("spelling, prefix", [(CNF_SPELLING, "c"), (MODEL_SPELLING, "|"),
                                              (MODEL_SPELLING, "\\"), (MODEL_SPELLING, "*")])
@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: f"{p.size}x{p.size}")
def test_round_trip(tmp_path, spelling, prefix, puzzle):
    record = PuzzleRecord(puzzle, SETTINGS[id(spelling)])
    again = read_back(tmp_path, record, spelling, prefix)
    assert again == record and again.shape == puzzle.shape


def test_the_spellings_differ_where_the_files_do():
    record = PuzzleRecord(parse_grid(PAPER_17), (("clues", "keep"),))
    assert record.comments(CNF_SPELLING) == ["shape 9 3 3", "clues keep", f"puzzle {PAPER_17}"]
    assert record.comments(MODEL_SPELLING) == ["shape 3x3", "clues keep", f"puzzle {PAPER_17}"]
    big = PuzzleRecord(PUZZLES[-1])
    assert len(big.comments(CNF_SPELLING)) == 2                     # one puzzle line
    assert big.comments(CNF_SPELLING)[1].startswith("puzzle  1  0  3")   # padded numbers
    assert big.comments(MODEL_SPELLING)[1].startswith("puzzle-row 0 1 0 3")


def test_long_puzzle_rows_continue_within_80_characters():
    values = np.tile(np.arange(1, 65, dtype=np.int16), (64, 1))
    puzzle = Grid(values, Shape.parse("8x8"))
    lines = puzzle_comment_lines(puzzle, 78)
    assert max(map(len, lines)) <= 78 and len(lines) > 64
    metadata = comment_metadata(lines, "m.mps", RecordError)
    assert parse_grid(metadata["puzzle"], Shape.parse("8x8"), check=False) == puzzle


@pytest.mark.parametrize("spelling, change, message", [
    (MODEL_SPELLING, ("shape 3x3", "shape 3x4"), "puzzle comment: "),
    (MODEL_SPELLING, ("shape 3x3", "shape three"), "block shape 'three' is not of the form"),
    (MODEL_SPELLING, ("clues eliminate", "clues all"), "unknown clue mode 'all' in the comments"),
    (MODEL_SPELLING, ("shape 3x3", "form 3x3"), "no 'shape ...' comment line"),
    (MODEL_SPELLING, ("puzzle ", "puzzle 5"), "puzzle comment: "),
    (CNF_SPELLING, ("shape 9 3 3", "shape 8 3 3"), "CNF comments disagree: shape 8"),
    (CNF_SPELLING, ("shape 9 3 3", "shape 9 3"), "no sudoku-bridge comments"),
    (CNF_SPELLING, ("puzzle ..", "puzzle 33"), "CNF comment 'puzzle': "),
])
def test_a_tampered_header_is_refused_in_one_line(tmp_path, spelling, change, message):
    record = PuzzleRecord(parse_grid(PAPER_17), SETTINGS[id(spelling)])
    path = tmp_path / "f.txt"
    text = "\n".join(prefixed("c", record.comments(spelling))) + "\n"
    assert change[0] in text
    path.write_text(text.replace(change[0], change[1], 1))
    metadata = comment_metadata(read_comment_header(path, "c", ReadLimit(1 << 20, "test"),
                                                    RecordError), str(path), RecordError)
    with pytest.raises(RecordError) as caught:
        PuzzleRecord.from_metadata(metadata, spelling, [k for k, _ in record.settings],
                                   where=str(path), error=RecordError,
                                   clue_modes=("keep", "eliminate"))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_json_fields_round_trip_and_a_changed_size_is_refused():
    record = PuzzleRecord(PUZZLES[-1])
    fields = record.json_fields()
    assert (fields["size"], fields["box"]) == (40, "5x8")
    assert PuzzleRecord.from_json_fields(fields, where="g.json", error=RecordError) == record
    with pytest.raises(RecordError, match="g.json: size 41 disagrees with blocks 5x8"):
        PuzzleRecord.from_json_fields({**fields, "size": 41}, where="g.json", error=RecordError)
    with pytest.raises(RecordError, match="g.json: malformed"):
        PuzzleRecord.from_json_fields({"size": 40}, where="g.json", error=RecordError)
