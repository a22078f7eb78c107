"""What the certification tests share: the checkers each test runs with (a missing one skips
with the reason that says what to build) and the memory every check may use."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pysat.solvers import Solver

from solvers.certify.checkers import (CHECKERS, Checker, CheckerUnavailable, ProofRejected,
                                      check_proof, find_checker)

MEMORY = 1 << 30

NEEDS_DRATIFY = pytest.mark.skipif(importlib.util.find_spec("dratify") is None,
                                   reason="dratify not installed (pip install '.[certify]'): "
                                          "every test here checks through it at least")


def checker_or_skip(name: str):
    try:
        return find_checker(name)
    except CheckerUnavailable as exc:
        pytest.skip(f"{exc}")


@pytest.fixture(params=CHECKERS)
def checker(request):
    """Each checker in turn (cake_lpr, drat-trim, dratify), skipped where missing."""
    return checker_or_skip(request.param)


def assert_empty_proof_rejected(checker: Checker, cnf: Path, work: Path) -> None:
    """The proof "0" (no lemma) is rejected for ``cnf`` — after showing that unit propagation
    alone does not refute ``cnf``, where an empty proof would be right."""
    clauses = [list(map(int, line.split()[:-1])) for line in cnf.read_text().splitlines()
               if line and line[0] not in "cp"]
    with Solver(name="cadical195", bootstrap_with=clauses) as sat:
        assert sat.propagate()[0]               # no conflict from unit propagation
    (work / "empty.drat").write_text("0\n")
    with pytest.raises(ProofRejected):
        check_proof(checker, cnf, work / "empty.drat", work=work, time_limit=None,
                    memory_limit=MEMORY, claim="an empty proof")
