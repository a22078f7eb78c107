"""The rule engine as it was before issue 27 made it fast, kept as the test oracle.

Every rule here is the straightforward numpy/scipy implementation (whole-array scans of the
``(N, N, N)`` candidate array, one breadth-first search of nr(G) per start and rule, scipy's
matching per unit and digit); :mod:`reductions.rules` must give exactly the same deductions —
rule, effect, witness and words — step for step (tests/reductions/rules/test_rules_fast.py). Nothing in the
project imports this package."""
