"""Behaviour corpus: hundreds of ``sudoku-bridge`` command lines, everything they print and
write recorded, to show that a change (a refactor) changes no behaviour.

    python benchmarks/behaviour_corpus.py [--tree PATH] [--out SNAPSHOT.json]
    python benchmarks/behaviour_corpus.py --baseline REV [--tree PATH]
    options: [--jobs N] [--filter SUBSTR] [--list]

Each *case* of the corpus (``CASES`` below, plain data) is a short list of shell lines run
one after another by ``/bin/sh`` in a fresh scratch directory of its own, where
``instances/`` holds the shipped inputs. A line that starts with ``sudoku-bridge`` is a
*command* of the corpus: ``sudoku-bridge`` there runs ``python -m solvers.cli`` with the
tree under test first on ``PYTHONPATH``, and its exit code, standard output, standard error
and the bytes (sha256) of every file it created or changed in the scratch directory are
recorded. Any other line prepares the inputs of the next command: an outside solver
(cadical, minisat, cbc, glpsol, ...) writing the answer that ``decode`` reads, ``printf``
writing a bad input; only its exit code is recorded. Every case also records how many
files were left in its own ``TMPDIR`` (0: no temporary file survives).

``--tree PATH`` (default: this checkout) runs the corpus on that tree and writes a JSON
snapshot (``--out``: every record, the files written by their sha256 and size).
``--baseline REV`` makes a ``git worktree`` of REV (of this checkout's repository) in a
temporary folder (removed afterwards), runs every case on both trees in the same run, the
two runs of a case next to each other, and prints, for each command that differs, what
differs with its first differing lines (``-`` the baseline, ``+`` the tree under test),
then the identical count: exit 0 when everything is identical, 4 when anything differs,
2 on bad usage.

The inputs (``instances/``) are copied from this checkout once per run, so both trees read
the same bytes. The environment is pinned for both: ``PYTHONHASHSEED=0``, ``COLUMNS=100``
(argparse wraps help to the terminal's width), ``LC_ALL=C.UTF-8``, a ``TMPDIR`` per case,
``MPLCONFIGDIR`` in the scratch folder. Outside programs that are missing here make their
commands fail alike on both trees ("not available", exit 2), so the corpus runs anywhere;
the snapshot names the programs found.

Normalisations, applied to standard output, standard error and the files written, and
nothing else (each found by running the corpus twice on one tree):

* paths: the scratch directory, the case's ``TMPDIR``, the tree under test and the
  interpreter become ``<case>``, ``<tmp>``, ``<tree>`` and ``<python>``, and the random part
  of a temporary name under ``<tmp>`` (``tempfile``'s 8 characters) ``<random>`` (the
  ``--json`` stats of the program routes hold the command line run);
* ``NORMALISED_KEYS``: the values of the JSON fields that are measured times
  (``"seconds"``, ``"build_seconds"``, ...) become ``"<t>"``;
* ``DURATION``: a decimal number followed by ``s`` or ``ms`` (``in 0.12 s``, ``(method
  sat, 0.003 s)``) becomes ``<t> s``; whole numbers are left alone (``60 s`` in a help
  text, ``two 1s`` in an error);
* ``TIME_COLUMNS``: in a table whose header has a time column (``crosscheck``'s summary,
  ``gadget nrpath --validate``, ``gadget nishio --validate``), every decimal number of its
  rows becomes ``<t>``, with the spaces before it (times are these tables' only decimals);
* a compressed file (``.gz``, ``.xz``, ``.bz2``, known by its content) is compared by its
  decompressed content, normalised as above, and byte for byte as well when that content
  needed no normalisation (``crosscheck --json r.jsonl.gz`` holds times; an emitted
  ``p.cnf.gz`` does not, and its gzip header holds no time);
* ``TIMED_FILES``: a file drawn from the times (the ``crosscheck --plot`` picture) is
  compared by its presence and its size in pixels.

No process id appears in any output, so none is normalised. Commands whose output depends
on chance or on the clock are left out of the corpus (heuristics such as LKH, a time limit
that is reached, ``generate`` without ``--seed``); ``--baseline HEAD`` must report 0
differences.
"""

from __future__ import annotations

import argparse
import bz2
import concurrent.futures
import contextlib
import copy
import dataclasses
import gzip
import hashlib
import json
import lzma
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = "sudoku-bridge"
STEP_LIMIT_S = 120          # a step still running then is killed (its group) and recorded so
TEXT_KEPT = 256 * 1024      # outputs up to this size keep their text (for the diff's lines)
DIFF_LINES = 3              # differing lines shown per stream or file
TOOLS = ("cadical", "minisat", "picosat", "cryptominisat5", "kissat", "glucose", "lingeling",
         "dlx1", "cbc", "glpsol", "LKH", "linkern", "concorde")

# ------------------------------------------------------------------------------- the corpus
# A case is (name, shell lines); names are unique, and --filter matches them and the lines.
Case = tuple[str, list[str]]

# Inputs, relative to a case's scratch directory.
P = "instances/haythorpe-17clue.txt"                 # 9x9, 17 clues, unique
S = "instances/haythorpe-17clue.solution.txt"
MULTI = "instances/multiple-solutions.txt"          # several solutions
NOFILE = "instances/unsolvable.txt"                 # 4 puzzles without solution
F4, F6, F12 = "instances/4x4.txt", "instances/6x6-2x3.txt", "instances/12x12-3x4.txt"
F16, F25 = "instances/16x16.txt", "instances/25x25.txt"
ROYLE = "instances/royle17-sample300.txt"
SAMPLES = ("instances/top1465-sample100.txt", "instances/forum-hardest-sample100.txt",
           "instances/hardest1905-sample100.txt")
FORMULAS = "instances/formulas"
P4 = "....1.4...3.4..2"                                 # first puzzle of 4x4.txt
S4 = "3421124321344312"
P6 = ".3....6..4..31...55....1.2...4...2.."             # first puzzle of 6x6-2x3.txt
NO = ".......213...5.............5..63.....1.....83......5..7.4...6..6..2........1.8..."
NO_EMPTY_CELL = ".12345678" + "." * 27 + "9" + "." * 44   # a cell without candidates
HARD = "..4..3....7..8....2.81....6..3....9..8..2....1..7....3......45....8..9....9..5..8"
EMPTY4 = "." * 16
ANSWERS = '"$TREE/.ci/answers.py"'        # the CI's answer writer, from the tree under test

ROUTES = ("sat", "sat-glucose", "sat-incremental", "cadical", "kissat", "minisat", "glucose",
          "picosat", "cryptominisat5", "lingeling", "exact-cover", "exact-cover-dlx", "dlx1",
          "ilp", "ilp-highs", "cbc", "glpsol", "scip", "hcp", "hcp-directed",
          "hcp-undirected", "linkern", "concorde", "rules")
PROGRAM_ROUTES = ("cadical", "kissat", "minisat", "glucose", "picosat", "cryptominisat5",
                  "lingeling", "dlx1", "cbc", "glpsol", "linkern", "concorde")
PYSAT_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "glucose3",
                 "glucose4", "glucose42", "gluecard3", "gluecard4", "lingeling", "maplechrono",
                 "maplecm", "maplesat", "mergesat3", "minicard", "minisat22", "minisatgh",
                 "no-such-solver")
AMO = ("auto", "pairwise", "seqcounter", "ladder", "bitwise", "totalizer")
MYSAT = "--route 'mysat=cnf:cadical -q {input}'"


def _cases() -> list[Case]:
    """Every case, section by section."""
    cases: list[Case] = []
    for section in (_help_cases, _solve_route_cases, _solve_sat_cases,
                    _solve_cover_ilp_cases, _solve_hcp_cases, _solve_other_cases,
                    _solve_file_cases, _emit_cases, _emit_hcp_cases, _decode_cases,
                    _decode_error_cases, _verify_cases, _crosscheck_cases, _rules_cases,
                    _generate_cases, _gadget_nishio_cases, _nishio_cases, _nrpath_cases,
                    _nonrepetitive_cases, _hamiltonian_cases, _routes_cases,
                    _bad_input_cases):
        cases.extend(section())
    return cases


def _one(name: str, line: str) -> Case:
    return name, [line]


def _tag(options: str) -> str:
    """A name for options: ``--reduce --reduce-rules paper`` -> ``reduce-reduce-rules-paper``."""
    return options.replace("--", "").replace(" ", "-")


