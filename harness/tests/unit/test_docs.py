"""The README and docs/ as a newcomer meets them (issue 68): the README short enough to read in ten
minutes, and every relative link in it and in docs/ pointing at a file of the checkout (and a
heading of it, where the link names one)."""

import re
from pathlib import Path

import pytest

from uabench import paths
from uabench.document.model import slug

PAGES = [paths.REPO / "README.md", paths.REPO / "CONTRIBUTING.md", *sorted((paths.REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#").strip()) for line in text.splitlines() if line.startswith("#")}


def _broken(page: Path) -> list[str]:
    found = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            found.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            found.append(f"{target}: no such heading in {where.name}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(paths.REPO)) for p in PAGES])
def test_every_relative_link_resolves(page):
    assert _broken(page) == []


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[here](page.md#title) [gone](missing.md) [nowhere](#no-heading) [web](https://x.org)\n")
    assert _broken(page) == ["missing.md: no such file", "#no-heading: no such heading in page.md"]


def test_the_readme_is_read_in_ten_minutes():
    lines = (paths.REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200: the rest belongs in docs/)"
