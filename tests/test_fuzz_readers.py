"""Every reader, fuzzed through the command line's entry point.

For each command that reads a file (decode cnf / exact-cover / ilp / hcp, verify, solve,
nishio, nonrepetitive, gadget nishio / nrpath), a valid input is written first (with the
answer an outside solver would give), then hypothesis mutates it — lines dropped, repeated or
swapped, tokens replaced by huge, negative or absurd numbers, random bytes, NUL bytes, invalid
UTF-8, truncation — and the command runs on the result. Whatever the input, the contract holds:

* the exit code is one of 0–4 (never 70, the code of an internal error, i.e. a traceback);
* on exit 4 (a wrong answer) nothing is printed on stdout;
* on exit 0 every grid printed on stdout solves the puzzle.

``FUZZ_EXAMPLES`` sets the examples per reader (default 40; the closing note of the bridge
issue quotes runs of 2,000).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.cnf import sudoku_cnf
from reductions.exact_cover import sudoku_exact_cover
from reductions.grid import Grid, check_solution, format_grid, parse_grid
from solvers.cli import ExitCode, main
from solvers.formats.sidecar import load_hcp_export

from .conftest import instance_pairs

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 40,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]
CONTRACT = {ExitCode.OK, ExitCode.NO_SOLUTION, ExitCode.BAD_INPUT, ExitCode.UNKNOWN,
            ExitCode.MISMATCH}

SPECIAL_TOKENS = ["0", "-0", "-1", "1", "99999999999999999999999999",
                  "-99999999999999999999999999", "1" * 5000, "1e9", "nan", "inf", "0x10",
                  "\x00", "é", "\udcff", "v", "s", "SAT", "UNSAT", "|", ":", "-", "EOF",
                  "TOUR_SECTION", "DIMENSION", "{", "}", "\"", "x_0_0_1", "p cnf 3 1",
                  "2147483648", "18446744073709551617"]


def run_cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv] + ["--debug"])   # a traceback shows in err
    return code, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------- mutations

@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """``seed`` with a few line-, token- and byte-level changes."""
    lines = seed.split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        lines = lines or [b""]
        kind = draw(st.sampled_from(["drop", "repeat", "swap", "token", "bytes", "cut",
                                     "long", "blank"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "drop" and len(lines) > 1:
            del lines[i]
        elif kind == "repeat":
            lines.insert(i, lines[i])
        elif kind == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            tokens = lines[i].split(b" ")
            k = draw(st.integers(0, len(tokens) - 1))
            tokens[k] = draw(st.sampled_from(SPECIAL_TOKENS)).encode("utf-8", "surrogatepass")
            lines[i] = b" ".join(tokens)
        elif kind == "bytes":
            at = draw(st.integers(0, len(lines[i])))
            noise = draw(st.binary(min_size=1, max_size=8))
            lines[i] = lines[i][:at] + noise + lines[i][at:]
        elif kind == "cut":
            lines = lines[:i]
        elif kind == "long":
            lines.insert(i, b"7" * draw(st.sampled_from([200, 4301, 20_000])))
        elif kind == "blank":
            lines.insert(i, b"   \t ")
    return b"\n".join(lines)


def check_contract(code: int, out: str, err: str, puzzle: Grid | None) -> None:
    assert code in CONTRACT, f"exit {code} is outside the contract: {err[-2000:]}"
    if code == ExitCode.MISMATCH:
        assert out == "", "a wrong answer printed something on stdout"
    if code == ExitCode.OK and puzzle is not None:
        grids = [parse_grid(block, puzzle.shape, check=False)
                 for block in re.split(r"solution \d+:\n", out) if block.strip()]
        assert grids and all(check_solution(puzzle, g) for g in grids), out


# ----------------------------------------------------------------------------- seeds

@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict:
    """Valid files of every kind, written once."""
    d = tmp_path_factory.mktemp("seeds")
    puzzle = format_grid(PUZZLE)
    files = {}
    for target, name in (("cnf", "p.cnf"), ("exact-cover", "p.dlx"), ("ilp", "p.lp")):
        assert run_cli("emit", target, puzzle, "-o", d / name)[0] == ExitCode.OK
        files[target] = (d / name).read_bytes()
    assert run_cli("emit", "hcp", puzzle, "-o", d / "g.hcp", "--reduce",
                   "--prune", "peers")[0] == ExitCode.OK
    files["hcp"] = (d / "g.hcp").read_bytes()
    files["hcp.json"] = (d / "g.hcp.json").read_bytes()

    cnf = sudoku_cnf(PUZZLE, "extended", "auto", "units")
    n = PUZZLE.size
    model = [(v if SOLUTION.values[(v - 1) // (n * n), (v - 1) // n % n] == (v - 1) % n + 1
              else -v) for v in range(1, cnf.num_vars + 1)]
    literals = " ".join(map(str, model))
    files["cnf answer"] = f"s SATISFIABLE\nv {literals} 0\n".encode()
    files["minisat answer"] = f"SAT\n{literals} 0\n".encode()

    cover = sudoku_exact_cover(PUZZLE, "keep")
    chosen = cover.options_from_grid(SOLUTION)
    files["cover answer"] = ("1:\n" + "\n".join(" ".join(cover.option_names(int(o)))
                                                 + " (1 of 2)" for o in chosen)
                             + "\nAltogether 1 solution\n").encode()
    files["cover numbers"] = " ".join(str(int(o) + 1) for o in chosen).encode()

    rows = ["Optimal - objective value 0.00000000"]
    index = 0
    for r in range(n):
        for c in range(n):
            for digit in range(1, n + 1):
                value = int(SOLUTION.values[r, c] == digit)
                rows.append(f"{index:>7} x_{r}_{c}_{digit} {value:>15} 0")
                index += 1
    files["cbc answer"] = ("\n".join(rows) + "\n").encode()

    pipeline, _ = load_hcp_export(d / "g.hcp")
    order = pipeline.tour_of_solution(SOLUTION) + 1
    files["hcp tour"] = ("NAME : t\nTYPE : TOUR\nDIMENSION : " + str(len(order))
                         + "\nTOUR_SECTION\n" + "\n".join(map(str, order))
                         + "\n-1\nEOF\n").encode()
    files["puzzle"] = (puzzle + "\n").encode()
    files["solution"] = (format_grid(SOLUTION, "pretty") + "\n").encode()
    files["formula"] = b"c small\np cnf 4 3\n1 -2 3 0\n-1 2 0\n2 4 -3 0\n"
    files["edges"] = b"# labelled edges\n0 1 a\n1 2 b\n2 0 a\n2 3 c\n3 0 b\n"
    _write(d / "f.cnf", files["formula"])
    assert run_cli("gadget", "nishio", d / "f.cnf", "-o", d / "s.txt")[0] == ExitCode.OK
    files["cell set"] = (d / "s.txt").read_bytes()
    return files


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------------- readers

def test_seeds_decode_to_the_solution(seeds, tmp_path):
    """The unmutated seeds are right: each decodes to the known solution (exit 0)."""
    cases = [("cnf", "p.cnf", "cnf answer"), ("cnf", "p.cnf", "minisat answer"),
             ("exact-cover", "p.dlx", "cover answer"), ("exact-cover", "p.dlx", "cover numbers"),
             ("ilp", "p.lp", "cbc answer")]
    for target, name, answer in cases:
        instance = _write(tmp_path / name, seeds[target])
        code, out, err = run_cli("decode", target, instance,
                                 _write(tmp_path / "answer", seeds[answer]))
        assert code == ExitCode.OK and parse_grid(out) == SOLUTION, (target, answer, err)
    _write(tmp_path / "g.hcp", seeds["hcp"])
    _write(tmp_path / "g.hcp.json", seeds["hcp.json"])
    code, out, err = run_cli("decode", "hcp", tmp_path / "g.hcp",
                             _write(tmp_path / "tour", seeds["hcp tour"]))
    assert code == ExitCode.OK and parse_grid(out) == SOLUTION, err


@pytest.mark.parametrize("target, instance, answer", [
    ("cnf", "p.cnf", "cnf answer"),
    ("cnf", "p.cnf", "minisat answer"),
    ("exact-cover", "p.dlx", "cover answer"),
    ("exact-cover", "p.dlx", "cover numbers"),
    ("ilp", "p.lp", "cbc answer"),
])
def test_decode_answers(seeds, tmp_path, target, instance, answer):
    @FUZZ
    @given(data=mutated(seeds[answer]))
    def fuzz(data):
        path = _write(tmp_path / instance, seeds[target])
        code, out, err = run_cli("decode", target, path, _write(tmp_path / "answer", data))
        check_contract(code, out, err, PUZZLE)
    fuzz()


@pytest.mark.parametrize("target, instance, answer", [
    ("cnf", "p.cnf", "cnf answer"),
    ("exact-cover", "p.dlx", "cover answer"),
    ("ilp", "p.lp", "cbc answer"),
])
def test_decode_instances(seeds, tmp_path, target, instance, answer):
    """The instance file itself mutated (its comments carry the puzzle): still the contract,
    and a changed puzzle can never make a wrong grid pass."""
    @FUZZ
    @given(data=mutated(seeds[target]))
    def fuzz(data):
        path = _write(tmp_path / instance, data)
        code, out, err = run_cli("decode", target, path, _write(tmp_path / "answer",
                                                               seeds[answer]))
        check_contract(code, out, err, PUZZLE)
    fuzz()


@pytest.mark.parametrize("part", ["hcp tour", "hcp", "hcp.json"])
def test_decode_hcp(seeds, tmp_path, part):
    @FUZZ
    @given(data=mutated(seeds[part]))
    def fuzz(data):
        files = {"hcp tour": seeds["hcp tour"], "hcp": seeds["hcp"], "hcp.json": seeds["hcp.json"]}
        files[part] = data
        _write(tmp_path / "g.hcp", files["hcp"])
        _write(tmp_path / "g.hcp.json", files["hcp.json"])
        code, out, err = run_cli("decode", "hcp", tmp_path / "g.hcp",
                               _write(tmp_path / "tour", files["hcp tour"]))
        check_contract(code, out, err, PUZZLE)
    fuzz()


def test_verify_and_solve_puzzle_files(seeds, tmp_path):
    @FUZZ
    @given(puzzle=mutated(seeds["puzzle"]), grid=mutated(seeds["solution"]))
    def fuzz(puzzle, grid):
        puzzle_path = _write(tmp_path / "p.txt", puzzle)
        code, out, err = run_cli("verify", puzzle_path, _write(tmp_path / "g.txt", grid))
        check_contract(code, out, err, None)
        code, out, err = run_cli("solve", puzzle_path, "--time-limit", "5")
        check_contract(code, out, err, None)        # solve verifies every grid it prints
    fuzz()


@pytest.mark.parametrize("command", [
    ("nishio", "cell set"),
    ("nonrepetitive", "edges"),
    ("gadget nishio", "formula"),
    ("gadget nrpath", "formula"),
])
def test_other_readers(seeds, tmp_path, command):
    name, seed = command

    @FUZZ
    @given(data=mutated(seeds[seed]))
    def fuzz(data):
        path = _write(tmp_path / "input.txt", data)
        extra = {"nishio": [], "nonrepetitive": ["--cyclic-edges"],
                 "gadget nishio": ["-o", tmp_path / "out.txt"],
                 "gadget nrpath": ["-o", tmp_path / "out.txt"]}[name]
        code, out, err = run_cli(*name.split(), path, *extra)
        check_contract(code, out, err, None)
    fuzz()


def test_decode_json_record_of_a_wrong_answer(seeds, tmp_path):
    """A wrong model: exit 4, stdout only the JSON record saying invalid (no grid)."""
    text = seeds["cnf answer"].decode()
    literals = text.split("\n")[1].split()[1:-1]
    first_true = next(i for i, lit in enumerate(literals) if not lit.startswith("-"))
    second = literals[first_true + 1]
    literals[first_true] = "-" + literals[first_true]
    literals[first_true + 1] = second.lstrip("-")
    answer = _write(tmp_path / "a", f"s SATISFIABLE\nv {' '.join(literals)} 0\n".encode())
    path = _write(tmp_path / "p.cnf", seeds["cnf"])
    code, out, err = run_cli("decode", "cnf", path, answer)
    assert code == ExitCode.MISMATCH and out == "" and "invalid" in err
    code, out, err = run_cli("decode", "cnf", path, answer, "--json")
    record = json.loads(out)
    assert code == ExitCode.MISMATCH and record["status"] == "invalid" and record["problems"]
    assert np.all(record["solutions"] == [])


@pytest.mark.parametrize("target, instance, answer", [
    ("cnf", "p.cnf", b"s SATISFIABLE\nv -99999999999999999999999999 1 2 0\n"),
    ("cnf", "p.cnf", b"s SATISFIABLE\nv 999999999999999999 0\n"),
    ("exact-cover", "p.dlx", b"1:\n" + b"7" * 1_000_000 + b"\n"),
    ("exact-cover", "p.dlx", b"Altogether " + b"9" * 10_000 + b" solutions\n"),
    ("ilp", "p.lp", b"Optimal - objective value 0\n      0 x_0_0_1 1e999 0\n"),
    ("ilp", "p.lp", b"Optimal - objective value 0\n      0 x_0_0_1 nan 0\n"),
])
def test_the_reported_faults_are_one_line_errors(seeds, tmp_path, target, instance, answer):
    """Answers from the bridge issue's report: absurd numbers are bad input (exit 2, one
    line naming the file), not tracebacks."""
    path = _write(tmp_path / instance, seeds[target])
    code, out, err = run_cli("decode", target, path, _write(tmp_path / "answer", answer))
    assert code == ExitCode.BAD_INPUT and out == "", err
    assert err.count("\n") == 1 and str(tmp_path / "answer") in err and len(err) < 400
