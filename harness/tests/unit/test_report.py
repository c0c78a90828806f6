"""The report: from a real (small) run of asyncua client and server, and from the committed
reference store (real measurements of every SDK): the document model, its Markdown and HTML
renderings, the plots, and the figures the reference report publishes."""

import os
import re
import signal

import pytest
from helpers import version0_store
from helpers.report import _markdown_tables, _Page

from uabench import sdks
from uabench.document import parts
from uabench.document.model import (
    Cell,
    Column,
    Estimate,
    Figure,
    Rank,
    Report,
    Section,
    Series,
    Status,
    Table,
    row,
    slug,
)
from uabench.engine import search
from uabench.report import document, html, markdown, plots, text
from uabench.report.sections import moved_clients_note, placement_note, ranking_section
from uabench.report.steady import steady_section
from uabench.report.summary import summary_section
from uabench.results.store import open_store


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
    answer, summary = model.sections[0], model.sections[1]
    assert answer.title == "The answer: which SDK" and summary.title == "Summary"
    [table] = summary.tables
    index = table.column("read values/s")
    # a server the reference load generator cannot load (async-opcua's) has no figure: it comes last
    means = [r[index].value.center for r in table.rows if r[index].value is not None]
    assert means == sorted(means, reverse=True) and len(means) == 6
    assert all(r[index].value is None for r in table.rows[len(means) :])


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
    assert one["milo"] == two["milo"] == sdks.get("milo").colour
    assert one["asyncua"] == two["asyncua"] == sdks.get("asyncua").colour
    assert len(set(two.values())) == 3


def test_sdks_without_a_fixed_colour_get_one_by_their_sorted_order():
    colours = plots.palette(["zeta", "milo", "alpha"])
    assert colours == plots.palette(["alpha", "zeta"]) | {"milo": sdks.get("milo").colour}
    spare = [colour for colour in plots.TAB10 if colour not in {sdk.colour for sdk in sdks.all_sdks()}]
    assert colours["alpha"] == spare[0] and colours["zeta"] == spare[1]


def test_every_sdk_declares_a_colour_of_its_own():
    declared = [sdk.colour for sdk in sdks.all_sdks()]
    assert all(declared) and len(set(declared)) == len(declared)


def test_plots_are_inline_svg_with_one_per_figure(reference):
    _, model, _ = reference
    page = html.render(model)
    images = [image for s in model.sections for part in s.walk() for image in part.images]
    assert page.count("<svg") == len(model.figures()) >= 15
    # the unit lane draws no flame graph (unit/conftest.py): the section says why, where each would be
    assert page.count("<figure>") == len(model.figures()) and images == []
    assert "<?xml" not in page and page.count("no flame graph drawn: the unit lane draws no flame graph") >= 12


PLAN = {
    "ranking": "bulk",
    "throughput": {"bulk": {"in_flight": 8}},
    "sweeps": {"security": {"kind": "security", "workload": "read"}},
}


SCHEDULE = {
    "seed": 7,
    "steady_state": {"bound_s": 20.0, "chunk_s": 1.0, "chunk_warmup_s": 0.2, "tolerance": 0.02, "run": 3},
    "host_threshold_percent": 10.0,
}


def _result(values_per_s: float, host: dict | None = None, start_s: float = 0.0, timeline: dict | None = None) -> dict:
    return {
        "throughput": {"values_per_s": values_per_s, "ops_per_s": values_per_s / 100},
        "latency_ns": [[100_000, 10]],
        "values": int(values_per_s),
        "start_ns": int(start_s * 1e9),
        "end_ns": int((start_s + 1) * 1e9),
        **({"host": host} if host else {}),
        **({"timeline": timeline} if timeline else {}),
    }


def _store_run(tmp_path, name: str, interleaved: bool = True):
    store = open_store(tmp_path / f"{name}.sqlite")
    provenance = {"plan": PLAN, **({"schedule": SCHEDULE} if interleaved else {})}
    run_id = store.begin_run("read", "quick", provenance)
    return store, run_id


