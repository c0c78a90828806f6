"""The CPU sizing model on synthetic stores written through the real store API, cells shaped as
the engine writes them: a known law is recovered from delivered rates, saturated points are left
out, and `uabench predict` refuses exactly where the model is not good enough."""

import itertools
import re

import pytest
import uabench_contract as contract

from uabench.cli import main
from uabench.report import plots
from uabench.report.sizing import model_section
from uabench.results import model
from uabench.results.store import open_store

SIGNAL_SWEEP = "signal rate at 100 ms"


SESSION_SWEEP = "sessions at 10000 signals/s"


def law(delivered: float, sessions: int) -> float:
    return 2.0 + 0.001 * delivered + 0.5 * sessions


def _add_point(store, run_id, sweep, parameter, signals, sessions, cpu_of, reps=3, delivered_share=0.9, cycle_ms=95):
    """One sweep point of server "open62541" measured by the reference client: the server CPU of
    each repetition is cpu_of(delivered, sessions, repetition)."""
    requested = signals * 10.0  # signals every 100 ms
    for repetition in range(reps):
        delivered = requested * delivered_share
        cpu = cpu_of(delivered, sessions, repetition)
        store.add_cell(
            run_id,
            suite="subscription",
            kind="sweep",
            client="open62541",
            server="open62541",
            variant=sweep,
            parameter=str(parameter),
            repetition=repetition,
            status="pass",
            client_config={
                "workload": "subscribe",
                "publishing_interval_ms": 100,
                "sampling_interval_ms": 100,
                "queue_size": 1,
                "sessions": sessions,
            },
            server_config={"signals": signals, "update_interval_ms": 100},
            server_resources={
                "seconds": 1.0,
                "cpu_user_s": cpu / 100,
                "cpu_system_s": 0.0,
                "cpu_percent": cpu,
                "ctx_voluntary": 10,
                "ctx_involuntary": 0,
            },
            result={
                "throughput": {"values_per_s": delivered, "ops_per_s": delivered},
                "subscription": {
                    "notifications": round(delivered),
                    "values_per_s": delivered,
                    "updates_per_subscription": {"min": 9, "max": 10},
                    "tick_gaps": 0,
                },
                "latency_ns": [],
                "cycle_time_ns": [[contract.bucket(cycle_ms * 1_000_000), 10]],
            },
        )


def _store(tmp_path, cpu_of=lambda n, s, r: law(n, s) + (0.2, -0.2, 0.0)[r], reps=3, saturated=True):
    """Signal sweep (1 session) with shares of the requested rate delivered that differ per
    point, and a session sweep at a constant rate; a saturated top point whose CPU is capped."""
    store = open_store(tmp_path / "model.sqlite")
    run_id = store.begin_run("subscription", "full", {})
    shares = itertools.cycle((0.9, 0.6, 0.8))
    for signals in (100, 500, 1000, 2000, 4000):
        _add_point(store, run_id, SIGNAL_SWEEP, signals, signals, 1, cpu_of, reps, next(shares))
    for sessions in (5, 10, 20, 30):
        _add_point(store, run_id, SESSION_SWEEP, sessions, 1000, sessions, cpu_of, reps, next(shares))
    if saturated:  # the cycle time ran over: the server could not keep up, its CPU is capped at 100 %
        _add_point(store, run_id, SIGNAL_SWEEP, 8000, 8000, 1, lambda n, s, r: 100.0, reps, 0.5, cycle_ms=250)
    store.close()
    return tmp_path / "model.sqlite"


def _sizing(path) -> model.Sizing:
    return model.find(open_store(path, readonly=True).cells(), "open62541", "client-server")


