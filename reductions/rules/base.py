"""What every rule shares: the :class:`Deduction` it returns and the :class:`Rule` record.

A rule is a pure function *state → deductions*
(:class:`~reductions.sudoku.candidates.CandidateState` in, a list of :class:`Deduction` out, the
state untouched). Every deduction it returns is sound in that state and changes it (places a digit
or removes a present candidate), or is a proof that the state has no solution
(``contradiction=True``). Each carries a ``witness``: a small JSON-able dict naming the cells,
units, digits, Hall sets or walks the conclusion rests on, which :mod:`reductions.rules.checks`
re-checks from the state alone, by plain loops independent of the rule's numpy and graph machinery.

Cells in deductions and witnesses are flat indices r·N + c; digits are 1-based.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..sudoku.candidates import CandidateState, cell_name


@dataclass(frozen=True, slots=True, init=False)
class Deduction:
    """One step: ``placements`` and ``eliminations`` as (flat cell, digit) pairs, the
    ``witness`` it rests on, and ``why`` in words (cells in r1c1 notation).

    Frozen, and to be treated as such whole: a rule may hand out one object more than once
    (the singles keep one per (unit, digit, cell)), so ``witness`` is not to be changed.
    ``__init__`` fills the slots through their descriptors, which costs half of what the
    generated frozen ``__init__`` does (it goes through ``object.__setattr__`` per field)."""

    rule: str
    placements: tuple[tuple[int, int], ...] = ()
    eliminations: tuple[tuple[int, int], ...] = ()
    witness: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    contradiction: bool = False

    def __init__(self, rule: str, placements: tuple[tuple[int, int], ...] = (),
                 eliminations: tuple[tuple[int, int], ...] = (),
                 witness: dict[str, Any] | None = None, why: str = "",
                 contradiction: bool = False):
        _set_rule(self, rule)
        _set_placements(self, placements)
        _set_eliminations(self, eliminations)
        _set_witness(self, {} if witness is None else witness)
        _set_why(self, why)
        _set_contradiction(self, contradiction)

    def summary(self, state_shape) -> str:
        """The effect in short notation: ``r1c2=5``, ``r3c4-7``, or ``no solution``."""
        parts = [f"{cell_name(state_shape, c)}={d}" for c, d in self.placements]
        parts += [f"{cell_name(state_shape, c)}-{d}" for c, d in self.eliminations]
        if self.contradiction:
            parts.append("no solution")
        return ", ".join(parts)

    def record(self, shape) -> dict[str, Any]:
        """The JSON form of a step."""
        return {"rule": self.rule,
                "place": [f"{cell_name(shape, c)}={d}" for c, d in self.placements],
                "eliminate": [f"{cell_name(shape, c)}-{d}" for c, d in self.eliminations],
                "contradiction": self.contradiction,
                "why": self.why,
                "witness": self.witness}


(_set_rule, _set_placements, _set_eliminations, _set_witness, _set_why,
 _set_contradiction) = (Deduction.__dict__[name].__set__ for name in
                        ("rule", "placements", "eliminations", "witness", "why",
                         "contradiction"))

RuleFunction = Callable[[CandidateState], list[Deduction]]


@dataclass(frozen=True)
class Rule:
    """A named rule at a level (lower = simpler; the engine tries lower levels first)."""

    name: str
    level: int
    find: RuleFunction
    summary: str
    source: str


def cells_text(shape, cells) -> str:
    return ", ".join(cell_name(shape, c) for c in cells)


def numbers_text(values) -> str:
    return ", ".join(str(int(v)) for v in values)