def _help_cases() -> list[Case]:
    commands = ["solve", "emit", "emit cnf", "emit exact-cover", "emit ilp", "emit hcp",
                "decode", "decode cnf", "decode exact-cover", "decode ilp", "decode hcp",
                "verify", "crosscheck", "rules", "generate", "gadget", "gadget nishio",
                "gadget nrpath", "nishio", "nonrepetitive", "hamiltonian", "routes"]
    return [_one("help/top", f"{CLI} --help"), _one("help/-h", f"{CLI} -h"),
            _one("help/no-command", f"{CLI}"), _one("help/unknown-command", f"{CLI} nosuch"),
            _one("help/emit-no-target", f"{CLI} emit"),
            _one("help/decode-no-target", f"{CLI} decode"),
            _one("help/gadget-no-kind", f"{CLI} gadget"),
            _one("help/emit-unknown-target", f"{CLI} emit sat {P} -o x"),
            *(_one(f"help/{c.replace(' ', '-')}", f"{CLI} {c} --help") for c in commands)]


def _solve_route_cases() -> list[Case]:
    """Every route on the 17-clue puzzle, with --unique and --json, on several solutions,
    on no solution, on a 4x4 (the routes through an outside program: not the first and the
    fourth, which take the same path through the program as the second)."""
    cases = []
    for via in ROUTES:
        every = via not in PROGRAM_ROUTES
        run = f"{CLI} solve {P} --via {via}"
        cases += [
            *([_one(f"solve/{via}/9x9", run)] if every else []),
            _one(f"solve/{via}/9x9-unique", f"{run} --unique"),
            _one(f"solve/{via}/9x9-json", f"{run} --json"),
            *([_one(f"solve/{via}/multiple-unique", f"{CLI} solve {MULTI} --via {via} --unique")]
              if every else []),
            _one(f"solve/{via}/no-solution", f"{CLI} solve {NO} --via {via}"),
            _one(f"solve/{via}/4x4-unique-json", f"{CLI} solve {P4} --via {via} --unique --json"),
        ]
    return cases + [
        _one("solve/lkh/unique-refused", f"{CLI} solve {P} --via lkh --unique"),
        _one("solve/unknown-route", f"{CLI} solve {P} --via no-such-route"),
        _one("solve/no-solution-empty-cell", f"{CLI} solve {NO_EMPTY_CELL}"),
        _one("solve/default-route", f"{CLI} solve {P}"),
        _one("solve/6x6", f"{CLI} solve {P6}"),
        _one("solve/hard-unique", f"{CLI} solve {HARD} --unique"),
    ]


def _solve_sat_cases() -> list[Case]:
    cases = []
    for k, (encoding, amo) in enumerate((e, a) for e in ("minimal", "extended") for a in AMO):
        clues = ("units", "eliminate")[k % 2]       # each form of the clues with each encoding
        cases.append(_one(f"solve-sat/{encoding}-{amo}-{clues}",
                          f"{CLI} solve {P} --encoding {encoding} --amo {amo} "
                          f"--clues {clues} --json"))
    cases += [_one(f"solve-sat/solver-{name}", f"{CLI} solve {P} --solver {name} --unique")
              for name in PYSAT_SOLVERS]
    for name, cmd in (("cadical", "cadical"), ("minisat", "minisat"), ("picosat", "picosat"),
                      ("cryptominisat5", "cryptominisat5"), ("kissat", "kissat"),
                      ("template-cadical", "'cadical -q {input}'"),
                      ("template-minisat", "'minisat {input} {output}'"),
                      ("template-missing", "'no-such-program {input}'")):
        cases.append(_one(f"solve-sat/solver-cmd-{name}",
                          f"{CLI} solve {P} --solver-cmd {cmd} --unique"))
    return cases + [
        _one("solve-sat/solver-cmd-no-solution", f"{CLI} solve {NO} --solver-cmd cadical"),
        _one("solve-sat/route-template", f"{CLI} solve {P} {MYSAT} --via mysat --unique"),
        _one("solve-sat/route-template-default", f"{CLI} solve {P} {MYSAT}"),
        _one("solve-sat/route-bad-target", f"{CLI} solve {P} --route 'x=sat:cadical {{input}}'"),
        _one("solve-sat/route-no-input", f"{CLI} solve {P} --route 'x=cnf:cadical'"),
        _one("solve-sat/route-shadows", f"{CLI} solve {P} --route 'sat=cnf:cadical {{input}}'"),
        _one("solve-sat/incremental-json-4x4", f"{CLI} solve {P4} --via sat-incremental --json"),
    ]


def _solve_cover_ilp_cases() -> list[Case]:
    cases = []
    for solver in ("auto", "exact-cover", "dlx", "dlx1"):
        for clues in ("keep", "eliminate"):
            cases.append(_one(f"solve-cover/{solver}-{clues}",
                              f"{CLI} solve {P} --via exact-cover --cover-solver {solver} "
                              f"--clues {clues} --unique --json"))
    cover, ilp = f"{CLI} solve {P} --via exact-cover", f"{CLI} solve {P} --via ilp"
    cases += [_one("solve-cover/cover-cmd-dlx1", f"{cover} --cover-cmd dlx1"),
              _one("solve-cover/cover-cmd-missing", f"{cover} --cover-cmd 'no-such {{input}}'")]
    for solver in ("cbc", "highs", "glpsol", "scip"):
        for clues in ("eliminate", "equalities"):
            cases.append(_one(f"solve-ilp/{solver}-{clues}",
                              f"{ilp} --ilp-solver {solver} --clues {clues} --unique --json"))
        cases.append(_one(f"solve-ilp/{solver}-no-solution",
                          f"{CLI} solve {NO} --via ilp --ilp-solver {solver}"))
    return cases + [
        _one("solve-ilp/ilp-cmd-glpsol",
             f"{ilp} --ilp-cmd 'glpsol --mps {{input}} -w {{output}}' --unique"),
        _one("solve-ilp/ilp-cmd-glpsol-free-mps",
             f"{ilp} --ilp-cmd 'glpsol --freemps {{input.free-mps}} -w {{output}}'"),
        _one("solve-ilp/cbc-path", f"{ilp} --cbc-path /usr/bin/cbc"),
        _one("solve-ilp/cbc-path-missing", f"{ilp} --cbc-path /no/such/cbc"),
    ]


def _solve_hcp_cases() -> list[Case]:
    cases = []
    for solver in ("sat", "cpsat"):
        for prune in ("none", "paper", "peers"):
            run = f"{CLI} solve {P4} --via hcp --hcp-solver {solver} --prune {prune}"
            cases.append(_one(f"solve-hcp/{solver}-directed-{prune}",
                              f"{run} --graph directed --unique --json"))
            for shape in ("", "--triple", "--reduce"):
                if (solver, prune, shape) == ("cpsat", "none", "--triple"):
                    continue            # about a minute for CP-SAT
                cases.append(_one(f"solve-hcp/{solver}-undirected-{prune}{shape}",
                                  f"{run} --graph undirected --unique --json {shape}".strip()))
    hcp = f"{CLI} solve {P4} --via hcp"
    return cases + [
        _one("solve-hcp/cpsat-9x9",
             f"{CLI} solve {P} --via hcp --hcp-solver cpsat --prune peers --unique"),
        _one("solve-hcp/cpsat-workers",
             f"{CLI} solve {P} --via hcp --hcp-solver cpsat --hcp-workers 1"),
        _one("solve-hcp/undirected-9x9-triple",
             f"{CLI} solve {P} --via hcp --graph undirected --triple"),
        _one("solve-hcp/break-symmetry", f"{CLI} solve {EMPTY4} --via hcp --break-symmetry"),
        _one("solve-hcp/break-symmetry-cpsat",
             f"{CLI} solve {EMPTY4} --via hcp --hcp-solver cpsat --break-symmetry"),
        _one("solve-hcp/not-square", f"{CLI} solve {P6} --via hcp"),
        _one("solve-hcp/hcp-cmd-no-tour", f"{hcp} --hcp-cmd 'true {{input}} {{output}}'"),
        _one("solve-hcp/hcp-cmd-unique", f"{hcp} --hcp-cmd 'true {{input}}' --unique"),
        _one("solve-hcp/linkern-missing", f"{hcp} --hcp-solver linkern"),
        _one("solve-hcp/triple-directed", f"{hcp} --graph directed --triple"),
    ]


