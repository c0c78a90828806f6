"""The robustness suite (issue 18): the survival classes and the wire framing as plain functions,
then the hostile batches (tools/uabench_tools/hostile.py, through runner.run_batch) against a purpose-built
fragile server (fixtures/fragile_opcua_server.py, a real asyncua server with one planted fault),
judged as robustness/keywords.py's Server Should Survive judges them: each fault must come out as the
outcome it stands for (crashed, hung, degraded, degraded and recovered), a healthy server as
unaffected, and a fuzz batch over a corpus recorded through robustness/recorder.py must run."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import uabench_contract as contract
from helpers import FIXTURES, start_fixture_server, stop_fixture_server

from uabench.checks import lifetimes
from uabench.engine import security_probe
from uabench.engine.servers import free_port
from uabench.robustness import runner, survival
from uabench.robustness.batches import BATCHES
from uabench.robustness.recorder import Recorder

PYTHON = security_probe.PYTHON


SERVER = FIXTURES / "fragile_opcua_server.py"


READY_S = 30.0


ANSWER_S = 20.0  # one health read by the prober (a hung server: its 2 s timeouts)


SEED = 7


needs_asyncua = pytest.mark.skipif(
    not (PYTHON.parent.parent / ".uabench-lock").exists(),
    reason="the tools are not installed (tools/.venv missing: make setup)",
)


@dataclasses.dataclass
class Fragile:
    process: subprocess.Popen
    endpoint: str
    log: Path

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


@contextlib.contextmanager
def _fragile_servers(workdir: Path) -> Iterator[Callable[[str], Fragile]]:
    """Starts fragile servers (fault by fault), each on a free port in a process group of its
    own; at the end each is stopped (SIGTERM, then SIGKILL to its group: a hung one ignores
    SIGTERM) and nothing of it is left behind."""
    started: list[subprocess.Popen] = []

    def start(fault: str) -> Fragile:
        log = workdir / f"fragile-{fault}.log"
        command = [str(PYTHON), str(SERVER), str(free_port()), fault]
        process, endpoint = start_fixture_server(command, log, f"the fragile server ({fault})")
        started.append(process)
        return Fragile(process, endpoint, log)

    try:
        yield start
    finally:
        for process in started:
            stop_fixture_server(process, "the fragile server", 3)


@pytest.fixture
def fragile(tmp_path: Path) -> Iterator[Callable[[str], Fragile]]:
    """Fragile servers of the test's own: a fault crashes, hangs, fills or slows its server, and
    the survival verdict of a sound one is judged from its resources before and after one batch."""
    with _fragile_servers(tmp_path) as start:
        yield start


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fragile]:
    """One server without faults, started once for the module's tests that only need it to answer
    and to stay up (a recorded corpus, batches that must run to their end, the lifetime proxy)."""
    with _fragile_servers(tmp_path_factory.mktemp("sound")) as start:
        yield start("none")


# The health read, in the tools' venv (tools/.venv): one line in, one JSON line out, each a fresh session that
# reads Real (1234.5, verified) five times, every request bounded by a 2 s timeout. A process
# that waits for its lines, so asyncua's import (a second or more) is paid before the batch:
# the `slow` fault's window is 3 s from its Hello.
PROBER = r"""
import asyncio, json, logging, statistics, sys, time
from asyncua import Client, ua

logging.getLogger("asyncua").setLevel(logging.CRITICAL + 1)
READS = 5

async def once(endpoint):
    client = Client(endpoint, timeout=2)
    try:
        await client.connect()
        ns = await client.get_namespace_index("urn:uabench:model")
        node = client.get_node(ua.NodeId("Real", ns))
        latencies = []
        for _ in range(READS):
            started = time.perf_counter()
            value = await node.read_value()
            latencies.append((time.perf_counter() - started) * 1e6)
            if value != 1234.5:
                return {"ok": False, "p50_us": None, "reason": f"Real read {value!r}"}
        await client.disconnect()
        return {"ok": True, "p50_us": statistics.median(latencies)}
    except Exception as error:
        client.disconnect_socket()
        return {"ok": False, "p50_us": None, "reason": f"{type(error).__name__} {error}".strip()}

for line in sys.stdin:
    try:
        found = asyncio.run(asyncio.wait_for(once(sys.argv[1]), 10))
    except Exception as error:
        found = {"ok": False, "p50_us": None, "reason": f"{type(error).__name__} {error}".strip()}
    print(json.dumps(found), flush=True)
