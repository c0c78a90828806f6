"""The capacity search on probes of a modelled server (no SDK)."""

import pytest

from uabench.engine import capacity as search
from uabench.engine.cells import Outcome


def point(rate: float) -> Outcome:
    return Outcome("pass", None, {"throughput": {"ops_per_s": rate}})


# --- the capacity search ---------------------------------------------------------------------------


class Server:
    """Sustains every rate up to `capacity`; remembers the probes."""

    def __init__(self, capacity: float) -> None:
        self.capacity, self.probes = capacity, []

    def __call__(self, rate: float, label: str) -> search.Probe:
        self.probes.append((rate, label))
        ok = rate <= self.capacity
        return search.Probe(ok, {"throughput": min(rate, self.capacity), "p99_ms": 1.0}, point(rate))


def test_capacity_doubles_then_bisects_then_probes_beyond():
    server = Server(1000)
    found = search.capacity(server, start_rate=100, max_rate=1e6, refine_steps=3, overload_factor=1.5)
    assert [rate for rate, _ in server.probes] == [100, 200, 400, 800, 1600, 1200, 1000, 1100, 1500]
    assert found.rate == 1000 and found.overload_rate == 1500 and server.probes[-1] == (1500, "overload")
    assert found.figures["throughput"] == 1000 and not found.overload.ok


def test_capacity_below_the_start_rate_halves_until_it_holds():
    server = Server(30)
    found = search.capacity(server, start_rate=100, max_rate=1e6, refine_steps=1, overload_factor=2)
    assert [rate for rate, _ in server.probes][:4] == [100, 50, 25, 37.5] and found.rate == 25


def test_capacity_is_bounded_by_the_max_rate_and_not_found_below_the_min_rate():
    server = Server(1e9)
    assert search.capacity(server, 100, max_rate=800, refine_steps=5, overload_factor=2).rate == 800
    assert (1600, "probe") not in server.probes
    with pytest.raises(search.NoCapacity):
        search.capacity(Server(1), 100, 1e6, refine_steps=2, overload_factor=2, min_rate=10)


@pytest.mark.parametrize(
    "figures,alive,behaviour",
    [
        ({"throughput": 900}, True, "graceful"),
        ({"throughput": 500}, True, "collapse"),
        ({"throughput": 900}, False, "crash"),
        (None, True, "crash"),
        ({"throughput": 0}, True, "crash"),
    ],
)
def test_overload_is_classified(figures, alive, behaviour):
    assert search.classify_overload(1000, figures, alive) == behaviour
