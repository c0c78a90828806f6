"""The report: from a real (small) run of asyncua client and server, and from the committed
reference store (real measurements of every SDK): the document model, its Markdown and HTML
renderings, the plots, and the figures the reference report publishes."""

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from uabench import paths, plan, report, sdks
from uabench.engine.session import Session
from uabench.report import document, html, markdown, plots
from uabench.report.model import Cell, Column, Estimate, Figure, Report, Section, Series, Status, Table, row, slug
from uabench.report.sections import model_section
from uabench.results.store import open_store

SDK = "asyncua"
REFERENCE = paths.REPO / "reports" / "reference"


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    store = open_store(directory / "store.sqlite")
    read = plan.load("read")
    session = Session(store, "read", "smoke", workdir=directory / "run", plan=read)
    sdk = sdks.get(SDK)
    try:
        server = session.server(sdk)
        for kind, variant, repetitions in (("interop", read.interop[0], 1), ("throughput", read.throughput[1], 2)):
            for repetition in range(repetitions):
                config = session.client_config(server, dict(variant.workload, warmup_s=0.2, duration_s=0.5))
                outcome = session.run_client(sdk, server, config)
                session.record(kind, sdk, sdk, variant.name, repetition, config, outcome, server.config)
                assert outcome.status == "pass", outcome.reason
    finally:
        session.close()
    return store, directory


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference store (a copy: opening a store may migrate it) and its document model."""
    copy = tmp_path_factory.mktemp("reference") / "uabench.sqlite"
    shutil.copy(REFERENCE / "uabench.sqlite", copy)
    store = open_store(copy)
    runs = document.latest_runs(store)
    cells_of = {run["id"]: store.cells([run["id"]]) for run in runs}
    return store, document.document(runs, cells_of), cells_of


def test_report_ranks_the_server_and_shows_the_matrix(small_store):
    store, directory = small_store
    outputs = report.build(store, directory / "out")
    text = outputs["markdown"].read_text()
    assert "Read: server ranking" in text
    section = text[text.index("## Read: server ranking") :]
    [line] = [line for line in section.splitlines() if line.split("|")[2:3] == [f" {SDK} "]][:1]
    cells = [cell.strip() for cell in line.split("|")]
    # a client-bound result is shown but never ranks a server
    assert cells[1] == ("–" if "client-bound" in cells[-2] else "1"), line
    values_per_s = float(cells[3].split("±")[0].replace(",", ""))
    assert values_per_s > 0
    assert f"| {SDK} | pass (1/1) |" in text
    assert "git commit:" in text and "fingerprint" in text
    page = outputs["html"].read_text()
    assert "<svg" in page and "<img" not in page
    # self-contained: no reference leaves the page (anchors and the SVGs' internal ids only)
    assert re.findall(r'(?:src|href)="(?!#)', page) == [] and "<link" not in page and "<script" not in page
    assert outputs["csv"].read_text().count("\n") == 4  # header + 3 cells


def test_report_renders_in_headless_chromium_without_console_errors(small_store, tmp_path):
    store, directory = small_store
    outputs = report.build(store, directory / "browser")
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is part of the setup (ci/apt-packages)"
    screenshot = directory / "browser" / "report.png"
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1300,2000",
            f"--screenshot={screenshot}",
            outputs["html"].as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    assert screenshot.stat().st_size > 10_000


# --- Markdown and HTML from one model ------------------------------------------------------------


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


def test_markdown_and_html_show_the_same_headings_and_tables(reference):
    _, model, _ = reference
    headings, tables = _markdown_tables(markdown.render(model))
    page = _Page()
    page.feed(html.render(model))
    assert page.headings[0] == "Contents"
    assert page.headings[1:] == headings
    assert len(tables) > 20 and page.tables == tables
    assert page.scrolling == len(tables)  # every table scrolls sideways on its own


def test_the_contents_link_every_section_and_the_anchors_resolve(reference):
    _, model, _ = reference
    page = _Page()
    page.feed(html.render(model))
    assert len(page.ids) == len(set(page.ids)), "an id appears twice"
    assert page.links and set(page.links) <= set(page.ids)
    titles = [part.title for s in model.sections for part in s.walk()]
    text = markdown.render(model)
    contents = re.findall(r"^ *- \[(.+)\]\(#([^)]+)\)$", text, re.M)
    assert [t for t, _ in contents] == titles
    assert len({a for _, a in contents}) == len(titles)
    assert {a for _, a in contents} <= set(page.ids)


def test_anchors_are_githubs():
    """GitHub's own anchors for these headings (as it renders report.md)."""
    assert slug("Read: interop matrix (client × server)") == "read-interop-matrix-client--server"
    assert slug("Subscription: sessions at 10000 signals/s") == "subscription-sessions-at-10000-signalss"
    sections = [Section("Summary"), Section("Summary"), Section("Summary", subsections=[Section("R²")])]
    Report("t", sections)
    assert [s.anchor for s in sections] == ["summary", "summary-1", "summary-2"]
    assert sections[2].subsections[0].anchor == "r²"


