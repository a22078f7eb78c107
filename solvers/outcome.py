"""The answer every solving route returns, so that the CLI and the cross-checker treat them alike.

``status`` (:class:`Status`) is one of:

* ``solved`` — ``grid`` holds a solution, already checked against the puzzle;
* ``no solution`` — the route *proved* there is none (an exact method said unsatisfiable);
* ``unknown`` — a time limit, or a heuristic that found nothing: no claim either way.

With a uniqueness check, ``unique`` is True (proved), False (``second`` holds another
verified solution) or None (not checked, or the check ran out of time).

:class:`Status` is the project's one status vocabulary, defined in :mod:`reductions.status`
(so that the pure layer uses it too) and re-exported here: a string enum, so records written
with it read as the plain words (``"solved"``, ``"no solution"``, ...) in JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reductions.errors import UserError
from reductions.reduction import SolvesPuzzle
from reductions.sudoku.grid import Grid
from reductions.status import Status


class SolverUnavailable(UserError):
    """A solver that cannot be run here: unknown name, binary or package missing."""


class WrongAnswer(RuntimeError):
    """A solver returned a grid that does not solve the puzzle: a bug, never hidden."""


@dataclass
class Outcome:
    status: Status
    grid: Grid | None = None
    unique: bool | None = None
    second: Grid | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.status = Status(self.status)

    @property
    def solved(self) -> bool:
        return self.status == Status.SOLVED


def verified(rule: SolvesPuzzle, grid: Grid, route: str) -> Grid:
    """Return ``grid`` after the closed-loop check of the route's reduction rule (its
    ``problems``: the grid solves the rule's puzzle); raise :class:`WrongAnswer` if not —
    a grid a solver's answer decodes to that does not solve the puzzle is a bug, never
    hidden."""
    problems = rule.problems(grid)
    if problems:
        raise WrongAnswer(f"{route} returned a grid that does not solve the puzzle: "
                          f"{'; '.join(problems[:3])}")
    return grid
