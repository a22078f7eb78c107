"""DIMACS files and solver output: round trips, atomic writes, errors naming the line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.formats.atomic import OutputError, atomic_write
from solvers.formats.dimacs import (DimacsError, parse_cnf, parse_solver_output, read_cnf,
                                    read_cnf_header, write_cnf)

clause_lists = st.lists(st.lists(st.integers(1, 30).flatmap(
    lambda v: st.sampled_from([v, -v])), min_size=1, max_size=5), max_size=40)


@settings(max_examples=100, deadline=None)
@given(clauses=clause_lists)
def test_round_trip(tmp_path_factory, clauses):
    path = tmp_path_factory.mktemp("cnf") / "f.cnf"
    count = write_cnf(path, 30, [clauses], ["first comment", "puzzle ..1.."])
    cnf = read_cnf(path)
    assert count == len(clauses)
    assert cnf.num_vars == 30 and cnf.clauses == clauses
    assert cnf.metadata()["puzzle"] == "..1.."
    header = read_cnf_header(path)
    assert (header.num_vars, header.declared_clauses) == (30, len(clauses))


def test_blocks_of_arrays_and_lists_mix(tmp_path):
    path = tmp_path / "f.cnf"
    write_cnf(path, 4, [np.array([[1, -2], [3, 4]]), [[-1], [2, 3, -4]]])
    assert read_cnf(path).clauses == [[1, -2], [3, 4], [-1], [2, 3, -4]]


def test_array_blocks_format_as_one_line_per_clause(tmp_path, monkeypatch):
    """Arrays are formatted in pieces of FORMAT_ROWS clauses: the text is the same as one
    line per clause whatever the piece boundaries (here 3 clauses a piece, 8 clauses)."""
    import solvers.formats.dimacs as dimacs
    monkeypatch.setattr(dimacs, "FORMAT_ROWS", 3)
    block = np.array([[-1, 2, 30], [4, -5, 6], [7, 8, -9], [1, 1, 1], [-2, -3, -4],
                      [10, 20, 30], [5, 6, 7], [-7, -8, -9]])
    path = tmp_path / "f.cnf"
    write_cnf(path, 30, [block, np.zeros((0, 2), dtype=np.int64), [[3]]])
    lines = [" ".join(map(str, row)) + " 0" for row in block.tolist()] + ["3 0"]
    assert path.read_text().splitlines() == ["p cnf 30 9", *lines]


def test_failed_write_leaves_nothing(tmp_path):
    path = tmp_path / "f.cnf"
    path.write_text("old content\n")

    def broken_blocks():
        yield [[1, 2]]
        raise RuntimeError("generator failed half-way")

    with pytest.raises(RuntimeError):
        write_cnf(path, 2, broken_blocks())
    assert path.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.cnf"]


def test_atomic_write_refuses_missing_directory(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        with atomic_write(tmp_path / "no" / "dir" / "x.txt") as out:
            out.write("x")


@pytest.mark.parametrize("text, message", [
    ("1 2 0\n", "line 1: clause before the 'p cnf' header"),
    ("p cnf 2\n1 2 0\n", "line 1: bad header"),
    ("p cnf 2 1\n1 x 0\n", "line 2: 'x' is not an integer literal"),
    ("p cnf 2 1\n1 3 0\n", "line 2: literal 3 exceeds the declared 2 variables"),
    ("p cnf 2 2\n1 2 0\n", "declares 2 clauses but the file has 1"),
    ("c only comments\n", "no 'p cnf' header"),
    ("p cnf 2 1\np cnf 2 1\n", "line 2: second 'p' header"),
])
def test_malformed_cnf(text, message):
    with pytest.raises(DimacsError, match=message):
        parse_cnf(text, "bad.cnf")


def test_missing_file(tmp_path):
    with pytest.raises(DimacsError, match="no such file"):
        read_cnf(tmp_path / "nothing.cnf")
    (tmp_path / "bin.cnf").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DimacsError, match="not a text file"):
        read_cnf(tmp_path / "bin.cnf")


def test_competition_output():
    answer = parse_solver_output("c comment\ns SATISFIABLE\nv 1 -2 3\nv -4 0\n")
    assert answer.status == "SAT" and answer.model == [1, -2, 3, -4]
    assert parse_solver_output("s UNSATISFIABLE\n").status == "UNSAT"
    assert parse_solver_output("c UNKNOWN\ns UNKNOWN\n").status == "UNKNOWN"


def test_minisat_result_file():
    answer = parse_solver_output("SAT\n1 -2 3 0\n")
    assert answer.status == "SAT" and answer.model == [1, -2, 3]
    assert parse_solver_output("UNSAT\n").status == "UNSAT"
    assert parse_solver_output("INDET\n").status == "UNKNOWN"


@pytest.mark.parametrize("text, message", [
    ("", "empty solver output"),
    ("s SATISFIABLE\n", "no 'v' model lines"),
    ("s SATISFIABLE\nv 1 two 0\n", "line 2: literal 'two' is not an integer"),
    ("s MAYBE\n", "unknown status"),
    ("Segmentation fault\n", "expected 's SATISFIABLE'-style"),
])
def test_bad_solver_output(text, message):
    with pytest.raises(DimacsError, match=message):
        parse_solver_output(text)


def test_read_formulas_turns_a_file_too_large_into_its_row(tmp_path):
    from reductions.formulas import Formula
    from reductions.estimate import TooLarge
    from reductions.errors import UserError
    from solvers.formats.dimacs import read_formulas
    small = tmp_path / "small.cnf"
    small.write_text("p cnf 3 2\n1 -2 0\n2 3 0\n")
    big = tmp_path / "big.cnf"
    big.write_text("p cnf 3 50000000\n1 2 3 0\n")
    (name1, f1), (name2, f2) = read_formulas([small, big], max_memory=2**26)
    assert (name1, f1) == ("small.cnf", Formula(3, ((1, -2), (2, 3))))
    assert name2 == "big.cnf" and isinstance(f2, TooLarge)
    with pytest.raises(UserError):
        read_formulas([tmp_path / "missing.cnf"], max_memory=2**20)
