import math

import pytest

from uabench.results import model
from uabench.results.model import ModelError, Observation


def _observations(noise):
    data = []
    for i, (signals, interval, clients) in enumerate(
        [(100, 100, 1), (1000, 100, 1), (3000, 100, 1), (1000, 100, 10), (1000, 50, 1), (1000, 250, 1)]
    ):
        x = model.feature(signals, interval, clients, "client-server")
        data.append(Observation("s", signals, interval, clients, 2.0 + 0.001 * x + noise[i], "client-server"))
    return data


def test_exact_data_gives_the_weights_back_and_r2_one():
    fitted = model.fit("s", "client-server", _observations([0] * 6))
    assert math.isclose(fitted.intercept, 2.0, abs_tol=1e-9) and math.isclose(fitted.slope, 0.001)
    assert math.isclose(fitted.r2, 1.0) and fitted.heldout_mae < 1e-9
    assert math.isclose(fitted.predict(2000, 100, 1), 2.0 + 0.001 * 20000)


def test_noise_shows_in_the_held_out_error():
    fitted = model.fit("s", "client-server", _observations([1, -1, 2, -2, 1, -1]))
    assert fitted.r2 < 1 and fitted.heldout_mae > 0.5 and fitted.band > 0


def test_prediction_outside_the_measured_range_is_flagged():
    fitted = model.fit("s", "client-server", _observations([0] * 6))
    assert fitted.outside(2000, 100, 5) == []
    assert fitted.outside(50000, 100, 1) == ["signals = 50000 is outside the measured range [100, 3000]"]


def test_too_few_points_is_an_error():
    with pytest.raises(ModelError, match="need at least 3"):
        model.fit("s", "client-server", _observations([0] * 6)[:2])


def test_clients_enter_with_exponent_0_3():
    assert math.isclose(model.feature(10, 100, 10, "client-server"), 10 * 10 * 10**0.3)
    assert model.feature(10, 100, 10, "pubsub") == 100
