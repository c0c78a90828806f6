"""What tests/unit/test_schedstat.py and tests/integration/test_schedstat.py share."""

S = 1_000_000_000
