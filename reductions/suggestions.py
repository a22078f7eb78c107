"""Close-match suggestions for a mistyped name (a command, an option, a route, a solver, a
rule): "unknown route 'exact-cuver'; did you mean 'exact-cover'?" in one line, instead of a
list of every name. Matching is :mod:`difflib`'s, case-insensitive."""

from __future__ import annotations

import difflib
from typing import Iterable

CUTOFF = 0.6
"""The least :class:`difflib.SequenceMatcher` ratio a suggestion needs (difflib's default:
'exact-cuver' → 'exact-cover' scores 0.91, 'slove' → 'solve' 0.8)."""


def close_match(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, if one is close enough (:data:`CUTOFF`)."""
    known = list(known)
    by_lower = {k.lower(): k for k in reversed(known)}      # the first of equal spellings
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=CUTOFF)
    return by_lower[found[0]] if found else None


def unknown_name(what: str, name: str, known: Iterable[str], listing: str) -> str:
    """The message for an unknown ``name`` of a kind (``what``: "route"): with a close
    match, "unknown route 'exact-cuver'; did you mean 'exact-cover'?"; without one, the
    list, "unknown route 'x'; routes: sat, ..." (``listing``: "routes")."""
    known = list(known)
    match = close_match(name, known)
    if match is not None:
        return f"unknown {what} {name!r}; did you mean {match!r}?"
    return f"unknown {what} {name!r}; {listing}: {', '.join(known)}"