def _add(store, run_id, kind, server, variant, values, parameter=None, status="pass", reason=None, **extra):
    for repetition, value in enumerate(values):
        store.add_cell(
            run_id,
            suite="read",
            kind=kind,
            client="open62541",
            server=server,
            variant=variant,
            parameter=parameter,
            repetition=repetition,
            status=status,
            reason=reason,
            client_config={"workload": "read", "in_flight": 8},
            result=_result(value, start_s=repetition * 1.5, **extra),
        )


def _run_and_cells(store, run_id):
    [run] = [r for r in store.runs() if r["id"] == run_id]
    return run, store.cells([run_id])


def _ranking(store, run_id) -> tuple[dict[str, list[str]], list[str], str]:
    """Each server's rank and values/s texts in the rendered ranking table, its notes, the page."""
    run, cells = _run_and_cells(store, run_id)
    section = ranking_section(run, cells)
    text = markdown.render(Report("t", [section]))
    headings, tables = _markdown_tables(text)
    header, *rows = tables[0]
    by_server = {r[header.index("server")]: [r[header.index("rank")], r[1 + header.index("server")]] for r in rows}
    return by_server, section.subsections[0].tables[0].notes, html.render(Report("t", [section]))


STABLE_A = [100.0, 101.0, 99.0, 100.5, 102.0]


OVERLAPS_A = [99.5, 100.5, 101.5, 98.0, 100.0]


SLOWER = [50.0, 51.0, 49.0, 50.5, 52.0]


def test_servers_whose_intervals_overlap_share_a_rank(tmp_path):
    store, run_id = _store_run(tmp_path, "overlap")
    for server, values in (("a", STABLE_A), ("b", OVERLAPS_A), ("c", SLOWER)):
        _add(store, run_id, "throughput", server, "bulk", values)
    ranks, notes, page = _ranking(store, run_id)
    assert {server: shown[0] for server, shown in ranks.items()} == {"a": "1–2", "b": "1–2", "c": "3"}
    assert re.fullmatch(r"100 \[\d+–\d+\]", ranks["a"][1]), ranks["a"]
    assert any(note.startswith("Intervals: median, 95% bootstrap CI") for note in notes)
    # every repetition behind a figure: on hover, and in the folded detail table
    assert 'title="5 repetitions: 100, 101, 99, 100, 102"' in page
    assert "<details>" in page and "Per-repetition values: bulk" in page
    run, cells = _run_and_cells(store, run_id)
    summary = summary_section([run], {run_id: cells})
    [table] = summary.tables
    assert [r[table.column("read rank")].value for r in table.rows] == [Rank(1, 2), Rank(1, 2), Rank(3, 3)]


def test_a_noisy_figure_ranks_by_the_rule_with_its_note_beside_it_and_two_blocks_do_not_rank(tmp_path):
    """Issue 67: CV, interval width and drift are notes beside a figure, never a veto; a figure of
    fewer than three blocks says why it takes no rank."""
    store, run_id = _store_run(tmp_path, "unstable")
    _add(store, run_id, "throughput", "a", "bulk", STABLE_A)
    _add(store, run_id, "throughput", "c", "bulk", SLOWER)
    _add(store, run_id, "throughput", "noisy", "bulk", [100.0, 60.0, 140.0, 90.0, 110.0])
    _add(store, run_id, "throughput", "short", "bulk", [75.0, 75.5])
    ranks, notes, _ = _ranking(store, run_id)
    # a is ordered above c (their paired ratio, 2, lies beyond the margin); noisy's ratios reach into it
    assert {server: shown[0] for server, shown in ranks.items() if server != "short"} == {
        "a": "1–2",
        "noisy": "1–3",
        "c": "2–3",
    }
    assert ranks["noisy"][1].endswith("(noisy)") and not ranks["a"][1].endswith("(noisy)")
    assert ranks["short"][0] == "– (2 blocks only: too few to rank)"
    [noisy] = [n for n in notes if n.startswith("noisy:")]
    assert "CV above 10 %" in noisy
    assert any("orders 1 of its 3 pairs beyond the margin ±35 %" in n for n in notes)
    assert any(n.startswith("Rank: Two SDKs are ordered where") for n in notes)
    assert not any(n.startswith(("a:", "c:")) for n in notes)


