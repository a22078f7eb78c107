"""The one status vocabulary (reductions/status.py): the solvers' Status is the same class, the
rules engine answers in it, batch codes are derived from it, and the words written to users'
files stay as they were."""

from __future__ import annotations

import numpy as np

import reductions.status
import solvers.outcome
from reductions.sudoku.grid import Grid, parse_grid
from reductions.rules.engine import deduce
from reductions.status import STATUS_CODE, STATUS_CODES, Status
from solvers.crosscheck.records import RecordStatus

from tests.reductions.sudoku.test_grid import PAPER_17


def test_the_solvers_status_is_the_reductions_status():
    assert solvers.outcome.Status is reductions.status.Status
    assert [s.value for s in Status] == ["solved", "no solution", "unknown"]


def test_batch_codes_are_derived_from_the_one_enum():
    assert STATUS_CODES == tuple(Status)
    assert all(STATUS_CODES[STATUS_CODE[s]] is s for s in Status)
    assert np.array([STATUS_CODE[s] for s in Status], dtype=np.uint8).tolist() == [0, 1, 2]


def test_the_rules_engine_answers_in_the_one_vocabulary():
    assert deduce(parse_grid(PAPER_17)).verdict is Status.SOLVED
    assert deduce(Grid.empty(9)).verdict is Status.UNKNOWN            # stuck
    values = parse_grid(PAPER_17).values.copy()
    assert values[0, 0] == values[0, 1] == 0
    values[0, :2] = 1                                                   # a digit twice in a row
    assert deduce(Grid(values)).verdict is Status.NO_SOLUTION


def test_crosscheck_records_extend_the_vocabulary_with_why_there_is_none():
    assert {s.value for s in Status} < {s.value for s in RecordStatus}
    assert all(RecordStatus(s) == s for s in Status)


def test_the_hcp_pipeline_says_its_status_in_the_one_vocabulary():
    """The degree-2 reduction's end maps onto every status; the sidecar keeps its old words."""
    from reductions.hamiltonian.graph_reduction import ReductionStatus
    from reductions.hamiltonian.hcp_pipeline import PUZZLE_STATUS, HcpOptions, build_hcp_pipeline
    from solvers.formats.sidecar import SIDECAR_STATUS
    assert set(PUZZLE_STATUS) == set(ReductionStatus) and set(PUZZLE_STATUS.values()) == set(Status)
    assert SIDECAR_STATUS == {Status.UNKNOWN: "ok", Status.NO_SOLUTION: "no cycle",
                              Status.SOLVED: "solved"}
    pipeline = build_hcp_pipeline(parse_grid(PAPER_17), HcpOptions(reduce=True))
    assert pipeline.status is Status.UNKNOWN