"""


class Prober:
    def __init__(self, endpoint: str, log: Path) -> None:
        with log.open("w") as stderr:
            self.process = subprocess.Popen(
                [str(PYTHON), "-c", PROBER, endpoint],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,
            )

    def health(self) -> survival.Health:
        self.process.stdin.write("read\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_S + READY_S)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            return survival.Health(False, None, "the prober gave no answer")
        found = json.loads(line)
        return survival.Health(found["ok"], found["p50_us"], found.get("reason", ""))

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process.stdout.close()


def survive(
    server: Fragile, batch: str, cases: int, recovery_s: float, workdir: Path
) -> tuple[dict, survival.Observed, survival.Verdict]:
    """As robustness/keywords.py's server_should_survive: resources and a verified read before the
    batch, right after it and after the recovery wait, classified."""
    prober = Prober(server.endpoint, workdir / f"prober-{batch}.log")
    try:
        pid = server.process.pid
        before, baseline = runner.resources(pid), prober.health()
        assert before is not None and baseline.ok, f"no verified read before the batch: {baseline.reason}"
        found = runner.run_batch(
            server.endpoint, batch, workdir / "no-corpus.json", workdir / "reproducers", SEED, cases, 30.0
        )
        alive_after = server.alive
        after = runner.resources(pid)
        health_after = prober.health() if alive_after else None
        time.sleep(recovery_s)
        alive_recovered = server.alive
        recovered = runner.resources(pid)
        health_recovered = prober.health() if alive_recovered else None
        answering = alive_recovered and runner.answers_hello(server.endpoint)
    finally:
        prober.close()
    seen = survival.Observed(
        before, baseline, alive_after, after, health_after, alive_recovered, recovered, health_recovered, answering
    )
    return found, seen, survival.classify(seen)


@needs_asyncua
def test_crash_is_crashed_with_a_reproducer(fragile, tmp_path: Path):
    server = fragile("crash")
    found, seen, verdict = survive(server, "hello-buffers", 1, 1.0, tmp_path)
    assert verdict.outcome == "crashed", (verdict, seen)
    assert server.process.returncode == 3
    assert found["failure"] is not None, found
    assert Path(found["failure"]["reproducer"]).exists()
    assert seen.after is None and seen.health_after is None


@needs_asyncua
def test_hang_is_hung(fragile, tmp_path: Path):
    server = fragile("hang")
    found, seen, verdict = survive(server, "hello-buffers", 1, 1.0, tmp_path)
    assert verdict.outcome == "hung", (verdict, seen)
    assert server.alive
    assert found["failure"] is not None and Path(found["failure"]["reproducer"]).exists(), found


@needs_asyncua
def test_leak_is_degraded(fragile, tmp_path: Path):
    server = fragile("leak")
    found, seen, verdict = survive(server, "session-flood", 2, 1.0, tmp_path)
    assert found["failure"] is None, found
    assert found["details"]["sessions"] >= 50, found  # 2 MiB each: 100 MiB at least
    assert verdict.outcome == "degraded", (verdict, seen)
    assert "file descriptors" in verdict.reason and verdict.memory and "RSS" in verdict.memory
    assert seen.health_recovered is not None and seen.health_recovered.ok


@needs_asyncua
def test_slow_is_degraded_and_recovered(fragile, tmp_path: Path):
    server = fragile("slow")
    found, seen, verdict = survive(server, "hello-buffers", 1, 4.0, tmp_path)
    assert found["failure"] is None, found
    assert verdict.outcome == "degraded and recovered", (verdict, seen)
    assert seen.health_after is not None and seen.health_after.p50_us >= 50000, seen.health_after


@needs_asyncua
def test_no_fault_is_unaffected(fragile, tmp_path: Path):
    server = fragile("none")
    found, seen, verdict = survive(server, "hello-buffers", 1, 1.0, tmp_path)
    assert found["failure"] is None, found
    assert found["cases"] == 5 and sum(found["answers"].values()) == 5, found
    # every case got past the replayed opening to its mutated message (a replay that cannot open a
    # session would fuzz nothing but the opening)
    assert not any(kind.startswith("setup failed") for kind in found["answers"]), found
    assert verdict.outcome == "unaffected", (verdict, seen)


# The reference session the corpus is recorded from: connect, read Real, write Write_0, a
# subscription with one item, a few Publish requests (asyncua's publish loop), disconnect.
CLIENT = r"""
import asyncio, logging, sys
from asyncua import Client, ua

logging.getLogger("asyncua").setLevel(logging.CRITICAL + 1)