def test_a_noisy_figure_whose_interval_lies_wholly_above_another_is_ranked_above_it(tmp_path):
    """28 Nov: Milo, the only figure of a read ranking under the CV veto, was ranked "1" at 145,750
    values/s beside an unranked open62541 at 2.77 M [2.26 M–3.26 M]."""
    store, run_id = _store_run(tmp_path, "above")
    _add(store, run_id, "throughput", "fast", "bulk", [2_263_500.0, 3_263_500.0, 2_777_250.0, 2_767_625.0, 2_444_875.0])
    _add(store, run_id, "throughput", "steady", "bulk", [150_375.0, 137_875.0, 145_750.0, 164_625.0, 128_125.0])
    ranks, _, _ = _ranking(store, run_id)
    assert ranks["fast"][0] == "1" and ranks["steady"][0] == "2"
    run, cells = _run_and_cells(store, run_id)
    [table] = summary_section([run], {run_id: cells}).tables
    rows = {r[0].value: r for r in table.rows}
    assert rows["steady"][table.column("read rank")].value == Rank(2, 2)


def test_the_summary_notes_a_figure_by_the_same_rule_as_its_section(tmp_path):
    """One quality rule (stats.CV_LIMIT) for the summary and the sections: the summary's 3 % of
    before said "unstable" of a figure its own section did not."""
    store, run_id = _store_run(tmp_path, "headline")
    _add(store, run_id, "throughput", "a", "bulk", STABLE_A)  # CV about 1 %
    _add(store, run_id, "throughput", "wobbly", "bulk", [50.0, 54.0, 47.0, 51.0, 45.0])  # CV about 7 %
    _add(store, run_id, "throughput", "noisy", "bulk", [10.0, 6.0, 14.0, 9.0, 11.0])  # CV about 29 %
    run, cells = _run_and_cells(store, run_id)
    summary = summary_section([run], {run_id: cells})
    [table] = summary.tables
    rows = {r[0].value: r for r in table.rows}
    figure = table.column("read values/s")
    assert [rows[s][table.column("read rank")].value for s in ("a", "wobbly", "noisy")] == [
        Rank(1, 1),
        Rank(2, 2),
        Rank(3, 3),
    ]
    assert rows["a"][figure].status is None and rows["wobbly"][figure].status is None
    assert rows["noisy"][figure].status == Status.MARKED and rows["noisy"][figure].detail == "noisy"
    [note] = [n for n in table.notes if n.startswith("noisy (read):")]
    assert "CV above 10 %" in note
    assert any(n.startswith("read rank: This ranking orders 3 of its 3 pairs") for n in table.notes)


def _security(store, run_id, plain, encrypted):
    _add(store, run_id, "sweep", "x", "security", plain, parameter="None/None")
    _add(store, run_id, "sweep", "x", "security", encrypted, parameter="Basic256Sha256/SignAndEncrypt")
    run, cells = _run_and_cells(store, run_id)
    summary = summary_section([run], {run_id: cells})
    [table] = summary.tables
    column = table.column("SignAndEncrypt / None throughput")
    [line] = [r for r in table.rows if r[0].value == "x"]
    return line[column], table


def test_the_encryption_ratio_has_an_interval_and_says_how_it_was_paired(tmp_path):
    plain, encrypted = [100.0, 104.0, 98.0, 101.0, 99.0], [60.0, 63.0, 58.0, 61.0, 59.5]
    store, run_id = _store_run(tmp_path, "paired")
    found, table = _security(store, run_id, plain, encrypted)
    ratio = found.value
    assert found.detail == "paired" and ratio.low < ratio.center < ratio.high < 1
    assert ratio.center == pytest.approx(0.6, abs=0.01)
    assert re.fullmatch(r"0\.60 \[0\.\d\d–0\.\d\d\] \(paired\)", text.cell_text(found, Column("", digits=2)))
    assert any("paired per block" in note for note in table.notes)
    # the same cells from a run that did not interleave them: unpaired, and wider
    store, run_id = _store_run(tmp_path, "unpaired", interleaved=False)
    unpaired, table = _security(store, run_id, plain, encrypted)
    assert unpaired.detail == "unpaired"
    assert unpaired.value.high - unpaired.value.low > ratio.high - ratio.low
    assert any("ratio of the two figures" in note for note in table.notes)


