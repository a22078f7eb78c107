"""What a construction would build, and how much memory it would take — known before
anything is built: the :class:`Estimate` every size estimate returns, :func:`ensure_fits` and
:class:`TooLarge`.

Each construction has its estimate beside it, in the ``sizes`` module of its folder
(:mod:`reductions.encodings.sizes`, :mod:`reductions.hamiltonian.sizes`,
:mod:`reductions.nishio.sizes`, :mod:`reductions.nonrepetitive.sizes`,
:mod:`reductions.rules.sizes`; the 3SAT formulas' in :mod:`reductions.formulas`): a pure
function of size numbers (grid side, variables and clauses, vertices and arcs) that returns
an :class:`Estimate` — what would be built, in words, and an upper bound of the peak memory
it adds to the process. :func:`ensure_fits` compares an estimate with a limit the caller
gives (the command line's ``--max-memory``, see :mod:`solvers.runtime.memory`) and raises
:class:`TooLarge`, a one-line :class:`~reductions.errors.UserError`, before anything is
allocated.

The byte counts are linear models with constants measured on this project's machine
(peak RSS added by the whole command, in a fresh process: ``benchmarks/bench_memory.py``,
results in ``benchmarks/results/memory.md``) and rounded up, so that an estimate stays above
the measured peak by a factor of about 1.2 to 2 from a few tens of MiB up (below, the fixed
``BASE`` dominates). Each constant's comment gives what it was measured at.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UserError, format_bytes, scientific

MB = 2**20
BASE = 4 * MB
"""Added to every estimate: the small Python objects any command makes on its way, and the
rounding of resident memory where the kernel backs the heap with transparent huge pages
(2 MiB each): the same 9×9 command measured 7.3 MiB here and 10.1 MiB on a CI machine."""


class TooLarge(UserError):
    """A construction whose estimate is over the memory limit; refused before it is built."""

    def __init__(self, subject: str, estimate: "Estimate", limit: int):
        self.subject = subject
        self.estimate = estimate
        self.limit = limit
        super().__init__(f"{subject} needs {estimate} — over the memory limit of "
                         f"{format_bytes(limit)} (--max-memory)")

    @property
    def row_text(self) -> str:
        """The short form for a table row: ``too large: <estimate> > <limit>``."""
        return f"too large: {self.estimate} > {format_bytes(self.limit)}"


@dataclass(frozen=True)
class Estimate:
    """What a builder would make (``what``, in words) and an upper bound of the peak memory
    it would add (``bytes``)."""

    what: str
    bytes: int
    counts: tuple[int, ...] = ()
    """The numbers ``what`` names, for checks: (grid side,), (vertices, arcs),
    (variables, clauses), (options, items), (variables, constraints)."""

    def __str__(self) -> str:
        return f"{self.what} (about {format_bytes(self.bytes)})"

    def plus(self, other: "Estimate") -> "Estimate":
        """Both held at once in one process: the words of the larger, the bytes of both
        (the process's ``BASE`` counted once)."""
        main = self if self.bytes >= other.bytes else other
        return Estimate(main.what, self.bytes + other.bytes - BASE, main.counts)

    def times(self, count: int, why: str) -> "Estimate":
        """``count`` copies at once (e.g. one per worker process)."""
        if count <= 1:
            return self
        return Estimate(f"{self.what}, x {count} {why}", self.bytes * count, self.counts)


def ensure_fits(estimate: Estimate, limit: int | None, subject: str) -> None:
    """Raise :class:`TooLarge` when ``estimate`` is over ``limit`` bytes (None: no limit)."""
    if limit is not None and estimate.bytes > limit:
        raise TooLarge(subject, estimate, limit)


def count_text(value: int) -> str:
    """``5.6e9`` from ten million up, else with thousands separators."""
    return scientific(value) if value >= 10**7 else f"{value:,}"


def with_base(*terms: float) -> int:
    """The bytes of an estimate: its terms plus the process's :data:`BASE`."""
    return int(BASE + sum(terms))

