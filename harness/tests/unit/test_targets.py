"""Targets (uabench.targets): the command line's targets checked before anything runs, and the
remote sampler: the harness's own agent (uabench.proc.agent) sampling a real process, its
samples read back and moved onto this clock by the measured offset. The whole path against
the namespace Pi runs in ci/test (`uabench run … --server-target ssh://…`)."""

import base64
import os

import pytest

from uabench import cli, targets
from uabench.results import compare, kinds, runs
from uabench.targets import vm


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local", targets.Spec("local")),
        ("container", targets.Spec("container")),
        ("vm", targets.Spec("vm")),
        ("ssh://pi@raspberrypi.local", targets.Spec("ssh", "pi@raspberrypi.local", 22)),
        ("ssh://root@10.213.70.2:2222", targets.Spec("ssh", "root@10.213.70.2", 2222)),
        ("ssh://192.168.1.20", targets.Spec("ssh", "192.168.1.20", 22)),
        ("ssh://pi@[fe80::1]:22", targets.Spec("ssh", "pi@fe80::1", 22)),
    ],
)
def test_targets_are_parsed(text, expected):
    assert targets.parse(text) == expected


@pytest.mark.parametrize("text", ["pi@raspberrypi", "ssh://", "ssh://pi@host:0", "ssh://pi@host:99999", "docker", ""])
def test_a_bad_target_is_one_line(text):
    with pytest.raises(targets.TargetError) as refused:
        targets.parse(text)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--client-target", "ssh://pi@pi.local"], "not supported: the measured roles"),
        (["--arch", "arm64"], "local processes are this machine's"),
        (["--arch", "sparc", "--server-target", "container"], "unknown architecture 'sparc'"),
        (["--isolation", "container", "--server-target", "ssh://pi@pi.local"], "without --server-target"),
        (["--server-target", "ssh://-oProxyCommand=x"], "is not user@host"),
    ],
)
def test_a_placement_that_cannot_be_made_is_refused_before_anything_runs(arguments, message, capsys, tmp_path):
    code = cli.main(["--store", str(tmp_path / "s.sqlite"), "run", "read", "--profile", "smoke", *arguments])
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error
    assert not (tmp_path / "s.sqlite").exists() or os.path.getsize(tmp_path / "s.sqlite") >= 0


@pytest.mark.parametrize("arguments", [["--server-target", "container"], ["--isolation", "container"]])
def test_the_network_suite_places_its_roles_itself(arguments, capsys, tmp_path):
    code = cli.main(["--store", str(tmp_path / "s.sqlite"), "run", "network", "--profile", "smoke", *arguments])
    assert code == 2
    error = capsys.readouterr().err
    assert "network: its servers and clients run in network namespaces" in error or "network namespaces" in error
    assert error.count("\n") == 1, error


def test_a_vm_boots_with_its_key_and_address_on_the_kernel_command_line_and_nothing_else(tmp_path):
    command = vm.qemu_command(tmp_path / "disk", tmp_path / "work", "uavm0a1b", "10.214.70.2", "ssh-ed25519 AAAA key\n")
    line = command[command.index("-append") + 1]
    words = dict(word.split("=", 1) for word in line.split() if "=" in word)
    assert base64.b64decode(words["uabench.key"]).decode() == "ssh-ed25519 AAAA key"
    assert words["uabench.address"] == "10.214.70.2/30" and words["root"] == "/dev/vda"
    assert command[0] == "qemu-system-aarch64" and command[command.index("-cpu") + 1] == "cortex-a72"
    # its own tap link (gone with qemu), no display, no monitor a guest could reach, the console to a file
    assert "tap,id=net,ifname=uavm0a1b,script=no,downscript=no" in command
    assert command[command.index("-monitor") + 1] == "none" and command[command.index("-display") + 1] == "none"
    assert command[command.index("-serial") + 1] == f"file:{tmp_path / 'work' / 'console.log'}"
    # the disk is never written: the run boots an overlay of it
    assert f"file={tmp_path / 'work' / 'overlay.qcow2'},if=none,id=disk,format=qcow2" in command


