"""Peak memory of one sudoku-bridge command, measured in a fresh child process.

    python benchmarks/memprobe.py -- emit cnf PUZZLE -o /tmp/p.cnf

The child imports the command line, every module of ``solvers`` and ``reductions`` and the
packages those import only when they build something (PuLP): the command modules import
their solvers when they run, and module memory is not what the estimates count. Then it
resets the kernel's peak-RSS mark (``/proc/self/clear_refs``), runs the command through
``main()`` and prints one JSON line: the added peak RSS (VmHWM after − VmRSS before), the
added peak address space (VmPeak after − VmSize before), the exit code and the wall time.
Used by ``bench_memory.py`` (and tests/solvers/runtime/test_size_guards.py) to calibrate
``reductions/*/sizes.py``.
"""

from __future__ import annotations

import contextlib
import io
import importlib
import json
import os
import pkgutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def status_kb() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "VmSize", "VmPeak"):
                out[key] = int(value.split()[0])
    return out


def probe(argv: list[str]) -> dict:
    import reductions
    import solvers
    from solvers.cli.program import build_parser, main
    build_parser()
    for package in (solvers, reductions):           # what the commands import when they run
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if module.name != "solvers.cli.__main__":
                importlib.import_module(module.name)
    import pulp  # noqa: F401  (reductions.encodings.ilp imports it when it builds a model)
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")                           # VmHWM := VmRSS
    before = status_kb()
    start = time.perf_counter()
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        code = main(argv)
    seconds = time.perf_counter() - start
    after = status_kb()
    return {"argv": argv, "code": code, "seconds": round(seconds, 3),
            "peak_rss": 1024 * (after["VmHWM"] - before["VmRSS"]),
            "peak_vm": 1024 * max(0, after["VmPeak"] - before["VmSize"]),
            "base_rss": 1024 * before["VmRSS"], "stdout_tail": sink.getvalue()[-300:]}


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    os.environ.setdefault("PYTHONHASHSEED", "0")
    print(json.dumps(probe(args)))
