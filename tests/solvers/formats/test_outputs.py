"""Output files (solvers/formats/atomic.py and every command that writes): bad targets are
refused before any work, in one line, with nothing created and the device or FIFO left as it
was; files of one command appear together or not at all; no temporary file survives Ctrl-C,
SIGTERM or a write error, and a later write removes those of a writer killed by SIGKILL.

The devices and FIFOs here are made by the tests in tmp_path (never /dev/*)."""

from __future__ import annotations

import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solvers import cli
from solvers.cli import ExitCode
from solvers.formats.atomic import (OutputError, OutputGroup, atomic_write,
                                    check_output_target, remove_stale_temps, temp_files_of)
from solvers.formats.dimacs import parse_cnf
from solvers.formats.sidecar import load_hcp_export, sidecar_path

from tests.conftest import INSTANCES, ROOT
from tests.reductions.sudoku.test_grid import PAPER_17

NISHIO_CNF = INSTANCES / "formulas" / "nishio-sat-example.cnf"
NRPATH_CNF = INSTANCES / "formulas" / "nrpath-example-sat.cnf"


def run(capsys, *argv):
    """The CLI in this process: (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*argv, preexec_fn=None, stdout=subprocess.PIPE, timeout=120):
    """The CLI in a child process running this worktree's code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "solvers.cli", *map(str, argv)],
                          stdout=stdout, stderr=subprocess.PIPE, text=True, env=env,
                          preexec_fn=preexec_fn, timeout=timeout)


