"""The footprint suite (issue 21): its plan's checks, when RSS counts as settled, the line through
held − idle RSS and its interval, and the report's section from stored cells. The footprint of
real servers is make test's smoke run (suites/plans/footprint.toml)."""

import re
from types import SimpleNamespace

import pytest
from helpers.footprint import cell as _cell
from helpers.footprint import edited_plan as _plan

from uabench import plan, sdks, targets
from uabench.footprint import heap, memory
from uabench.footprint import runner as footprint_runner
from uabench.footprint import suite as footprint_suite
from uabench.footprint.keywords import FootprintKeywords
from uabench.footprint.plan import Settle
from uabench.footprint.report import footprint_beside, footprint_section
from uabench.report import document

SETTLE = Settle(window_s=1.0, tolerance=0.01, bound_s=5.0)


def test_the_shipped_plan_gives_every_server_its_start_up_and_models():
    loaded = plan.load("footprint")
    assert footprint_suite.of(loaded) is not None
    names = [case.name for case in plan.test_cases(loaded, ["open62541"], "quick")]
    assert names == [
        "start-up of open62541",
        "image of open62541",
        "model import of open62541",
        "memory per session of open62541",
        "memory per subscription of open62541",
        "memory per monitored item of open62541",
        "memory per session of the open62541 client",
    ]
    items = footprint_suite.of(loaded).model("monitored items")
    assert items.held(3)["nodes"] == ["Signal_0", "Signal_1", "Signal_2"]
    assert items.server_config(4000, {"update_interval_ms": 1000}) == {"update_interval_ms": 1000, "signals": 4000}
    assert footprint_suite.of(loaded).model("sessions").held(25)["sessions"] == 25
    assert footprint_suite.of(loaded).steps_of((1, 2, 3, 4), "smoke") == (1, 2)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("steps = [1, 50, 100]", "steps = [1]", r"footprint\.models\.0\.steps: \[1\] is too short"),
        ("steps = [1, 50, 100]", "steps = [50, 25]", r"models\[0\]\.steps: must rise"),
        ('vary = "sessions"', 'vary = "channels"', r"footprint\.models\.0\.vary: 'channels' is not one of"),
        ("rate = 5 }\n\n#", "rate = -5 }\n\n#", r"models\[0\]\.workload at 1: .*rate"),
        (
            'workload = { workload = "subscribe", publishing',
            'workload = { workload = "subscribe", nodes = "Signal_0", publishing',
            r"models\[2\]\.workload\.nodes: a model of monitored_items names its own nodes",
        ),
        ("signals = [1000, 10000]\nimports", "signals = [5]\nimports", r"smoke\.footprint\.signals: \[5\] are not"),
        ("hold_s = 2.5", "hold_s = 0.5", r"profiles\.quick\.footprint\.hold_s: 0\.5 is less than"),
        ("tolerance = 0.01", "tolerance = 0", r"settle\.tolerance"),
        ("server = { update_interval_ms = 1000 }", "server = { update_interval_ms = -1 }", "footprint.server"),
    ],
)
def test_a_bad_plan_is_refused_naming_the_key(tmp_path, old, new, message):
    with pytest.raises(plan.PlanError, match=message):
        _plan(tmp_path, old, new)


def _samples(values: list[int], interval_ns: int = 250_000_000) -> list[tuple[int, int]]:
    return [(k * interval_ns, value) for k, value in enumerate(values)]


def test_rss_settles_once_the_last_window_lies_within_the_tolerance():
    rising = _samples([10_000_000, 12_000_000, 14_000_000, 16_000_000, 18_000_000])
    found = memory.reading(rising, SETTLE)
    assert found is not None and not found.settled and found.spread == pytest.approx(8 / 14)
    flat = _samples([10_000_000, 30_000_000, 30_100_000, 30_000_000, 30_050_000, 30_000_000])
    found = memory.reading(flat, SETTLE)
    assert found is not None and found.settled and found.rss == 30_000_000 and found.samples == 5
    assert memory.reading(_samples([1, 1]), SETTLE) is None  # shorter than the window
    sparse = _samples([5, 9, 10, 10], interval_ns=600_000_000)  # a busy host: one sample per 0.6 s
    found = memory.reading(sparse, SETTLE)
    assert found is not None and found.samples == 3 and found.rss == 10 and not found.settled


