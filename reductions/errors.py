"""The one base class for mistakes a user can make — bad input files, impossible options, a
missing solver binary — and the helpers that keep its messages to one readable line.

The command line prints a :class:`UserError` as a single line (no traceback) and exits with a
non-zero code; anything else escaping is a bug in the project. Files are read through
:mod:`reductions.reading`, which turns what reading can raise into these errors.
"""

from __future__ import annotations


class UserError(ValueError):
    """A problem with the user's input or environment; the message names what and where."""


MAX_INTEGER_DIGITS = 18
"""Longest integer token a reader accepts: every count and index in this project fits in 18
digits, and Python refuses to convert strings beyond 4,300 digits (with an error of its own)."""


def parse_int(token: str, where: str, what: str = "number",
              error: type[UserError] = UserError) -> int:
    """A decimal integer token (optional sign, ASCII digits, at most
    :data:`MAX_INTEGER_DIGITS` digits), or ``error`` naming ``where`` (a file and line)."""
    digits = token[1:] if token[:1] in ("+", "-") else token
    if not (digits.isascii() and digits.isdigit()):
        raise error(f"{where}: {what} {shown(token)} is not an integer")
    if len(digits) > MAX_INTEGER_DIGITS:
        raise error(f"{where}: {what} {shown(token)} is out of range ({len(digits):,} digits)")
    return int(token)


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a one-line message, shortened in the middle when long."""
    if len(text) > limit:
        text = f"{text[:limit // 2]}…{text[-limit // 4:]}"
    return repr(text)


def printable(text: str) -> str:
    """``text`` with every character that is not printable (newlines, tabs, other control
    characters, undecodable bytes of a file name) written as its escape, so that a message
    naming it stays one line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def format_bytes(count: int) -> str:
    """``512 MiB``, ``11.8 GiB``, ``3.2e+03 TiB``: powers of 1024, two or three digits."""
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            break
        value /= 1024
    if unit == "bytes":
        return f"{count:,} bytes"
    if value >= 10_000:
        return f"{scientific(value)} {unit}"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"


def scientific(value: float) -> str:
    """``5.6e9`` rather than Python's ``5.6e+09`` (for sizes in messages)."""
    mantissa, _, power = f"{value:.2g}".partition("e")
    return f"{mantissa}e{int(power)}" if power else mantissa
