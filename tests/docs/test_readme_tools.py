"""Every outside tool's command line in the documentation, run as written.

The block after ``<!-- tool-commands -->`` in docs/routes.md (the README links it) holds one
shell line per tool: emit a file, run the real tool on it, decode its answer. Each line runs
here with bash in a directory holding ``p.txt`` (the 17-clue puzzle of Haythorpe's paper),
``p4.txt`` (a 4×4 puzzle, for the Hamiltonian-cycle heuristics) and ``no.txt`` (a puzzle with
no solution); a line on a puzzle must exit 0 and print its verified solution, a line on
``no.txt`` must exit 1 ("no solution", proved). A line whose programs are not all on PATH
skips, naming them.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reductions.sudoku.grid import format_grid, parse_grid

from tests.conftest import ROOT, instance_puzzles
from tests.documents import programs_of
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION

SMALL = "....1.4...3.4..2"
SMALL_SOLUTION = "3421124321344312"

TOOLS_DOCUMENT = ROOT / "docs" / "routes.md"


def readme_tool_lines() -> list[str]:
    text = TOOLS_DOCUMENT.read_text(encoding="utf-8")
    match = re.search(r"<!-- tool-commands -->\s*```sh\n(.*?)```", text, re.S)
    assert match, f"{TOOLS_DOCUMENT.name} has no <!-- tool-commands --> block"
    lines = [line.split("  #")[0].strip() for line in match.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def python_modules_of(line: str) -> set[str]:
    """The modules a line's ``python -c "import X; ..."`` imports (an optional extra)."""
    return set(re.findall(r"\bimport (\w+)", line))


LINES = readme_tool_lines()


def test_the_block_covers_every_tool():
    every = set().union(*map(programs_of, LINES))
    for tool in ("cadical", "kissat", "minisat", "glucose", "picosat", "cryptominisat5",
                 "lingeling", "glpsol", "cbc", "dlx1", "LKH", "linkern", "concorde"):
        assert tool in every, f"the tool block has no line running {tool}"


@pytest.mark.parametrize("line", LINES)
def test_readme_tool_line(line, tmp_path):
    missing = sorted(p for p in programs_of(line) - {"sudoku-bridge"}
                     if shutil.which(p) is None)
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")
    absent = sorted(m for m in python_modules_of(line) if importlib.util.find_spec(m) is None)
    if absent:
        pytest.skip(f"Python package not installed (an optional extra): {', '.join(absent)}")
    (tmp_path / "p.txt").write_text(PAPER_17 + "\n")
    (tmp_path / "p4.txt").write_text(SMALL + "\n")
    (tmp_path / "no.txt").write_text(format_grid(instance_puzzles("unsolvable.txt")[0]) + "\n")
    scripts = Path(sys.executable).parent                 # where sudoku-bridge is installed
    env = {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    # emit reports what it wrote on stdout ("wrote p.cnf: ..."); the rest is decode's answer
    answer = "".join(out for out in done.stdout.splitlines(keepends=True)
                     if not out.startswith("wrote "))
    if "no.txt" in line:
        assert done.returncode == 1, done.stderr
        assert answer.startswith("no solution")
    else:
        assert done.returncode == 0, done.stderr
        solution = SMALL_SOLUTION if "p4.txt" in line else PAPER_17_SOLUTION
        assert parse_grid(answer) == parse_grid(solution)
