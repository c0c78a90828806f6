"""The scheduling rules as plain functions: block order from a seed, the adaptive stop rule,
the disturbed-repeat rule, the warm-up to steady state and the interleaved runner."""

import itertools

import pytest

from uabench.engine import schedule, warmup
from uabench.engine.cells import Outcome
from uabench.engine.interleave import interleave
from uabench.engine.schedule import Repetitions, block_order, retry_disturbed

ITEMS = ["open62541", "asyncua", "milo", "node-opcua", "python-opcua"]


# --- block order ---------------------------------------------------------------------------


def test_a_block_order_is_a_permutation_fixed_by_seed_and_block():
    first = block_order(ITEMS, seed=7, block=0)
    assert sorted(first) == sorted(ITEMS)
    assert block_order(ITEMS, seed=7, block=0) == first  # replayable
    orders = {tuple(block_order(ITEMS, seed=7, block=b)) for b in range(20)}
    assert len(orders) > 5  # shuffled anew per block, not one fixed order
    assert [block_order(ITEMS, seed=s, block=0) for s in range(5)] != [first] * 5  # the seed matters


def test_every_item_leads_some_block():
    leaders = {block_order(ITEMS, seed=1, block=b)[0] for b in range(60)}
    assert leaders == set(ITEMS)  # no server is always measured first (after the others' drift)


# --- the adaptive stop rule ------------------------------------------------------------------

NARROW = [100.0, 100.5, 99.5, 100.2, 99.8]  # half-width well under 3 %
WIDE = [100.0, 140.0, 70.0, 120.0, 85.0]


def test_never_fewer_blocks_than_the_minimum():
    rule = Repetitions(minimum=5, maximum=8)
    assert not rule.enough({"a": NARROW[:4]}, blocks=4)
    assert rule.enough({"a": NARROW}, blocks=5)


def test_a_wide_figure_asks_for_more_blocks_up_to_the_maximum():
    rule = Repetitions(minimum=5, maximum=8)
    assert not rule.enough({"a": NARROW, "b": WIDE}, blocks=5)
    assert rule.enough({"a": NARROW, "b": WIDE + WIDE[:3]}, blocks=8)
    assert rule.wide({"a": NARROW, "b": WIDE}) == ["b"]


def test_the_target_is_relative_to_the_estimate():
    values = [1000.0, 1040.0, 960.0, 1020.0, 980.0]  # about ±3 % around 1000
    assert Repetitions(5, 8, target=0.10).narrow(values)
    assert not Repetitions(5, 8, target=0.005).narrow(values)
    assert not Repetitions(1, 8).narrow([1000.0])  # one value has no interval


def test_repetitions_must_be_ordered():
    with pytest.raises(ValueError):
        Repetitions(minimum=6, maximum=5)


# --- disturbed repetitions -------------------------------------------------------------------


def test_a_disturbed_repetition_is_measured_again_up_to_the_retries():
    assert retry_disturbed("steal 12 %", attempt=0, retries=2)
    assert retry_disturbed("steal 12 %", attempt=1, retries=2)
    assert not retry_disturbed("steal 12 %", attempt=2, retries=2)  # the last one is kept
    assert not retry_disturbed(None, attempt=0, retries=2)


# --- warm-up to steady state -------------------------------------------------------------------


class Clock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        return self.now

    def chunk(self, series):
        values = iter(series)

        def run(_index: int):
            self.now += self.step
            return next(values)

        return run


def test_a_rising_series_is_steady_once_three_chunks_agree():
    clock = Clock(step=1.0)
    found = warmup.warm_up(clock.chunk([50, 80, 95, 100, 101, 100, 100]), bound_s=20, clock=clock)
    assert found.steady and found.start == 3 and found.throughputs == [50, 80, 95, 100, 101, 100]
    assert found.seconds == 3.0  # the time before the steady run began


def test_a_series_that_never_settles_stops_at_the_bound():
    clock = Clock(step=1.0)
    found = warmup.warm_up(clock.chunk(itertools.count(100, 10)), bound_s=5, clock=clock)  # still rising
    assert not found.steady and len(found.throughputs) == 5 and found.seconds == 5.0


def test_even_a_zero_bound_runs_a_steady_run_of_chunks():
    clock = Clock(step=1.0)
    found = warmup.warm_up(clock.chunk([100, 100, 100, 100]), bound_s=0, clock=clock)
    assert found.steady and len(found.throughputs) == schedule.STEADY_RUN


def test_chunks_that_scatter_without_a_trend_are_steady():
    clock = Clock(step=1.0)
    scatter = [1050, 950, 1000, 1060, 940, 1010, 990]  # no three agree within ±2 %, nor are they ordered
    found = warmup.warm_up(clock.chunk(scatter), bound_s=20, clock=clock)
    assert found.steady and found.rule == "no trend" and found.start == 0 and len(found.throughputs) == 5


def test_a_step_without_a_rank_trend_is_not_steady():
    clock = Clock(step=1.0)
    step = [123_400, 123_400, 262_400, 249_000, 262_100, 255_000, 258_000, 256_000]  # Milo in a reference run, then on
    found = warmup.warm_up(clock.chunk(step), bound_s=20, clock=clock)
    assert found.steady and found.start >= 2  # steady only once the chunks after the step agree


# Milo's read throughput in 1-s chunks from its start (values/s), recorded with the reference load
MILO_CHUNKS = [10950, 48570, 74300, 86010, 107210, 117460, 130110, 131250, 130410, 158090, 175430, 214430, 216900,
               190900, 194420, 185720, 192390, 192790, 217810, 225870, 225190, 223120, 225100, 227650, 220700, 186450,
               204090, 216030, 227000, 222680, 228930, 205410, 207740, 205610, 206120, 216440, 222530,
               219860]  # fmt: skip


