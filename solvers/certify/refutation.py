"""What every certificate shares: the options of a certified run, and one refutation checked.

:class:`CertifyOptions` says how to certify (the checker, the memory limit, where to keep
the proofs). :func:`check_refutation` is the one way a proof of ours is judged: the formula
and the proof are written to a temporary directory
(:func:`~solvers.runtime.scratch.temporary_directory`), the checker runs on them
(:func:`~solvers.certify.checkers.check_proof`) and they are deleted — unless
``keep_proofs`` names a directory, where they are kept as ``NAME.cnf`` and ``NAME.drat``
(written atomically, :func:`keep_files`) for anyone to check again.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..formats.atomic import OutputGroup
from ..formats.dimacs import write_cnf
from ..runtime.scratch import temporary_directory
from .checkers import Check, Checker, check_proof
from .proofs import write_proof

__all__ = ["CertifyOptions", "check_refutation", "keep_files", "proof_name"]


@dataclass(frozen=True)
class CertifyOptions:
    """How to certify: the ``checker`` (:func:`~solvers.certify.checkers.find_checker`),
    the memory limit (bytes) a proof and its check are held to, and where to keep the
    proofs (None: deleted after the check)."""

    checker: Checker
    memory_limit: int
    keep_proofs: Path | None = None


def check_refutation(certify: CertifyOptions, *, num_vars: int, clause_blocks: Iterable,
                     comments: Iterable[str] = (), proof: Sequence[str], claim: str,
                     name: str, time_limit: float | None, plain: bool = False) -> Check:
    """Judge ``proof`` (a pysat proof's lines) as a refutation of the formula of
    ``clause_blocks`` over ``num_vars`` variables (module docstring). ``claim`` names what the
    proof is for, in messages; ``name`` is the stem of the kept files; ``plain`` as in
    :func:`~solvers.certify.checkers.check_proof`. A rejected proof raises
    :class:`~solvers.certify.checkers.ProofRejected`."""
    with temporary_directory("sudoku-bridge-proof-") as work:
        cnf, drat = work / "formula.cnf", work / "proof.drat"
        write_cnf(cnf, max(num_vars, 1), clause_blocks, comments)
        write_proof(proof, drat, max_bytes=certify.memory_limit)
        check = check_proof(certify.checker, cnf, drat, work=work, time_limit=time_limit,
                            memory_limit=certify.memory_limit, claim=claim, plain=plain)
        if certify.keep_proofs is not None:
            keep_files(certify.keep_proofs, name, {".cnf": cnf, ".drat": drat})
    return check


def keep_files(folder: Path, name: str, files: dict[str, Path]) -> None:
    """Copy ``files`` (suffix → path) into ``folder`` as ``name`` + suffix, all together
    (:class:`~solvers.formats.atomic.OutputGroup`)."""
    with OutputGroup() as group:
        for suffix, path in files.items():
            with group.open(folder / f"{name}{suffix}", "wb") as out, open(path, "rb") as data:
                shutil.copyfileobj(data, out)


def proof_name(label: str) -> str:
    """A file name for a kept proof, from the label of what it proves (``file.txt:12``, a
    formula's name, a graph's file)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(label).name).strip("-.") or "puzzle"
