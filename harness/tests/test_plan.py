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