def test_the_fit_finds_the_slope_and_an_interval_around_it():
    xs = [1.0, 1000.0, 2000.0, 4000.0] * 2
    ys = [5000.0 + 300.0 * x + noise for x, noise in zip(xs, [40, -60, 80, -20, -40, 60, -80, 20], strict=True)]
    found = memory.fit(xs, ys)
    assert found is not None and found.points == 8
    assert found.slope_low < 300 < found.slope_high and found.slope_high - found.slope_low < 1
    assert found.slope == pytest.approx(300, abs=0.1)
    exact = memory.fit([1.0, 2.0], [3.0, 5.0])
    assert exact is not None and exact.slope == pytest.approx(2) and exact.slope_low is None
    assert memory.fit([5.0, 5.0, 5.0], [1.0, 2.0, 3.0]) is None


def _held(delta: int, settled: bool = True) -> dict:
    return {
        "idle": {"rss": 8 << 20, "settled": True},
        "held": {"rss": (8 << 20) + delta, "settled": settled},
        "delta_bytes": delta,
        "config": {},
    }


def _startup(ready_s: float, idle: int) -> dict:
    return {"ready_s": ready_s, "idle": {"rss": idle}, "first_request_us": 900.0, "later_requests_us": 90.0}


def test_the_section_shows_the_slopes_with_intervals_and_marks_what_they_cannot_separate():
    cells = [
        _cell("footprint", "s", "monitored items", step, _held(step * 2048 + wobble))
        for step, wobble in ((1, 0), (1000, 4096), (2000, -4096), (1, 4096), (1000, 0), (2000, 0))
    ]
    cells += [
        _cell("footprint", "s", "sessions", step, _held(wobble, settled=step != 5))
        for step, wobble in ((1, 0), (5, 900_000), (10, -800_000), (1, 500_000), (5, -900_000), (10, 100_000))
    ]
    cells += [
        _cell("footprint-startup", "s", "start-up", n, _startup(0.1 * (1 + n / 10000), (4 << 20) + n * 100))
        for n in (1000, 10000, 1000, 10000)
    ]
    cells.append(_cell("footprint", "t", "sessions", 1, status="fail", reason="BadTooManySessions"))
    section = footprint_section(cells)
    assert section is not None
    table = section.tables[0]
    s = table.rows[0]
    items, sessions = s[table.column("per monitored item")], s[table.column("per session")]
    assert items.value.center == pytest.approx(2.0, abs=0.01) and items.status is None
    assert items.value.low < 2.0 < items.value.high
    assert sessions.status is not None and sessions.value.low < 0  # zero lies inside: marked
    per_1k = s[table.column("per 1,000 signals")].value
    assert per_1k.center == pytest.approx(100 * 1000 / 1024, rel=1e-6)
    assert s[table.column("ready, 1,000 signals")].value.values == pytest.approx((110.0, 110.0))
    assert any("s, sessions: RSS had not settled" in note and "2 of 6" in note for note in section.notes)
    assert any(re.search(r"t, sessions: not measured: BadTooManySessions", note) for note in section.notes)
    plot = section.figures[0]
    assert [series.label for series in plot.series] == ["s"] and plot.series[0].fitted is not None


def test_a_cost_below_one_page_is_zero_with_no_scatter_and_said_so():
    """python-opcua's sessions on the arm64 VM: held was idle to the byte at every point. scipy's
    standard errors are nan there (0/0): the fit is exact and the note says what it means."""
    flat = memory.fit([1.0, 50.0, 100.0] * 2, [0.0] * 6)
    assert flat is not None and (flat.slope, flat.slope_low, flat.slope_high, flat.r2) == (0.0, 0.0, 0.0, None)
    cells = [_cell("footprint", "p", "sessions", step, _held(0)) for step in (1, 50, 100) * 2]
    cells += [_cell("footprint", "p", "monitored items", step, _held(step * 1024)) for step in (1, 2000, 4000) * 2]
    section = footprint_section(cells)
    table = section.tables[0]
    sessions = table.rows[0][table.column("per session")]
    assert (sessions.value.center, sessions.value.low, sessions.value.high) == (0.0, 0.0, 0.0)
    assert sessions.status is not None  # the interval reaches zero: marked
    said = [note for note in section.notes if "to the byte" in note]
    assert said == [
        "p, sessions: its memory held was its idle memory to the byte at all 6 points (not a page more): what "
        "each session costs is below one page over 100, the resolution of RSS (a page at a time)."
    ]
    heap = [_cell("footprint", "h", "sessions", step, {**_held(0), "basis": "heap"}) for step in (1, 50, 100) * 2]
    assert not [note for note in footprint_section(heap).notes if "to the byte" in note]  # a heap is not paged


