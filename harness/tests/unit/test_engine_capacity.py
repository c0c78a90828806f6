"""The capacity search (engine/capacity.py) on probes of a modelled server, and the figures of
a probe from a result record: the algorithms alone, without Robot or any SDK."""

import math

import pytest

from uabench.engine import capacity
from uabench.engine.cells import Outcome
from uabench.results.timeline import completed_in_window


def point(rate: float) -> Outcome:
    return Outcome("pass", None, {"throughput": {"ops_per_s": rate}})


class Server:
    """Sustains every rate up to `limit` (and those in `flaky` only on their second probe);
    completes at most `limit` requests/s beyond it; remembers the probes."""

    def __init__(self, limit: float, flaky: tuple[float, ...] = (), dies_above: float = math.inf) -> None:
        self.limit, self.flaky, self.dies_above, self.probes = limit, set(flaky), dies_above, []

    def __call__(self, rate: float, label: str) -> capacity.Probe:
        self.probes.append((rate, label))
        if rate > self.dies_above:
            return capacity.Probe(False, None, point(0))
        ok = rate <= self.limit
        if rate in self.flaky:
            ok = not ok
            self.flaky.discard(rate)
        figures = {"throughput": min(rate, self.limit), "p99_ms": 1.0 if ok else 50.0, "completed": 1.0}
        return capacity.Probe(ok, figures, point(rate))


def test_the_search_doubles_bisects_confirms_the_bracket_then_probes_each_overload_factor():
    server = Server(1000)
    found = capacity.capacity(server, 100, 1e6, refine_steps=3, overload_factors=(1.5, 2), overload_repetitions=2)
    assert [rate for rate, _ in server.probes][:10] == [100, 200, 400, 800, 1600, 1200, 1000, 1100, 1000, 1100]
    assert [label for _, label in server.probes[8:10]] == ["confirm", "confirm"]
    assert found.rate == 1000 and found.confirmed_miss == 1100 and not found.missed_then_held
    assert sorted(found.overload) == [1.5, 2] and all(len(p) == 2 for p in found.overload.values())
    assert [rate for rate, label in server.probes if label == "overload"] == [1500, 1500, 2000, 2000]


def test_a_capacity_that_misses_when_confirmed_falls_back_to_the_next_lower_rate_that_held():
    # 1000 held once by chance: confirmed, it misses, and 800 (held before) is confirmed instead
    found_probes = []

    def probe(rate: float, label: str) -> capacity.Probe:
        found_probes.append((rate, label))
        ok = rate <= 900 or (rate == 1000 and label == "probe")
        return capacity.Probe(ok, {"throughput": rate, "p99_ms": 1.0, "completed": 1.0}, point(rate))

    found = capacity.capacity(probe, 100, 1e6, refine_steps=2, overload_factors=(1.5,))
    assert found.rate == 800
    assert (1000, "confirm") in found_probes and (800, "confirm") in found_probes


def test_a_capacity_no_rate_of_which_holds_again_is_returned_unconfirmed_not_refused():
    # every rate held once, then missed when probed again (a noisy host): not "no capacity"
    def probe(rate: float, label: str) -> capacity.Probe:
        ok = label == "probe" and rate <= 800
        return capacity.Probe(ok, {"throughput": rate, "p99_ms": 1.0, "completed": 1.0}, point(rate))

    found = capacity.capacity(probe, 100, 1e6, refine_steps=1, overload_factors=(1.5,))
    assert not found.confirmed and found.rate < 800 and found.confirmed_miss is None
    assert capacity.capacity(Server(1000), 100, 1e6, refine_steps=1, overload_factors=(1.5,)).confirmed


def test_a_missed_rate_that_holds_when_probed_again_is_recorded_not_hidden():
    server = Server(1100, flaky=(1100,))  # 1100 misses at first, then holds
    found = capacity.capacity(server, 100, 1e6, refine_steps=3, overload_factors=(1.5,))
    # the search climbed on from 1100 and found the limit there, confirmed by a miss above it
    assert found.rate == 1100 and found.missed_then_held == [1100] and found.confirmed_miss == 1237.5


def test_one_disturbed_probe_early_in_the_doubling_does_not_set_the_capacity():
    server = Server(10000, flaky=(400,))  # a pause at 400/s: the real limit is 10,000/s
    found = capacity.capacity(server, 100, 1e6, refine_steps=3, overload_factors=(1.5,))
    assert 8000 <= found.rate <= 10000 and found.missed_then_held == [400] and found.confirmed