def test_an_encryption_ratio_above_one_is_explained_only_if_its_interval_excludes_one(tmp_path):
    store, run_id = _store_run(tmp_path, "faster")
    found, table = _security(store, run_id, [100.0, 101.0, 99.0, 100.5, 100.2], [130.0, 131.0, 129.0, 130.5, 130.2])
    assert found.status == Status.MARKED and "needs explaining" in found.detail
    assert any("excludes 1" in n and "needs explaining" in n for n in table.notes)
    store, run_id = _store_run(tmp_path, "unclear")
    found, table = _security(store, run_id, [100.0, 60.0, 140.0, 90.0, 110.0], [105.0, 150.0, 70.0, 95.0, 120.0])
    assert found.status == Status.MARKED and found.detail == "paired, interval includes 1, noisy"
    assert any(n.startswith("x (SignAndEncrypt / None throughput): Noisy:") for n in table.notes)
    assert any("includes 1" in n and "not shown as a gain" in n for n in table.notes)


def test_servers_rank_by_what_signandencrypt_costs_them_by_the_same_rule(tmp_path):
    """Issue 67: one rule for every ranked figure; SignAndEncrypt's ratio pairs per block too."""
    store, run_id = _store_run(tmp_path, "security")
    plain = [100.0, 104.0, 98.0, 101.0, 99.0]
    for server, cost in (("cheap", 0.6), ("close", 0.55), ("dear", 0.2)):
        _add(store, run_id, "sweep", server, "security", plain, parameter="None/None")
        encrypted = [v * cost * (1 + 0.01 * i) for i, v in enumerate(plain)]
        _add(store, run_id, "sweep", server, "security", encrypted, parameter="Basic256Sha256/SignAndEncrypt")
    _add(store, run_id, "sweep", "short", "security", plain[:2], parameter="None/None")
    _add(store, run_id, "sweep", "short", "security", plain[:2], parameter="Basic256Sha256/SignAndEncrypt")
    run, cells = _run_and_cells(store, run_id)
    [table] = summary_section([run], {run_id: cells}).tables
    rows = {r[0].value: r[table.column("SignAndEncrypt rank")] for r in table.rows}
    # 0.6 / 0.55 lies within the ±45 % of a security ratio; both ordered above 0.2
    assert {s: rows[s].value for s in ("cheap", "close", "dear")} == {
        "cheap": Rank(1, 2),
        "close": Rank(1, 2),
        "dear": Rank(3, 3),
    }
    assert rows["short"].value is None and rows["short"].detail == "2 blocks only: too few to rank"
    assert any(n.startswith("SignAndEncrypt rank: by SignAndEncrypt / None throughput") for n in table.notes)
    assert any("orders 2 of its 3 pairs beyond the margin ±45 %" in n for n in table.notes)


