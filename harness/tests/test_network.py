"""The network suite's parts outside the SDKs: profiles and plans refused with their key, the
paper's statistics on series whose answer is known, and paths (namespaces, tbf, iptables,
toxiproxy) and cgroups that leave nothing behind, also when the harness is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import psutil
import pytest

from uabench import plan as plans
from uabench.network import analysis, profiles
from uabench.network import path as network_path
from uabench.proc import cgroups, netns

# --- profiles and plans ---------------------------------------------------------------------


def test_every_shipped_profile_loads_and_names_its_paper_environment():
    names = profiles.names()
    assert {"loopback", "ethernet", "wifi", "lossy-wifi", "3g"} <= set(names)
    for name in names:
        profile = profiles.load(name)
        assert profile.name == name and profile.description
    assert profiles.load("3g").paper == "3G-VPN" and profiles.load("3g").delay_ms > profiles.load("wifi").delay_ms


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('name = "bad"\ndelay_ms = 5\nproxy = false\n', "delay_ms and jitter_ms need proxy = true"),
        ('name = "bad"\nproxy = true\ndelay_ms = 5\njitter_ms = 6\n', "key 'jitter_ms' (6) above delay_ms"),
        ('name = "bad"\nproxy = true\nloss_percent = 60\n', "key 'loss_percent' must be a number in [0, 50]"),
        ('name = "bad"\nproxy = true\nup_kbit = 2.5\n', "key 'up_kbit' must be an integer"),
        ('name = "bad"\nlatency = 5\n', "unknown key 'latency'"),
        ('name = "other"\n', "key 'name' must be the file's name"),
    ],
)
def test_a_bad_profile_is_refused_naming_its_key(tmp_path, text, says):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(profiles.ProfileError, match=None) as caught:
        profiles.load(str(path))
    assert says in str(caught.value)


def test_an_unknown_profile_names_the_profiles_there_are():
    with pytest.raises(profiles.ProfileError, match="no network profile 'moon'.*3g"):
        profiles.load("moon")


def _plan_text(**changes: str) -> str:
    text = (plans.PLANS / "network.toml").read_text()
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {'networks = ["ethernet", "3g"]': 'networks = ["ethernet", "5g"]'},
            "profiles.smoke.network.networks: no network profile '5g'",
        ),
        ({"requests = 30": "requests = 3"}, "profiles.smoke.network.requests must be an integer in [10, 1e+06]"),
        ({"cpu_limits = [0.25]": "cpu_limits = [0]"}, "profiles.smoke.network.cpu_limits must be a list of cores"),
        (
            {'constrained_scenario = "C"': 'constrained_scenario = "E"'},
            "network.constrained_scenario must name a scenario",
        ),
        ({"think_ms = 10": "think_ms = 10\nthink = 5"}, "unknown key 'profiles.smoke.network.think'"),
        ({'reference_server = "open62541"': 'reference_server = "nope"'}, "nope"),
    ],
)
def test_a_bad_network_plan_is_refused_naming_its_key(tmp_path, change, says):
    path = tmp_path / "network.toml"
    path.write_text(_plan_text(**change))
    with pytest.raises(plans.PlanError) as caught:
        plans.load(path)
    assert says in str(caught.value)


def test_the_network_plan_has_one_test_per_network_limit_client_and_network():
    plan = plans.load("network")
    cases = plans.test_cases(plan, ["open62541"], "quick")
    keywords = [c.keyword for c in cases]
    assert keywords.count("RTD Over Network Should Be Measured") == 3
    assert keywords.count("RTD On A Constrained Host Should Be Measured") == 3  # ½ and ¼ isolated, ¼ beside a load
    assert keywords.count("Network Interop Should Pass") == 1
    assert keywords.count("Subscriptions Over Network Should Be Measured") == 3


# --- the paper's statistics -----------------------------------------------------------------


def test_table_ii_figures_and_formula_1():
    ms = [2.0, 3.0, 4.0, 100.0]
    stats = analysis.rtd_stats([int(v * 1e6) for v in ms], nodes=30)
    assert stats is not None
    assert stats.count == 4 and stats.min_ms == 2.0 and stats.max_ms == 100.0
    assert stats.mean_ms == pytest.approx(27.25) and stats.sd_ms == pytest.approx(np.std(ms, ddof=1))
    assert stats.throughput_kbps == pytest.approx(128 * 30 / 27.25)  # bits per ms = kbit/s
    assert stats.outliers == {5: 1, 10: 1, 20: 1}
    assert analysis.rtd_stats([], 1) is None


def test_peaks_follow_equations_2_and_3():
    rtd = [1, 1, 6, 1, 12, 25]
    cpu = [90, 10, 70, 90, 30, 95]
    x = analysis.rtd_peaks(rtd, 5)
    assert x.tolist() == [0, 0, 1, 0, 1, 1]
    # equation (3): a CPU peak only where the RTD peaked, whatever the load elsewhere
    assert analysis.cpu_peaks(cpu, x, 50).tolist() == [0, 0, 1, 0, 0, 1]


def test_kulczynski_2_is_the_mean_of_both_conditional_probabilities():
    x = np.array([1, 1, 1, 1, 0, 0])
    y = np.array([1, 1, 0, 0, 1, 0])
    # a = 2, b = 2, c = 1: (2/4 + 2/3) / 2
    assert analysis.kulczynski_2(x, y) == pytest.approx((0.5 + 2 / 3) / 2)
    assert analysis.kulczynski_2(x, np.zeros(6, dtype=int)) is None


def test_correlations_find_peaks_that_go_with_load_and_not_those_that_do_not():
    rng = np.random.default_rng(7)
    rtd = rng.integers(1_000_000, 2_000_000, 1000)
    load = rng.uniform(0, 30, 1000)
    loaded = rng.choice(1000, 60, replace=False)
    rtd[loaded] = 30_000_000  # every peak ...
    load[loaded] = 90  # ... while the CPU was busy
    together = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), load.tolist())}
    assert together[(5, 40)].pearson == pytest.approx(1.0) and together[(5, 40)].p_value < 1e-10
    # the same peaks with the load elsewhere: no CPU peak coincides, nothing to correlate
    load_elsewhere = np.roll(load, 500)
    load_elsewhere[loaded] = 5
    apart = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), load_elsewhere.tolist())}
    assert apart[(5, 40)].cpu_peaks == 0 and apart[(5, 40)].pearson is None
    # a saturated server: the load is high at every request, so equation (3) copies the RTD
    # peaks (PEA 1 by construction) while the peaks say nothing about the load
    saturated = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), [95.0] * 1000)}
    assert saturated[(5, 40)].pearson == pytest.approx(1.0) and saturated[(5, 40)].kulczynski == pytest.approx(1.0)
    assert saturated[(5, 40)].pearson_load is None and saturated[(5, 40)].loaded == 1000
    assert together[(5, 40)].pearson_load == pytest.approx(1.0)
    with pytest.raises(ValueError, match="1000 RTDs but 999 CPU loads"):
        analysis.correlations(rtd.tolist(), load.tolist()[:-1])


def test_cpu_at_requests_integrates_the_samples_over_each_round_trip():
    # a process using half a core from 0 to 1 s, then a whole one (cumulative ns per 10 ms)
    samples = [
        (t, t // 2 if t <= 1_000_000_000 else 500_000_000 + (t - 1_000_000_000))
        for t in range(0, 2_000_000_001, 10_000_000)
    ]
    loads = analysis.cpu_at_requests([100_000_000, 1_500_000_000, 1_990_000_000], [50_000_000] * 3, samples, 20_000_000)
    assert loads[0] == pytest.approx(50.0) and loads[1] == pytest.approx(100.0)
    assert loads[2] is None  # its window ends after the last sample


# --- paths and cgroups: real namespaces, qdiscs, rules, toxiproxy -----------------------------

needs_path = pytest.mark.skipif(network_path.unavailable() is not None, reason=str(network_path.unavailable()))
needs_cgroup = pytest.mark.skipif(
    os.geteuid() != 0 or cgroups.unavailable() is not None, reason="a cgroup v1 cpu controller and root"
)


def _echo_rtds(path: network_path.NetworkPath, count: int) -> list[float]:
    server = subprocess.Popen(
        [*path.server_prefix(), sys.executable, "-m", "uabench.network.echo", "serve", path.server_address, "41000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline().strip() == "ready"
        path.forward(41000)
        done = subprocess.run(
            [
                *path.client_prefix(),
                sys.executable,
                "-m",
                "uabench.network.echo",
                "measure",
                path.server_address,
                "41000",
                str(count),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return [v / 1e6 for v in json.loads(done.stdout)["rtd_ns"]]
    finally:
        server.kill()
        server.wait()


@needs_path
def test_a_path_adds_its_profiles_delay_and_leaves_nothing_behind(tmp_path):
    shaped = profiles.Profile(
        "test", "20 ms each way", proxy=True, delay_ms=20, up_kbit=10000, down_kbit=10000, loss_percent=0.01
    )
    with network_path.NetworkPath(shaped) as path:
        rtds = _echo_rtds(path, 10)
        names, proxy = (path.client, path.server), path.proxy
        qdiscs = subprocess.run(
            [*path.client_prefix(), "tc", "qdisc", "show", "dev", "eth0"], capture_output=True, text=True
        ).stdout
        rules = subprocess.run(
            [*path.server_prefix(), "iptables", "-S", "INPUT"], capture_output=True, text=True
        ).stdout
    assert min(rtds) >= 40.0, rtds  # toxiproxy's latency on both directions
    assert "tbf" in qdiscs and "statistic" in rules
    assert not set(names) & set(netns.namespaces())
    assert isinstance(proxy, subprocess.Popen) and proxy.poll() is not None
    with network_path.NetworkPath(profiles.load("loopback")) as plain:
        assert max(_echo_rtds(plain, 10)) < 40.0  # the same path without the toxic is not slow


# A stand-in harness: marked, one path with its toxiproxy, one cgroup with a process in it
KILLED_HARNESS = """
import os, subprocess, sys, time
from uabench.network import path, profiles
from uabench.proc import cgroups, cleanup, launcher
cleanup.install()
launcher.mark_harness()
p = path.NetworkPath(profiles.load("3g")).up()
limit = cgroups.CpuLimit(0.5).__enter__() if cgroups.unavailable() is None and os.geteuid() == 0 else None
if limit:
    child = subprocess.Popen(["sleep", "600"], preexec_fn=launcher.preexec(), start_new_session=True)
    cleanup.adopt(child)
    limit.add(child.pid)
