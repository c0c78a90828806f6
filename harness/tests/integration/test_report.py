"""The report: from a real (small) run of asyncua client and server, and from the committed
reference store (real measurements of every SDK): the document model, its Markdown and HTML
renderings, the plots, and the figures the reference report publishes."""

import re
import shutil
import subprocess
import sys

import pytest
from helpers import TESTS
from helpers.report import REFERENCE, _markdown_tables, _Page

from uabench import plan, sdks
from uabench.engine.session import Session
from uabench.report import files, html, markdown
from uabench.results.kinds import CellKind
from uabench.results.store import open_store

SDK = "asyncua"


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    store = open_store(directory / "store.sqlite")
    read = plan.load("read")
    session = Session(store, "read", "smoke", workdir=directory / "run", plan=read)
    sdk = sdks.get(SDK)
    try:
        server = session.pool.get(sdk)
        for kind, variant, repetitions in (
            (CellKind.INTEROP, read.interop[0], 1),
            (CellKind.THROUGHPUT, read.throughput[1], 2),
        ):
            for repetition in range(repetitions):
                config = session.client_config(server, dict(variant.workload, warmup_s=0.2, duration_s=0.5))
                outcome = session.run_client(sdk, server, config)
                session.recorder.record(kind, sdk, sdk, variant.name, repetition, config, outcome, server.config)
                assert outcome.status == "pass", outcome.reason
    finally:
        session.close()
    return store, directory


def test_report_ranks_the_server_and_shows_the_matrix(small_store):
    store, directory = small_store
    outputs = files.build(store, directory / "out")
    text = outputs["markdown"].read_text()
    assert "Read: server ranking" in text
    section = text[text.index("## Read: server ranking") :]
    [line] = [line for line in section.splitlines() if line.split("|")[2:3] == [f" {SDK} "]][:1]
    cells = [cell.strip() for cell in line.split("|")]
    # two blocks are too few to rank (results/ranking.MIN_BLOCKS), and the rank cell says so
    assert cells[1] == "– (2 blocks only: too few to rank)", line
    values_per_s = float(cells[3].split(" ")[0].replace(",", ""))
    assert values_per_s > 0
    assert f"| {SDK} | pass (1/1) |" in text
    assert "git commit:" in text and "fingerprint" in text
    page = outputs["html"].read_text()
    assert "<svg" in page and "<img" not in page
    # self-contained: no reference leaves the page (anchors and the SVGs' internal ids only)
    assert re.findall(r'(?:src|href)="(?!#)', page) == [] and "<link" not in page and "<script" not in page
    measured = [
        line
        for line in outputs["csv"].read_text().splitlines()[1:]
        if ",read,interop," in line or ",read,throughput," in line
    ]
    assert len(measured) == 3  # besides the server's warm-up chunks


def test_report_renders_in_headless_chromium_without_console_errors(small_store, tmp_path):
    store, directory = small_store
    outputs = files.build(store, directory / "browser")
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


def test_markdown_and_html_show_the_same_headings_and_tables(reference):
    _, model, _ = reference
    headings, tables = _markdown_tables(markdown.render(model))
    page = _Page()
    page.feed(html.render(model))
    assert page.headings[0] == "Contents"
    assert page.headings[1:] == headings
    assert len(tables) > 20 and page.tables == tables
    assert page.scrolling == len(tables)  # every table scrolls sideways on its own


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
            # a row is named by its first cells; in a ranking by its server (a rank is a figure, not a name)
            ranked = [c for c, title in zip(cells, header, strict=True) if title.endswith("rank")]
            named = [c for c in cells if c not in ranked][:1] if ranked else cells[: 3 if len(cells) > 4 else 1]
            key = tuple(c.replace(",", "") for c in named)
            for column, cell in zip(header, cells, strict=True):
                numbers = [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?", cell)]
                if numbers:
                    found[(heading, key, column)] = numbers
        else:
            header = None
    return found


def test_the_reference_report_regenerates_from_its_store(reference, tmp_path):
    """Every figure of the committed reference report is reproduced from its store (the bootstrap
    intervals are seeded, so they are reproduced too)."""
    store, _, _ = reference
    outputs = files.build(store, tmp_path)
    committed = _figures((REFERENCE / "report.md").read_text())
    regenerated = _figures(outputs["markdown"].read_text())
    assert len(committed) > 500
    assert committed == regenerated


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
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=TESTS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] True"


def test_the_reference_report_draws_every_flame_graph_inline(tmp_path):
    """inferno (ci/profile-tools) draws each stored profile's flame graph; the page holds each as
    an <img> of its own SVG. Made here, not from the shared `reference` fixture: in a session with
    the unit lane, that one was made without flame graphs (unit/conftest.py)."""
    from uabench.profile import profilers
    from uabench.report import document

    assert (profilers.INFERNO / "inferno-flamegraph").exists(), "no inferno: ci/profile-tools builds it"
    copy = tmp_path / "uabench.sqlite"
    shutil.copy(REFERENCE / "uabench.sqlite", copy)
    store = open_store(copy)
    runs = document.latest_runs(store)
    model = document.document(runs, {run["id"]: store.cells([run["id"]]) for run in runs})
    store.close()
    page = html.render(model)
    images = [image for s in model.sections for part in s.walk() for image in part.images]
    assert page.count("<figure>") == len(model.figures()) + len(images)
    assert "<?xml" not in page and page.count("data:image/svg+xml;base64,") == len(images) >= 12