def _solve_other_cases() -> list[Case]:
    """Deduction levels, limits, block shapes, and options refused."""
    cases = [_one(f"solve-rules/max-level-{level}",
                  f"{CLI} solve {HARD} --via rules --max-level {level}")
             for level in (1, 2, 4, 8, 11, 19)]
    run = f"{CLI} solve {P}"
    return cases + [
        _one("solve-options/time-limit-not-reached", f"{run} --time-limit 600"),
        _one("solve-options/max-memory-refused", f"{run} --max-memory 1K"),
        _one("solve-options/max-memory-ok", f"{run} --max-memory 8G --via exact-cover"),
        _one("solve-options/box-6x6", f"{CLI} solve {P6} --box 2x3"),
        _one("solve-options/box-6x6-3x2", f"{CLI} solve {P6} --box 3x2"),
        _one("solve-options/box-wrong", f"{run} --box 2x2"),
        _one("solve-options/box-bad", f"{run} --box three"),
        _one("solve-options/prune-on-sat", f"{run} --prune peers"),
        _one("solve-options/amo-on-cover", f"{run} --via exact-cover --amo ladder"),
        _one("solve-options/jobs-zero", f"{run} --jobs 0"),
        _one("solve-options/time-limit-negative", f"{run} --time-limit -1"),
        _one("solve-options/time-limit-text", f"{run} --time-limit soon"),
        _one("solve-options/encoding-bad", f"{run} --encoding maximal"),
        _one("solve-options/unknown-option", f"{run} --no-such-option"),
        _one("solve-options/max-memory-bad", f"{run} --max-memory lots"),
    ]


def _solve_file_cases() -> list[Case]:
    cases = []
    for path in (F4, F6, F12, F16, ROYLE, *SAMPLES, NOFILE, MULTI):
        stem = Path(path).stem
        cases += [
            _one(f"solve-file/{stem}", f"{CLI} solve {path}"),
            *([_one(f"solve-file/{stem}-jobs1", f"{CLI} solve {path} --jobs 1")]
              if path in (F4, F16, ROYLE, SAMPLES[0], NOFILE, MULTI) else []),
            _one(f"solve-file/{stem}-unique", f"{CLI} solve {path} --unique"),
            _one(f"solve-file/{stem}-json", f"{CLI} solve {path} --json --unique --jobs 1"),
        ]
    for via in ("sat-incremental", "sat-glucose", "exact-cover", "ilp", "hcp-directed",
                "hcp-undirected", "rules", "cadical"):
        cases.append(_one(f"solve-file/4x4-{via}", f"{CLI} solve {F4} --via {via} --unique"))
    for via in ("sat-incremental", "exact-cover", "rules"):
        cases.append(_one(f"solve-file/royle-{via}", f"{CLI} solve {ROYLE} --via {via} --jobs 2"))
    return cases + [
        _one("solve-file/25x25", f"{CLI} solve {F25}"),
        _one("solve-file/royle-json-jobs2", f"{CLI} solve {ROYLE} --json --jobs 2"),
        _one("solve-file/unsolvable-exact-cover", f"{CLI} solve {NOFILE} --via exact-cover --json"),
        _one("solve-file/unsolvable-rules", f"{CLI} solve {NOFILE} --via rules"),
        _one("solve-file/6x6-box", f"{CLI} solve {F6} --box 2x3 --unique"),
        _one("solve-file/redirected", f"{CLI} solve {ROYLE} > solutions.txt"),
    ]


def _emit_cases() -> list[Case]:
    cases = []
    for encoding in ("minimal", "extended"):
        for amo in AMO:
            for clues in ("units", "eliminate"):
                cases.append(_one(f"emit-cnf/{encoding}-{amo}-{clues}",
                                  f"{CLI} emit cnf {P} -o p.cnf --encoding {encoding} "
                                  f"--amo {amo} --clues {clues}"))
    cnf = f"{CLI} emit cnf {P}"
    cases += [
        _one("emit-cnf/4x4", f"{CLI} emit cnf {P4} -o p.cnf"),
        _one("emit-cnf/16x16", f"{CLI} emit cnf {F16} -o p.cnf"),
        _one("emit-cnf/stdout", f"{cnf} -o -"),
        _one("emit-cnf/gz", f"{cnf} -o p.cnf.gz"),
        _one("emit-cnf/xz", f"{cnf} -o p.cnf.xz"),
        _one("emit-cnf/bz2", f"{cnf} -o p.cnf.bz2"),
        _one("emit-cnf/no-output", cnf),
        _one("emit-cnf/output-is-dir", f"{cnf} -o instances"),
        ("emit-cnf/output-is-input", [f"cp {P} p.txt", f"{CLI} emit cnf p.txt -o p.txt"]),
        _one("emit-cnf/no-solution-clues",
             f"{CLI} emit cnf {NO_EMPTY_CELL} -o p.cnf --clues eliminate"),
        _one("emit-cnf/6x6", f"{CLI} emit cnf {P6} -o p.cnf"),
        _one("emit-cnf/file-of-many", f"{CLI} emit cnf {ROYLE} -o p.cnf"),
    ]
    for puzzle, tag in ((P, "9x9"), (P4, "4x4"), (P6, "6x6"), (NO_EMPTY_CELL, "empty-cell")):
        for clues in ("keep", "eliminate"):
            cases.append(_one(f"emit-cover/{tag}-{clues}",
                              f"{CLI} emit exact-cover {puzzle} -o p.dlx --clues {clues}"))
    cases += [_one("emit-cover/stdout", f"{CLI} emit exact-cover {P4} -o -"),
              _one("emit-cover/gz", f"{CLI} emit exact-cover {P} -o p.dlx.gz")]
    for fmt, name in (("lp", "p.lp"), ("mps", "p.mps"), ("free-mps", "p.free.mps")):
        for clues in ("equalities", "eliminate"):
            cases.append(_one(f"emit-ilp/{fmt}-{clues}",
                              f"{CLI} emit ilp {P} -o {name} --format {fmt} --clues {clues}"))
    ilp = f"{CLI} emit ilp {P4}"
    return cases + [_one("emit-ilp/by-suffix-lp", f"{ilp} -o p.lp"),
                    _one("emit-ilp/by-suffix-mps", f"{ilp} -o p.mps"),
                    _one("emit-ilp/by-suffix-other", f"{ilp} -o p.model"),
                    _one("emit-ilp/format-bad", f"{ilp} -o p.lp --format xml"),
                    _one("emit-ilp/xz", f"{CLI} emit ilp {P} -o p.mps.xz")]


def _emit_hcp_cases() -> list[Case]:
    """Every pruning with every format (the plain graph), and with every shape (TSPLIB)."""
    cases = []
    for prune in ("none", "paper", "peers"):
        run = f"{CLI} emit hcp {P4} -o g.out --prune {prune}"
        for fmt in ("tsplib", "concorde", "graphml", "edgelist", "arcs"):
            cases.append(_one(f"emit-hcp/undirected-{prune}-{fmt}", f"{run} --format {fmt}"))
        for shape in ("--triple", "--reduce", "--reduce --reduce-rules paper"):
            cases.append(_one(f"emit-hcp/undirected-{prune}-{_tag(shape)}", f"{run} {shape}"))
        for fmt in ("arcs", "graphml", "edgelist", "tsplib"):
            cases.append(_one(f"emit-hcp/directed-{prune}-{fmt}",
                              f"{run} --directed --format {fmt}"))
    hcp = f"{CLI} emit hcp {P}"
    return cases + [
        _one("emit-hcp/stats-9x9", f"{hcp} --prune peers --reduce -o g.hcp --stats"),
        _one("emit-hcp/stats-directed", f"{hcp} --directed -o g.arcs --stats"),
        _one("emit-hcp/stats-triple", f"{hcp} --triple -o g.hcp --stats"),
        _one("emit-hcp/reduce-no-solution",
             f"{CLI} emit hcp {NO_EMPTY_CELL} --prune peers --reduce -o g.hcp"),
        _one("emit-hcp/not-square", f"{CLI} emit hcp {P6} -o g.hcp"),
        _one("emit-hcp/gz", f"{CLI} emit hcp {P4} --reduce -o g.hcp.gz"),
        _one("emit-hcp/stdout", f"{CLI} emit hcp {P4} -o -"),
        _one("emit-hcp/directed-and-undirected",
             f"{CLI} emit hcp {P4} --directed --undirected -o g.hcp"),
    ]


def _decode_chain(name: str, emit: str, tool: str, answer: str) -> Case:
    """Emit, run a real solver (or the CI's answer writer), decode its answer (text and
    --json)."""
    target, model = emit.split()[0], emit.split(" -o ")[1].split()[0]
    decode = f"{CLI} decode {target} {model} {answer}"
    return name, [f"{CLI} emit {emit}", tool, decode, f"{decode} --json"]


