"""Process plumbing shared by every route: running outside programs and Python workers
(:mod:`~solvers.runtime.processes`), holding signals back (:mod:`~solvers.runtime.signals`),
the time budget of in-process searches (:mod:`~solvers.runtime.budget`), the memory limit
(:mod:`~solvers.runtime.memory`), the pysat solver factory
(:mod:`~solvers.runtime.pysat_solvers`) and the per-process kept models
(:mod:`~solvers.runtime.kept_models`).

This layer imports no route, no route family and no CLI module; the package itself imports
nothing, so that importing one of its modules does not load the others.
"""
