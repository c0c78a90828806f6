"""Remote targets over SSH (uabench.arm.remote): the remote wrapper, and the remote check's
judge against a faulty adapter on the stand-in "Pi" (uabench.checks.fixtures.pi_namespace, a
network namespace with its own sshd). The check itself is uabench/checks/test_remote.py."""

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uabench.arm import remote
from uabench.checks.fixtures import pi_namespace
from uabench.results.store import open_store


def test_wrapper_samples_a_real_process(tmp_path):
    """The remote wrapper, run here: it passes stdout through, records the pid, samples
    /proc, forwards SIGTERM and returns the adapter's exit status."""
    wrapper = tmp_path / "uabench-remote"
    wrapper.write_text(remote.REMOTE_WRAPPER)
    wrapper.chmod(0o755)
    program = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
        'print(\'{"event": "ready"}\', flush=True)\n'
        "end = time.time() + 30\n"
        "while time.time() < end: sum(range(10000))\n"
    )
    process = subprocess.Popen(
        [str(wrapper), str(tmp_path), "busy", "--", sys.executable, "-c", program], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout.readline().strip() == '{"event": "ready"}'
    time.sleep(1.6)
    pid = int((tmp_path / "busy.pid").read_text())
    os.kill(process.pid, 15)  # the wrapper forwards it
    assert process.wait(timeout=10) == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    samples = remote.parse_samples(
        (tmp_path / "busy.samples").read_text(), os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    )
    summary = remote.summarize(samples)
    assert summary is not None and summary["samples"] >= 3
    assert summary["cpu_percent"] > 20  # a busy loop
    assert summary["rss_peak_bytes"] > 1_000_000 and summary["threads_max"] >= 1


def test_wrapper_samples_the_adapter_an_engine_started_not_the_engine(tmp_path):
    """With --adapter-env the command only starts the adapter (as `podman run` does): the
    wrapper samples the process whose environment carries the role's name, here a busy child of
    an idle shell, and the idle starter is not what it measures."""
    wrapper = tmp_path / "uabench-remote"
    wrapper.write_text(remote.REMOTE_WRAPPER)
    wrapper.chmod(0o755)
    busy = "import time\nend = time.time() + 30\nwhile time.time() < end: sum(range(10000))\n"
    starter = (
        f"UABENCH_ADAPTER=role-1 {sys.executable} -c '{busy}' & child=$!; "
        'trap "kill $child" TERM; echo \'{"event": "ready"}\'; wait $child; wait $child'
    )
    process = subprocess.Popen(
        [str(wrapper), str(tmp_path), "role-1", "--adapter-env", "UABENCH_ADAPTER=role-1", "--", "sh", "-c", starter],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == '{"event": "ready"}'
    time.sleep(2.2)
    starter_pid = int((tmp_path / "role-1.pid").read_text())
    adapter_pid = int((tmp_path / "role-1.adapter.pid").read_text())
    assert adapter_pid != starter_pid and f"{sys.executable}" in Path(f"/proc/{adapter_pid}/cmdline").read_text()
    os.kill(process.pid, 15)
    process.wait(timeout=10)
    samples = remote.parse_samples(
        (tmp_path / "role-1.samples").read_text(), os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    )
    summary = remote.summarize(samples)
    assert summary is not None and summary["samples"] >= 3
    assert summary["cpu_percent"] > 20, summary  # the busy adapter, not the idle shell that started it


needs_pi = pytest.mark.skipif(
    pi_namespace.available() is not None, reason=f"no namespace Pi here: {pi_namespace.available()}"
)


@needs_pi
def test_remote_check_fails_a_server_that_does_not_start(tmp_path):
    """The remote check's judge against a purpose-built faulty "adapter" deployed over ssh."""
    broken = tmp_path / "broken-adapter"
    broken.write_text("#!/bin/sh\necho 'broken on purpose' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pi_namespace.PiNamespace() as pi:
        host = pi.remote_host()
        steps, resources = remote.serve_and_check(
            open_store(tmp_path / "remote.sqlite"),
            host,
            remote.deploy_binary(host, broken),
            "open62541",
            workdir=tmp_path / "run",
            ready_timeout=20,
        )
        assert [step.step for step in steps] == ["deploy", "server ready", "nothing left on the remote host"]
        assert steps[1].status == "fail" and resources is None
        assert steps[2].status == "pass", steps[2].detail
        assert not list(pi.dir.glob("uabench.*")), "the remote work directory was left behind"
    # The fixture host leaves nothing behind.
    assert pi.namespace not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


# --- targets: checked before ssh sees them ------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "port", "parent", "message"),
    [
        ("-oProxyCommand=touch /tmp/pwned", 22, "", "not starting with '-'"),
        ("pi@-oProxyCommand=x", 22, "", "not user@host"),
        ("-l root", 22, "", "not user@host"),
        ("", 22, "", "not user@host"),
        ("pi@host; rm -rf /", 22, "", "not user@host"),
        ("pi@host\nProxyCommand x", 22, "", "not user@host"),
        ("pi@raspberrypi.local", 0, "", "port 0 is not between 1 and 65535"),
        ("pi@raspberrypi.local", 22, "relative/dir", "is not an absolute path"),
    ],
)
def test_a_bad_target_is_refused_in_one_line(target, port, parent, message):
    with pytest.raises(remote.RemoteError, match=message) as refused:
        remote.RemoteHost(target, port, parent=parent)
    assert "\n" not in str(refused.value).replace("\\n", "")


def test_good_targets_reach_ssh_after_a_double_dash():
    for target in ("pi@raspberrypi.local", "192.168.1.20", "pi@fe80::1%eth0", "ci-runner_2@host-1"):
        host = remote.RemoteHost(target)
        assert host.ssh_base()[-2:] == ["--", target]


def test_uabench_remote_refuses_an_option_as_target_with_exit_2(capsys, tmp_path):
    from uabench import cli

    marker = tmp_path / "pwned"
    code = cli.main(
        [
            "--store",
            str(tmp_path / "s.sqlite"),
            "remote",
            f"--target=-oProxyCommand=touch {marker}",
            "--binary",
            "/bin/true",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("uabench: error: remote target") and err.count("\n") == 1, err
    assert "Traceback" not in err and not marker.exists()


@needs_pi
def test_a_failed_deployment_leaves_no_work_directory(tmp_path):
    with pi_namespace.PiNamespace() as pi:
        with pytest.raises(remote.RemoteError, match="scp"):
            remote.deploy_binary(pi.remote_host(), tmp_path / "no-such-adapter")
        assert not list(pi.dir.glob("uabench.*")), "the remote work directory was left behind"


@needs_pi
def test_the_work_directory_is_private_and_uploaded_keys_go_when_the_role_ends(tmp_path):
    """A role's config and the private key it names are uploaded into the mktemp -d directory
    and removed when the role ends (here: it fails with status 3)."""
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nnot a real key\n-----END PRIVATE KEY-----\n")
    config = tmp_path / "server.json"
    config.write_text(json.dumps({"security": {"private_key": str(key)}}))
    with pi_namespace.PiNamespace() as pi:
        host = remote.make_workdir(pi.remote_host())
        workdir = Path(host.workdir)  # the namespace Pi shares this machine's file system
        assert workdir.parent == pi.dir and workdir.name.startswith("uabench.")
        assert stat.S_IMODE(workdir.stat().st_mode) == 0o700
        remote.prepare(host)
        shown = tmp_path / "seen"
        # The "adapter" proves the key was there while it ran, then fails.
        command = ["/bin/sh", "-c", f'ls "{workdir}" > {shown}; exit 3', "uabench-test"]
        assert remote.launch(host, command, ["server", "--config", str(config)]) == 3
        seen = shown.read_text().split()
        assert any(name.endswith("-private_key.pem") for name in seen), seen
        left = sorted(path.name for path in workdir.iterdir())
        assert not [name for name in left if name.endswith((".json", ".pem"))], left
        assert remote.remove_workdir(host) == [] and not workdir.exists()


@needs_pi
def test_a_check_that_cannot_start_still_removes_the_deployment(tmp_path):
    """Failing before the session exists (an SDK id nobody has) still removes what was deployed."""
    from uabench import sdks

    with pi_namespace.PiNamespace() as pi:
        host = pi.remote_host()
        deployment = remote.deploy_binary(host, Path("/bin/true"))
        assert Path(deployment.host.workdir).is_dir()
        with pytest.raises(sdks.UnknownSdk):
            remote.serve_and_check(open_store(tmp_path / "s.sqlite"), host, deployment, "no-such-sdk")
        assert not list(pi.dir.glob("uabench.*")), "the remote work directory was left behind"
