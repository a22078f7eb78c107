"""``solve FILE`` on a route's batch path: the route's batch capability, the chunk size
rule, the --json records of solved runs made from one template, byte for byte what the
per-record path prints, and both the records that the one-puzzle-at-a-time path prints
(apart from the seconds)."""

from __future__ import annotations

import argparse
import json

import pytest

from reductions.sudoku.grid import Shape
from reductions.sudoku.puzzle_files import puzzle_lines
from solvers.cli import ExitCode, common, main
from solvers.cli.sat import _chunk_reports, _solved
from solvers.routes import ROUTES
from solvers.routes.registry import Route, template_route
from solvers.routes.sat_batch import CHUNK_MAX, CHUNK_MIN, CHUNKS_PER_WORKER, batch_chunk_size
from solvers.routes.sat_incremental import _PROCESS_SOLVERS

from tests.conftest import INSTANCES
from tests.reductions.sudoku.test_grid import PAPER_17

NOT_UNIQUE = (INSTANCES / "multiple-solutions.txt").read_text().splitlines()[-1]
UNSOLVABLE = [line for line in (INSTANCES / "unsolvable.txt").read_text().splitlines()
              if line and not line.startswith("#")]
ROYLE = [line for line in (INSTANCES / "royle17-sample300.txt").read_text().splitlines()
         if line and not line.startswith("#")]
FOUR = "1234341221434321"


def _mixed_file(tmp_path):
    """Solved runs broken by every other kind of line: unsolvable, contradictory clues,
    bad symbols, another shape, a non-unique puzzle, a comment and a blank line; lower case
    and 0 for an empty cell; a file name JSON must escape."""
    lines = ROYLE[:40] + [UNSOLVABLE[0], "11" + "." * 79, "bad line"] + ROYLE[40:45] + [
        "# a comment", "", FOUR, NOT_UNIQUE, PAPER_17.replace(".", "0"), UNSOLVABLE[3],
        "x" * 81] + ROYLE[45:60] + [NOT_UNIQUE]
    path = tmp_path / 'we"ird\\ näme \\u0000.txt'
    path.write_text("\n".join(lines) + "\n")
    return path


def _rendered(results, via: str) -> str:
    """What ``solve --json`` prints for these results (main._report's JSON branch)."""
    out = []
    for item in results:
        if isinstance(item, common.SolvedLines):
            out.append(item.text)
        elif item.outcome is None:
            out.append(json.dumps({"puzzle_id": item.label, "puzzle": item.text, "route": via,
                                   "status": "error", "error": item.error}) + "\n")
        else:
            out.append(json.dumps(common.outcome_record(item.label, item.text, item.outcome,
                                                        via)) + "\n")
    return "".join(out)


@pytest.mark.parametrize("via", ["sat", "sat-incremental"])
@pytest.mark.parametrize("unique", [False, True])
def test_json_runs_are_byte_for_byte_the_per_record_lines(tmp_path, via, unique):
    lines = puzzle_lines(str(_mixed_file(tmp_path)))
    args = argparse.Namespace(json=True, unique=unique, via=via)
    batch = ROUTES[via].solve_batch(lines.texts, unique=unique, jobs=1, memory_limit=2**32,
                                    what="test")
    fast = per_record = ""
    runs = 0
    for chunk in batch.chunks:
        results = list(_chunk_reports(chunk, lines, batch, args))
        runs += sum(isinstance(item, common.SolvedLines) for item in results)
        fast += _rendered(results, via)
        per_record += _rendered(_solved(chunk.items(), lines, batch), via)
    assert runs >= 4          # the template made the solved runs' lines
    assert fast == per_record
    records = [json.loads(line) for line in fast.splitlines()]
    assert len(records) == len(lines)
    assert {r["status"] for r in records} == {"solved", "no solution", "error"}
    assert records[0]["puzzle_id"] == f"{lines.source}:1"
    if unique:
        assert [r["unique"] for r in records if r["puzzle"] == NOT_UNIQUE] == [False, False]


def _records(capsys, argv) -> list[dict]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == ExitCode.BAD_INPUT, err          # the file holds bad lines
    return [json.loads(line) for line in out.splitlines()]


def _without_times(record: dict) -> dict:
    return {**record, "stats": {k: v for k, v in record.get("stats", {}).items()
                                if k != "seconds"}}


