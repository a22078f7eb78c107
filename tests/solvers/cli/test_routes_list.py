"""``sudoku-bridge routes``: every route, what it needs, whether it can run here and the
version found (asked of the program, bounded); a missing program's error names the program
and where it comes from; a route given its program's path by an option runs without the
program on PATH."""

from __future__ import annotations

import json
import shutil
import sys
import time

import pytest

from reductions.sudoku.grid import format_grid
from solvers.routes import ROUTES
from solvers.runtime import programs

from tests.conftest import instance_pairs
from tests.processes import script

PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]


@pytest.fixture
def bare_path(tmp_path, monkeypatch):
    """PATH holds only a folder of fakes (returned); versions are asked afresh."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    programs.program_version.cache_clear()
    yield folder
    programs.program_version.cache_clear()


def records(run) -> dict[str, dict]:
    code, out, err = run("routes", "--json")
    assert code == 0 and err == ""
    found = [json.loads(line) for line in out.splitlines()]
    assert [r["route"] for r in found] == list(ROUTES)
    return {r["route"]: r for r in found}


def test_every_route_is_listed_with_whether_it_runs_here(run):
    for name, record in records(run).items():
        reason = ROUTES[name].unavailable()
        assert record["runs_here"] == (reason is None) and record["why_not"] == reason
    code, out, _ = run("routes")
    assert code == 0 and out.splitlines()[0].split() == ["route", "here", "needs:", "found"]
    assert len(out.splitlines()) == len(ROUTES) + 1


def test_a_found_program_with_its_version_and_a_missing_one_with_its_source(run, bare_path):
    script(bare_path / "kissat", 'echo "4.0.1"\n')
    listed = records(run)
    assert listed["kissat"]["runs_here"] is True
    assert listed["kissat"]["found"] == f"{bare_path / 'kissat'}, version 4.0.1"
    assert listed["cadical"]["runs_here"] is False
    assert listed["cadical"]["needs"] == "program cadical (Debian package cadical)"
    assert listed["cadical"]["found"] == "cadical not on PATH"
    assert listed["sat"]["runs_here"] is True


def test_a_program_that_hangs_on_version_is_bounded(run, bare_path, monkeypatch):
    monkeypatch.setattr(programs, "VERSION_SECONDS", 0.5)
    for name in ("kissat", "picosat", "cadical"):      # asked at once: not 3 x the bound
        script(bare_path / name, "exec sleep 30\n")
    start = time.monotonic()
    listed = records(run)
    assert time.monotonic() - start < 10
    assert listed["kissat"]["runs_here"] is True
    assert listed["kissat"]["found"].endswith("(version not reported)")


@pytest.mark.parametrize("text, version", [
    ("sc2021\n", "sc2021"), ("c CryptoMiniSat version 5.11.4\nc CMS Copyright\n", "5.11.4"),
    ("Welcome to the CBC MILP Solver \nVersion: 2.10.8 \n", "2.10.8"),
    ("GLPSOL--GLPK LP/MIP Solver 5.0\nCopyright (C) 2000-2020\n\nversion 3 of the GPL\n", "5.0"),
    ("usage: prog [options] FILE\n", None), ("", None)])
def test_version_in(text, version):
    assert programs.version_in(text) == version


def test_a_missing_program_names_where_it_comes_from(run, bare_path):
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "cadical")
    assert (code, out) == (2, "")
    assert err == ("sudoku-bridge: error: route cadical needs the 'cadical' program on PATH "
                   "(Debian package cadical)\n")
    code, _, err = run("solve", format_grid(PUZZLE, "line"), "--via", "linkern")
    assert code == 2 and err == (
        "sudoku-bridge: error: route linkern needs the 'linkern' program on PATH (Concorde's "
        "programs, academic licence: build them from https://www.math.uwaterloo.ca/tsp/"
        "concorde/, or give its path with --linkern-binary)\n")


def test_a_missing_package_names_its_extra(run, monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)          # import highspy fails
    code, _, err = run("solve", format_grid(PUZZLE, "line"), "--via", "ilp-highs")
    assert code == 2 and err == ("sudoku-bridge: error: route ilp-highs needs the Python "
                                 "package 'highspy' (python -m pip install "
                                 "'sudoku-bridge[highs]')\n")


def test_linkern_binary_option_runs_the_route_without_linkern_on_path(run, bare_path,
                                                                      tmp_path):
    """Refused before whatever --linkern-binary said (Route.unavailable ignored it)."""
    from tests.solvers.tools.test_linkern import PREAMBLE, solution_tour
    for tool in ("head", "cut", "cp"):                    # what the fake runs, and no linkern
        (bare_path / tool).symlink_to(shutil.which(tool, path="/usr/bin:/bin"))
    binary = script(tmp_path / "my-linkern", PREAMBLE + f'cp {solution_tour(tmp_path)} "$OUT"\n')
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "linkern",
                         "--linkern-binary", binary, "--time-limit", 20)
    assert code == 0, err
    assert "".join(c for c in out if c.isdigit()) == format_grid(SOLUTION, "line")


def test_cbc_path_option_runs_the_route_without_cbc_on_path(run, bare_path):
    cbc = shutil.which("cbc", path="/usr/bin:/usr/local/bin")
    if cbc is None:
        pytest.skip("no cbc program (Debian package coinor-cbc)")
    code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "cbc", "--cbc-path",
                         cbc)
    assert code == 0, err
    assert "".join(c for c in out if c.isdigit()) == format_grid(SOLUTION, "line")
