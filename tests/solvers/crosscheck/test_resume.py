"""``crosscheck --resume`` (issue 32): nothing read back is believed, nothing written is lost.

The tests of each item fail on 3788535, the tree before this file (a few guard what
held already: a second grid that is the first, or no solution; CR line ends; the kill
cycles on LF, torn and empty files):

1. a record's uniqueness claim is re-earned: "unique" is proved again by running the pair
   again (a mismatch when the route now finds a second solution), "several" must carry a
   valid, different second grid; a record holding what no fresh record holds (a verified
   grid with an error, an error record with a grid...) is a mismatch naming the file and
   line;
2. a results file with CRLF (or CR) line ends is resumed byte-exact: an interrupted resume
   leaves every record readable;
3. a compressed results file (``.gz``, ``.xz``, ``.bz2``) is compressed while the run goes
   on (a member per record) and resumes — from a finished file, a member cut off, plain
   text under a compressed name, and the other way round;
4. values no record holds (NaN, Infinity, a negative time or size, a size of no known kind)
   are refused in one line naming the file and line, and never written; a complete last
   line that is not a record is refused, not cut away;
5. a ``--unique`` resume of a run made without it completes the checks (and the other way
   round): the file ends as an uninterrupted run's;
6. fault injection: the real CLI killed (SIGKILL, SIGINT) at seeded random points, on plain,
   CRLF, gzip, torn and empty results files: no record lost, no temporary file left, the
   final file the uninterrupted run's apart from the times.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import itertools
import json
import lzma
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reductions.sudoku.puzzle_files import puzzle_texts
from solvers.cli import ExitCode, main
from solvers.crosscheck.records import RouteResult
from solvers.crosscheck.results_file import read_results
from solvers.crosscheck.run import run_crosscheck
from solvers.crosscheck.runners import Execution

from tests.conftest import INSTANCES, ROOT
from tests.fuzz_inputs import run_main
from tests.processes import child_env, default_sigint

ROUTES = ["sat", "exact-cover"]
UNIQUE_4 = [line for line in (INSTANCES / "4x4.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
SEVERAL_4 = UNIQUE_4[0][:-1] + "."          # a minimal puzzle less a clue: several solutions
DECOMPRESS = {".gz": gzip.decompress, ".xz": lzma.decompress, ".bz2": bz2.decompress}
COMPRESS = {".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}
MAGIC = {".gz": b"\x1f\x8b", ".xz": b"\xfd7zXZ\x00", ".bz2": b"BZh"}


# ----------------------------------------------------------------------------- helpers

def _puzzle_file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _crosscheck(puzzles: Path, results: Path, *extra) -> tuple[int, str, str]:
    return run_main(main, ["crosscheck", puzzles, "--routes", ",".join(ROUTES), "--jobs", "1",
                           "--json", results, *extra])


def _text(path: Path) -> str:
    """The text of a results file, decompressed by the standard module its name says."""
    data = path.read_bytes()
    return DECOMPRESS[path.suffix](data).decode() if path.suffix in DECOMPRESS \
        else data.decode()


def _dicts(path: Path) -> list[dict]:
    return [json.loads(line) for line in _text(path).splitlines() if line.strip()]


def _write_dicts(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _untimed(records) -> list[dict]:
    """Records as dicts without their measured times."""
    rows = [r if isinstance(r, dict) else json.loads(r.json_line()) for r in records]
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def _temp_files(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".part")]


class Stop(BaseException):
    """Raised by on_result to interrupt a run after some records, as Ctrl-C would."""


def _stop_after(count: int):
    seen = []

    def on_result(result):
        seen.append(result)
        if len(seen) == count:
            raise Stop
    return on_result


@pytest.fixture
def several(tmp_path) -> tuple[Path, Path]:
    """A finished ``--unique`` cross-check of four unique 4×4 puzzles and one with several
    solutions (the last): its puzzle file and its results file."""
    puzzles = _puzzle_file(tmp_path, UNIQUE_4 + [SEVERAL_4])
    results = tmp_path / "r.jsonl"
    code, _, err = _crosscheck(puzzles, results, "--unique")
    assert code == ExitCode.OK, err
    assert [r["unique"] for r in _dicts(results)] == [True] * 8 + [False] * 2
    return puzzles, results


# ----------------------------------------------------------------------------- 1. claims

def test_a_unique_claim_is_proved_again_not_believed(several):
    """On 3788535: "no mismatches: every answer verified", 5 unique, exit 0."""
    puzzles, results = several
    records = _dicts(results)
    for record in records[8:]:                  # the several-solution puzzle, lines 9 and 10
        record.update(unique=True, second_solution=None)
    _write_dicts(results, records)
    code, out, _ = _crosscheck(puzzles, results, "--unique", "--resume")
    assert code == ExitCode.MISMATCH and "no mismatches" not in out
    for line in (9, 10):
        assert f"r.jsonl line {line}: the record said the solution is unique, but run again " \
               f"the route found a second one (verified)" in out
    assert [r["unique"] for r in _dicts(results)] == [True] * 8 + [False] * 2
    assert _crosscheck(puzzles, results, "--unique", "--resume")[0] == ExitCode.OK


def test_unique_claims_run_again_and_several_verdicts_are_kept(several):
    puzzles, results = several
    texts = puzzle_texts(str(puzzles))
    ran = []
    run_crosscheck(texts, ROUTES, unique=True, results_path=results, resume=True,
                   on_result=ran.append)
    # the eight "unique" claims run again; the two "several" records, shown by their second
    # grids, are kept (re-checked)
    assert sorted((r.puzzle_id, r.route) for r in ran) == \
        sorted((pid, route) for pid, _ in texts[:4] for route in ROUTES)


@pytest.mark.parametrize("tamper, words", [
    (lambda r: r.update(unique=False), "the record says several solutions but has no second "
                                       "grid"),
    (lambda r: r.update(unique=False, second_solution=r["solution"]),
     "its second grid does not show the puzzle has several solutions"),
    (lambda r: r.update(unique=False, second_solution="1" * 16),
     "its second grid does not solve the puzzle"),
])
def test_several_must_show_its_second_grid(several, tamper, words):
    """On 3788535 the first passes (exit 0): "several" was believed without a second grid."""
    puzzles, results = several
    records = _dicts(results)
    tamper(records[2])                       # the second (unique) puzzle's sat record
    _write_dicts(results, records)
    code, out, _ = _crosscheck(puzzles, results, "--unique", "--resume")
    assert code == ExitCode.MISMATCH and f"r.jsonl line 3: {words}" in out


@pytest.mark.parametrize("tamper, words", [
    (lambda r: r.update(error="made up"),
     "the record carries an error, yet its grid solves the puzzle"),
    (lambda r: r.update(status="error", verified=None, error="crashed"),
     "the record says error but has a grid"),
    (lambda r: r.update(status="error", verified=None, solution=None, size=None,
                        size_kind=None, error=None),
     "the record says error but has no error message"),
    (lambda r: r.update(status="unknown", verified=None, solution=None, error="made up"),
     "the record says unknown but carries an error"),
    (lambda r: r.update(status="unknown", solution=None),
     "the record says unknown but has a verdict on a grid"),
])
def test_fields_no_fresh_record_has_are_mismatches(tmp_path, tamper, words):
    puzzles = _puzzle_file(tmp_path, UNIQUE_4[:2])
    results = tmp_path / "r.jsonl"
    assert _crosscheck(puzzles, results)[0] == ExitCode.OK
    records = _dicts(results)
    tamper(records[1])
    _write_dicts(results, records)
    code, out, _ = _crosscheck(puzzles, results, "--resume")
    assert code == ExitCode.MISMATCH and f"r.jsonl line 2: {words}" in out


# ----------------------------------------------------------------------------- 5. --unique

def test_a_unique_resume_completes_the_checks_of_a_run_without(several, tmp_path):
    """On 3788535: exit 0 with every record 'unchecked', the file unlike a --unique run's."""
    puzzles, reference = several
    results = tmp_path / "plain-run.jsonl"
    assert _crosscheck(puzzles, results)[0] == ExitCode.OK
    assert {r["unique"] for r in _dicts(results)} == {None}
    code, out, _ = _crosscheck(puzzles, results, "--unique", "--resume")
    assert code == ExitCode.OK and "unchecked" not in out
    assert _untimed(_dicts(results)) == _untimed(_dicts(reference))