def test_the_search_below_the_start_rate_halves_until_it_holds_and_is_bounded():
    server = Server(30)
    found = capacity.capacity(server, 100, 1e6, refine_steps=1, overload_factors=(2,))
    assert [rate for rate, _ in server.probes][:4] == [100, 50, 25, 37.5] and found.rate == 25
    fast = Server(1e9)
    assert capacity.capacity(fast, 100, max_rate=800, refine_steps=5, overload_factors=(2,)).rate == 800
    assert (1600, "probe") not in fast.probes
    with pytest.raises(capacity.NoCapacity):
        capacity.capacity(Server(1), 100, 1e6, refine_steps=2, overload_factors=(2,), min_rate=10)


def _probes(
    *shares: float, shed: float = 0.0, halves: tuple[float, float] | None = (30.0, 32.0)
) -> list[capacity.Probe]:
    return [
        capacity.Probe(
            False,
            {"throughput": 1000 * s, "p99_ms": 40.0, "shed": shed, **({"p99_halves": halves} if halves else {})}
            if s
            else None,
            point(0),
        )
        for s in shares
    ]


@pytest.mark.parametrize(
    "overload,alive,behaviour",
    [
        # completions hold, latency flat over the window: the bound was missed by a constant margin
        ({1.5: _probes(1.0, 0.98), 2: _probes(0.95, 0.93)}, True, "holds"),
        # they hold, but what is sent later waits longer: a queue that grows with the run
        ({1.5: _probes(1.0, 0.98), 2: _probes(0.95, 0.93, halves=(20.0, 60.0))}, True, "queue"),
        # busy answers to 20 % of the offered requests, the rest served without a growing queue
        ({1.5: _probes(0.95, 0.97, shed=0.2), 2: _probes(0.7, 0.72, shed=0.4)}, True, "shed"),
        # refusing some while the rest queue is a queue, not shedding
        ({1.5: _probes(1.0, 1.0, shed=0.05, halves=(10.0, 40.0)), 2: _probes(1.0, 1.0)}, True, "queue"),
        ({1.5: _probes(0.95, 0.97), 2: _probes(0.7, 0.72)}, True, "collapse"),
        ({1.5: _probes(0.8, 0.8), 2: _probes(0.3, 0.2)}, True, "collapse"),
        ({1.5: _probes(1.0, 1.0), 2: _probes(1.0, 1.0)}, False, "crash"),
        ({1.5: _probes(1.0, 1.0), 2: _probes(1.0, 0)}, True, "crash"),
        ({1.5: _probes(1.0, 1.0, halves=None)}, True, "held (latency growth not measured)"),
    ],
)
def test_the_overload_behaviour_tells_shedding_queueing_and_collapse_apart(overload, alive, behaviour):
    found = capacity.classify_overload({"throughput": 1000, "p99_ms": 4.0}, overload, alive)
    assert found["behaviour"] == behaviour
    if behaviour != "crash":
        assert found["factors"]["1.5"]["p99_growth"] == pytest.approx(10.0)


def test_busy_answers_are_known_by_name_or_code_however_an_sdk_prints_them():
    examples = [
        "Bad_TooManyOperations",
        "read: BadServerTooBusy (0x800E0000)",
        "StatusCode 0x80100000",
        "BadTimeout",
        "connection reset",
    ]
    assert capacity.busy_examples(examples) == examples[:3]