@pytest.fixture
def kept_solvers_closed():
    """Close this process's kept solvers afterwards (sat-incremental keeps one between
    puzzles), so that a later test's batch starts from fresh solvers, as a new process
    would: a puzzle with several solutions gets the same one again."""
    yield
    _PROCESS_SOLVERS.close_all()


@pytest.mark.parametrize("via", ["sat", "sat-incremental"])
@pytest.mark.parametrize("unique", [False, True])
def test_batch_records_are_the_one_at_a_time_records(tmp_path, capsys, monkeypatch, via,
                                                     unique, kept_solvers_closed):
    """On 3788535 the batch records echoed the puzzle as written (``0`` for empty, lower
    case) and carried only ``{"solver"}`` in stats, where one puzzle at a time gives the
    normalised puzzle and the instance's sizes; and a file whose name held the text
    ``\\u0000`` (the template's old marker) was an internal error, exit 70."""
    path = _mixed_file(tmp_path)
    argv = ["solve", str(path), "--json", "--via", via, "--jobs", "1"] + \
        (["--unique"] if unique else [])
    batch = _records(capsys, argv)
    monkeypatch.setattr(Route, "solve_batch", lambda self, *args, **options: None)
    one_by_one = _records(capsys, argv)
    assert len(batch) == len(one_by_one) == len(puzzle_lines(str(path)))
    for fast, slow in zip(batch, one_by_one):
        assert set(fast.get("stats", {})) == set(slow.get("stats", {}))
        if fast["puzzle"] == NOT_UNIQUE:     # any of its solutions will do (all verified)
            for record in (fast, slow):
                record.pop("solution")
                record.pop("second_solution")
        assert _without_times(fast) == _without_times(slow)
    solved = [r for r in batch if r["status"] == "solved"]
    assert len(solved) > 60 and all(r["stats"]["variables"] > 0 for r in solved)
    assert any(r["puzzle"] == PAPER_17 for r in solved)      # written with 0s in the file


def test_cli_json_is_the_same_on_one_and_two_processes(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    outputs = []
    for jobs in (1, 2):
        code = main(["solve", str(path), "--json", "--unique", "--jobs", str(jobs)])
        out, err = capsys.readouterr()
        assert code == ExitCode.BAD_INPUT
        assert f"{path}:42: contradictory clues" in err      # its place, as before
        outputs.append([_without_times(json.loads(line)) for line in out.splitlines()])
    assert outputs[0] == outputs[1]


def test_batch_capability_belongs_to_the_route():
    texts = ROYLE[:3]
    for name in ("sat", "sat-incremental"):
        batch = ROUTES[name].solve_batch(texts, jobs=1, memory_limit=2**32, what="test")
        assert batch.shape == Shape(3, 3)
        assert sum(len(chunk) for chunk in batch.chunks) == 3
    # Routes without the capability, or options that rule it out, solve one by one.
    assert ROUTES["sat-glucose"].solve_batch(texts, memory_limit=2**32, what="t") is None
    assert ROUTES["sat"].solve_batch(texts, memory_limit=2**32, what="t",
                                     solver_cmd="cadical") is None
    assert ROUTES["exact-cover"].solve_batch(texts, memory_limit=2**32, what="t") is None
    assert template_route("mysat=cnf:cat {input}").solve_batch(
        texts, memory_limit=2**32, what="t") is None


@pytest.mark.parametrize("count", [1, 10, 999, 5_000, 49_151, 10**6])
@pytest.mark.parametrize("jobs", [1, 2, 4, 16, 64])
def test_chunk_size_rule(count, jobs):
    size = batch_chunk_size(count, jobs)
    assert CHUNK_MIN <= size <= CHUNK_MAX
    chunks, target = -(-count // size), CHUNKS_PER_WORKER * jobs
    if size == CHUNK_MIN:     # the floor binds only when even its chunks are too few
        assert -(-count // CHUNK_MIN) <= target
    elif size == CHUNK_MAX:   # the ceiling only when its chunks are enough
        assert chunks >= target - 1
    else:                     # otherwise the target: the workers' chunks come out even
        assert target - jobs <= chunks <= target


def test_chunk_size_examples():
    assert batch_chunk_size(49_151, 2) == 1000           # 49 chunks
    assert batch_chunk_size(49_151, 16) == 768           # 64 chunks: 4 per worker