def _predict(path, capsys, rate, sessions):
    code = main(
        [
            "--store",
            str(path),
            "predict",
            "--sdk",
            "open62541",
            "--notifications-per-s",
            str(rate),
            "--sessions",
            str(sessions),
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def test_the_law_is_recovered_from_delivered_rates_and_the_saturated_point_is_left_out(tmp_path):
    sizing = _sizing(_store(tmp_path))
    assert [p.parameter for p in sizing.saturated] == ["8000"]
    assert len(sizing.used) == 9 and sum(p.repetitions for p in sizing.used) == 27 and not sizing.indicative
    fitted = sizing.delivered
    assert fitted.terms == ("1", "notifications/s", "sessions")
    assert fitted.coefficients == pytest.approx((2.0, 0.001, 0.5), abs=1e-9)  # the noise averages out per point
    assert fitted.r2 == pytest.approx(1.0) and fitted.band < 1e-6
    assert sizing.used[0].cpu_spread == pytest.approx(0.2)
    assert sizing.refusal() is None
    # Burger's requested x grows with clients^0.3 where the delivered rate is constant: it fits worse
    assert sizing.burger.r2 < 0.99 < fitted.r2


def test_the_saturated_point_would_bend_the_fit(tmp_path):
    """The exclusion matters: the same capped point judged sustained spoils the recovered law."""
    path = _store(tmp_path, saturated=False)
    store = open_store(path)
    _add_point(store, 1, SIGNAL_SWEEP, 8000, 8000, 1, lambda n, s, r: 100.0, 3, 0.5, cycle_ms=95)
    store.close()
    fitted = _sizing(path).delivered
    assert fitted.coefficients[1] != pytest.approx(0.001, rel=0.05)


def test_predict_answers_inside_the_joint_range(tmp_path, capsys):
    code, out, err = _predict(_store(tmp_path), capsys, 10000, 5)
    assert code == 0, err
    assert "predicted server CPU 14.5 ± 0.0 % of one core" in out and "R² 1.000" in out


def test_predict_refuses_outside_the_joint_range_though_each_input_is_inside_its_own(tmp_path, capsys):
    path = _store(tmp_path)
    sizing = _sizing(path)
    rates = [p.notifications_per_s for p in sizing.used]
    sessions = [p.sessions for p in sizing.used]
    assert min(rates) <= 20000 <= max(rates) and min(sessions) <= 25 <= max(sessions)  # inside the box
    code, out, err = _predict(path, capsys, 20000, 25)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "outside the measured joint range" in err
    code, _, err = _predict(path, capsys, 100000, 1)
    assert code == 2 and "outside the measured range" in err


def _per_point(values):
    """cpu_of giving each new point the next of `values` (cycled), the same to its repetitions."""
    cycle, by_point = itertools.cycle(values), {}

    def cpu_of(n, s, r):
        if (n, s) not in by_point:
            by_point[(n, s)] = next(cycle)
        return by_point[(n, s)]

    return cpu_of


def test_predict_refuses_a_model_with_low_r2(tmp_path, capsys):
    # CPU unrelated to the load: alternating between two levels from point to point
    path = _store(tmp_path, cpu_of=_per_point((5.0, 40.0)))
    assert _sizing(path).delivered.r2 < model.MIN_R2
    code, out, err = _predict(path, capsys, 10000, 5)
    assert code == 2 and not out and err.count("\n") == 1 and "R²" in err and "< 0.9" in err


def test_predict_refuses_a_wide_band(tmp_path, capsys):
    # the law holds on average but each point is off by ± 6 pp: R² stays high, held-out errors do not
    offset = _per_point((6.0, -6.0, 6.0, 6.0, -6.0, -6.0))
    path = _store(tmp_path, cpu_of=lambda n, s, r: law(n, s) * 3 + offset(n, s, r))
    fitted = _sizing(path).delivered
    assert fitted.r2 >= model.MIN_R2 and fitted.band > model.MAX_BAND_PP
    code, out, err = _predict(path, capsys, 10000, 5)
    assert code == 2 and not out and err.count("\n") == 1 and "band" in err


def test_points_with_fewer_than_three_repetitions_are_not_used(tmp_path, capsys):
    path = _store(tmp_path, reps=2)
    sizing = _sizing(path)
    assert not sizing.used and len(sizing.under_repeated) == 9 and sizing.indicative
    code, _, err = _predict(path, capsys, 10000, 5)
    assert code == 2 and "with >= 3 repetitions, need 5" in err


def test_model_command_states_points_repetitions_and_both_forms(tmp_path, capsys):
    assert main(["--store", str(_store(tmp_path)), "model"]) == 0
    out = capsys.readouterr().out
    assert "9 points with >= 3 repetitions used (27 repetitions), 0 with fewer, 1 saturated excluded" in out
    assert "delivered" in out and "burger" in out and "predict: answers" in out


def test_the_report_section_shows_the_fit_its_points_and_the_verdict(tmp_path):
    section = model_section(open_store(_store(tmp_path), readonly=True).cells())
    [table] = section.tables
    rows = {r[table.column("form")].value.split(":")[0]: r for r in table.rows}
    used = rows["delivered"]
    assert used[table.column("excluded: saturated")].value == 1
    assert used[table.column("points used (repetitions)")].value == "9 (27)"
    assert used[table.column("predict")].value == "answers"
    assert rows["burger"][table.column("predict")].value == "compared only"
    [figure] = section.figures
    [series] = figure.series
    assert len(series.points) == 9  # the saturated point is not drawn as fitted
    assert series.fitted == pytest.approx((2.5, 0.001))  # the line at one session
    svg = plots.svg(figure, plots.palette([]), "m")
    assert len(re.findall(r'<g id="m-\d+-open62541-fit">', svg)) == 1


def _pubsub_cell(signals: int, lost: int, cpu: float) -> dict:
    return {
        "kind": "pubsub-sweep",
        "variant": "signal rate",
        "server": "open62541",
        "client": "open62541",
        "parameter": str(signals),
        "status": "pass",
        "client_config": {"publishing_interval_ms": 100, "signals": signals},
        "server_resources": {"seconds": 1.0, "cpu_percent": cpu},
        "result": {
            "config": {"publishing_interval_ms": 100, "signals": signals},
            "throughput": {"values_per_s": signals * 10.0, "ops_per_s": 10.0},
            "pubsub": {"messages": 10, "lost": lost},
            "cycle_time_ns": [[contract.bucket(100_000_000), 10]],
        },
    }


def test_a_pubsub_point_is_fitted_only_when_every_repetition_held(tmp_path):
    """The held rule per repetition: one repetition that lost messages puts the point at the
    limit (no max-of-N); its publisher CPU is not fitted."""
    store = open_store(tmp_path / "pubsub.sqlite")
    run_id = store.begin_run("pubsub", "full", {})
    for signals, lost in ((1000, 0), (10000, 0), (20000, 0), (50000, 0), (100000, 3)):
        for repetition in range(3):
            cell = _pubsub_cell(signals, lost if repetition == 1 else 0, 1.0 + signals / 1000)
            store.add_cell(run_id, suite="pubsub", repetition=repetition, **cell)
    store.close()
    sizing = model.find(open_store(tmp_path / "pubsub.sqlite", readonly=True).cells(), "open62541", "pubsub")
    assert [p.signals for p in sizing.saturated] == [100000] and len(sizing.used) == 4
    assert sizing.delivered.terms == ("1", "notifications/s")  # one publisher: no sessions term
    assert sizing.delivered.coefficients == pytest.approx((1.0, 0.0001))
    assert sizing.refusal() is None and sizing.outside(20000 * 10, 1) is None
    assert "outside the measured range" in sizing.outside(20000 * 10, 2)
