import pytest

from uabench import cli, plan, sdks
from uabench.plan import PlanError


def test_shipped_plans_load():
    for name in ("read", "write"):
        loaded = plan.load(name)
        assert loaded.suite == name and loaded.ranking in {v.name for v in loaded.throughput}
        for profile in ("smoke", "quick", "full"):
            assert loaded.phase(profile, "throughput").repetitions >= 2


def test_node_ranges_expand():
    assert plan.expand_nodes(["Signal_0..2", "Tick"], "x") == ["Signal_0", "Signal_1", "Signal_2", "Tick"]
    with pytest.raises(PlanError, match="empty range"):
        plan.expand_nodes("Signal_5..1", "x")


def _write(tmp_path, text: str):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    return path


BASE = """
suite = "read"
[profiles.quick]
interop = { warmup_s = 0.1, duration_s = 0.3 }
[[interop]]
name = "one"
workload = { workload = "read", nodes = "Signal_0..9" }
"""


def test_a_user_plan_loads(tmp_path):
    loaded = plan.load(_write(tmp_path, BASE))
    assert loaded.interop[0].workload["nodes"][-1] == "Signal_9"


@pytest.mark.parametrize(
    "text,message",
    [
        ("colour = 1\n" + BASE, "unknown key 'colour'"),
        (BASE.replace('"read"', '"reed"'), "key 'suite'"),
        (BASE.replace("nodes = ", "in_flite = 2, nodes = "), r"interop\[0\].workload: config: unknown key 'in_flite'"),
        (BASE.replace("duration_s = 0.3", "duration_s = -1"), "profiles.quick.interop.duration_s"),
        ('ranking = "nope"\n' + BASE, "key 'ranking'"),
        (BASE.replace("[[interop]]", "[[interop]\n"), "line"),
    ],
)
def test_invalid_plans_name_the_key_or_line(tmp_path, text, message):
    with pytest.raises(PlanError, match=message):
        plan.load(_write(tmp_path, text))


def test_unknown_profile_is_named(tmp_path):
    with pytest.raises(PlanError, match="no profile 'full'"):
        plan.load(_write(tmp_path, BASE)).phase("full", "interop")


def test_both_variants_are_one_plan_type_and_give_their_test_cases():
    client_server, pubsub = plan.load("read"), plan.load("pubsub")
    assert client_server.pubsub is None and pubsub.pubsub is not None
    assert not pubsub.throughput and not pubsub.sweeps and pubsub.capacity is None
    assert pubsub.server_warmup_s("quick") == 0  # no server to warm up
    assert set(pubsub.phases_run("quick")) == {"sweep", "subscribers", "interop"}
    assert set(client_server.phases_run("quick")) == {"interop", "throughput"}  # no sweep or capacity in read
    for loaded in (client_server, pubsub):
        cases = plan.test_cases(loaded, only=["open62541"], profile="smoke")
        # open62541 at every version it declares (the read plan's smoke ranking measures them: versions)
        named = {tag.split(":")[1].partition("@")[0] for case in cases for tag in case.tags if ":" in tag}
        assert cases and named == {"open62541"}
        assert len(plan.test_cases(loaded)) >= len(cases)


def test_a_profile_leaves_out_what_it_does_not_run():
    subscription = plan.load("subscription")
    names = {case.name for case in plan.test_cases(subscription, profile="quick")}
    assert not any("publishing interval" in name for name in names)  # a sweep with no quick points
    assert any("publishing interval" in case.name for case in plan.test_cases(subscription, profile="smoke"))


def test_one_ranking_test_measures_every_selected_server_and_carries_their_tags():
    read = plan.load("read")
    chosen = ["open62541", "asyncua"]
    (ranking,) = [
        c
        for c in plan.test_cases(read, chosen, "full")
        if c.keyword == "Throughput Ranking Should Be Measured" and c.args[1] == read.ranking
    ]
    client, variant, servers = ranking.args
    # each selected server at every version it declares (read's versions profiles include full)
    every = [sdk.id for s in plan.sdks_chosen("server", None, chosen) for sdk in sdks.versions_of(s)]
    assert variant == read.ranking and servers.split(",") == every
    assert {f"server:{s}" for s in every} <= set(ranking.tags) and f"client:{client}" in ranking.tags


