"""Inputs for fuzzing every reader through the command line, and the contract they are judged by.

Used by ``tests/solvers/formats/test_fuzz_readers.py`` (hypothesis drives :func:`mutate`) and by
``benchmarks/fuzz_cli.py`` (a seeded ``random.Random`` drives it, and the same cases run on
any checkout of the project, e.g. an old commit, for before/after figures).

* :func:`seed_files` writes valid files of every kind for one 4×4 puzzle: the instances
  ``emit`` writes, and the answers an outside solver would give (built from the known solution
  by each reduction's forward map).
* :data:`READERS`: one entry per (command, file read): the files it needs, which one is
  mutated, and the command line.
* :func:`mutate` changes a file: lines dropped, repeated or swapped, tokens replaced by huge,
  negative or absurd values, random bytes (NUL, invalid UTF-8), truncation, very long lines;
  and a quarter of the time compresses the result (gzip, xz or bzip2, which every reader
  takes by content), most often damaging the compressed bytes too (cut short, bytes
  flipped, garbage after the end, a broken header).
* :func:`violations` says how a run broke the contract (empty list: it kept it).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import random
import re
from dataclasses import dataclass
from pathlib import Path

from reductions.encodings.cnf import sudoku_cnf
from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.sudoku.grid import Grid, check_solution, format_grid, parse_grid

from .conftest import instance_pairs

PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]
CONTRACT = (0, 1, 2, 3, 4)
"""Exit codes a run may end with whatever its input: solved, no solution, bad input,
unknown, wrong answer (70, an internal error, means a traceback)."""

SPECIAL_TOKENS = ["0", "-0", "-1", "1", "99999999999999999999999999",
                  "-99999999999999999999999999", "1" * 5000, "1e9", "nan", "inf", "0x10",
                  "\x00", "é", "\udcff", "v", "s", "SAT", "UNSAT", "|", ":", "-", "EOF",
                  "TOUR_SECTION", "DIMENSION", "{", "}", "\"", "x_0_0_1", "p cnf 3 1",
                  "2147483648", "18446744073709551617"]


@dataclass(frozen=True)
class Reader:
    """A command reading files: ``files`` maps each file name to its seed, ``mutated`` is
    the file changed, ``argv`` the command line (file names as written in ``files``);
    ``decodes`` when its stdout on exit 0 holds grids that must solve :data:`PUZZLE`."""

    files: dict[str, str]
    mutated: str
    argv: tuple[str, ...]
    decodes: bool = False


def _decode(target: str, instance: str, answer: str, mutated: str) -> Reader:
    name = f"p.{instance}"
    return Reader({name: instance, "answer": answer}, name if mutated == "instance" else mutated,
                  ("decode", target, name, "answer"), decodes=True)


HCP_FILES = {"g.hcp": "hcp", "g.hcp.json": "hcp.json", "tour": "hcp tour"}

READERS: dict[str, Reader] = {
    "decode cnf: s/v answer": _decode("cnf", "cnf", "cnf answer", "answer"),
    "decode cnf: MiniSat result": _decode("cnf", "cnf", "minisat answer", "answer"),
    "decode cnf: the CNF": _decode("cnf", "cnf", "cnf answer", "instance"),
    "decode exact-cover: dlx1 output": _decode("exact-cover", "dlx", "cover answer", "answer"),
    "decode exact-cover: option numbers": _decode("exact-cover", "dlx", "cover numbers",
                                                  "answer"),
    "decode exact-cover: the matrix": _decode("exact-cover", "dlx", "cover answer",
                                              "instance"),
    "decode ilp: CBC solution": _decode("ilp", "lp", "cbc answer", "answer"),
    "decode ilp: the LP file": _decode("ilp", "lp", "cbc answer", "instance"),
    "decode hcp: tour": Reader(HCP_FILES, "tour", ("decode", "hcp", "g.hcp", "tour"), True),
    "decode hcp: graph": Reader(HCP_FILES, "g.hcp", ("decode", "hcp", "g.hcp", "tour"), True),
    "decode hcp: sidecar": Reader(HCP_FILES, "g.hcp.json", ("decode", "hcp", "g.hcp", "tour"),
                                  True),
    "verify: puzzle": Reader({"p.txt": "puzzle", "g.txt": "solution"}, "p.txt",
                             ("verify", "p.txt", "g.txt")),
    "verify: grid": Reader({"p.txt": "puzzle", "g.txt": "solution"}, "g.txt",
                           ("verify", "p.txt", "g.txt")),
    "solve: puzzle file": Reader({"p.txt": "puzzle"}, "p.txt",
                                 ("solve", "p.txt", "--time-limit", "5")),
    "nishio: cell set": Reader({"s.txt": "cell set"}, "s.txt", ("nishio", "s.txt")),
    "nonrepetitive: edge list": Reader({"g.txt": "edges"}, "g.txt",
                                       ("nonrepetitive", "g.txt", "--cyclic-edges")),
    "gadget nishio: formula": Reader({"f.cnf": "formula"}, "f.cnf",
                                     ("gadget", "nishio", "f.cnf", "-o", "out.txt")),
    "gadget nrpath: formula": Reader({"f.cnf": "formula"}, "f.cnf",
                                     ("gadget", "nrpath", "f.cnf", "-o", "out.txt")),
    "crosscheck --resume: results": Reader(
        {"p.txt": "puzzle", "r.jsonl": "results"}, "r.jsonl",
        ("crosscheck", "p.txt", "--routes", "sat,exact-cover", "--json", "r.jsonl",
         "--resume", "--jobs", "1")),
}


def run_main(main, argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process with stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def seed_files(directory: Path) -> dict[str, bytes]:
    """Valid files of every kind (see the module docstring), by seed name."""
    from solvers.cli import main
    puzzle = format_grid(PUZZLE)
    files: dict[str, bytes] = {}
    for target, suffix in (("cnf", "cnf"), ("exact-cover", "dlx"), ("ilp", "lp")):
        path = directory / f"p.{suffix}"
        assert run_main(main, ["emit", target, puzzle, "-o", path])[0] == 0
        files[suffix] = path.read_bytes()
    graph = directory / "g.hcp"
    assert run_main(main, ["emit", "hcp", puzzle, "-o", graph, "--reduce",
                           "--prune", "peers"])[0] == 0
    files["hcp"] = graph.read_bytes()
    files["hcp.json"] = Path(f"{graph}.json").read_bytes()

    n = PUZZLE.size
    cnf = sudoku_cnf(PUZZLE, "extended", "auto", "units")
    model = [v if SOLUTION.values[(v - 1) // (n * n), (v - 1) // n % n] == (v - 1) % n + 1
             else -v for v in range(1, cnf.num_vars + 1)]
    literals = " ".join(map(str, model))
    files["cnf answer"] = f"s SATISFIABLE\nv {literals} 0\n".encode()
    files["minisat answer"] = f"SAT\n{literals} 0\n".encode()

    cover = sudoku_exact_cover(PUZZLE, "keep")
    chosen = cover.options_from_grid(SOLUTION)
    files["cover answer"] = ("1:\n" + "\n".join(" " + " ".join(cover.option_names(int(o)))
                                                 + " (1 of 2)" for o in chosen)
                             + "\nAltogether 1 solution\n").encode()
    files["cover numbers"] = " ".join(str(int(o) + 1) for o in chosen).encode()

    rows = ["Optimal - objective value 0.00000000"]
    index = 0
    for r in range(n):
        for c in range(n):
            for digit in range(1, n + 1):
                value = int(SOLUTION.values[r, c] == digit)
                rows.append(f"{index:>7} x_{r}_{c}_{digit} {value:>15} 0")
                index += 1
    files["cbc answer"] = ("\n".join(rows) + "\n").encode()

    from solvers.formats.sidecar import load_hcp_export
    pipeline, _ = load_hcp_export(graph)
    order = pipeline.tour_of_solution(SOLUTION) + 1
    files["hcp tour"] = (f"NAME : t\nTYPE : TOUR\nDIMENSION : {len(order)}\nTOUR_SECTION\n"
                         + "\n".join(map(str, order)) + "\n-1\nEOF\n").encode()
    files["puzzle"] = (puzzle + "\n").encode()
    files["solution"] = (format_grid(SOLUTION, "pretty") + "\n").encode()
    files["formula"] = b"c small\np cnf 4 3\n1 -2 3 0\n-1 2 0\n2 4 -3 0\n"
    files["edges"] = b"# labelled edges\nundirected\n0 1 a\n1 2 b\n2 0 a\n2 3 c\n3 0 b\n"
    formula = directory / "f.cnf"
    formula.write_bytes(files["formula"])
    assert run_main(main, ["gadget", "nishio", formula, "-o", directory / "s.txt"])[0] == 0
    files["cell set"] = (directory / "s.txt").read_bytes()
    (directory / "p.txt").write_bytes(files["puzzle"])
    assert run_main(main, ["crosscheck", directory / "p.txt", "--routes", "sat,exact-cover",
                           "--json", directory / "r.jsonl", "--jobs", "1"])[0] == 0
    files["results"] = (directory / "r.jsonl").read_bytes()
    return files


def mutate(seed: bytes, rng: random.Random) -> bytes:
    """``seed`` after one to four random changes (see the module docstring)."""
    lines = seed.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        lines = lines or [b""]
        kind = rng.choice(["drop", "repeat", "swap", "token", "bytes", "cut", "long", "blank"])
        i = rng.randrange(len(lines))
        if kind == "drop" and len(lines) > 1:
            del lines[i]
        elif kind == "repeat":
            lines.insert(i, lines[i])
        elif kind == "swap" and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            tokens = lines[i].split(b" ")
            k = rng.randrange(len(tokens))
            tokens[k] = rng.choice(SPECIAL_TOKENS).encode("utf-8", "surrogatepass")
            lines[i] = b" ".join(tokens)
        elif kind == "bytes":
            at = rng.randint(0, len(lines[i]))
            noise = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            lines[i] = lines[i][:at] + noise + lines[i][at:]
        elif kind == "cut":
            lines = lines[:i]
        elif kind == "long":
            lines.insert(i, b"7" * rng.choice([200, 4301, 20_000, 1_000_000]))
        elif kind == "blank":
            lines.insert(i, b"   \t ")
    data = b"\n".join(lines)
    return compressed_mutation(data, rng) if rng.random() < 0.25 else data


COMPRESS = {"gz": lambda data: gzip.compress(data, 9, mtime=0),
            "xz": lambda data: lzma.compress(data, preset=6),
            "bz2": lambda data: bz2.compress(data, 9)}
"""The compressed forms every reader recognises by their first bytes."""


def compressed_mutation(data: bytes, rng: random.Random) -> bytes:
    """``data`` compressed, then (three times in four) damaged: cut short, bytes flipped,
    garbage after the end, or a byte of the header changed."""
    packed = bytearray(COMPRESS[rng.choice(sorted(COMPRESS))](data))
    damage = rng.choice(["none", "cut", "flip", "trailing", "header"])
    if damage == "cut":
        del packed[rng.randint(1, len(packed) - 1):]
    elif damage == "flip":
        for _ in range(rng.randint(1, 4)):
            packed[rng.randrange(len(packed))] ^= 1 << rng.randrange(8)
    elif damage == "trailing":
        packed += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif damage == "header":
        packed[rng.randrange(2, min(12, len(packed)))] = rng.randrange(256)
    return bytes(packed)


def write_case(directory: Path, reader: Reader, seeds: dict[str, bytes],
               data: bytes) -> list[str]:
    """Write the reader's files into ``directory`` (the mutated one as ``data``); returns the
    command line with absolute paths."""
    for name, seed in reader.files.items():
        (directory / name).write_bytes(data if name == reader.mutated else seeds[seed])
    return [str(directory / a) if a in reader.files or a == "out.txt" else a
            for a in reader.argv]


def violations(reader: Reader, code: int, out: str, err: str) -> list[str]:
    """How this run broke the contract (an empty list when it kept it)."""
    found = []
    if code == 70 or "Traceback (most recent call last)" in err:
        found.append("traceback")
    if code not in CONTRACT:
        found.append(f"exit {code}")
    if code == 4 and out:
        found.append("output on a wrong answer")
    if code == 0 and reader.decodes:
        blocks = [b for b in re.split(r"solution \d+:\n", out) if b.strip()]
        try:
            ok = bool(blocks) and all(
                check_solution(PUZZLE, parse_grid(b, PUZZLE.shape, check=False))
                for b in blocks)
        except ValueError:
            ok = False
        if not ok:
            found.append("invalid grid on stdout")
    elif code != 0 and _holds_a_grid(out):
        found.append("grid on stdout after a failure")
    return found


def _holds_a_grid(out: str) -> bool:
    try:
        grid = parse_grid(out, PUZZLE.shape, check=False)
    except ValueError:
        return False
    return isinstance(grid, Grid) and grid.size == PUZZLE.size
