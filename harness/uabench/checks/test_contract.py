"""The contract checks an adapter must pass (adapters/SPEC.md §7), one set per SDK
(`uabench check <sdk>`). Every check runs the real adapter against a real reference SDK."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uabench_contract as contract

from uabench import plan, sdks
from uabench.checks import lifetimes
from uabench.engine.servers import free_port
from uabench.engine.session import Session
from uabench.footprint import nodesets as footprint_nodesets
from uabench.footprint import runner as footprint_runner
from uabench.footprint import suite as footprint_suite
from uabench.results.store import open_store
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError

ALL_NODES = [
    *plan.signals(10),
    "Signal_999",
    "Tick",
    "Real",
    "Page",
    "SDD",
    "Image",
    "Array_10",
    "Array_10000",
    "Write_0",
    "Write_99",
]
UNREACHABLE_LIMIT_S = 20.0
# requests/s of the send-lag check: far below every client's capacity, so the client sends
# every measured request (none is left unsent for the lag to miss)
OPEN_LOOP_RATE = 200.0
SECURE = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}


def _workload(kind: str, nodes: list[str], per_request: int, **extra) -> dict:
    return {
        "workload": kind,
        "nodes": nodes,
        "nodes_per_request": per_request,
        "in_flight": 2,
        "warmup_s": 0.2,
        "duration_s": 0.6,
        **extra,
    }


@pytest.fixture(scope="module")
def workdir(sdk: Sdk, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp(f"check-{sdk.id}")


@pytest.fixture(scope="module")
def session(workdir: Path) -> Iterator[Session]:
    """A throw-away run of its own: contract checks are not measurements."""
    checking = Session(open_store(workdir / "check.sqlite"), "check", "check", workdir=workdir / "run")
    yield checking
    checking.close()
    checking.store.close()


@pytest.fixture(scope="module")
def reference(sdk: Sdk) -> Sdk:
    """The other side of interop checks: the reference client's SDK, else any other SDK; not one
    this SDK's server declares it never gives a session, nor one whose server refuses this SDK's
    client (sdk.toml [interop] refused)."""
    others = [
        s
        for s in sdks.all_sdks()
        if s.base != sdk.base and sdk.refuses(s.id) is None and s.refuses(sdk.id) is None  # either way round
    ]
    preferred = plan.reference_client()
    return next((s for s in others if s.id == preferred), others[0] if others else sdk)


def _passing_result(
    session: Session, client: Sdk, server_sdk: Sdk, workload: dict, security: dict | None = None
) -> dict:
    try:
        server = session.pool.get(server_sdk, warm=False)  # a check judges answers, not figures: no warm-up
        outcome = session.run_client(client, server, session.client_config(server, workload, security))
    except AdapterError as error:
        pytest.fail(str(error), pytrace=False)
    assert outcome.status == "pass", outcome.reason or outcome.status
    return outcome.result or {}


def _passes(session: Session, client: Sdk, server_sdk: Sdk, workload: dict, security: dict | None = None) -> str:
    result = _passing_result(session, client, server_sdk, workload, security)
    return f"{result['operations']['succeeded']} requests, {result['verification']['checked']} values verified"


def _last_event(stdout: str) -> dict | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


# --- the checks ------------------------------------------------------------------------------


def test_capabilities_agree_with_sdk_toml(sdk: Sdk, record_property) -> None:
    try:
        caps = sdks.capabilities(sdk)
    except sdks.AdapterBroken as error:
        pytest.fail(str(error), pytrace=False)
    problems = [
        f"missing key '{key}'" for key in ("sdk", "version", "roles", "workloads", "security") if key not in caps
    ]
    if caps.get("sdk") != sdk.base:
        problems.append(f"sdk is {caps.get('sdk')!r}, sdk.toml says {sdk.base!r}")
    if str(caps.get("version")) != sdk.version:
        problems.append(f"version is {caps.get('version')!r}, sdk.toml pins {sdk.version!r}")
    if sorted(caps.get("roles", [])) != sorted(sdk.roles):
        problems.append(f"roles {caps.get('roles')} differ from sdk.toml {list(sdk.roles)}")
    if sorted(caps.get("workloads", [])) != sorted(sdk.workloads):
        problems.append(f"workloads {caps.get('workloads')} differ from sdk.toml {list(sdk.workloads)}")
    assert not problems, "; ".join(problems)
    record_property("detail", f"{caps['sdk']} {caps['version']}, roles {', '.join(caps['roles'])}")


REFUSAL_BOUND_S = 60.0  # a server's start up to its refusal of a config
CHECKED_IMPORT = "DI 1.04"  # suites/plans/footprint.toml: a model without DesignToolOnly placeholders
SERVER_BASE = {"port": 4840}
CLIENT_BASE = {"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"]}
BAD_CONFIGS = [  # role, config, the key the message must name
    pytest.param("server", {**SERVER_BASE, "signalz": 10}, "signalz", id="server-unknown-key"),
    pytest.param("server", {**SERVER_BASE, "signals": -5}, "signals", id="server-out-of-range"),
    pytest.param("client", {**CLIENT_BASE, "nodes_per_reqest": 2}, "nodes_per_reqest", id="client-unknown-key"),
    pytest.param("client", {**CLIENT_BASE, "in_flight": 0}, "in_flight", id="client-out-of-range"),
]


@pytest.mark.parametrize(("role", "config", "key"), BAD_CONFIGS)
def test_bad_config_exits_2_naming_the_key(
    sdk: Sdk, role: str, config: dict, key: str, workdir: Path, record_property
) -> None:
    path = workdir / f"bad-{role}-{key}.json"
    path.write_text(json.dumps(config))
    try:
        done = subprocess.run(
            [str(sdk.run), role, "--config", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **sdk.environment},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("still running after 60 s (it must exit 2 before connecting)", pytrace=False)
    record_property("detail", _error_message(done.returncode, done.stdout, 2, "config", key))


def _error_message(returncode: int, stdout: str, code: int, kind: str, named: str) -> str:
    """The message of the error event an adapter refused with: exit `code`, the last stdout
    line an error event of `kind` whose message names `named`."""
    assert returncode == code, f"exit {returncode}, expected {code} ({kind})"
    event = _last_event(stdout)
    assert event and event.get("event") == "error" and event.get("kind") == kind, (
        f"no error event of kind {kind} on stdout: {stdout[-200:]!r}"
    )
    assert named in event.get("message", ""), f"message does not name {named!r}: {event.get('message')!r}"
    return str(event["message"])


def _server_refusal(sdk: Sdk, config: dict, workdir: Path, name: str) -> tuple[int, str]:
    """The exit status and stdout of a server given `config`, which it must refuse before
    ready: one that prints ready instead fails the check at once and is stopped (its process
    group killed), whatever it does with SIGTERM."""
    path = workdir / f"{name}.json"
    path.write_text(json.dumps(config))
    process = subprocess.Popen(
        [str(sdk.run), "server", "--config", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **sdk.environment},
        start_new_session=True,
    )

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    expired = threading.Event()  # a server that says nothing and stays: killed by the watchdog

    def expire() -> None:
        expired.set()
        kill()

    watchdog = threading.Timer(REFUSAL_BOUND_S, expire)
    watchdog.start()
    lines = []
    try:
        assert process.stdout is not None
        for line in process.stdout:  # ends when it exits; a ready line ends the check first
            lines.append(line)
            if (_last_event(line) or {}).get("event") == "ready":
                pytest.fail(f"printed ready: {line.strip()[:200]}", pytrace=False)
        returncode = process.wait()
    finally:
        watchdog.cancel()
        kill()
        process.wait()
    if expired.is_set():
        pytest.fail(
            f"still running after {REFUSAL_BOUND_S:g} s (it must refuse the config before ready)", pytrace=False
        )
    return returncode, "".join(lines)


def _refused_as(sdk: Sdk, done: tuple[int, str], code: int, kind: str, named: str) -> str:
    """SPEC §4, Imported information models: an SDK without a loader refuses any `nodesets` with
    exit 3 (its sdk.toml says why); one with a loader exits `code` with an error of `kind`."""
    if "nodeset_import" in sdk.not_supported:
        code, kind, named = 3, "not_supported", ""
    return _error_message(*done, code, kind, named)


@pytest.mark.role("server")
def test_server_refuses_a_nodeset_it_cannot_read(sdk: Sdk, workdir: Path, record_property) -> None:
    config = {"port": free_port(), "nodesets": [str(workdir / "no-such.NodeSet2.xml")]}
    done = _server_refusal(sdk, config, workdir, "nodeset-missing")
    record_property("detail", _refused_as(sdk, done, 2, "config", "nodesets"))


@pytest.mark.role("server")
@pytest.mark.full
def test_server_refuses_a_nodeset_that_is_not_one(sdk: Sdk, workdir: Path, record_property) -> None:
    broken = workdir / "broken.NodeSet2.xml"
    # not XML at all: a file cut short inside a UANodeSet, node-opcua 2.186.4's lenient parser takes
    broken.write_text("this is no NodeSet2 file\n")
    done = _server_refusal(sdk, {"port": free_port(), "nodesets": [str(broken)]}, workdir, "nodeset-broken")
    record_property("detail", _refused_as(sdk, done, 1, "runtime", ""))


@pytest.mark.role("server")
@pytest.mark.full
def test_server_imports_a_companion_model(sdk: Sdk, session: Session, record_property) -> None:
    """The footprint's first import model every loader here takes (DI 1.04, 2022), imported at
    start-up and found as its file says by the model probe (footprint/nodesets.py judges)."""
    if why := sdk.not_supported.get("nodeset_import"):
        pytest.skip(f"not supported: {why}")
    setup = footprint_suite.of(plan.load("footprint"))
    assert setup is not None and setup.nodeset_import is not None
    model = setup.nodeset_import.model(CHECKED_IMPORT)
    files = [str(path) for path in footprint_nodesets.files(model)]
    try:
        server = session.pool.fresh(sdk, nodesets=files)
    except AdapterError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        problems = footprint_nodesets.judge(footprint_runner.probe_model(server.endpoint, model), model)
    finally:
        session.pool.stop(server)
    assert not problems, "; ".join(problems)
    record_property("detail", f"{model.name} imported and verified, ready after {server.ready_s:.2f} s")


@pytest.mark.role("server")
def test_server_prints_ready(sdk: Sdk, session: Session, record_property) -> None:
    started = time.monotonic()
    try:
        server = session.pool.get(sdk, warm=False)
    except AdapterError as error:
        pytest.fail(str(error), pytrace=False)
    record_property("detail", f"{server.endpoint} after {time.monotonic() - started:.1f} s")


@pytest.mark.role("server")
# The 1-node forms are the full run's: make test's Robot smoke reads every node type one per
# request across the same pairs (the read plan's interop, verified).
@pytest.mark.parametrize(
    "per_request", [pytest.param(1, marks=pytest.mark.full), len(ALL_NODES)], ids=["1-node", "all-nodes"]
)
def test_reference_client_reads_every_node(
    sdk: Sdk, reference: Sdk, session: Session, per_request: int, record_property
) -> None:
    """The reference SDK's client reads every node of this server, every value verified: every
    node whose value fits in the largest response the server declares it can send ([limits])."""
    nodes = sdk.sendable(ALL_NODES)
    detail = _passes(session, reference, sdk, _workload("read", nodes, min(per_request, len(nodes))))
    if len(nodes) < len(ALL_NODES):
        left = ", ".join(node for node in ALL_NODES if node not in nodes)
        detail += f"; not asked for {left}: not supported ({sdk.limits_reason})"
    record_property("detail", detail)


@pytest.mark.role("client")
@pytest.mark.parametrize(
    ("per_request", "sessions"),
    [pytest.param(1, 1, marks=pytest.mark.full), (len(ALL_NODES), 2)],
    ids=["1-node", "all-nodes-2-sessions"],
)
def test_client_reads_every_node_of_the_reference_server(
    sdk: Sdk, reference: Sdk, session: Session, per_request: int, sessions: int, record_property
) -> None:
    workload = _workload("read", ALL_NODES, per_request, **({"sessions": sessions} if sessions > 1 else {}))
    record_property("detail", _passes(session, sdk, reference, workload))


@pytest.mark.full  # make test: the write plan's smoke interop and the read-back under load below
@pytest.mark.role("client")
def test_client_writes_the_reference_server_with_read_back(
    sdk: Sdk, reference: Sdk, session: Session, record_property
) -> None:
    record_property("detail", _passes(session, sdk, reference, _workload("write", plan.writes(20), 5)))


@pytest.mark.full
@pytest.mark.role("client")
@pytest.mark.parametrize("rate", [OPEN_LOOP_RATE, None], ids=["open-loop", "closed-loop"])
def test_client_reports_the_send_lag_of_the_open_loop(
    sdk: Sdk, reference: Sdk, session: Session, rate: float | None, record_property
) -> None:
    """SPEC §6 send_lag_ns: in the open loop one entry per measured request sent, here all of
    them; in the closed loop none. verify is off: verification has its own checks above."""
    workload = _workload("read", ["Tick"], 1, rate=rate, verify=False)
    result = _passing_result(session, sdk, reference, workload)
    lag = result.get("send_lag_ns", [])
    sent, attempted = sum(count for _value, count in lag), result["operations"]["attempted"]
    if rate is None:
        assert lag == [], f"closed loop: send_lag_ns holds {sent} entries, expected []"
        record_property("detail", f"{attempted} requests, send_lag_ns []")
        return
    assert attempted > 0 and result["operations"]["failed"] == 0, f"open loop: {result['operations']}"
    assert sent == attempted, f"open loop: send_lag_ns counts {sent} sent requests, {attempted} were measured and sent"
    record_property("detail", f"{attempted} requests at {rate:g}/s, send lag up to {lag[-1][0] / 1e6:.2f} ms")


@pytest.mark.full
@pytest.mark.role("client")
@pytest.mark.parametrize("rate", [OPEN_LOOP_RATE, None], ids=["open-loop", "closed-loop"])
def test_client_records_every_latency(
    sdk: Sdk, reference: Sdk, session: Session, rate: float | None, record_property
) -> None:
    """SPEC §6 latencies (record_latencies): one send instant and latency per request the
    latency_ns histogram counts, in its buckets (the cell's contract check, record_problems,
    compares them), send instants inside the run and in the measured phase."""
    workload = _workload("read", ["Tick"], 1, rate=rate, verify=False, record_latencies=True)
    result = _passing_result(session, sdk, reference, workload)
    series = result.get("latencies")
    assert series, "record_latencies is true but the result has no latencies"
    listed = len(series["latency_ns"])
    assert listed == result["operations"]["succeeded"] > 0, (
        f"latencies lists {listed} requests, {result['operations']['succeeded']} succeeded"
    )
    warmup_ns = result["start_ns"] - result["timeline"]["start_ns"]
    early = [s for s in series["send_ns"] if s < warmup_ns - 1_000_000]
    assert not early, f"{len(early)} send instants in the warm-up (first {early[0]} ns, warm-up {warmup_ns} ns)"
    record_property("detail", f"{listed} latencies, median {sorted(series['latency_ns'])[listed // 2] / 1e3:.0f} µs")


# SPEC §3 think_ms: with 1 request in flight and a 50 ms think time a 1 s phase sends about 20
THINK_MS = 50.0


@pytest.mark.full
@pytest.mark.role("client")
def test_client_waits_its_think_time(sdk: Sdk, reference: Sdk, session: Session, record_property) -> None:
    """SPEC §3 think_ms: each slot waits think_ms between a response and its next request,
    and the wait is not in the latency."""
    workload = _workload("read", ["Tick"], 1, in_flight=1, think_ms=THINK_MS, verify=False, record_latencies=True)
    workload["duration_s"] = 1.0
    result = _passing_result(session, sdk, reference, workload)
    sends = sorted(result["latencies"]["send_ns"])
    gaps = [b - a for a, b in zip(sends, sends[1:], strict=False)]
    assert len(sends) >= 5, f"{len(sends)} requests in 1 s"
    assert min(gaps) >= THINK_MS * 1e6 * 0.9, f"two requests {min(gaps) / 1e6:.1f} ms apart, think time {THINK_MS} ms"
    assert max(result["latencies"]["latency_ns"]) < THINK_MS * 1e6, "a latency holds the think time"
    record_property("detail", f"{len(sends)} requests, {min(gaps) / 1e6:.1f}–{max(gaps) / 1e6:.1f} ms apart")


# SPEC §3 R3: a 1 s read of Tick spans 10 updates of a server at the default 100 ms interval
ADVANCE_READ = {"warmup_s": 0.2, "duration_s": 1.0}


def _ticks_advance(session: Session, client: Sdk, server_sdk: Sdk) -> str:
    """The client reads the server's Tick for 1 s and counts its forward steps (≥ 1)."""
    result = _passing_result(session, client, server_sdk, _workload("read", ["Tick"], 1, **ADVANCE_READ))
    advanced = result["verification"].get("ticks_advanced")
    assert isinstance(advanced, int) and advanced >= 1, (
        f"verification.ticks_advanced is {advanced!r} over a 1 s read of Tick, expected ≥ 1"
    )
    return f"{result['operations']['succeeded']} requests, ticks_advanced {advanced} over 1 s"


