"""The ``rules`` route: Eppstein's rule-based solver (:mod:`reductions.rules`) as a route of
:data:`solvers.routes.ROUTES`, deduction only.

* solved — every cell placed by the rules; the grid is verified against the puzzle;
* no solution — a rule *proved* it (an emptied cell or unit, no perfect matching, ...);
* unknown — the rules got stuck (or the time limit passed): never a guess.

Uniqueness comes free: every rule is sound for *all* solutions of the state it looks at (an
elimination removes a candidate that no solution of that state uses, a placement is forced
in every solution — :mod:`reductions.rules.base`; none of the rules assumes the puzzle has a
unique solution, as "unique rectangle"-style rules would). So the set of solutions never
changes along the way, and when the rules end with every cell placed, the one grid left is
the only solution. ``unique`` is then True — a proof, like SAT's UNSAT second call. When the
rules are stuck, uniqueness is unknown (None).
"""

from __future__ import annotations

import time
from typing import Callable, Iterator, Sequence, TypeVar

from reductions.reduction import SolvesPuzzle
from reductions.sudoku.grid import Grid
from reductions.rules.engine import deduce, select_rules

from ..outcome import Outcome, Status, verified

CHUNK_MIN, CHUNK_MAX = 16, 256
"""Puzzles per pool task of :func:`grade_in_order`: a few dozen milliseconds of work at least
(figures: ``benchmarks/results/design_figures.md``), and at least eight tasks per worker up
to CHUNK_MAX, so that the workers finish close together."""

SECONDS_PER_9X9 = 0.003
"""The deduction of one 9×9 puzzle, every rule, as an estimate (1-10 ms measured, most near
1-3 ms); an N×N puzzle is taken to cost (N/9)⁴ times as much."""

POOL_PAYS_SECONDS = 2.0
"""The least estimated work (:func:`estimated_seconds`) worth starting worker processes for.
Below it the pool's start, and sending puzzles and results between processes, cost more
than the workers save: 300 17-clue puzzles (about 1 s of work) took 20% more CPU and more
wall time on two workers than in one process."""

R = TypeVar("R")


class _OutOfTime(Exception):
    """Raised from the engine's trace hook when the time limit has passed."""


def solve_puzzle(puzzle: Grid, *, unique: bool = False, time_limit: float | None = None,
                 max_level: int | None = None) -> Outcome:
    """Deduce with the rules of levels 1..``max_level`` (default: all). The time limit is
    checked before each batch of deductions is applied (one rule's search is not cut
    short); past it the answer is unknown. ``unique`` costs nothing: a solve by rules proves
    uniqueness (see the module docstring)."""
    rules = select_rules(max_level=max_level)
    start = time.perf_counter()
    stop = None if time_limit is None else start + time_limit

    def check_time(state, found) -> None:
        if stop is not None and time.perf_counter() > stop:
            raise _OutOfTime()

    try:
        result = deduce(puzzle, rules, trace=check_time if stop is not None else None)
    except _OutOfTime:
        return Outcome(Status.UNKNOWN, stats={"reason": "time limit",
                                              "seconds": time.perf_counter() - start})
    stats = {"seconds": time.perf_counter() - start, "level": result.level,
             "hardest_rule": result.hardest_rule, "steps": len(result.steps),
             "rules_used": result.rules_used()}
    if result.reason:
        stats["reason"] = result.reason
    status = result.verdict
    if status != Status.SOLVED:
        return Outcome(status, stats=stats)
    grid = verified(SolvesPuzzle(puzzle), result.state.grid(), "rules")
    return Outcome(Status.SOLVED, grid, True if unique else None, None, stats)


def grade_in_order(texts: Sequence[tuple[str, str]], grade: Callable[[str, str], R], *,
                   jobs: int = 1) -> Iterator[R]:
    """``grade(label, text)`` for every (label, puzzle text) of a file, in input order.

    With ``jobs`` > 1, at least two chunks of :data:`CHUNK_MIN` texts and enough work to pay
    for the workers (:data:`POOL_PAYS_SECONDS`), the chunks go to ``jobs`` worker processes (:func:`solvers.runtime.processes.worker_pool`: they die with this
    process, and Ctrl-C or SIGTERM here stops them at once); ``grade`` must then pickle (a
    module-level function, or a ``functools.partial`` of one) and so must what it returns.
    """
    size = max(CHUNK_MIN, min(CHUNK_MAX, len(texts) // (8 * max(jobs, 1))))
    chunks = [list(texts[start:start + size]) for start in range(0, len(texts), size)]
    if jobs <= 1 or len(chunks) <= 1 or estimated_seconds(texts) < POOL_PAYS_SECONDS:
        for label, text in texts:
            yield grade(label, text)
        return
    from concurrent.futures.process import BrokenProcessPool

    from ..runtime.processes import worker_pool
    with worker_pool(min(jobs, len(chunks))) as pool:
        try:
            for results in pool.map(_grade_chunk, [(grade, chunk) for chunk in chunks]):
                yield from results
        except BrokenProcessPool:
            raise RuntimeError("a worker process died (killed from outside, or out of "
                               "memory)") from None


def estimated_seconds(texts: Sequence[tuple[str, str]]) -> float:
    """The deduction time of the puzzles ``texts`` as :data:`SECONDS_PER_9X9` estimates it,
    an N×N puzzle's text being about N² characters long."""
    return sum(SECONDS_PER_9X9 * (len(text) / 81) ** 2 for _, text in texts)


def _grade_chunk(task: tuple[Callable[[str, str], R], list[tuple[str, str]]]) -> list[R]:
    grade, chunk = task
    return [grade(label, text) for label, text in chunk]
