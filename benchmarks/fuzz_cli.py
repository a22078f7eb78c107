"""Fuzz every reader through the command line, on this checkout and on others, side by side.

    python benchmarks/fuzz_cli.py --examples 500 [--checkout OLD_CHECKOUT ...]

The cases are made here, once, with this tree's ``tests/fuzz_inputs.py`` (valid files for a
4×4 puzzle, mutated by a seeded ``random.Random``), and written to a scratch directory. Each
checkout (this one, plus every ``--checkout``) then runs all of them in one child process of
its own that imports *that* checkout's ``solvers.cli.program``: for each case it writes the files,
calls ``main(argv)`` with stdout and stderr captured, under a per-case alarm (``--timeout``,
a hang) and an address-space limit (``--memory``, so that a runaway allocation is a
MemoryError, not the machine's OOM killer). Uncaught exceptions are recorded (in a shell they
are a traceback and exit 1, "no solution"). Every run is judged here by
``fuzz_inputs.violations``: traceback, exit code outside 0–4, output on a wrong answer, a grid
on stdout after a failure or an invalid one after a success.

Results: ``benchmarks/results/fuzz_cli.json`` and ``.md`` (one table per checkout).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fuzz_inputs import READERS, mutate, seed_files, violations  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"

# The child: runs every case of the manifest with the checkout's own main.
_CHILD = r"""
import contextlib, io, json, resource, signal, sys, traceback
from pathlib import Path
manifest = json.loads(Path(sys.argv[1]).read_text())
limit = int(sys.argv[2]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from solvers.cli import main

class Hang(BaseException):
    pass

def alarm(signum, frame):
    raise Hang()

signal.signal(signal.SIGALRM, alarm)
work = Path(manifest["work"])
for case in manifest["cases"]:
    for name, source in case["files"].items():
        (work / name).write_bytes(Path(source).read_bytes())
    out, err = io.StringIO(), io.StringIO()
    code, problem = None, None
    signal.alarm(manifest["timeout"])
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(case["argv"])
    except Hang:
        problem = "hang"
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:
        problem = "uncaught " + type(exc).__name__
    finally:
        signal.alarm(0)
    print(json.dumps({"reader": case["reader"], "code": code, "problem": problem,
                      "out": out.getvalue()[:200_000], "err": err.getvalue()[-4000:]}),
          flush=True)
"""


def make_cases(scratch: Path, examples: int, seed: int) -> dict:
    seeds_dir = scratch / "seeds"
    seeds_dir.mkdir()
    seeds = seed_files(seeds_dir)
    cases = []
    for name, reader in READERS.items():
        rng = random.Random(f"{seed}:{name}")
        for k in range(examples):
            files = {}
            for file_name, seed_name in reader.files.items():
                path = seeds_dir / f"seed-{seed_name.replace(' ', '_')}"
                if file_name == reader.mutated:
                    path = scratch / "cases" / f"{len(cases):06d}"
                    path.parent.mkdir(exist_ok=True)
                    path.write_bytes(mutate(seeds[seed_name], rng))
                elif not path.exists():
                    path.write_bytes(seeds[seed_name])
                files[file_name] = str(path)
            argv = [str(scratch / "work" / a) if a in reader.files or a == "out.txt" else a
                    for a in reader.argv]
            cases.append({"reader": name, "files": files, "argv": argv})
    (scratch / "work").mkdir()
    return {"work": str(scratch / "work"), "cases": cases}


def run_checkout(checkout: Path, manifest: dict, scratch: Path, timeout: int,
                 memory_mb: int) -> tuple[list[dict], float]:
    path = scratch / "manifest.json"
    path.write_text(json.dumps({**manifest, "timeout": timeout}))
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(memory_mb)],
                          env=env, cwd=scratch, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if len(rows) != len(manifest["cases"]):
        raise SystemExit(f"{checkout}: the child stopped after {len(rows)} cases "
                         f"(exit {proc.returncode}): {proc.stderr[-1000:]}")
    return rows, seconds


def judge(rows: list[dict]) -> dict[str, Counter]:
    table: dict[str, Counter] = {}
    for row in rows:
        count = table.setdefault(row["reader"], Counter())
        count["cases"] += 1
        if row["problem"] == "hang":
            count["hangs"] += 1
            continue
        if row["problem"]:
            count["tracebacks"] += 1
            count["wrong exits"] += 1           # a shell sees exit 1: "no solution"
            continue
        found = violations(READERS[row["reader"]], row["code"], row["out"], row["err"])
        count["tracebacks"] += "traceback" in found
        count["wrong exits"] += any(f.startswith("exit") for f in found)
        count["bad stdout"] += any("grid" in f or "output" in f for f in found)
    return table


def markdown(name: str, table: dict[str, Counter], seconds: float) -> str:
    head = ["reader", "cases", "tracebacks", "hangs", "wrong exits", "bad stdout"]
    lines = [f"### {name} ({seconds:.0f} s)", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    total = Counter()
    for reader, count in table.items():
        total.update(count)
        lines.append("| " + " | ".join([reader] + [f"{count[h]:,}" for h in head[1:]]) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[h]:,}**" for h in head[1:]) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200, help="cases per reader")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checkout", action="append", default=[],
                        help="another checkout to run the same cases on (e.g. an old commit)")
    parser.add_argument("--timeout", type=int, default=30, help="seconds per case")
    parser.add_argument("--memory", type=int, default=4096, help="address space, MB")
    args = parser.parse_args()
    checkouts = [ROOT] + [Path(c).resolve() for c in args.checkout]
    report = {"examples_per_reader": args.examples, "seed": args.seed, "checkouts": {}}
    sections = []
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as tmp:
        manifest = make_cases(Path(tmp), args.examples, args.seed)
        for checkout in checkouts:
            rows, seconds = run_checkout(checkout, manifest, Path(tmp), args.timeout,
                                         args.memory)
            table = judge(rows)
            commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short",
                                     "HEAD"], capture_output=True, text=True).stdout.strip()
            name = f"{checkout.name} @ {commit}"
            report["checkouts"][name] = {"seconds": round(seconds, 1),
                                         "readers": {k: dict(v) for k, v in table.items()}}
            sections.append(markdown(name, table, seconds))
            print(sections[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fuzz_cli.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / "fuzz_cli.md").write_text(
        f"# Readers fuzzed through the command line\n\n{args.examples} mutated inputs per "
        f"reader (seed {args.seed}); `python benchmarks/fuzz_cli.py --examples "
        f"{args.examples}" + "".join(f" --checkout {c}" for c in args.checkout)
        + "`.\n\n" + "\n\n".join(sections) + "\n")


if __name__ == "__main__":
    main()