def test_a_vm_that_cannot_boot_says_why(monkeypatch, tmp_path):
    assert "boots arm64 only" in (vm.available("armhf") or "")
    monkeypatch.setenv(vm.DISK_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(vm.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(vm.os, "geteuid", lambda: 0)
    assert "ci/arm-vm/make-disk" in (vm.available("arm64") or "")
    for name in ("disk.raw", "vmlinuz", "initrd.img", "host_ed25519.pub"):
        (tmp_path / name).write_text("x")
    assert vm.available("arm64") is None
    monkeypatch.setattr(vm.os, "geteuid", lambda: 1000)
    assert "needs root" in (vm.available("arm64") or "")


def _run(run_id: int, suite: str, server: dict | None, status: str = "finished") -> dict:
    targets_of = {"server": server, "client": {"kind": "local"}} if server else None
    return {"id": run_id, "suite": suite, "status": status, "provenance": {"targets": targets_of}}


def test_a_run_on_another_target_stands_beside_this_machine_s_and_replaces_only_its_own_place():
    vm_target = {"kind": "ssh", "name": "vm", "arch": "arm64", "emulated": True, "emulation": "qemu-system"}
    pi = {"kind": "ssh", "name": "ssh://pi@pi", "arch": "arm64", "emulated": False}
    container = {"kind": "container", "arch": "arm64", "emulated": True}
    assert [runs.place(r) for r in (_run(1, "f", None), _run(2, "f", vm_target), _run(3, "f", pi))] == [
        "",
        "vm arm64",
        "ssh://pi@pi arm64",
    ]
    assert runs.place(_run(4, "f", container)) == ""  # a container of this machine is this machine's run

    class Store:
        def __init__(self, held: list[dict]) -> None:
            self.held = held

        def runs(self) -> list[dict]:
            return self.held

        def measured_versions(self, run_id: int) -> bool:
            return False  # the pinned versions only

    held = [
        _run(1, "footprint", None),
        _run(2, "footprint", vm_target),
        _run(3, "footprint", None),
        _run(4, "read", None),
    ]
    held.append(_run(5, "footprint", vm_target, status="interrupted"))
    chosen, skipped = runs.latest_finished(Store(held))  # type: ignore[arg-type]
    assert [r["id"] for r in chosen] == [2, 3, 4] and [r["id"] for r in skipped] == [5]
    assert [r["id"] for r in compare.latest_runs(Store(held))] == [3, 4]  # type: ignore[arg-type]  # this machine's


def test_elsewhere_an_older_run_stays_chosen_for_the_servers_no_newer_one_measured():
    vm_target = {"kind": "ssh", "name": "vm", "arch": "arm64", "emulated": True, "emulation": "qemu-system"}
    pi = {"kind": "ssh", "name": "ssh://pi@pi", "arch": "arm64", "emulated": False}
    measured = {
        1: {"open62541", "gopcua"},  # this machine
        2: {"open62541", "gopcua", "async-opcua"},  # the VM
        3: {"open62541", "gopcua"},  # this machine again: replaces run 1 whole
        4: {"asyncua"},  # the VM
        5: {"open62541"},  # the VM
        6: {"milo"},  # the VM, interrupted
        7: {"open62541"},  # the Pi
        8: {"asyncua", "async-opcua"},  # the VM, the write suite
    }

    class Store:
        def __init__(self, held: list[dict]) -> None:
            self.held = held

        def runs(self) -> list[dict]:
            return self.held

        def subjects(self, run_id: int) -> set[str]:
            return measured[run_id]

        def measured_versions(self, run_id: int) -> bool:
            return any("@" in subject for subject in measured[run_id])

        def cells(self, run_ids: list[int]) -> list[dict]:
            return [_cell(k, s) for k in run_ids for s in sorted(measured[k])]

    held = [
        _run(1, "footprint", None),
        _run(2, "footprint", vm_target),
        _run(3, "footprint", None),
        _run(4, "footprint", vm_target),
        _run(5, "footprint", vm_target),
        _run(6, "footprint", vm_target, status="interrupted"),
        _run(7, "footprint", pi),
        _run(8, "write", vm_target),
    ]
    store = Store(held)
    chosen, skipped = runs.latest_finished(store)  # type: ignore[arg-type]
    assert [r["id"] for r in chosen] == [2, 3, 4, 5, 7, 8] and [r["id"] for r in skipped] == [6]
    by = {r["id"]: r for r in chosen}
    assert by[2][runs.CHOSEN] == ["async-opcua", "gopcua"]  # run 5 measured open62541 there since
    assert all(runs.CHOSEN not in by[k] for k in (3, 4, 5, 7, 8))
    cells = runs.cells_of(store, chosen)  # type: ignore[arg-type]
    assert [c["server"] for c in cells[2]] == ["async-opcua", "gopcua"]
    assert [c["server"] for c in cells[8]] == ["async-opcua", "asyncua"]
    # a newer run there that measured everything an older one did leaves nothing of it
    measured[9] = {"open62541", "gopcua", "async-opcua", "asyncua"}
    store.held.append(_run(9, "footprint", vm_target))
    assert [r["id"] for r in runs.latest_finished(store)[0]] == [3, 7, 8, 9]  # type: ignore[arg-type]
    # a run of clients there (their cells name the reference server they ran against) is chosen for
    # those clients only: the reference server's own figures stay the older run's
    measured[10] = {"milo client"}
    store.held.append(_run(10, "footprint", vm_target))
    chosen = runs.latest_finished(store)[0]  # type: ignore[arg-type]
    assert [r["id"] for r in chosen] == [3, 7, 8, 9, 10] and runs.CHOSEN not in chosen[3]
    assert [(c["kind"], c["server"], c["client"]) for c in runs.cells_of(store, chosen)[10]] == [  # type: ignore[arg-type]
        ("footprint-client", "open62541", "milo")
    ]


def _cell(run_id: int, measured: str) -> dict:
    """A stored cell of the subject `measured` (a server, or '<client> client': results.kinds.subject)."""
    if measured.endswith(" client"):
        return {"run_id": run_id, "kind": "footprint-client", "server": "open62541", "client": measured.split()[0]}
    return {"run_id": run_id, "kind": "footprint", "server": measured, "client": "open62541"}


def test_a_cell_of_a_kind_that_measures_clients_has_its_client_for_subject():
    from uabench.footprint.cells import FootprintCell
    from uabench.instructions.cells import InstructionsCell

    assert kinds.subject(FootprintCell.CLIENT, "open62541", "milo") == "milo client"
    assert kinds.subject(InstructionsCell.CLIENT, "open62541", "asyncua") == "asyncua client"
    assert kinds.subject(FootprintCell.STARTUP, "milo", "open62541") == "milo"


# The result record's times (contract/schema): the wall-clock instants a remote role's record is
# moved by (targets/process.on_local_clock), and the durations, which no clock moves. A new *_ns
# field fails this test until it is put in one of them.
WALL_CLOCK = {"start_ns", "end_ns", "timeline.start_ns", "latencies.send_ns", "connection.events.t_ns"}
DURATIONS = {"latency_ns", "latencies.latency_ns", "session_setup_ns", "cycle_time_ns", "delay_ns", "send_lag_ns"}


def _ns_fields(node: object, path: tuple[str, ...], schemas: dict[str, dict], within: str = "result") -> set[str]:
    """The dotted paths of the *_ns properties under `node` of the schema `within`, its $refs followed."""
    if isinstance(node, list):
        return {f for sub in node for f in _ns_fields(sub, path, schemas, within)}
    if not isinstance(node, dict):
        return set()
    if "$ref" in node:
        name, _, pointer = node["$ref"].removeprefix("urn:uabench:contract:").partition("#/$defs/")
        name = name or within
        return _ns_fields(schemas[name]["$defs"][pointer] if pointer else schemas[name], path, schemas, name)
    found = set()
    for key, sub in (node.get("properties") or {}).items():
        if key.endswith("_ns"):
            found.add(".".join((*path, key)))
        found |= _ns_fields(sub, (*path, key), schemas, within)
    for key in ("items", "anyOf", "oneOf", "allOf", "then", "else"):
        found |= _ns_fields(node.get(key), path, schemas, within)
    return found


def test_every_time_of_a_result_record_is_an_instant_moved_onto_this_clock_or_a_duration():
    import uabench_contract as contract

    schemas = {name: contract.schema(name) for name in ("result", "common", "client", "subscriber")}
    assert _ns_fields(schemas["result"], (), schemas) == WALL_CLOCK | DURATIONS


def test_a_remote_roles_result_arrives_on_this_machines_clock():
    from uabench.targets.process import on_local_clock

    record = {
        "event": "result",
        "start_ns": 10_000,
        "end_ns": 20_000,
        "latency_ns": {"buckets": [[100, 1]]},
        "timeline": {"window_ms": 100, "start_ns": 10_000, "ops": [1], "values": [1]},
        "latencies": {"send_ns": [11_000, 12_000], "latency_ns": [100, 200], "truncated": 0},
        "connection": {"events": [{"t_ns": 15_000, "session": 0, "state": "lost", "subscriptions": None}]},
    }
    on_local_clock(record, 3_000)  # the target's clock runs 3 µs ahead of this one
    assert (record["start_ns"], record["end_ns"], record["timeline"]["start_ns"]) == (7_000, 17_000, 7_000)
    assert record["latencies"] == {"send_ns": [8_000, 9_000], "latency_ns": [100, 200], "truncated": 0}
    assert record["connection"]["events"][0]["t_ns"] == 12_000
    assert record["latency_ns"] == {"buckets": [[100, 1]]}  # a duration: no clock moves it


def test_clients_beside_servers_places_the_measured_roles_on_the_servers_target_for_a_while():
    class Board:
        kind, arch, emulated, address, ready_timeout_s = "ssh", "arm64", False, "10.0.0.2", 60.0

        def provenance(self) -> dict:
            return {"kind": "ssh", "name": "ssh://pi@pi"}

    board = Board()
    run = targets.Placement(board, None)  # type: ignore[arg-type]
    targets.use(run)
    try:
        assert run.cross_host and targets.for_role("client") is None
        with targets.placed(run.clients_beside_servers()):
            assert targets.for_role("client") is board and targets.address("server") == "10.0.0.2"
            assert not targets.current().cross_host and targets.label("client") == "ssh://pi@pi arm64"
        assert targets.current() is run
        with pytest.raises(RuntimeError), targets.placed(run.clients_beside_servers()):
            raise RuntimeError("a failed point")
        assert targets.current() is run
    finally:
        targets.use(None)


def test_a_result_line_from_a_remote_role_is_read_on_this_clock_and_a_local_ones_as_printed(tmp_path):
    import io

    from uabench import sdks
    from uabench.targets.process import AdapterProcess

    class Board:
        kind, arch, emulated, address, ready_timeout_s, offset_ns = "ssh", "arm64", False, "10.0.0.2", 60.0, 3_000

    class Launcher:  # what the line protocol comes through: the launcher's stdout
        stdout = io.BytesIO(b'{"event": "result", "start_ns": 10000, "end_ns": 20000}\n')

    read = []
    for placement in (targets.Placement(None, Board()), targets.Placement()):  # type: ignore[arg-type]
        with targets.placed(placement):
            process = AdapterProcess(sdks.get("open62541"), "client", {}, tmp_path)
        process.popen = Launcher()  # type: ignore[assignment]
        Launcher.stdout.seek(0)
        process._read_stdout()
        read.append(process.events.get_nowait())
    assert [(e["start_ns"], e["end_ns"]) for e in read] == [(7_000, 17_000), (10_000, 20_000)]