def test_html_escapes_what_the_store_says():
    table = Table([Column("server", kind="text")], [row("<script>alert(1)</script>")])
    page = html.render(Report("t", [Section("a <b>", tables=[table])]))
    assert "<script>" not in page and "&lt;script&gt;" in page and "a &lt;b&gt;" in page


def test_cell_status_sets_the_class_and_not_the_text():
    table = Table([Column("verdict", kind="text")], [[Cell("pass", Status.PASS)], [Cell("passed", Status.FAIL)]])
    page = html.render(Report("t", [Section("s", tables=[table])]))
    assert '<td class="text pass">pass</td>' in page and '<td class="text fail">passed</td>' in page


# --- numbers -------------------------------------------------------------------------------------


def test_tables_sort_on_numbers_not_on_their_text():
    table = Table(
        [Column("server", kind="text"), Column("values/s")],
        [
            row("a", Estimate(9_500.0, 10.0)),
            row("b", None),
            row("c", Estimate(10_200.0, 5.0)),
            row("d", Estimate(950.0)),
        ],
    )
    ordered = table.sorted_by("values/s", descending=True)
    assert [r[0].value for r in ordered.rows] == ["c", "a", "d", "b"]  # as text "9,500" > "950" > "10,200"
    assert [r[0].value for r in table.sorted_by("values/s").rows] == ["d", "a", "c", "b"]


def test_the_summary_orders_servers_by_read_throughput(reference):
    _, model, _ = reference
    summary = model.sections[0]
    assert summary.title == "Summary"
    [table] = summary.tables
    index = table.column("read values/s")
    means = [r[index].value.mean for r in table.rows]
    assert means == sorted(means, reverse=True) and len(means) == 5


def test_counter_columns_the_machine_lacks_are_dropped_with_a_note():
    columns = [
        Column("server", kind="text"),
        Column("cycles / request", counter=True),
        Column("instructions / request", counter=True),
    ]
    table = Table(columns, [row("a", None, 12.0), row("b", None, None)]).without_missing_counters()
    assert [c.title for c in table.columns] == ["server", "instructions / request"]
    assert len(table.notes) == 1 and "cycles / request" in table.notes[0]
    kept = Table(columns[:2], [row("a", 3.0)]).without_missing_counters()
    assert len(kept.columns) == 2 and kept.notes == []


# --- plots ---------------------------------------------------------------------------------------


def _series_colours(svg: str) -> dict[str, str]:
    """SDK -> the colour its series are drawn in, from the ids plots.svg gives each series."""
    found: dict[str, set] = {}
    for sdk, colour in re.findall(
        r'<g id="[^"]*?-\d+-([a-z0-9-]+?)-(?:line|points|fit|bar\d+)">\s*<(?:path|g)[^>]*?'
        r"(?:stroke|fill): (#[0-9a-f]{6})",
        svg,
    ):
        found.setdefault(sdk, set()).add(colour)
    assert all(len(c) == 1 for c in found.values()), found
    return {sdk: colours.pop() for sdk, colours in found.items()}


