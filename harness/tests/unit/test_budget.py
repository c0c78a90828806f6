"""The run's time budget: its shares per test, the due time a listener sets for the running
test, and what the command line accepts."""

import pytest

from uabench.engine import budget


def test_the_budget_is_shared_out_in_proportion_to_the_estimates():
    assert budget.shares([10.0, 30.0, 60.0], 200.0) == pytest.approx([20.0, 80.0, 200.0])
    assert budget.shares([0.0, 0.0], 50.0) == [50.0, 50.0]  # nothing estimated: all of it for each
    with pytest.raises(ValueError, match="positive"):
        budget.shares([1.0], 0.0)


def test_a_block_fits_only_when_it_ends_before_the_test_is_due():
    try:
        budget.set_due(100.0)
        assert budget.block_fits(9.0, now=90.0)
        assert not budget.block_fits(11.0, now=90.0)
        budget.set_due(None)
        assert budget.block_fits(1e9, now=90.0)  # no budget: always
    finally:
        budget.set_due(None)


@pytest.mark.parametrize(("text", "seconds"), [("750", 750.0), ("12:30", 750.0), ("0:45.5", 45.5)])
def test_a_budget_is_seconds_or_minutes_and_seconds(text, seconds):
    assert budget.parse(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "0", "-5", "1:75", "12:", "1e9", "nan"])
def test_a_bad_budget_is_refused(text):
    with pytest.raises(ValueError, match="time budget"):
        budget.parse(text)
