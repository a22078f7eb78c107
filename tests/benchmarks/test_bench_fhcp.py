"""benchmarks/bench_fhcp.py's report of merged runs: a graph a solver was not run on is a
dash in its column (not a zero-second result), and each solver is counted over its own
records."""

from __future__ import annotations

import importlib.util

from tests.processes import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_fhcp",
                                                  ROOT / "benchmarks" / "bench_fhcp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDS = [
    {"graph": 1, "solver": "sat", "status": "hamiltonian", "seconds": 0.5, "vertices": 66},
    {"graph": 1, "solver": "lkh", "status": "unknown", "seconds": 2.0, "vertices": 66},
    {"graph": 2, "solver": "sat", "status": "hamiltonian", "seconds": 1.5, "vertices": 70},
]


def test_a_solver_not_run_on_a_graph_is_a_dash():
    bench = _bench()
    rows = bench.per_graph(RECORDS, ["sat", "lkh"], {}, [1, 2])
    assert rows[2] == "| 1 | 66 | 0.50 | unknown 2.00 | None |"
    assert rows[3] == "| 2 | 70 | 1.50 | — | None |"


def test_each_solver_is_counted_over_its_own_records():
    bench = _bench()
    lines = bench.summary(RECORDS, ["sat", "lkh"], {}, [1, 2], 60.0)
    assert lines[2].startswith("| sat | 2 / 2 | 0 | 0 | 0 | 1.000 |")
    assert lines[3].startswith("| lkh | 0 / 1 | 0 | 1 | 0 |")
