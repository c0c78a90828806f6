"""The one sustain rule of subscription and PubSub sweeps (results/sustain.py) on plain result
records: the cycle time and the missed updates, each decided on the median of the repetitions."""

import math

from uabench_contract import Histogram

from uabench.results import sustain
from uabench.results.sustain import MAX_MISSED_SHARE, SUSTAINED_CYCLE_RATIO


def cycles(ms: float, count: int = 100) -> list[list[int]]:
    histogram = Histogram()
    for _ in range(count):
        histogram.record(int(ms * 1e6))
    return histogram.sparse()


def subscription(cycle_ms: float, gaps: int = 0, received: int = 1000) -> dict:
    return {
        "config": {"publishing_interval_ms": 100, "sampling_interval_ms": 100},
        "cycle_time_ns": cycles(cycle_ms),
        "subscription": {"notifications": received, "tick_gaps": gaps},
    }


def pubsub(cycle_ms: float, lost: int = 0, messages: int = 100) -> dict:
    return {
        "config": {"publishing_interval_ms": 100},
        "cycle_time_ns": cycles(cycle_ms),
        "pubsub": {"messages": messages, "lost": lost},
    }


def test_a_point_holds_on_its_cycle_time_and_its_missed_updates():
    assert sustain.judge([subscription(100)]).held
    assert not sustain.judge([subscription(100 * SUSTAINED_CYCLE_RATIO * 1.05)]).held
    assert sustain.judge([pubsub(100)]).held and not sustain.judge([pubsub(150)]).held


def test_tick_gaps_are_judged_a_point_whose_items_skip_updates_is_not_sustained():
    """The cycle time of an item can look fine while updates are skipped (Milo: 18,020 gaps at
    5,000 signals passed): a rule that ignored the gaps would call this sustained."""
    skipping = subscription(100, gaps=300, received=1000)  # 23 % of the updates missed
    judged = sustain.judge([skipping])
    assert not judged.held and math.isclose(judged.missed_share, 300 / 1300)
    assert "missed updates 23.1%" in judged.text()
    assert sustain.judge([subscription(100, gaps=5, received=1000)]).held  # 0.5 %, within the bound


def test_pubsub_loss_is_judged_by_the_same_bound():
    limit = MAX_MISSED_SHARE
    assert sustain.judge([pubsub(100, lost=0)]).held
    assert not sustain.judge([pubsub(100, lost=round(100 * limit / (1 - limit)) + 2)]).held


def test_a_point_is_decided_on_the_median_of_its_repetitions_not_the_best_one():
    one_lucky = [subscription(100), subscription(180), subscription(170)]
    assert not sustain.judge(one_lucky).held  # max-of-N would have kept it
    one_stalled = [subscription(100), subscription(180), subscription(101)]
    assert sustain.judge(one_stalled).held
    assert sustain.judge(one_stalled).repetitions == 3


def test_a_repetition_without_a_cycle_time_or_counters_counts_as_missed():
    silent = {"config": {"publishing_interval_ms": 100}, "subscription": {"notifications": 0, "tick_gaps": 0}}
    assert not sustain.judge([silent]).held and not sustain.judge([]).held
    assert "none" in sustain.judge([silent]).text()