def test_security_sweeps_are_one_interleaved_test_over_every_server():
    encryption = plan.load("encryption")
    cases = plan.test_cases(encryption, ["open62541", "asyncua"], "quick")
    overhead = [c for c in cases if c.keyword == "Security Overhead Should Be Measured"]
    assert [c.args[0] for c in overhead] == ["throughput, 10-element array"]  # quick: the headline ratio only
    assert not any(c.keyword == "Sweep Should Complete" for c in cases)
    assert len([c for c in plan.test_cases(encryption, None, "full") if "Security Overhead" in c.keyword]) == 4


def test_figures_that_rank_get_at_least_five_repetitions():
    for name, kind in (("read", "throughput"), ("write", "throughput"), ("encryption", "sweep")):
        for profile in ("quick", "full"):
            phase = plan.load(name).phase(profile, kind)
            assert phase.repetitions >= 5 and phase.most_repetitions >= phase.repetitions


def test_max_repetitions_is_an_integer(tmp_path):
    text = BASE.replace(
        "interop = { warmup_s = 0.1, duration_s = 0.3 }",
        "interop = { warmup_s = 0.1, duration_s = 0.3, max_repetitions = 2.5 }",
    )
    with pytest.raises(PlanError, match="max_repetitions"):
        plan.load(_write(tmp_path, text))


KNOWN = ", ".join(sorted(sdk.id for sdk in sdks.all_sdks()))


SWEEP = """
[[sweep]]
name = "s"
kind = "{kind}"
values = {values}
workload = {{ workload = "subscribe" }}
"""


PUBSUB = (plan.PLANS / "pubsub.toml").read_text()


def _sweep(kind: str, values: str) -> str:
    return BASE + SWEEP.format(kind=kind, values=values)


def _sdks_with(role: str) -> str:
    return ", ".join(sdk.id for sdk in sdks.with_role(role))


_CAPACITY = (
    "[capacity]\np99_ms = 20.0\nmin_completed = 0.99\nstart_rate = 100\nmax_rate = 800\nrefine_steps = 2\n"
    "overload_factors = {factors}\noverload_repetitions = 1\n"
    'workload = {{ workload = "read", nodes = "Signal_0..9" }}\n{latency}'
)


