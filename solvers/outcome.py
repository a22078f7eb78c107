"""The answer every solving route returns, so that the CLI and the cross-checker treat them alike.

``status`` is one of:

* ``solved`` — ``grid`` holds a solution, already checked against the puzzle;
* ``no solution`` — the route *proved* there is none (an exact method said unsatisfiable);
* ``unknown`` — a time limit, or a heuristic that found nothing: no claim either way.

With a uniqueness check, ``unique`` is True (proved), False (``second`` holds another
verified solution) or None (not checked, or the check ran out of time).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from typing import Any, Iterable

from reductions.errors import UserError
from reductions.grid import Grid, check_solution, solution_problems

SOLVED = "solved"
NO_SOLUTION = "no solution"
UNKNOWN = "unknown"


class SolverUnavailable(UserError):
    """A solver that cannot be run here: unknown name, binary or package missing."""


def find_executable(given: str | None, names: Iterable[str], what: str) -> str | None:
    """Path of a solver binary: ``given`` (a name or path, which must exist, else
    :class:`SolverUnavailable` naming it), else the first of ``names`` on PATH, else None."""
    if given:
        found = shutil.which(given)
        if found is None:
            raise SolverUnavailable(f"{what} binary {given!r} not found or not executable")
        return found
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


class WrongAnswer(RuntimeError):
    """A solver returned a grid that does not solve the puzzle: a bug, never hidden."""


@dataclass
class Outcome:
    status: str
    grid: Grid | None = None
    unique: bool | None = None
    second: Grid | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status == SOLVED


def verified(puzzle: Grid, grid: Grid, route: str) -> Grid:
    """Return ``grid`` after checking it solves ``puzzle``; raise :class:`WrongAnswer` if not."""
    if not check_solution(puzzle, grid):
        problems = "; ".join(solution_problems(puzzle, grid)[:3]) or "invalid grid"
        raise WrongAnswer(f"{route} returned a grid that does not solve the puzzle: {problems}")
    return grid