def start_process(*argv) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "solvers.cli", *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def listing(directory: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry (hidden ones too) with its type, device number and size."""
    out = {}
    for entry in os.scandir(directory):
        st = entry.stat(follow_symlinks=False)
        out[entry.name] = (stat.S_IFMT(st.st_mode), st.st_rdev, st.st_size)
    return out


# ----------------------------------------------------------------------------- bad targets

def make_target(kind: str, tmp_path: Path) -> str:
    """A bad output target of the given kind, made here (or skip where not permitted)."""
    if kind == "directory":
        (tmp_path / "dir").mkdir()
        return str(tmp_path / "dir")
    if kind == "empty name":
        return ""
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return str(tmp_path / "fifo")
    if kind == "char device":
        try:
            os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("creating a device node needs privileges (os.mknod refused)")
        return str(tmp_path / "null")
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(tmp_path / "sock"))
        sock.close()
        return str(tmp_path / "sock")
    if kind == "symlink to fifo":
        os.mkfifo(tmp_path / "fifo")
        os.symlink(tmp_path / "fifo", tmp_path / "link")
        return str(tmp_path / "link")
    if kind == "under /proc":
        return "/proc/sudoku-bridge-test-output"
    if kind == "under /sys":
        return "/sys/sudoku-bridge-test-output"
    if kind == "missing directory":
        return str(tmp_path / "no" / "such" / "dir" / "out.txt")
    if kind == "file as directory":
        (tmp_path / "plain").write_text("x\n")
        return str(tmp_path / "plain" / "out.txt")
    if kind == "file with a trailing slash":
        (tmp_path / "p.txt").write_text("keep me\n")
        return str(tmp_path / "p.txt") + "/"
    if kind == "new name with a trailing slash":
        return str(tmp_path / "new.txt") + "/"
    if kind == "file then /.":
        (tmp_path / "p.txt").write_text("keep me\n")
        return str(tmp_path / "p.txt") + "/."
    raise AssertionError(kind)


BAD_TARGETS = {
    "directory": "is a directory",
    "empty name": "empty file name",
    "fifo": "is a FIFO",
    "char device": "is a character device",
    "socket": "is a socket",
    "symlink to fifo": "is a FIFO",
    "under /proc": "is under /proc",
    "under /sys": "is under /sys",
    "missing directory": "does not exist",
    "file as directory": "Not a directory",
    # On 3788535 the slash was dropped: p.txt was replaced (`generate -o p.txt/`).
    "file with a trailing slash": "names a directory",
    "new name with a trailing slash": "names a directory",
    "file then /.": "names a directory",
}


def command_argv(command: str, out: str, tmp_path: Path) -> list:
    """The command line of every command that writes, with ``out`` in one output option
    (and its inputs written to tmp_path)."""
    cells = tmp_path / "in-S.txt"
    cells.write_text("####\n####\n####\n####\n")
    graph = tmp_path / "in-G.txt"
    graph.write_text("directed p=p q=q\np a 0\na q 1\n")
    good = str(tmp_path / "ok")
    return {
        "emit cnf": ["emit", "cnf", PAPER_17, "-o", out],
        "emit exact-cover": ["emit", "exact-cover", PAPER_17, "-o", out],
        "emit ilp": ["emit", "ilp", PAPER_17, "-o", out],
        "emit hcp": ["emit", "hcp", PAPER_17, "--stats", "-o", out],   # --stats prints early
        "gadget nishio -o": ["gadget", "nishio", NISHIO_CNF, "-o", out],
        "gadget nishio --map": ["gadget", "nishio", NISHIO_CNF, "-o", good + ".txt",
                                "--map", out],
        "gadget nishio --picture": ["gadget", "nishio", NISHIO_CNF, "--picture", out],
        "gadget nrpath -o": ["gadget", "nrpath", NRPATH_CNF, "-o", out],
        "gadget nrpath --dot": ["gadget", "nrpath", NRPATH_CNF, "-o", good + ".txt",
                                "--dot", out],
        "gadget nrpath --graphml": ["gadget", "nrpath", NRPATH_CNF, "-o", good + ".txt",
                                    "--graphml", out],
        "nishio -o": ["nishio", cells, "-o", out],
        "nishio --picture": ["nishio", cells, "--picture", out],
        "nonrepetitive --dot": ["nonrepetitive", graph, "--cyclic-edges", "--dot", out],
        "crosscheck --json": ["crosscheck", PAPER_17, "--routes", "sat", "--json", out],
        "crosscheck --plot": ["crosscheck", PAPER_17, "--routes", "sat", "--plot", out],
        "generate -o": ["generate", "--size", "4", "--seed", "1", "-o", out],
    }[command]


COMMAND_NAMES = ["emit cnf", "emit exact-cover", "emit ilp", "emit hcp", "gadget nishio -o",
                 "gadget nishio --map", "gadget nishio --picture", "gadget nrpath -o",
                 "gadget nrpath --dot", "gadget nrpath --graphml", "nishio -o",
                 "nishio --picture", "nonrepetitive --dot", "crosscheck --json",
                 "crosscheck --plot", "generate -o"]


@pytest.mark.parametrize("kind", list(BAD_TARGETS))
@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_bad_target_is_one_line_and_touches_nothing(capsys, tmp_path, command, kind):
    target = make_target(kind, tmp_path)
    argv = command_argv(command, target, tmp_path)
    before = listing(tmp_path)
    reader = None
    if "fifo" in kind:
        # A reader on the FIFO, so that a buggy writer would not block but leave data here.
        reader = os.open(tmp_path / "fifo", os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, out, err = run(capsys, *argv)
        if reader is not None:
            assert os.read(reader, 1) == b""          # nothing was written into the FIFO
    finally:
        if reader is not None:
            os.close(reader)
    assert code == ExitCode.BAD_INPUT, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudoku-bridge: error: "), err
    assert BAD_TARGETS[kind] in lines[0]
    assert (target or "empty file name") in lines[0]
    assert listing(tmp_path) == before                 # nothing created, nothing replaced
    if kind.startswith("under"):
        assert not Path(target).exists()


def test_a_device_keeps_its_kind_and_number(capsys, tmp_path):
    """The original fault: -o /dev/null as root replaced the device with a regular file."""
    device = make_target("char device", tmp_path)
    for argv in (["emit", "cnf", PAPER_17, "-o", device],
                 ["emit", "hcp", PAPER_17, "-o", device],
                 ["crosscheck", PAPER_17, "--routes", "sat", "--json", device]):
        code, _, err = run(capsys, *argv)
        assert code == ExitCode.BAD_INPUT and "is a character device" in err
        st = os.stat(device)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def test_the_sidecar_target_is_checked_too(capsys, tmp_path):
    graph = tmp_path / "g.hcp"
    sidecar_path(graph).mkdir()
    code, _, err = run(capsys, "emit", "hcp", PAPER_17, "-o", graph)
    assert code == ExitCode.BAD_INPUT
    assert f"sidecar {graph}.json: is a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.hcp.json"]


def test_two_outputs_naming_one_file_are_refused(capsys, tmp_path):
    out = tmp_path / "g.txt"
    code, _, err = run(capsys, "gadget", "nrpath", NRPATH_CNF, "-o", out, "--dot", out)
    assert code == ExitCode.BAD_INPUT and "the same file as -o" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv", [
    ["emit", "ilp", PAPER_17],
    ["emit", "hcp", PAPER_17],
    ["gadget", "nishio", NISHIO_CNF],
    ["gadget", "nrpath", NRPATH_CNF],
])
def test_stdout_only_where_it_makes_sense(capsys, argv):
    code, out, err = run(capsys, *argv, "-o", "-")
    assert code == ExitCode.BAD_INPUT and out == ""
    assert "-o -: this output cannot go to stdout" in err


@pytest.mark.parametrize("target, suffix", [("cnf", ".cnf"), ("exact-cover", ".dlx")])
def test_dash_writes_to_stdout_the_same_bytes(capsys, tmp_path, target, suffix):
    path = tmp_path / f"p{suffix}"
    assert run(capsys, "emit", target, PAPER_17, "-o", path)[0] == ExitCode.OK
    code, out, err = run(capsys, "emit", target, PAPER_17, "-o", "-")
    assert code == ExitCode.OK
    assert out == path.read_text()                  # the summary went to stderr
    assert err.startswith("wrote -: ")
    if target == "cnf":
        assert len(parse_cnf(out).clauses) > 0


def test_dash_through_a_real_descriptor(tmp_path):
    path = tmp_path / "p.cnf"
    assert run_process("emit", "cnf", PAPER_17, "-o", path).returncode == 0
    with open(tmp_path / "stdout", "w") as sink:
        done = run_process("emit", "cnf", PAPER_17, "-o", "-", stdout=sink)
    assert done.returncode == 0 and done.stderr.startswith("wrote -: ")
    assert (tmp_path / "stdout").read_bytes() == path.read_bytes()


def test_symlink_to_a_regular_file_is_kept(capsys, tmp_path):
    real = tmp_path / "data" / "real.cnf"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.cnf"
    link.symlink_to(real)
    assert run(capsys, "emit", "cnf", PAPER_17, "-o", link)[0] == ExitCode.OK
    assert link.is_symlink() and real.read_text().startswith("c sudoku-bridge cnf")
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.cnf"]


def test_replacing_keeps_the_permissions(capsys, tmp_path):
    path = tmp_path / "p.cnf"
    path.write_text("old\n")
    path.chmod(0o600)
    assert run(capsys, "emit", "cnf", PAPER_17, "-o", path)[0] == ExitCode.OK
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() != "old\n"


def test_longest_names_get_temporary_files_that_fit(tmp_path):
    for name in ("a" * 255, "é" * 127):
        target = tmp_path / name
        with atomic_write(target) as out:
            (temp,) = temp_files_of(target)
            assert len(os.fsencode(temp.name)) <= 255
            out.write("x")
        assert target.read_text() == "x"
    assert len(list(tmp_path.iterdir())) == 2


def test_check_output_target_returns_the_file_or_none(tmp_path):
    assert check_output_target("-", stdout_ok=True) is None
    assert check_output_target(tmp_path / "new.txt") == tmp_path / "new.txt"
    with pytest.raises(OutputError, match="cannot go to stdout"):
        check_output_target("-")


# ----------------------------------------------------------------------------- groups

def test_a_group_writes_all_or_nothing(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a\n")
    b.write_text("old b\n")
    for failure in (RuntimeError("the second writer failed"), KeyboardInterrupt()):
        with pytest.raises(type(failure)):
            with OutputGroup() as group:
                with atomic_write(a, group=group) as out:
                    out.write("new a\n")
                assert a.read_text() == "old a\n"      # not renamed before the group ends
                with atomic_write(b, group=group) as out:
                    out.write("new b")
                    raise failure
        assert (a.read_text(), b.read_text()) == ("old a\n", "old b\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    with OutputGroup() as group:
        for path in (a, b):
            with atomic_write(path, group=group) as out:
                out.write(f"new {path.name}\n")
        assert group.content_path(a) != a and group.content_path(a).read_text() == "new a.txt\n"
    assert (a.read_text(), b.read_text()) == ("new a.txt\n", "new b.txt\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


class _Terminated(KeyboardInterrupt):
    pass


def test_sigterm_during_the_renames_waits_until_all_are_done(tmp_path, monkeypatch):
    """A signal that arrives between two renames is held: both files are in place, then the
    exception of the handler (as main's for SIGTERM) ends the run."""
    def on_term(signum, frame):
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, on_term)
    real_replace = os.replace
    calls = []

    def replace_then_signal(source, target):
        real_replace(source, target)
        calls.append(target)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)          # the handler would run here if it were not held
    monkeypatch.setattr(os, "replace", replace_then_signal)
    try:
        with pytest.raises(_Terminated):
            with OutputGroup() as group:
                for name in ("g.hcp", "g.hcp.json"):
                    with atomic_write(tmp_path / name, group=group) as out:
                        out.write(name)
        assert len(calls) == 2
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g.hcp", "g.hcp.json"]
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------------- kills

