"""The empty 25×25 grid through Haythorpe's Hamiltonian-cycle graph, against the SAT route on
the same grid, in the same run.

    python benchmarks/bench_hcp_empty.py [--rounds 3] [--size 5] [--time-limit 900]
        [--baseline OLD_CHECKOUT [--baseline-label NAME] [--baseline-limit 900]]

Each measurement is a fresh process, start-up included, wall clock and peak RSS (the child's
own ``ru_maxrss``, from ``os.wait4``); every answer is checked here once more (a full grid
obeying the rules; the command itself verified it before printing):

* ``reference``: ``sudoku-bridge solve EMPTY --via sat --json`` (the direct CNF, CaDiCaL);
* ``hcp``: ``sudoku-bridge solve EMPTY --via hcp --break-symmetry --time-limit L --json``
  (directed graph, the paper's clue pruning after the first row is fixed to 1..N, SAT model
  with lazy subtour cuts and patching);
* ``hcp-peers``: the same with ``--prune peers`` (the command of the 671 s record);
* ``hcp-nosym``: ``--via hcp`` without ``--break-symmetry`` (the blank graph);
* with ``--baseline``: the ``hcp-peers`` command in another checkout (e.g. ``git archive`` of
  an older commit), limited to ``--baseline-limit`` seconds (it took 671 s on 50e6f30).

The runs are interleaved round by round on a shared machine; the table gives each round's
times and the ratio to the round's reference, and their medians. Target (issue 16): the
``hcp`` command on the 25×25 grid ≤ 120 s. Results: ``benchmarks/results/hcp_empty_NxN.json``
and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid  # noqa: E402


def run(args: list[str], checkout: Path, shape: Shape) -> dict:
    """One command in a fresh process in ``checkout``: seconds, peak MB, status, and whether
    its grid (if any) is a valid full grid."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "solvers.cli", *args], cwd=checkout,
                                env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
                                stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text, error = out.read().decode(), err.read().decode()
    record = json.loads(text.splitlines()[0]) if text.strip() else {}
    solution = record.get("solution")
    ok = bool(solution) and check_solution(Grid.empty(shape), parse_grid(solution, shape))
    if record.get("status") == "solved" and not ok:
        raise SystemExit(f"{args}: a 'solved' answer that is not a valid grid")
    if not record:
        raise SystemExit(f"{args} in {checkout}: no JSON record "
                         f"(exit {os.waitstatus_to_exitcode(status)}): {error[-500:]}")
    solver = record.get("stats", {}).get("solver", {})
    solver = solver if isinstance(solver, dict) else {}      # the sat route names its solver
    return {"seconds": round(seconds, 2), "peak_mb": round(usage.ru_maxrss / 1024, 1),
            "status": record["status"], "verified": ok,
            "iterations": solver.get("iterations"), "cuts": solver.get("cuts"),
            "variables": solver.get("variables"), "clauses": solver.get("clauses"),
            "together_clauses": solver.get("together_clauses"),
            "patch_merges": solver.get("patch_merges")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", type=int, default=5, help="block side n (N = n², default 5)")
    parser.add_argument("--time-limit", type=float, default=900)
    parser.add_argument("--baseline", type=Path, help="another checkout to measure alike")
    parser.add_argument("--baseline-label", default="baseline")
    parser.add_argument("--baseline-limit", type=float, default=900)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    shape = Shape(args.size, args.size)
    n = shape.size
    limit = ["--time-limit", f"{args.time_limit:g}", "--json"]
    subjects = {"hcp": (ROOT, ["--via", "hcp", "--break-symmetry", *limit]),
                "hcp-peers": (ROOT, ["--via", "hcp", "--prune", "peers", "--break-symmetry",
                                     *limit]),
                "hcp-nosym": (ROOT, ["--via", "hcp", *limit])}
    if args.baseline:
        subjects[args.baseline_label] = (args.baseline.resolve(), [
            "--via", "hcp", "--prune", "peers", "--break-symmetry", "--time-limit", f"{args.baseline_limit:g}",
            "--json"])
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / f"empty{n}.txt"
        empty.write_text("." * n * n + "\n")
        for r in range(args.rounds):
            row: dict = {"round": r + 1,
                         "reference": run(["solve", str(empty), "--via", "sat", "--json"],
                                          ROOT, shape)}
            for name, (checkout, flags) in subjects.items():
                row[name] = run(["solve", str(empty), *flags], checkout, shape)
                row[name]["ratio"] = round(row[name]["seconds"] / row["reference"]["seconds"],
                                           1)
            rounds.append(row)
            print(json.dumps(row), flush=True)
    names = list(subjects)
    medians = {name: {"seconds": statistics.median(row[name]["seconds"] for row in rounds),
                      "peak_mb": max(row[name]["peak_mb"] for row in rounds)}
               for name in ["reference", *names]}
    for name in names:
        medians[name]["ratio"] = statistics.median(row[name]["ratio"] for row in rounds)
    command = "python benchmarks/bench_hcp_empty.py " + " ".join(sys.argv[1:])
    machine = (f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
               f"Python {platform.python_version()}")
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine,
              "command": command, "size": n, "rounds": rounds, "medians": medians}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"hcp_empty_{n}x{n}.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = [f"# The empty {n}×{n} grid through the HCP graph vs the SAT route "
             f"({result['date']}; {machine})", "",
             f"`{command}`. Each cell: one fresh process, start-up included, wall clock; "
             f"ratio = seconds / the same round's reference (`solve EMPTY --via sat`). "
             f"Target (issue 16): `--via hcp --break-symmetry` ≤ 120 s.", "",
             "| round | reference s | " + " | ".join(f"{m} s (ratio, status)" for m in names)
             + " |", "|---|---:|" + "---:|" * len(names)]
    for row in rounds:
        cells = [f"{row[m]['seconds']:.1f} ({row[m]['ratio']:g}, "
                 f"{row[m]['status']}{', verified' if row[m]['verified'] else ''})"
                 for m in names]
        lines.append(f"| {row['round']} | {row['reference']['seconds']:.2f} | "
                     + " | ".join(cells) + " |")
    lines.append("| median | " + f"{medians['reference']['seconds']:.2f} | " + " | ".join(
        f"**{medians[m]['seconds']:.1f} ({medians[m]['ratio']:g})**" for m in names) + " |")
    lines.append("| peak MB (max) | " + f"{medians['reference']['peak_mb']:.0f} | " + " | ".join(
        f"{medians[m]['peak_mb']:.0f}" for m in names) + " |")
    last = rounds[-1]
    lines += ["", "SAT model of the last round (`hcp`): " + ", ".join(
        f"{k} {last['hcp'][k]:,}" for k in ("variables", "clauses", "together_clauses",
                                             "iterations", "cuts", "patch_merges")
        if last["hcp"].get(k) is not None) + "."]
    (args.out / f"hcp_empty_{n}x{n}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
