"""The engine's experiments (engine/search.py) driven by plain functions in place of
measured cells: the algorithms alone, without Robot or any SDK."""

import pytest

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


def test_a_missed_point_is_measured_once_more_and_holds_if_the_retry_holds():
    rule = search.StopRule(lambda _, outcomes: any(o.result["figure"] < 2 for o in outcomes), retry_missed=True)
    stalled_once = Cells({1: point(1), 2: lambda repetition: point(5 if repetition == 0 else 1), 3: point(5)})
    found = search.sweep([1, 2, 3], stalled_once, repetitions=1, stop=rule)
    assert (2, 1) in stalled_once.measured and [value for value, _ in found.measured] == [1, 2, 3]
    assert stalled_once.measured[-2:] == [(3, 0), (3, 1)] and found.stopped == "missed"


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