def test_the_p99_of_each_half_of_the_window_comes_from_every_request_sent_in_it():
    start, window = 1_000_000_000, 1_000_000_000
    sends = list(range(0, window, window // 1000))  # after the timeline's start, which is the window's here
    waits = [1_000_000 + 50 * k for k in range(len(sends))]  # each request waits longer than the last: a queue
    result = {
        "start_ns": start,
        "end_ns": start + window,
        "timeline": {"start_ns": start},
        "latencies": {"send_ns": sends, "latency_ns": waits, "truncated": 0},
    }
    first, second = capacity.p99_halves(result) or (0.0, 0.0)
    assert first == pytest.approx((1_000_000 + 50 * 494) / 1e6) and second > first * 1.0
    assert capacity.p99_halves({**result, "latencies": {"send_ns": sends[:150], "latency_ns": waits[:150]}}) is None


def _result(timeline_ops: list[int], warmup_windows: float, latency=None, lag=None) -> dict:
    start = 1_000_000_000_000
    width = 100_000_000
    result = {
        "start_ns": int(start + warmup_windows * width),
        "end_ns": start + len(timeline_ops) * width,
        "timeline": {"window_ms": 100, "start_ns": start, "ops": timeline_ops},
        "operations": {"succeeded": 10**6, "failed": 0},  # scheduled in the window: not what counts
        "latency_ns": latency or [[1_000_000, 100]],
    }
    if lag is not None:
        result["send_lag_ns"] = lag
    return result


def test_throughput_counts_completions_inside_the_window_not_requests_scheduled_in_it():
    # 5 warm-up windows, then 5 measured ones (0.5 s) with 100 completions each, then the drain
    result = _result([100] * 5 + [100] * 5, warmup_windows=5)
    assert completed_in_window(result) == 500
    figures = capacity.probe_figures(Outcome("pass", None, result), rate=1000, duration_s=0.5)
    assert figures["throughput"] == pytest.approx(1000) and figures["completed"] == pytest.approx(1.0)
    # a server that answered half of them inside the window: the rest came in the drain
    slow = _result([100] * 5 + [50] * 5, warmup_windows=5)
    assert capacity.probe_figures(Outcome("pass", None, slow), 1000, 0.5)["completed"] == pytest.approx(0.5)
    # a window half inside counts half
    assert completed_in_window(_result([100] * 10, warmup_windows=4.5)) == 550


def test_a_probe_whose_send_lag_is_large_while_the_client_is_busy_marks_the_load_generator_behind():
    def figures(lag_ns: int, hot_thread_cpu: float | None) -> dict:
        result = _result([100] * 10, 5, lag=[[lag_ns, 100]])
        outcome = Outcome("pass", None, result, client_resources={"hot_thread_cpu": hot_thread_cpu})
        return capacity.probe_figures(outcome, 1000, 0.5)

    lagging = figures(8_000_000, 99.0)
    assert lagging["send_lag_p99_ms"] >= 8.0 and capacity.generator_behind(lagging, p99_bound_ms=20)
    # the same lag with the client idle: every request slot waited for the server's answers
    assert not capacity.generator_behind(figures(8_000_000, 30.0), p99_bound_ms=20)
    # a busy client on schedule, and a probe without per-thread figures
    assert not capacity.generator_behind(figures(50_000, 99.0), p99_bound_ms=20)
    assert not capacity.generator_behind(figures(8_000_000, None), p99_bound_ms=20)


def test_latency_loads_skip_what_is_beyond_a_servers_capacity_and_shares_without_one():
    class Latency:
        loads = ((1000.0, 1), (20000.0, 1), (200.0, 100))
        capacity_shares = (0.5,)

    todo, skipped = capacity.latency_loads(Latency, ["fast", "slow", "unknown"], {"fast": 50000, "slow": 6000})
    assert ("slow", "20000 requests/s × 1 node", 20000.0, 1) not in todo
    assert ("slow", "20000 requests/s × 1 node", 20000.0, "not run: beyond its capacity of 6000 requests/s") in skipped
    assert ("fast", "50% of capacity", 25000.0, 1) in todo
    assert ("unknown", "50% of capacity", None, "not run: no capacity found in this run") in skipped
    assert ("unknown", "20000 requests/s × 1 node", 20000.0, 1) in todo
    # a phase of 0.6 s holds 120 requests at 200/s: too few for a p99, that load is not run
    todo, skipped = capacity.latency_loads(Latency, ["fast"], {"fast": 50000}, duration_s=0.6)
    assert (
        "fast",
        "200 requests/s × 100 nodes",
        200.0,
        "not run: 120 requests in its 0.6 s phase, too few for a p99",
    ) in (skipped)
    assert (
        "fast",
        "1000 requests/s × 1 node",
        1000.0,
        "not run: 600 requests in its 0.6 s phase, too few for a p99",
    ) in (skipped)
    assert [load for load in todo if load[0] == "fast"] == [
        ("fast", "20000 requests/s × 1 node", 20000.0, 1),
        ("fast", "50% of capacity", 25000.0, 1),
    ]


@pytest.mark.parametrize(
    "figures, alive, held",
    [
        ({"completed": 0.99, "p99_ms": 9.0}, True, True),
        ({"completed": 0.97, "p99_ms": 9.0}, True, False),  # too few completed inside the window
        ({"completed": 0.99, "p99_ms": 11.0}, True, False),  # p99 beyond the bound
        ({"completed": 0.99, "p99_ms": 9.0}, False, False),  # the server died under it
        (None, True, False),  # no answer at all
    ],
)
def test_a_probe_holds_only_with_enough_completions_within_the_p99_bound_on_a_live_server(figures, alive, held):
    assert capacity.probe_held(figures, 0.98, 10.0, alive) is held


def _probe(ok: bool, throughput: float, p99_ms: float, **more) -> capacity.Probe:
    figures = {"completed": 0.99, "throughput": throughput, "p50_ms": p99_ms / 2, "p99_ms": p99_ms, **more}
    return capacity.Probe(ok, figures, Outcome("pass"))


def test_the_verdict_says_graceful_and_confirmed_or_a_lower_bound_when_the_generator_caused_a_miss():
    held, busy_miss = (
        _probe(True, 1000.0, 5.0),
        _probe(False, 1500.0, 50.0, send_lag_p99_ms=8.0, client_hot_thread_cpu=99.0),
    )
    found = capacity.CapacityResult(
        1000.0, held.figures or {}, {1.5: [_probe(False, 980.0, 40.0)]}, [(1000.0, "doubling", held)]
    )
    plain = capacity.verdict(found, 10.0, 0.98, alive=True)
    assert plain.behaviour == "held (latency growth not measured)" and not plain.client_bound
    assert plain.reason.startswith(
        "capacity 1000 requests/s completed (offered 1000); beyond it: held (latency growth not measured) (98% at 1.5×"
    )
    assert plain.result["overload_factors"] == {"1.5": 1500.0} and plain.result["probes"] == [
        [1000.0, "doubling", True]
    ]
    bound = capacity.verdict(
        capacity.CapacityResult(
            1000.0, found.figures, found.overload, [*found.history, (2000.0, "doubling", busy_miss)]
        ),
        10.0,
        0.98,
        alive=True,
    )
    assert bound.client_bound and bound.reason.startswith("capacity ≥ 1000 requests/s")
    assert "capacity ≥ 1000" in bound.line("open62541", found)
    unconfirmed = capacity.CapacityResult(1000.0, found.figures, found.overload, found.history, confirmed=False)
    assert "not confirmed: it missed when probed again" in capacity.verdict(unconfirmed, 10.0, 0.98, True).reason
    assert capacity.verdict(found, 10.0, 0.98, alive=False).behaviour == "crash"


def test_the_latency_table_climbs_each_server_lightest_load_first_and_spares_it_the_heavier_ones():
    """Loads by request size, then rate, the servers of each shuffled per block; a load a
    server did not sustain skips its heavier loads of the same request size, not the others."""
    planned = [
        (server, f"{rate} × {nodes}", rate, nodes)
        for server in ("a", "b", "c")
        for rate, nodes in ((20000, 1), (1000, 1), (200, 100), (5000, 1))
    ]
    for block in range(3):
        ordered = capacity.latency_order(planned, seed=7, block=block)
        assert sorted(ordered) == sorted(planned)
        assert [(c[3], c[2]) for c in ordered] == sorted((c[3], c[2]) for c in ordered)
    orders = {tuple(c[0] for c in capacity.latency_order(planned, 7, block)[:3]) for block in range(8)}
    assert len(orders) > 1  # the servers of a load are shuffled per block
    missed = {("a", 1): (5000, "5000 × 1")}
    assert capacity.latency_skip(missed, "a", 20000, 1).startswith("not run: 5000 × 1 was not sustained")
    assert capacity.latency_skip(missed, "a", 5000, 1) is not None  # the same load in a later block
    assert capacity.latency_skip(missed, "a", 1000, 1) is None
    assert capacity.latency_skip(missed, "a", 200, 100) is None  # another request size
    assert capacity.latency_skip(missed, "b", 20000, 1) is None


def test_a_latency_cell_holds_only_when_it_passed_and_completed_its_load_in_the_window():
    full = _result([100] * 5 + [100] * 5, warmup_windows=5)  # 1000/s offered, 1000/s completed
    assert capacity.latency_held(Outcome("pass", None, full), 1000, 0.5, 0.99)
    behind = _result([100] * 5 + [50] * 5, warmup_windows=5)
    assert not capacity.latency_held(Outcome("pass", None, behind), 1000, 0.5, 0.99)
    assert not capacity.latency_held(Outcome("fail", "288 of 20000 operations failed", full), 1000, 0.5, 0.99)
