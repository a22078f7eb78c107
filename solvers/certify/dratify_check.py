"""``python -m solvers.certify.dratify_check CNF PROOF [--plain]``: dratify's verdict on a text DRAT
proof, in a process of its own (so that :mod:`solvers.certify.checkers` can hold it to a time
and memory limit and kill it).

RAT steps are refused (``check_rat=False``): dratify 0.1.10's RAT check accepts a "proof"
that the satisfiable formula ``1 0``, ``-1 2 0`` is unsatisfiable (it keeps root literals
whose reason clause was deleted), while the RUP-only check is sound; the proofs our solvers
write use RUP steps only. A proof is a refutation only if it derives the empty clause.
``--plain``: deletions are ignored (as drat-trim's ``-p``).

Prints ``s VERIFIED`` and exits 0, or ``s NOT VERIFIED`` and the reason and exits 1; exit
2: it could not run (dratify missing, a file unreadable or not text); exit 3: out of
memory. Imports nothing of this library, so that it starts fast.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    plain = argv[2:] == ["--plain"]        # deletions ignored (drat-trim's -p)
    if len(argv) != 2 and not plain:
        print("usage: python -m solvers.certify.dratify_check CNF PROOF [--plain]",
              file=sys.stderr)
        return 2
    try:
        import dratify
    except ImportError:
        print("dratify is not installed: pip install 'sudoku-bridge[certify]'", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="ascii") as cnf_file, open(argv[1], "rb") as proof_file:
            formula = dratify.parse_dimacs(cnf_file.read())
            data = proof_file.read()
        if b"\0" in data:          # every clause of binary DRAT ends in a zero byte
            raise UnicodeDecodeError("ascii", data, data.index(b"\0"), len(data),
                                     "a zero byte: binary DRAT")
        proof = data.decode("ascii")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read the CNF or the proof ({exc}); dratify reads text DRAT only",
              file=sys.stderr)
        return 2
    except (ValueError, IndexError) as exc:
        print(f"s NOT VERIFIED\nc the CNF cannot be read: {exc}")
        return 1
    try:
        result = dratify.check_proof(formula, proof, check_rat=False, engine="python",
                                     apply_deletions=not plain)
    except MemoryError:
        print("out of memory", file=sys.stderr)
        return 3
    except (ValueError, IndexError) as exc:
        print(f"s NOT VERIFIED\nc the proof cannot be read: {exc}")
        return 1
    if result.ok and result.reached_empty:
        print("s VERIFIED")
        return 0
    print(f"s NOT VERIFIED\nc {result.reason}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
