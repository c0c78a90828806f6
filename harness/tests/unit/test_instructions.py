"""Simulated instruction counts (issue 20): valgrind's totals read from its own output, the
difference of two runs, how far repeated differences lie apart, and the plan's checks. The
counts of a real server are make test's smoke run (suites/plans/instructions.toml)."""

import pytest
from cryptography import x509

from uabench import pki, plan
from uabench.document.model import Report
from uabench.instructions import counts, runner
from uabench.instructions import suite as instructions_suite
from uabench.results import instruction_counts
from uabench.results.instruction_counts import Count, CountError


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "wrote no"),
        ("events: Ir\nfn=main\n1 5\n", "no summary"),
        ("events: Ir\nsummary: 5 6\n", "no summary"),  # more counts than events
        ("events: Dr\nsummary: 5\n", "no summary"),
    ],
)
def test_an_output_without_its_total_is_no_count(tmp_path, text, message):
    path = tmp_path / "counts.1"
    if text is not None:
        path.write_text(text)
    with pytest.raises(CountError, match=message):
        counts.total_instructions(path)


def test_the_difference_cancels_what_both_runs_share():
    fixed, per = 5_000_000, 9_659
    short, long = Count(1000, 1000, fixed + per * 1000), Count(4000, 4000, fixed + per * 4000)
    found = instruction_counts.difference(short, long)
    assert found.per_request == per and found.per_value == per and found.requests == 3000
    hundred = instruction_counts.difference(Count(10, 1000, fixed + 10 * 50_000), Count(30, 3000, fixed + 30 * 50_000))
    assert hundred.per_request == 50_000 and hundred.per_value == 500


@pytest.mark.parametrize(
    ("short", "long"),
    [
        (Count(100, 100, 10**6), Count(100, 100, 2 * 10**6)),  # no more requests
        (Count(200, 200, 10**6), Count(100, 100, 2 * 10**6)),  # fewer
        (Count(100, 100, 2 * 10**6), Count(200, 200, 10**6)),  # fewer instructions
    ],
)
def test_runs_that_cannot_be_differenced_are_refused(short, long):
    with pytest.raises(CountError):
        instruction_counts.difference(short, long)


def test_the_spread_is_max_minus_min_over_the_mean():
    def one(per: float) -> instruction_counts.Difference:
        return instruction_counts.Difference(per, per, 1000)

    assert instruction_counts.spread([one(9659.0)]) is None
    assert instruction_counts.spread([one(9659.0), one(9659.0)]) == 0
    assert instruction_counts.spread([one(100.0), one(101.0), one(99.0)]) == pytest.approx(0.02)


LOADS = "loads = [{ rate = 100 }, { rate = 300 }]"


def _plan(tmp_path, profile: str, workload: str = 'nodes = "Signal_0..99"', loads: str = LOADS) -> plan.Plan:
    toml = tmp_path / "instructions.toml"
    toml.write_text(
        'suite = "instructions"\n[instructions]\ncounted = ["C"]\ntolerance = 0.001\n'
        '[instructions.not_counted]\nJava = "JIT"\n'
        f'[[instructions.workloads]]\nname = "read"\nworkload = {{ workload = "read", {workload} }}\n{loads}\n'
        f"[profiles.quick.instructions]\n{profile}\n"
    )
    return plan.load(str(toml))


GOOD = "duration_s = 2\npairs = 2\ntiming = { duration_s = 1, repetitions = 1 }"
SESSIONS = 'per = "session"\nloads = [{{ sessions = {} }}, {{ sessions = {} }}]'


def test_a_good_plan_expands_its_nodes_and_its_loads_nodes():
    loaded = plan.load("instructions")
    assert instructions_suite.of(loaded) is not None
    read = instructions_suite.of(loaded).workload("read, 1 node")
    assert read.workload["nodes"][:2] == ["Signal_0", "Signal_1"] and len(read.workload["nodes"]) == 100
    sessions = instructions_suite.of(loaded).workload("session creation")
    assert sessions.per == "session" and [load["sessions"] for load in sessions.loads] == [1, 4]
    notification = instructions_suite.of(loaded).workload("subscription notification")
    assert len(notification.workload["nodes"]) == 200 and notification.loads == (
        {"subscriptions": 1},
        {"subscriptions": 4},
    )


