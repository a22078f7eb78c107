"""Shared test helpers: paths to the shipped instances, and to the big sets when present."""

from __future__ import annotations

from pathlib import Path

import pytest

from reductions.sudoku.grid import Grid
from reductions.sudoku.puzzle_files import read_puzzles

# the fixture for marked fake programs, killed after each test
from .processes import fakes  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
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


QUICK_MODULES = frozenset({
    # readers and writers of every format, the reading layer, output files; every reduction
    # and its sizes; the rules on their fast path; the command line's conventions
    # (cli/test_contract, a process per command, is not quick); the layers
    "reductions/sudoku/test_grid.py", "solvers/formats/test_dimacs.py",
    "reductions/test_reading.py", "solvers/formats/test_outputs.py",
    "solvers/formats/test_tsplib.py", "solvers/formats/test_cellset.py",
    "solvers/formats/test_hcp_formats.py", "solvers/formats/test_lp_solution.py",
    "solvers/formats/test_ilp_model.py", "solvers/formats/test_dlx.py",
    "solvers/formats/test_labelled_edges.py", "reductions/sudoku/test_puzzle_record.py",
    "reductions/test_formulas.py", "reductions/test_status.py",
    "reductions/encodings/test_cnf.py", "reductions/encodings/test_exact_cover.py",
    "reductions/encodings/test_ilp.py", "reductions/hamiltonian/test_hcp.py",
    "reductions/hamiltonian/test_split_reduction.py",
    "reductions/nonrepetitive/test_skew_symmetric.py", "reductions/nonrepetitive/test_usp.py",
    "reductions/nonrepetitive/test_ssg.py", "reductions/hamiltonian/test_graphs.py",
    "reductions/nonrepetitive/test_labelled_graph.py", "reductions/test_reduction.py",
    "reductions/rules/test_rules_fast.py", "solvers/routes/test_sat.py",
    "solvers/routes/test_options.py", "solvers/tools/test_templates.py",
    "solvers/cli/test_stdin.py", "solvers/cli/test_suggestions.py",
    "solvers/cli/test_version.py", "solvers/cli/test_routes_list.py", "test_layers.py",
    "docs/test_readme_links.py",
})
"""The test files (paths below tests/) of ``pytest -m quick``: broad and fast, for a
contributor's edit-test loop; the whole suite stays the check (docs/development.md)."""


def pytest_collection_modifyitems(config, items):
    """Mark the tests of :data:`QUICK_MODULES` ``quick``."""
    for item in items:
        if item.path.relative_to(TESTS).as_posix() in QUICK_MODULES:
            item.add_marker(pytest.mark.quick)
