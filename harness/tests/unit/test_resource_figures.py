"""Resource figures read from stored cells: context switches from one source (perf where it
counted, else the sampler's /proc counters), named in the CSV with the hot threads and the
samplers' own CPU."""

import csv
import io
import time

from uabench.proc import host
from uabench.report.files import cells_csv
from uabench.results import figures

PROC = {
    "seconds": 2.0,
    "ctx_voluntary": 300.0,
    "ctx_involuntary": 100.0,
    "cpu_percent": 50.0,
    "cpu_user_s": 0.8,
    "cpu_system_s": 0.2,
}
PERF = {"seconds": 1.0, "context_switches": 1000.0, "cycles": None, "instructions": None}


def test_perf_is_the_one_source_where_it_counted():
    assert figures.context_switches(PROC, PERF) == (1000.0, figures.PERF_SWITCHES)


def test_the_proc_counters_stand_in_where_perf_did_not_count():
    for perf in (None, {}, {**PERF, "context_switches": None}):  # no perf, or an unsupported counter
        assert figures.context_switches(PROC, perf) == (200.0, figures.PROC_SWITCHES)
    assert figures.context_switches(None, None) == (None, None)
    assert figures.context_switches({"seconds": 0.0}, None) == (None, None)


def _cell(server_resources, server_perf, client_resources=None):
    return {
        "run_id": 1,
        "kind": "throughput",
        "client": "open62541",
        "server": "open62541",
        "status": "pass",
        "repetition": 0,
        "client_bound": False,
        "result": {"throughput": {"ops_per_s": 100.0, "values_per_s": 100.0}, "latency_ns": []},
        "server_resources": server_resources,
        "server_perf": server_perf,
        "client_resources": client_resources,
    }


def test_the_efficiency_figure_and_the_csv_read_the_same_source():
    cells = [_cell(PROC, PERF)]
    assert figures.efficiency(cells)["ctx"] == 1000.0 / 100.0
    row = next(csv.DictReader(io.StringIO(cells_csv(cells))))
    assert float(row["server_context_switches_per_s"]) == 1000.0
    assert row["context_switches_source"] == figures.PERF_SWITCHES
    without_perf = next(csv.DictReader(io.StringIO(cells_csv([_cell(PROC, None)]))))
    assert float(without_perf["server_context_switches_per_s"]) == 200.0
    assert without_perf["context_switches_source"] == figures.PROC_SWITCHES


def test_the_csv_carries_hot_threads_and_the_samplers_cpu():
    server = {**PROC, "hot_thread": "worker", "hot_thread_cpu": 40.0, "sampler_cpu_percent": 1.5, "cpu_source": "x"}
    client = {**PROC, "hot_thread": "main", "hot_thread_cpu": 90.0, "sampler_cpu_percent": 1.0}
    row = next(csv.DictReader(io.StringIO(cells_csv([_cell(server, PERF, client)]))))
    assert (row["server_hot_thread"], row["client_hot_thread"]) == ("worker", "main")
    assert float(row["client_hot_thread_cpu"]) == 90.0
    assert float(row["sampler_cpu_percent"]) == 2.5
    assert row["cpu_source"] == "x"
    old = next(csv.DictReader(io.StringIO(cells_csv([_cell(PROC, PERF, PROC)]))))  # a store from before
    assert old["sampler_cpu_percent"] == "" and old["client_hot_thread"] == ""


def test_the_samplers_cpu_adds_the_host_sampler_and_is_none_without_sampling():
    cell = _cell({"sampler_cpu_percent": 1.5}, None, {"sampler_cpu_percent": 1.0})
    cell["result"]["host"] = {"sampler_cpu_percent": 0.5}
    assert figures.sampler_cpu(cell) == 3.0
    assert figures.sampler_cpu(_cell(None, None, None)) is None  # sampling off: no figure, not 0


def test_the_host_sampler_measures_its_own_thread():
    with host.HostSampler() as sampler:
        start = time.time_ns()
        time.sleep(0.8)
        end = time.time_ns()
    window = sampler.window(start, end)
    assert window is not None and window["sampler_cpu_percent"] > 0
