"""What ``pip install .`` installs: the wheel holds every package of the source tree.

The wheel is built from a copy of the project's packaging inputs (so the checkout is not
written to) with the installed setuptools and no build isolation (no network). Every folder of
``reductions/`` and ``solvers/`` that holds Python modules must be in the wheel with all its
modules, and ``py.typed`` must mark both top-level packages. In CI's minimal run the tests are
copied away from the source tree, so there is no tree to compare with and the test skips.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT

TOP_LEVEL = ("reductions", "solvers")


def source_modules() -> set[str]:
    """Paths (relative to the root) of every module of the source packages."""
    return {str(p.relative_to(ROOT)) for top in TOP_LEVEL for p in (ROOT / top).rglob("*.py")
            if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if not (ROOT / "pyproject.toml").exists() or not (ROOT / "solvers").is_dir():
        pytest.skip("no source tree here (CI's minimal run tests the installed wheel)")
    pytest.importorskip("setuptools", minversion="77",
                        reason="building the wheel offline needs setuptools>=77 (extra 'test')")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for top in TOP_LEVEL:
        shutil.copytree(ROOT / top, src / top, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "--no-index", "-q", "-w", str(out), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("sudoku_bridge-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel_names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_every_package_folder_is_in_the_wheel(wheel_names):
    folders = {str(Path(m).parent) for m in source_modules()}
    in_wheel = {str(Path(n).parent) for n in wheel_names}
    assert folders - in_wheel == set(), "package folders missing from the wheel"


def test_every_module_is_in_the_wheel(wheel_names):
    assert source_modules() - wheel_names == set(), "modules missing from the wheel"


def test_py_typed_is_shipped(wheel_names):
    for top in TOP_LEVEL:
        assert (ROOT / top / "py.typed").exists()
        assert f"{top}/py.typed" in wheel_names


def test_the_console_script_is_declared(wheel, wheel_names):
    (entry_points,) = [n for n in wheel_names if n.endswith(".dist-info/entry_points.txt")]
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(entry_points).decode()
    assert "sudoku-bridge = solvers.cli:main" in text


def test_nothing_but_the_packages_is_shipped(wheel_names):
    tops = {n.split("/")[0] for n in wheel_names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == set(TOP_LEVEL)