@pytest.mark.role("client")
def test_client_sees_the_values_of_the_reference_server_advance(
    sdk: Sdk, reference: Sdk, session: Session, record_property
) -> None:
    """SPEC §3 R3: the client counts the forward steps of Tick (verification.ticks_advanced)."""
    record_property("detail", _ticks_advance(session, sdk, reference))


@pytest.mark.role("server")
def test_values_of_the_server_advance_for_the_reference_client(
    sdk: Sdk, reference: Sdk, session: Session, record_property
) -> None:
    """SPEC §3 R3 and §4: the server's update loop runs (a frozen one passes every value check)."""
    record_property("detail", _ticks_advance(session, reference, sdk))


# SPEC §3 W1: 1 s of closed-loop writes of 5 nodes per request (in_flight 4) is hundreds of
# requests of session 0 against any server here, so several are sampled and read back.
READ_BACK_WRITE = {"in_flight": 4, "warmup_s": 0.2, "duration_s": 1.0}


def _reads_back_under_load(session: Session, client: Sdk, server_sdk: Sdk) -> str:
    """The client writes the server for 1 s and reads back every 64th write of session 0 in
    the phase (verification.read_back ≥ 1), every value right."""
    workload = _workload("write", plan.writes(20), 5, **READ_BACK_WRITE)
    result = _passing_result(session, client, server_sdk, workload)
    read_back, succeeded = result["verification"].get("read_back"), result["operations"]["succeeded"]
    assert succeeded < 64 or (isinstance(read_back, int) and read_back >= 1), (
        f"verification.read_back is {read_back!r} after {succeeded} writes of one session, expected ≥ 1"
    )
    return f"{succeeded} writes, {read_back} values read back under load"


