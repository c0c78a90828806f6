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


def test_a_jit_runtimes_floor_holds_off_a_plateau_and_outlasts_the_bound():
    """Milo on 7 Dec: 130-139k values/s for three chunks, then 215-300k from the ninth second on;
    its sdk.toml's warmup_s keeps an early plateau from counting as steady."""
    plateau = [50, 130, 131, 130, 200, 250, 290, 300, 298, 301, 300, 299, 300, 301, 300, 300]
    clock = Clock(step=1.0)
    early = warmup.warm_up(clock.chunk(plateau), bound_s=20, clock=clock)
    assert early.steady and early.throughputs[-1] == 130  # the plateau between two compiler steps
    clock = Clock(step=1.0)
    floored = warmup.warm_up(clock.chunk(plateau), bound_s=20, clock=clock, floor_s=10)
    assert floored.steady and len(floored.throughputs) > 10 and floored.throughputs[floored.start] >= 290
    clock = Clock(step=1.0)
    rising = warmup.warm_up(clock.chunk(itertools.count(100, 10)), bound_s=5, clock=clock, floor_s=12)
    assert not rising.steady and len(rising.throughputs) == 12  # the floor outlasts a shorter bound


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


def test_a_server_whose_pairs_are_decided_leaves_the_blocks_and_the_undecided_go_on():
    """The rank rule's stop (results/ranking.settled): a pair ordered beyond the margin, or
    provably within it, needs no more blocks; only the pairs still undecided are measured on."""
    from uabench.results import ranking

    level = {"fast": 1000.0, "slow": 100.0, "a": 300.0, "b": 330.0}
    wobble = itertools.cycle([0.8, 1.25, 1.0, 0.7, 1.3])  # b's ratio to a reaches across the margin

    def measure(item, _block, _judge):
        return result(level[item] * (next(wobble) if item == "b" else 1.0) * (1 + 0.2 * (_block % 2)))

    def figure(o):
        return o.measured["throughput"]["values_per_s"]

    def settled(values):
        return ranking.settled(values, 0.35)

    found = interleave(list(level), measure, figure, Repetitions(5, 8), seed=3, settled=settled)
    # fast and slow are ordered against everything after the fewest blocks; a and b are not
    assert found.settled == ["fast", "slow"] or found.settled == ["slow", "fast"]
    assert [len(found.kept[s]) for s in ("fast", "slow", "a", "b")] == [5, 5, 8, 8] and found.blocks == 8
    # all decided at once: the fewest blocks, then the schedule is empty
    steady = interleave(["fast", "slow"], measure, figure, Repetitions(5, 8), seed=3, settled=settled)
    assert steady.blocks == 5 and steady.wide == []
    # no settling rule: every item every block
    plain = interleave(list(level), measure, figure, Repetitions(5, 8), seed=3)
    assert all(len(v) == 8 for v in plain.kept.values()) and plain.settled == []


def test_a_tie_provably_within_the_margin_is_decided_too():
    from uabench.results import ranking

    close = {"x": [100.0, 101.0, 99.0, 100.0, 102.0], "y": [105.0, 106.0, 104.0, 105.0, 107.0]}
    assert ranking.settled(close, 0.35) == {"x", "y"}
    far = {"x": [100.0, 101.0, 99.0, 100.0, 102.0], "y": [300.0, 303.0, 297.0, 300.0, 306.0]}
    assert ranking.settled(far, 0.35) == {"x", "y"}
    reaching = {"x": [100.0, 101.0, 99.0, 100.0, 102.0], "y": [100.0, 160.0, 90.0, 150.0, 120.0]}
    assert ranking.settled(reaching, 0.35) == set()
