"""Eppstein's rule-based Sudoku solver: deduction by polynomial-time rules, each step with a
witness (see :mod:`reductions.rules.engine` for the rule list and levels)."""

from .base import Deduction, Rule
from .engine import LOCAL_LEVEL, MAX_LEVEL, RULES, RuleError, RulesResult, deduce, select_rules

__all__ = ["Deduction", "Rule", "LOCAL_LEVEL", "MAX_LEVEL", "RULES", "RuleError",
           "RulesResult", "deduce", "select_rules"]