def test_every_sdk_has_one_colour_in_every_plot():
    first = Figure(
        "one",
        "line",
        "x",
        "y",
        [Series("milo", "milo", [(1, 2), (2, 3)]), Series("asyncua", "asyncua", [(1, 1), (2, 2)])],
    )
    second = Figure(
        "two",
        "bar",
        "",
        "y",
        [
            Series("asyncua", "asyncua", [(0, 1.0)]),
            Series("zz-new", "zz-new", [(0, 2.0)]),
            Series("milo", "milo", [(0, 3.0)]),
        ],
        categories=["a"],
    )
    page = html.render(Report("t", [Section("a", figures=[first]), Section("b", figures=[second])]))
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    one, two = _series_colours(svgs[0]), _series_colours(svgs[1])
    assert set(one) == {"milo", "asyncua"} and set(two) == {"milo", "asyncua", "zz-new"}
    assert one["milo"] == two["milo"] == plots.SDK_COLOURS["milo"]
    assert one["asyncua"] == two["asyncua"] == plots.SDK_COLOURS["asyncua"]
    assert len(set(two.values())) == 3


def test_sdks_without_a_fixed_colour_get_one_by_their_sorted_order():
    colours = plots.palette(["zeta", "milo", "alpha"])
    assert colours == plots.palette(["alpha", "zeta"]) | {"milo": plots.SDK_COLOURS["milo"]}
    assert colours["alpha"] == plots.SPARE_COLOURS[0] and colours["zeta"] == plots.SPARE_COLOURS[1]


def test_the_model_plot_shows_each_communication_model_with_its_fitted_line(reference):
    """asyncua and open62541 were measured with client/server subscriptions and with PubSub:
    each of those four models has its own points and its own line in the plot."""
    store, _, _ = reference
    cells = store.cells()
    section = model_section(cells)
    [figure] = section.figures
    models = {(s.sdk, s.style): s for s in figure.series}
    for sdk in ("asyncua", "open62541"):
        for communication in ("client-server", "pubsub"):
            series = models[(sdk, communication)]
            assert series.fitted is not None and len(series.points) >= 3
    assert models[("asyncua", "client-server")].points != models[("asyncua", "pubsub")].points
    svg = plots.svg(figure, plots.palette([]), "m")
    for sdk in ("asyncua", "open62541"):
        assert len(re.findall(rf'<g id="m-\d+-{sdk}-points">', svg)) == 2
        assert len(re.findall(rf'<g id="m-\d+-{sdk}-fit">', svg)) == 2


def test_plots_are_inline_svg_with_one_per_figure(reference):
    _, model, _ = reference
    page = html.render(model)
    assert page.count("<svg") == page.count("<figure>") == len(model.figures()) >= 15
    assert "<?xml" not in page and "data:image" not in page


# --- the reference report -------------------------------------------------------------------------


def _figures(text: str) -> dict[tuple, list[float]]:
    """Every number of every table row, by (section, row key, column)."""
    found, heading, header = {}, None, None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("| ---"):
            continue
        elif line.startswith("| "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if header is None:
                header = cells
                continue
            key = tuple(c.replace(",", "") for c in cells[: 3 if len(cells) > 4 else 1])
            for column, cell in zip(header, cells, strict=True):
                numbers = [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?", cell)]
                if numbers:
                    found[(heading, key, column)] = numbers
        else:
            header = None
    return found


def test_the_reference_report_regenerates_from_its_store(reference, tmp_path):
    store, _, _ = reference
    outputs = report.build(store, tmp_path)
    committed = _figures((REFERENCE / "report.md").read_text())
    assert len(committed) > 2000
    assert _figures(outputs["markdown"].read_text()) == committed


def test_the_report_imports_no_engine_and_installs_no_signal_handler():
    probe = (
        "import signal, sys\n"
        "before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}\n"
        "import uabench.report, uabench.report.document, uabench.report.files\n"
        "after = {s: signal.getsignal(s) for s in before}\n"
        # the engine's constants (a module of numbers) are the results figures' rules too
        "engine = sorted(m for m in sys.modules\n"
        "                if m.startswith('uabench.engine.') and m != 'uabench.engine.constants')\n"
        "print(engine, before == after)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=Path(__file__).parent
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] True"