def test_the_steady_state_section_comes_from_the_warmup_cells(tmp_path):
    store, run_id = _store_run(tmp_path, "steady")
    _add(store, run_id, "warmup", "milo", "reference", [50.0, 80.0, 95.0, 100.0, 101.0, 100.5])
    _add(store, run_id, "warmup", "node-opcua", "reference", [10.0, 20.0, 30.0, 40.0])
    quiet, busy = {"steal_percent": 0.5, "irq_percent": 1.0, "other_percent": 2.0}, {"steal_percent": 30.0}
    timeline = {"window_ms": 250, "start_ns": 0, "ops": [1, 2, 2, 2], "values": [10, 24, 25, 25]}
    _add(store, run_id, "throughput", "milo", "bulk", [100.0, 101.0], host=quiet, timeline=timeline)
    _add(
        store,
        run_id,
        "throughput",
        "milo",
        "bulk",
        [70.0],
        status="disturbed",
        reason="Host disturbed: steal",
        host=busy,
    )
    run, cells = _run_and_cells(store, run_id)
    section = steady_section([run], {run_id: cells})
    assert section is not None and section.title == "Steady state"
    [table] = section.tables
    rows = {r[0].value: r for r in table.rows}
    milo, node = rows["milo"], rows["node-opcua"]
    assert milo[table.column("steady")].value == "yes"
    assert milo[table.column("time to steady state s")].value == pytest.approx(4.5)  # chunk 3 starts at 4.5 s
    assert milo[table.column("values before steady")].value == 50 + 80 + 95
    assert milo[table.column("steady values/s")].value == pytest.approx(100.5)
    assert node[table.column("steady")].value == "never" and node[table.column("steady")].status == Status.MARKED
    assert node[table.column("time to steady state s")].value is None
    assert table.notes == ["Never steady within the bound: node-opcua (read, reference)."]
    # the engine's own verdict, where it stored one, is taken as it is
    verdict = {"steady": True, "seconds_to_steady": 2.5, "warmup_s": 4.0, "chunks": 5, "steady_chunk": 2}
    verdict |= {"values_per_s": [5.0, 8.0, 10.0, 10.1, 10.0], "chunk_starts_s": [0, 1, 2.5, 3, 4]}
    store.add_cell(
        run_id,
        suite="read",
        kind="steady-state",
        client="open62541",
        server="asyncua",
        variant="reference",
        repetition=0,
        status="pass",
        result=verdict | {"values_before_steady": 13, "rule": SCHEDULE["steady_state"]},
    )
    run, cells = _run_and_cells(store, run_id)
    [table] = steady_section([run], {run_id: cells}).tables
    [judged] = [r for r in table.rows if r[0].value == "asyncua"]
    assert [judged[table.column(c)].value for c in ("time to steady state s", "values before steady")] == [2.5, 13]
    assert judged[table.column("steady values/s")].value == pytest.approx(10.033, abs=0.001)
    [host] = section.subsections
    [line] = host.tables[0].rows
    assert line[host.tables[0].column("steal % (max)")].value == 30.0
    assert line[host.tables[0].column("disturbed, measured again")].value == 1
    assert host.notes and "Host disturbed: steal" in host.notes[0]
    assert "## Steady state" in markdown.render(Report("t", [section]))
    # the first measured repetition window by window, from the start of its warm-up
    [repetition] = [f for f in section.figures if f.title.startswith("First measured repetition")]
    assert [s.points for s in repetition.series] == [[(0.0, 40.0), (0.25, 96.0), (0.5, 100.0), (0.75, 100.0)]]


@pytest.fixture(scope="module")
def version_0(tmp_path_factory):
    """A store of schema version 0 (the first reference store, cut down) and its document model."""
    copy = tmp_path_factory.mktemp("v0") / "uabench.sqlite"
    version0_store(copy)
    store = open_store(copy)
    runs = document.latest_runs(store)
    cells_of = {run["id"]: store.cells([run["id"]]) for run in runs}
    return store, document.document(runs, cells_of), cells_of


def test_the_reference_store_has_steady_state_and_ranks_every_measured_figure_with_paired_ratios(reference):
    """The reference store comes from make bench: servers warmed to steady state, repetitions
    interleaved in blocks, so the encryption ratios are paired; every measured read figure has a
    rank, noisy or not (on the 2-core VM of 28 Nov the CV veto of before ranked none)."""
    _, model, _ = reference
    assert "Steady state" in [s.title for s in model.sections]
    [table] = model.sections[1].tables
    for r in table.rows:
        figure = r[table.column("read values/s")]
        if figure.value is not None:
            assert r[table.column("read rank")].value is not None, r[0].value
    ratios = [r[table.column("SignAndEncrypt / None throughput")] for r in table.rows]
    assert ratios and all(cell.detail.startswith("paired") for cell in ratios if cell.value)


def test_an_old_store_has_no_steady_state_and_ranks_by_unpaired_ratios(version_0):
    """A store from before warm-up to steady state and interleaving: no steady-state section, no
    paired ratio; its 3-repetition figures rank by the quotients of their intervals."""
    _, model, _ = version_0
    assert "Steady state" not in [s.title for s in model.sections]
    [table] = model.sections[1].tables
    assert all(
        r[table.column("read rank")].value is not None for r in table.rows if r[table.column("read values/s")].value
    )
    ratios = [r[table.column("SignAndEncrypt / None throughput")] for r in table.rows]
    assert ratios and all(cell.detail.startswith("unpaired") for cell in ratios if cell.value)