def test_the_lack_of_fit_test_tells_a_bend_from_the_scatter_of_the_repetitions():
    steps = [1.0, 50.0, 100.0] * 3
    scatter = [300.0, -200.0, 100.0, -300.0, 200.0, -100.0, 0.0, 0.0, 0.0]
    straight = memory.linearity(steps, [40_000.0 * x + e for x, e in zip(steps, scatter, strict=True)])
    assert straight is not None and straight.p > 0.5 and not straight.bent(0.01, 0.1)
    # a pool that fills: 60 KiB per session up to 50, 20 KiB beyond
    pool = {1.0: 0.0, 50.0: 49 * 61_440.0, 100.0: 49 * 61_440.0 + 50 * 20_480.0}
    bent = memory.linearity(steps, [pool[x] + e for x, e in zip(steps, scatter, strict=True)])
    assert bent is not None and bent.p < 1e-4 and bent.bent(0.01, 0.1)
    assert [(low, high) for low, high, _ in bent.segments] == [(1.0, 50.0), (50.0, 100.0)]
    assert [slope / 1024 for _, _, slope in bent.segments] == pytest.approx([60.0, 20.0], abs=0.1)
    # significant but small (RSS to the page): not called bent
    slight = {1.0: 0.0, 50.0: 49 * 48 * 1024.0, 100.0: 49 * 48 * 1024.0 + 50 * 47 * 1024.0}
    small = memory.linearity(steps, [slight[x] + e for x, e in zip(steps, scatter, strict=True)])
    assert small is not None and small.p < 0.01 and not small.bent(0.01, 0.1)
    exact = memory.linearity(steps, [pool[x] for x in steps])  # repetitions equal to the byte
    assert exact is not None and exact.p == 0.0 and exact.bent(0.01, 0.1)
    flat = memory.linearity(steps, [0.0] * 9)
    assert flat is not None and flat.p == 1.0 and not flat.bent(0.01, 0.1)
    assert memory.linearity([1.0, 50.0] * 3, [1.0, 2.0] * 3) is None  # two steps: a line fits any
    assert memory.linearity([1.0, 50.0, 100.0], [0.0, 5.0, 7.0]) is None  # no repetition: no scatter to judge


def test_the_report_says_where_a_slope_bends_and_what_the_steps_show():
    def held(curve: dict[int, int]) -> list[dict]:
        return [
            _cell("footprint", "s", "sessions", step, _held(curve[step] + wobble))
            for step, wobble in ((1, 0), (50, 4096), (100, -4096), (1, 4096), (50, 0), (100, 0))
        ]

    bent = footprint_section(held({1: 0, 50: 49 * 60 << 10, 100: (49 * 60 + 50 * 20) << 10}))
    said = [note for note in bent.notes if "not a straight line" in note]
    assert len(said) == 1 and said[0].startswith("s, sessions: not a straight line (lack-of-fit F = ")
    assert "KiB per session between the means of adjacent steps 60.0 from 1 to 50, 19.9 from 50 to 100" in said[0]
    straight = footprint_section(held({1: 0, 50: 49 * 40 << 10, 100: 99 * 40 << 10}))
    assert not [note for note in straight.notes if "not a straight line" in note]


def test_no_footprint_cells_no_section():
    assert footprint_section([_cell("read", "s", "", 1, {})]) is None


HEAP_INFO = """7548:
 PSYoungGen      total 272896K, used 171696K [0x00000000d5580000, 0x00000000f6d80000, 0x0000000100000000)
  eden space 262144K, 61% used [0x00000000d5580000,0x00000000df2ae6d8,0x00000000e5580000)
  from space 10752K, 99% used [0x00000000e5580000,0x00000000e5ffda50,0x00000000e6000000)
 ParOldGen       total 175104K, used 10877K [0x0000000080000000, 0x000000008ab00000, 0x00000000d5580000)
  object space 175104K, 6% used [0x0000000080000000,0x0000000080a9f798,0x000000008ab00000)
 Metaspace       used 32823K, committed 33088K, reserved 1114112K
"""