def empty_grid_file(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"empty{n}.txt"
    path.write_text("\n".join(" ".join(["0"] * n) for _ in range(n)) + "\n")
    return path


def wait_for_temp(process: subprocess.Popen, target: Path, limit: float = 60) -> list[Path]:
    """Poll until ``process`` has a temporary file for ``target`` (it is mid-write)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        temps = temp_files_of(target)
        if temps:
            return temps
        assert process.poll() is None, "the writer ended before it was caught mid-write"
        time.sleep(0.002)
    raise AssertionError("no temporary file appeared")


def assert_gone(process: subprocess.Popen) -> None:
    """The writer is reaped and nothing runs under its id (it starts no children)."""
    assert process.returncode is not None and not Path(f"/proc/{process.pid}").exists()


@pytest.mark.parametrize("signum, code, message", [
    (signal.SIGTERM, ExitCode.TERMINATED, "terminated"),
    (signal.SIGINT, ExitCode.INTERRUPTED, "interrupted"),
])
def test_signal_mid_write_keeps_the_old_pair(capsys, tmp_path, signum, code, message):
    graph = tmp_path / "g.hcp"
    assert run(capsys, "emit", "hcp", PAPER_17, "-o", graph)[0] == ExitCode.OK
    old = graph.read_bytes(), sidecar_path(graph).read_bytes()
    process = start_process("emit", "hcp", empty_grid_file(tmp_path, 36), "--box", "6x6",
                            "-o", graph)
    try:
        wait_for_temp(process, graph)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert_gone(process)
    assert process.returncode == code, err
    assert err.strip() == f"sudoku-bridge: {message}" and out == ""
    assert (graph.read_bytes(), sidecar_path(graph).read_bytes()) == old
    pipeline, _ = load_hcp_export(graph)                # still a matching pair
    assert pipeline.puzzle.size == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty36.txt", "g.hcp", "g.hcp.json"]


def test_sigkill_leaves_temps_that_the_next_write_removes(capsys, tmp_path):
    graph = tmp_path / "g.hcp"
    process = start_process("emit", "hcp", empty_grid_file(tmp_path, 36), "--box", "6x6",
                            "-o", graph)
    try:
        wait_for_temp(process, graph)
        process.kill()
        process.wait()
    finally:
        process.kill()
        process.wait()
    assert_gone(process)
    stale = temp_files_of(graph)
    assert stale and not graph.exists()              # what SIGKILL leaves behind
    assert run(capsys, "emit", "hcp", PAPER_17, "-o", graph)[0] == ExitCode.OK
    assert not any(path.exists() for path in stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty36.txt", "g.hcp", "g.hcp.json"]
    load_hcp_export(graph)


def anonymous_files_in(pid: int, directory: Path) -> list[str]:
    """The deleted or nameless files (O_TMPFILE) that process ``pid`` has open in
    ``directory``."""
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith(str(directory) + "/") and link.endswith(" (deleted)"):
            found.append(link)
    return found


def test_sigkill_while_the_cnf_body_is_written_leaves_nothing(tmp_path):
    """write_cnf's body waits in a file without a name: SIGKILL cannot strand it."""
    puzzle = empty_grid_file(tmp_path, 36)
    process = start_process("emit", "cnf", puzzle, "--box", "6x6", "-o", tmp_path / "p.cnf")
    try:
        deadline = time.monotonic() + 60
        while not anonymous_files_in(process.pid, tmp_path):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.002)
        process.kill()
        process.wait()
    finally:
        process.kill()
        process.wait()
    assert_gone(process)
    assert [p.name for p in tmp_path.iterdir()] == [puzzle.name]


