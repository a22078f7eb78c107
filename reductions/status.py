"""The one status vocabulary: what a method found out about a puzzle.

* ``solved`` — a solution was found (a route checks it against the puzzle before it says so);
* ``no solution`` — the method *proved* there is none (an exact method said unsatisfiable,
  a rule found a contradiction);
* ``unknown`` — a time limit, a heuristic that found nothing, rules that got stuck: no claim
  either way.

It lives in :mod:`reductions` so that the pure layer (the rules engine, the HCP pipeline) and
the solvers (:mod:`solvers.outcome` re-exports it) speak the same words; the vocabularies
of other things map into it at their edge (a graph's "no cycle" is a puzzle's "no
solution"). It is a string enum, so records written with it read as the plain words in JSON,
and a batch sends a status as its index in :data:`STATUS_CODES`.
"""

from __future__ import annotations

import enum

__all__ = ["STATUS_CODE", "STATUS_CODES", "Status"]


class Status(enum.StrEnum):
    """What a method found out about a puzzle (see the module docstring)."""

    SOLVED = "solved"
    NO_SOLUTION = "no solution"
    UNKNOWN = "unknown"


STATUS_CODES = tuple(Status)
"""The statuses by code: a status travels between processes as its index here (a uint8)."""
STATUS_CODE = {status: code for code, status in enumerate(STATUS_CODES)}
"""The code of each status (:data:`STATUS_CODES` inverted)."""