def test_the_jvm_heap_is_its_generations_not_metaspace():
    assert heap.used_heap(HEAP_INFO) == (171696 + 10877) * 1024
    assert heap.used_heap(" garbage-first heap   total 262144K, used 20480K [0x0)\n") == 20480 * 1024
    with pytest.raises(heap.HeapError, match="no heap generation"):
        heap.used_heap(" Metaspace       used 32823K, committed 33088K\n")
    with pytest.raises(heap.HeapError, match="Python"):
        heap.collected_heap(1, "Python")


def test_a_heap_basis_is_said_and_used_for_the_signals():
    cells = [
        _cell(
            "footprint-startup",
            "j",
            "start-up",
            n,
            {**_startup(1.0, 200 << 20), "idle_bytes": n * 512, "basis": "heap"},
        )
        for n in (1000, 10000, 1000, 10000)
    ]
    section = footprint_section(cells)
    assert section is not None
    table = section.tables[0]
    assert table.rows[0][table.column("per 1,000 signals")].value.center == pytest.approx(500.0)
    assert any("j: its figures" in note and "heap" in note for note in section.notes)
    # its first requests came after the collection: said; a server whose figures are RSS has no such note
    assert any(note.startswith("j, first and later requests: each start's requests followed") for note in section.notes)
    rss = footprint_section([_cell("footprint-startup", "r", "start-up", n, _startup(1.0, 200 << 20)) for n in (1, 2)])
    assert rss is not None and not any("first and later requests" in note for note in rss.notes)


def test_a_server_that_sends_one_chunk_cannot_publish_thousands_of_first_notifications():
    gopcua, open62541 = sdks.get("gopcua"), sdks.get("open62541")
    assert gopcua.cannot_publish(2000) is None
    assert "first Publish of 4000 monitored items needs about" in (gopcua.cannot_publish(4000) or "")
    assert open62541.cannot_publish(100_000) is None


def test_beside_a_target_a_server_s_heap_figures_give_way_to_its_rss():
    """A JVM's or Node's heap after a collection is read on this machine only: beside a target's
    RSS, this machine's RSS stands, not the heap its own section gives."""
    steps = ((1, 0), (1000, 4096), (2000, -4096), (1, 4096), (1000, 0), (2000, 0))

    def held(step: int, wobble: int, heap: bool) -> dict:
        figures = _held(step * 3072 + wobble)
        return (
            {**figures, "rss_delta_bytes": step * 3072 + wobble, "delta_bytes": step * 512, "basis": "heap"}
            if heap
            else figures
        )

    def startup(n: int, heap: bool) -> dict:
        figures = _startup(0.1, (40 << 20) + n * 2048)
        return {**figures, "idle_bytes": (10 << 20) + n * 512, "basis": "heap"} if heap else figures

    def run(heap: bool) -> list[dict]:
        cells = [_cell("footprint", "j", "monitored items", step, held(step, wobble, heap)) for step, wobble in steps]
        return cells + [_cell("footprint-startup", "j", "start-up", n, startup(n, heap)) for n in (1000, 10000) * 2]

    here, there = run(heap=True), run(heap=False)
    own = footprint_section(here).tables[0].rows[0]
    columns = footprint_section(here).tables[0]
    assert own[columns.column("per monitored item")].value.center == pytest.approx(0.5)  # the heap's
    assert own[columns.column("per 1,000 signals")].value.center == pytest.approx(500)
    table = footprint_beside(here, there, "here", "vm arm64").tables[0]
    j = table.rows[0]
    for side in ("here", "vm arm64"):
        assert j[table.column(f"per monitored item, {side}")].value.center == pytest.approx(3.0, abs=0.01)
        assert j[table.column(f"per 1,000 signals, {side}")].value.center == pytest.approx(2000)


