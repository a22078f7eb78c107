"""The README's first 40 lines hold the set-up: the commands a new user copies, and CI runs.

The block after ``<!-- main-command -->`` makes a virtual environment, installs the package
and solves a puzzle; the block after ``<!-- test-command -->`` installs the test extras and
runs the suite. Both must end within the first 40 lines (the first screen), the main block
must start with the virtual environment (on Debian and Ubuntu, ``pip install`` outside one is
refused), and what this test reads there must be exactly what CI runs: ``.ci/run`` and
``.ci/installed-run`` take the blocks through ``.ci/readme-block``, which this test runs too.
CI's installed-package run (``.ci/installed-run``) executes the main block in a fresh clone,
as written, and tests the environment it made.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

FIRST_SCREEN = 40
VENV_LINE = "python3 -m venv .venv && . .venv/bin/activate"
CI = ROOT / ".ci"


def first_lines() -> list[str]:
    return (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]


def block_in_first_lines(marker: str) -> list[str]:
    """The ```sh block after ``<!-- marker -->``, found within the first 40 lines only."""
    lines = first_lines()
    start = lines.index(f"<!-- {marker} -->")          # ValueError: not on the first screen
    rest = lines[start + 1:]
    assert rest and rest[0] == "```sh", f"<!-- {marker} --> is not followed by a ```sh block"
    end = rest.index("```", 1)                          # ValueError: closed past line 40
    return rest[1:end]


@pytest.mark.parametrize("marker", ["main-command", "test-command"])
def test_the_block_is_on_the_first_screen(marker):
    try:
        block = block_in_first_lines(marker)
    except ValueError:
        pytest.fail(f"the <!-- {marker} --> block does not end within the README's first "
                    f"{FIRST_SCREEN} lines")
    assert block and all(line.strip() for line in block)


def test_the_main_block_starts_with_a_virtual_environment():
    block = block_in_first_lines("main-command")
    assert block[0] == VENV_LINE
    rest = "\n".join(block[1:])
    assert "python -m pip install ." in rest and "sudoku-bridge solve instances/" in rest


def test_the_test_block_installs_the_extras_and_runs_pytest():
    block = "\n".join(block_in_first_lines("test-command"))
    assert re.search(r"pip install -e '\.\[test[],]", block) and "python -m pytest" in block


@pytest.mark.parametrize("marker", ["main-command", "test-command"])
def test_ci_runs_exactly_these_commands(marker):
    if not (CI / "readme-block").exists() or shutil.which("bash") is None:
        pytest.skip("no .ci/readme-block here, or no bash")
    done = subprocess.run(["bash", str(CI / "readme-block"), marker, str(ROOT / "README.md")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == block_in_first_lines(marker)


@pytest.mark.parametrize(("script", "marker"), [("run", "test-command"),
                                                ("installed-run", "main-command")])
def test_ci_scripts_take_the_block_from_the_readme(script, marker):
    path = CI / script
    if not path.exists():
        pytest.skip(f"no .ci/{script} here")
    text = path.read_text(encoding="utf-8")
    assert re.search(rf"readme-block\"? {marker} ", text), f".ci/{script} does not read the " \
                                                          f"{marker} block"
    assert "eval " in text


def test_the_installed_run_uses_the_environment_the_readme_made():
    path = CI / "installed-run"
    if not path.exists():
        pytest.skip("no .ci/installed-run here")
    text = path.read_text(encoding="utf-8")
    assert '. "$work/clone/.venv/bin/activate"' in text
    assert "python3 -m venv" not in text          # no environment of its own: the README's
