"""The steady-state rules on synthetic series whose answer is known by construction."""

import json

import numpy as np
import pytest

from uabench.results.steady import mser5, mser5_settled, steady_start


def _noise(n: int, level: float, seed: int = 1) -> np.ndarray:
    return 1000.0 * (1 + level * np.random.default_rng(seed).uniform(-1, 1, n))


def _warm_up_then_flat(ramp: int = 12, flat: int = 40) -> list[float]:
    # a JIT client: throughput climbs from 20 % to full over `ramp` windows, then holds within ±0.5 %
    rising = np.linspace(200.0, 1000.0, ramp, endpoint=False)
    return list(rising) + list(_noise(flat, 0.005))


def test_steady_after_the_warm_up():
    assert steady_start(_warm_up_then_flat(ramp=12)) == 12


def test_steady_from_the_start_when_flat():
    assert steady_start(list(_noise(30, 0.005))) == 0


def test_noise_beyond_the_tolerance_is_never_steady():
    # every window 5-20 % off, alternating sides: any three span at least 10 %
    offsets = np.random.default_rng(2).uniform(0.05, 0.2, 60) * np.resize([1, -1], 60)
    assert steady_start(list(1000.0 * (1 + offsets))) is None


def test_a_trend_is_never_steady():
    # 3 % more per window: no three windows within ±2 % of their mean
    assert steady_start([1000.0 * 1.03**i for i in range(40)]) is None


def test_idle_windows_are_not_steady():
    assert steady_start([0.0, 0.0, 0.0, 0.0, 500.0, 1000.0, 1000.0, 1000.0]) == 5


def test_tolerance_and_run_length_matter():
    series = [100.0, 103.0, 100.0, 103.0, 100.0]
    assert steady_start(series, tolerance=0.02) == 0  # 1.5 % either side of 101.5
    assert steady_start(series, tolerance=0.01) is None
    assert steady_start([100.0, 110.0, 100.0, 100.0], run=2) == 2
    with pytest.raises(ValueError):
        steady_start(series, run=0)


def test_mser5_cuts_the_warm_up():
    series = _warm_up_then_flat(ramp=50, flat=200)
    point = mser5(series)
    assert 40 <= point <= 60 and point % 5 == 0
    assert mser5_settled(series)


def test_mser5_keeps_a_stationary_series():
    series = list(_noise(200, 0.05))
    assert mser5(series) <= 20
    assert mser5_settled(series)


def test_mser5_sees_a_trend_never_settle():
    series = [1000.0 + 10.0 * i for i in range(200)]
    assert not mser5_settled(series)


def test_mser5_on_a_short_series():
    assert mser5([1.0, 2.0, 3.0]) == 0


def test_a_steady_verdict_reads_back_as_written_and_an_older_one_without_its_late_keys():
    from uabench.results.steady import SteadyVerdict

    written = SteadyVerdict(
        True, 1.5, 3.0, 4, 1, "tolerance", (10.0, 20.0, 20.1, 20.0), (0.0, 0.5, 1.0, 1.5), 30, {"run": 3}
    )
    assert SteadyVerdict.from_result(json.loads(json.dumps(written.as_result()))) == written
    older = SteadyVerdict.from_result({"steady": False, "values_per_s": [1.0, 2.0]})
    assert (older.steady, older.chunks, older.steady_chunk, older.rule) == (False, 2, None, {})
