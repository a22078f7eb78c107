"""``solve FILE`` on a route's batch path: the route's batch capability, the chunk size
rule, and the --json records of solved runs made from one template, byte for byte what the
per-record path prints."""

from __future__ import annotations

import argparse
import json

import pytest

from reductions.grid import Shape, puzzle_lines
from solvers.cli import ExitCode, common, main
from solvers.cli.sat import _chunk_reports, _solved
from solvers.routes import ROUTES
from solvers.routes.registry import template_route
from solvers.routes.sat import CHUNK_MAX, CHUNK_MIN, CHUNKS_PER_WORKER, batch_chunk_size

from .conftest import INSTANCES
from .test_grid import PAPER_17

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
    path = tmp_path / 'we"ird\\ näme.txt'
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
        per_record += _rendered(_solved(chunk.items(), lines, batch.shape, batch.solver), via)
    assert runs >= 4          # the template made the solved runs' lines
    assert fast == per_record
    records = [json.loads(line) for line in fast.splitlines()]
    assert len(records) == len(lines)
    assert {r["status"] for r in records} == {"solved", "no solution", "error"}
    assert records[0]["puzzle_id"] == f"{lines.source}:1"
    if unique:
        assert [r["unique"] for r in records if r["puzzle"] == NOT_UNIQUE] == [False, False]


def test_cli_json_is_the_same_on_one_and_two_processes(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    outputs = []
    for jobs in (1, 2):
        code = main(["solve", str(path), "--json", "--unique", "--jobs", str(jobs)])
        out, err = capsys.readouterr()
        assert code == ExitCode.BAD_INPUT
        assert f"{path}:42: contradictory clues" in err      # its place, as before
        outputs.append(out)
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
