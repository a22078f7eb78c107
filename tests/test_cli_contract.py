"""The exit-code contract of solvers/cli/main.py for what nothing else exercises: a bug
(an unexpected exception) is one line and exit 70 — never 1, which means "no solution" — with
the traceback only under --debug; --help lists every code."""

from __future__ import annotations

import pytest

from solvers.cli import ExitCode, main
from solvers.routes import ROUTES, Route, Target

from .test_grid import PAPER_17


def broken_route(puzzle, *, unique, time_limit):
    """A route with a bug in it (planted by the tests below)."""
    return {}["no such key"]


@pytest.fixture
def broken(monkeypatch):
    monkeypatch.setitem(ROUTES, "broken", Route(name="broken", target=Target.CNF,
                                               summary="planted by the test",
                                               run="tests.test_cli_contract:broken_route"))


def test_a_bug_is_one_line_and_exit_70(broken, capsys, monkeypatch):
    monkeypatch.delenv("SUDOKU_BRIDGE_DEBUG", raising=False)
    code = main(["solve", PAPER_17, "--via", "broken"])
    out, err = capsys.readouterr()
    assert code == ExitCode.INTERNAL_ERROR == 70 and out == ""
    assert err == ("sudoku-bridge: internal error, please report: KeyError: 'no such key' "
                   "(run with --debug for the traceback)\n")


@pytest.mark.parametrize("where", ["before", "after", "environment"])
def test_debug_shows_the_traceback(broken, capsys, monkeypatch, where):
    argv = ["solve", PAPER_17, "--via", "broken"]
    if where == "before":
        argv.insert(0, "--debug")
    elif where == "after":
        argv.append("--debug")
    else:
        monkeypatch.setenv("SUDOKU_BRIDGE_DEBUG", "1")
    assert main(argv) == ExitCode.INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "broken_route" in err
    assert err.rstrip().endswith("internal error, please report: KeyError: 'no such key'")


def test_help_lists_every_exit_code(capsys):
    assert main(["--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    for code in ExitCode:
        assert f"{int(code):>3}  " in out, code
