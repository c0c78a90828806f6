import pytest

from uabench import plan
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
        assert cases and all(tag.split(":")[1] == "open62541" for case in cases for tag in case.tags if ":" in tag)
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
        c for c in plan.test_cases(read, chosen, "quick") if c.keyword == "Throughput Ranking Should Be Measured"
    ]
    client, variant, servers = ranking.args
    assert variant == read.ranking and servers.split(",") == [s for s in plan._chosen("server", None, chosen)]
    assert {f"server:{s}" for s in chosen} <= set(ranking.tags) and f"client:{client}" in ranking.tags


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
