"""The engine's experiments (engine/search.py) driven by plain functions in place of
measured cells: the algorithms alone, without Robot or any SDK."""

import statistics

import pytest

from uabench import estimate
from uabench import plan as plans
from uabench.engine import search
from uabench.engine.cells import Outcome
from uabench.engine.schedule import block_order


def point(figure: float, status: str = "pass", wrong: bool = False) -> Outcome:
    """A measured cell whose only figure is `figure` (what the stop rules below read)."""
    result = {
        "figure": figure,
        "verification": {"failed": int(wrong)},
        "operations": {"failed": 0},
        "throughput": {"values_per_s": figure, "ops_per_s": figure},
    }
    return Outcome(status, None if status == "pass" else f"{status} at {figure}", result)


class Cells:
    """Answers measure(value, repetition) from a table, and remembers what was measured."""

    def __init__(self, answers: dict) -> None:
        self.answers, self.measured = answers, []

    def __call__(self, value, repetition: int) -> Outcome:
        self.measured.append((value, repetition))
        answer = self.answers[value]
        return answer(repetition) if callable(answer) else answer


BELOW_2 = search.StopRule(lambda _, outcomes: all(o.result["figure"] < 2 for o in outcomes))


# --- the sweep --------------------------------------------------------------------------------------


def test_without_a_stop_rule_every_point_is_measured_and_a_failed_point_fails_the_sweep():
    cells = Cells({1: point(1), 2: point(2, "fail"), 3: point(3), 4: point(4, "not_supported")})
    found = search.sweep([1, 2, 3, 4], cells, repetitions=2)
    assert [value for value, _ in found.measured] == [1, 3]
    assert [value for value, _ in found.failed] == [2] and [value for value, _ in found.skipped] == [4]
    assert (2, 1) not in cells.measured  # a failed repetition ends its point
    assert found.stopped is None and not found.unsupported


def test_the_sweep_stops_at_the_first_point_that_does_not_hold():
    cells = Cells({1: point(1), 2: point(2.5), 3: point(3)})
    found = search.sweep([1, 2, 3], cells, repetitions=1, stop=BELOW_2)
    assert [value for value, _ in found.measured] == [1, 2] and found.stopped == "missed"
    assert 3 not in [value for value, _ in cells.measured] and not found.failed


def test_a_later_failure_is_the_limit_but_a_first_failure_or_a_wrong_value_fails():
    limit = search.sweep([1, 2, 3], Cells({1: point(1), 2: point(1, "fail"), 3: point(1)}), 1, BELOW_2)
    assert limit.stopped == "limit" and not limit.failed and len(limit.measured) == 1

    first = search.sweep([1, 2], Cells({1: point(1, "fail"), 2: point(1)}), 1, BELOW_2)
    assert [value for value, _ in first.failed] == [1] and not first.measured

    wrong = search.sweep([1, 2], Cells({1: point(1), 2: point(1, "fail", wrong=True)}), 1, BELOW_2)
    assert [value for value, _ in wrong.failed] == [2] and wrong.stopped is None


def test_a_missed_point_and_the_last_held_one_are_measured_once_more_and_decided_by_their_median():
    median_below_2 = search.StopRule(lambda _, outcomes: statistics.median(o.result["figure"] for o in outcomes) < 2)
    stalled_once = Cells({1: point(1), 2: lambda repetition: point(5 if repetition == 0 else 1), 3: point(5)})
    found = search.sweep([1, 2, 3], stalled_once, repetitions=1, stop=median_below_2)
    # 2 missed once, so both 2 and the held 1 got one more repetition; 2's median (3) still misses
    assert (1, 1) in stalled_once.measured and (2, 1) in stalled_once.measured
    assert 3 not in [value for value, _ in stalled_once.measured] and found.stopped == "missed"
    assert found.limit == search.Limit(1, 2)

    recovered = Cells({1: point(1), 2: lambda repetition: point(2.5 if repetition == 0 else 0.5), 3: point(5)})
    found = search.sweep([1, 2, 3], recovered, repetitions=1, stop=median_below_2)
    assert [value for value, _ in found.measured] == [1, 2, 3] and found.limit == search.Limit(2, 3)
    assert recovered.measured.count((2, 1)) == 1  # each point at most once more


def test_a_held_point_that_misses_when_measured_again_moves_the_bracket_down():
    median_below_2 = search.StopRule(lambda _, outcomes: statistics.median(o.result["figure"] for o in outcomes) < 2)
    cells = Cells({1: point(1), 2: lambda repetition: point(1 if repetition == 0 else 4), 3: point(5)})
    found = search.sweep([1, 2, 3], cells, repetitions=1, stop=median_below_2)
    assert found.limit == search.Limit(1, 2) and (1, 1) in cells.measured  # 1 measured again beside 2


def test_a_sweep_with_nothing_supported_is_unsupported():
    found = search.sweep([1, 2], Cells({1: point(1, "not_supported"), 2: point(2, "not_supported")}), 1)
    assert found.unsupported and not found.failed


