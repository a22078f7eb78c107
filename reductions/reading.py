"""The one reading layer: every file this project reads — a puzzle, a CNF, a solver's answer, a
tour, a sidecar, an edge list, a cell set, a results file, a solver's ``{output}`` — goes
through here, and so does every solver output held in memory.

* **Compressed or not, by content.** gzip, xz and bzip2 are recognised by their first bytes
  (not the name) and decompressed while reading, so ``p.cnf.gz`` reads as ``p.cnf``. A file
  of several members (gzip members, xz or bzip2 streams, one after another) reads as their
  contents joined. A reader of a file that is appended to member by member (a cross-check
  results file) may take a last member cut off — its writer killed while appending it — as
  the end of the data (``cut_off_ok``) instead of as an error.
* **Bounded.** Every read has a :class:`ReadLimit`: the most the file may hold once
  decompressed, and why — what the format can legitimately hold (a tour of n vertices, a
  model of V variables, a sidecar) or what the memory limit allows (``--max-memory``: a file
  of puzzles, an edge list, a cell set). The decompressed bytes are counted as they come,
  and the read stops at the first byte past the limit with a one-line :class:`InputTooLarge`
  naming the file and the limit. A plain file already larger is refused before it is read.
  A limit may also bound the length of one line (a puzzle line no longer than the largest
  grid) and charge a fixed cost per line (what a reader keeps for each line, beside its
  text), so that a flood of short lines is bounded as well as a flood of bytes.
* **Regular files only.** A directory, a device (``/dev/null``, ``/dev/zero``), a FIFO or a
  socket is refused before it is opened (opening a FIFO would wait for a writer; a device
  would read as an empty or endless file), naming what it is (:func:`file_kind`).
* **``-`` is standard input.** A path ``-`` reads the process's standard input, through the
  same limits, decompression and errors as a file (named ``<stdin>`` in messages). What has
  been read of it is kept in memory (never more than the largest limit a read of it had), so
  that a reader may open it again, as it may a file (:class:`_StdinTape`).
* **UTF-8, a byte-order mark allowed.** Text is UTF-8; a leading byte-order mark (which
  Windows editors write) is dropped, so that a file saved with one reads as the same text.
* **One-line errors.** :func:`reading` turns what reading can raise — a missing file, a
  directory, invalid UTF-8, corrupt or truncated gzip, xz or bzip2 data — into the caller's
  :class:`~reductions.errors.UserError` subclass, naming the file.

:func:`read_text` reads a whole file (for the readers that parse in bulk, whose limit keeps
the text small enough), :func:`read_bytes` the same as bytes (a program's ``{output}``, judged
as text afterwards); :func:`read_lines` streams its lines in blocks, never holding more than
one block and one line; :func:`check_size` holds bytes already in memory (a program's stdout)
to a limit.
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import io
import lzma
import os
import re
import stat
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from .errors import UserError, format_bytes, printable

DEFAULT_MEMORY_LIMIT = 2 * 2**30
"""The memory limit a reader assumes when its caller names none (library use; the command
line always passes ``--max-memory`` or its share of the machine)."""

HEADER_BYTES = 1 << 16
"""What a format's header and comments may take beside its data (a tour's NAME, COMMENT and
TYPE lines; a solution file's status lines)."""

CHATTER_BYTES = 16 << 20
"""What a solver may print beside its answer (comments, statistics): MiniSat, CaDiCaL and
Glucose print a few KB."""

NUMBER_BYTES = 24
"""One number in a file of numbers: up to 18 digits (:data:`~reductions.errors.MAX_INTEGER_DIGITS`),
a sign and its spacing."""

BLOCK = 1 << 20
"""Characters :func:`read_lines` reads at a time."""

STDIN = "-"
"""The path that means standard input, wherever a file is read."""

STDIN_NAME = "<stdin>"
"""How messages name standard input."""


