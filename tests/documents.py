"""Helpers for the tests that run what the documentation shows: which documents there are,
and which programs a shell line runs (a line whose programs are missing skips, naming them)."""

from __future__ import annotations

import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The user documents: the README, then docs/ in name order."""

SEPARATORS = {"&&", "||", ";", "|"}


def programs_of(line: str) -> set[str]:
    """The programs a shell line runs: the first word of each command."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    words, programs, first = list(lexer), set(), True
    for word in words:
        if word in SEPARATORS:
            first = True
        elif first and "=" not in word:
            programs.add(word)
            first = False
    return programs
