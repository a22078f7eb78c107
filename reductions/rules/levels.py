"""How many levels Eppstein's deduction rules have (:mod:`reductions.rules.engine` numbers
its rules 1..:data:`MAX_LEVEL`), in a module of its own: the command line's help texts and
the ``rules`` route's options need the number without importing the rules engine (about
0.3 s of start-up). The engine refuses to load if its table's levels are not 1..MAX_LEVEL."""

__all__ = ["MAX_LEVEL"]

MAX_LEVEL = 19