BAD_PLANS = {
    "sessions = 0 in a sweep": (
        _sweep("sessions", "[0, 5]"),
        "sweep[0].values[0] = 0: config: key 'sessions': 0 is less than the minimum of 1",
    ),
    "negative sessions in a sweep": (
        _sweep("sessions", "{ quick = [1, -2] }"),
        "sweep[0].values.quick[1] = -2: config: key 'sessions': -2 is less than the minimum of 1",
    ),
    "pubsub = 5": ("pubsub = 5\n" + BASE, "key 'pubsub' must be a table ([pubsub]) of PubSub config keys, got 5"),
    "pubsub = 5 in the PubSub plan": (
        PUBSUB.replace("[pubsub]", "pubsub = 5\n[ignored]"),
        "key 'pubsub' must be a table ([pubsub]) of PubSub config keys, got 5",
    ),
    "a node range of a billion": (
        BASE.replace("Signal_0..9", "Signal_0..999999999"),
        "interop[0].workload.nodes: 'Signal_0..999999999' names Signal_999999999, but the server holds "
        "Signal_0 … Signal_999 (server config 'signals' = 1000; the contract allows at most 100000)",
    ),
    "a node one past the server's signals": (
        BASE.replace('"Signal_0..9"', '["Tick", "Signal_1000"]'),
        "interop[0].workload.nodes[1]: 'Signal_1000' names Signal_1000, but the server holds "
        "Signal_0 … Signal_999 (server config 'signals' = 1000; the contract allows at most 100000)",
    ),
    "a write range past the server's writes": (
        BASE.replace('"read", nodes = "Signal_0..9"', '"write", nodes = "Write_0..100"'),
        "interop[0].workload.nodes: 'Write_0..100' names Write_100, but the server holds "
        "Write_0 … Write_99 (server config 'writes' = 100; the contract allows at most 100000)",
    ),
    "a range of no indexed nodes": (
        BASE.replace("Signal_0..9", "Array_0..9"),
        "interop[0].workload.nodes: 'Array_0..9' is no range of the address space (ranges: Signal_i..j, Write_i..j)",
    ),
    "signals 200000 in a sweep": (
        _sweep("signals", "[100, 200000]"),
        "sweep[0].values[1] = 200000: config: key 'signals': 200000 is greater than the maximum of 100000",
    ),
    "a fractional signal count": (
        _sweep("signals", "[2.5]"),
        "sweep[0].values[0] = 2.5: config: key 'signals': 2.5 is not of type 'integer'",
    ),
    "an interval the client refuses": (
        _sweep("interval", "[0]"),
        "sweep[0].values[0] = 0: client: config: key 'publishing_interval_ms': 0 is less than the minimum of 1",
    ),
    "a sweep's server beyond the contract": (
        _sweep("nodes_per_request", "[1]").replace('"subscribe" }', '"read", nodes = "Signal_0..9" }')
        + "server = { signals = 200000 }\n",
        "sweep[0].server: config: key 'signals': 200000 is greater than the maximum of 100000",
    ),
    "a misspelt server SDK": (
        'servers = ["open62451"]\n' + BASE,
        f"servers[0]: unknown SDK 'open62451' (known: {KNOWN})",
    ),
    "a client SDK that is no client": (
        'clients = ["open62541", "nodeopcua"]\n' + BASE,
        f"clients[1]: unknown SDK 'nodeopcua' (known: {KNOWN})",
    ),
    "a publisher without the publisher role": (
        PUBSUB.replace('publishers = "all"', 'publishers = ["milo"]'),
        f"publishers[0]: SDK 'milo' has no publisher role (with it: {_sdks_with('publisher')})",
    ),
    "a misspelt reference subscriber": (
        PUBSUB.replace('reference_subscriber = "open62541"', 'reference_subscriber = "open6541"'),
        f"reference_subscriber: unknown SDK 'open6541' (known: {KNOWN})",
    ),
    "no servers at all": (
        "servers = []\n" + BASE,
        "key 'servers': must be \"all\" or a non-empty list of SDK ids, got []",
    ),
    'headroom = "no"': ('headroom = "no"\n' + BASE, "key 'headroom' must be true or false, got 'no'"),
    "negative_security = 1": ("negative_security = 1\n" + BASE, "key 'negative_security' must be true or false, got 1"),
    "a description that is no string": ("description = 5\n" + BASE, "key 'description' must be a string, got 5"),
    "empty sweep values": (
        _sweep("signals", "{ quick = [] }"),
        "sweep[0].values: a non-empty list, or a table of non-empty lists per profile",
    ),
    "a swept node that is no name": (
        _sweep("nodes", '["Real", 5]').replace('"subscribe" }', '"read" }'),
        "sweep[0].values[1] = 5: must be a node name, a range like 'Signal_0..99', or a list of them, got 5",
    ),
    "a swept node range past the sweep's server": (
        _sweep("nodes", '["Signal_0..1999"]').replace('"subscribe" }', '"read" }') + "server = { signals = 1500 }\n",
        "sweep[0].values[0] = 'Signal_0..1999': 'Signal_0..1999' names Signal_1999, but the server holds "
        "Signal_0 … Signal_1499 (server config 'signals' = 1500; the contract allows at most 100000)",
    ),
    "a stop bound that is a boolean": (
        _sweep("signals", "[10]") + 'stop = { metric = "p99_ms", above = true }\n',
        'sweep[0].stop: must be { metric = "sustained" } or { metric = "p99_ms", above = positive number }',
    ),
    "the old cycle-time stop (the sustain rule replaced it)": (
        _sweep("signals", "[10]") + 'stop = { metric = "cycle_time_ratio", above = 1.1 }\n',
        'sweep[0].stop: must be { metric = "sustained" } or { metric = "p99_ms", above = positive number }',
    ),
    "a bound beside the sustain rule": (
        _sweep("signals", "[10]") + 'stop = { metric = "sustained", above = 1.2 }\n',
        'sweep[0].stop: { metric = "sustained" } takes no other key (its bounds: results/sustain.py)',
    ),
    "the sustain rule on a read sweep": (
        _sweep("nodes_per_request", "[10]").replace('"subscribe" }', '"read" }') + 'stop = { metric = "sustained" }\n',
        'sweep[0].stop: metric "sustained" judges subscriptions; this sweep\'s workload is not subscribe',
    ),
    "a bisection resolution of zero": (
        BASE.replace("[[interop]]", "sweep = { warmup_s = 0.1, duration_s = 0.3, resolution = 0 }\n[[interop]]", 1),
        "profiles.quick.sweep.resolution: must be a number in [0.001, 1], got 0",
    ),
    "fractional bisection steps": (
        BASE.replace("[[interop]]", "sweep = { warmup_s = 0.1, duration_s = 0.3, bisect_steps = 1.5 }\n[[interop]]", 1),
        "profiles.quick.sweep.bisect_steps: must be an integer in [0, 20], got 1.5",
    ),
    "bisection steps in a phase that does not sweep": (
        BASE.replace("duration_s = 0.3 }", "duration_s = 0.3, bisect_steps = 2 }"),
        "profiles.quick.interop.bisect_steps: unknown key (known: duration_s, max_repetitions, repetitions, warmup_s)",
    ),
    "a fractional refine_steps": (
        BASE
        + "[capacity]\np99_ms = 20.0\nmin_completed = 0.99\nstart_rate = 100\nmax_rate = 800\n"
        + "refine_steps = 2.5\noverload_factors = [1.5]\noverload_repetitions = 1\n"
        + 'workload = { workload = "read", nodes = "Signal_0..9" }\n',
        "capacity.refine_steps: must be an integer in [0, 20], got 2.5",
    ),
    "an overload factor of 1": (
        BASE + _CAPACITY.format(factors="[1.5, 1]", latency=""),
        "capacity.overload_factors[1]: must be a number in [1.05, 10], got 1",
    ),
    "no overload factors": (
        BASE + _CAPACITY.format(factors="[]", latency=""),
        "capacity.overload_factors: must be a non-empty list of numbers in [1.05, 10], got []",
    ),
    "a latency load without its nodes per request": (
        BASE + _CAPACITY.format(factors="[1.5]", latency="[capacity.latency]\nloads = [{ rate = 1000 }]\n"),
        "capacity.latency.loads[0]: must be a table with exactly rate and nodes_per_request, got {'rate': 1000}",
    ),
    "a capacity share above 1": (
        BASE
        + _CAPACITY.format(
            factors="[1.5]",
            latency="[capacity.latency]\nloads = [{ rate = 10, nodes_per_request = 1 }]\ncapacity_shares = [1.5]\n",
        ),
        "capacity.latency.capacity_shares[0]: must be a number in [0.01, 1], got 1.5",
    ),
}


