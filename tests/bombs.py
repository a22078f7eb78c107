"""Decompression bombs and huge inputs for every reader, and the fake solvers that answer with
them: the cases of the bounded-reading issue (22), built in a moment.

A bomb is written as concatenated compressed members (gzip, xz and bzip2 all read on from
one member into the next): one member holds about a MiB of the repeated body, and repeating
that member N times makes a small file that expands to N MiB — a 1 GiB bomb in about a MB,
built without compressing a GiB.

Used by ``tests/reductions/test_reading.py`` (every bomb must be answered with exit 2, in
seconds, under a 3 GiB address-space limit) and ``benchmarks/bombs.py`` (the same runs with
their time and peak memory, on this checkout and on others).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .conftest import INSTANCES, instance_pairs
from .fuzz_inputs import COMPRESS, run_main

GIB = 1 << 30
MEMBER = 1 << 20
"""Bytes of body in one compressed member."""

PUZZLE_4, SOLUTION_4 = instance_pairs("4x4.txt")[0]
PAPER_17 = (INSTANCES / "haythorpe-17clue.txt").read_text().split()[0]


def expanding(kind: str, body: bytes, total: int, *, head: bytes = b"") -> bytes:
    """``head`` then ``body`` repeated to about ``total`` bytes, compressed (``kind``: gz, xz,
    bz2) as repeated members; ``kind`` "plain" gives the bytes themselves."""
    chunk = body * max(1, MEMBER // len(body))
    count = max(1, (total - len(head)) // len(chunk))
    if kind == "plain":
        return head + chunk * count
    compress = COMPRESS[kind]
    return (compress(head) if head else b"") + compress(chunk) * count


@dataclass(frozen=True)
class Bomb:
    """A command and its files: ``files`` maps a name to its bytes (built on demand by
    :func:`build`), ``argv`` names them as written; ``scripts`` are fake programs (a shell
    body, ``$BOMB`` the path of the file named ``bomb``), named by ``{script:NAME}``."""

    argv: tuple[str, ...]
    files: dict[str, tuple] = field(default_factory=dict)
    scripts: dict[str, str] = field(default_factory=dict)


def _emitted(target: str, puzzle: str, name: str) -> tuple:
    return ("emit", target, puzzle, name)


BOMBS: dict[str, Bomb] = {
    "solve: 1 GiB of zeros (gzip)": Bomb(
        ("solve", "z.gz"), {"z.gz": ("gz", b"\0", GIB)}),
    "solve: 1 GiB of '1', one line (gzip)": Bomb(
        ("solve", "ones.gz"), {"ones.gz": ("gz", b"1", GIB)}),
    "solve: 1 GiB of puzzle lines (xz)": Bomb(
        ("solve", "many.xz"), {"many.xz": ("xz", (PAPER_17 + "\n").encode(), GIB)}),
    "solve: a puzzle, then 1 GiB of short lines (bzip2)": Bomb(
        ("solve", "short.bz2"), {"short.bz2": ("bz2", b"x\n", GIB, (PAPER_17 + "\n").encode())}),
    "decode cnf: a SAT answer (gzip)": Bomb(
        ("decode", "cnf", "p.cnf", "answer.gz"),
        {"p.cnf": _emitted("cnf", PAPER_17, "p.cnf"),
         "answer.gz": ("gz", b"1 -2 ", GIB, b"s SATISFIABLE\nv ")}),
    "decode hcp: a tour (xz)": Bomb(
        ("decode", "hcp", "g.hcp", "tour.xz"),
        {"g.hcp": _emitted("hcp", PAPER_17, "g.hcp"), "tour.xz": ("xz", b"1\n", GIB)}),
    "decode hcp: a sidecar (gzip)": Bomb(
        ("decode", "hcp", "g.hcp", "tour"),
        {"g.hcp": _emitted("hcp", PAPER_17, "g.hcp"),
         "g.hcp.json": ("gz", b"x", GIB, b'{"format": "'), "tour": ("plain", b"1\n", 10)}),
    "nonrepetitive: an edge list (gzip)": Bomb(
        ("nonrepetitive", "g.gz", "--cyclic-edges"), {"g.gz": ("gz", b"0 1 a\n", GIB, b"undirected\n")}),
    "nishio: a cell set (bzip2)": Bomb(
        ("nishio", "s.bz2"), {"s.bz2": ("bz2", b"#", GIB)}),
    "gadget nishio: a 1 GiB token (gzip)": Bomb(
        ("gadget", "nishio", "f.gz", "-o", "out.txt"),
        {"f.gz": ("gz", b"1", GIB, b"p cnf 3 1\n")}),
    "solve --solver-cmd: a 1 GiB {output} file": Bomb(
        ("solve", PAPER_17, "--solver-cmd", "{script:flood} {input} {output}"),
        scripts={"flood": 'yes "v 1 -2 3" | head -c 1073741824 > "$2"\n'}),
    "solve --hcp-cmd: a 10 MB gzip {output} of 10 GiB": Bomb(
        ("solve", PAPER_17, "--via", "hcp", "--hcp-cmd", "{script:copy} {input} {output}"),
        {"bomb": ("gz", b"1\n", 10 * GIB)},
        scripts={"copy": 'cp "$BOMB" "$2"\n'}),
}
"""Every bomb of the issue: a name, and the command it is given to."""


def build(bomb: Bomb, directory: Path, make_script) -> list[str]:
    """Write ``bomb``'s files into ``directory`` (``make_script(name, body)`` makes a fake
    program and returns its path); returns the command line with absolute paths."""
    from solvers.cli import main
    for name, spec in bomb.files.items():
        path = directory / name
        if spec[0] == "emit":
            _, target, puzzle, _ = spec
            code, _, err = run_main(main, ["emit", target, puzzle, "-o", path])
            assert code == 0, err
            continue
        kind, body, total, *head = spec
        path.write_bytes(expanding(kind, body, total, head=head[0] if head else b""))
    scripts = {name: str(make_script(name, body.replace("$BOMB", str(directory / "bomb"))))
               for name, body in bomb.scripts.items()}
    argv = []
    for arg in bomb.argv:
        for name, path in scripts.items():
            arg = arg.replace(f"{{script:{name}}}", path)
        argv.append(str(directory / arg) if arg in bomb.files or arg == "out.txt" else arg)
    return argv

