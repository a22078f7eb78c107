"""The clue-pruning modes of Haythorpe's graph (:mod:`reductions.hamiltonian.hcp`, §5), apart
from the graph so that the route options (``--prune``) name them without importing it."""

from __future__ import annotations

import enum


class Prune(enum.StrEnum):
    """Clue pruning of Haythorpe's graph: none (the blank graph), the paper's twelve arc sets
    (§5), or also every (cell, digit) a clue excludes."""

    NONE = "none"
    PAPER = "paper"
    PEERS = "peers"


PRUNE_MODES = tuple(Prune)
