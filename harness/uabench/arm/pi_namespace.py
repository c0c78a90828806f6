"""A stand-in "Raspberry Pi" on this machine: a network namespace reached over a veth pair,
running its own sshd with throw-away keys. The remote-target code (uabench.remote) is
tested against it exactly as against a real Pi; only the addresses are local.

    with PiNamespace() as pi:
        host = pi.remote_host()      # RemoteHost for root@<pi address>:2222

Needs root, iproute2 and openssh-server. Everything it creates (namespace, veth, sshd,
keys) is removed on exit.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from uabench.arm.remote import RemoteHost

SSH_PORT = 2222


class PiNamespaceError(Exception):
    pass


def available() -> str | None:
    """None if a PiNamespace can be made here, else why not."""
    if os.geteuid() != 0:
        return "needs root (ip netns, sshd)"
    for tool in ("ip", "nsenter", "sshd", "ssh", "scp", "ssh-keygen"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            return f"'{tool}' is not installed (apt: iproute2 openssh-server openssh-client)"
    return None


def _run(*command: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise PiNamespaceError(f"{' '.join(command)}: {done.stderr.strip()}")


class PiNamespace:
    def __init__(self, subnet_octet: int | None = None) -> None:
        tag = secrets.token_hex(3)
        self.namespace = f"uabench-pi-{tag}"
        self.veth_host, self.veth_pi = f"uapi{tag}h", f"uapi{tag}p"
        octet = subnet_octet if subnet_octet is not None else 64 + secrets.randbelow(128)
        # A /30 that exists only between this machine and the namespace.
        self.host_address, self.address = f"10.213.{octet}.1", f"10.213.{octet}.2"
        self.dir = Path(tempfile.mkdtemp(prefix="uabench-pi_namespace-"))
        self.sshd: subprocess.Popen | None = None

    # --- set-up --------------------------------------------------------------------------

    def __enter__(self) -> PiNamespace:
        try:
            self._network()
            self._sshd()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def _network(self) -> None:
        _run("ip", "netns", "add", self.namespace)
        _run("ip", "link", "add", self.veth_host, "type", "veth", "peer", "name", self.veth_pi)
        _run("ip", "link", "set", self.veth_pi, "netns", self.namespace)
        _run("ip", "addr", "add", f"{self.host_address}/30", "dev", self.veth_host)
        _run("ip", "link", "set", self.veth_host, "up")
        _run("ip", "netns", "exec", self.namespace, "ip", "addr", "add", f"{self.address}/30", "dev", self.veth_pi)
        _run("ip", "netns", "exec", self.namespace, "ip", "link", "set", self.veth_pi, "up")
        _run("ip", "netns", "exec", self.namespace, "ip", "link", "set", "lo", "up")

    def _sshd(self) -> None:
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.dir / "host_key"))
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.dir / "client_key"))
        shutil.copy(self.dir / "client_key.pub", self.dir / "authorized_keys")
        (self.dir / "authorized_keys").chmod(0o600)
        host_public = (self.dir / "host_key.pub").read_text().split()
        (self.dir / "known_hosts").write_text(f"[{self.address}]:{SSH_PORT} {host_public[0]} {host_public[1]}\n")
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        (self.dir / "sshd_config").write_text(
            f"ListenAddress {self.address}\nPort {SSH_PORT}\nHostKey {self.dir / 'host_key'}\n"
            f"PidFile {self.dir / 'sshd.pid'}\nAuthorizedKeysFile {self.dir / 'authorized_keys'}\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "UsePAM no\nStrictModes no\nPrintMotd no\nAcceptEnv LANG\nSubsystem sftp internal-sftp\n")
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        log = (self.dir / "sshd.log").open("w")
        # nsenter, not `ip netns exec`: the latter mounts a fresh /sys without the cgroup
        # hierarchy, which podman on the "Pi" needs.
        self.sshd = subprocess.Popen(["nsenter", f"--net=/run/netns/{self.namespace}", sshd, "-D", "-e",
                                      "-f", str(self.dir / "sshd_config")],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        host = self.remote_host()
        deadline = time.monotonic() + 20
        while True:
            probe = subprocess.run([*host.ssh_base(), "true"], capture_output=True, text=True, timeout=30)
            if probe.returncode == 0:
                return
            if self.sshd.poll() is not None or time.monotonic() > deadline:
                raise PiNamespaceError(f"sshd in {self.namespace} did not come up: {probe.stderr.strip()} "
                                  f"{(self.dir / 'sshd.log').read_text()[-400:]}")
            time.sleep(0.3)

    # podman on the namespace Pi is this machine's: its containers.conf (ci/containers), no pulls.
    PODMAN_RUN_ARGS = ["--pull=never"]

    def podman_env(self) -> list[str]:
        from uabench.arm import images

        return [f"CONTAINERS_CONF={images.CONTAINERS_CONF}"]

    def remote_host(self, workdir: str | None = None) -> RemoteHost:
        return RemoteHost(f"root@{self.address}", SSH_PORT, str(self.dir / "client_key"),
                          str(self.dir / "known_hosts"), workdir or str(self.dir / "pi-home"))

    # --- tear-down -----------------------------------------------------------------------

    def close(self) -> None:
        if self.sshd and self.sshd.poll() is None:
            try:
                os.killpg(self.sshd.pid, signal.SIGTERM)
                self.sshd.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.sshd.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.sshd.wait(timeout=5)
        # Anything still running in the namespace (a remote adapter) dies with it.
        pids = subprocess.run(["ip", "netns", "pids", self.namespace], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "link", "delete", self.veth_host], capture_output=True)
        subprocess.run(["ip", "netns", "delete", self.namespace], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