def is_stdin(path: str | Path) -> bool:
    """Does ``path`` stand for standard input (``-``)? (``./-`` is a file named ``-``.)"""
    return os.fspath(path) == STDIN


def shown_name(path: str | Path) -> str:
    """``path`` as a message names it: ``<stdin>`` for ``-``, else the path with its control
    characters escaped."""
    return STDIN_NAME if is_stdin(path) else printable(os.fspath(path))


@dataclass(frozen=True)
class Compression:
    """A compressed format, recognised by its first bytes: the suffix its files usually
    have, the opener of a whole file, and a decompressor of one member (a gzip member, an
    xz or bzip2 stream) for :class:`_Members`."""

    suffix: str
    opener: Callable[..., IO[bytes]]
    member: Callable[[], Any]


COMPRESSIONS = {
    b"\x1f\x8b": Compression(".gz", gzip.open, lambda: zlib.decompressobj(wbits=31)),
    b"\xfd7zXZ\x00": Compression(".xz", lzma.open,
                                 lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ)),
    b"BZh": Compression(".bz2", bz2.open, bz2.BZ2Decompressor),
}
"""The compressed formats read, by their first bytes."""


def _compression_of(start: bytes) -> Compression | None:
    return next((c for magic, c in COMPRESSIONS.items() if start.startswith(magic)), None)


_FILE_KINDS = [(stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISSOCK, "a socket")]


