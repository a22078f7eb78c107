"""Models kept in this process between puzzles, and the one rule that renews them.

Building a solver's model can cost more than solving a puzzle on it: the rule clauses of an
incremental SAT solver, the SAT model of a blank grid's graph, a HiGHS model of the blank
grid, a forked child process for an uninterruptible C search. A route family therefore keeps
one per process and key (a shape, a graph kind, solver options) and hands every puzzle to it.
:class:`KeptModels` is that cache for one *family*; every family's models live in one table
of this process, keyed by (family, key).

**The renewal rule.** Each kept model counts the uses it was handed out for (``served``).
When handing it out again would take it past its family's ``renew_after`` uses, it is closed
and a fresh one is built in its place: learnt clauses and subtour cuts of earlier puzzles
pile up in an incremental model and slow every later call. ``renew_after=None`` keeps the
model for the life of the process, for families whose model is put back to its first state
after each use (nothing piles up). Uses are counted when a model is handed out, so a caller
that is about to run many puzzles on it says so (``uses``) and gets a model with room for
them all.

A model is closed exactly once: on renewal, when :meth:`KeptModels.close_all` drops its
family's models, when :meth:`KeptModels.lent` could not put it back to its kept state, or
when the process exits normally. Worker processes forked from this one inherit the table as
it is; each then keeps and renews its own copies.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from dataclasses import dataclass
from typing import Any, Callable, Generic, Hashable, Iterator, TypeVar

__all__ = ["KeptModels"]

Model = TypeVar("Model")


@dataclass
class _Kept:
    """One kept model and the uses it was handed out for."""

    model: Any
    served: int = 0


_TABLE: dict[tuple[str, Hashable], _Kept] = {}
"""This process's kept models of every family, by (family, key)."""
_LOCK = threading.RLock()
"""Held while the table is read or changed (and while a model is built, so that two threads
asking at once do not build two); reentrant, for a build that asks for another model."""
_CLOSERS: dict[str, Callable[[Any], None]] = {}
"""How each family closes its models (for the exit), by family name."""


class KeptModels(Generic[Model]):
    """One family of kept models: ``build(key)`` makes the model for a key, ``close(model)``
    releases it, and a model is renewed after ``renew_after`` uses (None: never; see the
    module docstring)."""

    def __init__(self, family: str, *, build: Callable[[Any], Model],
                 close: Callable[[Model], None], renew_after: int | None):
        if renew_after is not None and renew_after < 1:
            raise ValueError(f"renew_after must be at least 1, got {renew_after}")
        if family in _CLOSERS:
            raise ValueError(f"a family of kept models called {family!r} exists already")
        self.family, self.build, self.close = family, build, close
        self.renew_after = renew_after
        _CLOSERS[family] = close

    def get(self, key: Hashable, *, uses: int = 1) -> Model:
        """The kept model for ``key``, for ``uses`` uses about to run on it: built on first
        use, renewed (the old one closed) when those uses would take it past
        :attr:`renew_after`. It stays in the table while the caller uses it."""
        with _LOCK:
            kept = self._take(key, uses)
            _TABLE[self.family, key] = kept
            return kept.model

    @contextlib.contextmanager
    def lent(self, key: Hashable, *, reset: Callable[[Model], None],
             uses: int = 1) -> Iterator[Model]:
        """The kept model for ``key`` (as :meth:`get`), taken out of the table for the block:
        nobody else is handed a model in the middle of a use. However the block ends,
        ``reset(model)`` puts it back to its kept state and it is kept again; a model whose
        reset fails is closed and dropped (the next use builds a fresh one), so no use can
        see what an earlier one left behind."""
        with _LOCK:
            kept = self._take(key, uses)
        try:
            yield kept.model
        finally:
            try:
                reset(kept.model)
            except BaseException:
                with contextlib.suppress(Exception):     # the reset's error is the one to see
                    self.close(kept.model)
                raise
            with _LOCK:
                displaced = _TABLE.get((self.family, key))
                _TABLE[self.family, key] = kept
            if displaced is not None:     # built meanwhile by a use inside the block
                self.close(displaced.model)

    def _take(self, key: Hashable, uses: int) -> _Kept:
        """The entry for ``key``, out of the table, renewed if due, its uses counted."""
        kept = _TABLE.pop((self.family, key), None)
        if kept is not None and self.renew_after is not None \
                and kept.served + uses > self.renew_after:
            self.close(kept.model)
            kept = None
        if kept is None:
            kept = _Kept(self.build(key))
        kept.served += uses
        return kept

    def kept(self, key: Hashable) -> Model | None:
        """The model kept for ``key`` now (None if none), without counting a use."""
        with _LOCK:
            kept = _TABLE.get((self.family, key))
            return None if kept is None else kept.model

    def served(self, key: Hashable) -> int:
        """The uses the model kept for ``key`` was handed out for (0 if none is kept)."""
        with _LOCK:
            kept = _TABLE.get((self.family, key))
            return 0 if kept is None else kept.served

    def models(self) -> dict[Hashable, Model]:
        """This family's kept models, by key."""
        with _LOCK:
            return {key: kept.model for (family, key), kept in _TABLE.items()
                    if family == self.family}

    def close_all(self) -> None:
        """Close and drop every model of this family (the next use builds a fresh one)."""
        with _LOCK:
            mine = [k for k in _TABLE if k[0] == self.family]
            dropped = [_TABLE.pop(k) for k in mine]
        for kept in dropped:
            self.close(kept.model)


def _close_everything() -> None:
    """At exit: close every kept model of every family (best effort: one that fails to
    close must not keep the others open)."""
    with _LOCK:
        entries = list(_TABLE.items())
        _TABLE.clear()
    for (family, _), kept in entries:
        with contextlib.suppress(Exception):
            _CLOSERS[family](kept.model)


atexit.register(_close_everything)
