"""CNF formulas as the source of the NP-hardness gadgets: a small model and formula families.

A :class:`Formula` holds ``num_vars`` and clauses of signed literals (DIMACS convention:
variable ``v`` is ``v``, its negation ``-v``; variables are 1..num_vars). Families are plain
functions returning a :class:`Formula`, in the spirit of cnfgen:

* :func:`random_ksat` — uniform random k-SAT (each clause k distinct variables, random signs);
  :func:`seeded_random_formulas` — a repeatable series of them for a validation run;
* :func:`all_sign_patterns` — the 2^k clauses over k variables: unsatisfiable;
* :func:`pigeonhole` — n+1 pigeons in n holes, unsatisfiable (clauses wider than 3 for n > 3);
* :func:`example_satisfiable`, :func:`example_unsatisfiable` — fixed small 3-CNF examples.

Reading DIMACS files lives in ``solvers.formats.dimacs``; :func:`from_dimacs_clauses` turns the
parsed clauses into a formula and enforces a width limit with a message naming the clause.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .errors import UserError
from .estimate import Estimate, with_base


class FormulaError(UserError):
    """A formula that does not fit what a construction accepts; the message names the clause."""


@dataclass(frozen=True)
class Formula:
    """A CNF formula over variables 1..num_vars."""

    num_vars: int
    clauses: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        for index, clause in enumerate(self.clauses):
            for lit in clause:
                if lit == 0 or abs(lit) > self.num_vars:
                    raise FormulaError(
                        f"clause {index + 1} {list(clause)}: literal {lit} is not in "
                        f"1..{self.num_vars} or its negation")

    @classmethod
    def of(cls, clauses: Iterable[Iterable[int]], num_vars: int | None = None) -> "Formula":
        cl = tuple(tuple(int(x) for x in c) for c in clauses)
        if num_vars is None:
            num_vars = max((abs(x) for c in cl for x in c), default=0)
        return cls(num_vars, cl)

    @property
    def num_clauses(self) -> int:
        return len(self.clauses)

    @property
    def max_width(self) -> int:
        return max((len(c) for c in self.clauses), default=0)

    def occurrences(self) -> dict[int, list[tuple[int, int]]]:
        """For every literal, the (clause index, position) pairs where it occurs."""
        occ: dict[int, list[tuple[int, int]]] = {}
        for ci, clause in enumerate(self.clauses):
            for pos, lit in enumerate(clause):
                occ.setdefault(lit, []).append((ci, pos))
        return occ

    def is_satisfied_by(self, assignment: Mapping[int, bool] | Sequence[bool]) -> bool:
        """True when every clause has a true literal.

        ``assignment`` maps variable → bool, or is a sequence indexed by variable - 1.
        Variables missing from a mapping count as false.
        """
        value = _value_function(assignment)
        return all(any(value(lit) for lit in clause) for clause in self.clauses)

    def falsified_clauses(self, assignment: Mapping[int, bool] | Sequence[bool]) -> list[int]:
        """Indices of the clauses that ``assignment`` leaves false."""
        value = _value_function(assignment)
        return [i for i, clause in enumerate(self.clauses)
                if not any(value(lit) for lit in clause)]

    def to_dimacs_lines(self, comments: Iterable[str] = ()) -> list[str]:
        lines = [f"c {c}" for c in comments]
        lines.append(f"p cnf {self.num_vars} {self.num_clauses}")
        lines.extend(" ".join(map(str, c)) + " 0" for c in self.clauses)
        return lines


def literal_value(assignment: Mapping[int, bool] | Sequence[bool], lit: int) -> bool:
    """The truth of literal ``lit`` (DIMACS sign convention) under ``assignment``: a mapping
    variable → bool (missing variables are false) or a sequence whose item v−1 is variable v."""
    if isinstance(assignment, Mapping):
        return bool(assignment.get(abs(lit), False)) == (lit > 0)
    return bool(assignment[abs(lit) - 1]) == (lit > 0)


def _value_function(assignment: Mapping[int, bool] | Sequence[bool]):
    return lambda lit: literal_value(assignment, lit)


def from_dimacs_clauses(num_vars: int, clauses: Sequence[Sequence[int]],
                        max_width: int | None = 3, name: str = "formula") -> Formula:
    """A formula from parsed DIMACS clauses, refusing empty clauses and clauses wider than
    ``max_width`` (None: no limit), and clauses that repeat a variable."""
    for index, clause in enumerate(clauses, start=1):
        if not clause:
            raise FormulaError(f"{name}: clause {index} is empty (the formula is trivially "
                               f"unsatisfiable; the gadgets need non-empty clauses)")
        if max_width is not None and len(clause) > max_width:
            raise FormulaError(f"{name}: clause {index} {list(clause)} has {len(clause)} "
                               f"literals; at most {max_width} are allowed")
        if len({abs(x) for x in clause}) != len(clause):
            raise FormulaError(f"{name}: clause {index} {list(clause)} repeats a variable")
    return Formula.of(clauses, num_vars)


def random_cnf(num_vars: int, num_clauses: int, widths: Sequence[int] = (1, 2, 3),
               seed: int | None = None) -> Formula:
    """Random CNF: each clause takes a width drawn uniformly from ``widths``, then that many
    distinct variables with random signs. Mixing 1- and 2-literal clauses into 3-literal ones
    gives satisfiable and unsatisfiable formulas even at the tiny sizes gadgets allow."""
    widths = tuple(widths)
    if not widths or min(widths) < 1 or max(widths) > num_vars:
        raise FormulaError(f"clause widths {list(widths)} need 1 <= width <= {num_vars} "
                           f"(the number of variables)")
    rng = random.Random(seed)
    clauses = []
    for _ in range(num_clauses):
        variables = rng.sample(range(1, num_vars + 1), rng.choice(widths))
        clauses.append(tuple(v if rng.random() < 0.5 else -v for v in variables))
    return Formula(num_vars, tuple(clauses))


def random_ksat(num_vars: int, num_clauses: int, k: int = 3, seed: int | None = None) -> Formula:
    """Uniform random k-CNF: each clause picks k distinct variables and random signs."""
    if num_vars < k:
        raise FormulaError(f"random {k}-SAT needs at least {k} variables, got {num_vars}")
    rng = random.Random(seed)
    clauses = []
    for _ in range(num_clauses):
        variables = rng.sample(range(1, num_vars + 1), k)
        clauses.append(tuple(v if rng.random() < 0.5 else -v for v in variables))
    return Formula(num_vars, tuple(clauses))


def random_3sat(num_vars: int, num_clauses: int, seed: int | None = None) -> Formula:
    return random_ksat(num_vars, num_clauses, 3, seed)


def seeded_random_formulas(num_vars: int, num_clauses: int, count: int, *, first_seed: int,
                           widths: Sequence[int] = (3,)) -> list[tuple[int, Formula]]:
    """``count`` random formulas for a validation run, formula i drawn with seed
    ``first_seed + i`` (so a run is repeatable and any one formula of it alone): random 3-SAT
    (:func:`random_3sat`) when ``widths`` is (3,), else :func:`random_cnf` over ``widths``."""
    widths = tuple(widths)
    out = []
    for seed in range(first_seed, first_seed + count):
        formula = (random_3sat(num_vars, num_clauses, seed=seed) if widths == (3,)
                   else random_cnf(num_vars, num_clauses, widths, seed=seed))
        out.append((seed, formula))
    return out


def all_sign_patterns(k: int = 3) -> Formula:
    """All 2^k clauses over variables 1..k: every assignment falsifies exactly one."""
    clauses = [tuple(v if sign else -v for v, sign in zip(range(1, k + 1), signs))
               for signs in itertools.product((True, False), repeat=k)]
    return Formula(k, tuple(clauses))


def pigeonhole(holes: int) -> Formula:
    """holes + 1 pigeons, each in some hole, no two in one hole: unsatisfiable."""
    pigeons = holes + 1

    def var(p: int, h: int) -> int:
        return p * holes + h + 1

    clauses = [tuple(var(p, h) for h in range(holes)) for p in range(pigeons)]
    clauses += [(-var(p, h), -var(q, h)) for h in range(holes)
                for p in range(pigeons) for q in range(p + 1, pigeons)]
    return Formula(pigeons * holes, tuple(clauses))


def example_satisfiable() -> Formula:
    """(x1 ∨ x2 ∨ ¬x3) ∧ (¬x1 ∨ x3 ∨ x4) ∧ (¬x2 ∨ ¬x4 ∨ x3) ∧ (x1 ∨ ¬x3 ∨ ¬x4):
    satisfiable, e.g. by x1 = x3 = true, x2 = x4 = false."""
    return Formula.of([(1, 2, -3), (-1, 3, 4), (-2, -4, 3), (1, -3, -4)], 4)


def example_unsatisfiable() -> Formula:
    """All eight sign patterns over three variables: the smallest unsatisfiable 3-CNF."""
    return all_sign_patterns(3)


# CNF formulas read from DIMACS (the gadgets' input) and solved by pysat.
FORMULA_PER_CLAUSE = 500         # parsed list + Formula tuple of a clause of ≤ 3 literals:
                                 # measured 275 (random 3-SAT, 300,000 clauses)
FORMULA_SAT_PER_VAR = 300        # pysat, its model, the value tuple and dict: measured
FORMULA_SAT_PER_CLAUSE = 400     # 152 MB for 300,000 variables and 300,000 clauses


def formula_reading_estimate(num_clauses: int, max_width: int) -> Estimate:
    """Reading a DIMACS formula of ``num_clauses`` clauses of at most ``max_width``
    literals (the header's count, known before the clauses are read)."""
    per_clause = FORMULA_PER_CLAUSE * max(1, max_width) / 3
    return Estimate(f"{num_clauses:,} clauses in memory", with_base(num_clauses * per_clause))


def formula_sat_estimate(formula: Formula) -> Estimate:
    """Deciding the formula itself with pysat (the validations' reference answer)."""
    return Estimate(f"a SAT solver over {formula.num_vars:,} variables",
                    with_base(FORMULA_SAT_PER_VAR * formula.num_vars,
                              FORMULA_SAT_PER_CLAUSE * formula.num_clauses))


def declared_variables_note(formula: Formula) -> str:
    """`` (its header declares 1,000,000 variables, 5 used)`` when most declared variables
    never occur — the gadgets are sized by the declared count — else empty."""
    used = len({abs(lit) for clause in formula.clauses for lit in clause})
    if formula.num_vars <= max(2 * used, 16):
        return ""
    return f" (its header declares {formula.num_vars:,} variables, {used:,} used)"
