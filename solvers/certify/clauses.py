"""Cardinality clauses of the certified formulas, written here rather than by pysat's
``CardEnc``, so that the argument "every clause holds of every solution" covers each clause
we write, auxiliary variables included.

:func:`exactly_one` is "exactly one of these literals": the clause of them all, and at most
one — pairwise for a few literals, Sinz's sequential counter (2005) past
:data:`PAIRWISE_UP_TO`. The counter's auxiliary variable s_i stands for "one of the first
i + 1 literals is true"; its variables are fresh (numbered past every other variable) and
appear nowhere else, so whenever at most one literal is true, setting each s_i to its
meaning satisfies every counter clause: the clauses hold of every solution that meets the
constraint, extended by those values.
"""

from __future__ import annotations

__all__ = ["PAIRWISE_UP_TO", "exactly_one"]

PAIRWISE_UP_TO = 8
"""At most this many literals get pairwise at-most-one clauses; more, the counter."""


def exactly_one(lits: list[int], top: int) -> tuple[list[list[int]], int]:
    """"Exactly one of ``lits``": the clause of them all (empty when there are none: the
    formula is then refuted outright) and at most one, pairwise or by a sequential counter
    whose auxiliary variables are numbered from ``top`` + 1. Returns the clauses, new top."""
    clauses = [list(lits)]
    if len(lits) <= PAIRWISE_UP_TO:
        clauses += [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]
        return clauses, top
    # s_i: "one of lits[0..i] is true" (Sinz 2005).
    s = list(range(top + 1, top + len(lits)))
    clauses.append([-lits[0], s[0]])
    for i in range(1, len(lits) - 1):
        clauses += [[-lits[i], s[i]], [-s[i - 1], s[i]], [-lits[i], -s[i - 1]]]
    clauses.append([-lits[-1], -s[-1]])
    return clauses, s[-1]
