"""Eppstein's rule-based Sudoku solver (Eppstein 2005, "Nonrepetitive paths and cycles in
graphs with application to Sudoku", §3): deduction by polynomial-time rules, each step with a
witness, and the puzzle generator built on them (§3.6).

Modules:

- :mod:`~reductions.rules.levels` — ``MAX_LEVEL``, apart from the engine so that the command
  line's help needs no rules engine;
- :mod:`~reductions.rules.base` — the :class:`~reductions.rules.base.Deduction` a rule returns
  and the :class:`~reductions.rules.base.Rule` record;
- :mod:`~reductions.rules.local` — singles, locked candidates, naked and hidden subsets;
- :mod:`~reductions.rules.matching` — digit and unit matching (Hall sets), Nishio;
- :mod:`~reductions.rules.chain_graphs` — the bilocation and bivalue graphs (§3.2, §3.5), nr(G)
  of them, and what their walks force from every start at once;
- :mod:`~reductions.rules.chains` — the cycle, repetitive-cycle and conflicting-paths rules of
  both graphs (§3.2-3.5, Lemmas 6-8);
- :mod:`~reductions.rules.chain_paths` — the path rules and mixed conflicts (§3.5; Eppstein's
  PADS solver);
- :mod:`~reductions.rules.engine` — the rule table, its levels and :func:`deduce`;
- :mod:`~reductions.rules.checks` — independent re-checks of every witness;
- :mod:`~reductions.rules.generator` — the puzzle generator (§3.6), given a uniqueness oracle;
- :mod:`~reductions.rules.sizes` — the engine's memory estimate.

The package imports nothing itself: importing :mod:`reductions.rules.levels` must not load
the engine (about 0.3 s of start-up); import the engine's names from
:mod:`reductions.rules.engine`.
"""