# --- headroom ---------------------------------------------------------------------------------------


def test_headroom_compares_one_and_two_processes_on_the_fastest_server():
    cells = [
        {
            "kind": "throughput",
            "variant": "v",
            "status": "pass",
            "server": s,
            "result": {"throughput": {"values_per_s": v}},
        }
        for s, v in (("a", 10), ("b", 30), ("c", 99))
    ]
    cells[2]["status"] = "fail"
    assert search.fastest_server(cells, "v") == "b" and search.fastest_server(cells, "w") is None
    outlier = {**cells[0], "result": {"throughput": {"values_per_s": 50}}}  # one fast repetition of a
    assert search.fastest_server(cells + [outlier, dict(cells[0])], "v") == "b"  # the median decides
    measured = []

    def measure(processes: int, repetition: int) -> Outcome:
        measured.append((processes, repetition))
        return point(100 * processes + repetition)

    figures, gain = search.headroom(measure, repetitions=2, seed=4)
    assert measured == [(p, r) for r in (0, 1) for p in block_order((1, 2), 4, r)]  # interleaved
    assert figures[1]["mean"] == 100.5 and figures[2]["mean"] == 200.5 and gain == pytest.approx(100 / 100.5)


def test_headroom_fails_on_a_failed_cell():
    with pytest.raises(search.CellFailed):
        search.headroom(lambda processes, _: point(1, "fail" if processes == 2 else "pass"), repetitions=1)


def test_a_disturbed_repetition_of_a_sweep_is_measured_again():
    calls = []

    def measure(value, repetition: int) -> Outcome:
        calls.append((value, repetition))
        return point(1, "disturbed") if calls.count((value, repetition)) == 1 and value == 2 else point(value)

    found = search.sweep([1, 2, 3], measure, repetitions=1)
    assert calls == [(1, 0), (2, 0), (2, 0), (3, 0)] and not found.failed
    assert [value for value, _ in found.measured] == [1, 2, 3]


def test_a_sweep_point_disturbed_beyond_its_retries_is_not_measured():
    found = search.sweep([1], lambda value, repetition: point(1, "disturbed"), repetitions=1)
    assert found.failed and not found.measured


# --- bisection of the limit -------------------------------------------------------------------------


def truth(rule):
    """measure() answering from a rule of the value: figure 1 where it holds, 5 where it misses."""
    return lambda value, repetition: point(1 if rule(value) else 5)


def test_the_limit_is_bisected_between_the_last_held_and_the_first_missed_point_to_the_resolution():
    found = search.sweep([100, 500, 2500], truth(lambda v: v < 300), 1, BELOW_2, bisection=search.Bisection(0.1, 10))
    limit = found.limit
    assert limit.found == "bisected" and limit.held < 300 <= limit.missed and limit.resolved()
    assert 100 < limit.held and limit.missed <= 500 and limit.missed / limit.held - 1 <= 0.1
    assert limit.text("signals").startswith(f"limit {limit.held} signals, between {limit.held} held and ")


def test_the_bisection_stops_after_its_steps_and_says_the_resolution_was_not_reached():
    found = search.sweep([100, 500], truth(lambda v: v < 300), 1, BELOW_2, bisection=search.Bisection(0.1, 1))
    assert found.limit == search.Limit(224, 500, 1, 0.1)  # one step: the geometric mean of 100 and 500
    assert found.limit.text("signals") == (
        "limit 224 signals, between 224 held and 500 missed (bisected in 1 step, 10% resolution not reached)"
    )


def test_a_non_monotonic_sweep_is_limited_by_its_first_confirmed_miss_never_by_a_later_held_point():
    # holds below 300 and again from 1000 to 2000: the limit stays below the first miss (500)
    rule = lambda v: v < 300 or 1000 <= v < 2000  # noqa: E731
    cells = Cells({v: point(1 if rule(v) else 5) for v in (100, 500, 1500)})
    found = search.sweep([100, 500, 1500], cells, 1, BELOW_2)
    assert found.limit == search.Limit(100, 500) and 1500 not in [v for v, _ in cells.measured]
    # a hole inside the bracket: bisection keeps a bracket of a measured held and a measured missed point
    holey = lambda v: v < 300 and not 200 <= v < 250  # noqa: E731
    found = search.sweep([100, 500], truth(holey), 1, BELOW_2, bisection=search.Bisection(0.01, 8))
    held, missed = found.limit.held, found.limit.missed
    measured = dict(found.measured)
    assert held < missed and holey(held) and not holey(missed)
    assert held in measured and (missed in measured or missed == 500)


