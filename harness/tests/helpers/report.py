"""What tests/unit/test_report.py and tests/integration/test_report.py share."""

import re
import shutil
from html.parser import HTMLParser

import pytest

from uabench import paths
from uabench.report import document
from uabench.results.store import open_store

REFERENCE = paths.REPO / "reports" / "reference"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference store (a copy: opening a store may migrate it) and its document model."""
    copy = tmp_path_factory.mktemp("reference") / "uabench.sqlite"
    shutil.copy(REFERENCE / "uabench.sqlite", copy)
    store = open_store(copy)
    runs = document.latest_runs(store)
    cells_of = {run["id"]: store.cells([run["id"]]) for run in runs}
    return store, document.document(runs, cells_of), cells_of


class _Page(HTMLParser):
    """Headings, tables (cell texts) and element ids of an HTML page, outside the SVG plots."""

    def __init__(self) -> None:
        super().__init__()
        self.headings, self.tables, self.ids, self.links, self.scrolling = [], [], [], [], 0
        self._text, self._in, self._svg = None, None, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self._svg += 1
        if self._svg:
            return
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.links.append(attrs["href"][1:])
        if tag == "div" and attrs.get("class") == "scroll":
            self.scrolling += 1
        if tag == "table":
            self.tables.append([])
        if tag == "tr":
            self.tables[-1].append([])
        if tag in ("h2", "h3", "h4", "td", "th"):
            self._text, self._in = "", tag

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg -= 1
        if self._svg or tag != self._in:
            return
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._text)
        else:
            self.headings.append(self._text.removesuffix("#").strip())
        self._text = self._in = None

    def handle_data(self, data):
        if self._text is not None and not self._svg:
            self._text += data


def _markdown_tables(text: str) -> tuple[list[str], list[list[list[str]]]]:
    headings, tables, lines = [], [], text.splitlines()
    for index, line in enumerate(lines):
        if re.match(r"#{2,4} ", line):
            headings.append(line.lstrip("#").strip())
        elif line.startswith("| ") and index + 1 < len(lines) and lines[index + 1].startswith("| ---"):
            tables.append([])
        if line.startswith("| ") and not line.startswith("| ---"):
            tables[-1].append([c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return headings, tables