def test_a_target_s_memory_stands_beside_this_machine_s_server_by_server():
    def run(per_item: int, idle: int, servers: tuple[str, ...]) -> list[dict]:
        cells = [
            _cell("footprint", server, "monitored items", step, _held(step * per_item + wobble))
            for server in servers
            for step, wobble in ((1, 0), (1000, 4096), (2000, -4096), (1, 4096), (1000, 0), (2000, 0))
        ]
        return cells + [
            _cell("footprint-startup", server, "start-up", n, _startup(0.1, idle + n * 100))
            for server in servers
            for n in (1000, 10000, 1000, 10000)
        ]

    here, there = run(2048, 8 << 20, ("s", "t")), run(1024, 4 << 20, ("s",))
    section = footprint_beside(here, there, "here", "vm arm64")
    assert section is not None and section.title == "Footprint: vm arm64 beside this machine"
    table = section.tables[0]
    assert [r[0].value for r in table.rows] == ["s"]  # only what the target measured
    s = table.rows[0]
    assert s[table.column("per monitored item, here")].value.center == pytest.approx(2.0, abs=0.01)
    assert s[table.column("per monitored item, vm arm64")].value.center == pytest.approx(1.0, abs=0.01)
    idle_here, idle_there = s[table.column("idle RSS, here")].value, s[table.column("idle RSS, vm arm64")].value
    assert idle_here.center == pytest.approx(8 + 0.1 / 1024 * 1000, rel=1e-3)
    assert idle_there.center == pytest.approx(4 + 0.1 / 1024 * 1000, rel=1e-3)
    assert not any(column.title.startswith("ready") for column in table.columns)  # a VM's times are emulation's
    assert footprint_beside(here, run(1024, 4 << 20, ("u",)), "here", "vm arm64") is None  # nothing in common

    # in the report: beside this machine's run, and the VM's own section apart, warned of its times
    local = {"server": {"kind": "local"}, "client": {"kind": "local"}}
    on_vm = {
        **local,
        "server": {"kind": "ssh", "name": "vm", "arch": "arm64", "emulated": True, "emulation": "qemu-system"},
    }
    runs = [{"id": k, "suite": "footprint", "provenance": {"targets": t}} for k, t in ((1, local), (2, on_vm))]
    assert [s.title for s in document.beside_sections(runs, {1: here, 2: there})] == [section.title]
    assert document.beside_sections(runs[1:], {2: there}) == []  # no run of this machine to stand beside
    # the VM's runs of the suite (each chosen for its servers: results/runs.py) make one section
    later = {"id": 3, "suite": "footprint", "provenance": {"targets": on_vm}}
    (merged,) = document.beside_sections([*runs, later], {1: here, 2: there, 3: run(4096, 4 << 20, ("t",))})
    by = {r[0].value: r for r in merged.tables[0].rows}
    assert sorted(by) == ["s", "t"]
    column = merged.tables[0].column("per monitored item, vm arm64")
    assert by["t"][column].value.center == pytest.approx(4.0, abs=0.01)
    in_containers = [{**runs[0], "provenance": {"targets": {**local, "server": {"kind": "container"}}}}, runs[1]]
    (beside,) = document.beside_sections(in_containers, {1: here, 2: there})
    assert "idle RSS, here (container)" in [column.title for column in beside.tables[0].columns]
    apart = document.emulated_section(runs[1:], {2: there})
    assert apart is not None and apart.subsections[0].title == "footprint (run 2, vm arm64, emulated)"
    assert "its own arm64 kernel counted their memory" in (apart.warning or "") and "qemu-user" not in (
        apart.warning or ""
    )