@pytest.mark.parametrize(
    ("profile", "workload", "loads", "message"),
    [
        (GOOD.replace("= 2\n", "= 0.1\n", 1), 'nodes = "Signal_0"', LOADS, "duration_s: 0.1 is less than"),
        (GOOD + '\nworkloads = ["write"]', 'nodes = "Signal_0"', LOADS, r"workloads: no \['write'\]"),
        (
            GOOD,
            'nodes = "Signal_0..2000"',
            LOADS,
            r"workload\.nodes: .Signal_0\.\.2000. names Signal_2000",
        ),
        (GOOD, 'nodes = "Signal_0", in_flight = 0', LOADS, "in_flight"),
        (GOOD.replace("pairs = 2", "pairs = 0"), 'nodes = "Signal_0"', LOADS, "pairs"),
        (GOOD, 'nodes = "Signal_0"', "", r"\['read'\] need two loads"),
        (GOOD, 'nodes = "Signal_0"', "loads = [{ rate = 100 }]", "loads"),
        (GOOD, 'nodes = "Signal_0"', "loads = [{ rate = 100 }, { rate = -1 }]", r"loads\[1\]: .*rate"),
        (GOOD, 'nodes = "Signal_0"', 'loads = [{ rate = 1 }, { nodes = "Signal_0..5000" }]', r"loads\[1\]\.nodes"),
        # sessions (issue 40): only a session workload's loads name them, two different whole numbers
        (GOOD, 'nodes = "Signal_0"', "loads = [{ sessions = 1 }, { sessions = 4 }]", 'for per = "session" only'),
        (GOOD, 'nodes = "Signal_0"', SESSIONS.format(1, 1), "open 1 sessions each: nothing to difference"),
        (GOOD, 'nodes = "Signal_0"', SESSIONS.format(1, 11), r"loads\[1\]\.sessions = 11: a whole number"),
        (GOOD, 'nodes = "Signal_0"', SESSIONS.format(0, 2), r"loads\[0\]\.sessions = 0"),
        (GOOD, 'nodes = "Signal_0"', SESSIONS.format(1.5, 2), r"loads\[0\]\.sessions = 1\.5"),
        (GOOD, 'nodes = "Signal_0"', SESSIONS.format("true", 2), r"loads\[0\]\.sessions = True"),
        (GOOD, 'nodes = "Signal_0"', 'per = "session"\nloads = [{ rate = 1 }, {}]', r"loads\[0\]\.sessions = None"),
    ],
)
def test_a_bad_plan_is_refused_naming_the_key(tmp_path, profile, workload, loads, message):
    with pytest.raises(plan.PlanError, match=message):
        _plan(tmp_path, profile, workload, loads)


def test_servers_the_plan_does_not_count_get_one_test_saying_so():
    loaded = plan.load("instructions")
    cases = plan.test_cases(loaded, None, "quick")
    languages = {case.args[0]: case.args[1] for case in cases}
    assert languages.get("milo") == "" and languages.get("asyncua") == ""
    assert {case.args[1] for case in cases if case.args[0] == "open62541"} == {
        w.name for w in instructions_suite.of(loaded).workloads
    }


def test_compare_calls_more_instructions_slower():
    from uabench.results import compare, stats

    def side(per: float) -> list[compare.Figure]:
        counts = stats.estimate([per * (1 + d) for d in (0.0001, -0.0002, 0.0, 0.0002, -0.0001)])
        return [
            compare.Figure(
                "instructions",
                "instructions per request, read",
                "s",
                "instructions",
                counts,
                False,
                higher_is_better=False,
            )
        ]

    (found,) = compare.compare(side(10_000), side(12_000))
    assert found.verdict == compare.SLOWER
    (found,) = compare.compare(side(12_000), side(10_000))
    assert found.verdict == compare.FASTER


def test_the_counted_server_has_the_same_certificates_every_run():
    """The kept PKI is in the checkout, valid for years, and never made anew (pki/README.md)."""
    kept = pki.kept_pki(runner.KEPT_PKI)
    for identity in (kept.server, kept.client):
        certificate = x509.load_der_x509_certificate(identity.certificate.read_bytes())
        assert certificate.not_valid_after_utc.year >= 2040
    assert kept == pki.kept_pki(runner.KEPT_PKI)


def test_a_kept_pki_that_lacks_a_file_is_refused_not_made_anew(tmp_path):
    pki.make_pki(tmp_path, valid_days=1)
    (tmp_path / "client.pem").unlink()
    with pytest.raises(FileNotFoundError, match="client.pem"):
        pki.kept_pki(tmp_path)
    assert not (tmp_path / "client.pem").exists()


def _counted_cell(server: str, pair: int, load: int, per_request: float, kind: str = "instructions") -> dict:
    requests = (100, 1100)[load]
    result = {"requests": requests, "values": requests, "instructions": int(5e6 + requests * per_request)}
    return {
        "kind": kind,
        "client": "open62541",
        "server": server,
        "variant": "read, 1 node",
        "parameter": str(load),
        "repetition": pair,
        "status": "pass",
        "result": {**result, "per": "request", "language": "C", "valgrind": "valgrind-3.19.0"},
    }


