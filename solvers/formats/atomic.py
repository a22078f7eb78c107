"""Output files: the one place that decides what may be written, and writes it atomically.

* :func:`check_output_target` / :func:`check_outputs` — called by every command before any
  work: only a regular file (existing or not) in an existing, writable directory is a target.
  A directory (or a name ending in ``/``, ``/.`` or ``/..``, which names one), a device, a
  FIFO, a socket, an empty name or a path under ``/proc`` or ``/sys`` — as written, or
  anywhere on the way its symbolic links lead (``/dev/stdout``, ``/proc/self/fd/1``) — is a
  one-line :class:`OutputError` naming the path and the reason, so that ``-o /dev/null``
  never replaces the device with a regular file and ``-o p.txt/`` never replaces
  ``p.txt``. ``-`` means stdout
  where the caller allows it (``stdout_ok``). An output that is one of the command's input
  files (the same file, by any name) is refused too. Paths are printed with their control
  characters escaped, so that every message stays one line.
* :class:`OutputGroup` — files that appear together or not at all (a graph and its sidecar,
  a gadget and its map and picture): each is written to a temporary file beside its target,
  and only when every one is complete are they all renamed into place. On any exception
  (Ctrl-C and SIGTERM included) every temporary file is removed and the old targets are
  untouched.
* :func:`atomic_write` — one file, the same way (a group of one, or a member of ``group``).
* :func:`open_output` — :func:`atomic_write`, or stdout for ``-``.
* :func:`scratch_path` — a named temporary file beside a target, for programs that can only
  write to a file name (PuLP).

Temporary files are named ``.NAME.<pid>-<host>.<random>.part``. SIGKILL cannot be caught, so
the temporary files of a killed writer stay behind; the next write to the same target removes
those whose writer (same host, by a hash of the host name) no longer exists — never the file
of a live writer.

A write error (disk full, file too large) is an :class:`OutputError` naming the target.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
import stat
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator

from reductions.errors import UserError, printable
from reductions.reading import file_kind, is_stdin

from ..runtime.signals import signals_held

STDOUT = "-"
"""The output name that means standard output (where a command allows it)."""

TEMP_SUFFIX = ".part"
_NAME_ROOM = 200
"""At most this many bytes of the target's name go into a temporary file's name (which adds
at most 40), to stay under the file-system limit of 255 bytes."""

_FORBIDDEN_TREES = ("/proc", "/sys")


class OutputError(UserError):
    """An output file cannot be written; the message names the file."""


# ----------------------------------------------------------------------------- checking

MAX_LINKS = 40
"""Symbolic links followed in resolving one output path (the kernel's own limit)."""


def _where(path: str | Path, option: str | None) -> str:
    text = printable(os.fspath(path))
    return f"{option} {text}" if option else text


def _resolve(path: str) -> tuple[Path, list[str]]:
    """The real path ``path`` names, and every path resolving it went through: each
    component as reached, each symbolic link followed where it leads (so that
    ``/dev/stdout`` is seen passing through ``/proc``). Components are taken one at a time,
    as the kernel does; a missing one ends nothing (the target may be new)."""
    rest = os.path.join(os.getcwd(), path).split("/")
    resolved, visited, links = "/", [], 0
    while rest:
        name = rest.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, name)
        visited.append(candidate)
        try:
            target = os.readlink(candidate)
        except OSError:                        # not a link, or not there (yet)
            resolved = candidate
            continue
        links += 1
        if links > MAX_LINKS:
            raise OutputError(f"{printable(path)}: too many levels of symbolic links")
        if target.startswith("/"):
            resolved = "/"
        rest = target.split("/") + rest
    return Path(resolved), visited


def _forbidden_tree(visited: list[str]) -> str | None:
    """The forbidden tree (``/proc``, ``/sys``) one of ``visited`` lies in, if any."""
    for tree in _FORBIDDEN_TREES:
        if any(path == tree or path.startswith(tree + "/") for path in visited):
            return tree
    return None


