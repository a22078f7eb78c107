"""Latencies of the process runner (solvers/runtime/processes.py run_program), the timings
its tests no longer assert (a loaded machine would make them flake).

    python benchmarks/bench_processes.py [--rounds 20]

Each round runs, interleaved:

* ``exit``: ``sleep 0.2`` under ``run_program`` (time limit 60 s): seconds past the 0.2 s the
  program sleeps until ``run_program`` returns — how soon an exit is noticed, plus starting
  the watchdog and the program and reaping both;
* ``exit, plain``: the same ``sleep 0.2`` through ``subprocess.run``, the floor;
* ``limit``: ``sleep 1000`` under ``run_program`` with a 0.5 s limit: seconds past the limit
  until it returns — killing the group and reaping it;
* ``true``: ``true`` under ``run_program``: the whole cost of one run of a program that does
  nothing, against ``true, plain`` through ``subprocess.run``.

Results: ``benchmarks/results/processes.md`` and ``.json`` (medians and ranges, milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvers.runtime.processes import run_program  # noqa: E402


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def exit_under_run_program() -> None:
    done = run_program(["sleep", "0.2"], time_limit=60)
    if done.exit_code != 0 or done.timed_out:
        raise SystemExit(f"sleep 0.2 {done.ended()}")


def hang_under_run_program() -> None:
    done = run_program(["sleep", "1000"], time_limit=0.5)
    if not done.timed_out:
        raise SystemExit(f"sleep 1000 {done.ended()} before its limit")


SUBJECTS = {
    "exit": (exit_under_run_program, 0.2),
    "exit, plain": (lambda: subprocess.run(["sleep", "0.2"], check=True), 0.2),
    "limit": (hang_under_run_program, 0.5),
    "true": (lambda: run_program(["true"], time_limit=60), 0.0),
    "true, plain": (lambda: subprocess.run(["true"], check=True), 0.0),
}
"""name -> (what to run, the seconds it must take in any case: subtracted)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    extra: dict[str, list[float]] = {name: [] for name in SUBJECTS}
    for _ in range(args.rounds):
        for name, (run, floor) in SUBJECTS.items():
            extra[name].append((timed(run) - floor) * 1000)
    rows = [{"subject": name, "median_ms": round(statistics.median(ms), 2),
             "min_ms": round(min(ms), 2), "max_ms": round(max(ms), 2)}
            for name, ms in extra.items()]
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    meta = {"date": stamp, "python": platform.python_version(), "machine": platform.machine(),
            "rounds": args.rounds, "command": " ".join(["python", *sys.argv]),
            "load_average": [round(x, 2) for x in os.getloadavg()]}
    results = ROOT / "benchmarks" / "results"
    (results / "processes.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    lines = [f"# Process runner latencies ({stamp}; {meta['machine']}, Python {meta['python']})",
             "", f"`{meta['command']}`: {args.rounds} interleaved rounds; milliseconds past "
             "what the program itself takes (0.2 s of sleep, the 0.5 s limit, nothing for "
             f"`true`). Load average at the end: {meta['load_average']}.", "",
             "| subject | median ms | min ms | max ms |", "|---|---:|---:|---:|"]
    lines += [f"| {r['subject']} | {r['median_ms']:.2f} | {r['min_ms']:.2f} | "
              f"{r['max_ms']:.2f} |" for r in rows]
    (results / "processes.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