def test_a_report_is_rendered_as_its_store_says_or_the_reference_check_says_where_not(tmp_path):
    """make test renders the committed report again (report/files.unrendered):
    a report rendered by other code than the checkout's is stale though its figures are not."""
    from uabench.report.files import build, unrendered

    store = open_store(_small_store(tmp_path))
    out = tmp_path / "report"
    build(store, out)
    assert unrendered(store, out) is None
    page = (out / "report.md").read_text(encoding="utf-8").splitlines()
    edited = [line.replace("100", "101") if "| a |" in line else line for line in page]
    assert edited != page
    (out / "report.md").write_text("\n".join(edited) + "\n", encoding="utf-8")
    stale = unrendered(store, out)
    assert stale is not None and "is not what this checkout renders" in stale
    assert f"first at line {next(i for i, (x, y) in enumerate(zip(page, edited, strict=True)) if x != y) + 1}" in stale
    (out / "report.md").unlink()
    assert unrendered(store, out) == f"{out / 'report.md'} is missing"


@pytest.fixture
def stop_signals(monkeypatch):
    """The signal handlers `uabench report` installs, put back after the test; no signal remembered."""
    from uabench.proc import cleanup

    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    monkeypatch.setattr(cleanup, "_received", None)
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _small_store(tmp_path):
    """One finished run of one figure, with a whole provenance (the reference's)."""
    from uabench.results.reference import STORE

    measured = open_store(STORE, readonly=True)
    provenance = {**measured.runs()[0]["provenance"], "plan": PLAN, "schedule": SCHEDULE}
    measured.close()
    store = open_store(tmp_path / "small.sqlite")
    run_id = store.begin_run("read", "quick", provenance)
    _add(store, run_id, "throughput", "a", "bulk", STABLE_A)
    store.finish_run(run_id)
    store.close()
    return store.path


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("when", ["rendering", "writing"])
def test_a_stop_signal_during_the_report_is_130_and_one_line_and_leaves_no_half_report(
    tmp_path, monkeypatch, capsys, stop_signals, sig, when
):
    """Issue 39: SIGTERM during `uabench report` killed it (143) with report.md written and
    report.html not, SIGHUP (129) likewise. Now each stop signal is exit 130 and one line; while
    the pages are rendered nothing is written (the previous report.md stays as it was), and one
    arriving while they are written waits until every file is whole, with no temporary file."""
    from pathlib import Path

    from uabench import cli

    path, out = _small_store(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "report.md").write_text("the previous report\n", encoding="utf-8")
    if when == "rendering":
        render = markdown.render

        def interrupted_render(report):
            os.kill(os.getpid(), sig)
            return render(report)

        monkeypatch.setattr(markdown, "render", interrupted_render)
    else:
        write_text = Path.write_text

        def interrupted_write(self, *args, **kwargs):
            if self.name.endswith(".tmp") and self.parent == out:
                os.kill(os.getpid(), sig)
            return write_text(self, *args, **kwargs)

        monkeypatch.setattr(Path, "write_text", interrupted_write)
    assert cli.main(["--store", str(path), "report", "--out", str(out)]) == 130
    err = capsys.readouterr().err.splitlines()
    assert err == ["uabench: interrupted; each file it writes is as it was or whole (no half-written report)"]
    if when == "rendering":
        assert sorted(p.name for p in out.iterdir()) == ["report.md"]
        assert (out / "report.md").read_text(encoding="utf-8") == "the previous report\n"
    else:
        assert sorted(p.name for p in out.iterdir()) == ["cells.csv", "cells.json", "report.html", "report.md"]
        assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
        assert "the previous report" not in (out / "report.md").read_text(encoding="utf-8")


