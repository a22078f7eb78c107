"""Answers an outside solver would write, for CI's smoke run of the installed package.

``.ci/installed-smoke`` emits each target with the installed ``sudoku-bridge`` and needs a
solver's answer to feed ``decode``. The answers here come from outside the project where they
can, so that ``decode`` really reads a foreign answer:

* ``cnf FILE OUT``: pysat (a core dependency) solves the DIMACS file; OUT gets ``s``/``v`` lines.
* ``ilp FILE OUT``: the CBC program that PuLP bundles solves the MPS file; OUT is CBC's ``solu``.
* ``exact-cover FILE OUT``: a plain Algorithm X (dict of sets) over the dlx file's items and
  options; OUT lists the chosen options one per line, as ``dlx1 m1`` prints them, and the
  total line dlx1 writes on stderr.
* ``hcp GRAPH SOLUTION OUT``: the one place that uses the package itself: the Hamiltonian
  cycle of the known solution, through the exported graph's pipeline (the forward map), so
  that ``decode hcp`` closes the loop through files.

Exit status 0 when the answer was written.
"""

from __future__ import annotations

import subprocess
import sys


def cnf_answer(path: str, out: str) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=CNF(from_file=path).clauses) as solver:
        if not solver.solve():
            text = "s UNSATISFIABLE\n"
        else:
            model = " ".join(map(str, solver.get_model()))
            text = f"s SATISFIABLE\nv {model} 0\n"
    with open(out, "w") as f:
        f.write(text)


def ilp_answer(path: str, out: str) -> None:
    import pulp

    cbc = pulp.apis.PULP_CBC_CMD().path
    subprocess.run([cbc, path, "solve", "solu", out], check=True, stdout=subprocess.DEVNULL)


def read_dlx(path: str) -> tuple[list[str], list[list[str]]]:
    """Primary items and options of a dlx1 input file (``|`` comments skipped)."""
    lines = [ln.split("|")[0].split() for ln in open(path)]
    lines = [ln for ln in lines if ln]
    return lines[0], lines[1:]


def algorithm_x(items: list[str], options: list[list[str]]) -> list[int] | None:
    """One exact cover (option indices), or None: Knuth's Algorithm X on sets."""
    covering = {item: set() for item in items}
    for k, option in enumerate(options):
        for item in option:
            covering[item].add(k)

    def search(chosen: list[int]) -> list[int] | None:
        if not covering:
            return chosen
        item = min(covering, key=lambda i: len(covering[i]))
        for k in list(covering[item]):
            removed = []
            for it in options[k]:
                for other in covering[it]:
                    for it2 in options[other]:
                        if it2 != it and it2 in covering:
                            covering[it2].discard(other)
                removed.append((it, covering.pop(it)))
            found = search(chosen + [k])
            for it, ks in reversed(removed):
                covering[it] = ks
                for other in ks:
                    for it2 in options[other]:
                        if it2 != it and it2 in covering:
                            covering[it2].add(other)
            if found is not None:
                return found
        return None

    return search([])


def exact_cover_answer(path: str, out: str) -> None:
    items, options = read_dlx(path)
    cover = algorithm_x(items, options)
    with open(out, "w") as f:
        if cover is not None:
            for k in cover:
                f.write(" ".join(options[k]) + "\n")
        f.write(f"Altogether {0 if cover is None else 1} solution{'' if cover else 's'}, ...\n")


def hcp_answer(graph: str, solution: str, out: str) -> None:
    from reductions.sudoku.grid import parse_grid
    from solvers.formats.sidecar import load_hcp_export

    pipeline, _ = load_hcp_export(graph)
    order = pipeline.tour_of_solution(parse_grid(open(solution).read()))
    with open(out, "w") as f:
        f.write("\n".join(str(v + 1) for v in order) + "\n")


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    {"cnf": cnf_answer, "ilp": ilp_answer, "exact-cover": exact_cover_answer,
     "hcp": hcp_answer}[kind](*args)
