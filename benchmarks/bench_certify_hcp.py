"""What does certified uniqueness cost through the Hamiltonian cycle? Per puzzle, the hcp
routes' ``--unique`` uncertified beside certified, in the same run on one core.

    python benchmarks/bench_certify_hcp.py [--puzzles FILE] [--limit N]
                                           [--routes hcp-directed,hcp-undirected]
                                           [--checkers cake_lpr,drat-trim,dratify] [--out NAME]

For each route and puzzle: the route's answer with ``unique=True`` (the solver's word), then
for each checker :func:`solvers.certify.hcp_puzzle.certify_hcp_outcome` on that answer — the
certified formula of the puzzle's directed graph plus the blocking clause, solved by a
proof-logging CaDiCaL after a cut loop, the proof checked. Every certificate must come back
certified by the checker named, else the run stops: the figures are for claims really
checked. Reported: median and p90 per puzzle (ms) of the route's answer, the certificate in
all, its check alone, and the proof's size.

Results: ``benchmarks/results/NAME.md`` and ``NAME.json`` (default ``certify-hcp``).
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

from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from solvers.certify.checkers import CheckerUnavailable, find_checker  # noqa: E402
from solvers.certify.hcp_puzzle import certify_hcp_outcome  # noqa: E402
from solvers.certify.refutation import CertifyOptions  # noqa: E402
from solvers.routes import ROUTES  # noqa: E402
from solvers.routes.options import HCP  # noqa: E402

MEMORY = 2 << 30


def quantiles(values: list[float], scale: float = 1000.0) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"{statistics.median(ordered) * scale:,.0f} / {p90 * scale:,.0f}"


def run_route(puzzles, route: str, checkers: list) -> list[dict]:
    """The rows of one route: uncertified, then one row per checker."""
    solve, certify = [], {c.name: {"total": [], "check": [], "bytes": []} for c in checkers}
    prune = ROUTES[route].presets.get("prune") or HCP.defaults["prune"]
    for puzzle in puzzles:
        start = time.perf_counter()
        outcome = ROUTES[route].solve(puzzle, unique=True)
        solve.append(time.perf_counter() - start)
        if outcome.unique is not True:
            raise SystemExit(f"{route}: a puzzle was not answered unique: {outcome.stats}")
        for checker in checkers:
            copy = type(outcome)(outcome.status, outcome.grid, unique=True,
                                 stats=dict(outcome.stats))
            start = time.perf_counter()
            done = certify_hcp_outcome(puzzle, copy, prune=prune,
                                       certify=CertifyOptions(checker, MEMORY))
            if done.stats.get("certified") != checker.name or done.unique is not True:
                raise SystemExit(f"{route}/{checker.name}: not certified: "
                                 f"{done.stats.get('reason')}")
            figures = certify[checker.name]
            figures["total"].append(time.perf_counter() - start)
            figures["check"].append(done.stats["check_seconds"])
            figures["bytes"].append(done.stats["proof_bytes"])
    rows = [{"route": route, "mode": "uncertified --unique", "answer": quantiles(solve),
             "certificate": "–", "check": "–", "proof": "–", "claims": 0,
             "total_s": round(sum(solve), 1)}]
    for name, figures in certify.items():
        rows.append({"route": route, "mode": f"certified, {name}", "answer": quantiles(solve),
                     "certificate": quantiles(figures["total"]),
                     "check": quantiles(figures["check"]),
                     "proof": quantiles(figures["bytes"], 1 / 1000),
                     "claims": len(figures["total"]),
                     "total_s": round(sum(solve) + sum(figures["total"]), 1)})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| route | mode | route's answer ms (median / p90) | certificate ms | of it, "
             "check ms | proof kB | certified claims | total s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['route']} | {r['mode']} | {r['answer']} | {r['certificate']} | "
                     f"{r['check']} | {r['proof']} | {r['claims']} | {r['total_s']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", default=str(ROOT / "instances" / "royle17-sample300.txt"))
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--routes", default="hcp-directed,hcp-undirected")
    parser.add_argument("--checkers", default="cake_lpr,drat-trim,dratify")
    parser.add_argument("--out", default="certify-hcp")
    args = parser.parse_args()
    puzzles = [grid for _, grid in read_puzzles(args.puzzles)][:args.limit]
    checkers, missing = [], []
    for name in args.checkers.split(","):
        try:
            checkers.append(find_checker(name))
        except CheckerUnavailable:
            missing.append(name)
    rows = [row for route in args.routes.split(",") for row in run_route(puzzles, route, checkers)]
    text = (f"# Certified uniqueness through the Hamiltonian cycle\n\n"
            f"`python benchmarks/bench_certify_hcp.py --limit {args.limit} --routes "
            f"{args.routes}`: the first {len(puzzles)} puzzles of `{Path(args.puzzles).name}`, "
            f"all unique; one core of a shared machine ({platform.machine()}, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end).\n"
            + (f"Checkers missing, skipped: {', '.join(missing)}.\n" if missing else "")
            + "\n" + table(rows) + "\n")
    out = ROOT / "benchmarks" / "results" / args.out
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