def test_runs_measured_by_uncommitted_code_are_named_first_and_in_their_provenance(reference):
    store, model, cells_of = reference
    runs = document.latest_runs(store)
    assert not any(part.warning and "uncommitted" in part.warning for part in model.sections)
    dirty = [
        {**run, "provenance": {**run["provenance"], "git_commit": "ab12-dirty"}} if i == 1 else run
        for i, run in enumerate(runs)
    ]
    dirty_model = document.document(dirty, cells_of)
    summary, provenance = dirty_model.sections[1], dirty_model.sections[-1]
    said = f"Run {runs[1]['id']} was measured by a work tree with uncommitted changes"
    assert summary.title == "Summary" and said in (summary.warning or "")
    assert provenance.title == "Provenance" and said in (provenance.warning or "")
    notes = {part.title: part.notes for part in provenance.subsections}
    assert (
        "git commit: ab12-dirty (uncommitted changes to the measured code)"
        in notes[f"Run {runs[1]['id']}: {runs[1]['suite']}"]
    )
    assert f"git commit: {runs[0]['provenance']['git_commit']}" in notes[f"Run {runs[0]['id']}: {runs[0]['suite']}"]


def test_a_reason_cut_for_a_table_or_a_log_says_it_was_cut():
    long = "BadTimeout " + "x" * 400
    cut = parts.first_line(long)
    assert len(cut) == parts.REASON_CHARS and cut.endswith(parts.CUT) and cut.startswith("BadTimeout x")
    assert parts.first_line("short reason") == "short reason"
    assert parts.first_line("  \n first\n  Traceback …") == "first"  # the summary line; the detail is not cut
    assert parts.first_line("x" * parts.REASON_CHARS) == "x" * parts.REASON_CHARS  # exactly the limit: whole
    assert parts.first_line("   ") == parts.first_line(None) == ""
    assert search.first_line(long).endswith(parts.CUT) and len(search.first_line(long)) == 200


def test_both_pages_say_each_columns_unit_under_its_table():
    """A header's tooltip is seen only on hover and is lost in Markdown: the unit is written out."""
    table = Table(
        [
            Column("server", kind="text"),
            Column("idle RSS", "MiB", digits=1),
            Column("later requests", "µs"),
            Column("p50 µs", "µs"),
            Column("RMSE (pp)", "pp"),
        ],
        [row("a", 36.6, 141.0, 88.0, 1.0)],
    )
    model = Report("t", [Section("s", tables=[table])])
    legend = "Units — idle RSS: MiB; later requests: µs."
    assert f"*{legend}*" in markdown.render(model)
    assert f'<p class="units">{legend}</p>' in html.render(model)
    said = Table([Column("server", kind="text"), Column("p50 µs", "µs"), Column("values/s (median)", "values/s")], [])
    bare = Report("t", [Section("s", tables=[said])])
    assert "Units" not in markdown.render(bare) and 'class="units"' not in html.render(bare)


def test_a_run_s_placement_names_its_emulation_and_the_clients_its_cells_moved():
    vm = {
        "kind": "ssh",
        "name": "vm",
        "arch": "arm64",
        "emulated": True,
        "emulation": "qemu-system",
        "machine": {"machine": "aarch64", "cpus": 2},
        "images": {},
    }
    prov = {"targets": {"server": vm, "client": {"kind": "local"}}}
    said = placement_note(prov)
    assert "images arm64 emulated (qemu-system)" in said and "clients: on this machine" in said
    board = {**vm, "emulation": None}  # a foreign board's images under qemu-user
    assert "emulated (qemu-user)" in placement_note({"targets": {"server": board, "client": {"kind": "local"}}})
    here = {"kind": "footprint", "result": {"placement": {"server": "vm arm64 (emulated)", "client": "local"}}}
    beside = {"kind": "footprint-client", "result": {"placement": {"server": "vm", "client": "vm arm64 (emulated)"}}}
    assert moved_clients_note(prov, [here]) is None
    assert moved_clients_note(prov, [here, beside, {"kind": "read", "result": None}]) == (
        "clients of its footprint-client cells: on vm arm64 (emulated), beside their servers (the cells' placement)"
    )
    # clients already on a target: the run's own placement says where they ran
    assert moved_clients_note({"targets": {"server": vm, "client": vm}}, [beside]) is None