def host_tag(tmp_path: Path) -> str:
    """This machine's tag, read back from the name of a real temporary file."""
    probe = tmp_path / "probe"
    with pytest.raises(RuntimeError):
        with atomic_write(probe):
            (temp,) = temp_files_of(probe)
            raise RuntimeError("abandon the probe")
    pid, tag = temp.name.split(".")[2].split("-")
    assert int(pid) == os.getpid() and not probe.exists() and not temp.exists()
    return tag


def test_stale_temps_only_of_dead_writers_on_this_host(tmp_path):
    target = tmp_path / "out.cnf"
    done = subprocess.Popen(["true"])
    done.wait()
    host = host_tag(tmp_path)
    dead = tmp_path / f".out.cnf.{done.pid}-{host}.0123abcd.part"
    live = tmp_path / f".out.cnf.{os.getpid()}-{host}.0123abcd.part"
    elsewhere = tmp_path / f".out.cnf.{done.pid}-00000000.0123abcd.part"
    other_target = tmp_path / f".out.cnf.x.{done.pid}-{host}.0123abcd.part"
    for path in (dead, live, elsewhere, other_target):
        path.write_text("partial")
    assert remove_stale_temps(target) == [dead]
    assert [p.exists() for p in (dead, live, elsewhere, other_target)] == \
        [False, True, True, True]


