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

import psutil
import pytest
from helpers.network import needs_path

from uabench.netpath import path as network_path
from uabench.netpath import profiles
from uabench.proc import cgroups, netns

needs_cgroup = pytest.mark.skipif(
    os.geteuid() != 0 or cgroups.unavailable() is not None, reason="a cgroup v1 cpu controller and root"
)


# A stand-in harness: marked, one path with its toxiproxy, one cgroup with a process in it
KILLED_HARNESS = """
import os, subprocess, sys, time
from uabench.netpath import path, profiles
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
