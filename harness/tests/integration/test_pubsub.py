"""The PubSub suite's harness: its plan, the network namespaces it runs subscribers in (real
`ip netns`, so root is needed), the adapters' PubSub roles and the report section."""

import json
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from helpers.pubsub import PLAN, ROOT, needs_root, ours, write_plan

from uabench import paths, sdks
from uabench import plan as plan_module
from uabench.engine import pubsub
from uabench.engine.session import Session
from uabench.proc import netns
from uabench.report import files
from uabench.results.store import open_store


@needs_root
def test_a_terminated_harness_removes_its_hosts_and_a_killed_one_is_cleaned_up_later(tmp_path):
    # the session's start installs the cleanup on SIGTERM (not the import of the harness)
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(paths.REPO / "harness")!r})
        from uabench.engine.session import Session
        from uabench.proc import netns
        from uabench.results.store import open_store
        Session(open_store({str(tmp_path / "store.sqlite")!r}), "pubsub", "smoke", workdir=__import__("pathlib").Path(
            {str(tmp_path / "run")!r}))
        hosts = netns.Hosts(2).up()
        print(" ".join(hosts.names + [hosts.bridge]), flush=True)
        time.sleep(60)
        """)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        names = child.stdout.readline().split()
        assert len(names) == 3 and set(names[:2]) <= set(netns.namespaces())
        child.send_signal(sig)
        child.wait(timeout=20)
        if sig == signal.SIGKILL:  # nothing ran in the child: the next harness removes them
            assert set(names[:2]) <= set(netns.namespaces())
            removed = netns.remove_stale()
            assert set(names) <= set(removed)
        assert not set(names[:2]) & set(netns.namespaces()) and names[2] not in netns.bridges()


ROLE_SDKS = [s.id for s in sdks.with_role("publisher") if s.id in [t.id for t in sdks.with_role("subscriber")]]


@pytest.mark.parametrize("sdk_id", ROLE_SDKS)
@pytest.mark.parametrize(
    "role,raw,key",
    [
        ("publisher", {"signals": 10, "duration_s": 1}, "duration_s"),
        ("subscriber", {"adress": "opc.udp://239.255.0.1:4840/"}, "adress"),
        ("subscriber", {"address": "opc.udp://239.255.0.1/"}, "address"),
        ("publisher", {"interface": "eth0"}, "interface"),
        ("publisher", {"fields_per_message": 0}, "fields_per_message"),
    ],
)
def test_bad_pubsub_config_exits_2_naming_the_key(tmp_path, sdk_id, role, raw, key):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(raw))
    done = subprocess.run(
        [str(sdks.get(sdk_id).run), role, "--config", str(config)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    event = json.loads(done.stdout.strip().splitlines()[-1])
    assert event["event"] == "error" and event["kind"] == "config" and key in event["message"]


@pytest.fixture(scope="module")
def pubsub_store(tmp_path_factory):
    """A small real run: every publisher x subscriber pair, a 2-point sweep of the reference
    publisher, and 2 subscribers on namespaces (when root)."""
    directory = tmp_path_factory.mktemp("pubsub")
    store = open_store(directory / "store.sqlite")
    plan = plan_module.load(write_plan(directory, PLAN))
    session = Session(store, "pubsub", "smoke", workdir=directory / "run", plan=plan)
    run = pubsub.PubSubRun(session, plan, "smoke")
    logged: list[str] = []
    try:
        reference = plan_module.reference_publisher()
        if reference:
            pubsub.sweep(run, reference, reference, logged.append)
            if ROOT:
                pubsub.subscriber_sweep(run, reference, reference, logged.append)
        for publisher in ROLE_SDKS:
            for subscriber in ROLE_SDKS:
                pubsub.interop(run, publisher, subscriber, logged.append)
    finally:
        session.close()
    return store, directory, run, logged


@pytest.mark.skipif(not ROLE_SDKS, reason="no adapter with both PubSub roles")
def test_every_publisher_reaches_every_subscriber_with_verified_values(pubsub_store):
    store, _, _, logged = pubsub_store
    cells = store.cells()
    interop = [c for c in cells if c["kind"] == "pubsub-interop"]
    assert len(interop) == len(ROLE_SDKS) ** 2
    for cell in interop:
        assert cell["status"] == "pass", cell["reason"]
        result = cell["result"]
        assert result["verification"]["failed"] == 0 and result["verification"]["checked"] >= 100 * 5
        assert result["pubsub"]["lost"] == 0 and result["pubsub"]["decode_failed"] == 0
        assert 0.5 < result["throughput"]["ops_per_s"] / 10 < 1.5  # 10 NetworkMessages/s at 100 ms
    assert ours() == set() and any("limit" in line for line in logged)  # the sweep's limit, as recorded
    verdicts = [c for c in cells if c["kind"] == "pubsub-sweep-verdict"]
    assert all(c["result"]["found"] in ("grid limit", "bisected", "grid", "below grid") for c in verdicts)


@pytest.mark.skipif(not ROLE_SDKS or not ROOT, reason="needs the PubSub roles and root")
def test_subscribers_on_namespaces_count_datagrams_not_fragments(pubsub_store):
    store, _, _, _ = pubsub_store
    cells = [c for c in store.cells() if c["kind"] == "pubsub-subscribers"]
    assert [c["parameter"] for c in cells] == ["1", "2"]
    for cell in cells:
        result = cell["result"]
        assert cell["status"] == "pass" and result["pubsub"]["max_datagram_bytes"] > 1500
        for one in result.get("subscribers") or [result]:
            ip = one["ip"]  # every datagram arrived as several IP fragments
            assert ip["ReasmOKs"] >= 1 and ip["ReasmReqds"] >= 7 * ip["ReasmOKs"]
        assert cell["server_resources"]["cpu_percent"] is not None
    assert ours() == set()


def test_mismatched_dataset_layout_fails_the_cell(pubsub_store):
    _, _, run, _ = pubsub_store
    reference = plan_module.reference_publisher()
    if not reference:
        pytest.skip("no publisher")
    sdk = sdks.get(reference)
    publisher, subscriber = run.configs(100, "127.0.0.1")
    subscriber.update(fields_per_message=50, warmup_s=0.5, duration_s=1.0)  # it expects two writers of 50
    outcome = run.measure(sdk, sdk, publisher, [subscriber])
    assert outcome.status == "fail" and ("did not decode" in outcome.reason or "no NetworkMessage" in outcome.reason)


def test_report_has_the_pubsub_section(pubsub_store):
    store, directory, _, _ = pubsub_store
    outputs = files.build(store, directory / "report")
    markdown = outputs["markdown"].read_text()
    assert "## PubSub (UADP over UDP multicast)" in markdown
    assert "### PubSub: signal-rate sweep" in markdown and "PubSub vs client/server" in markdown
    assert "### PubSub: interop (publisher → subscriber)" in markdown
    if ROOT:
        assert "subscriber-count sweep" in markdown
    page = outputs["html"].read_text()
    assert page.count("<svg") + page.count("data:image/") >= 2  # the CPU and cycle-time plots


@needs_root
def test_hosts_are_created_reachable_by_multicast_and_removed():
    with netns.Hosts(2) as hosts:
        assert set(hosts.names) <= set(netns.namespaces()) and hosts.bridge in netns.bridges()
        shown = subprocess.run(
            [*hosts.prefix(1), "ip", "-4", "-o", "addr", "show", "eth0"], capture_output=True, text=True, check=True
        ).stdout
        assert (
            f"inet {hosts.address(1)}/24" in shown
            and "mtu 1500"
            in subprocess.run(
                [*hosts.prefix(1), "ip", "-o", "link", "show", "eth0"], capture_output=True, text=True
            ).stdout
        )
        # a 4000-byte multicast datagram from the bridge address reaches host 1 in one piece
        receiver = subprocess.Popen(
            [
                *hosts.prefix(1),
                sys.executable,
                "-c",
                textwrap.dedent(f"""
            import socket
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("239.255.250.1", 48499))
            s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                         socket.inet_aton("239.255.250.1") + socket.inet_aton("{hosts.address(1)}"))
            s.settimeout(10)
            print(len(s.recv(65536)), flush=True)
            """),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        before = hosts.ip_counters(1)
        sender = __import__("socket").socket(2, 2)
        sender.setsockopt(0, 32, __import__("socket").inet_aton(hosts.bridge_address))  # IP_MULTICAST_IF
        try:
            deadline = time.monotonic() + 10
            while receiver.poll() is None and time.monotonic() < deadline:
                sender.sendto(b"x" * 4000, ("239.255.250.1", 48499))
                time.sleep(0.2)
            out, _ = receiver.communicate(timeout=5)
        finally:
            sender.close()
            if receiver.poll() is None:
                receiver.kill()
        assert out.strip() == "4000"
        after = hosts.ip_counters(1)
        assert after["ReasmOKs"] > before["ReasmOKs"] and after["ReasmReqds"] - before["ReasmReqds"] >= 3
    assert ours() == set()


@needs_root
def test_hosts_are_removed_when_the_block_fails():
    with pytest.raises(RuntimeError, match="boom"), netns.Hosts(3) as hosts:
        names = list(hosts.names)
        assert set(names) <= set(netns.namespaces())
        raise RuntimeError("boom")
    assert not set(names) & set(netns.namespaces())
    assert ours() == set()