def test_a_board_s_native_run_stands_apart_from_this_machine_s_unless_it_is_alone():
    cells = [_cell("footprint", "s", "monitored items", k, _held(k * 2048)) for k in (1, 1000, 2000, 1, 1000, 2000)]
    local = {"server": {"kind": "local"}, "client": {"kind": "local"}}
    board = {"kind": "ssh", "name": "ssh://pi@pi", "arch": "arm64", "emulated": False}
    pi = {**local, "server": {**board, "machine": {}, "clock": {}, "network": {}, "images": {}}}
    machine = {"fingerprint": "f", "cpu_model": "x", "cores": 2, "memory_bytes": 2**30, "kernel": "k", "os": "o"}
    provenance = {"machine": {**machine, "arch": "x86_64"}, "git_commit": "c", "sdk_versions": {}}
    pinning = {"pinning": {"server_cpus": None, "client_cpus": None}}

    def run(run_id: int, placed: dict) -> dict:
        return {
            "id": run_id,
            "suite": "footprint",
            "profile": "quick",
            "status": "finished",
            "provenance": {**provenance, **pinning, "targets": placed},
        }

    both = document.document([run(1, local), run(2, pi)], {1: cells, 2: cells})
    titles = [s.title for s in both.sections]
    assert titles[:3] == ["Footprint and start-up", "Other targets", "Footprint: ssh://pi@pi arm64 beside this machine"]
    (apart,) = [s for s in both.sections if s.title == "Other targets"]
    assert [s.title for s in apart.subsections] == ["footprint (run 2, ssh://pi@pi arm64)"]
    alone = document.document([run(2, pi)], {2: cells})  # a board's store: the report is the board's
    assert [s.title for s in alone.sections][:1] == ["Footprint and start-up"]
    assert "Other targets" not in [s.title for s in alone.sections]


def _stacked(largest_kib: int | None, **more) -> dict:
    figures = _held(4096)
    if largest_kib is None:
        return figures | {"stacks_unmeasured": "goroutine stacks live in Go's heap"}
    read = {"threads": 3, "largest_bytes": largest_kib * 1024, "total_bytes": largest_kib * 2048}
    return figures | {"stacks": {"read": 2, "unread": 0, "shared": 0, "huge_bytes": 0, **read, **more}}


def test_the_deepest_stack_is_the_median_and_range_of_the_held_points_and_said_where_not_read():
    cells = [_cell("footprint", "c", "sessions", step, _stacked(kib)) for step, kib in ((1, 20), (50, 28), (100, 24))]
    cells += [_cell("footprint", "c", "subscriptions", 1, _stacked(36, unread=1))]
    cells += [_cell("footprint", "go", "sessions", step, _stacked(None)) for step in (1, 50)]
    section = footprint_section(cells)
    assert section is not None
    table = section.tables[0]
    by = {r[0].value: r[table.column("deepest stack")].value for r in table.rows}
    assert by["c"].center == 26 and (by["c"].low, by["c"].high) == (20, 36)
    assert by["go"] is None
    assert any(n.startswith("go, deepest stack: not measured at 2 of 2 points: goroutine") for n in section.notes)
    assert any(n.startswith("c, deepest stack: some threads' stacks were not read at 1 points") for n in section.notes)
    # a run made before the stacks were read has no such column
    older = footprint_section([_cell("footprint", "c", "sessions", s, _held(4096 * s)) for s in (1, 50, 100)])
    assert older is not None and "deepest stack" not in [c.title for c in older.tables[0].columns]


def test_a_warm_up_start_is_left_out_of_the_figures_and_said():
    ups = [_cell("footprint-startup", "s", "start-up", n, _startup(0.2, (4 << 20) + n)) for n in (1000, 1000, 10000)]
    warm = [
        _cell("footprint-warmup", "s", "start-up", 1000, _startup(9.5, 4 << 20)),
        _cell("footprint-warmup", "t", "start-up", 1000, status="fail", reason="no ready line within 60 s"),
    ]
    section = footprint_section(ups + warm)
    assert section is not None
    table = section.tables[0]
    ready = table.rows[0][table.column("ready, 1,000 signals")].value
    assert ready.values == pytest.approx((200.0, 200.0))  # not the warm-up's 9,500 ms
    assert [r[0].value for r in table.rows] == ["s"]  # a server with only a warm-up has no row
    assert any(n.startswith("s: its warm-up start at 1,000 signals") and "9,500 ms" in n for n in section.notes)
    assert any(n.startswith("t: its warm-up start at 1,000 signals failed (no ready line") for n in section.notes)
    assert "warm-up start" in section.paragraphs[1]
    # a run made before warm-up starts says nothing of them
    older = footprint_section(ups)
    assert older is not None and "warm-up" not in older.paragraphs[1]
    assert not any("warm-up" in n for n in older.notes)