def test_a_resume_without_unique_drops_the_checks_of_a_run_with(several, tmp_path):
    puzzles, results = several
    reference = tmp_path / "plain-run.jsonl"
    assert _crosscheck(puzzles, reference)[0] == ExitCode.OK
    ran = []
    run_crosscheck(puzzle_texts(str(puzzles)), ROUTES, results_path=results, resume=True,
                   on_result=ran.append)
    assert len(ran) == 10                   # every verdict is one this run would not make
    assert _untimed(_dicts(results)) == _untimed(_dicts(reference))


# ----------------------------------------------------------------------------- 4. values

@pytest.mark.parametrize("field, text", [
    ("seconds", "NaN"), ("seconds", "Infinity"), ("seconds", "-Infinity"),
    ("seconds", "1e999"), ("seconds", "-0.5"), ("size", "-3"), ("size_kind", '"bananas"'),
    ("size_kind", "null"),
])
def test_values_no_record_holds_are_refused(tmp_path, field, text):
    """On 3788535 NaN, Infinity and 1e999 (read as inf) were kept and written back as NaN
    and Infinity, which are not JSON; the others were kept as they were."""
    puzzles = _puzzle_file(tmp_path, UNIQUE_4[:2])
    results = tmp_path / "r.jsonl"
    assert _crosscheck(puzzles, results)[0] == ExitCode.OK
    lines = results.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    lines[1] = json.dumps(record).replace(f'"{field}": {json.dumps(record[field])}',
                                          f'"{field}": {text}') + "\n"
    assert text in lines[1]
    results.write_text("".join(lines))
    before = results.read_bytes()
    code, out, err = _crosscheck(puzzles, results, "--resume")
    assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1
    assert f"r.jsonl line 2: not a cross-check record" in err
    assert results.read_bytes() == before