def test_a_plateau_shorter_than_the_climb_before_it_is_not_steady():
    # chunks 6-8 agree within 2 %, but the JIT compiler was not done: 220k came 15 chunks later
    assert warmup.steady_from(MILO_CHUNKS[:9]) is None
    assert warmup.steady_from(MILO_CHUNKS[:18]) is None
    start, rule = warmup.steady_from(MILO_CHUNKS)
    assert start >= 17 and rule == "no trend"  # the 220k plateau, its one dip to 186k included


def test_a_ramp_with_noise_is_not_steady():
    clock = Clock(step=1.0)
    ramp = [1000 * (1 + 0.06 * i) * (1.03 if i % 3 == 0 else 0.98) for i in range(8)]  # compiling, noisily
    found = warmup.warm_up(clock.chunk(ramp), bound_s=8, clock=clock)
    assert not found.steady and len(found.throughputs) == 8


def test_a_failed_chunk_ends_the_warm_up():
    clock = Clock(step=1.0)
    found = warmup.warm_up(clock.chunk([100, "server gone"]), bound_s=20, clock=clock)
    assert found.failure == "server gone" and not found.steady and found.throughputs == [100]


# --- the interleaved runner -------------------------------------------------------------------


def result(value: float) -> Outcome:
    return Outcome("pass", result={"throughput": {"values_per_s": value}})


def test_blocks_measure_every_item_once_in_the_shuffled_order():
    calls = []

    def measure(item, block, _judge):
        calls.append((block, item))
        return result(1000.0)

    found = interleave(ITEMS, measure, lambda o: o.measured["throughput"]["values_per_s"], Repetitions(5, 8), seed=3)
    assert found.blocks == 5  # every figure is narrow at once: the minimum
    for block in range(5):
        assert [item for b, item in calls if b == block] == block_order(ITEMS, 3, block)


def test_blocks_go_on_while_a_figure_is_wide():
    noisy = itertools.cycle([1000.0, 1400.0, 700.0])

    def measure(item, _block, _judge):
        return result(next(noisy) if item == "milo" else 1000.0)

    found = interleave(ITEMS, measure, lambda o: o.measured["throughput"]["values_per_s"], Repetitions(5, 8), seed=3)
    assert found.blocks == 8 and found.wide == ["milo"]
    assert all(len(outcomes) == 8 for outcomes in found.kept.values())


def test_a_disturbed_repetition_is_repeated_in_its_block_and_the_last_attempt_kept():
    attempts: dict[tuple, int] = {}

    def measure(item, block, judge):
        attempts[(item, block)] = attempts.get((item, block), 0) + 1
        if item == "asyncua" and block == 0 and judge:
            return Outcome("disturbed", "steal time 20 %")
        return result(1000.0)

    found = interleave(
        ITEMS, measure, lambda o: o.measured["throughput"]["values_per_s"], Repetitions(5, 8), seed=3, retries=2
    )
    assert attempts[("asyncua", 0)] == 3 and found.disturbed == 2  # two repeats, the third not judged
    assert len(found.kept["asyncua"]) == found.blocks


def test_a_failing_item_leaves_the_schedule_and_the_others_go_on():
    def measure(item, block, _judge):
        return Outcome("fail", "server died") if item == "milo" and block == 1 else result(1000.0)

    found = interleave(ITEMS, measure, lambda o: o.measured["throughput"]["values_per_s"], Repetitions(5, 8), seed=3)
    assert "milo" in found.dropped and "milo" not in found.kept
    assert found.blocks == 5 and all(len(v) == 5 for v in found.kept.values())


def test_derived_figures_such_as_paired_ratios_are_judged_too():
    def measure(item, _block, _judge):  # each figure alone is perfectly steady
        return result(1000.0 if item == "None" else 500.0)

    def figure(o):
        return o.measured["throughput"]["values_per_s"]

    def wobbly_ratio(values):  # a derived figure that stays wide
        return {"ratio": [0.5 + 0.2 * (block % 2) for block in range(len(values["None"]))]}

    rule = Repetitions(5, 8)
    assert interleave(["None", "Sign"], measure, figure, rule, seed=1).blocks == 5
    found = interleave(["None", "Sign"], measure, figure, rule, seed=1, derived=wobbly_ratio)
    assert found.blocks == 8 and found.wide == ["ratio"]


def test_the_time_budget_ends_further_blocks_but_never_the_fewest():
    noisy = itertools.cycle([1000.0, 1400.0, 700.0])
    asked: list[float] = []

    def measure(item, _block, _judge):
        return result(next(noisy) if item == "milo" else 1000.0)

    def figure(o):
        return o.measured["throughput"]["values_per_s"]

    def one_more(block_s: float) -> bool:  # room for exactly one block beyond the fewest
        asked.append(block_s)
        return len(asked) == 1

    found = interleave(ITEMS, measure, figure, Repetitions(5, 8), seed=3, fits=one_more)
    assert found.blocks == 6 and found.budget_stopped and found.wide == ["milo"]
    assert len(asked) == 2 and all(seconds >= 0 for seconds in asked)  # asked only after the fewest blocks
    unbounded = interleave(ITEMS, measure, figure, Repetitions(5, 8), seed=3)
    assert unbounded.blocks == 8 and not unbounded.budget_stopped
    never = interleave(ITEMS, measure, figure, Repetitions(5, 8), seed=3, fits=lambda _s: False)
    assert never.blocks == 5 and never.budget_stopped
