"""Every terminal session shown in the README and in docs/, run as written.

A ```console block is one session: its lines starting with ``$ `` are commands, run in order
by bash in a fresh directory holding ``instances/`` (the shipped puzzles and formulas), so
that a block may write a file with one command and read it with the next. A command must exit
0, or the code its line ends with (``# exit 1``); every other line of the block is output the
command before it printed, and must appear as a line of its standard output or error
(``...`` stands for lines left out). A session whose programs are not all on PATH skips,
naming them. The README's tour must show every sub-command of ``sudoku-bridge``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import INSTANCES, ROOT
from tests.documents import DOCUMENTS, programs_of

CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
EXIT_CODE = re.compile(r"#\s*exit (\d+)\s*$")


@dataclass
class Command:
    line: str
    exit_code: int = 0
    shown: list[str] = field(default_factory=list)


@dataclass
class Session:
    where: str                      # "docs/formats.md:42", the line of the opening fence
    commands: list[Command]


def sessions_of(path: Path) -> list[Session]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in CONSOLE.finditer(text):
        where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}"
        commands: list[Command] = []
        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                code = EXIT_CODE.search(line)
                commands.append(Command(line[2:], int(code.group(1)) if code else 0))
            elif line.strip() and line.strip() != "...":
                assert commands, f"{where}: output before any command"
                commands[-1].shown.append(line.strip())
        assert commands, f"{where}: a console block without a command"
        found.append(Session(where, commands))
    return found


SESSIONS = [session for path in DOCUMENTS for session in sessions_of(path)]


def environment() -> dict[str, str]:
    scripts = Path(sys.executable).parent               # where sudoku-bridge is installed
    return {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def checker_unavailable(session: Session) -> str | None:
    """Why a session that certifies cannot run here (its ``--checker``, or any proof checker,
    missing: the ``certify`` extra's dratify, or drat-trim / cake_lpr built), or None."""
    from solvers.certify.checkers import CheckerUnavailable, find_checker
    for command in session.commands:
        if "--certify" in command.line:
            named = re.search(r"--checker[ =](\S+)", command.line)
            try:
                find_checker(named.group(1) if named else None)
            except CheckerUnavailable as exc:
                return str(exc)
    return None


@pytest.mark.parametrize("session", SESSIONS, ids=[s.where for s in SESSIONS])
def test_session(session, tmp_path):
    programs = set().union(*(programs_of(c.line) for c in session.commands))
    missing = sorted(p for p in programs - {"sudoku-bridge"} if shutil.which(p) is None)
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")
    unavailable = checker_unavailable(session)
    if unavailable:
        pytest.skip(unavailable)
    (tmp_path / "instances").symlink_to(INSTANCES)
    for command in session.commands:
        done = subprocess.run(["bash", "-c", command.line], cwd=tmp_path, env=environment(),
                              capture_output=True, text=True, timeout=300)
        printed = {line.strip() for line in (done.stdout + done.stderr).splitlines()}
        assert done.returncode == command.exit_code, \
            f"{session.where}: $ {command.line}\nexit {done.returncode}\n{done.stderr[-2000:]}"
        absent = [line for line in command.shown if line not in printed]
        assert not absent, f"{session.where}: $ {command.line}\ndid not print {absent}\n" \
                           f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"


def test_the_readme_tours_every_command():
    from solvers.cli.program import build_parser
    (commands,) = [action.choices for action in build_parser()._actions
                   if isinstance(action, argparse._SubParsersAction)]
    readme = [c.line for s in SESSIONS if s.where.startswith("README.md:") for c in s.commands]
    shown = {m for line in readme for m in re.findall(r"\bsudoku-bridge (\S+)", line)}
    assert set(commands) - shown == set(), "commands without an example in the README's tour"
