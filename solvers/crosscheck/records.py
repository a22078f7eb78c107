"""A cross-check record: one (puzzle, route) run, its status, its JSON line, and the record
read back (typed, or refused as not a record)."""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field

from reductions.errors import UserError

from ..outcome import Status

SIZE_KEYS = ("edges", "arcs", "clauses", "nonzeros", "options", "variables", "vertices")


class RecordStatus(enum.StrEnum):
    """The status of one (puzzle, route) record: a route's :class:`~solvers.outcome.Status`,
    or why there is none. The values are the words written to the JSON-lines file."""

    SOLVED = Status.SOLVED.value
    NO_SOLUTION = Status.NO_SOLUTION.value
    UNKNOWN = Status.UNKNOWN.value
    ERROR = "error"                       # the route crashed, or the puzzle line is unreadable
    NOT_APPLICABLE = "not applicable"     # the route does not take this puzzle's shape
    NOT_AVAILABLE = "not available"       # the route cannot run here (program/package missing)


TIMED = (RecordStatus.SOLVED, RecordStatus.NO_SOLUTION, RecordStatus.UNKNOWN)
"""Statuses whose times are route times."""


class CrosscheckError(UserError):
    """Bad cross-check request or a run that cannot go on: unknown route, unreadable results
    file, no Dask worker, a worker process killed."""


@dataclass
class RouteResult:
    """One (puzzle, route) run: the JSON-lines record."""

    puzzle_id: str
    puzzle: str
    route: str
    status: RecordStatus
    seconds: float
    verified: bool | None = None      # the grid solves the puzzle (None: no grid)
    solution: str | None = None
    unique: bool | None = None
    second_solution: str | None = None
    size: int | None = None           # the instance's main size (edges, clauses, ...)
    size_kind: str | None = None
    error: str | None = None          # the error, or why the route did not run
    certified: str | None = None      # the checker that accepted the negative claim's proof
    resume_problem: str | None = field(default=None, compare=False)
    """Why this pair's record in the file being resumed failed its re-check (names the file
    and line): the pair is a mismatch. Not written to the file: each resume checks anew."""

    def __post_init__(self) -> None:
        self.status = RecordStatus(self.status)

    @classmethod
    def from_json(cls, line: str) -> "RouteResult":
        """A record read back; a field of the wrong type or value (NaN or Infinity, which
        are not JSON; a negative time or size; a size of no known kind) is a ValueError:
        the line is not a record. Whether its answer holds is :func:`recheck`'s to say."""
        fields = _DECODER.decode(line)
        if type(fields) is not dict or not fields.keys() <= _FIELD_TYPES.keys():
            raise ValueError("not the fields of a record")
        for name, value in fields.items():
            if type(value) not in _FIELD_TYPES[name]:
                raise ValueError(f"field {name!r} is {type(value).__name__}")
        record = cls(**fields)
        if not (math.isfinite(record.seconds) and record.seconds >= 0):
            raise ValueError(f"'seconds' is {record.seconds!r}, not a time")
        if (record.size is None) != (record.size_kind is None) \
                or record.size is not None and (record.size < 0
                                                or record.size_kind not in SIZE_KEYS):
            raise ValueError(f"'size' {record.size!r} of {record.size_kind!r} is not an "
                             f"instance size")
        return record

    def json_line(self) -> bytes:
        # vars(), not dataclasses.asdict: the fields are plain values, and asdict's deep
        # copies were most of the time of rewriting a 245k-record file. allow_nan=False:
        # what is written is JSON, always
        fields = dict(vars(self))
        del fields["resume_problem"]
        if fields["certified"] is None:     # written by --certify runs only
            del fields["certified"]
        return (json.dumps(fields, allow_nan=False) + "\n").encode("utf-8")


def _not_json(word: str):
    """Python's JSON reader takes NaN, Infinity and -Infinity by default; a record has
    none."""
    raise ValueError(f"{word} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_not_json)
"""One decoder for every record read back (json.loads with an option makes one a call)."""


_FIELD_TYPES = {"puzzle_id": (str,), "puzzle": (str,), "route": (str,), "status": (str,),
                "seconds": (int, float), "verified": (bool, type(None)),
                "solution": (str, type(None)), "unique": (bool, type(None)),
                "second_solution": (str, type(None)), "size": (int, type(None)),
                "size_kind": (str, type(None)), "error": (str, type(None)),
                "certified": (str, type(None))}
"""The types each field of a record read back may have (exactly: a bool is no number)."""



def first_line(exc: BaseException) -> str:
    """The first line of an error's message, or its type's name when it has none."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__
