"""The NP-hardness gadgets checked with solvers: :mod:`~solvers.gadgets.nishio` (3SAT →
Nishio placements, validated against SAT) and :mod:`~solvers.gadgets.nrpath` (3SAT →
nonrepetitive paths, and simple nonrepetitive paths and cycles by SAT). The
``nonrepetitive`` command's answers, which use that SAT model, are
:mod:`solvers.nonrepetitive`."""
