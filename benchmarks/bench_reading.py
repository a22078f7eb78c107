"""Memory and time of the puzzle reader per input byte, on this checkout and on others.

    python benchmarks/bench_reading.py [--checkout OLD_CHECKOUT ...] [--rounds 3]

Each case runs in a fresh child process with the checkout on PYTHONPATH (and the scratch
directory as its working directory, so that no other checkout is imported): it imports the
reader, resets the kernel's peak-RSS mark (``/proc/self/clear_refs``), reads the file with
``reductions.sudoku.puzzle_files.load_puzzles`` (every puzzle read and parsed, as ``verify``,
``emit`` and ``rules`` do; the ``solve`` batch path reads the texts only: ``puzzle_texts``, measured
too) and prints the added peak RSS and the wall time. Memory per input byte = added peak ÷ file
size. Results: ``benchmarks/results/reading.md``.

Cases: the 49,151-puzzle 17-clue set (the shared data set, when present), a file of 10,000
one-line 35×35 puzzles, the largest grid (255×255, whitespace-separated integers, one
multi-line grid), and an 8 MiB one-line "puzzle" of ``1`` characters (the issue's case: it
is not a puzzle; a bounded reader refuses it at the first impossible line).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "sudoku" / "royle-17clue-49151.txt"
RESULTS = ROOT / "benchmarks" / "results"

_CHILD = r"""
import json, sys, time
from reductions.sudoku import puzzle_files
path, step = sys.argv[1], sys.argv[2]
def status():
    out = {}
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            out[key] = int(value.split()[0]) * 1024
    return out
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")
before = status()
start = time.perf_counter()
error = None
try:
    if step == "texts":
        count = len(puzzle_files.puzzle_texts(path))
    else:
        count = len(puzzle_files.load_puzzles(path, check=False))
except Exception as exc:
    count, error = 0, f"{type(exc).__name__}: {str(exc)[:120]}"
seconds = time.perf_counter() - start
after = status()
print(json.dumps({"peak": after["VmHWM"] - before["VmRSS"], "seconds": seconds,
                  "count": count, "error": error}))
"""


def make_cases(directory: Path) -> dict[str, Path]:
    cases = {}
    if SHARED.exists():
        cases["17-clue set (49,151 lines)"] = SHARED
    sys.path.insert(0, str(ROOT))
    from reductions.sudoku.grid import Shape, format_grid, pattern_solution
    big = format_grid(pattern_solution(Shape(5, 7)), "line")
    path = directory / "35x35-10000.txt"
    path.write_text((big + "\n") * 10_000)
    cases["10,000 one-line 35x35 puzzles"] = path
    path = directory / "255x255.txt"
    path.write_text(format_grid(pattern_solution(Shape(15, 17)), "ints") + "\n")
    cases["one 255x255 grid of integers"] = path
    path = directory / "ones-8MiB.txt"
    path.write_bytes(b"1" * (8 << 20))
    cases["8 MiB one-line '1' file"] = path
    return cases


def run(checkout: Path, path: Path, step: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path), step], env=env,
                          cwd=path.parent, capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", action="append", default=[])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    checkouts = [ROOT] + [Path(c).resolve() for c in args.checkout]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-reading-") as tmp:
        for name, path in make_cases(Path(tmp)).items():
            size = path.stat().st_size
            for step in ("texts", "parsed"):
                for round_ in range(args.rounds):          # checkouts take turns
                    for checkout in checkouts:
                        result = run(checkout, path, step)
                        rows.append({"case": name, "step": step, "checkout": str(checkout),
                                     "bytes": size, **result})
    lines = ["| case | step | checkout | MB in | peak MB | bytes/byte | seconds | puzzles |"
             " note |", "|---|---|---|---|---|---|---|---|---|"]
    keys = dict.fromkeys((r["case"], r["step"], r["checkout"]) for r in rows)   # in order
    for case, step, checkout in keys:
        mine = [r for r in rows if (r["case"], r["step"], r["checkout"]) == (case, step,
                                                                           checkout)]
        peak = statistics.median(r["peak"] for r in mine)
        seconds = statistics.median(r["seconds"] for r in mine)
        size = mine[0]["bytes"]
        note = (mine[0]["error"] or "")[:90].replace("|", "/")
        label = Path(checkout).name
        lines.append(f"| {case} | {step} | {label} | {size / 1e6:.1f} | {peak / 1e6:.1f} | "
                     f"{peak / size:.1f} | {seconds:.3f} | {mine[0]['count']:,} | {note} |")
    table = "\n".join(lines)
    print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "reading.md").write_text(
        "# The puzzle reader: memory per input byte and time\n\n`python benchmarks/"
        "bench_reading.py" + "".join(f" --checkout {c}" for c in args.checkout)
        + f" --rounds {args.rounds}` (medians; peak = added peak RSS of a fresh process)."
        "\n\n" + table + "\n")


if __name__ == "__main__":
    main()