class Handler:
    def datachange_notification(self, node, value, data):
        pass

async def main(endpoint):
    async with Client(endpoint, timeout=5) as client:
        ns = await client.get_namespace_index("urn:uabench:model")
        assert await client.get_node(ua.NodeId("Real", ns)).read_value() == 1234.5
        await client.get_node(ua.NodeId("Write_0", ns)).write_value(ua.Variant(2.5, ua.VariantType.Double))
        subscription = await client.create_subscription(100, Handler())
        await subscription.subscribe_data_change(client.get_node(ua.NodeId("Signal_0", ns)))
        await asyncio.sleep(0.5)
        await subscription.delete()

asyncio.run(main(sys.argv[1]))
"""


def record_corpus(endpoint: str, corpus: Path) -> None:
    """The corpus of an asyncua client's read, write and subscription, recorded through the proxy."""
    with Recorder(free_port(), "127.0.0.1", urlparse(endpoint).port) as recorder:
        done = subprocess.run(
            [str(PYTHON), "-c", CLIENT, f"opc.tcp://127.0.0.1:{recorder.port}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    assert runner.corpus_problems(recorder.messages) == []
    recorder.save(corpus)


@needs_asyncua
@pytest.mark.skipif(shutil.which("zzuf") is None, reason="zzuf not installed (Debian's zzuf)")
def test_fuzz_bitflip_over_a_recorded_corpus(sound, tmp_path: Path):
    server = sound
    corpus = tmp_path / "corpus.json"
    record_corpus(server.endpoint, corpus)
    found = runner.run_batch(server.endpoint, "fuzz-bitflip", corpus, tmp_path / "reproducers", SEED, 5, 60.0)
    assert found["failure"] is None, found
    assert found["cases"] == 5 and sum(found["answers"].values()) == 5, found
    # every case got past the replayed opening to its mutated message (a replay that cannot open a
    # session would fuzz nothing but the opening)
    assert not any(kind.startswith("setup failed") for kind in found["answers"]), found
    assert server.alive


@needs_asyncua
@pytest.mark.skipif(shutil.which("zzuf") is None, reason="zzuf not installed (Debian's zzuf)")
def test_every_batch_runs_to_its_end_against_a_sound_server(sound, tmp_path: Path):
    """Each batch, once, against a server without faults: it builds and sends its cases (a bug of
    the hostile client fails its run loudly), the server answers them and is served afterwards."""
    server = sound
    corpus = tmp_path / "corpus.json"
    record_corpus(server.endpoint, corpus)
    slow = {"slowloris", "idle-connections"}  # they hold connections for a fixed 6-10 s: run apart
    for batch in [b for b in BATCHES if b not in slow]:
        found = runner.run_batch(server.endpoint, batch, corpus, tmp_path / "reproducers", SEED, 1, 30.0)
        assert found["failure"] is None and found["cases"] >= 1, (batch, found)
        assert not any(kind.startswith("setup failed") for kind in found["answers"]), (batch, found)
        assert server.alive, batch


def test_a_short_subscription_lifetime_is_read_off_the_wire(sound) -> None:
    """The lifetime check of `uabench check` (checks/lifetimes.py, SPEC §3 subscribe v8) reads a
    real client's CreateSession and CreateSubscription through the recording proxy, and finds a
    purpose-built faulty client's 3 s lifetime too short; a compliant one passes the same rule."""
    server = sound
    host, port = server.endpoint.removeprefix("opc.tcp://").split("/")[0].rsplit(":", 1)
    proxy = free_port()
    with Recorder(proxy, host, int(port)) as recorder:
        faulty = FIXTURES / "short_lifetime_client.py"
        done = subprocess.run(
            [str(PYTHON), str(faulty), f"opc.tcp://127.0.0.1:{proxy}"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr[-2000:]
        messages = [m.data for m in recorder.messages]
    asked = lifetimes.decode(messages)
    assert asked.session_timeouts_ms == [600_000.0]
    assert asked.subscriptions == [lifetimes.Subscription(100.0, 30, 10)]
    problem = contract.lifetime_problem(600_000.0, 100.0, 30, 10)
    assert problem and "3 s, shorter than 600 s" in problem
    assert contract.lifetime_problem(600_000.0, 100.0, 6000, 100) is None
    assert "below 3 x the keep-alive" in (contract.lifetime_problem(600_000.0, 100.0, 10000, 4500) or "")
    assert contract.lifetime_problem(120_000.0, 100.0, 1200, 10) is None  # a shorter session's timeout
