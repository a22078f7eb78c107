"""Every decompression bomb and huge input of issue 22, through the command line, with its exit
code, wall time and peak memory — on this checkout and on others, side by side.

    python benchmarks/bombs.py [--checkout OLD_CHECKOUT ...] [--only TEXT] [--timeout S]

The cases are ``tests/bombs.py``'s (built once in a scratch directory). Each runs as
``/usr/bin/time -f %M prlimit --as=3221225472 timeout S python -m solvers.cli ...`` with the
checkout on PYTHONPATH: peak memory is the largest resident set of the command line and its
children (GNU time's %M), under a 3 GiB address-space limit, as the issue asks. Results:
``benchmarks/results/bombs.md``.
"""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bombs import BOMBS, build  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
ADDRESS_SPACE = 3 * 2**30


def make_script(directory: Path):
    def made(name: str, body: str) -> Path:
        path = directory / f"fake-{name}.sh"
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path
    return made


def run_case(checkout: Path, argv: list[str], work: Path, timeout: int) -> dict:
    """One run: exit code, seconds, peak RSS in MiB, the last line of stderr."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "TMPDIR": str(work)}
    report = work / "time.txt"
    command = ["/usr/bin/time", "-o", str(report), "-f", "%M",
               "prlimit", f"--as={ADDRESS_SPACE}", "timeout", str(timeout),
               sys.executable, "-m", "solvers.cli", *argv]
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    peak = report.read_text().split()[-1] if report.exists() else "?"
    lines = [line for line in proc.stderr.splitlines() if line.strip()
             and not line.startswith("Command exited")]
    return {"code": proc.returncode, "seconds": seconds,
            "peak_mib": int(peak) / 1024 if peak.isdigit() else None,
            "stderr_lines": len(lines), "last": lines[-1][:160] if lines else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", action="append", default=[],
                        help="another checkout to run the same bombs on (e.g. main)")
    parser.add_argument("--only", help="run the bombs whose name holds this text")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per run")
    args = parser.parse_args()
    checkouts = [ROOT] + [Path(c).resolve() for c in args.checkout]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bombs-") as tmp:
        for name, bomb in BOMBS.items():
            if args.only and args.only not in name:
                continue
            case = Path(tmp) / f"case{len(rows)}"
            case.mkdir()
            argv = build(bomb, case, make_script(case))
            for checkout in checkouts:
                work = case / f"work-{checkouts.index(checkout)}"
                work.mkdir()
                result = run_case(checkout, argv, work, args.timeout)
                commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short",
                                         "HEAD"], capture_output=True, text=True).stdout.strip()
                row = {"bomb": name, "checkout": commit or checkout.name, **result}
                rows.append(row)
                print(f"{name:50} {row['checkout']:>8} exit {row['code']:>3} "
                      f"{row['seconds']:7.1f} s {row['peak_mib'] or 0:8.0f} MiB "
                      f"{row['stderr_lines']} line(s): {row['last']}", flush=True)
            for path in case.iterdir():          # the next case needs the disk space
                if path.is_file():
                    path.unlink()
    head = "| bomb | checkout | exit | seconds | peak MiB | stderr |\n|---|---|---|---|---|---|\n"
    body = "".join(f"| {r['bomb']} | {r['checkout']} | {r['code']} | {r['seconds']:.1f} | "
                   f"{r['peak_mib'] or 0:,.0f} | {r['last'].replace('|', '/')} |\n" for r in rows)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bombs.md").write_text(
        "# Bombs and huge inputs under a 3 GiB address-space limit\n\n"
        "`python benchmarks/bombs.py" + "".join(f" --checkout {c}" for c in args.checkout)
        + f"` (timeout {args.timeout} s a run; peak = GNU time's maximum resident set).\n\n"
        + head + body)


if __name__ == "__main__":
    main()
