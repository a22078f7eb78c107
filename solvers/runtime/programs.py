"""The outside programs and optional Python packages the routes use: where each comes from
(a Debian package, a pip extra, its authors' sources), so that a route that cannot run says
what to install; and each program's version, asked of the program itself.

A version is asked once per program path and process (cached), through
:func:`~solvers.runtime.processes.run_program` — its own process group, killed after
:data:`VERSION_SECONDS` — with its output capped at :data:`VERSION_OUTPUT` bytes;
:func:`program_versions` asks several programs at once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Iterable

VERSION_SECONDS = 3.0
"""The longest a program may take to say its version."""

VERSION_OUTPUT = 1 << 16
"""The most of a program's output read for its version."""


@dataclass(frozen=True)
class Program:
    """An outside program: where to get it and how to ask its version (``version_args``;
    None when it has no way to say it)."""

    name: str
    source: str
    version_args: tuple[str, ...] | None = ("--version",)


_CONCORDE = ("Concorde's programs, academic licence: build them from "
             "https://www.math.uwaterloo.ca/tsp/concorde/")

PROGRAMS = {program.name: program for program in (
    Program("cadical", "Debian package cadical"),
    Program("minisat", "Debian package minisat", None),
    Program("picosat", "Debian package picosat"),
    Program("cryptominisat5", "Debian package cryptominisat"),
    Program("kissat", "build it from https://github.com/arminbiere/kissat"),
    Program("glucose", "build it from https://github.com/audemard/glucose", None),
    Program("lingeling", "build it from https://github.com/arminbiere/lingeling"),
    Program("dlx1", "build it from Knuth's dlx1.w, https://cs.stanford.edu/~knuth/programs/"
                    "dlx1.w, with CWEB's ctangle and a C compiler", None),
    Program("cbc", "Debian package coinor-cbc", ("-quit",)),
    Program("glpsol", "Debian package glpk-utils"),
    Program("linkern", _CONCORDE, None),
    Program("concorde", _CONCORDE, None),
    Program("LKH", "Helsgaun's LKH-3 (research licence), built from "
                   "http://webhotel4.ruc.dk/~keld/research/LKH-3/; or the pip extra lkh "
                   "(elkai)", None),
)}
"""The programs the built-in routes run, by the name looked for on PATH."""

EXTRAS = {"highspy": "highs", "pyscipopt": "scip", "ortools": "cpsat", "elkai": "lkh",
          "exact_cover": "exact-cover", "matplotlib": "plots", "distributed": "distributed",
          "networkx": "graphs"}
"""The pip extra of this project that installs each optional Python package (by the name
it is imported as)."""

DISTRIBUTIONS = {"exact_cover": "exact-cover", "pysat": "python-sat"}
"""The distribution name of an imported name, where the two differ."""


def how_to_get(program: str) -> str | None:
    """Where ``program`` comes from ("Debian package cadical"), or None when it is none of
    ours (a template's program)."""
    known = PROGRAMS.get(_base_name(program))
    return known.source if known else None


def missing_program(program: str, *, option: str | None = None) -> str:
    """Why a program is missing and how to get it, e.g. "needs the 'kissat' program on PATH
    (build it from https://github.com/arminbiere/kissat)"; ``option``: the flag that gives
    its path instead."""
    ways = [way for way in (how_to_get(program), option and f"or give its path with {option}")
            if way]
    return f"needs the {program!r} program on PATH" + (f" ({', '.join(ways)})" if ways else "")


def missing_package(module: str) -> str:
    """Why a Python package is missing and how to get it."""
    extra = EXTRAS.get(module)
    how = (f"python -m pip install 'sudoku-bridge[{extra}]'" if extra
           else f"python -m pip install {package_name(module)}")
    return f"needs the Python package {package_name(module)!r} ({how})"


def package_name(module: str) -> str:
    return DISTRIBUTIONS.get(module, module)


def package_version(module: str) -> str | None:
    """The installed version of the package imported as ``module``, or None."""
    from importlib import metadata          # not at start-up: 10 ms, for `routes` alone
    try:
        return metadata.version(package_name(module))
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def program_version(path: str) -> str | None:
    """The version ``path`` says it is ("1.9.5", "sc2021"), or None when it has no way to
    say it, says nothing recognisable, or does not answer within :data:`VERSION_SECONDS`."""
    from .processes import run_program
    from ..outcome import SolverUnavailable
    known = PROGRAMS.get(_base_name(path))
    args = known.version_args if known else ("--version",)
    if args is None:
        return None
    try:
        run = run_program([path, *args], time_limit=VERSION_SECONDS,
                          max_output=VERSION_OUTPUT)
    except (SolverUnavailable, OSError):
        return None
    if run.timed_out:
        return None
    return version_in((run.stdout + run.stderr).decode("utf-8", "replace"))


def version_in(text: str) -> str | None:
    """The version a program printed in its first lines, the first line that has one (a
    licence's "version 3" further down is not it): after the word "version" ("Version:
    2.10.8") or a dotted number ("GLPK LP/MIP Solver 5.0"); else a first line of one word
    ("sc2021", "965")."""
    lines = [line.strip().removeprefix("c ").strip() for line in text.splitlines()[:6]]
    lines = [line for line in lines if line][:3]
    patterns = (r"\bversion:?\s+v?(\d\S*)", r"\b(\d+(?:\.\d+)+[\w.+-]*)")
    for line in lines:
        for pattern in patterns:
            found = re.search(pattern, line, re.I)
            if found:
                return found.group(1)
    if lines and re.fullmatch(r"[\w.+-]{1,24}", lines[0]):
        return lines[0]
    return None


def program_versions(paths: Iterable[str]) -> dict[str, str | None]:
    """:func:`program_version` of several programs, asked at once (each bounded)."""
    paths = list(dict.fromkeys(paths))
    if not paths:
        return {}
    from concurrent.futures import ThreadPoolExecutor       # not at start-up
    with ThreadPoolExecutor(max_workers=min(8, len(paths))) as pool:
        return dict(zip(paths, pool.map(program_version, paths)))


def _base_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