def _decode_cases() -> list[Case]:
    """Answers of the solvers found here (a missing one fails alike on both trees)."""
    chain = _decode_chain
    cases = []
    for puzzle, tag in ((P, "9x9"), (NO, "no-solution"), (P4, "4x4")):
        cnf, mps = f"cnf {puzzle} -o p.cnf", f"ilp {puzzle} -o p.mps"
        cases += [
            chain(f"decode-cnf/cadical-{tag}", cnf, "cadical -q p.cnf > p.out", "p.out"),
            chain(f"decode-cnf/minisat-{tag}", cnf, "minisat p.cnf p.res > log", "p.res"),
            chain(f"decode-cnf/picosat-{tag}", cnf, "picosat p.cnf > p.out", "p.out"),
            chain(f"decode-cnf/cryptominisat5-{tag}", cnf, "cryptominisat5 p.cnf > p.out",
                  "p.out"),
            chain(f"decode-cover/answers-{tag}", f"exact-cover {puzzle} -o p.dlx",
                  f"python {ANSWERS} exact-cover p.dlx p.out", "p.out"),
            chain(f"decode-ilp/cbc-{tag}", mps, "cbc p.mps solve solu p.sol > log", "p.sol"),
            chain(f"decode-ilp/glpsol-{tag}", mps, "glpsol --mps p.mps -w p.raw > log", "p.raw"),
        ]
    for amo in ("seqcounter", "ladder", "bitwise", "totalizer"):
        cases.append(chain(f"decode-cnf/cadical-minimal-{amo}",
                           f"cnf {P} -o p.cnf --encoding minimal --amo {amo} --clues eliminate",
                           "cadical -q p.cnf > p.out", "p.out"))
    highs = ("python -c \"import highspy; h = highspy.Highs(); "
             "h.setOptionValue('output_flag', False); h.readModel('p.mps'); h.run(); "
             "h.writeSolution('p.highs', 1)\" > log")
    scip = ("python -c \"import pyscipopt; m = pyscipopt.Model(); m.hideOutput(); "
            "m.readProblem('p.mps'); m.optimize(); m.writeBestSol('p.sol')\" > log")
    cases += [
        chain("decode-cnf/cadical-xz", f"cnf {P} -o p.cnf.xz",
              "xz -dc p.cnf.xz | cadical -q > p.out", "p.out"),
        chain("decode-cnf/pysat-gz", f"cnf {P} -o p.cnf.gz",
              f"python {ANSWERS} cnf p.cnf.gz p.out", "p.out"),
        chain("decode-cover/eliminate", f"exact-cover {P} -o p.dlx --clues eliminate",
              f"python {ANSWERS} exact-cover p.dlx p.out", "p.out"),
        chain("decode-ilp/glpsol-report", f"ilp {P} -o p.mps",
              "glpsol --mps p.mps -o p.report > log", "p.report"),
        chain("decode-ilp/glpsol-free-mps", f"ilp {P} -o p-free.mps --format free-mps",
              "glpsol --freemps p-free.mps -w p.raw > log", "p.raw"),
        chain("decode-ilp/glpsol-lp", f"ilp {P} -o p.lp", "glpsol --lp p.lp -w p.raw > log",
              "p.raw"),
        chain("decode-ilp/cbc-csv", f"ilp {P} -o p.mps",
              "cbc p.mps solve printi csv solu p.csv > log", "p.csv"),
        chain("decode-ilp/cbc-eliminate", f"ilp {P} -o p.mps --clues eliminate",
              "cbc p.mps solve solu p.sol > log", "p.sol"),
        chain("decode-ilp/highs", f"ilp {P} -o p.mps", highs, "p.highs"),
        chain("decode-ilp/scip", f"ilp {P} -o p.mps", scip, "p.sol"),
    ]
    tour = f"echo {S4} > s4.txt; python {ANSWERS} hcp g.out s4.txt g.tour"
    for tag, options in (("reduced", "--prune peers --reduce"), ("plain", ""),
                         ("triple", "--triple"), ("paper-rules", "--reduce --reduce-rules paper"),
                         ("directed", "--directed"), ("concorde", "--reduce --format concorde"),
                         ("graphml", "--format graphml"), ("edgelist", "--format edgelist")):
        cases.append(chain(f"decode-hcp/{tag}", f"hcp {P4} {options} -o g.out", tour, "g.tour"))
    return cases


def _decode_error_cases() -> list[Case]:
    """Answers that are wrong, unreadable or missing."""
    return [
        ("decode-cnf/another-puzzles-answer",
         [f"{CLI} emit cnf {P} -o p.cnf", f"{CLI} emit cnf {HARD} -o q.cnf",
          "cadical -q q.cnf > q.out", f"{CLI} decode cnf p.cnf q.out",
          f"{CLI} decode cnf p.cnf q.out --json"]),
        ("decode-cnf/garbage-answer",
         [f"{CLI} emit cnf {P} -o p.cnf", "printf 'hello\\n' > p.out",
          f"{CLI} decode cnf p.cnf p.out", f"{CLI} decode cnf p.cnf p.out --json"]),
        ("decode-cnf/unknown-answer",
         [f"{CLI} emit cnf {P} -o p.cnf", "printf 's UNKNOWN\\n' > p.out",
          f"{CLI} decode cnf p.cnf p.out"]),
        ("decode-cnf/not-emitted",
         ["printf 'p cnf 1 1\\n1 0\\n' > x.cnf", "printf 's SATISFIABLE\\nv 1 0\\n' > x.out",
          f"{CLI} decode cnf x.cnf x.out"]),
        _one("decode-cnf/missing-files", f"{CLI} decode cnf nothing.cnf nothing.out"),
        ("decode-hcp/missing-sidecar",
         [f"{CLI} emit hcp {P4} -o g.hcp", "rm g.hcp.json", "printf '1\\n2\\n' > g.tour",
          f"{CLI} decode hcp g.hcp g.tour"]),
        ("decode-hcp/bad-tour",
         [f"{CLI} emit hcp {P4} -o g.hcp", "printf '1\\n2\\n3\\n' > g.tour",
          f"{CLI} decode hcp g.hcp g.tour", f"{CLI} decode hcp g.hcp g.tour --json"]),
        ("decode-ilp/empty-answer",
         [f"{CLI} emit ilp {P} -o p.mps", ": > p.sol", f"{CLI} decode ilp p.mps p.sol"]),
        ("decode-cover/wrong-option",
         [f"{CLI} emit exact-cover {P4} -o p.dlx", "printf 'p11 r1d1 c1d1 b1d1\\n' > p.out",
          f"{CLI} decode exact-cover p.dlx p.out"]),
    ]


def _verify_cases() -> list[Case]:
    swapped = "9" + "63" + (ROOT / S).read_text().strip()[3:]      # two cells swapped
    return [
        _one("verify/valid", f"{CLI} verify {P} {S}"),
        _one("verify/swapped", f"{CLI} verify {P} {swapped}"),
        _one("verify/short", f"{CLI} verify {P} {S4}"),
        _one("verify/4x4", f"{CLI} verify {P4} {S4}"),
        _one("verify/4x4-wrong", f"{CLI} verify {P4} {S4[::-1]}"),
        _one("verify/clue-broken", f"{CLI} verify {P4} 1243341221344321"),
        _one("verify/6x6", f"{CLI} verify {F6} instances/6x6-2x3.solutions.txt --box 2x3"),
        _one("verify/grid-missing", f"{CLI} verify {P} no-such-grid.txt"),
        _one("verify/other-puzzle", f"{CLI} verify {HARD} {S}"),
        _one("verify/incomplete", f"{CLI} verify {P} {P}"),
    ]


def _crosscheck_cases() -> list[Case]:
    every = "sat,sat-incremental,exact-cover,ilp,hcp-directed,hcp-undirected,rules"
    programs = "cadical,minisat,picosat,cryptominisat5,cbc,glpsol,ilp-highs,scip,kissat,dlx1"
    run = f"{CLI} crosscheck {F4}"
    return [
        _one("crosscheck/4x4-default", run),
        _one("crosscheck/4x4-every-unique", f"{run} --routes {every} --unique"),
        _one("crosscheck/4x4-programs", f"{run} --routes {programs} --unique"),
        _one("crosscheck/4x4-jobs1", f"{run} --routes sat,exact-cover --jobs 1"),
        ("crosscheck/4x4-json-resume",
         [f"{run} --routes sat --json r.jsonl",
          f"{run} --routes sat,exact-cover --json r.jsonl --resume",
          f"{run} --routes sat,exact-cover --unique --json r.jsonl --resume"]),
        ("crosscheck/4x4-json-gz",
         [f"{run} --routes sat,rules --json r.jsonl.gz",
          f"{run} --routes sat,rules,ilp --json r.jsonl.gz --resume"]),
        ("crosscheck/resume-garbage",
         ["printf 'not a record\\n' > r.jsonl", f"{run} --routes sat --json r.jsonl --resume"]),
        ("crosscheck/resume-forged",
         [f"{run} --routes sat --json r.jsonl",
          "sed -i '1s/\"status\": \"solved\"/\"status\": \"no solution\"/' r.jsonl",
          f"{run} --routes sat --json r.jsonl --resume"]),
        _one("crosscheck/6x6-hcp-not-applicable",
             f"{CLI} crosscheck {F6} --routes sat,hcp-directed --unique"),
        _one("crosscheck/unsolvable", f"{CLI} crosscheck {NOFILE} --routes sat,exact-cover,rules"),
        _one("crosscheck/multiple-unique",
             f"{CLI} crosscheck {MULTI} --routes sat,exact-cover,ilp --unique"),
        _one("crosscheck/one-puzzle",
             f"{CLI} crosscheck {P} --routes sat,sat-glucose,hcp-undirected"),
        _one("crosscheck/unknown-route", f"{run} --routes sat,nosuch"),
        _one("crosscheck/template-route", f"{run} {MYSAT} --routes sat,mysat --unique"),
        _one("crosscheck/plot", f"{run} --routes sat,exact-cover --plot c.png"),
        _one("crosscheck/royle", f"{CLI} crosscheck {ROYLE} --routes sat-incremental --jobs 2"),
        _one("crosscheck/resume-without-json", f"{run} --resume"),
        _one("crosscheck/12x12",
             f"{CLI} crosscheck {F12} --routes sat,exact-cover,ilp-highs --unique"),
    ]