def test_with_the_servers_elsewhere_each_client_is_measured_there_beside_its_server(monkeypatch):
    vm = SimpleNamespace(kind="ssh", arch="arm64", emulated=True, provenance=lambda: {"name": "vm"})
    placed = []

    def measure_client(session, setup, chosen, profile, client, server, log):
        placed.append((client.id, server.id, targets.for_role("client"), targets.for_role("server")))
        return []

    monkeypatch.setattr(footprint_runner, "measure_client", measure_client)
    run = SimpleNamespace(plan=plan.load("footprint"), profile="quick", session=lambda: None)
    targets.use(targets.Placement(server=vm))  # type: ignore[arg-type]
    try:
        FootprintKeywords(run).client_footprint_should_be_measured("asyncua")  # type: ignore[arg-type]
        assert targets.for_role("client") is None  # the run's placement again
    finally:
        targets.use(None)
    FootprintKeywords(run).client_footprint_should_be_measured("asyncua")  # type: ignore[arg-type]
    assert placed == [("asyncua", "open62541", vm, vm), ("asyncua", "open62541", None, None)]


def test_a_remote_server_s_stacks_are_read_there_and_a_failed_reading_is_said():
    from uabench.footprint.runner import stack_figures
    from uabench.proc import stacks

    read = stacks.Stacks(threads=3, stacks=(40960, 8192), unread=1, shared=0, huge_bytes=0)
    asked: list[str] = []

    class There:
        def stacks(self, role):
            asked.append(role)
            if role == "role-2":
                raise stacks.StackError("the agent read no stacks there (exit 255): connection closed")
            return read

    def running(role):
        return SimpleNamespace(
            measured=SimpleNamespace(process=SimpleNamespace(remote=There(), remote_role=role, pid=1))
        )

    c = sdks.get("open62541")
    assert stack_figures(running("role-1"), c) == {"stacks": read.summary()}
    assert stack_figures(running("role-2"), c) == {
        "stacks_unmeasured": "the agent read no stacks there (exit 255): connection closed"
    }
    assert asked == ["role-1", "role-2"]
    assert "goroutine" in stack_figures(running("role-3"), sdks.get("gopcua"))["stacks_unmeasured"]
    assert asked == ["role-1", "role-2"]  # Go's are not read at all


def test_on_an_emulated_target_the_first_request_phase_leaves_room_for_a_second_request():
    from uabench.footprint.runner import EMULATED_FIRST_REQUEST_S, first_request_phase

    plan = {"workload": "read", "nodes": "Signal_0", "in_flight": 1, "duration_s": 0.5}
    assert first_request_phase(plan) == plan  # this machine's placement: nothing emulated
    targets.use(targets.Placement(server=SimpleNamespace(kind="ssh", emulated=False)))
    try:
        assert first_request_phase(plan) == plan
        targets.use(targets.Placement(server=SimpleNamespace(kind="ssh", emulated=True)))
        assert first_request_phase(plan) == {**plan, "duration_s": EMULATED_FIRST_REQUEST_S}
        assert first_request_phase({**plan, "duration_s": 8.0})["duration_s"] == 8.0  # never shortened
    finally:
        targets.use(None)
    assert first_request_phase(plan) == plan


def test_a_signal_count_whose_every_start_failed_keeps_its_column_and_says_why():
    ups = [
        _cell("footprint-startup", "n", "start-up", n, _startup(0.1 * n / 1000, (40 << 20) + n * 2048))
        for n in (1000, 10000) * 2
    ]
    ups += [
        _cell("footprint-startup", "n", "start-up", 100000, status="fail", reason="connect: BadTimeout")
        for _ in range(2)
    ]
    section = footprint_section(ups)
    table = section.tables[0]
    assert [c.title for c in table.columns if c.title.startswith("ready")] == [
        "ready, 1,000 signals",
        "ready, 10,000 signals",
        "ready, 100,000 signals",
    ]
    assert table.rows[0][table.column("ready, 100,000 signals")].value is None
    assert table.rows[0][table.column("ready, 10,000 signals")].value.center == pytest.approx(1000.0)
    assert any("n, start-up: not measured: connect: BadTimeout" in note for note in section.notes)