def file_kind(mode: int) -> str | None:
    """What a file of this ``st_mode`` is, as a message says it ("a directory", "a
    character device", ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


class NotRegularFile(OSError):
    """Raised (inside :func:`reading`) for a path that is not a regular file; the message
    is what it is (:func:`file_kind`)."""


class InputTooLarge(UserError):
    """A file (or a program's output) past its :class:`ReadLimit`; refused while reading."""


@dataclass(frozen=True)
class ReadLimit:
    """How much a file may hold, and why.

    ``bytes``: the most it may hold once decompressed (with ``per_line``: counting that many
    bytes more for every line, for a reader that keeps an object per line); ``why`` completes
    the refusal "more than 12 MiB — {why}". ``line``: the longest line allowed (None: no
    bound of its own), ``line_why`` completes "line 3 is longer than 1,000 characters —
    {line_why}".
    """

    bytes: int
    why: str
    per_line: int = 0
    line: int | None = None
    line_why: str = ""

    @classmethod
    def share(cls, memory_limit: int, *, what: str, per_byte: int = 1,
              per_line: int = 0) -> "ReadLimit":
        """The most of ``what`` a memory limit allows when each byte read costs ``per_byte``
        bytes of memory (and each line ``per_line`` more)."""
        per_byte = max(per_byte, 1)
        return cls(max(memory_limit // per_byte, 1),
                   f"more than the memory limit of {format_bytes(memory_limit)} "
                   f"(--max-memory) allows for {what}", per_line=-(-per_line // per_byte))

    def within(self, other: "ReadLimit") -> "ReadLimit":
        """The tighter of two limits on the total (e.g. a format's bound and the cap on a
        program's output); the line bound and cost of ``self`` are kept."""
        if other.bytes >= self.bytes:
            return self
        return ReadLimit(other.bytes, other.why, self.per_line, self.line, self.line_why)

    def lines(self, longest: int, why: str) -> "ReadLimit":
        """This limit, with lines of at most ``longest`` characters (``why``: why longer
        lines cannot be right)."""
        return ReadLimit(self.bytes, self.why, self.per_line, longest, why)

    def refusal(self, where: str, *, compressed: bool = False) -> InputTooLarge:
        unpacked = " once decompressed" if compressed else ""
        lines = f" (counting {self.per_line:,} bytes a line)" if self.per_line else ""
        return InputTooLarge(f"{where}: more than {format_bytes(self.bytes)}{unpacked}{lines}"
                             f" — {self.why}")

    def line_refusal(self, where: str, number: int) -> InputTooLarge:
        return InputTooLarge(f"{where} line {number:,}: longer than {self.line:,} characters "
                             f"— {self.line_why}")


def check_size(data: bytes | str, limit: ReadLimit, where: str) -> None:
    """Hold data already in memory (e.g. a program's stdout) to ``limit``."""
    if len(data) > limit.bytes:
        raise limit.refusal(where)


# ----------------------------------------------------------------------------- errors

@contextlib.contextmanager
def reading(path: str | Path, error: type[UserError] = UserError) -> Iterator[None]:
    """Turn the OS, decoding and decompression errors of reading ``path`` into one-line
    ``error``s naming it (a :class:`UserError` raised inside, e.g. :class:`InputTooLarge`,
    goes on as it is)."""
    name = shown_name(path)
    try:
        yield
    except UserError:
        raise
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except NotRegularFile as exc:
        raise error(f"{name}: is {exc}, not a regular file") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not a regular file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not a text file ({exc.reason} at byte {exc.start})") from None
    except EOFError:
        raise error(f"{name}: compressed data ends early (a truncated file?)") from None
    except (lzma.LZMAError, zlib.error) as exc:
        raise error(f"{name}: corrupt compressed data ({printable(str(exc))})") from None
    except OSError as exc:
        # gzip and bz2 report corrupt data as OSErrors without an errno.
        raise error(f"{name}: cannot read ({exc.strerror or f'corrupt compressed data: {exc}'})") \
            from None


# ----------------------------------------------------------------------------- opening

class _Counted(io.RawIOBase):
    """A binary stream that counts what passes through it (decompressed bytes, when the
    source decompresses) and raises the limit's refusal at the first byte past it."""

    def __init__(self, source: IO[bytes], limit: ReadLimit, where: str, compressed: bool,
                 file: IO[bytes]):
        self._source = source          # the file, or a decompressor reading it
        self._file = file              # closed too: a decompressor leaves it open
        self.limit = limit
        self.where = where
        self.compressed = compressed
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = self._source.readinto(buffer)
        self.charge(size)
        return size

    def readall(self) -> bytes:
        """The rest, in blocks of :data:`BLOCK` (a whole-file read is not 8 KiB at a
        time, as the base class would do it)."""
        blocks = []
        while block := self._source.read(BLOCK):
            self.charge(len(block))
            blocks.append(block)
        return b"".join(blocks)

    @property
    def cut_off(self) -> bool:
        """The source is compressed and its last member was cut off (see :class:`_Members`)."""
        return getattr(self._source, "cut_off", False)

    def charge(self, size: int) -> None:
        """Count ``size`` bytes more (read here, or charged by a reader per line)."""
        self.count += size
        if self.count > self.limit.bytes:
            raise self.limit.refusal(self.where, compressed=self.compressed)

    def close(self) -> None:
        try:
            self._source.close()
        finally:
            self._file.close()
            super().close()


class _Members(io.RawIOBase):
    """The decompressed content of a compressed file read member by member, each member
    (gzip member, xz or bzip2 stream) with a decompressor of its own; no step gives more
    than the buffer it fills, so that no member expands unbounded in memory.

    A last member cut off (the file ends inside it: its writer was killed while appending
    it) ends the content where its decompressed data ends, and sets ``cut_off``; corrupt
    data is an error as in any read."""

    def __init__(self, file: IO[bytes], decompressor):
        self._file = file
        self._new = decompressor
        self._member = decompressor()
        self._input = b""              # read from the file, not yet given to the member
        self.cut_off = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = len(buffer)
        while True:
            if not self._input and (self._member.eof
                                    or getattr(self._member, "needs_input", True)):
                self._input = self._file.read(BLOCK)
                if not self._input:
                    return self._end(buffer)
            if self._member.eof:                # what follows is the next member
                self._member = self._new()
            data = self._member.decompress(self._input, size)
            # zlib leaves what it did not take in unconsumed_tail, lzma and bz2 keep it
            # inside; past a member's end, what follows is the next member's
            self._input = self._member.unused_data if self._member.eof else \
                getattr(self._member, "unconsumed_tail", b"")
            if data:
                buffer[:len(data)] = data
                return len(data)

    def _end(self, buffer) -> int:
        """At the end of the file: the output a member still holds (zlib may keep some
        back when its output was full), then the end."""
        if not self._member.eof:
            data = self._member.decompress(b"", len(buffer))
            if data:
                buffer[:len(data)] = data
                return len(data)
            self.cut_off = True
        return 0


class _StdinTape:
    """Standard input, recorded as it is read, so that it can be opened again as a file can:
    a command that looks at its input twice (the first lines, then all of it) reads what
    was read before from memory, then reads on. What is recorded is what the readers took,
    each held to its own :class:`ReadLimit` (:class:`_Counted`), so the record is bounded by
    the largest of them. A new ``sys.stdin`` (a test's) starts a new record."""

    def __init__(self):
        self.stream: Any = None
        self.data = bytearray()
        self.ended = False

    def open(self) -> IO[bytes]:
        """A reader of standard input from its first byte (:class:`_Replay`)."""
        stream = sys.stdin
        if stream is None:
            raise OSError(errno.EBADF, "standard input is closed")
        if stream is not self.stream:
            self.stream, self.data, self.ended = stream, bytearray(), False
        return _Replay(self)

    def more(self, size: int) -> bool:
        """Read up to ``size`` more bytes into the record; False at the end of input."""
        if self.ended:
            return False
        source = getattr(self.stream, "buffer", None)
        block = getattr(source, "read1", source.read)(size) if source is not None \
            else self.stream.read(size).encode("utf-8")          # a text stream (a test's)
        if not block:
            self.ended = True
            return False
        self.data += block
        return True


class _Replay(io.RawIOBase):
    """One reader of :class:`_StdinTape`: what is recorded, then what standard input gives
    next."""

    def __init__(self, tape: _StdinTape):
        self._tape = tape
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Back to what was read (from the start or from here), never past it."""
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position}.get(whence)
        if base is None or not 0 <= base + offset <= len(self._tape.data):
            raise io.UnsupportedOperation("standard input: seek past what was read")
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer) -> int:
        tape = self._tape
        while self._position >= len(tape.data):
            if not tape.more(max(len(buffer), BLOCK)):
                return 0
        data = tape.data[self._position:self._position + len(buffer)]
        buffer[:len(data)] = data
        self._position += len(data)
        return len(data)


_STDIN = _StdinTape()


def _open_counted(path: str | Path, limit: ReadLimit, *, cut_off_ok: bool = False
                  ) -> _Counted:
    where = shown_name(path)
    if is_stdin(path):
        raw = _STDIN.open()
    else:
        kind = file_kind(os.stat(path).st_mode)      # before opening: a FIFO's open would wait
        if kind is not None:
            raise NotRegularFile(kind)
        raw = open(path, "rb")
    try:
        start = raw.read(6)
        raw.seek(0)
        found = _compression_of(start)
        if found is None:
            if not is_stdin(path) and os.fstat(raw.fileno()).st_size > limit.bytes:
                raise limit.refusal(where)                       # refused before reading
            return _Counted(raw, limit, where, compressed=False, file=raw)
        source = _Members(raw, found.member) if cut_off_ok else found.opener(raw, "rb")
        return _Counted(source, limit, where, compressed=True, file=raw)
    except BaseException:
        raw.close()
        raise


def compression(path: str | Path, error: type[UserError] = UserError) -> Compression | None:
    """The compressed format of ``path`` by its first bytes, or None when it is not
    compressed (errors are ``error`` naming the file)."""
    with reading(path, error), (_STDIN.open() if is_stdin(path) else open(path, "rb")) \
            as handle:
        return _compression_of(handle.read(6))


def open_text(path: str | Path, limit: ReadLimit, *, newline: str | None = None,
              cut_off_ok: bool = False) -> IO[str]:
    """``path`` opened for reading UTF-8 text (universal newlines; ``newline=""``: line
    ends left as they are; a leading byte-order mark dropped), decompressed when its first
    bytes say gzip, xz or bzip2, and held to ``limit``; with ``cut_off_ok``, a compressed
    file's last member cut off ends the text (see :class:`_Members`). Use inside
    :func:`reading` so that errors name the file."""
    counted = _open_counted(path, limit, cut_off_ok=cut_off_ok)
    return io.TextIOWrapper(io.BufferedReader(counted, BLOCK), encoding="utf-8-sig",
                            newline=newline)


def read_text(path: str | Path, limit: ReadLimit, error: type[UserError] = UserError) -> str:
    """The whole of a UTF-8 text file (decompressed if compressed), at most ``limit``; any
    problem is ``error`` naming the file."""
    with reading(path, error), open_text(path, limit) as handle:
        return handle.read()


def read_bytes(path: str | Path, limit: ReadLimit, error: type[UserError] = UserError) -> bytes:
    """The whole of a file as bytes (decompressed if compressed), at most ``limit``; for
    what a program wrote, judged as text afterwards. Errors are ``error`` naming the file."""
    with reading(path, error), io.BufferedReader(_open_counted(path, limit), BLOCK) as handle:
        return handle.read()


def read_lines(path: str | Path, limit: ReadLimit, error: type[UserError] = UserError, *,
               ends: bool = False, cut_off_ok: bool = False) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without its line end) for every line of a text file, read
    in blocks of :data:`BLOCK` characters: a line longer than ``limit.line`` is refused as
    soon as it is (never held whole), and ``limit.per_line`` is charged for every line.
    Lines end at ``\n``, ``\r\n`` or ``\r``. With ``ends`` each line keeps its line end
    as the file has it (so that the lines' UTF-8 lengths add up to the file's bytes; the
    last line may have none: a torn write). With ``cut_off_ok``, a compressed file whose
    last member is cut off (:func:`open_text`) ends the same way, with a line without its
    end (empty if need be). Errors are ``error`` naming the file (raised while
    iterating)."""
    where = shown_name(path)
    with reading(path, error), open_text(path, limit, newline="" if ends else None,
                                         cut_off_ok=cut_off_ok) as handle:
        counted = handle.buffer.raw
        longest = limit.line
        number = 0
        carry: list[str] = []          # the pieces of a line that goes on past its block
        carried = 0                    # their length
        while block := handle.read(BLOCK):
            while ends and block.endswith("\r") and (more := handle.read(1)):
                block += more          # a \r\n split between two blocks stays one end
            lines = _split_keeping_ends(block) if ends else block.split("\n")
            last = lines.pop()
            if lines and carry:
                lines[0] = "".join(carry) + lines[0]
                carry, carried = [], 0
            if limit.per_line:
                counted.charge(limit.per_line * len(lines))
            for line in lines:
                number += 1
                if longest is not None and len(line) > longest \
                        and len(line.rstrip("\r\n")) > longest:     # its end not counted
                    raise limit.line_refusal(where, number)
                yield number, line
            carry.append(last)
            carried += len(last)
            if longest is not None and carried > longest:
                raise limit.line_refusal(where, number + 1)
        if carried or counted.cut_off:         # a member cut off: the last line is torn
            yield number + 1, "".join(carry)


_LINE_ENDS = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
"""The places just after a line end: ``\n``, ``\r\n`` or a ``\r`` alone."""


def _split_keeping_ends(block: str) -> list[str]:
    """The lines of ``block``, each with its line end, and last what follows the last end
    (maybe ""). A block with no ``\r`` but in ``\r\n`` is split by ``str.split`` (fast);
    only one with a ``\r`` alone (old Mac line ends) takes the slower expression."""
    if block.count("\r") == block.count("\r\n"):
        pieces = block.split("\n")
        last = pieces.pop()
        return [piece + "\n" for piece in pieces] + [last]
    return _LINE_ENDS.split(block)
