"""``sudoku-bridge rules``: grids, explanations, JSON records, summaries and exit codes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys

import pytest

from reductions.sudoku.grid import format_grid, parse_grid
from reductions.rules.engine import RULES
from solvers import cli
from solvers.routes import deduction
from solvers.routes.sat import solve_puzzle
from solvers.runtime import processes

from tests.conftest import INSTANCES, ROOT, instance_puzzles
from tests.processes import is_running, wait_until


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_solved_with_explanation(capsys):
    puzzle = instance_puzzles("royle17-sample300.txt")[0]
    code, out, _ = run(capsys, "rules", format_grid(puzzle), "--explain")
    assert code == 0
    assert out.startswith("1. hidden-single: r")
    assert "is the only place for" in out
    assert "solved by rules up to level 1" in out
    grid_lines = [line for line in out.splitlines() if line.startswith(" ") and "|" in line]
    solution = solve_puzzle(puzzle).grid
    assert parse_grid("\n".join(grid_lines)) == solution


def test_unknown_prints_candidates_and_exits_3(capsys):
    puzzle = instance_puzzles("hardest1905-sample100.txt")[0]
    code, out, _ = run(capsys, "rules", format_grid(puzzle))
    assert code == 3
    assert "{" in out and out.rstrip().splitlines()[-1].startswith("unknown: no rule makes")


def test_no_solution_exits_1(capsys):
    code, out, _ = run(capsys, "rules", "12345678" + "." * 8 + "9" + "." * 64)
    assert code == 1 and out.startswith("no solution:")


def test_max_level_and_rule_choice(capsys):
    puzzle = format_grid(instance_puzzles("top1465-sample100.txt")[4])   # needs level 13
    code_low, _, _ = run(capsys, "rules", puzzle, "--max-level", "2")
    code_all, _, _ = run(capsys, "rules", puzzle)
    code_local, _, _ = run(capsys, "rules", puzzle, "--max-level", "12")
    assert (code_low, code_local, code_all) == (3, 3, 0)
    code, _, err = run(capsys, "rules", puzzle, "--rules", "hidden-single,bogus")
    assert code == 2 and "unknown rule 'bogus'" in err
    code, _, err = run(capsys, "rules", puzzle, "--max-level", "0")
    assert code == 2 and "out of range" in err


def test_file_json_records_and_summary(capsys, tmp_path):
    lines = [format_grid(p) for p in instance_puzzles("top1465-sample100.txt")[:4]]
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines + ["12345"]) + "\n")
    code, out, err = run(capsys, "rules", path, "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2                        # the bad line
    assert [r["status"] for r in records][-1] == "error"
    for record, line in zip(records, lines):
        assert record["status"] in ("solved", "unknown")
        assert len(record["grid"]) == 81
        assert record["level"] == max((RULES[s["rule"]].level for s in record["steps"]),
                                      default=0)
        assert set(record) >= {"status", "grid", "level", "rules_used", "steps"}
        if record["status"] == "solved":
            assert record["grid"] == format_grid(solve_puzzle(parse_grid(line)).grid)
        else:
            assert len(record["candidates"]) == 81
    assert "solved by hardest level" in err and "steps per rule" in err


def test_file_with_explanation_names_each_puzzle_and_its_steps(capsys, tmp_path):
    """On 3788535 ``--explain`` was ignored for a file of several puzzles; now each puzzle
    gets a header naming it and its steps (those of its JSON record), then its line."""
    puzzles = instance_puzzles("royle17-sample300.txt", 3)
    path = tmp_path / "p.txt"
    path.write_text("\n".join([format_grid(p) for p in puzzles] + ["12345"]) + "\n")
    code, out, _ = run(capsys, "rules", path, "--explain", "--jobs", "1")
    assert code == 2                        # the bad line
    _, plain, _ = run(capsys, "rules", path, "--jobs", "1")
    _, records, _ = run(capsys, "rules", path, "--json", "--jobs", "1")
    blocks = []
    for text in out.splitlines():
        if text == f"{path}:{len(blocks) + 1}:":        # the header of the next puzzle
            blocks.append([])
        else:
            blocks[-1].append(text)
    assert len(blocks) == 4
    for number, (block, line, record) in enumerate(zip(blocks, plain.splitlines(),
                                                       records.splitlines()), 1):
        *steps, last = block
        if number == 4:
            assert steps == [] and last == "error" == line
            continue
        assert last == line                               # the line --explain adds to
        assert [s.split(". ", 1)[1].split(":")[0] for s in steps] == \
            [s["rule"] for s in json.loads(record)["steps"]]
        assert [int(s.split(".")[0]) for s in steps] == list(range(1, len(steps) + 1))


def test_file_lines_and_list(capsys):
    code, out, err = run(capsys, "rules", INSTANCES / "unsolvable.txt")
    assert code == 1
    assert all("\tno solution\t" in line for line in out.splitlines())
    code, out, _ = run(capsys, "rules", "--list")
    assert code == 0 and "bilocal-conflicting-paths" in out and out.startswith(" 1  hidden")


def test_file_on_worker_processes_in_input_order(capsys, tmp_path, monkeypatch):
    """--jobs 2 (three chunks, two workers, the work taken to pay for them) prints what
    --jobs 1 prints, line for line, a bad line in the middle included."""
    monkeypatch.setattr(deduction, "POOL_PAYS_SECONDS", 0.0)
    lines = [format_grid(p) for p in instance_puzzles("royle17-sample300.txt", 40)]
    lines.insert(17, "12345")
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines) + "\n")
    for extra in ([], ["--json"]):
        alone = run(capsys, "rules", path, "--jobs", "1", *extra)
        pooled = run(capsys, "rules", path, "--jobs", "2", *extra)
        assert alone == pooled
        assert alone[0] == 2 and len(alone[1].splitlines()) == 41
        assert "bad input 1" in alone[2]


@pytest.mark.parametrize("copies, pooled", [(1, False), (10, True)])
def test_a_pool_starts_only_when_the_work_pays_for_it(monkeypatch, copies, pooled):
    """300 17-clue puzzles (about a second of work) are deduced in this process: workers
    cost more than they save there; ten times as many go to the workers."""
    texts = [(str(k), format_grid(p)) for k, p in
             enumerate(instance_puzzles("royle17-sample300.txt"))] * copies
    started = []

    def no_pool(jobs, *args, **kwargs):
        started.append(jobs)
        raise RuntimeError("a pool was started")
    monkeypatch.setattr(processes, "worker_pool", no_pool)
    grades = deduction.grade_in_order(texts[:40], text_length, jobs=2)
    assert list(grades) == [len(t) for _, t in texts[:40]] and started == []
    grades = deduction.grade_in_order(texts, text_length, jobs=2)
    if pooled:
        with pytest.raises(RuntimeError, match="a pool was started"):
            list(grades)
        assert started == [2]
    else:
        assert list(grades) == [len(t) for _, t in texts] and started == []


def text_length(label: str, text: str) -> int:
    return len(text)


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (threads come and go while we read)."""
    found = []
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(FileNotFoundError):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    found += [int(child) for child in handle.read().split()]
    return found


@pytest.mark.parametrize("signum, code, word", [(signal.SIGINT, 130, "interrupted"),
                                                (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_stops_the_workers(tmp_path, signum, code, word):
    """A file on two workers, interrupted: the command exits 130 (143), one line, and its
    workers are gone within two seconds."""
    lines = [format_grid(p) for p in instance_puzzles("hardest1905-sample100.txt")] * 30
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "solvers.cli", "rules", str(path),
                             "--jobs", "2"], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert wait_until(lambda: len(_children(proc.pid)) == 2 or proc.poll() is not None,
                          20)
        workers = _children(proc.pid)
        assert proc.poll() is None and len(workers) == 2
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=10)
        assert proc.returncode == code and err.decode().strip() == f"sudoku-bridge: {word}"
        assert wait_until(lambda: not any(is_running(pid) for pid in workers), 2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
