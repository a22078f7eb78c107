"""What does ``--certify`` cost the gadget closed loops? ``gadget nishio|nrpath --validate`` on
the fixed formulas, uncertified and certified by each checker, in the same run on one core.

    python benchmarks/bench_gadget_certify.py [--repeat 5] [--checkers cake_lpr,drat-trim,dratify]
                                              [--out NAME]

Each run validates the whole fixed set (:func:`solvers.gadgets.nishio.fixed_formulas`: both
theorems; :func:`solvers.gadgets.nrpath.fixed_formulas`: path and cycle versions) in this
process, the modes taking turns, ``--repeat`` times; reported: the median seconds of a whole
run, and of a certified run the claims certified and the median seconds spent certifying them
(solving each certified formula with a proof, writing it, the checker's run). Every
certified run must certify every claim (a check that did not finish stops the benchmark).

Results: ``benchmarks/results/NAME.md`` (default ``gadget-certify``).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvers.certify.checkers import CHECKERS, CheckerUnavailable, find_checker  # noqa: E402
from solvers.certify.refutation import CertifyOptions  # noqa: E402
from solvers.gadgets import nishio, nrpath  # noqa: E402

MEMORY = 2 << 30
GADGETS = ("nishio", "nrpath path", "nrpath cycle")


def one_run(gadget: str, certify: CertifyOptions | None) -> tuple[float, list]:
    """Validate the gadget's fixed formulas once: (seconds, certificates)."""
    start = time.perf_counter()
    if gadget == "nishio":
        rows = list(nishio.validate_formulas(nishio.fixed_formulas(), certify=certify))
        certificates = [c for r in rows for c in r.certificates]
        assert all(r.ok for r in rows)
    else:
        rows = [check for _, _, check in nrpath.validate_formulas(
            nrpath.fixed_formulas(), cycle=gadget.endswith("cycle"), certify=certify)]
        certificates = [c for check in rows for c in check.certificates]
        assert all(check.ok for check in rows)
    seconds = time.perf_counter() - start
    if certify is not None and not all(c.certified for c in certificates):
        raise SystemExit(f"{gadget}: a claim was not certified: {certificates}")
    return seconds, certificates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--checkers", default=",".join(CHECKERS))
    parser.add_argument("--out", default="gadget-certify")
    args = parser.parse_args()
    modes: dict[str, CertifyOptions | None] = {"uncertified": None}
    missing = []
    for name in args.checkers.split(","):
        try:
            modes[name] = CertifyOptions(find_checker(name), MEMORY)
        except CheckerUnavailable:
            missing.append(name)
    times = {(g, m): [] for g in GADGETS for m in modes}
    certifying = {(g, m): [] for g in GADGETS for m in modes}
    claims = {}
    for _ in range(args.repeat):
        for gadget in GADGETS:
            for mode, certify in modes.items():
                seconds, certificates = one_run(gadget, certify)
                times[gadget, mode].append(seconds)
                certifying[gadget, mode].append(sum(c.seconds for c in certificates))
                claims[gadget, mode] = len(certificates)
    lines = ["# `gadget … --validate --certify` on the fixed formulas", "",
             f"`python benchmarks/bench_gadget_certify.py --repeat {args.repeat}`; "
             f"{platform.node()}, Python {platform.python_version()}, one process, the modes "
             "taking turns; medians of the repeats."
             + (f" Missing checkers (skipped): {', '.join(missing)}." if missing else ""), "",
             "| gadget | mode | claims certified | certifying (s) | whole run (s) | × uncertified |",
             "|---|---|---:|---:|---:|---:|"]
    for gadget in GADGETS:
        base = statistics.median(times[gadget, "uncertified"])
        for mode in modes:
            whole = statistics.median(times[gadget, mode])
            spent = statistics.median(certifying[gadget, mode])
            lines.append(f"| {gadget} | {mode} | {claims[gadget, mode]} | "
                         f"{spent:.2f} | {whole:.2f} | {whole / base:.1f} |")
    text = "\n".join(lines) + "\n"
    (ROOT / "benchmarks" / "results" / f"{args.out}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
