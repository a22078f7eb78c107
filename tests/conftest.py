"""Shared test helpers: paths to the shipped instances, and to the big sets when present."""

from __future__ import annotations

from pathlib import Path

import pytest

from reductions.sudoku.grid import Grid
from reductions.sudoku.puzzle_files import read_puzzles

# the fixture for marked fake programs, killed after each test
from .processes import fakes  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
SHARED_DATA = ROOT.parent / "shared" / "data" / "sudoku"


def instance_puzzles(name: str, limit: int | None = None) -> list[Grid]:
    """Puzzles of a shipped file in ``instances/`` (first ``limit`` of them)."""
    grids = [g for _, g in read_puzzles(INSTANCES / name)]
    return grids[:limit] if limit else grids


def instance_pairs(name: str) -> list[tuple[Grid, Grid]]:
    """(puzzle, solution) pairs of a shipped file and its ``.solutions.txt`` twin."""
    puzzles = instance_puzzles(name)
    solutions = [g for _, g in read_puzzles(INSTANCES / name.replace(".txt", ".solutions.txt"),
                                            puzzles[0].shape)]
    assert len(puzzles) == len(solutions)
    return list(zip(puzzles, solutions))


@pytest.fixture
def run(capsys):
    """The command line in this process: ``run(*argv)`` gives (exit code, stdout, stderr)."""
    from solvers import cli

    def call(*argv):
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return call


def shared_set(name: str) -> Path:
    """A big data set from ../shared/data/sudoku, or skip (users' clones do not have it)."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not present (the shared data sets are optional)")
    return path