def check_output_target(path: str | Path, *, option: str | None = None,
                        stdout_ok: bool = False) -> Path | None:
    """The file to write for the output ``path`` (symbolic links resolved, so that a link to
    a regular file is kept and the file it names is replaced), or None for stdout.

    Raises a one-line :class:`OutputError` (mentioning ``option``, e.g. ``"-o"``, when given)
    unless ``path`` is a regular file or a new name in an existing, writable directory.
    Nothing is created or changed.
    """
    text = os.fspath(path)
    where = _where(text, option)
    if text == "":
        raise OutputError(f"{option or 'output'}: empty file name")
    if text == STDOUT:
        if stdout_ok:
            return None
        raise OutputError(f"{where}: this output cannot go to stdout; give a file name "
                          f"(./- for a file named '-')")
    if "\0" in text:
        raise OutputError(f"{where}: a file name cannot hold a NUL character")
    if text.endswith("/") or os.path.basename(text) in (".", ".."):
        # The path of a directory, whatever is there: resolving it would drop the slash and
        # replace a file of that name (``-o p.txt/`` writing p.txt).
        raise OutputError(f"{where}: names a directory (a path ending in '/', '.' or '..'); "
                          f"only regular files are written")
    real, visited = _resolve(text)
    tree = _forbidden_tree(visited)
    if tree is not None:
        hint = "; '-' writes to stdout" if stdout_ok else ""
        raise OutputError(f"{where}: is under {tree} (or leads there); only regular files "
                          f"are written{hint}")
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"{where}: cannot write ({exc.strerror})") from None
    kind = None if mode is None else file_kind(mode)
    if kind is not None:
        hint = "; '-' writes to stdout" if stdout_ok and not stat.S_ISDIR(mode) else ""
        raise OutputError(f"{where}: is {kind}; only regular files are written{hint}")
    directory = real.parent
    shown = printable(str(directory))
    if not directory.is_dir():
        reason = "is not a directory" if directory.exists() else "does not exist"
        raise OutputError(f"{where}: cannot write, directory {shown} {reason}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{where}: cannot write, directory {shown} is not writable")
    return real


def check_outputs(outputs: dict[str, str | Path | None], *, stdout_ok: bool = False,
                  inputs: Iterable[str | Path] = ()) -> None:
    """Check every output a command is asked to write before it starts working: ``outputs``
    maps an option name (as the user typed it, e.g. ``"--map"``) to a path, or None when not
    given. Each must pass :func:`check_output_target`, no two may be the same file, and none
    may be one of ``inputs`` (the command's input files; an argument that names no file, a
    puzzle given as text, is passed over): writing it would replace what is being read."""
    seen: dict[Path, str] = {}
    read = _existing_files(inputs)
    for option, path in outputs.items():
        if path is None:
            continue
        target = check_output_target(path, option=option, stdout_ok=stdout_ok)
        if target is None:
            continue
        where = _where(path, option)
        if target in seen:
            raise OutputError(f"{where}: the same file as {seen[target]}; give different "
                              f"names")
        seen[target] = option
        with contextlib.suppress(OSError):
            status = os.stat(target)
            for source, source_status in read:
                if os.path.samestat(status, source_status):
                    raise OutputError(f"{where}: is the input {printable(os.fspath(source))}; "
                                      f"writing it would replace what is read — give "
                                      f"another name")


def _existing_files(paths: Iterable[str | Path]) -> list[tuple[str | Path, os.stat_result]]:
    """(path, its status) for each of ``paths`` that names an existing file."""
    found = []
    for path in paths:
        if is_stdin(path):                   # standard input, never a file of that name
            continue
        try:
            found.append((path, os.stat(path)))
        except (OSError, ValueError):        # no such file, a puzzle given as text, a NUL
            continue
    return found


# ----------------------------------------------------------------------------- temporary files

def _host_tag() -> str:
    """A short hash of the host name, so that a writer never judges a temporary file made by
    a process of another machine (on a shared file system) by a process id of its own."""
    import hashlib          # here, not at start-up: every command imports this module
    import socket
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _temp_prefix(target: Path) -> str:
    return f".{os.fsdecode(os.fsencode(target.name)[:_NAME_ROOM])}."


