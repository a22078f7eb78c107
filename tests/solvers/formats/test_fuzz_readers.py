"""Every reader, fuzzed through the command line's entry point (inputs: tests/fuzz_inputs.py).

For each command that reads a file (decode cnf / exact-cover / ilp / hcp, verify, solve,
nishio, nonrepetitive, gadget nishio / nrpath, crosscheck --resume) a valid input is mutated
by hypothesis — a quarter of the time also compressed, and most often damaged then — and the
command runs on it. Whatever the input, the contract holds (``fuzz_inputs.violations``): an
exit code from 0 to 4 (never 70, an internal error: a traceback), nothing on stdout with a
wrong answer, no grid on stdout after a failure, and every grid printed by ``decode`` solves
the puzzle.

``FUZZ_EXAMPLES`` sets the examples per reader (default 40, derandomized for CI); the closing
note of the bridge issue quotes ``benchmarks/fuzz_cli.py``, which runs the same cases on any
checkout.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import parse_grid
from solvers.cli import ExitCode, main

from tests.fuzz_inputs import (READERS, SOLUTION, mutate, run_main, seed_files,
                          violations, write_case)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 40,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def run_cli(*argv) -> tuple[int, str, str]:
    return run_main(main, [*argv, "--debug"])          # a traceback would show in stderr


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict:
    return seed_files(tmp_path_factory.mktemp("seeds"))


def test_the_unchanged_seeds_are_right(seeds, tmp_path):
    """Unmutated, every decode gives the known solution and every reader exits 0."""
    for name, reader in READERS.items():
        argv = write_case(tmp_path, reader, seeds, seeds[reader.files[reader.mutated]])
        code, out, err = run_cli(*argv)
        assert code == ExitCode.OK and violations(reader, code, out, err) == [], (name, err)
        if reader.decodes:
            assert parse_grid(out) == SOLUTION, name


@pytest.mark.parametrize("name", list(READERS))
def test_mutated_inputs_keep_the_contract(seeds, tmp_path, name):
    reader = READERS[name]

    @FUZZ
    @given(rng=st.randoms(use_true_random=False))
    def fuzz(rng):
        data = mutate(seeds[reader.files[reader.mutated]], rng)
        code, out, err = run_cli(*write_case(tmp_path, reader, seeds, data))
        assert violations(reader, code, out, err) == [], err[-2000:]
    fuzz()


@pytest.mark.parametrize("instance, answer", [
    ("cnf", b"s SATISFIABLE\nv -99999999999999999999999999 1 2 0\n"),
    ("cnf", b"s SATISFIABLE\nv 999999999999999999 0\n"),
    ("dlx", b"1:\n" + b"7" * 1_000_000 + b"\n"),
    ("dlx", b"Altogether " + b"9" * 10_000 + b" solutions\n"),
    ("lp", b"Optimal - objective value 0\n      0 x_0_0_1 1e999 0\n"),
    ("lp", b"Optimal - objective value 0\n      0 x_0_0_1 nan 0\n"),
])
def test_the_reported_faults_are_one_line_errors(seeds, tmp_path, instance, answer):
    """Answers from the bridge issue's report: absurd numbers are bad input (exit 2, one
    line naming the file), not tracebacks."""
    target = {"cnf": "cnf", "dlx": "exact-cover", "lp": "ilp"}[instance]
    (tmp_path / f"p.{instance}").write_bytes(seeds[instance])
    (tmp_path / "answer").write_bytes(answer)
    code, out, err = run_cli("decode", target, tmp_path / f"p.{instance}", tmp_path / "answer")
    assert code == ExitCode.BAD_INPUT and out == "", err
    assert err.count("\n") == 1 and str(tmp_path / "answer") in err and len(err) < 400


def test_a_wrong_model_prints_no_grid(seeds, tmp_path):
    """A model that decodes to a wrong grid: exit 4, nothing on stdout; with --json the
    record says invalid and lists the problems, with no solution in it."""
    literals = seeds["cnf answer"].decode().split("\n")[1].split()[1:-1]
    first_true = next(i for i, lit in enumerate(literals) if not lit.startswith("-"))
    literals[first_true] = "-" + literals[first_true]
    literals[first_true + 1] = literals[first_true + 1].lstrip("-")
    (tmp_path / "p.cnf").write_bytes(seeds["cnf"])
    (tmp_path / "a").write_text(f"s SATISFIABLE\nv {' '.join(literals)} 0\n")
    code, out, err = run_cli("decode", "cnf", tmp_path / "p.cnf", tmp_path / "a")
    assert code == ExitCode.MISMATCH and out == "" and "invalid" in err
    code, out, _ = run_cli("decode", "cnf", tmp_path / "p.cnf", tmp_path / "a", "--json")
    record = json.loads(out)
    assert code == ExitCode.MISMATCH and record["status"] == "invalid"
    assert record["problems"] and record["solutions"] == []
