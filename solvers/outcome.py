"""The answer every solving route returns, so that the CLI and the cross-checker treat them alike.

``status`` is one of:

* ``solved`` — ``grid`` holds a solution, already checked against the puzzle;
* ``no solution`` — the route *proved* there is none (an exact method said unsatisfiable);
* ``unknown`` — a time limit, or a heuristic that found nothing: no claim either way.

With a uniqueness check, ``unique`` is True (proved), False (``second`` holds another
verified solution) or None (not checked, or the check ran out of time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reductions.grid import Grid, check_solution, solution_problems

SOLVED = "solved"
NO_SOLUTION = "no solution"
UNKNOWN = "unknown"


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
