"""The Python examples of the README and of docs/, run as written.

The ```python blocks of each document (README.md, docs/*.md) run, in order, as one script in a
fresh interpreter whose working directory is the repository root (the examples open
``instances/...`` by relative path). The interpreter imports whatever ``reductions`` and
``solvers`` it finds first: the checkout in a development run, the installed wheel in CI's
minimal run (which copies the tests, the README, ``docs/`` and ``instances/`` to a folder of
their own). A block that raises, or an ``assert`` in it that fails, fails the test; a
``print`` whose line carries a ``# expected`` comment must print exactly that.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.documents import DOCUMENTS

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
EXPECTED = re.compile(r"^(\s*)print\((.*)\)\s*#\s*(.+?)\s*$")


def python_blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text(encoding="utf-8"))


def with_checked_prints(block: str) -> str:
    """``print(x)  # 303 2843`` becomes a check that x prints as ``303 2843``."""
    out = []
    for line in block.splitlines():
        match = EXPECTED.match(line)
        if match:
            indent, args, expected = match.groups()
            line = (f"{indent}_printed = ' '.join(map(str, ({args},)));"
                    f" assert _printed == {expected!r}, (_printed, {expected!r})")
        out.append(line)
    return "\n".join(out) + "\n"


def test_the_readme_has_python_examples():
    assert python_blocks(ROOT / "README.md"), "README.md has no ```python block"


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if python_blocks(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(path):
    script = "\n".join(with_checked_prints(b) for b in python_blocks(path))
    done = subprocess.run([sys.executable, "-"], input=script, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
