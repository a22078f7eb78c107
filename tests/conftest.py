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


QUICK_MODULES = frozenset({
    # readers and writers of every format, the reading layer, output files
    "test_grid", "test_dimacs", "test_bounded_reading", "test_outputs", "test_tsplib",
    "test_cellset", "test_hcp_formats", "test_lp_solution", "test_ilp_model", "test_dlx",
    "test_labelled_edges", "test_puzzle_record", "test_formulas", "test_status",
    # every reduction and its sizes; the rules on their fast path
    "test_cnf", "test_exact_cover", "test_ilp", "test_hcp", "test_split_reduction",
    "test_skew_symmetric", "test_usp", "test_ssg", "test_graphs", "test_labelled_graph",
    "test_reduction_protocol", "test_rules_fast", "test_routes_sat", "test_routes_options",
    "test_templates",
    # the command line's conventions (test_cli_contract, a process per command, is not quick);
    # the layers
    "test_cli_stdin", "test_cli_suggestions", "test_cli_version",
    "test_cli_routes", "test_layers", "test_readme_links",
})
"""The test modules of ``pytest -m quick``: broad and fast (121 s of CPU measured on a busy
2-core machine), for a contributor's edit-test loop; the whole suite stays the check
(docs/development.md)."""


def pytest_collection_modifyitems(config, items):
    """Mark the tests of :data:`QUICK_MODULES` ``quick``."""
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in QUICK_MODULES:
            item.add_marker(pytest.mark.quick)