def test_the_section_says_simulated_by_which_valgrind_and_that_no_count_was_measured():
    """Issue 40: the counts are labelled simulated with the tool and its version, and a host whose
    perf counts no instructions is said once, the simulated count standing in."""
    from uabench.instructions.report import instructions_section
    from uabench.report import markdown

    cells = [_counted_cell("open62541", pair, load, 28_620.0 + pair) for pair in range(2) for load in range(2)]
    unserved = {"kind": "instructions-timing", "server": "gopcua", "variant": "read, 1 node", "status": "not_supported"}
    cells.append({**unserved, "reason": "gopcua does not offer it\nsecond line", "result": None})
    section = instructions_section({"provenance": {"plan": {"instructions": {"tolerance": 0.001}}}}, cells)
    assert section is not None and section.title == "Instructions per request (simulated)"
    page = markdown.render(Report("t", [section]))
    assert "Simulated by valgrind-3.19.0 (its callgrind tool" in page
    [table] = section.tables
    [counted] = table.rows
    assert counted[table.column("instructions per operation")].value.center == pytest.approx(28_620.5, abs=0.01)
    assert counted[table.column("measured per operation")].value is None
    assert sum("perf counts no hardware instructions" in note for note in section.notes) == 1
    assert "gopcua, read, 1 node: no count, not supported: gopcua does not offer it" in section.notes


def test_the_load_generators_counts_are_a_table_and_a_deterministic_figure_of_their_own():
    """Issue 40, item 2: the reference client's counts (runner.client_loads) beside the server's."""
    from uabench.instructions.cells import InstructionsCell
    from uabench.instructions.report import instructions_section
    from uabench.results import compare

    assert InstructionsCell.CLIENT == instruction_counts.CLIENT_KIND  # the two layers name one kind
    server = [_counted_cell("open62541", pair, load, 9_406.0 + pair) for pair in range(2) for load in range(2)]
    client = [
        _counted_cell("open62541", pair, load, 8_308.0 + pair, InstructionsCell.CLIENT)
        for pair in range(2)
        for load in range(2)
    ]
    run = {"suite": "instructions", "provenance": {"plan": {"instructions": {"tolerance": 0.001}}}}
    section = instructions_section(run, server + client)
    assert section is not None and len(section.tables) == 2
    [counted] = section.tables[1].rows
    assert counted[section.tables[1].column("instructions per operation")].value.center == pytest.approx(
        8_308.5, abs=0.01
    )
    figures = {f.name: f for f in compare.run_figures(run, server + client)}
    assert set(figures) == {
        "instructions per request, read, 1 node",
        "load generator (open62541) instructions per request, read, 1 node",
    }
    assert all(f.deterministic for f in figures.values())


CACHE = {"I1": [32768, 8, 64], "D1": [32768, 8, 64], "LL": [8388608, 16, 64]}


def test_with_the_cache_simulated_callgrind_gets_the_plans_geometry_and_every_event_is_read(tmp_path):
    """Issue 40: the caches are the plan's, not the host's, and a dump's cache events are kept."""
    plain, simulated = counts.prefix(tmp_path), counts.prefix(tmp_path, CACHE)
    assert "--cache-sim=yes" not in plain
    assert {"--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"} <= set(simulated)
    assert counts.described(CACHE) == "I1 32 KiB 8-way, D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines"
    path = tmp_path / "callgrind.1.1"
    path.write_text("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 1000 300 200 10 20 5 2 3 1\n")
    found = Count.of(10, 10, counts.totals(path))
    assert found.instructions == 1000 and found.cache == {
        "Dr": 300,
        "Dw": 200,
        "I1mr": 10,
        "D1mr": 20,
        "D1mw": 5,
        "ILmr": 2,
        "DLmr": 3,
        "DLmw": 1,
    }
    assert Count.of(10, 10, {"Ir": 1000}).cache is None and "cache" not in Count.of(10, 10, {"Ir": 1}).summary
    # callgrind leaves out trailing zeros (async-opcua's dumps: "totals: 5926421 … 26609 21731 0 1")
    path.write_text("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\ntotals: 1000 300 200 10 20 5 0 1\n")
    assert counts.totals(path)["DLmw"] == 0 and counts.totals(path)["DLmr"] == 1