def test_a_record_is_always_written_as_json():
    record = RouteResult("p", UNIQUE_4[0], "sat", "solved", math.nan)
    with pytest.raises(ValueError):
        record.json_line()


def test_a_complete_last_line_that_is_no_record_is_refused_not_cut(tmp_path):
    """On 3788535 a last line with its newline that did not parse was cut off as if torn:
    whatever it held was lost without a word."""
    puzzles = _puzzle_file(tmp_path, UNIQUE_4[:2])
    results = tmp_path / "r.jsonl"
    assert _crosscheck(puzzles, results)[0] == ExitCode.OK
    with open(results, "a") as handle:
        handle.write('{"puzzle_id": "p.txt:2", "route": "sat", "status": "solved"} x\n')
    before = results.read_bytes()
    code, _, err = _crosscheck(puzzles, results, "--resume")
    assert code == ExitCode.BAD_INPUT and "r.jsonl line 5: not a cross-check record" in err
    assert results.read_bytes() == before


# ----------------------------------------------------------------------------- 2. line ends

@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_any_line_ends_resume_byte_exact(tmp_path, end):
    """On 3788535 the file was cut one byte a line short: "line N: not a cross-check
    record" at the next resume."""
    texts = [(f"p{i}", text) for i, text in enumerate(UNIQUE_4 + [SEVERAL_4])]
    full = run_crosscheck(texts, ROUTES)
    results = tmp_path / "r.jsonl"
    run_crosscheck(texts[:2], ROUTES, results_path=results)
    kept = results.read_text().replace("\n", end)
    results.write_bytes((kept + kept.split(end)[0][:60]).encode())   # and a torn last line
    with pytest.raises(Stop):
        run_crosscheck(texts, ROUTES, results_path=results, resume=True,
                       on_result=_stop_after(2))
    assert len(read_results(results)) == 6
    assert results.read_bytes().startswith(kept.encode())      # the records kept as they were
    resumed = run_crosscheck(texts, ROUTES, results_path=results, resume=True)
    assert _untimed(resumed) == _untimed(full) == _untimed(read_results(results))
    assert b"\r" not in results.read_bytes()