def _rules_cases() -> list[Case]:
    rules = f"{CLI} rules {HARD}"
    cases = [
        _one("rules/list", f"{CLI} rules --list"),
        _one("rules/9x9", f"{CLI} rules {P}"),
        _one("rules/9x9-explain", f"{CLI} rules {P} --explain"),
        _one("rules/9x9-json", f"{CLI} rules {P} --json"),
        _one("rules/hard-explain", f"{rules} --explain"),
        _one("rules/hard-json", f"{rules} --json"),
        _one("rules/only-singles", f"{rules} --rules naked-single,hidden-single"),
        _one("rules/unknown-rule", f"{rules} --rules no-such-rule"),
        _one("rules/level-and-rules", f"{rules} --max-level 2 --rules naked-single"),
        _one("rules/level-zero", f"{rules} --max-level 0"),
        _one("rules/level-20", f"{rules} --max-level 20"),
        _one("rules/no-puzzle", f"{CLI} rules"),
        _one("rules/no-solution", f"{CLI} rules {NO_EMPTY_CELL} --explain"),
        _one("rules/no-solution-search", f"{CLI} rules {NO}"),
        _one("rules/multiple", f"{CLI} rules {MULTI}"),
        _one("rules/4x4-explain", f"{CLI} rules {F4} --explain"),
        _one("rules/6x6", f"{CLI} rules {F6} --json"),
        _one("rules/royle-jobs1", f"{CLI} rules {ROYLE} --jobs 1"),
        _one("rules/royle-jobs2-json", f"{CLI} rules {ROYLE} --jobs 2 --json"),
        _one("rules/12x12", f"{CLI} rules {F12}"),
        _one("rules/16x16", f"{CLI} rules {F16}"),
    ]
    cases += [_one(f"rules/level-{level}", f"{rules} --max-level {level} --explain")
              for level in (1, 2, 5, 10, 14, 19)]
    return cases + [_one(f"rules/{Path(path).stem}", f"{CLI} rules {path} --jobs 2")
                    for path in SAMPLES]


def _generate_cases() -> list[Case]:
    cases = []
    for seed in (1, 2, 7):
        cases.append(_one(f"generate/seed-{seed}", f"{CLI} generate --count 3 --seed {seed}"))
        cases.append(_one(f"generate/seed-{seed}-symmetric",
                          f"{CLI} generate --count 2 --seed {seed} --symmetric"))
    cases += [_one(f"generate/size-{size}", f"{CLI} generate --count 2 --seed 3 --size {size}")
              for size in (4, 6, 8, 12)]
    return cases + [
        _one("generate/box-3x2", f"{CLI} generate --seed 4 --size 6 --box 3x2"),
        ("generate/output-then-solve",
         [f"{CLI} generate --count 3 --seed 7 --symmetric -o puzzles.txt",
          f"{CLI} solve puzzles.txt --unique"]),
        _one("generate/size-3", f"{CLI} generate --size 3 --seed 1"),
        _one("generate/size-17", f"{CLI} generate --size 17 --seed 1"),
        _one("generate/count-0", f"{CLI} generate --count 0 --seed 1"),
        _one("generate/seed-text", f"{CLI} generate --seed x"),
        _one("generate/box-mismatch", f"{CLI} generate --size 9 --box 2x3 --seed 1"),
    ]


def _gadget_nishio_cases() -> list[Case]:
    cases = []
    for name in sorted(p.name for p in (ROOT / FORMULAS).glob("nishio-*.cnf")):
        cases.append((f"gadget-nishio/{name[:-4]}",
                      [f"{CLI} gadget nishio {FORMULAS}/{name} -o S.txt --map S.json",
                       f"{CLI} nishio S.txt --decide", f"{CLI} nishio S.txt --quiet -o N.txt"]))
    for name in ("nishio-sat-example.cnf", "nishio-unsat-short-clauses.cnf",
                 "nishio-sat-mixed-widths.cnf"):
        cases.append(_one(f"gadget-nishio/{name[:-4]}-thm3",
                          f"{CLI} gadget nishio {FORMULAS}/{name} --variant thm3 -o S.txt"))
        cases.append(_one(f"gadget-nishio/{name[:-4]}-validate",
                          f"{CLI} gadget nishio --validate {FORMULAS}/{name}"))
    run = f"{CLI} gadget nishio {FORMULAS}/nishio-sat-example.cnf -o S.txt"
    validate = f"{CLI} gadget nishio --validate"
    return cases + [
        _one("gadget-nishio/validate-all", f"{validate} {FORMULAS}/nishio-*.cnf"),
        _one("gadget-nishio/validate-builtin", validate),
        _one("gadget-nishio/validate-random", f"{validate} --random 3 4 3 --seed 2 --variant thm2"),
        _one("gadget-nishio/picture-svg", f"{run} --picture S.svg --show-placement"),
        _one("gadget-nishio/picture-core", f"{run} --picture S.svg --view core"),
        _one("gadget-nishio/picture-png", f"{run} --picture S.png"),
        _one("gadget-nishio/order", f"{run} --order 14"),
        _one("gadget-nishio/order-too-small", f"{run} --order 3"),
        _one("gadget-nishio/no-output",
             f"{CLI} gadget nishio {FORMULAS}/nishio-sat-example.cnf"),
        _one("gadget-nishio/too-large", f"{validate} {FORMULAS}/nishio-*.cnf --max-memory 1M"),
        ("gadget-nishio/wide-clause",
         ["printf 'p cnf 4 1\\n1 2 3 4 0\\n' > f.cnf", f"{CLI} gadget nishio f.cnf -o S.txt"]),
        ("gadget-nishio/not-cnf",
         ["printf 'hello\\n' > f.cnf", f"{CLI} gadget nishio f.cnf -o S.txt"]),
    ]


def _nishio_cases() -> list[Case]:
    """Nishio(S) of a gadget and of a hand-made 9x9 cell set, every method."""
    gadget = f"{CLI} gadget nishio {FORMULAS}/nishio-sat-example.cnf -o S.txt"
    rows = ("#.#......", ".#..#....", "#.....#..", "...#.#...", "....#..#.", ".#.....#.",
            "......#.#", "..#....#.", ".#......#")
    small = "printf '" + "\\n".join(rows) + "\\n' > s.txt"
    cases = []
    for method in ("auto", "dag", "dag-sweep", "overlay", "sat"):
        cases.append((f"nishio/gadget-{method}",
                      [gadget, f"{CLI} nishio S.txt --quiet --method {method}"]))
        cases.append((f"nishio/small-{method}", [small, f"{CLI} nishio s.txt --method {method}"]))
    return cases + [
        ("nishio/gadget-cell", [gadget, f"{CLI} nishio S.txt --cell 1,1 -o P.txt"]),
        ("nishio/gadget-picture", [gadget, f"{CLI} nishio S.txt --quiet --picture N.svg"]),
        ("nishio/small-decide", [small, f"{CLI} nishio s.txt --decide -o p.txt"]),
        ("nishio/small-cell", [small, f"{CLI} nishio s.txt --cell 1,3"]),
        ("nishio/small-cell-outside", [small, f"{CLI} nishio s.txt --cell 10,1"]),
        ("nishio/small-picture-png", [small, f"{CLI} nishio s.txt --picture n.png -o n.txt"]),
        ("nishio/empty", ["printf '.........\\n' > e.txt", f"{CLI} nishio e.txt"]),
        ("nishio/bad-char", ["printf '#x\\n##\\n' > e.txt", f"{CLI} nishio e.txt"]),
        _one("nishio/missing", f"{CLI} nishio no-such.txt"),
    ]


