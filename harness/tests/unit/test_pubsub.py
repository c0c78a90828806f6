"""The PubSub suite's harness: its plan, the network namespaces it runs subscribers in (real
`ip netns`, so root is needed), the adapters' PubSub roles and the report section."""

import pytest
from helpers.pubsub import PLAN, write_plan

from uabench import paths, sdks
from uabench import plan as plan_module
from uabench.plan import PlanError


def test_the_shipped_plan_loads_through_plan_load():
    from uabench import plan

    loaded = plan.load("pubsub")
    assert loaded.pubsub is not None and not loaded.throughput and not loaded.sweeps
    assert loaded.phase("quick", "subscribers").counts == (1, 2, 4, 8)
    assert loaded.phase("smoke", "interop").duration_s > 0


@pytest.mark.parametrize(
    "change,message",
    [
        (
            ("publishing_interval_ms = 100", "publishing_interval_ms = 0"),
            "pubsub: config: key 'publishing_interval_ms'",
        ),
        (("[pubsub]", "[pubsub]\nsignals = 5"), "pubsub.signals is set per cell"),
        (("[pubsub]", '[pubsub]\ngroups = "10.0.0.0/8"'), "multicast range"),
        (("counts = [1, 2]", "counts = [1, 0]"), "profiles.smoke.subscribers.counts[1]"),
        (("signals = [100, 1000]", "signals = [100, 2000000]"), "profiles.smoke.sweep.signals[1]"),
        (("interop = {", "interop_ = {"), "profiles.smoke must hold exactly"),
        (('suite = "pubsub"', 'suite = "pubsub"\nclients = "all"'), "unknown key 'clients'"),
    ],
)
def test_a_bad_plan_names_its_key(tmp_path, change, message):
    from uabench import plan

    with pytest.raises(PlanError, match=message.replace("[", r"\[").replace("]", r"\]")):
        plan.load(write_plan(tmp_path, PLAN.replace(*change)))


def test_tests_cover_sweeps_subscriber_counts_and_every_pair():
    cases = plan_module.test_cases(plan_module.load(paths.SUITES / "plans" / "pubsub.toml"))
    publishers = [s.id for s in sdks.with_role("publisher")]
    subscribers = [s.id for s in sdks.with_role("subscriber")]
    keywords = [c.keyword for c in cases]
    assert keywords.count("PubSub Sweep Should Complete") == len(publishers)
    assert keywords.count("PubSub Interop Should Pass") == len(publishers) * len(subscribers)
    assert keywords.count("PubSub Subscriber Sweep Should Complete") == (1 if publishers else 0)