@pytest.mark.role("client")
def test_client_reads_back_writes_under_load(sdk: Sdk, reference: Sdk, session: Session, record_property) -> None:
    """SPEC §3 W1: the client reads back a sample of session 0's writes during the phase."""
    record_property("detail", _reads_back_under_load(session, sdk, reference))


@pytest.mark.role("server")
def test_server_keeps_writes_made_under_load(sdk: Sdk, reference: Sdk, session: Session, record_property) -> None:
    """SPEC §3 W1: what the server answered Good to under load reads back (a server that loses
    or delays writes under load passes the read-back after the phase)."""
    record_property("detail", _reads_back_under_load(session, reference, sdk))


@pytest.mark.full
@pytest.mark.role("client")
@pytest.mark.parametrize("interval_ms", [100, 1], ids=["100-ms", "1-ms"])
def test_client_asks_for_a_subscription_lifetime_that_outlives_a_short_loss(
    sdk: Sdk, reference: Sdk, session: Session, interval_ms: int, record_property
) -> None:
    """SPEC §3 subscribe (v8): the client's CreateSubscription asks for a lifetime of at least its
    session timeout or 600 s, and three keep-alives; read from its requests on the wire (a
    recording proxy in front of the reference server, asyncua's codec)."""
    if "subscribe" not in sdk.workloads:
        pytest.skip(f"{sdk.id} declares no subscribe workload")
    server = session.pool.get(reference, warm=False)
    workload = {"workload": "subscribe", "nodes": ["Tick"], "publishing_interval_ms": interval_ms,
                "sampling_interval_ms": 100, "warmup_s": 0.2, "duration_s": 0.3}  # fmt: skip
    asked = lifetimes.asked(session, sdk, server, workload)
    assert asked.subscriptions, f"no CreateSubscription request recorded from {sdk.id}'s client"
    assert asked.session_timeouts_ms, f"no CreateSession request recorded from {sdk.id}'s client"
    timeout_ms = asked.session_timeouts_ms[0]
    problems = [
        problem
        for one in asked.subscriptions
        if (problem := contract.lifetime_problem(timeout_ms, one.interval_ms, one.lifetime_count, one.keep_alive_count))
    ]
    assert not problems, "; ".join(problems)
    first = asked.subscriptions[0]
    record_property(
        "detail",
        f"session timeout {timeout_ms / 1000:g} s; lifetime {first.lifetime_count} x {first.interval_ms:g} ms, "
        f"keep-alive {first.keep_alive_count}",
    )


