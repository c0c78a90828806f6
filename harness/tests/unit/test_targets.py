"""Targets (uabench.targets): the command line's targets checked before anything runs, and the
remote sampler: the harness's own agent (uabench.proc.agent) sampling a real process, its
samples read back and moved onto this clock by the measured offset. The whole path against
the namespace Pi runs in ci/test (`uabench run … --server-target ssh://…`)."""

import base64
import os

import pytest

from uabench import cli, targets
from uabench.results import compare, runs
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

        def servers(self, run_id: int) -> set[str]:
            return measured[run_id]

        def cells(self, run_ids: list[int]) -> list[dict]:
            return [{"run_id": k, "server": s} for k in run_ids for s in sorted(measured[k])]

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
    assert by[2][runs.SERVERS] == ["async-opcua", "gopcua"]  # run 5 measured open62541 there since
    assert all(runs.SERVERS not in by[k] for k in (3, 4, 5, 7, 8))
    cells = runs.cells_of(store, chosen)  # type: ignore[arg-type]
    assert [c["server"] for c in cells[2]] == ["async-opcua", "gopcua"]
    assert [c["server"] for c in cells[8]] == ["async-opcua", "asyncua"]
    # a newer run there that measured everything an older one did leaves nothing of it
    measured[9] = {"open62541", "gopcua", "async-opcua", "asyncua"}
    store.held.append(_run(9, "footprint", vm_target))
    assert [r["id"] for r in runs.latest_finished(store)[0]] == [3, 7, 8, 9]  # type: ignore[arg-type]