def _nrpath_cases() -> list[Case]:
    cases = []
    for name in sorted(p.name for p in (ROOT / FORMULAS).glob("nrpath-*.cnf")):
        cases.append((f"gadget-nrpath/{name[:-4]}",
                      [f"{CLI} gadget nrpath {FORMULAS}/{name} -o G.txt --dot G.dot "
                       "--graphml G.graphml",
                       f"{CLI} nonrepetitive G.txt --path --simple --json",
                       f"{CLI} nonrepetitive G.txt --path"]))
    validate = f"{CLI} gadget nrpath --validate"
    return cases + [
        _one("gadget-nrpath/validate-files", f"{validate} {FORMULAS}/nrpath-*.cnf"),
        _one("gadget-nrpath/validate-builtin", f"{validate} --summary"),
        _one("gadget-nrpath/validate-random", f"{validate} --random 4 8 3 --seed 5"),
        _one("gadget-nrpath/no-output", f"{CLI} gadget nrpath {FORMULAS}/nrpath-example-sat.cnf"),
        ("gadget-nrpath/wide-clause",
         ["printf 'p cnf 4 1\\n1 2 3 4 0\\n' > f.cnf", f"{CLI} gadget nrpath f.cnf -o G.txt"]),
    ]


def _nonrepetitive_cases() -> list[Case]:
    """Every question on the gadget's digraph (with the arc q -> p) and on a small
    undirected graph (Theorem 3)."""
    cycle = f"{CLI} gadget nrpath {FORMULAS}/nrpath-example-sat.cnf --cycle -o G.txt"
    undirected = ("printf 'undirected p=a q=d\\na b 1\\nb c 2\\nc d 1\\nb d 1\\nd a 2\\nc a 3\\n'"
                  " > U.txt")
    cases = []
    for question in ("--cyclic-edges", "--path", "--path --simple", "--simple-cycle",
                     "--from p --label 0", "--from p --label 1", "--path p q --json",
                     "--simple-cycle --json", "--cyclic-edges --dot out.dot",
                     "--path --simple --dot out.dot", "--from p", "--path nosuch q"):
        cases.append((f"nonrepetitive/cycle-{_tag(question)}",
                       [cycle, f"{CLI} nonrepetitive G.txt {question}"]))
    for question in ("--path --simple --json", "--simple-cyclic-edges", "--simple-cycle a b",
                     "--cyclic-edges", "--path", "--path a c --simple", "--from a --label 1 --json",
                     "--simple-cycle a c --json", "--simple-cyclic-edges --dot u.dot"):
        cases.append((f"nonrepetitive/undirected-{_tag(question)}",
                       [undirected, f"{CLI} nonrepetitive U.txt {question}"]))
    return cases + [
        ("nonrepetitive/unsat-simple-cycle",
         [f"{CLI} gadget nrpath {FORMULAS}/nrpath-example-unsat.cnf --cycle -o G.txt",
          f"{CLI} nonrepetitive G.txt --simple-cycle"]),
        ("nonrepetitive/bad-line",
         ["printf 'a b\\n' > B.txt", f"{CLI} nonrepetitive B.txt --cyclic-edges"]),
        ("nonrepetitive/no-question", [undirected, f"{CLI} nonrepetitive U.txt"]),
        _one("nonrepetitive/missing", f"{CLI} nonrepetitive no-such.txt --path"),
    ]


def _hamiltonian_cases() -> list[Case]:
    """Graph files of every form through the exact solvers (their text lines: a JSON record
    and a tour name the portfolio member that won, which may differ between runs), proved
    "no cycle", a time limit, bad files."""
    graphs = "instances/graphs"
    return [
        _one("hamiltonian/prism", f"{CLI} hamiltonian {graphs}/prism.hcp"),
        _one("hamiltonian/petersen", f"{CLI} hamiltonian {graphs}/petersen.col"),
        _one("hamiltonian/petersen-cpsat",
             f"{CLI} hamiltonian {graphs}/petersen.col --solver cpsat"),
        _one("hamiltonian/folder", f"{CLI} hamiltonian {graphs}"),
        _one("hamiltonian/time-limit-0", f"{CLI} hamiltonian {graphs}/prism.hcp --time-limit 0"),
        ("hamiltonian/gzip", [f"gzip -c {graphs}/prism.hcp > p.gz", f"{CLI} hamiltonian p.gz"]),
        ("hamiltonian/dimacs-k23",
         ["printf 'p edge 5 6\\ne 1 3\\ne 1 4\\ne 1 5\\ne 2 3\\ne 2 4\\ne 2 5\\n' > k.col",
          f"{CLI} hamiltonian k.col"]),
        ("hamiltonian/out-of-range",
         ["printf 'p edge 3 2\\ne 1 2\\ne 2 7\\n' > bad.col", f"{CLI} hamiltonian bad.col"]),
        _one("hamiltonian/missing", f"{CLI} hamiltonian no-such.col"),
    ]


def _routes_cases() -> list[Case]:
    """The routes listing (what each route needs and whether it runs here)."""
    return [_one("routes/text", f"{CLI} routes"), _one("routes/json", f"{CLI} routes --json"),
            _one("routes/extra-argument", f"{CLI} routes sat"),
            _one("routes/unknown-option", f"{CLI} routes --jsn"),
            _one("routes/debug", f"{CLI} routes --debug")]


def _bad_input_cases() -> list[Case]:
    """Bad puzzles and files: each through solve, most through every command reading one."""
    inputs = {
        "missing": [], "directory": [], "dev-null": [],
        "empty": [": > bad.txt"],
        "comments-only": ["printf '# nothing\\n' > bad.txt"],
        "short": ["printf '123\\n' > bad.txt"],
        "bad-symbol": ["printf '%s\\n' '" + "x" * 81 + "' > bad.txt"],
        "bom": [f"printf '\\357\\273\\277' > bad.txt; cat {P} >> bad.txt"],
        "crlf": [f"sed 's/$/\\r/' {F4} > bad.txt"],
        "gz": [f"gzip -c {F4} > bad.txt"],
        "gz-truncated": [f"gzip -c {ROYLE} | head -c 300 > bad.txt"],
        "not-utf8": ["printf '\\377\\376....1.4...3.4..2\\n' > bad.txt"],
        "one-bad-line": [f"head -4 {F4} > bad.txt; printf '1234\\n' >> bad.txt; "
                         f"tail -2 {F4} >> bad.txt"],
        "mixed-sizes": [f"grep -v '^#' {F4} > bad.txt; echo {P6} >> bad.txt"],
        "repeated-clue": ["printf '11..............\\n' > bad.txt"],
        "fifo": ["mkfifo bad.txt"],
    }
    paths = {"missing": "no-such.txt", "directory": "instances", "dev-null": "/dev/null"}
    commands = {"solve": "solve {}", "solve-json": "solve {} --json", "rules": "rules {}",
                "crosscheck": "crosscheck {} --routes sat", "emit": "emit cnf {} -o p.cnf",
                "verify": f"verify {{}} {S4}"}
    every_command = ("missing", "directory", "empty", "short", "bad-symbol", "gz-truncated",
                     "not-utf8", "one-bad-line")
    cases = []
    for kind, prepare in inputs.items():
        path = paths.get(kind, "bad.txt")
        for command, form in commands.items():
            if command == "solve" or kind in every_command:
                cases.append((f"bad-input/{kind}/{command}",
                              [*prepare, f"{CLI} {form.format(path)}"]))
    return cases + [
        _one("bad-input/not-a-puzzle", f"{CLI} solve 12345"),
        _one("bad-input/stdout-closed", f"{CLI} solve {P} >&-"),
        _one("bad-input/stdout-full", f"{CLI} solve {P} > /dev/full"),
        _one("bad-input/stdout-full-file", f"{CLI} solve {F4} > /dev/full"),
        _one("bad-input/debug-flag", f"{CLI} --debug solve {P}"),
    ]


CASES = _cases()

# ------------------------------------------------------------------------- normalisation
NORMALISED_KEYS = ("seconds", "build_seconds", "solve_seconds", "thm3_seconds")
_KEY_VALUE = re.compile(rb'("(?:' + b"|".join(k.encode() for k in NORMALISED_KEYS) +
                        rb')"\s*:\s*)-?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?')
DURATION = re.compile(rb"(?<![\w.])[0-9]+\.[0-9]+ ?(?:s|ms)\b")
# Header cells of the tables that have a column of measured times: crosscheck's summary,
# gadget nrpath --validate, gadget nishio --validate.
TIME_COLUMNS = re.compile(rb"  median s  |  ms  |  sec \|")
TABLE_TIME = re.compile(rb" *(?<![\w.])[0-9]+\.[0-9]+(?![\w.])")
TEMP_NAME = re.compile(rb"(<tmp>/[^/\s\"']*?)[a-z0-9_]{8}(?=[/\s\"']|$)", re.MULTILINE)
# Files whose content is drawn from measured times: only their presence is compared.
TIMED_FILES = {"crosscheck/plot": {"c.png"}}