# ----------------------------------------------------------------------------- write errors

def file_size_limit(limit: int):
    """For preexec_fn: files may not grow past ``limit`` bytes, and passing it is the error
    EFBIG (not the signal SIGXFSZ, which would kill the process before it could clean up)."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("argv, name", [
    (["emit", "cnf", PAPER_17, "-o"], "p.cnf"),            # the anonymous body fails first
    (["emit", "exact-cover", PAPER_17, "-o"], "p.dlx"),
    (["emit", "ilp", PAPER_17, "-o"], "p.lp"),             # PuLP's scratch file fails
    (["emit", "hcp", PAPER_17, "-o"], "p.hcp"),
    (["gadget", "nishio", NISHIO_CNF, "--map", "{tmp}/m.json", "--picture"], "p.svg"),
])
def test_file_too_large_is_one_line_and_leaves_nothing(tmp_path, argv, name):
    target = tmp_path / name
    target.write_text("old\n")
    before = listing(tmp_path)
    argv = [str(a).replace("{tmp}", str(tmp_path)) for a in argv]
    done = run_process(*argv, target, preexec_fn=file_size_limit(4096))
    assert done.returncode == ExitCode.BAD_INPUT, done.stderr
    assert done.stderr.splitlines() == [f"sudoku-bridge: error: {target}: cannot write "
                                        f"(File too large)"]
    assert listing(tmp_path) == before and target.read_text() == "old\n"


def test_stdout_too_large_is_an_error(tmp_path):
    with open(tmp_path / "stdout", "w") as sink:
        done = run_process("emit", "cnf", PAPER_17, "-o", "-", stdout=sink,
                           preexec_fn=file_size_limit(4096))
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr.splitlines() == ["sudoku-bridge: error: stdout: cannot write "
                                        "(File too large)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stdout"]


def test_stdout_on_a_full_device(tmp_path):
    full = tmp_path / "full"
    try:
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("creating a device node needs privileges (os.mknod refused)")
    with open(full, "w") as sink:
        done = run_process("emit", "exact-cover", PAPER_17, "-o", "-", stdout=sink)
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr.splitlines() == ["sudoku-bridge: error: stdout: cannot write "
                                        "(No space left on device)"]
    assert stat.S_ISCHR(full.stat().st_mode)
