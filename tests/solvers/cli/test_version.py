"""``sudoku-bridge --version``: one line naming this package's installed version beside
Python's, python-sat's and numpy's; a source tree never installed says so; a stdout that
cannot take it (or ``--help``) is one line and exit 2, as for every command."""

from __future__ import annotations

import platform
import re
import subprocess
import sys
from importlib import metadata

import pytest

from tests.conftest import ROOT


def test_version_is_one_line_with_the_installed_versions(run):
    code, out, err = run("--version")
    assert code == 0 and err == ""
    assert out == (f"sudoku-bridge {metadata.version('sudoku-bridge')} (Python "
                   f"{platform.python_version()}, python-sat {metadata.version('python-sat')}, "
                   f"numpy {metadata.version('numpy')})\n")


def test_version_of_a_tree_never_installed(run, monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", missing)
    code, out, _ = run("--version")
    assert code == 0
    assert re.fullmatch(r"sudoku-bridge \(version unknown: not installed, run from its source "
                        r"tree\) \(Python [0-9.]+\S*, python-sat not installed, numpy not "
                        r"installed\)\n", out)


def test_help_names_version(run):
    assert "--version" in run("--help")[1]


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["solve", "--help"]])
def test_a_full_stdout_is_one_line_and_exit_2(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "solvers.cli", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "sudoku-bridge: error: stdout: cannot write (No space left on device)\n"
