"""Resilience (issue 18): the recovery figures of one incident read from a client's record
(resilience/recovery.py) and its cell's status (resilience/runner.py), the plan, the report's
recovery table; then real incidents: real adapters, a server SIGKILLed and started again on its
port, a path cut in network namespaces."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path

import pytest
from helpers import FAULTY as FAULTY_ADAPTERS

from uabench import sdks
from uabench.engine.servers import free_port
from uabench.netpath import path as network_path
from uabench.resilience.incident import stage
from uabench.resilience.plan import ResilienceProfile
from uabench.resilience.runner import assess

TIMING = ResilienceProfile(("restart", "cut"), ("subscribe",), "clients", 2.0, 1.0, 6.0, 1, 1.0)


@dataclasses.dataclass(frozen=True)
class FixtureSdk(sdks.Sdk):
    """An SDK whose launcher is a test fixture."""

    launcher: Path = Path()

    @property
    def run(self) -> Path:
        return self.launcher


class Servers:
    """What an incident needs of a session's server pool: a server's config (no security: the
    incidents are about connections)."""

    def config(self, sdk: sdks.Sdk, **overrides) -> dict:
        return {"host": "127.0.0.1", "port": free_port(), "update_interval_ms": 100, **overrides}


class Bench:
    """What an incident needs of a benchmark session: a working directory, its server pool's
    configs, and no CPU pinning."""

    server_cpus = client_cpus = None

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = Servers()


def _no_namespaces_left() -> list[str]:
    """This process's namespaces (named by the harness's pid: a run beside it has its own)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in listed.splitlines() if line.startswith(f"uabench-{os.getpid()}-")]


def test_a_client_that_reconnects_resumes_after_a_restart(tmp_path: Path) -> None:
    """Milo's client reconnects by itself: the load resumes, the loss and the restoration are
    recorded, and the server came back on its port."""
    staged = stage(Bench(tmp_path), sdks.get("milo"), sdks.get("open62541"), "restart", "read", TIMING, 100)
    outcome, found = assess(staged, sdks.get("milo"), sdks.get("open62541"))
    assert found is not None and staged.incident is not None
    assert (outcome.status, found.verdict) == ("pass", "resumed"), outcome.reason
    assert found.detected_s is not None and 0 <= found.detected_s < 1.0
    assert found.resumed_s is not None and found.outage_s is not None and found.outage_s >= TIMING.down_s


def test_a_client_whose_sdk_gives_up_does_not_resume(tmp_path: Path) -> None:
    """open62541's client reconnects once, at the instant its connection closes, and gives up:
    after a restart it never resumes, which its sdk.toml declares (not supported, not a pass)."""
    reference = sdks.get("open62541")
    staged = stage(Bench(tmp_path), reference, reference, "restart", "subscribe", TIMING, 100)
    outcome, found = assess(staged, reference, reference)
    assert found is not None and found.verdict == "did not resume"
    assert outcome.status == "not_supported" and "reconnects only once" in (outcome.reason or "")
    undeclared = dataclasses.replace(reference, not_supported={})
    assert assess(staged, undeclared, reference)[0].status == "fail"


def test_a_server_that_cannot_take_its_port_again_fails(tmp_path: Path) -> None:
    reference = sdks.get("open62541")
    faulty = FixtureSdk(**dataclasses.asdict(reference), launcher=FAULTY_ADAPTERS / "unrestartable" / "run")
    staged = stage(Bench(tmp_path), reference, faulty, "restart", "subscribe", TIMING, 100)
    outcome, _ = assess(staged, reference, faulty)
    assert outcome.status == "fail"
    assert "could not be started again" in (outcome.reason or "") and "address already in use" in (outcome.reason or "")


@pytest.mark.skipif(network_path.unavailable() is not None, reason=f"no network path: {network_path.unavailable()}")
def test_a_cut_is_ridden_out_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """A 1 s cut is shorter than open62541's timeouts: the subscription comes back over the same
    connection (TCP retransmits) without a loss recorded, every value verified; the namespaces
    and their rules go with the test."""
    reference = sdks.get("open62541")
    before = _no_namespaces_left()
    staged = stage(Bench(tmp_path), reference, reference, "cut", "subscribe", TIMING, 100)
    outcome, found = assess(staged, reference, reference)
    assert found is not None and outcome.status == "pass", outcome.reason
    assert found.verdict in ("resumed", "resumed unnoticed")
    assert staged.outcome.result is not None and staged.outcome.result["verification"]["checked"] > 0
    assert _no_namespaces_left() == before
