"""Remote targets over SSH (uabench.arm.remote): the remote wrapper, and the remote check's
judge against a faulty adapter on the stand-in "Pi" (uabench.checks.fixtures.pi_namespace, a
network namespace with its own sshd). The check itself is uabench/checks/test_remote.py."""

import os
import subprocess
import sys
import time

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
        assert [step.step for step in steps] == ["deploy", "server ready"]
        assert steps[-1].status == "fail" and resources is None
    # The fixture host leaves nothing behind.
    assert pi.namespace not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
