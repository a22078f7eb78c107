"""What the certification tests share: the checkers each test runs with (a missing one skips
with the reason that says what to build) and the memory every check may use."""

from __future__ import annotations

import importlib.util

import pytest

from solvers.certify.checkers import CHECKERS, CheckerUnavailable, find_checker

MEMORY = 1 << 30

NEEDS_DRATIFY = pytest.mark.skipif(importlib.util.find_spec("dratify") is None,
                                   reason="dratify not installed (pip install '.[certify]'): "
                                          "every test here checks through it at least")


def checker_or_skip(name: str):
    try:
        return find_checker(name)
    except CheckerUnavailable as exc:
        pytest.skip(f"{exc}")


@pytest.fixture(params=CHECKERS)
def checker(request):
    """Each checker in turn (cake_lpr, drat-trim, dratify), skipped where missing."""
    return checker_or_skip(request.param)
