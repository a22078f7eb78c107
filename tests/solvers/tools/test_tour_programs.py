"""The tour-program skeleton (solvers/tools/tour_programs.py): write, run, read, check,
interpret — with a small program of its own (a real shell script writing a plain vertex
list), so the skeleton's rules are seen apart from LKH, linkern, Concorde and --hcp-cmd
(tested in test_lkh.py, test_concorde.py, test_hcp_formats.py): a Hamiltonian tour is
accepted, a tour with non-edges, no tour or the time limit are "unknown" with a reason, a
failed run is an error, the directory goes away (or stays, when kept), nothing is left
running."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solvers.runtime.processes import ExternalSolverError, ProgramRun
from solvers.hamiltonian import CycleStatus, HcpResult
from solvers.tools.tour_programs import TourProgram, heuristic_tour_result, program_tour

from tests.processes import fakes, wait_until  # noqa: F401  (fakes: a fixture)

CYCLE = np.array([(i, (i + 1) % 5) for i in range(5)] + [(0, 2)], dtype=np.int64)


class Script(TourProgram):
    """A script that gets the edge file and writes its tour to ``tour.txt``."""

    label = "script"

    def __init__(self, script: Path, **job):
        super().__init__(5, CYCLE, stats={}, **job)
        self.script = script
        self.seen: list[Path] = []

    def write_input(self, work: Path) -> None:
        self.seen.append(work)
        (work / "graph.txt").write_text("".join(f"{u} {v}\n" for u, v in CYCLE))

    def run(self, work: Path, temp_dirs: list[Path]) -> ProgramRun:
        return self.run_program([self.script, "graph.txt", "tour.txt"], work, temp_dirs)

    def read_tour(self, run: ProgramRun, work: Path) -> np.ndarray | None:
        return program_tour(run, work / "tour.txt", 5, self.stats, name="script",
                            time_limit=self.time_limit, where="the script's tour",
                            error=ExternalSolverError)


def solve(fakes, body: str, **job) -> tuple[HcpResult, Script]:  # noqa: F811
    program = Script(fakes.script("tour", body), time_limit=job.pop("time_limit", 10),
                     **job)
    return program.solve(), program


def test_a_hamiltonian_tour_is_accepted_and_the_directory_removed(fakes):  # noqa: F811
    result, program = solve(fakes, 'grep -q "0 2" "$1" && printf "1 2 3 4 5\\n" > "$2"\n')
    assert result.status == CycleStatus.HAMILTONIAN and result.cycle.tolist() == [0, 1, 2, 3, 4]
    assert result.stats["non_edges_in_tour"] == 0 and result.stats["seconds"] >= 0
    assert not program.seen[0].exists()


def test_non_edges_no_tour_and_the_time_limit_are_unknown(fakes):  # noqa: F811
    result, _ = solve(fakes, 'printf "1 3 5 2 4\\n" > "$2"\n')
    assert result.status == CycleStatus.UNKNOWN
    assert result.stats["reason"].startswith("script's best tour uses 4 non-edges")
    result, _ = solve(fakes, "exit 0\n")
    assert (result.status, result.stats["reason"]) == (CycleStatus.UNKNOWN,
                                                       "script gave no tour")
    result, _ = solve(fakes, "$SLEEP 30\n", time_limit=0.3)
    assert result.status == CycleStatus.UNKNOWN
    assert result.stats["reason"] == "time limit 0.3 s reached before script gave a tour"
    assert wait_until(lambda: fakes.running() == [], 2)


def test_a_failed_run_is_an_error(fakes):  # noqa: F811
    with pytest.raises(ExternalSolverError, match="script exited with code 3 without a tour"):
        solve(fakes, "exit 3\n")
    with pytest.raises(ExternalSolverError, match="the script's tour"):
        solve(fakes, 'printf "1 1 1 1 1\\n" > "$2"\n')


def test_a_kept_directory_stays(fakes, tmp_path):  # noqa: F811
    result, program = solve(fakes, 'printf "1 2 3 4 5\\n" > "$2"\n', keep_dir=tmp_path / "k")
    assert result.found and (tmp_path / "k" / "tour.txt").exists()


def test_interpret_sees_the_checked_result(fakes):  # noqa: F811
    class Proving(Script):
        def interpret(self, result: HcpResult, run: ProgramRun) -> HcpResult:
            if result.status == CycleStatus.UNKNOWN and run.exit_code == 0:
                return HcpResult(CycleStatus.NO_CYCLE, None, result.stats)
            return result

    program = Proving(fakes.script("tour", 'printf "1 3 5 2 4\\n" > "$2"\n'), time_limit=10)
    assert program.solve().status == CycleStatus.NO_CYCLE


def test_heuristic_tour_result_counts_non_edges():
    stats: dict = {}
    result = heuristic_tour_result(5, CYCLE, [0, 2, 1, 3, 4], stats, "X")
    assert result.status == CycleStatus.UNKNOWN and stats["tour_cost"] == 1
    assert stats["reason"] == "X's best tour uses 1 non-edge (cost 1 > 0): no Hamiltonian " \
                              "cycle found"
    assert heuristic_tour_result(5, CYCLE, [4, 3, 2, 1, 0], {}, "X").found