@dataclasses.dataclass(frozen=True)
class Places:
    """The absolute paths that differ from run to run or tree to tree, and their names."""
    case: Path
    tmp: Path
    tree: Path

    def pairs(self) -> list[tuple[bytes, bytes]]:
        found = [(self.case, b"<case>"), (self.tmp, b"<tmp>"), (self.tree, b"<tree>"),
                 (Path(sys.executable), b"<python>")]
        pairs = []
        for path, name in found:
            for form in {str(path), os.path.realpath(path)}:
                pairs.append((form.encode(), name))
        return sorted(pairs, key=lambda pair: -len(pair[0]))     # longest first


def normalise(data: bytes, places: Places) -> bytes:
    """The bytes with what legitimately varies replaced (module docstring)."""
    for path, name in places.pairs():
        data = data.replace(path, name)
    data = TEMP_NAME.sub(rb"\1<random>", data)
    data = _KEY_VALUE.sub(rb'\1"<t>"', data)
    data = DURATION.sub(b"<t> s", data)
    return _table_times(data)


def _table_times(data: bytes) -> bytes:
    """In a table whose header names a time column, every decimal number of its rows (up to
    the first blank line) becomes ``<t>``, the spaces before it included: times are the
    only decimal numbers of these tables."""
    if not TIME_COLUMNS.search(data):
        return data
    lines, in_table = data.split(b"\n"), False
    for k, line in enumerate(lines):
        if TIME_COLUMNS.search(line):
            in_table = True
        elif not line.strip():
            in_table = False
        elif in_table:
            lines[k] = TABLE_TIME.sub(b" <t>", line)
    return b"\n".join(lines)


def decompressed(data: bytes) -> tuple[bytes, str]:
    """(content, how it was stored) of a file's bytes: compressed files by their content."""
    for magic, module, name in ((b"\x1f\x8b", gzip, "gzip"), (b"\xfd7zXZ\x00", lzma, "xz"),
                                (b"BZh", bz2, "bzip2")):
        if data.startswith(magic):
            try:
                return module.decompress(data), name
            except (OSError, EOFError, ValueError, lzma.LZMAError):
                return data, f"damaged {name}"
    return data, "plain"


def blob(data: bytes, places: Places, *, how: str = "plain") -> dict:
    """What is recorded of an output (a stream or a file): normalised sha256 and size, and
    the text itself when it is text and not too long."""
    data = normalise(data, places)
    record = {"sha256": _sha256(data), "bytes": len(data)}
    if how != "plain":
        record["stored"] = how
    if len(data) <= TEXT_KEPT:
        try:
            record["text"] = data.decode()
        except UnicodeDecodeError:
            pass
    return record


# --------------------------------------------------------------------------------- running
@dataclasses.dataclass(frozen=True)
class Tree:
    name: str
    path: Path


@dataclasses.dataclass(frozen=True)
class Run:
    """What every case of a run shares: its scratch root (the inputs, the ``sudoku-bridge``
    wrapper, Matplotlib's cache) and the processes running, killed by :meth:`stop`."""
    root: Path
    live: set = dataclasses.field(default_factory=set)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    stopping: threading.Event = dataclasses.field(default_factory=threading.Event)

    @classmethod
    def prepare(cls, root: Path) -> Run:
        shutil.copytree(ROOT / "instances", root / "instances")
        bin_dir = root / "bin"
        bin_dir.mkdir()
        # Scripts, not links: a link to a virtual environment's interpreter from elsewhere
        # would lose the environment (Python finds pyvenv.cfg beside the path it was run as).
        for name, command in ((CLI, f'"{sys.executable}" -m solvers.cli'),
                              ("python", f'"{sys.executable}"')):
            (bin_dir / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
            (bin_dir / name).chmod(0o755)
        (root / "mpl").mkdir()
        (root / "cases").mkdir()
        return cls(root)

    def env(self, tree: Tree, tmp: Path) -> dict:
        keep = {k: v for k, v in os.environ.items()
                if k not in ("PYTHONPATH", "SUDOKU_BRIDGE_DEBUG", "PYTHONSTARTUP", "COLUMNS",
                             "LINES", "TMPDIR", "TREE")}
        return {**keep, "PATH": f"{self.root / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                "PYTHONPATH": str(tree.path), "PYTHONHASHSEED": "0", "COLUMNS": "100",
                "LC_ALL": "C.UTF-8", "TMPDIR": str(tmp), "TREE": str(tree.path),
                "MPLCONFIGDIR": str(self.root / "mpl")}

    def stop(self) -> None:
        """Kill every line running (its process group) and start no other (Ctrl-C, SIGTERM,
        an error): the lines run in sessions of their own, so nothing else stops them."""
        with self.lock:
            self.stopping.set()
            for proc in list(self.live):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)


class Stopped(Exception):
    """The run is being stopped: no line starts."""