@pytest.mark.role("client")
def test_unreachable_endpoint_gives_a_connect_error(sdk: Sdk, session: Session, record_property) -> None:
    started = time.monotonic()
    config = {"endpoint": f"opc.tcp://127.0.0.1:{free_port()}", **_workload("read", ["Real"], 1)}
    outcome = session.run_client(sdk, None, config)
    elapsed = time.monotonic() - started
    assert outcome.status == "fail" and (outcome.reason or "").startswith("connect"), (
        f"expected a connect error event, got {outcome.status}: {outcome.reason}"
    )
    assert elapsed <= UNREACHABLE_LIMIT_S, f"took {elapsed:.1f} s (limit {UNREACHABLE_LIMIT_S:g} s)"
    record_property("detail", f"{outcome.reason} after {elapsed:.1f} s")


# SPEC §3 request_timeout_ms against a server that accepts the TCP connection and never answers its
# Hello: longer than every adapter's own set-up bound (10 s), so a client that kept its own gives up
# too early; the error may come a little after it (a connect's last step, the process's exit).
SILENT_TIMEOUT_MS = 15_000
SILENT_SLACK_S = 10.0


@contextlib.contextmanager
def _silent_server() -> Iterator[int]:
    """A TCP port on loopback whose connections are accepted and held, never answered; closed
    with everything it accepted when the block ends (a test's own socket: a server that never
    speaks OPC UA is what no SDK's server can be made to be)."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, name="silent-server", daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for connection in [*held, listener]:
            connection.close()


@pytest.mark.full
@pytest.mark.role("client")
def test_request_timeout_ms_is_how_long_a_client_waits_for_a_silent_server(
    sdk: Sdk, session: Session, record_property
) -> None:
    with _silent_server() as port:
        config = {
            "endpoint": f"opc.tcp://127.0.0.1:{port}",
            "request_timeout_ms": SILENT_TIMEOUT_MS,
            **_workload("read", ["Real"], 1),
        }
        started = time.monotonic()
        outcome = session.run_client(sdk, None, config)
        elapsed = time.monotonic() - started
    assert outcome.status == "fail" and (outcome.reason or "").startswith("connect"), (
        f"expected a connect error event, got {outcome.status}: {outcome.reason}"
    )
    least, most = SILENT_TIMEOUT_MS / 1000 - 1, SILENT_TIMEOUT_MS / 1000 + SILENT_SLACK_S
    assert least <= elapsed <= most, (
        f"the connect error came after {elapsed:.1f} s, not after request_timeout_ms "
        f"({SILENT_TIMEOUT_MS / 1000:g} s; allowed {least:g}–{most:g} s): {outcome.reason}"
    )
    record_property("detail", f"{outcome.reason} after {elapsed:.1f} s")


@pytest.mark.full
@pytest.mark.role("client")
def test_client_reads_its_own_server_over_basic256sha256(sdk: Sdk, session: Session, record_property) -> None:
    if "server" not in sdk.roles or not sdk.offers(SECURE["policy"], SECURE["mode"]):
        pytest.skip(f"{sdk.id} declares no Basic256Sha256 SignAndEncrypt server in sdk.toml")
    record_property("detail", _passes(session, sdk, sdk, _workload("read", ALL_NODES, 4), SECURE))


@pytest.mark.role("server")
def test_server_exits_0_within_5_s_of_sigterm(sdk: Sdk, session: Session, record_property) -> None:
    try:
        server = session.pool.get(sdk, warm=False)
    except AdapterError as error:
        pytest.fail(str(error), pytrace=False)
    status, seconds, killed = server.measured.stop()
    session.pool.servers.clear()
    assert status == 0 and not killed, f"status {status} after {seconds:.1f} s" + (
        " (had to be killed)" if killed else ""
    )
    record_property("detail", f"status 0 after {seconds:.2f} s")
