"""Sweep limits in the report: what the sweep's verdict cell recorded (engine.search:
"≥ X (grid limit)" when the top point held, else the limit and its bracket) is printed in the
sweep section, the summary, the HTML page and the JSON and CSV exports; a store from before
verdicts claims no limit. The stores are written through the real Store API, the verdicts by the
real sweep (engine.search) over chosen points."""

import csv
import io
import json

from uabench_contract import Histogram

from uabench.document.model import Report
from uabench.engine import search
from uabench.engine.cells import Outcome
from uabench.report import files, html, markdown
from uabench.report.pubsub import client_server_signal_points, pubsub_section
from uabench.report.sections import sweep_section
from uabench.report.summary import summary_section
from uabench.results import compare, stats, sustain
from uabench.results.store import open_store

SWEEP = "signal rate at 100 ms"
PLAN = {"sweeps": {SWEEP: {"kind": "signals", "workload": "subscribe"}}}


def _result(signals: int, cycle_ms: float, gaps: int = 0) -> dict:
    cycles = Histogram()
    for _ in range(10):
        cycles.record(int(cycle_ms * 1e6))
    notifications = signals * 12
    return {
        "config": {"workload": "subscribe", "publishing_interval_ms": 100, "sampling_interval_ms": 100},
        "throughput": {"values_per_s": signals * 10.0, "ops_per_s": signals * 10.0},
        "latency_ns": [],
        "cycle_time_ns": cycles.sparse(),
        "subscription": {
            "notifications": notifications,
            "values_per_s": signals * 10.0,
            "updates_per_subscription": {"min": 12, "max": 12},
            "tick_gaps": gaps,
        },
        "values": notifications,
        "operations": {"attempted": notifications, "succeeded": notifications, "failed": 0},
        "verification": {"checked": notifications, "failed": 0},
    }


class _Recorder:
    """What engine.search.record_limit needs of a RunRecorder: its suite and its cell writer."""

    suite = "subscription"

    def __init__(self, store, run_id: int) -> None:
        self.store, self.run_id = store, run_id

    def add_cell(self, **cell) -> int | None:
        return self.store.add_cell(self.run_id, **cell)


def _store(tmp_path, with_verdicts: bool = True):
    """Server "a" holds every point (a grid limit); "b" holds 100, misses 1000 by its tick gaps
    (a cycle time that looks fine), and the bisection finds 316 held."""
    store = open_store(tmp_path / "limits.sqlite")
    run_id = store.begin_run("subscription", "quick", {"plan": PLAN})
    answers = {
        "a": lambda n: _result(n, 100),
        "b": lambda n: _result(n, 100) if n < 500 else _result(n, 100, gaps=n * 4),
    }
    for server, answer in answers.items():

        def measure(value, repetition, server=server, answer=answer):
            result = answer(value)
            store.add_cell(
                run_id,
                suite="subscription",
                kind="sweep",
                client="open62541",
                server=server,
                variant=SWEEP,
                parameter=str(value),
                repetition=repetition,
                status="pass",
                client_config=result["config"],
                result=result,
            )
            return Outcome("pass", None, result)

        found = search.sweep(
            [100, 1000, 5000],
            measure,
            1,
            search.StopRule(lambda _, outcomes: sustain.judge([o.result for o in outcomes]).held),
            bisection=search.Bisection(0.1, 1),
        )
        if with_verdicts:
            search.record_limit(_Recorder(store, run_id), "sweep-verdict", "open62541", server, SWEEP, found, "signals")
    return store, run_id


GRID = "≥ 5,000 signals (50,000 signals/s delivered) (grid limit: the sweep's top point held)"
BISECTED = (
    "limit 316 signals (3,160 signals/s delivered), between 316 held and 1,000 missed "
    "(bisected in 1 step, 10% resolution not reached)"
)


def _rendered(store, run_id) -> tuple[str, str, list[dict]]:
    """The sweep section and the summary as Markdown and HTML, and the run's cells."""
    [run] = [r for r in store.runs() if r["id"] == run_id]
    cells = store.cells([run_id])
    sections = [summary_section([run], {run_id: cells}), sweep_section(run, cells, SWEEP, PLAN["sweeps"][SWEEP])]
    report = Report("t", [s for s in sections if s])
    return markdown.render(report), html.render(report), cells