def test_a_top_point_that_holds_is_a_grid_limit_and_a_first_point_that_misses_is_below_the_grid():
    top = search.sweep([100, 500], truth(lambda v: True), 1, BELOW_2, bisection=search.Bisection(0.1, 4))
    assert top.limit == search.Limit(500, None, 0, 0.1) and top.limit.found == "grid limit"
    assert top.limit.text("signals", 5000.0).startswith("≥ 500 signals (5,000 signals/s delivered) (grid limit")
    below = search.sweep([100, 500], truth(lambda v: False), 1, BELOW_2, bisection=search.Bisection(0.1, 4))
    assert below.limit == search.Limit(None, 100, 0, 0.1) and below.limit.found == "below grid"
    assert not below.failed and [v for v, _ in below.measured] == [100]


def test_a_failed_point_is_missed_in_the_bisection_and_a_wrong_value_fails_the_sweep():
    failing = search.sweep(
        [100, 500],
        lambda v, r: point(1) if v < 300 else point(1, "fail"),
        1,
        BELOW_2,
        bisection=search.Bisection(0.1, 2),
    )
    assert failing.stopped == "limit" and failing.limit.held < 300 <= failing.limit.missed and not failing.failed
    wrong = search.sweep(
        [100, 500],
        lambda v, r: {100: point(1), 500: point(5)}.get(v) or point(1, "fail", wrong=True),
        1,
        BELOW_2,
        bisection=search.Bisection(0.1, 2),
    )
    assert [v for v, _ in wrong.failed] == [224]  # a wrong value is never a limit


def test_the_estimate_counts_the_re_measured_and_the_bisection_points(tmp_path):
    """estimate.py: a sweep with a stop rule adds its two re-measured points and its
    bisect_steps points of `repetitions` each, each starting its own server."""
    path = tmp_path / "p.toml"
    plan_text = """
suite = "subscription"
[profiles.p]
sweep = { warmup_s = 0.25, duration_s = 0.75, repetitions = 2, bisect_steps = BISECT }
[[sweep]]
name = "signals"
kind = "signals"
values = [10, 20, 30]
stop = { metric = "sustained" }
workload = { workload = "subscribe", publishing_interval_ms = 100, sampling_interval_ms = 100, queue_size = 1 }
server = { update_interval_ms = 100 }
"""
    startup = {"c": 2.0, "s": 5.0}.__getitem__
    test = plans.TestCase("Sweep Should Complete", "Sweep Should Complete", ("signals", "c", "s"), ())
    found = {}
    for steps in (0, 3):
        path.write_text(plan_text.replace("BISECT", str(steps)))
        found[steps] = estimate.estimate(plans.load(path), "p", [test], startup)
    cell = 2 + 0.25 + 0.75 + estimate.CELL_OVERHEAD_S
    assert found[0].cells == 3 * 2 + 2 and found[3].cells == 3 * 2 + 2 + 3 * 2
    assert found[3].seconds - found[0].seconds == pytest.approx(3 * 2 * cell + 3 * 5)
    assert found[0].seconds == pytest.approx(3 * 5 + (3 * 2 + 2) * cell + 2 * 5)


def test_with_three_repetitions_the_re_measure_is_a_fourth_of_both_points_and_a_disturbed_one_is_retried():
    median_below_2 = search.StopRule(lambda _, outcomes: statistics.median(o.result["figure"] for o in outcomes) < 2)
    seen: list = []

    def measure(value, repetition):
        seen.append((value, repetition))
        if value == 20 and repetition == 3 and seen.count((20, 3)) == 1:
            return point(1, "disturbed")  # other load on the host: measured again
        return point(1 if value == 10 else 5)

    found = search.sweep([10, 20, 40], measure, 3, median_below_2)
    assert [(v, r) for v, r in seen if r == 3] == [(10, 3), (20, 3), (20, 3)]
    assert [len(outcomes) for _, outcomes in found.measured] == [4, 4] and found.limit == search.Limit(10, 20)


def test_the_held_point_of_the_limit_is_measured_to_its_repetitions_and_a_miss_then_makes_a_lower_bound():
    bisection = search.Bisection(0.1, 1)
    found = search.sweep([100, 500], truth(lambda v: v < 300), 1, BELOW_2, bisection=bisection, limit_repetitions=3)
    held = found.limit.held
    assert held == 224 and len(dict(found.measured)[held]) == 3 and found.held_again is True
    assert "a lower bound" not in search.limit_verdict(found, "signals")["text"]
    # the held point misses from its second repetition on (a server that only just held once)
    flaky = Cells({100: point(1), 224: lambda r: point(1 if r == 0 else 5), 500: point(5)})
    found = search.sweep([100, 500], flaky, 1, BELOW_2, bisection=bisection, limit_repetitions=3)
    assert found.held_again is False and [r for v, r in flaky.measured if v == 224] == [0, 1, 2]
    verdict = search.limit_verdict(found, "signals")
    assert verdict["held_repetitions"] == 3 and verdict["text"].endswith("measured to 3 repetitions: a lower bound")
    # fewer asked for than measured: nothing more
    once = search.sweep([100, 500], truth(lambda v: v < 300), 1, BELOW_2, bisection=bisection)
    assert once.held_again is None and len(dict(once.measured)[224]) == 1
