"""A report built from a real (small) run: asyncua client and server."""

import shutil
import subprocess

import pytest

from uabench import plan, report, sdks
from uabench.engine.session import Session
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


def test_report_ranks_the_server_and_shows_the_matrix(small_store):
    store, directory = small_store
    outputs = report.build(store, directory / "out")
    markdown = outputs["markdown"].read_text()
    assert "Read: server ranking" in markdown
    section = markdown[markdown.index("Read: server ranking"):]
    [row] = [line for line in section.splitlines() if line.split("|")[2:3] == [f" {SDK} "]][:1]
    cells = [cell.strip() for cell in row.split("|")]
    # a client-bound result is shown but never ranks a server
    assert cells[1] == ("–" if "client-bound" in cells[-2] else "1"), row
    values_per_s = float(cells[3].split("±")[0].replace(",", ""))
    assert values_per_s > 0
    assert f"| {SDK} | pass (1/1) |" in markdown
    assert "git commit:" in markdown and "fingerprint" in markdown
    page = outputs["html"].read_text()
    assert "<img" in page and "data:image/png;base64," in page and "http" not in page.split("<body>")[1]
    assert outputs["csv"].read_text().count("\n") == 4  # header + 3 cells


def test_report_renders_in_headless_chromium_without_console_errors(small_store, tmp_path):
    store, directory = small_store
    outputs = report.build(store, directory / "browser")
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is part of the setup (ci/apt-packages)"
    screenshot = directory / "browser" / "report.png"
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--window-size=1300,2000", f"--screenshot={screenshot}", outputs["html"].as_uri()],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    assert screenshot.stat().st_size > 10_000
