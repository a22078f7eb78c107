"""Solving routes: the one registry and one module per route family.

* :mod:`~solvers.routes.registry` — the routes by name (``ROUTES``), ``--route`` templates,
  the Python API's :func:`solve`, what a route builds in memory (re-exported here);
* :mod:`~solvers.routes.options` — every family's options, declared once as data (light:
  the command line builds its flags from it);
* the families, each a ``solve_puzzle`` that returns a verified
  :class:`~solvers.outcome.Outcome`: :mod:`~solvers.routes.sat` (CNF, pysat in process or any
  DIMACS program; :mod:`~solvers.routes.sat_incremental` and
  :mod:`~solvers.routes.sat_batch` for kept solvers and files of puzzles),
  :mod:`~solvers.routes.exact_cover`, :mod:`~solvers.routes.ilp`, :mod:`~solvers.routes.hcp`
  (Haythorpe's graph), :mod:`~solvers.routes.deduction` (the rules alone).

Only the registry and the options are imported with this package; a family is imported when
a route of it first runs.
"""

from .registry import (FAMILIES, ROUTES, TARGET_OPTIONS, BatchCapability, Family, Route,
                       Target, available_routes, get_route, route_estimate, solve,
                       template_route, template_routes)

__all__ = ["FAMILIES", "ROUTES", "TARGET_OPTIONS", "BatchCapability", "Family", "Route",
           "Target", "available_routes", "get_route", "route_estimate", "solve",
           "template_route", "template_routes"]
