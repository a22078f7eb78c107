"""CLI options of the ``hcp`` routes (``solve PUZZLE --via hcp ...``); the route itself is
:func:`solvers.routes.hcp.solve_puzzle`, its options :data:`solvers.routes.options.HCP`."""

from __future__ import annotations

from . import common
from ..routes import options as route_options


def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group(
        "--via hcp", "Haythorpe's Hamiltonian-cycle graph, solved by an exact SAT or CP-SAT "
                     "model, LKH-3, linkern, Concorde, or any program (--hcp-cmd)")
    common.add_route_options(group, route_options.HCP.options)