def test_a_client_measured_on_a_target_stands_beside_this_machine_s():
    def clients(per_session: int, alone: int, names: tuple[str, ...]) -> list[dict]:
        return [
            _cell(
                "footprint-client",
                "open62541",
                "sessions",
                step,
                client=name,
                client_resources={"rss_mean": alone + (step - 1) * per_session + wobble},
            )
            for name in names
            for step, wobble in ((1, 0), (25, 4096), (50, -4096), (1, 4096), (25, 0), (50, 0))
        ]

    here, there = clients(80 << 10, 16 << 20, ("a", "b")), clients(60 << 10, 12 << 20, ("a",))
    own = footprint_section(there)
    assert own is not None and [r[0].value for r in own.tables[0].rows] == ["a"]
    section = footprint_beside(here, there, "here", "vm arm64")  # no server on either side: the clients still
    assert section is not None and len(section.tables) == 1
    table = section.tables[0]
    assert [r[0].value for r in table.rows] == ["a"]  # only what the target measured
    a = table.rows[0]
    assert a[table.column("per session, here")].value.center == pytest.approx(80, abs=0.5)
    assert a[table.column("per session, vm arm64")].value.center == pytest.approx(60, abs=0.5)
    assert a[table.column("RSS, 1 session, here")].value.center == pytest.approx(16, abs=0.01)
    assert a[table.column("RSS, 1 session, vm arm64")].value.center == pytest.approx(12, abs=0.01)
    assert footprint_beside(here, clients(1, 1 << 20, ("c",)), "here", "vm arm64") is None  # nothing in common
    # a run made before clients ran beside their servers there: its clients ran here, across hosts
    for c in there:
        c["result"] = {"placement": {"server": "vm arm64 (emulated)", "client": "local", "clock_offset_ns": 9}}
    assert footprint_beside(here, there, "here", "vm arm64") is None
    apart = footprint_section(there)
    assert apart is not None and apart.tables[0].rows[0][0].value == "a"
    assert "a: measured on this machine against a server on vm arm64 (emulated): the memory is this machine's" in (
        " ".join(apart.notes)
    )


def test_a_clients_failed_or_unsampled_points_are_named_by_the_client():
    sampled = {"rss_mean": 16 << 20}
    cells = [
        _cell("footprint-client", "open62541", "sessions", 1, client="a", client_resources=sampled),
        _cell("footprint-client", "open62541", "sessions", 50, client="a", status="fail", reason="connect: timed out"),
        _cell("footprint-client", "open62541", "sessions", 1, client="b", client_resources={"rss_mean": None}),
        _cell("footprint-client", "open62541", "sessions", 25, client="b"),
    ]
    section = footprint_section(cells)
    assert section is not None
    assert "a client, sessions: not measured: connect: timed out" in section.notes
    assert "b client, sessions: no RSS sample within the measured phase at 2 point(s): not measured there " in (
        " ".join(section.notes)
    )
    assert not any(note.startswith("open62541") for note in section.notes)  # the server was not what failed


def test_a_client_elsewhere_warms_up_until_its_sampler_runs_and_an_unsampled_point_fails():
    from uabench.engine.cells import Outcome

    setup = footprint_suite.of(plan.load("footprint"))
    asked: list[dict] = []
    rss: list[float | None] = []

    class Session:
        run_id = 1

        def cell(self, spec, warm=True):
            asked.append(spec.workload)
            outcome = Outcome("pass", result={})
            outcome.client_resources = {"rss_mean": rss[len(asked) % len(rss)]}
            return outcome

    client, server = sdks.get("asyncua"), sdks.get("open62541")
    rss[:] = [16e6]
    assert (
        footprint_runner.measure_client(Session(), setup, setup.chosen("quick"), "quick", client, server, print) == []
    )
    assert {w["warmup_s"] for w in asked} == {footprint_runner.HOLD_WARMUP_S}
    board = SimpleNamespace(kind="ssh", arch="arm64", emulated=False, provenance=lambda: {"name": "pi"})
    asked.clear()
    rss[:] = [16e6, None]
    with targets.placed(targets.Placement(board, board)):  # type: ignore[arg-type]
        failures = footprint_runner.measure_client(
            Session(), setup, setup.chosen("quick"), "quick", client, server, print
        )
    assert {w["warmup_s"] for w in asked} == {footprint_runner.REMOTE_CLIENT_WARMUP_S}
    assert failures and all(f.endswith("no RSS sample within its measured phase") for f in failures)
    assert len(failures) == len(asked) // 2