def _run(args: list[str], capsys, store: str = "") -> tuple[int, str]:
    status = cli.main([*(["--store", store] if store else []), "run", *args])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("text,message", BAD_PLANS.values(), ids=BAD_PLANS.keys())
def test_a_bad_plan_is_refused_naming_the_file_and_the_key(tmp_path, capsys, text, message):
    path = _write(tmp_path, text)
    assert _run([str(path), "--profile", "quick", "--estimate"], capsys) == (2, f"uabench: error: {path}: {message}\n")


def test_a_bad_plan_file_is_refused_naming_it(tmp_path, capsys):
    missing, latin1 = tmp_path / "none.toml", tmp_path / "latin1.toml"
    latin1.write_bytes(b'suite = "read"\n# caf\xe9\n')
    assert _run([str(tmp_path), "--estimate"], capsys) == (
        2,
        f"uabench: error: {tmp_path}: is a directory, not a plan file (plans are TOML files, e.g. "
        f"{plan.PLANS / 'read.toml'})\n",
    )
    assert _run([str(missing), "--estimate"], capsys) == (2, f"uabench: error: {missing}: no such plan file\n")
    assert _run([str(latin1), "--estimate"], capsys) == (
        2,
        f"uabench: error: {latin1}: line 2, byte offset 20: not UTF-8 (byte 0xe9); TOML plans are UTF-8 text\n",
    )


