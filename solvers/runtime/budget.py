"""One time budget for the solvers that run inside this process (pysat's SAT solvers).

A :class:`Deadline` is made once per request from its time limit and handed down; every
in-process search asks it how much time is left. pysat's CaDiCaL cannot be interrupted from
another thread, so :func:`solve_within` runs the solver in *rounds of a conflict budget*
(``conf_budget`` + ``solve_limited``) and looks at the clock between rounds. The budget starts
at :data:`BUDGET_START` conflicts and doubles, capped at :data:`MAX_BUDGET`, so a limit is
overrun by at most one capped round (well under a second on 9×9 and 16×16 formulas, a few
seconds on the largest graphs), never by as much again as was already spent.

Outside programs have their own limit, enforced by :mod:`solvers.runtime.processes`.
"""

from __future__ import annotations

import time
from typing import Sequence

BUDGET_START = 2_000
"""Conflicts in the first round of a time-limited solve."""
MAX_BUDGET = 100_000
"""Largest conflict budget of one round."""


class Deadline:
    """A point in time ``time_limit`` seconds from now (or none, for no limit)."""

    def __init__(self, time_limit: float | None = None):
        self.start = time.perf_counter()
        self.at = None if time_limit is None else self.start + time_limit

    def passed(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.at is None else max(self.at - time.perf_counter(), 0.0)

    def seconds(self) -> float:
        """Seconds since the deadline was set, rounded for records."""
        return round(time.perf_counter() - self.start, 4)


def solve_within(solver, deadline: Deadline, assumptions: Sequence[int] = ()) -> bool | None:
    """``solver.solve(assumptions)`` for a pysat solver, within the deadline: True / False as
    pysat answers, None when the deadline passed first (the answer is unknown)."""
    if deadline.at is None:
        return solver.solve(assumptions=assumptions)
    budget = BUDGET_START
    while not deadline.passed():
        solver.conf_budget(budget)
        result = solver.solve_limited(assumptions=assumptions)
        if result is not None:
            return result
        budget = min(2 * budget, MAX_BUDGET)
    return None
