"""Remote hosts over SSH (uabench.targets.remote), as `uabench run … --server-target ssh://…`
(uabench.targets.ssh) uses them: the remote wrapper with the harness's agent sampling what it
starts, run here; targets refused before ssh sees them; and, on the stand-in "Pi"
(uabench.checks.fixtures.pi_namespace, a network namespace with its own sshd), the work
directory and what is uploaded into it."""

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import uabench
from uabench import targets
from uabench.checks.fixtures import pi_namespace
from uabench.proc import agent
from uabench.targets import remote, ssh


class LocalFiles(ssh.SshTarget):
    """An SSH target whose remote files are this machine's (as in test_targets.py): the
    RemoteSampler reads what the agent wrote without ssh."""

    def __init__(self, workdir: Path) -> None:
        host = ssh.RemoteHost("root@127.0.0.1", workdir=str(workdir))
        super().__init__(
            targets.Spec("ssh", "root@127.0.0.1"), host, ssh.images.arch("arm64"), {}, {"offset_ns": 0}, {}
        )

    def read_from(self, remote: str, offset: int) -> bytes:
        try:
            return Path(remote).read_bytes()[offset:]
        except FileNotFoundError:
            return b""


def _wrapper(workdir: Path) -> Path:
    """The wrapper and the agent in `workdir` as prepare and targets/ssh.py put them there: the
    files of agent.SHIPPED under workdir/py, at their paths relative to the harness."""
    harness = Path(uabench.__file__).resolve().parents[1]
    for name in agent.SHIPPED:
        shipped = workdir / "py" / name
        shipped.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(harness / name, shipped)
    wrapper = workdir / "uabench-remote"
    wrapper.write_text(remote.REMOTE_WRAPPER)
    wrapper.chmod(0o755)
    return wrapper


def _environment() -> dict[str, str]:
    """The wrapper's: this interpreter (with psutil) is the remote's `python3`, no perf."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment["UABENCH_NO_PERF"] = "1"
    return environment


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")  # a zombie nobody reaped yet has ended too


def _agent_ended(workdir: Path, name: str, timeout: float = 5.0) -> None:
    """The agent ends with the process it samples."""
    pid = int((workdir / f"{name}.agent.pid").read_text())
    deadline = time.monotonic() + timeout
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    log = (workdir / f"{name}.agent.log").read_text() if (workdir / f"{name}.agent.log").exists() else ""
    assert _gone(pid), f"the agent {pid} still runs after its process ended; its log: {log}"


def _sampled(workdir: Path, name: str) -> ssh.RemoteSampler:
    lines = (workdir / f"{name}.samples.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert set(header) == {"counter", "perf_started_ns"} and header["perf_started_ns"] is None, header
    assert len(lines) >= 4, lines  # a header and samples every 0.25 s
    return ssh.RemoteSampler(LocalFiles(workdir), name)


def test_wrapper_samples_a_real_process(tmp_path):
    """The remote wrapper, run here: it passes stdout through, records the pid, has the agent
    sample the process, forwards SIGTERM and returns the adapter's exit status."""
    wrapper = _wrapper(tmp_path)
    program = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
        'print(\'{"event": "ready"}\', flush=True)\n'
        "end = time.time() + 30\n"
        "while time.time() < end: sum(range(10000))\n"
    )
    process = subprocess.Popen(
        [str(wrapper), str(tmp_path), "busy", "--", sys.executable, "-c", program],
        stdout=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    assert process.stdout.readline().strip() == '{"event": "ready"}'
    start = time.time_ns() + 500_000_000  # the agent has started by then
    time.sleep(2.2)
    end = time.time_ns() - 200_000_000
    pid = int((tmp_path / "busy.pid").read_text())
    assert int((tmp_path / "busy.adapter.pid").read_text()) == pid
    os.kill(process.pid, 15)  # the wrapper forwards it
    assert process.wait(timeout=10) == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    _agent_ended(tmp_path, "busy")
    window = _sampled(tmp_path, "busy").window(start, end)
    assert window is not None, (tmp_path / "busy.samples.jsonl").read_text()
    assert window["cpu_percent"] > 20, window  # a busy loop
    assert window["rss_max"] > 1_000_000 and window["threads_max"] >= 1, window


def test_wrapper_samples_the_adapter_an_engine_started_not_the_engine(tmp_path):
    """With --adapter-env the command only starts the adapter (as `podman run` does): the
    wrapper has the agent sample the process whose environment carries the role's name, here a
    busy child of an idle shell, and the idle starter is not what it measures."""
    wrapper = _wrapper(tmp_path)
    busy = "import time\nend = time.time() + 30\nwhile time.time() < end: sum(range(10000))\n"
    starter = (
        f"UABENCH_ADAPTER=role-1 {sys.executable} -c '{busy}' & child=$!; "
        'trap "kill $child" TERM; echo \'{"event": "ready"}\'; wait $child; wait $child'
    )
    process = subprocess.Popen(
        [str(wrapper), str(tmp_path), "role-1", "--adapter-env", "UABENCH_ADAPTER=role-1", "--", "sh", "-c", starter],
        stdout=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    assert process.stdout.readline().strip() == '{"event": "ready"}'
    start = time.time_ns() + 1_000_000_000  # the wrapper looks for the adapter every 0.1 s
    time.sleep(2.7)
    end = time.time_ns() - 200_000_000
    starter_pid = int((tmp_path / "role-1.pid").read_text())
    adapter_pid = int((tmp_path / "role-1.adapter.pid").read_text())
    assert adapter_pid != starter_pid and f"{sys.executable}" in Path(f"/proc/{adapter_pid}/cmdline").read_text()
    os.kill(process.pid, 15)
    process.wait(timeout=10)
    _agent_ended(tmp_path, "role-1")
    sampler = _sampled(tmp_path, "role-1")
    window = sampler.window(start, end)
    assert window is not None, (tmp_path / "role-1.samples.jsonl").read_text()
    assert window["cpu_percent"] > 20, window  # the busy adapter, not the idle shell that started it
    assert window["rss_max"] > 1_000_000, window
    sampled = {tid for sample in sampler.samples for tid in sample.cpu.threads}
    assert adapter_pid in sampled and starter_pid not in sampled, sampled


needs_pi = pytest.mark.skipif(
    pi_namespace.available() is not None, reason=f"no namespace Pi here: {pi_namespace.available()}"
)


@needs_pi
def test_a_failed_deployment_leaves_no_work_directory(tmp_path):
    """A deployment that fails inside the work directory (here: uploading a file that is not
    there) removes the directory made for it, as an SSH target's connect does."""
    with pi_namespace.PiNamespace() as pi:
        with pytest.raises(remote.RemoteError, match="scp"):
            with remote.work_directory(pi.remote_host(), print) as host:
                host.copy_to(tmp_path / "no-such-file", f"{host.workdir}/adapter")
                raise AssertionError("scp of a missing file succeeded")
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
        remote.install_wrapper(host)
        shown = tmp_path / "seen"
        # The "adapter" proves the key was there while it ran, then fails.
        command = ["/bin/sh", "-c", f'ls "{workdir}" > {shown}; exit 3', "uabench-test"]
        assert remote.launch(host, command, ["server", "--config", str(config)]) == 3
        seen = shown.read_text().split()
        assert any(name.endswith("-private_key.pem") for name in seen), seen
        left = sorted(path.name for path in workdir.iterdir())
        assert not [name for name in left if name.endswith((".json", ".pem"))], left
        assert remote.remove_workdir(host) == [] and not workdir.exists()
