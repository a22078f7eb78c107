"""Every relative link of the README and of docs/ leads somewhere: the file exists, and a
``#fragment`` names a heading of the Markdown file it points to (GitHub's anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.documents import DOCUMENTS

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def relative_links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(path):
    for link in relative_links(path):
        target, _, fragment = link.partition("#")
        where = (path.parent / target).resolve() if target else path
        assert where.exists(), f"{path.name}: {link} leads nowhere"
        if fragment:
            headings = HEADING.findall(where.read_text(encoding="utf-8"))
            assert fragment in {anchor(h) for h in headings}, \
                f"{path.name}: {link}: no heading #{fragment} in {where.name}"


def test_the_readme_links_every_page_of_docs():
    linked = {(ROOT / link.partition("#")[0]).resolve()
              for link in relative_links(ROOT / "README.md")}
    assert {p for p in DOCUMENTS if p.parent.name == "docs" and p.name != "README.md"} <= linked
