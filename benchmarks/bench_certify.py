"""What does certified uniqueness cost? Per puzzle, beside uncertified ``--unique``, in the
same run on one core.

    python benchmarks/bench_certify.py [--puzzles FILE] [--limit N] [--solver cadical195]
                                       [--checkers cake_lpr,drat-trim,dratify]
                                       [--modes uncertified,single,batch] [--out NAME]

Modes (each over the same puzzles, one after the other, in this process):

* ``uncertified`` — the sat route, one puzzle at a time (``solve_puzzle``, clue units,
  ``unique=True``): the solver's word;
* ``uncertified-file`` — the path ``solve FILE --unique`` takes (one incremental solver,
  the clues as assumptions, forced digits first): the solver's word, as fast as it comes;
* ``single``   — :func:`solvers.certify.sudoku.certified_solve` per puzzle and checker:
  proof logging (both solver calls with ``with_proof``, the formula and proof written) and
  checking (one checker run per puzzle: its start-up included) timed apart;
* ``batch``    — :func:`solvers.certify.batch.certified_batch` in batches
  (:func:`~solvers.certify.batch.batch_size`: 1,000, dratify 100) per checker: one proof
  and one check a batch,
  the per-puzzle figures are the batch's shares (its proof logging, its one check).

Every certified answer must be certified (``unique`` True with the checker named) or the run
stops: the figures are for answers that were really checked. Reported: median and p90 per
puzzle (ms), the total and the count of certified claims. drat-trim and cake_lpr are found
on PATH or through $SUDOKU_BRIDGE_DRAT_TRIM / $SUDOKU_BRIDGE_CAKE_LPR; a checker that is
missing is skipped and shown so.

Results: ``benchmarks/results/NAME.md`` and ``NAME.json`` (default ``certify``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.puzzle_files import read_puzzles
from solvers.certify.batch import batch_size, certified_batch  # noqa: E402
from solvers.certify.checkers import CHECKERS, CheckerUnavailable, find_checker  # noqa: E402
from solvers.certify.refutation import CertifyOptions  # noqa: E402
from solvers.certify.sudoku import certified_solve  # noqa: E402
from solvers.routes.sat import solve_puzzle  # noqa: E402

MEMORY = 2 << 30


def quantiles(values: list[float]) -> dict:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return {"median_ms": round(statistics.median(ordered) * 1000, 2),
            "p90_ms": round(p90 * 1000, 2)}


def run_uncertified(puzzles, solver: str) -> dict:
    times = []
    start = time.perf_counter()
    for puzzle in puzzles:
        began = time.perf_counter()
        outcome = solve_puzzle(puzzle, solver=solver, clues="units", unique=True)
        times.append(time.perf_counter() - began)
        assert outcome.unique is not None
    return {"mode": "uncertified", "checker": "-", "total_s": time.perf_counter() - start,
            "per_puzzle": quantiles(times), "certified": 0}


def run_uncertified_file(puzzles, solver: str) -> dict:
    """The path ``solve FILE --unique`` takes: one incremental solver, clues as
    assumptions, chunks of puzzles (:func:`solvers.routes.sat_batch.solve_batch_chunks`)."""
    import numpy as np
    from solvers.routes.sat_batch import solve_batch_chunks
    clues = [p.values.ravel().astype(np.uint8) for p in puzzles]
    start = time.perf_counter()
    seconds = []
    for chunk in solve_batch_chunks(clues, puzzles[0].shape, solver=solver, unique=True):
        assert (chunk.unique >= 0).all()
        seconds += chunk.seconds.tolist()
    return {"mode": "uncertified-file", "checker": "-", "total_s": time.perf_counter() - start,
            "per_puzzle": quantiles(seconds), "certified": 0}


def run_single(puzzles, solver: str, checker) -> dict:
    certify = CertifyOptions(checker, MEMORY)
    logging, checking, whole = [], [], []
    start = time.perf_counter()
    for puzzle in puzzles:
        outcome = certified_solve(puzzle, certify=certify, solver=solver, unique=True)
        _require_certified(outcome, checker.name)
        whole.append(outcome.stats["seconds"])
        checking.append(outcome.stats.get("check_seconds", 0.0))
        logging.append(whole[-1] - checking[-1])
    return {"mode": "single", "checker": checker.name, "total_s": time.perf_counter() - start,
            "per_puzzle": quantiles(whole), "logging": quantiles(logging),
            "checking": quantiles(checking), "certified": len(puzzles)}


def run_batch(puzzles, solver: str, checker) -> dict:
    certify = CertifyOptions(checker, MEMORY)
    shares, checking, checks, certified = [], [], [], 0
    start = time.perf_counter()
    size = batch_size(checker.name)
    for first in range(0, len(puzzles), size):
        chunk = puzzles[first:first + size]
        began = time.perf_counter()
        outcomes = certified_batch(chunk, certify=certify, name="bench", solver=solver,
                                   unique=True)
        spent = time.perf_counter() - began
        for outcome in outcomes:
            _require_certified(outcome, checker.name)
        certified += len(outcomes)
        check = outcomes[0].stats.get("check_seconds", 0.0)
        shares += [spent / len(chunk)] * len(chunk)
        checking += [check / len(chunk)] * len(chunk)
        checks.append({"puzzles": len(chunk), "seconds": round(spent, 3),
                       "check_seconds": round(check, 3),
                       "proof_bytes": outcomes[0].stats.get("proof_bytes")})
    total = time.perf_counter() - start
    return {"mode": "batch", "checker": checker.name, "total_s": total,
            "per_puzzle": quantiles(shares),
            "logging": quantiles([a - b for a, b in zip(shares, checking)]),
            "checking": quantiles(checking), "batches": checks, "certified": certified}


def _require_certified(outcome, checker: str) -> None:
    if outcome.unique is not True or outcome.stats.get("certified") != checker:
        raise SystemExit(f"not certified: {outcome.status} unique={outcome.unique} "
                         f"{outcome.stats}")


def table(rows: list[dict], count: int, source: str) -> str:
    lines = [f"Certified uniqueness, {count} puzzles of {source}, one core "
             f"({platform.machine()}, Python {platform.python_version()}).", "",
             "| mode | checker | per puzzle median / p90 (ms) | proof logging median / p90 "
             "(ms) | checking median / p90 (ms) | total (s) | certified |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        def pair(key):
            part = row.get(key)
            return f"{part['median_ms']} / {part['p90_ms']}" if part else "–"
        lines.append(f"| {row['mode']} | {row['checker']} | {pair('per_puzzle')} | "
                     f"{pair('logging')} | {pair('checking')} | {row['total_s']:.2f} | "
                     f"{row['certified']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", default=str(ROOT / "instances" / "royle17-sample300.txt"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--solver", default="cadical195")
    parser.add_argument("--checkers", default=",".join(CHECKERS))
    parser.add_argument("--modes", default="uncertified,uncertified-file,single,batch")
    parser.add_argument("--out", default="certify")
    args = parser.parse_args()
    puzzles = [grid for _, grid in read_puzzles(args.puzzles)][:args.limit]
    modes = args.modes.split(",")
    rows = []
    for mode, runner in (("uncertified", run_uncertified),
                         ("uncertified-file", run_uncertified_file)):
        if mode in modes:
            rows.append(runner(puzzles, args.solver))
            print(rows[-1], flush=True)
            save(rows, args, len(puzzles))
    for name in args.checkers.split(","):
        try:
            checker = find_checker(name)
        except CheckerUnavailable as exc:
            print(f"skipped {name}: {exc}", flush=True)
            continue
        for mode, runner in (("single", run_single), ("batch", run_batch)):
            if mode in modes:
                rows.append(runner(puzzles, args.solver, checker))
                print({k: v for k, v in rows[-1].items() if k != "batches"}, flush=True)
                save(rows, args, len(puzzles))      # a long run killed keeps its rows
    print(save(rows, args, len(puzzles)))
    return 0


def save(rows: list[dict], args: argparse.Namespace, count: int) -> str:
    """Write the rows so far to ``results/NAME.json`` and ``.md``; returns the table."""
    source = Path(args.puzzles).name
    out = ROOT / "benchmarks" / "results"
    (out / f"{args.out}.json").write_text(json.dumps(
        {"puzzles": source, "count": count, "solver": args.solver,
         "cpus": os.cpu_count(), "load": os.getloadavg(), "rows": rows}, indent=1) + "\n")
    text = table(rows, count, source)
    (out / f"{args.out}.md").write_text(text)
    return text


if __name__ == "__main__":
    sys.exit(main())