print(p.client, p.server, p.proxy.pid, limit.path.name if limit else "-", flush=True)
time.sleep(600)
"""


def _killed_harness(env: dict) -> tuple[str, str, str]:
    """A harness with a network path and a CPU limit, killed with SIGKILL: its client and server
    namespaces and its cgroup ("-" without one), which it could not remove."""
    harness = subprocess.Popen([sys.executable, "-c", KILLED_HARNESS], stdout=subprocess.PIPE, text=True, env=env)
    assert harness.stdout is not None
    client, server, proxy, cgroup = harness.stdout.readline().split()
    proxy_process = psutil.Process(int(proxy))
    harness.send_signal(signal.SIGKILL)
    harness.wait(timeout=10)
    gone, alive = psutil.wait_procs([proxy_process], timeout=10)
    assert not alive, "toxiproxy outlived its harness"
    return client, server, cgroup


@needs_path
def test_a_killed_harness_leaves_no_proxy_and_the_next_invocation_removes_its_namespaces_and_cgroup(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "UABENCH_HARNESS"}
    check_command = [sys.executable, "-m", "uabench.cli", "--store", str(tmp_path / "none.sqlite"), "check"]
    left = []
    # A uabench running beside this test (make test's smoke run) removes every stale namespace
    # as its own network paths and hosts come up, so it may take these before the check sees
    # them: then the check has nothing to name, and the scenario runs again (at most 3 times).
    # A check that removed them without naming them fails all three.
    for _ in range(3):
        client, server, cgroup = _killed_harness(env)
        left.append(cgroup)
        check = subprocess.run(check_command, capture_output=True, text=True, env=env, timeout=120)
        line = next((x for x in check.stderr.splitlines() if x.startswith("uabench: a killed harness left: ")), "")
        assert not {client, server} & set(netns.namespaces()), check.stderr
        if client in line and server in line:
            break
    else:
        pytest.fail(f"the check never named the namespaces it found: {check.stderr}")
    for cgroup in (c for c in left if c != "-"):
        deadline = time.monotonic() + 10
        while (cgroups.ROOT / cgroup).exists() and time.monotonic() < deadline:
            subprocess.run(check_command, capture_output=True, env=env, timeout=120)
            time.sleep(0.5)
        assert not (cgroups.ROOT / cgroup).exists()


@needs_path
def test_sigterm_removes_the_path_at_once():
    env = {k: v for k, v in os.environ.items() if k != "UABENCH_HARNESS"}
    harness = subprocess.Popen([sys.executable, "-c", KILLED_HARNESS], stdout=subprocess.PIPE, text=True, env=env)
    assert harness.stdout is not None
    client, server, proxy, cgroup = harness.stdout.readline().split()
    harness.send_signal(signal.SIGTERM)
    harness.wait(timeout=30)
    assert not {client, server} & set(netns.namespaces())
    assert not psutil.pid_exists(int(proxy)) or psutil.Process(int(proxy)).status() == psutil.STATUS_ZOMBIE
    assert cgroup == "-" or not (cgroups.ROOT / cgroup).exists()


@needs_cgroup
def test_a_cpu_limit_holds_a_busy_process_to_its_quota():
    with cgroups.CpuLimit(0.25) as limit:
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            limit.add(busy.pid)
            process = psutil.Process(busy.pid)
            before = sum(process.cpu_times()[:2])
            time.sleep(1.0)
            used = sum(process.cpu_times()[:2]) - before
        finally:
            busy.kill()
            busy.wait()
        assert limit.throttled()["nr_throttled"] > 0
        path = limit.path
    assert used < 0.5, f"{used:.2f} s of CPU in 1 s under a quarter-core quota"
    assert path is not None and not path.exists()


def test_a_cpu_limit_outside_its_range_is_refused():
    with pytest.raises(cgroups.CgroupError, match="a CPU limit of 0 cores"):
        cgroups.CpuLimit(0).__enter__()
