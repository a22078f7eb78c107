"""The memory limit the builders are held to: ``--max-memory SIZE``, or a safe share of this
machine.

The estimates themselves are in :mod:`reductions.estimate` and the ``sizes`` module beside
each construction (pure); this module reads the machine:

* :func:`parse_size` — ``512M``, ``8G``, ``1.5G``, ``100000000`` (bytes); K, M, G, T are
  powers of 1024 (an optional ``B`` or ``iB`` may follow); anything else is a one-line error;
* :func:`default_limit` — the smallest of: half of the physical memory (``MemTotal``), 80% of
  the memory available now (``MemAvailable``), half of a cgroup's ``memory.max``, and 80% of
  the address space left under ``RLIMIT_AS`` (``ulimit -v`` / ``prlimit --as``), less what
  the process already maps. A limit that the kernel would enforce with ``MemoryError`` is
  thus turned into a refusal before the build.

What a solving route builds for one puzzle is :func:`solvers.routes.route_estimate`: the
routes know their options, this module knows only the machine (it imports no route).
"""

from __future__ import annotations

import re
import resource
from pathlib import Path

from reductions.errors import UserError

UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)
FALLBACK_LIMIT = 2 * 2**30
"""The default when the machine's memory cannot be read (not Linux)."""


class MemorySizeError(UserError):
    """A ``--max-memory`` value that is not a size."""


def parse_size(text: str) -> int:
    """Bytes from ``512M``, ``8G``, ``1.5g``, ``64KiB``, ``1000000``; refuses anything else,
    zero and sizes above 2^60."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise MemorySizeError(f"--max-memory {text!r}: give a size like 512M, 8G or 1.5G "
                              f"(K, M, G, T = powers of 1024; a plain number is bytes)")
    value = float(match.group(1)) * UNITS[match.group(2).upper()]
    if not 1 <= value <= 2**60:
        raise MemorySizeError(f"--max-memory {text!r}: give a size from 1 byte to 1 EiB")
    return int(value)


def _meminfo() -> dict[str, int]:
    """/proc/meminfo in bytes (empty when it cannot be read)."""
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            out[key] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return out


def _cgroup_limit() -> int | None:
    """The cgroup (v2) memory.max of this process, or None when there is none."""
    try:
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _mapped_bytes() -> int:
    """The address space this process maps now (VmSize), 0 when unknown."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def default_limit() -> int:
    """A safe share of this machine for one command (see the module docstring)."""
    info = _meminfo()
    shares = []
    if "MemTotal" in info:
        shares.append(info["MemTotal"] // 2)
    if "MemAvailable" in info:
        shares.append(info["MemAvailable"] * 4 // 5)
    cgroup = _cgroup_limit()
    if cgroup is not None:
        shares.append(cgroup // 2)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        shares.append(max(soft - _mapped_bytes(), 0) * 4 // 5)
    return max(min(shares), 1) if shares else FALLBACK_LIMIT
