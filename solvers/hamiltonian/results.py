"""What the Hamiltonian-cycle solvers answer: :class:`HcpResult` with a :class:`CycleStatus`,
the backends' names, and the errors a caller can be shown."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reductions.errors import UserError

__all__ = ["BACKENDS", "DEFAULT_SAT_SOLVER", "BackendUnavailable", "CycleStatus",
           "GraphInputError", "HcpBackend", "HcpResult"]


class CycleStatus(enum.StrEnum):
    """What a Hamiltonian-cycle search found."""

    HAMILTONIAN = "hamiltonian"
    NO_CYCLE = "no cycle"
    UNKNOWN = "unknown"


class HcpBackend(enum.StrEnum):
    """The exact Hamiltonian-cycle solvers of this module."""

    SAT = "sat"
    CPSAT = "cpsat"


BACKENDS = tuple(HcpBackend)


DEFAULT_SAT_SOLVER = "cadical195"


class GraphInputError(UserError):
    """A graph that is not a valid input (vertex out of range, wrong array shape)."""


class BackendUnavailable(UserError):
    """A backend whose package is not installed."""


@dataclass
class HcpResult:
    """``status`` in {hamiltonian, no cycle, unknown}; ``cycle`` (vertex order) when found;
    ``stats``: backend, seconds, iterations, cuts, model size, and ``reason`` when not found.
    ``split_tour``: the cycle is a tour of a pipeline's 3-split graph, not of its reduced
    graph (the shared model searches the 3-split less the reduction's deleted edges, see
    :func:`solvers.routes.hcp.solve_on_shared_model`). ``cuts``: the subtour cuts a "no
    cycle" rests on, as clauses over the arcs of the graph (an undirected graph's directed
    double), when the solver kept them (the portfolio does) — for the certificate, which
    re-checks each (:mod:`solvers.certify.hamiltonian`)."""

    status: CycleStatus
    cycle: np.ndarray | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    split_tour: bool = False
    cuts: list[list[int]] | None = None

    @property
    def found(self) -> bool:
        return self.status == CycleStatus.HAMILTONIAN
