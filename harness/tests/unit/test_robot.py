"""The Robot side: the Matrix pre-run modifier, Robot's selection of its tests, the progress
listener, the run estimate, and one merged output of a real `uabench run`."""

import io
import textwrap
from pathlib import Path

import pytest
import robot
from robot.api import ExecutionResult
from robot.api import TestSuiteBuilder as SuiteBuilder

from uabench import cli, estimate, paths, sdks
from uabench import plan as plans
from uabench.robot.modifier import Matrix
from uabench.robot.progress import Progress

READ = paths.SUITES / "read.robot"


WRITE = paths.SUITES / "write.robot"


CHECK = "Every Adapter Should Answer As Its sdk.toml Declares"


def built(*sources: Path, **matrix) -> robot.running.TestSuite:
    suite = SuiteBuilder().build(*map(str, sources))
    suite.visit(Matrix(**matrix))
    return suite


def dryrun(tmp_path: Path, *sources: Path, modifiers=(), listeners=(), **options) -> robot.result.TestSuite:
    """Runs Robot in dry-run mode (no adapter starts) and returns its result."""
    output = tmp_path / "output.xml"
    robot.run(
        *map(str, sources),
        dryrun=True,
        output=str(output),
        log=None,
        report=None,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        prerunmodifier=list(modifiers),
        listener=list(listeners),
        **options,
    )
    return ExecutionResult(str(output)).suite


def names(suite) -> list[str]:
    return [test.name for test in suite.all_tests]


def test_modifier_generates_the_plans_matrix():
    suite = built(READ, profile="smoke", sdks="open62541,asyncua")
    expected = plans.test_cases(plans.load("read"), ["open62541", "asyncua"], "smoke")
    assert expected and names(suite) == [CHECK] + [case.name for case in expected]
    for test, case in zip(list(suite.tests)[1:], expected, strict=True):
        assert set(test.tags) == set(case.tags)
        assert (test.body[0].name, tuple(test.body[0].args)) == (case.keyword, case.args)
    assert all("client:milo" not in test.tags and "server:milo" not in test.tags for test in suite.tests)
    variables = {v.name: v.value[0] for v in suite.resource.variables}
    assert variables["${BENCHMARK}"] == "read" and variables["${PROFILE}"] == "smoke"
    assert variables["${SDKS}"] == "open62541,asyncua" and variables["${PLAN}"].endswith("read.toml")
    assert suite.metadata["Profile"] == "smoke"


def test_profile_shapes_the_matrix():
    # the "1 node/request" interop variant runs only in the full profile
    quick, full = (names(built(READ, profile=profile)) for profile in ("quick", "full"))
    assert not any(name.endswith("reads open62541: 1 node/request") for name in quick)
    assert any(name.endswith("reads open62541: 1 node/request") for name in full)


def test_last_modifier_wins():
    suite = SuiteBuilder().build(str(READ))
    suite.visit(Matrix(sdks="milo"))
    suite.visit(Matrix(sdks="open62541"))
    assert len(names(suite)) == len(set(names(suite)))  # nothing generated twice
    assert not any("milo" in name for name in names(suite))
    assert {v.name for v in suite.resource.variables if v.name == "${SDKS}"} == {"${SDKS}"}
    assert [v.value[0] for v in suite.resource.variables if v.name == "${SDKS}"] == ["open62541"]