def test_the_estimated_cycles_weigh_each_access_by_where_it_hit():
    """L1 hits × 1 + LL hits × 5 + RAM × 35 (iai's weights), per operation of the difference."""
    events = dict.fromkeys(instruction_counts.CACHE_EVENTS, 0)
    short = Count(100, 100, 1_000_000, events)
    # per extra request: 1,000 instructions, 400 data reads, 100 writes; 30 L1 misses (10 + 15 + 5),
    # of which 6 missed LL too (2 + 3 + 1)
    per = {"Dr": 400, "Dw": 100, "I1mr": 10, "D1mr": 15, "D1mw": 5, "ILmr": 2, "DLmr": 3, "DLmw": 1}
    long = Count(300, 300, 1_000_000 + 200 * 1000, {e: 200 * per[e] for e in per})
    found = instruction_counts.difference(short, long)
    assert found.l1_misses == 30 and found.ll_misses == 6
    assert found.estimated_cycles == (1500 - 30) * 1 + (30 - 6) * 5 + 6 * 35
    assert (
        instruction_counts.difference(Count(100, 100, 10**6), long).estimated_cycles is None
    )  # one side not simulated


@pytest.mark.parametrize(
    ("cache", "profile", "message"),
    [
        ("", "cache_simulation = true", r"cache_simulation: the plan has no \[instructions.cache\]"),
        (
            "[instructions.cache]\nI1 = [32768, 8, 64]\nD1 = [32768, 8, 64]\nLL = [8388608, 16, 48]\n",
            "",
            r"cache\.LL = \[8388608, 16, 48\]: the line size",
        ),
        (
            "[instructions.cache]\nI1 = [49152, 8, 64]\nD1 = [32768, 8, 64]\nLL = [8388608, 16, 64]\n",
            "",
            r"cache\.I1 = .*power-of-two number of sets",
        ),
        ("[instructions.cache]\nI1 = [32768, 8, 64]\nD1 = [32768, 8, 64]\n", "", "LL"),
        ("[instructions.cache]\nI1 = [32768, 8]\nD1 = [32768, 8, 64]\nLL = [8388608, 16, 64]\n", "", "I1"),
    ],
)
def test_a_bad_cache_is_refused_naming_the_key(tmp_path, cache, profile, message):
    toml = tmp_path / "instructions.toml"
    toml.write_text(
        f'suite = "instructions"\n[instructions]\ncounted = ["C"]\ntolerance = 0.001\n{cache}'
        '[instructions.not_counted]\nJava = "JIT"\n'
        f'[[instructions.workloads]]\nname = "read"\nworkload = {{ workload = "read", nodes = "Signal_0" }}\n{LOADS}\n'
        f"[profiles.quick.instructions]\n{GOOD}\n{profile}\n"
    )
    with pytest.raises(plan.PlanError, match=message):
        plan.load(str(toml))


def test_the_shipped_plan_simulates_its_caches_in_every_profile():
    setup = instructions_suite.of(plan.load("instructions"))
    assert setup is not None and setup.cache is not None
    assert all(profile.cache == setup.cache for profile in setup.profiles.values())


def test_the_simulated_cache_is_a_table_and_its_cycles_a_deterministic_figure():
    """Issue 40: misses and estimated cycles per operation, labelled simulated with the geometry."""
    from uabench.instructions.report import instructions_section
    from uabench.report import markdown
    from uabench.results import compare

    cells = [_counted_cell("open62541", pair, load, 9_406.0 + pair) for pair in range(2) for load in range(2)]
    for c in cells:  # per request 300 data reads, 20 L1 misses, 2 of them in LL too
        n = c["result"]["requests"]
        c["result"]["cache"] = {
            "Dr": 300 * n,
            "Dw": 0,
            "I1mr": 10 * n,
            "D1mr": 10 * n,
            "D1mw": 0,
            "ILmr": n,
            "DLmr": n,
            "DLmw": 0,
        }
    about = {"instructions": {"tolerance": 0.001, "cache": CACHE}}
    run = {"suite": "instructions", "provenance": {"plan": about}}
    section = instructions_section(run, cells)
    assert section is not None and len(section.tables) == 2
    page = markdown.render(Report("t", [section]))
    assert "cache simulation (I1 32 KiB 8-way, D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines)" in page
    table = section.tables[1]
    [simulated] = table.rows
    assert simulated[table.column("L1 misses per operation")].value == pytest.approx(20)
    assert simulated[table.column("LL misses per operation")].value == pytest.approx(2)
    # pair 0: 9,406 + 300 accesses, 20 L1 misses of which 2 went to RAM
    first = (9_706 - 20) + 18 * 5 + 2 * 35
    assert simulated[table.column("estimated cycles per operation")].value.low == pytest.approx(first)
    figures = {f.name: f for f in compare.run_figures(run, cells)}
    assert figures["estimated cycles per request, read, 1 node"].deterministic
    assert figures["estimated cycles per request, read, 1 node"].unit == "cycles"
    plain = instructions_section({"provenance": {"plan": {"instructions": {}}}}, [_counted_cell("s", 0, 0, 1.0)])
    assert plain is not None and "without cache simulation" in plain.paragraphs[0]