def test_a_plan_that_selects_nothing_is_refused_before_the_store_is_touched(tmp_path, capsys):
    path, store = _write(tmp_path, 'servers = ["milo"]\n' + BASE), tmp_path / "store.sqlite"
    status, err = _run([str(path), "--profile", "quick", "--sdk", "open62541"], capsys, str(store))
    assert (status, err) == (
        2,
        f"uabench: error: {path}: selects no test in profile 'quick' with --sdk open62541 (servers: milo; "
        f"clients: {_sdks_with('client')}; a sweep or variant may also leave this profile out)\n",
    )
    assert not store.exists()


def test_a_range_is_bounded_before_it_is_expanded():
    with pytest.raises(PlanError, match="names Signal_99999999999999"):
        plan.expand_nodes("Signal_0..99999999999999", "x")
    assert plan.expand_nodes("Signal_0..1499", "x", {"signals": 1500})[-1] == "Signal_1499"


@pytest.mark.parametrize("profile", ["smoke", "quick", "full"])
def test_every_shipped_plan_loads_and_selects_tests(profile):
    for path in sorted(plan.PLANS.glob("*.toml")):
        assert plan.require_cells(plan.load(path.stem), None, profile), path


def test_an_sdk_selection_of_nothing_is_refused(capsys):
    assert _run(["read", "--sdk", ",", "--estimate"], capsys) == (2, "uabench: error: --sdk ',' names no SDK\n")


def test_a_node_outside_the_standard_address_space_is_refused_naming_it():
    assert plan.expand_nodes(["Tick", "Real", "Array_10000", "Write_3"], "x") == [
        "Tick",
        "Real",
        "Array_10000",
        "Write_3",
    ]
    with pytest.raises(PlanError, match=r"x\[1\]: 'NoSuchNode' is no node of the standard address space \(Tick, "):
        plan.expand_nodes(["Tick", "NoSuchNode"], "x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # the read workloads of a write plan would be stored and ranked as write figures
        (
            BASE.replace('suite = "read"', 'suite = "write"'),
            "interop 'one': workload 'read' in a plan of suite 'write'",
        ),
        (
            'ranking = "w"\n'
            + BASE
            + '[[throughput]]\nname = "w"\nworkload = { workload = "write", nodes = "Write_0..9" }\n',
            "throughput 'w': workload 'write' in a plan of suite 'read'",
        ),
        (
            BASE.replace('suite = "read"', 'suite = "subscription"'),
            "interop 'one': workload 'read' in a plan of suite 'subscription', which measures only 'subscribe'",
        ),
    ],
)
def test_a_plan_measures_only_the_service_its_suite_is_named_for(tmp_path, text, message):
    with pytest.raises(PlanError, match=message):
        plan.load(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            BASE.replace("duration_s = 0.3 }", "duration_s = 0.3, repetitions = 5, max_repetitions = 3 }"),
            "profiles.quick.interop.max_repetitions: 3 is below repetitions \\(5\\)",
        ),
        (BASE.replace('name = "one"', 'name = "   "'), r"interop\[0\].name: must be printable text on one line"),
        (BASE.replace('name = "one"', 'name = "one\\ntwo"'), r"interop\[0\].name: must be printable text on one line"),
        ("x = " + "[" * 600 + "]" * 600 + "\n" + BASE, "nested too deep to be a plan"),
    ],
)
def test_limits_are_ordered_and_names_printable(tmp_path, text, message):
    with pytest.raises(PlanError, match=message):
        plan.load(_write(tmp_path, text))


def test_a_plan_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeff".encode() + BASE.encode())
    assert plan.load(path).suite == "read"