def test_two_plans_of_one_suite_and_a_plan_without_its_suite(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text((plans.PLANS / "write.toml").read_text())
    suite = built(WRITE, WRITE, plans=["write", str(mine)], profile="smoke", sdks="open62541")
    first, second = suite.suites
    assert (first.name, second.name) == ("Write", "Write (mine)")
    assert names(first) == names(second) and len(names(first)) > 1
    lost = built(READ, plans=["write"], profile="smoke")
    assert names(lost)[-1] == "Plan Should Load"
    assert "is for suite 'write'" in lost.tests[-1].body[0].args[0]


def test_an_unknown_profile_fails_the_suite_visibly():
    suite = built(READ, profile="nonesuch")
    assert names(suite) == ["Plan Should Load"]
    assert "no profile 'nonesuch'" in suite.tests[0].body[0].args[0]


def test_include_selects_generated_tests(tmp_path):
    result = dryrun(tmp_path, READ, modifiers=[Matrix(profile="smoke")], include=["server:milo"])
    expected = [c.name for c in plans.test_cases(plans.load("read"), None, "smoke") if "server:milo" in c.tags]
    assert expected and names(result) == expected
    assert all(test.status == "PASS" for test in result.all_tests), [t.message for t in result.all_tests]


def test_test_option_selects_generated_tests(tmp_path):
    result = dryrun(tmp_path, READ, WRITE, modifiers=[Matrix(profile="smoke")], test=["asyncua writes open62541*"])
    assert names(result) == ["asyncua writes open62541: 10 nodes/request"]


def test_without_the_modifier_only_the_written_test_exists(tmp_path):
    # what the selection tests above rely on: the matrix comes from the modifier
    assert names(dryrun(tmp_path, READ)) == [CHECK]
    assert names(dryrun(tmp_path, READ, include=["server:milo"], runemptysuite=True)) == []


def test_progress_counts_the_selected_tests(tmp_path):
    stream = io.StringIO()
    dryrun(tmp_path, READ, modifiers=[Matrix(profile="smoke")], listeners=[Progress(stream)], include=["interop"])
    lines = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    interop = [c for c in plans.test_cases(plans.load("read"), None, "smoke") if "interop" in c.tags]
    assert len(lines) == len(interop)
    for k, (line, case) in enumerate(zip(lines, interop, strict=True), 1):
        assert line.startswith(f"[{k}/{len(interop)}] {case.name} … ETA ")
    assert "PASS" in stream.getvalue()


def test_a_variable_that_contradicts_the_matrix_fails_the_suite(tmp_path):
    output = tmp_path / "output.xml"
    robot.run(
        str(WRITE),
        prerunmodifier=[Matrix(profile="smoke", sdks="open62541")],
        variable=["PROFILE:full"],
        test=[CHECK],
        output=str(output),
        log=None,
        report=None,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    (test,) = ExecutionResult(str(output)).suite.all_tests
    assert test.status == "FAIL" and "generated for PROFILE 'smoke', but PROFILE is 'full'" in test.message


def test_other_suites_are_left_alone(tmp_path):
    # ROBOT_OPTIONS applies the modifier to every robot run in the venv
    other = tmp_path / "read.robot"
    other.write_text("*** Test Cases ***\nWritten\n    No Operation\n")
    assert names(built(other, profile="smoke")) == ["Written"]


PLAN = """
suite = "scenarios"
ranking = "load"
server_warmup_s = { p = 4.0 }

[profiles.p]
interop = { warmup_s = 1.0, duration_s = 2.0 }
throughput = { warmup_s = 0.5, duration_s = 1.5, repetitions = 3 }
sweep = { warmup_s = 0.25, duration_s = 0.75, repetitions = 2 }
capacity = { warmup_s = 1.0, duration_s = 1.0 }

[[interop]]
name = "a"
workload = { workload = "read", nodes = "Signal_0..9", nodes_per_request = 1, in_flight = 1 }

[[throughput]]
name = "load"
workload = { workload = "read", nodes = "Signal_0..9", nodes_per_request = 1, in_flight = 4 }

[[sweep]]
name = "signals"
kind = "signals"
values = [10, 20, 30]
workload = { workload = "subscribe", publishing_interval_ms = 100, sampling_interval_ms = 100, queue_size = 1 }
server = { update_interval_ms = 100 }

[capacity]
p99_ms = 20.0
min_completed = 0.99
start_rate = 100
max_rate = 800
refine_steps = 2
overload_factors = [1.5, 2.0]
overload_repetitions = 2
workload = { workload = "read", nodes = "Signal_0..9", nodes_per_request = 1, in_flight = 100 }

[capacity.latency]
loads = [
  { rate = 2000, nodes_per_request = 1 },
  { rate = 4000, nodes_per_request = 10 },
  { rate = 100, nodes_per_request = 1 },
]
capacity_shares = [0.5]
"""


STARTUP = {"c": 2.0, "c2": 1.0, "s": 5.0, "s2": 3.0}.__getitem__


def case(keyword: str, *args: str) -> plans.TestCase:
    return plans.TestCase(keyword, keyword, args, ())


def test_estimate_adds_phases_startups_and_server_starts(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(textwrap.dedent(PLAN))
    plan = plans.load(path)
    overhead = estimate.CELL_OVERHEAD_S
    probe = 1.5 + estimate.HOST_PROBE_OVERHEAD_S  # the host probe after each block: a cell's window
    cases = [
        case("Interop Cell Should Pass", "c", "s", "a"),  # starts server s, not warmed: correctness only
        case("Interop Cell Should Pass", "c2", "s", "a"),  # s is kept running
        case("Throughput Ranking Should Be Measured", "c", "load", "s"),  # warms s up with its load
        case("Sweep Should Complete", "signals", "c", "s"),  # every point starts its own s, not warmed
        case("Capacity Should Be Found", "c", "s2"),  # starts s2 and warms it up with the reference load
        case("Latency At Common Loads Should Be Measured", "c", "s,s2"),  # both warm already
        case("Interop Cell Should Pass", "c", "s", "a"),  # s is still running
    ]
    # a warm-up chunk: the reference client's start, chunk warm-up and duration; the bound of
    # 4 s allows 3 chunks (a steady run), so the typical warm-up is 3 chunks too
    chunk = 2 + 0.2 + 1.0 + overhead
    expected = [
        5 + (2 + 1 + 2 + overhead),
        1 + 1 + 2 + overhead,
        3 * chunk + 3 * (2 + 0.5 + 1.5 + overhead + probe),
        3 * 5 + 3 * 2 * (2 + 0.25 + 0.75 + overhead),
        # 100..800: 4 doublings, 2 refinements, 2 confirmations, the typical re-probes, 2 × 2 overload probes
        3 + 3 * chunk + (4 + 2 + 2 + estimate.CAPACITY_REPROBES + 4) * (2 + 1 + 1 + overhead),
        # 2 servers × (2 loads + 1 share), the default phase: 100/s holds too few requests for a p99 in 0.5 s
        2 * 3 * (2 + 0.2 + 0.5 + overhead),
        2 + 1 + 2 + overhead,
    ]
    found = estimate.estimate(plan, "p", cases, STARTUP)
    assert found.tests == pytest.approx(expected)
    assert found.seconds == pytest.approx(sum(expected))
    assert found.cells == 1 + 1 + (3 + 3) + 6 + (3 + 12 + estimate.CAPACITY_REPROBES) + 6 + 1
    # at most: the ranking's most blocks and the sweep's points, each repetition measured again once
    again = 3 * (2 + 0.5 + 1.5 + overhead + probe) + 3 * 2 * (2 + 0.25 + 0.75 + overhead)
    assert found.upper == pytest.approx(found.seconds + again)


def test_the_headroom_test_costs_nothing_where_it_is_skipped(tmp_path, monkeypatch):
    from uabench.proc import pinning

    path = tmp_path / "p.toml"
    path.write_text(textwrap.dedent(PLAN))
    plan = plans.load(path)
    headroom = [case("Load Generator Headroom Should Be Measured", "c")]
    for client, expected in (({1}, 0), ({2, 3}, 1)):
        monkeypatch.setattr(pinning, "plan", lambda client=client: pinning.Pinning({0}, client, None, ""))
        found = estimate.estimate(plan, "p", headroom, STARTUP)
        assert (found.seconds > 0) == bool(expected), client


def test_estimate_of_a_real_plan_covers_every_test():
    plan = plans.load("read")
    found = estimate.for_plan(plan, "smoke", ["open62541"])
    cases = plans.test_cases(plan, ["open62541"], "smoke")
    assert len(found.tests) == 1 + len(cases)
    # every test takes time, but the headroom test where it is skipped (one load-generator core)
    costs = dict(zip(["check", *(c.keyword for c in cases)], found.tests, strict=True))
    assert all(cost > 0 for keyword, cost in costs.items() if keyword != "Load Generator Headroom Should Be Measured")
    assert estimate.startup_s("milo") > estimate.startup_s("open62541")  # a JVM starts slower


def test_each_adapter_is_asked_once_per_run(monkeypatch):
    """The adapter check of every suite after the first finds the answers of the first
    (engine.adapters), and the estimate counts each adapter's start-up once."""
    from uabench.engine import adapters

    calls: list[str] = []

    def answer(sdk, command=None):
        assert command is None  # on the host: the adapter's own `run capabilities`
        calls.append(sdk.id)
        if sdk.id == "milo":
            raise sdks.AdapterBroken("milo: run capabilities exited 1: broken")
        return {"version": sdk.version, "roles": list(sdk.roles)}

    monkeypatch.setattr(sdks, "capabilities", answer)
    monkeypatch.setattr(adapters, "_answered", {})
    chosen = ["open62541", "milo"]
    first = adapters.problems(chosen, ("server", "client"), lambda line: None)
    second = adapters.problems(chosen, ("server", "client"), lambda line: None)
    assert sorted(calls) == sorted(chosen)  # asked once each, the broken one too
    assert first == second and any("broken" in problem for problem in first)
    asked: set[str] = set()
    one, two = (estimate.for_plan(plans.load(name), "smoke", chosen, asked=asked) for name in ("read", "write"))
    assert one.tests[0] == pytest.approx(estimate.CELL_OVERHEAD_S + sum(map(estimate.startup_s, chosen)))
    assert two.tests[0] == pytest.approx(estimate.CELL_OVERHEAD_S)


def test_clock():
    assert [estimate.clock(s) for s in (0, 59.6, 61, 3599, 3600, 7322)] == [
        "00:00",
        "01:00",
        "01:01",
        "59:59",
        "1:00:00",
        "2:02:02",
    ]


def test_estimate_flag_prints_and_exits(capsys):
    assert cli.main(["run", "read", "write", "--profile", "smoke", "--estimate"]) == 0
    out = capsys.readouterr().out
    assert "estimated duration" in out and out.count("tests)") == 2


def test_include_patterns_choose_the_servers_a_ranking_measures(monkeypatch):
    from uabench.engine import keywords

    class Variables:
        def __init__(self, include):
            self.values = {"${OPTIONS.include}": include, "@{TEST TAGS}": ["throughput", "server:a", "server:b"]}

        def get_variable_value(self, name, default=None):
            return self.values.get(name, default)

    for include, expected in (
        ([], ["a", "b", "c"]),  # no --include: every server of the test
        (["server:b"], ["b"]),
        (["server:a", "server:c"], ["a", "c"]),
        (["throughput"], ["a", "b", "c"]),  # a pattern the test matches as a whole
        (["interop"], []),
    ):
        monkeypatch.setattr(keywords, "BuiltIn", lambda include=include: Variables(include))
        assert keywords.included("a,b,c") == expected


def test_a_stop_signal_robots_own_handler_takes_is_remembered_for_the_cleanup(monkeypatch):
    """Issue 39: a SIGTERM after Robot's handler is installed but before the first suite starts
    (where StopSignals puts the cleanup's in front of it) stopped the run as a failure, exit 1 and
    no word of the signal. Robot's handler now remembers it, so `uabench run` says it and exits 130."""
    import signal

    from robot.running import signalhandler

    from uabench.proc import cleanup
    from uabench.robot import signals  # noqa: F401 (its import extends Robot's handler)

    monitor = signalhandler.STOP_SIGNAL_MONITOR
    monkeypatch.setattr(cleanup, "_received", None)
    monkeypatch.setattr(monitor, "_signal_count", 0)
    monitor(signal.SIGTERM, None)  # Robot's own answer: it counts the signal, stops at the next keyword
    assert cleanup.received() == signal.SIGTERM and monitor._signal_count == 1