def test_a_byte_order_mark_loses_no_record(tmp_path):
    """Reading drops a leading byte-order mark, so the records' lengths fall 3 bytes short
    of the file's: a cut there would tear the last record kept. The file is rewritten."""
    texts = [(f"p{i}", text) for i, text in enumerate(UNIQUE_4 + [SEVERAL_4])]
    full = run_crosscheck(texts, ROUTES)
    results = tmp_path / "r.jsonl"
    run_crosscheck(texts[:2], ROUTES, results_path=results)
    kept = results.read_bytes()
    results.write_bytes(b"\xef\xbb\xbf" + kept + kept[:60])        # and a torn last line
    with pytest.raises(Stop):
        run_crosscheck(texts, ROUTES, results_path=results, resume=True,
                       on_result=_stop_after(2))
    assert results.read_bytes().startswith(kept)                  # every record kept whole
    assert len(read_results(results)) == 6
    resumed = run_crosscheck(texts, ROUTES, results_path=results, resume=True)
    assert _untimed(resumed) == _untimed(full) == _untimed(read_results(results))


# ----------------------------------------------------------------------------- 3. compressed

@pytest.mark.parametrize("suffix", [".gz", ".xz", ".bz2"])
def test_compressed_results_are_compressed_throughout_and_resume(tmp_path, suffix):
    """On 3788535 the records went in as plain text (the file was no gzip until the run
    finished), and a resumed finished file got plain text after its compressed data."""
    texts = [(f"p{i}", text) for i, text in enumerate(UNIQUE_4 + [SEVERAL_4])]
    full = run_crosscheck(texts, ROUTES, unique=True)
    results = tmp_path / f"r.jsonl{suffix}"
    with pytest.raises(Stop):
        run_crosscheck(texts, ROUTES, unique=True, results_path=results,
                       on_result=_stop_after(3))
    assert results.read_bytes().startswith(MAGIC[suffix])
    assert len(_dicts(results)) == 3                        # a member per record
    member = COMPRESS[suffix](_text(results).splitlines(keepends=True)[0].encode())
    with open(results, "ab") as handle:                     # a member cut off
        handle.write(member[:len(member) // 2])
    assert len(read_results(results)) == 3
    with pytest.raises(Stop):
        run_crosscheck(texts, ROUTES, unique=True, results_path=results, resume=True,
                       on_result=_stop_after(2))
    assert len(_dicts(results)) == 5 and len(read_results(results)) == 5
    resumed = run_crosscheck(texts, ROUTES, unique=True, results_path=results, resume=True)
    assert _untimed(resumed) == _untimed(full) == _untimed(_dicts(results))
    # a finished file resumed with one more route: still one compressed file
    more = run_crosscheck(texts, [*ROUTES, "exact-cover-dlx"], unique=True,
                          results_path=results, resume=True)
    assert len(more) == 15 and _untimed(_dicts(results)) == _untimed(more)
    assert _temp_files(tmp_path) == []


@pytest.mark.parametrize("name, content", [("r.jsonl.gz", "plain"), ("r.jsonl", "gzip")])
def test_a_file_whose_content_is_not_what_its_name_says_is_rewritten(tmp_path, name,
                                                                     content):
    texts = [(f"p{i}", text) for i, text in enumerate(UNIQUE_4)]
    full = run_crosscheck(texts, ROUTES)
    plain = tmp_path / "first.jsonl"
    run_crosscheck(texts[:2], ROUTES, results_path=plain)
    results = tmp_path / name
    data = plain.read_bytes()
    results.write_bytes(gzip.compress(data) if content == "gzip" else data)
    with pytest.raises(Stop):
        run_crosscheck(texts, ROUTES, results_path=results, resume=True,
                       on_result=_stop_after(1))
    assert results.read_bytes().startswith(b"\x1f\x8b") == name.endswith(".gz")
    assert len(read_results(results)) == 5
    resumed = run_crosscheck(texts, ROUTES, results_path=results, resume=True)
    assert _untimed(resumed) == _untimed(full) == _untimed(_dicts(results))


# ----------------------------------------------------------------------------- 6. kills

VARIANTS = ["lf", "crlf", "gzip", "torn", "empty"]


def _kill_puzzles(count: int, seed: int) -> list[str]:
    """``count`` distinct 4×4 puzzles: the shipped ones with their digits renamed, and some
    with a clue less (several solutions)."""
    rng = random.Random(seed)
    found = []
    for perm in itertools.permutations("1234"):
        for line in UNIQUE_4:
            text = line.translate(str.maketrans("1234", "".join(perm)))
            if rng.random() < 0.15:
                clue = max(i for i, c in enumerate(text) if c != ".")
                text = text[:clue] + "." + text[clue + 1:]
            found.append(text)
    rng.shuffle(found)
    return found[:count]


def _start_file(path: Path, variant: str, first: Path) -> None:
    """The results file a variant starts from: the records of ``first`` (a finished run
    over some of the puzzles) as LF, CRLF, gzip or with a torn tail; or an empty file."""
    data = first.read_bytes()
    path.write_bytes({"lf": data, "crlf": data.replace(b"\n", b"\r\n"),
                      "gzip": gzip.compress(data), "torn": data + data[:77],
                      "empty": b""}[variant])


def _tear(path: Path, variant: str, rng: random.Random) -> None:
    """What a write cut off leaves, added after a kill: part of a line, or of a member."""
    if variant == "torn":
        line = path.read_bytes().split(b"\n")[0].rstrip(b"\r")
        with open(path, "ab") as handle:
            handle.write(line[:rng.randrange(1, len(line))])
    elif variant == "gzip":
        try:
            gzip.decompress(path.read_bytes())
        except EOFError:    # torn already: a writer appends only where the file ends whole
            return
        member = gzip.compress(read_results(path)[0].json_line())
        with open(path, "ab") as handle:
            handle.write(member[:rng.randrange(1, len(member))])


def _file_state(path: Path) -> tuple | None:
    with contextlib.suppress(FileNotFoundError):
        status = path.stat()
        return status.st_ino, status.st_size, status.st_mtime_ns
    return None


def _wait_for_a_kill_point(proc: subprocess.Popen, results: Path, rng: random.Random, *,
                           early: bool) -> None:
    """Wait for a random moment of the run: where ``early`` may be, one time in five any
    moment of its first 0.4 s (Python starting, the file read, cut or rewritten); else the
    moment the file has grown or shrunk by a random number of bytes (up to about 25
    records) since the start, or was replaced (a rewrite) — records being appended, or
    just written."""
    if early and rng.random() < 0.2:
        time.sleep(rng.uniform(0, 0.4))
        return
    start, change = _file_state(results), rng.randrange(1, 8000)
    deadline = time.monotonic() + 20
    while proc.poll() is None and time.monotonic() < deadline:
        now = _file_state(results)
        if now is not None and (start is None or now[0] != start[0]
                                or abs(now[1] - start[1]) >= change):
            return
        time.sleep(0.001)


def _run_once(argv: list[str], work: Path, results: Path, rng: random.Random, *,
              kill: bool, early: bool = True) -> signal.Signals | None:
    """Run the CLI once: to its end, or (``kill``) killed by SIGKILL or SIGINT at a random
    moment (:func:`_wait_for_a_kill_point`). Asserts its exit code; returns the signal that
    ended it, if one did."""
    with open(work / "stderr", "wb") as stderr:
        proc = subprocess.Popen(argv, cwd=ROOT, env=child_env(work), stdout=subprocess.DEVNULL,
                                stderr=stderr, start_new_session=True,
                                preexec_fn=default_sigint)
    signum, start = None, _file_state(results)
    try:
        if kill:
            _wait_for_a_kill_point(proc, results, rng, early=early)
            signum = rng.choice([signal.SIGKILL, signal.SIGINT])
            proc.send_signal(signum)
        code = proc.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    error = (work / "stderr").read_text()
    early = _file_state(results) == start         # nothing written yet: maybe at an import
    assert code in _EXPECTED[signum] or _python_own_ending(signum, code, error, early), \
        (signum, code, error)
    return None if code == 0 else signum


_EXPECTED = {None: {0}, signal.SIGKILL: {0, -signal.SIGKILL},
             signal.SIGINT: {0, ExitCode.INTERRUPTED}}
"""The exit codes of a run not killed, killed by SIGKILL, interrupted by Ctrl-C (0: it
had finished)."""


def _python_own_ending(signum, code: int, error: str, early: bool) -> bool:
    """A Ctrl-C where Python, not the command line, has it:
    - in Python's own start-up, before the command line's entry point is reached (the file
      untouched: ``early``): Python's traceback, and its exit by the signal (or 1);
    - in Python's shutdown, once the command has returned: Python has put the default
      action back, and the process ends by the signal, silently (a shell says 130).
    Everything in between is the contract's 130 (tests/solvers/cli/test_contract.py)."""
    if signum != signal.SIGINT:
        return False
    starting = early and code in (1, -signal.SIGINT) and "solvers/" not in error
    ending = code == -signal.SIGINT and error == ""
    return starting or ending


def _pairs(path: Path) -> set[tuple[str, str]]:
    return {(r.puzzle_id, r.route) for r in read_results(path)} if path.exists() else set()


def _kill_cycles(tmp_path: Path, variant: str, *, kills: int, seed: int, puzzles: int,
                 unique: bool = False) -> dict[str, int]:
    """Start the real CLI with --resume on a ``variant`` results file and kill it (SIGKILL
    or SIGINT, at a seeded random moment) ``kills`` times, then let it finish; asserts
    that no record in the file before a kill is missing after it, that the final file is
    an uninterrupted run's apart from the times, and that no temporary file is left.
    Returns the counts: runs, kills, records lost."""
    rng = random.Random(seed)
    work = tmp_path / variant
    work.mkdir()
    puzzle_file = _puzzle_file(work, _kill_puzzles(puzzles, seed))
    texts = puzzle_texts(str(puzzle_file))
    options = {"unique": unique, "execution": Execution(jobs=1)}
    reference = run_crosscheck(texts, ROUTES, **options)
    first = work / "first.jsonl"
    run_crosscheck(texts[:puzzles // 3], ROUTES, results_path=first, **options)
    results = work / ("r.jsonl.gz" if variant == "gzip" else "r.jsonl")
    _start_file(results, variant, first)
    argv = [sys.executable, "-m", "solvers.cli", "crosscheck", str(puzzle_file), "--routes",
            ",".join(ROUTES), "--jobs", "1", "--json", str(results), "--resume",
            *(["--unique"] if unique else [])]
    counts = {"runs": 0, "kills": 0, "lost": 0}
    for cycle in range(kills + 1):
        before, temps = _pairs(results), set(_temp_files(work))
        # the first kill lands while the file changes: every variant gets one there
        killed = _run_once(argv, work, results, rng, kill=cycle < kills, early=cycle > 0)
        counts["runs"] += 1
        counts["kills"] += killed is not None
        if killed == signal.SIGINT:        # Ctrl-C leaves no temporary file, SIGKILL may
            assert set(_temp_files(work)) <= temps, (variant, cycle)
        lost = before - _pairs(results)           # read_results: the file reads, too
        counts["lost"] += len(lost)
        assert not lost, (variant, cycle, sorted(lost)[:3])
        if cycle < kills:
            _tear(results, variant, rng)
    assert _untimed(read_results(results)) == _untimed(reference)
    final = results.read_bytes()
    if variant == "gzip":
        assert final.startswith(b"\x1f\x8b")
    else:
        assert b"\r" not in final
    assert _temp_files(work) == []
    return counts


@pytest.mark.parametrize("variant", VARIANTS)
def test_kills_at_random_points_lose_no_record(tmp_path, variant):
    counts = _kill_cycles(tmp_path, variant, kills=2, seed=VARIANTS.index(variant),
                          puzzles=90)
    assert counts["lost"] == 0 and counts["runs"] == 3


@pytest.mark.slow
@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_kills_lose_no_record(tmp_path, variant, unique):
    counts = _kill_cycles(tmp_path, variant, kills=25, seed=100 + VARIANTS.index(variant),
                          puzzles=96, unique=unique)
    print(f"\n{variant}{' --unique' if unique else ''}: {counts['runs']} runs, "
          f"{counts['kills']} killed before the end, {counts['lost']} records lost")
    assert counts["lost"] == 0