def shell(run: Run, line: str, cwd: Path, env: dict) -> tuple[int, bytes, bytes, float]:
    """(exit code, stdout, stderr, seconds) of one line in its own process group, killed at
    ``STEP_LIMIT_S`` (exit code -9 then)."""
    start = time.perf_counter()
    with run.lock:                  # started and registered at once, or not at all (stop)
        if run.stopping.is_set():
            raise Stopped
        proc = subprocess.Popen(["/bin/sh", "-c", line], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        run.live.add(proc)
    try:
        out, err = proc.communicate(timeout=STEP_LIMIT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        err += f"\n<killed at the corpus's {STEP_LIMIT_S} s limit>\n".encode()
    finally:
        with run.lock:
            run.live.discard(proc)
    return proc.returncode, out, err, time.perf_counter() - start


def files_in(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (relative name -> bytes), ``instances`` left out."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if name == "instances" or name.startswith("instances/"):
            continue
        if path.is_file() and not path.is_symlink():
            found[name] = path.read_bytes()
    return found


def changed_files(before: dict[str, bytes], after: dict[str, bytes], places: Places, *,
                  timed: set[str]) -> dict:
    """The files a step created or changed (and those it removed, as None); of a file named
    in ``timed``, only that it is there (and a PNG's size in pixels)."""
    written = {}
    for name, data in after.items():
        if before.get(name) == data:
            continue
        if name in timed:
            written[name] = {"sha256": f"presence only: {_picture_kind(data)}", "bytes": 0}
        else:
            content, how = decompressed(data)
            written[name] = blob(content, places, how=how)
            if how != "plain" and written[name]["sha256"] == _sha256(content):
                written[name]["compressed_sha256"] = _sha256(data)
    for name in before.keys() - after.keys():
        written[name] = None
    return written


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _picture_kind(data: bytes) -> str:
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return f"PNG {int.from_bytes(data[16:20], 'big')}x{int.from_bytes(data[20:24], 'big')}"
    return "a file"


def run_case(run: Run, tree: Tree, name: str, lines: list[str]) -> dict:
    """Run one case on one tree in a fresh scratch directory; its record."""
    work = Path(tempfile.mkdtemp(prefix="case-", dir=run.root / "cases"))
    tmp = Path(f"{work}.tmp")
    tmp.mkdir()
    (work / "instances").symlink_to(run.root / "instances")
    places = Places(case=work, tmp=tmp, tree=tree.path)
    env = run.env(tree, tmp)
    steps, before, wall = [], {}, 0.0
    try:
        for line in lines:
            code, out, err, seconds = shell(run, line, work, env)
            wall += seconds
            after = files_in(work)
            if line.startswith(CLI):
                steps.append({"command": line, "exit": code, "stdout": blob(out, places),
                              "stderr": blob(err, places),
                              "files": changed_files(before, after, places,
                                                     timed=TIMED_FILES.get(name, set()))})
            else:
                steps.append({"prepare": line, "exit": code})
            before = after
        left = sorted(p.name for p in tmp.iterdir())
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return {"steps": steps, "temp_left": len(left), "wall_s": round(wall, 3)}


def run_corpus(trees: list[Tree], cases: list[Case], *, jobs: int,
               progress: bool = True) -> dict[str, dict[str, dict]]:
    """Every case on every tree (a case's runs on the trees next to each other, which tree
    goes first alternating); {tree name: {case name: record}}."""
    results: dict[str, dict[str, dict]] = {tree.name: {} for tree in trees}
    with tempfile.TemporaryDirectory(prefix="behaviour-corpus-") as scratch:
        run = Run.prepare(Path(scratch))
        order = [(tree, name, lines) for k, (name, lines) in enumerate(cases)
                 for tree in (trees if k % 2 == 0 else trees[::-1])]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_case, run, tree, name, lines): (tree, name)
                       for tree, name, lines in order}
            try:
                for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                    tree, name = futures[future]
                    results[tree.name][name] = future.result()
                    if progress and done % 100 == 0:
                        print(f"behaviour-corpus: {done}/{len(order)} runs", file=sys.stderr)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                run.stop()
                raise
    position = {name: k for k, (name, _) in enumerate(cases)}
    return {tree: dict(sorted(found.items(), key=lambda kv: position[kv[0]]))
            for tree, found in results.items()}


def check_tree(tree: Tree) -> None:
    """Refuse (exit 2) a tree whose ``solvers`` and ``reductions`` do not import from it."""
    code = "import reductions, solvers; print(solvers.__file__); print(reductions.__file__)"
    env = {**os.environ, "PYTHONPATH": str(tree.path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, cwd=tempfile.gettempdir(), timeout=60)
    where = done.stdout.split()
    if done.returncode != 0 or len(where) != 2 or not all(
            Path(w).resolve().is_relative_to(tree.path.resolve()) for w in where):
        refuse(f"{tree.path}: its packages do not import from it "
               f"({' '.join(done.stdout.split()) or done.stderr.strip()[-300:]})")


def refuse(message: str) -> None:
    """Bad usage: one line on stderr, exit 2."""
    print(f"behaviour-corpus: {message}", file=sys.stderr)
    raise SystemExit(2)


# --------------------------------------------------------------------------------- compare
def command_count(records: dict[str, dict]) -> int:
    return sum(1 for record in records.values() for step in record["steps"] if "command" in step)


def _first_lines(left: dict | None, right: dict | None) -> list[str]:
    """The first differing lines of two recorded outputs (or why they cannot be shown)."""
    if left is None or right is None:
        return [f"  {'missing' if left is None else 'present'} -> "
                f"{'missing' if right is None else 'present'}"]
    if left["sha256"] == right["sha256"]:
        return ["  the same content, compressed into other bytes"]
    if "text" not in left or "text" not in right:
        return [f"  sha256 {left['sha256'][:12]} ({left['bytes']} bytes) -> "
                f"{right['sha256'][:12]} ({right['bytes']} bytes)"]
    a, b = left["text"].splitlines(), right["text"].splitlines()
    shown = []
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "<no line>"
        y = b[k] if k < len(b) else "<no line>"
        if x != y:
            x, y = _around_first_difference(x, y)
            shown += [f"  line {k + 1}: - {x}", f"  line {k + 1}: + {y}"]
            if len(shown) >= 2 * DIFF_LINES:
                break
    return shown or ["  the same lines, different line ends or final newline"]


def _around_first_difference(x: str, y: str, width: int = 160) -> tuple[str, str]:
    """Two differing lines, cut to ``width`` characters around their first difference."""
    if max(len(x), len(y)) <= width:
        return x, y
    at = next((k for k, (a, b) in enumerate(zip(x, y)) if a != b), min(len(x), len(y)))
    start = max(at - width // 4, 0)
    cut = (lambda line: ("..." if start else "") + line[start:start + width] +
           ("..." if len(line) > start + width else ""))
    return cut(x), cut(y)


def _same(left: dict | None, right: dict | None) -> bool:
    if left is None or right is None:
        return left is right
    return (left["sha256"] == right["sha256"]
            and left.get("compressed_sha256") == right.get("compressed_sha256"))


def step_differences(left: dict, right: dict) -> list[str]:
    """What differs between two records of the same step (empty when identical)."""
    out = []
    if left.get("exit") != right.get("exit"):
        out.append(f"  exit {left.get('exit')} -> {right.get('exit')}")
    if "command" not in left:
        return out
    for stream in ("stdout", "stderr"):
        if not _same(left[stream], right[stream]):
            out += [f" {stream}:"] + _first_lines(left[stream], right[stream])
    for name in sorted(left["files"].keys() | right["files"].keys()):
        a, b = left["files"].get(name), right["files"].get(name)
        if name not in left["files"] or name not in right["files"] or not _same(a, b):
            out += [f" file {name}:"] + _first_lines(a, b)
    return out


def compare(left: dict[str, dict], right: dict[str, dict]) -> tuple[int, list[str]]:
    """(identical commands, report lines for each command that differs)."""
    identical, report = 0, []
    for name in [*left, *(name for name in right if name not in left)]:
        if name not in left or name not in right:
            report.append(f"{name}: run on one side only")
            continue
        a, b = left[name], right[name]
        for k in range(max(len(a["steps"]), len(b["steps"]))):
            x = a["steps"][k] if k < len(a["steps"]) else {}
            y = b["steps"][k] if k < len(b["steps"]) else {}
            found = step_differences(x, y)
            if found:
                line = x.get("command") or x.get("prepare") or y.get("command") or y.get("prepare")
                report += [f"{name} [{k + 1}]: {line}", *found]
            elif "command" in x:
                identical += 1
        if a["temp_left"] != b["temp_left"]:
            report.append(f"{name}: temporary files left {a['temp_left']} -> {b['temp_left']}")
    return identical, report


# ------------------------------------------------------------------------------ the script
def select(pattern: str | None) -> list[Case]:
    if not pattern:
        return CASES
    return [(name, lines) for name, lines in CASES
            if pattern in name or any(pattern in line for line in lines)]


def describe(tree: Tree) -> dict:
    head = subprocess.run(["git", "-C", str(tree.path), "rev-parse", "HEAD"],
                          capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(tree.path), "status", "--porcelain"],
                           capture_output=True, text=True)
    return {"tree": str(tree.path), "commit": head.stdout.strip() or None,
            "uncommitted_changes": bool(dirty.stdout.strip()) if head.returncode == 0 else None}


def snapshot(tree: Tree, records: dict[str, dict], seconds: float) -> dict:
    """The run's description and records; the files written by their sha256 and size only
    (their texts, kept for the diff's lines, would make it ten times larger)."""
    records = copy.deepcopy(records)
    for record in records.values():
        for step in record["steps"]:
            for written in step.get("files", {}).values():
                if written:
                    written.pop("text", None)
    return {**describe(tree), "python": sys.version.split()[0], "machine": platform.platform(),
            "programs_found": [t for t in TOOLS if shutil.which(t)],
            "commands": command_count(records), "cases": len(records),
            "seconds": round(seconds, 1), "records": records}


@contextlib.contextmanager
def worktree(rev: str):
    """A temporary ``git worktree`` of ``rev`` (removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="behaviour-baseline-") as tmp:
        path = Path(tmp) / "baseline"
        made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q",
                               str(path), rev], capture_output=True, text=True)
        if made.returncode != 0:
            refuse(f"git worktree add {rev}: {made.stderr.strip()}")
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                           capture_output=True, check=False)


def slowest(records: dict[str, dict], count: int = 8) -> str:
    ranked = sorted(records.items(), key=lambda kv: -kv[1]["wall_s"])[:count]
    return ", ".join(f"{name} {record['wall_s']:.1f} s" for name, record in ranked)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the source tree under test (default: this checkout)")
    parser.add_argument("--out", type=Path, help="write the snapshot (JSON) here")
    parser.add_argument("--baseline", metavar="REV",
                        help="also run a git worktree of REV and compare (exit 4 on differences)")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--filter", metavar="SUBSTR",
                        help="only the cases whose name or a line contains SUBSTR")
    parser.add_argument("--list", action="store_true", help="print the cases and stop")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs: give a number from 1 up")
    return args


def _terminated(signum, frame) -> None:
    raise SystemExit(143)           # unwinds through run_corpus, which stops every line


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminated)
    cases = select(args.filter)
    if args.list:
        for name, lines in cases:
            print(name + "".join(f"\n    {line}" for line in lines))
        return 0
    if not cases:
        refuse(f"no case matches {args.filter!r}")
    tree = Tree("under test", args.tree.resolve())
    with contextlib.ExitStack() as stack:
        trees = [tree]
        if args.baseline:
            baseline = Tree(f"baseline {args.baseline}",
                            stack.enter_context(worktree(args.baseline)))
            trees.append(baseline)
        for each in trees:
            check_tree(each)
        start = time.perf_counter()
        results = run_corpus(trees, cases, jobs=args.jobs)
        seconds = time.perf_counter() - start
    records = results[tree.name]
    print(f"behaviour-corpus: {len(cases)} cases, {command_count(records)} commands on "
          f"{len(trees)} tree(s) in {seconds:.1f} s (--jobs {args.jobs}); slowest: "
          f"{slowest(records)}", file=sys.stderr)
    if args.out:
        args.out.write_text(json.dumps(snapshot(tree, records, seconds), indent=1) + "\n")
    if not args.baseline:
        return 0
    identical, report = compare(results[baseline.name], records)
    print("\n".join(report + [f"identical: {identical} of {command_count(records)} commands "
                              f"({args.baseline} -> {tree.path})"]))
    return 0 if not report else 4


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:       # every line already stopped, the scratch folders removed
        print("behaviour-corpus: interrupted", file=sys.stderr)
        sys.exit(130)