def test_the_limits_are_printed_everywhere_as_the_verdicts_recorded_them(tmp_path):
    store, run_id = _store(tmp_path)
    text, page, cells = _rendered(store, run_id)
    assert f"a {GRID}" in text and f"b {BISECTED}" in text
    assert "≥ 50,000" in text  # the summary's figure for a grid limit is a lower bound
    assert "between 316 held and 1,000 missed" in page and "(grid limit: the sweep" in page
    exported = json.loads(json.dumps(cells))
    verdicts = {c["server"]: c["result"] for c in exported if c["kind"] == "sweep-verdict"}
    assert verdicts["a"]["found"] == "grid limit" and verdicts["a"]["missed"] is None
    assert (verdicts["b"]["found"], verdicts["b"]["held"], verdicts["b"]["missed"]) == ("bisected", 316, 1000)
    rows = list(csv.DictReader(io.StringIO(files.cells_csv(cells))))
    assert {r["reason"] for r in rows if r["kind"] == "sweep-verdict"} == {GRID, BISECTED}


def test_a_store_without_verdicts_claims_no_limit(tmp_path):
    store, run_id = _store(tmp_path, with_verdicts=False)
    text, _, _ = _rendered(store, run_id)
    assert "no limit recorded in this run, so none is claimed" in text and "grid limit" not in text


def _pubsub_cell(signals: int, kind: str = "pubsub-sweep") -> dict:
    result = _result(signals, 100)
    result["config"] = {"publishing_interval_ms": 100, "signals": signals}
    result["pubsub"] = {"messages": 12, "lost": 0, "datagrams": 12, "max_datagram_bytes": 4 * signals}
    return {
        "kind": kind,
        "variant": "signal rate",
        "server": "open62541",
        "client": "open62541",
        "parameter": str(signals),
        "repetition": 0,
        "status": "pass",
        "client_bound": False,
        "result": result,
    }


def test_the_pubsub_comparison_shows_a_grid_limit_as_a_lower_bound_and_no_ratio_of_it(tmp_path):
    found = search.sweep([100, 1000], lambda v, r: Outcome("pass", None, _pubsub_cell(v)["result"]), 1, None)
    found.limit = sustain.Limit(1000, None)
    verdict = search.limit_verdict(found, "signals")
    cells = [_pubsub_cell(100), _pubsub_cell(1000)]
    cells.append({**_pubsub_cell(1000, "pubsub-sweep-verdict"), "reason": verdict["text"], "result": verdict})
    store, run_id = _store(tmp_path)
    [run] = [r for r in store.runs() if r["id"] == run_id]
    client_server = client_server_signal_points([run], {run_id: store.cells([run_id])})
    text = markdown.render(Report("t", [pubsub_section(cells, client_server)]))
    [line] = [row for row in text.splitlines() if row.startswith("| open62541 |") and "grid limit" in row]
    assert "| ≥ 10,000 (grid limit) |" in line and "– (a grid limit: a lower bound)" in line


def test_compare_takes_the_sustained_figure_at_the_recorded_limit_with_its_bracket(tmp_path):
    store, run_id = _store(tmp_path)
    [run] = [r for r in store.runs() if r["id"] == run_id]
    found = {
        f.server: f for f in compare.run_figures(run, store.cells([run_id])) if f.name.startswith("sustained signals/s")
    }
    assert found["a"].detail == GRID and found["b"].detail == BISECTED
    assert found["b"].estimate.center == 3160.0  # the held point's figure, not the top of the grid
    # and what the sweep knows of the limit: at least the held rate, below the missed point's
    assert (found["b"].estimate.low, found["b"].estimate.high) == (3160.0, 10000.0)
    assert (found["a"].estimate.low, found["a"].estimate.high) == (50000.0, float("inf"))  # a lower bound


def test_a_limit_that_moved_one_grid_step_between_two_runs_is_inconclusive_not_faster():
    """28 Nov, two make bench runs of one commit: Milo's limit 2,236 signals (held, 5,000 missed)
    in one, the top point 5,000 held in the other. Judged by the repetitions at the two held
    points the change was "faster", +124 % at an interval of zero width; the brackets overlap."""

    def at(rate):
        return stats.Estimate(rate, rate, rate, 3, 0.0, (rate, rate, rate), "median")

    a = compare._bracketed(at(22360.0), sustain.Limit(2236, 5000, 1))
    b = compare._bracketed(at(50000.0), sustain.Limit(5000, None))
    assert compare.judge(at(22360.0), at(50000.0), margin=0.6).verdict == compare.FASTER  # the held points
    assert compare.judge(a, b, margin=0.6).verdict == compare.INCONCLUSIVE
    assert compare.judge(a, a, margin=0.6).verdict == compare.INCONCLUSIVE  # one bracket 2.2x wide: not "same"
    narrow = compare._bracketed(at(22360.0), sustain.Limit(2236, 2400, 3))
    assert compare.judge(narrow, narrow, margin=0.1).verdict == compare.SAME