_TEMP_TAIL = re.compile(r"(\d+)-([0-9a-f]{8})\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX))


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:         # exists, belongs to someone else
        return True
    except OSError:
        return True                 # when in doubt, the file is someone's: keep it
    return True


def remove_stale_temps(target: Path) -> list[Path]:
    """Remove the temporary files of ``target`` left by writers that no longer exist (a
    writer killed by SIGKILL); returns them."""
    prefix = _temp_prefix(target)
    host = _host_tag()
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        match = _TEMP_TAIL.fullmatch(entry.name[len(prefix):])
        if not match or match.group(2) != host or _process_exists(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _create_temp(target: Path) -> tuple[int, Path]:
    """Create an empty temporary file beside ``target`` (exclusively); its descriptor and
    name. It gets the permissions of the file it will replace, else the usual ones (umask)."""
    stem = f"{_temp_prefix(target)}{os.getpid()}-{_host_tag()}"
    while True:
        temp = target.with_name(f"{stem}.{os.urandom(4).hex()}{TEMP_SUFFIX}")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{target}: cannot create a temporary file in {target.parent} "
                              f"({exc.strerror})") from None
        with contextlib.suppress(OSError):
            os.chmod(fd, stat.S_IMODE(os.stat(target).st_mode))
        return fd, temp


@contextlib.contextmanager
def naming_write_errors(path: str | Path) -> Iterator[None]:
    """Turn a failed write (disk full, file too large, I/O error: an OSError without a file
    name, as writes to an open file raise) into an :class:`OutputError` naming ``path``."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None


# ----------------------------------------------------------------------------- writing

class OutputGroup:
    """Output files that appear together or not at all.

    ``with OutputGroup() as group:`` then ``with group.open(path, mode) as out:`` (or a writer
    given ``group=group``) for each file. Each goes to a temporary file beside its target;
    when the ``with OutputGroup`` block ends normally, all are renamed into place (signals
    held, so that Ctrl-C or SIGTERM cannot split the renames); when it ends by an exception,
    every temporary file is removed and no target is touched.
    """

    def __init__(self) -> None:
        self._temps: dict[Path, Path] = {}      # target -> its temporary file
        self._names: dict[Path, str] = {}       # target -> the path as the caller gave it

    def __enter__(self) -> OutputGroup:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()

    @contextlib.contextmanager
    def open(self, path: str | Path, mode: str = "w",
             buffering: int = 1 << 20) -> Iterator[IO]:
        """A new file for ``path``: text (UTF-8, ``\\n`` line ends) for ``"w"``, bytes for
        ``"wb"``. It joins the group when the block ends normally; on an exception its
        temporary file is removed at once."""
        if mode not in ("w", "wb"):
            raise ValueError(f"OutputGroup.open mode must be 'w' or 'wb', not {mode!r}")
        target = check_output_target(path)
        if target in self._temps:
            raise OutputError(f"{path}: written twice in one run")
        remove_stale_temps(target)
        temp = layers = None
        try:
            # Signals held: a temporary file must never exist without the group knowing it.
            with signals_held():
                fd, temp = _create_temp(target)
                self._temps[target] = temp
                self._names[target] = os.fspath(path)
                layers = _open_descriptor(fd, mode, buffering, compressor_for(target))
            with naming_write_errors(path):
                yield layers[0]
                done, layers = layers, None
                _close_layers(done)
        except BaseException:
            with signals_held():
                if layers is not None:
                    with contextlib.suppress(OSError, ValueError):
                        _close_layers(layers)
                if temp is not None:
                    _remove(temp)
                    self._temps.pop(target, None)
            raise

    def content_path(self, path: str | Path) -> Path:
        """Where the new content of ``path`` is now: its temporary file while the group is
        open (e.g. to take its digest for a sidecar), else ``path`` itself."""
        target = Path(os.path.realpath(path))
        return self._temps.get(target, Path(path))

    def commit(self) -> None:
        """Rename every temporary file into place (the group is then empty), the last
        written first: a file that describes the others is written after them (a sidecar
        carrying the digest of its graph, a map of a gadget) and so goes into place before
        them. A SIGKILL between two renames (signals held cannot stop it) then leaves the
        new description beside the old file it does not match — which its digest check
        refuses — never an old description beside a new file."""
        with signals_held():
            try:
                while self._temps:
                    target, temp = next(reversed(self._temps.items()))
                    try:
                        os.replace(temp, target)
                    except OSError as exc:
                        raise OutputError(f"{self._names[target]}: cannot write "
                                          f"({exc.strerror})") from None
                    del self._temps[target]
            finally:
                self._discard_temps()

    def discard(self) -> None:
        """Remove every temporary file; no target is touched."""
        with signals_held():
            self._discard_temps()

    def _discard_temps(self) -> None:
        for temp in self._temps.values():
            _remove(temp)
        self._temps.clear()


COMPRESSORS = {
    # suffix: how to wrap the binary file (level 6 / preset 3: fast enough to stream a big CNF)
    ".gz": lambda raw: gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0),
    ".xz": lambda raw: lzma.LZMAFile(raw, "wb", preset=3),
    ".bz2": lambda raw: bz2.BZ2File(raw, "wb"),
}
"""Output names ending in one of these suffixes are written compressed (``-o p.cnf.gz``)."""


def compressor_for(target: str | Path):
    return COMPRESSORS.get(Path(target).suffix.lower())


def _open_descriptor(fd: int, mode: str, buffering: int, compressor=None) -> list[IO]:
    """The layers to write through, outermost first (text → compressor → file): closing
    them in this order flushes each into the next (compressors leave their file open)."""
    try:
        raw = os.fdopen(fd, "wb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise
    layers = [raw]
    try:
        if compressor is not None:
            layers.insert(0, compressor(raw))
        if mode == "w":
            layers.insert(0, io.TextIOWrapper(layers[0], encoding="utf-8", newline="\n"))
    except BaseException:
        _close_layers(layers)
        raise
    return layers


def _close_layers(layers: list[IO]) -> None:
    """Close every layer, outermost first; the first error is raised after all are closed."""
    error = None
    for layer in layers:
        try:
            layer.close()
        except (OSError, ValueError) as exc:
            error = error or exc
    if error is not None:
        raise error


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", buffering: int = 1 << 20, *,
                 group: OutputGroup | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path``; when the block ends normally it replaces
    ``path`` (or, with ``group``, joins the group, which renames all its files together).

    ``mode`` is ``"w"`` (text, UTF-8, ``\\n`` line ends) or ``"wb"``. The target is checked
    first (:func:`check_output_target`); ``-`` is refused here (see :func:`open_output`).
    """
    if group is not None:
        with group.open(path, mode, buffering) as out:
            yield out
        return
    with OutputGroup() as own, own.open(path, mode, buffering) as out:
        yield out


@contextlib.contextmanager
def open_output(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """:func:`atomic_write`, or standard output when ``path`` is ``-``."""
    if os.fspath(path) != STDOUT:
        with atomic_write(path, mode) as out:
            yield out
        return
    if mode not in ("w", "wb"):
        raise ValueError(f"open_output mode must be 'w' or 'wb', not {mode!r}")
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):    # a stand-in for stdout (tests)
        fd = None
    if fd is None:
        with naming_write_errors("stdout"):
            yield sys.stdout.buffer if mode == "wb" else sys.stdout
            sys.stdout.flush()
        return
    # A duplicate of descriptor 1: closing it (also after an error) leaves sys.stdout alone.
    raw = os.fdopen(os.dup(fd), "wb", buffering=1 << 20)
    out = raw if mode == "wb" else io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    try:
        with naming_write_errors("stdout"):
            yield out
            out.flush()
    finally:
        with contextlib.suppress(OSError, ValueError):
            out.close()


@contextlib.contextmanager
def scratch_path(target: str | Path) -> Iterator[Path]:
    """A named, empty temporary file beside ``target`` (named as the temporary files of
    :class:`OutputGroup`, so a killed writer's is removed by the next write), removed when
    the block ends."""
    real = check_output_target(target)
    remove_stale_temps(real)
    temp = None
    try:
        with signals_held():       # never a temporary file that the cleanup below misses
            fd, temp = _create_temp(real)
            os.close(fd)
        with naming_write_errors(target):
            yield temp
    finally:
        if temp is not None:
            with signals_held():
                _remove(temp)


def temp_files_of(target: str | Path) -> list[Path]:
    """The temporary files beside ``target`` that belong to it (live or stale), for tests
    and diagnostics."""
    target = Path(os.path.realpath(target))
    prefix = _temp_prefix(target)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return sorted(target.parent / name for name in names
                  if name.startswith(prefix) and _TEMP_TAIL.fullmatch(name[len(prefix):]))

