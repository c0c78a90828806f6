"""Remote targets over SSH (uabench.remote), against a stand-in "Pi": a network namespace on
this machine with its own sshd (uabench.pi_namespace). Real ssh, real adapters, no mocks."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uabench import paths
from uabench.arm import pi_namespace, remote
from uabench.results.store import open_store


def _host_binary() -> Path | None:
    """A native build of the C adapter: Bazel's (ci/bazel-build host) or CMake's."""
    for candidate in (paths.REPO / ".cache" / "dist" / "host" / "uabench-open62541",
                      paths.REPO / "adapters" / "open62541" / "build" / "uabench-open62541"):
        if candidate.exists():
            return candidate
    return None


def test_wrapper_samples_a_real_process(tmp_path):
    """The remote wrapper, run here: it passes stdout through, records the pid, samples
    /proc, forwards SIGTERM and returns the adapter's exit status."""
    wrapper = tmp_path / "uabench-remote"
    wrapper.write_text(remote.REMOTE_WRAPPER)
    wrapper.chmod(0o755)
    program = ("import signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
               "print('{\"event\": \"ready\"}', flush=True)\n"
               "end = time.time() + 30\n"
               "while time.time() < end: sum(range(10000))\n")
    process = subprocess.Popen([str(wrapper), str(tmp_path), "busy", "--", sys.executable, "-c", program],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == '{"event": "ready"}'
    time.sleep(1.6)
    pid = int((tmp_path / "busy.pid").read_text())
    os.kill(process.pid, 15)  # the wrapper forwards it
    assert process.wait(timeout=10) == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    samples = remote.parse_samples((tmp_path / "busy.samples").read_text(), os.sysconf("SC_CLK_TCK"),
                                   os.sysconf("SC_PAGE_SIZE"))
    summary = remote.summarize(samples)
    assert summary is not None and summary["samples"] >= 3
    assert summary["cpu_percent"] > 20  # a busy loop
    assert summary["rss_peak_bytes"] > 1_000_000 and summary["threads_max"] >= 1


@pytest.mark.skipif(pi_namespace.available() is not None, reason=f"no namespace Pi here: {pi_namespace.available()}")
def test_server_on_a_remote_host_over_ssh(tmp_path):
    binary = _host_binary()
    if binary is None:
        pytest.skip("no native C adapter build (ci/bazel-build host or implementations/open62541/install)")
    with pi_namespace.PiNamespace() as pi:
        host = pi.remote_host()
        deployment = remote.deploy_binary(host, binary)
        assert deployment.facts["clk_tck"] > 0 and deployment.facts["machine"]
        store = open_store(tmp_path / "remote.sqlite")
        steps, resources = remote.serve_and_check(store, host, deployment, "open62541", workdir=tmp_path / "run")
        by_name = {step.step: step for step in steps}
        assert all(step.status == "pass" for step in steps), steps
        assert pi.address in by_name["server ready"].detail  # the server listens on the "Pi"
        assert resources and resources["samples"] >= 2 and resources["rss_peak_bytes"] > 0
        cells = store.cells(suite="remote")
        assert {cell["kind"] for cell in cells} >= {"read every node", "write + read back", "server resources"}
        assert all(not cell["emulated"] for cell in cells)
        # Nothing of the run is left on the remote side.
        left = host.ssh(f"for f in {host.workdir}/*.pid; do kill -0 $(cat $f) 2>/dev/null && echo alive; done; true")
        assert b"alive" not in left.stdout
    assert pi.namespace not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def _image(name: str) -> bool:
    from uabench.arm import images

    try:
        return images.image_exists(name)
    except images.ImageError:
        return False


@pytest.mark.skipif(pi_namespace.available() is not None or not _image("localhost/uabench/open62541:arm64"),
                    reason="needs the namespace Pi and the image (uabench images --arch arm64 --sdk open62541)")
def test_image_on_a_remote_host_over_ssh(tmp_path):
    """The image route: podman save | ssh podman load, podman run there (arm64 under qemu)."""
    with pi_namespace.PiNamespace() as pi:
        host = pi.remote_host()
        deployment = remote.deploy_image(host, "localhost/uabench/open62541:arm64", pi.PODMAN_RUN_ARGS,
                                         pi.podman_env())
        steps, _ = remote.serve_and_check(open_store(tmp_path / "remote.sqlite"), host, deployment, "open62541",
                                          workdir=tmp_path / "run")
        assert all(step.status == "pass" for step in steps), steps
