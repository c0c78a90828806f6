"""Remote hosts over SSH: run an adapter role on another machine (a Raspberry Pi).

`uabench run … --server-target ssh://user@host --arch arm64` (targets/ssh.py) uses this
module: it makes a work directory on the remote host with the wrapper in it (work_directory)
and starts each role through a local launcher (write_launcher); targets/ssh.py loads the
images into the remote podman. The role is
started through `ssh` by a small POSIX-sh wrapper on the remote side (REMOTE_WRAPPER) that

- runs the adapter with its stdout on the ssh channel, so the JSON line protocol of
  adapters/SPEC.md reaches the harness unchanged (logs: stderr, as always);
- writes the adapter's pid to DIR/NAME.adapter.pid and starts the harness's own sampler on it,
  `python3 -m uabench.proc.agent sample PID DIR/NAME` (proc/agent.py, shipped into DIR/py),
  which writes DIR/NAME.samples.jsonl; nothing is sampled in shell;
- forwards SIGTERM to the adapter, so stopping is the contract's SIGTERM, exit 0.

Locally the role is an ordinary AdapterProcess whose `run` is `python -m uabench.targets.remote
launch ...` (write_launcher): it uploads the config (and the certificate files it names, with
their paths rewritten), opens the ssh channel and, on SIGTERM, sends the remote adapter SIGTERM
and waits for it. Only `ssh`/`scp` (openssh-client) are needed here; `sh`, `mktemp`, /proc and
python3 there.

Everything goes into a directory made by `mktemp -d` on the remote host (not a predictable
/tmp path), removed with everything uploaded to it (configs, private keys, the agent) when
the run is done or deploying fails (work_directory). A target is checked before ssh sees it, and passed after
`--`, so it can never be read as an ssh option.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REMOTE_WRAPPER = r"""#!/bin/sh
# uabench remote wrapper: run an adapter, sample it with the harness's agent, forward SIGTERM.
# usage: uabench-remote DIR NAME [--adapter-env NAME=VALUE] -- COMMAND [ARGS...]
# --adapter-env: COMMAND only starts the adapter (an engine's `run`): the process sampled is the
# one whose environment holds NAME=VALUE (the container's adapter, not the engine's CLI).
# The agent (uabench.proc.agent, shipped into DIR/py) is the harness's own sampler.
dir=$1; name=$2; shift 2
marker=
if [ "$1" = --adapter-env ]; then marker=$2; shift 2; fi
[ "$1" = -- ] && shift
"$@" &
pid=$!
echo "$pid" > "$dir/$name.pid"
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
(
  sampled=$pid
  if [ -n "$marker" ]; then
    sampled=; i=0
    while [ -z "$sampled" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 3000 ]; do
      for f in /proc/[0-9]*/environ; do  # the lowest such pid: the adapter, not a child it started
        if tr '\0' '\n' < "$f" 2>/dev/null | grep -qxF -- "$marker"; then
          p=${f#/proc/}; p=${p%/environ}
          if [ -z "$sampled" ] || [ "$p" -lt "$sampled" ]; then sampled=$p; fi
        fi
      done
      [ -n "$sampled" ] || { sleep 0.1; i=$((i+1)); }
    done
    [ -n "$sampled" ] || exit 0
  fi
  echo "$sampled" > "$dir/$name.adapter.pid"
  if [ -d "$dir/py" ]; then
    python=python3; [ -x /usr/bin/python3 ] && python=/usr/bin/python3  # where apt puts psutil
    PYTHONPATH="$dir/py" exec "$python" -m uabench.proc.agent sample "$sampled" "$dir/$name"
  fi
) > "$dir/$name.agent.log" 2>&1 < /dev/null &
echo "$!" > "$dir/$name.agent.pid"  # *.pid: killed with the work directory
status=0
while :; do
  wait "$pid"; status=$?
  kill -0 "$pid" 2>/dev/null || break
done
exit "$status"
"""

SSH_OPTIONS = ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o", "LogLevel=ERROR"]


class RemoteError(Exception):
    pass


# [user@]host: a user name and a host name, IPv4 or IPv6 address; neither may start with '-'
# (ssh would read it as an option even after validation elsewhere: `--` is passed as well).
TARGET = re.compile(r"(?:(?P<user>[A-Za-z0-9_.][A-Za-z0-9_.-]*)@)?(?P<host>[A-Za-z0-9_.:%\[\]][A-Za-z0-9_.:%\[\]-]*)")


def check_target(target: str, port: int = 22, parent: str = "") -> None:
    """A RemoteError of one line for a target, port or remote directory ssh must not get."""
    if not target or TARGET.fullmatch(target) is None:
        raise RemoteError(
            f"remote target {target!r} is not user@host (letters, digits, '.', '_', '-', ':'; not starting with '-')"
        )
    if not 0 < port < 65536:
        raise RemoteError(f"remote port {port} is not between 1 and 65535")
    if parent and (not parent.startswith("/") or any(ord(c) < 32 for c in parent)):
        raise RemoteError(f"remote directory {parent!r} is not an absolute path")


@dataclass(frozen=True)
class RemoteHost:
    """`user@host` reachable with key-based ssh (no password prompts)."""

    target: str  # user@host
    port: int = 22
    identity: str | None = None  # private key file
    known_hosts: str | None = None  # a known_hosts file; None = the user's
    parent: str = ""  # where the work directory is made; "" = the remote's $TMPDIR or /tmp
    strict_host_key: bool = True
    workdir: str = ""  # the work directory, once made (`prepare`)
    control: str = ""  # an ssh ControlMaster's socket: every ssh and scp rides its one connection

    def __post_init__(self) -> None:
        check_target(self.target, self.port, self.parent)

    @property
    def address(self) -> str:
        return self.target.rsplit("@", 1)[-1]

    def ssh_base(self) -> list[str]:
        options = [*SSH_OPTIONS, "-p", str(self.port)]
        return ["ssh", *options, *self._auth(), "--", self.target]

    def _auth(self) -> list[str]:
        extra = []
        if self.identity:
            extra += ["-i", self.identity, "-o", "IdentitiesOnly=yes"]
        if self.known_hosts:
            extra += ["-o", f"UserKnownHostsFile={self.known_hosts}"]
        if not self.strict_host_key:
            extra += ["-o", "StrictHostKeyChecking=accept-new"]
        if self.control:
            extra += ["-o", f"ControlPath={self.control}", "-o", "ControlMaster=no"]
        return extra

    def ssh(
        self, command: str, *, check: bool = True, timeout: float = 60, input: bytes | None = None, stdin=None
    ) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [*self.ssh_base(), command], input=input, stdin=stdin, capture_output=True, timeout=timeout
        )
        if check and done.returncode != 0:
            raise RemoteError(
                f"ssh {self.target} {command[:80]!r} exited {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()[-400:]}"
            )
        return done

    def copy_to(self, local: Path, remote: str) -> None:
        command = [
            "scp",
            "-q",
            *SSH_OPTIONS,
            "-P",
            str(self.port),
            *self._auth(),
            "--",
            str(local),
            f"{self.target}:{remote}",
        ]
        done = subprocess.run(command, capture_output=True, timeout=300)
        if done.returncode != 0:
            raise RemoteError(
                f"scp {local} -> {self.target}:{remote} failed: {done.stderr.decode(errors='replace').strip()[-400:]}"
            )

    def to_args(self) -> list[str]:
        args = ["--target", self.target, "--port", str(self.port), "--workdir", self.workdir]
        if self.parent:
            args += ["--parent", self.parent]
        if self.identity:
            args += ["--identity", self.identity]
        if self.known_hosts:
            args += ["--known-hosts", self.known_hosts]
        if not self.strict_host_key:
            args.append("--accept-new-host-key")
        if self.control:
            args += ["--control", self.control]
        return args


def make_workdir(host: RemoteHost) -> RemoteHost:
    """The host with its own work directory, made by `mktemp -d` there (mode 0700, a name
    nobody can guess or claim first)."""
    template = shlex.quote(f"{host.parent}/uabench.XXXXXXXX") if host.parent else '"${TMPDIR:-/tmp}/uabench.XXXXXXXX"'
    made = host.ssh(f"mktemp -d {template}").stdout.decode(errors="replace").strip()
    if not made.startswith("/") or "\n" in made:
        raise RemoteError(f"mktemp -d on {host.target} gave {made!r}, not a directory")
    return dataclasses.replace(host, workdir=made)


def remove_workdir(host: RemoteHost) -> list[str]:
    """Stop what still runs from the work directory and remove it with everything uploaded to
    it (configs, private keys, the adapter). Returns what is left afterwards ([]: nothing)."""
    if not host.workdir:
        return []
    script = (
        f'd={shlex.quote(host.workdir)}; pids=$(cat "$d"/*.pid 2>/dev/null); '
        'for p in $pids; do kill -KILL "$p" 2>/dev/null; done; rm -rf -- "$d"; '
        # a killed process may take a moment to go; 2 s each at most
        'for p in $pids; do i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; '
        'kill -0 "$p" 2>/dev/null && echo "process $p still runs"; done; '
        '[ -e "$d" ] && echo "directory $d still there"; true'
    )
    left = host.ssh(script, timeout=60).stdout.decode(errors="replace")
    return [line for line in left.splitlines() if line.strip()]


def install_wrapper(host: RemoteHost) -> None:
    """The remote wrapper into the host's work directory."""
    wrapper = f"{host.workdir}/uabench-remote"
    host.ssh(f"cat > {shlex.quote(wrapper)} && chmod +x {shlex.quote(wrapper)}", input=REMOTE_WRAPPER.encode())


@contextmanager
def work_directory(host: RemoteHost, say: Callable[[str], None]) -> Iterator[RemoteHost]:
    """The host with a work directory of its own (make_workdir) holding the wrapper, removed
    with everything in it and everything still running from it however the block ends (a
    failed deployment, an interrupt); what could not be removed is said, line by line."""
    made = make_workdir(host)
    try:
        install_wrapper(made)
        yield made
    finally:
        try:
            left = remove_workdir(made)
        except (RemoteError, subprocess.TimeoutExpired) as error:
            left = [f"not removed: {str(error).splitlines()[0] if str(error) else type(error).__name__}"]
        for what in left:
            say(f"{host.target}: {what}")


# The role's name in the container's environment: the remote wrapper samples the process that
# carries it (the adapter), not `podman run`, which only relays its output. ROLE is replaced by
# the role's name when it starts (launch).
ADAPTER_ENV = "UABENCH_ADAPTER"
ROLE = "@ROLE@"


def _podman_run(host: RemoteHost, image: str, run_args: list[str] | None, env: list[str] | None) -> list[str]:
    return [
        *(["env", *env] if env else []),
        "podman",
        "run",
        "--rm",
        "--network",
        "host",
        "--env",
        f"{ADAPTER_ENV}={ROLE}",
        *(run_args or []),
        "--volume",
        f"{host.workdir}:{host.workdir}",
        image,
    ]


# --- the launcher (runs locally as an adapter's `run`) ---------------------------------------

FILE_KEYS = ("certificate", "private_key")
# An uploaded copy's name starts with its role's (role-LAUNCHERPID-…): one file uploaded for two
# processes differs only there, and so do the reasons that name it (same_file_names).
ROLE_PREFIX = re.compile(r"\brole-\d+-")


def same_file_names(text: str) -> str:
    """`text` with each uploaded copy named as every process's copy of that file is."""
    return ROLE_PREFIX.sub("role-…-", text)


def _rewrite_config(host: RemoteHost, config: dict, name: str) -> dict:
    """Upload the files a config names (certificates, keys, NodeSet2 files) and point the config
    at the uploaded copies."""
    config = json.loads(json.dumps(config))
    security = config.get("security")
    if isinstance(security, dict):
        for key in FILE_KEYS:
            if key in security:
                security[key] = _uploaded(host, security[key], f"{name}-{key}")
        trusted = security.get("trusted_certificates")
        if isinstance(trusted, list):
            security["trusted_certificates"] = [
                _uploaded(host, path, f"{name}-trusted-{index}") for index, path in enumerate(trusted)
            ]
    nodesets = config.get("nodesets")
    if isinstance(nodesets, list):  # a server's NodeSet2 files (adapters/SPEC.md §4), in their order
        config["nodesets"] = [_uploaded(host, path, f"{name}-nodeset-{index}") for index, path in enumerate(nodesets)]
    return config


def _uploaded(host: RemoteHost, path: object, stem: str) -> object:
    """The remote copy's path of a local file a config names; anything else as it is (the adapter
    refuses what it cannot read, there as here)."""
    if not isinstance(path, str) or not Path(path).exists():
        return path
    remote = f"{host.workdir}/{stem}{Path(path).suffix}"
    host.copy_to(Path(path), remote)
    return remote


def launch(host: RemoteHost, command: list[str], adapter_args: list[str]) -> int:
    """Run `command adapter_args` on the remote host with the wrapper; the config file named
    by --config is uploaded first, and removed with every file uploaded for it (private keys,
    certificates) when the role ends, however it ends. Returns the remote exit status."""
    name = f"role-{os.getpid()}"
    try:
        return _run_role(host, command, list(adapter_args), name)
    finally:
        workdir = shlex.quote(host.workdir)
        host.ssh(f"rm -f -- {workdir}/{name}.json {workdir}/{name}-*", check=False, timeout=20)


def _run_role(host: RemoteHost, command: list[str], args: list[str], name: str) -> int:
    if "--config" in args:
        index = args.index("--config") + 1
        local = Path(args[index])
        config = _rewrite_config(host, json.loads(local.read_text()), name)
        remote_config = f"{host.workdir}/{name}.json"
        host.ssh(f"cat > {shlex.quote(remote_config)}", input=json.dumps(config).encode())
        args[index] = remote_config
    marker = f"{ADAPTER_ENV}={ROLE}"
    sampled: list[str] = []
    if marker in command:  # an image: sample its adapter by the name in its environment
        command = [f"{ADAPTER_ENV}={name}" if part == marker else part for part in command]
        sampled = ["--adapter-env", f"{ADAPTER_ENV}={name}"]
    remote = " ".join(
        shlex.quote(part)
        for part in [f"{host.workdir}/uabench-remote", host.workdir, name, *sampled, "--", *command, *args]
    )
    # ssh in its own session: a SIGTERM to this launcher's process group (how the harness
    # stops an adapter) must reach the remote adapter as SIGTERM, not end the ssh channel.
    channel = subprocess.Popen([*host.ssh_base(), remote], stdin=subprocess.DEVNULL, start_new_session=True)
    stopping = {"sent": False}

    def stop(signum, _frame):
        if not stopping["sent"]:
            stopping["sent"] = True
            host.ssh(
                f"kill -TERM $(cat {shlex.quote(host.workdir)}/{name}.pid) 2>/dev/null || true", check=False, timeout=20
            )

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        return channel.wait()
    finally:
        if channel.poll() is None:  # this launcher is going away: so does its channel
            channel.terminate()


def write_launcher(path: Path, host: RemoteHost, command: list[str]) -> Path:
    """A local `run` script for AdapterProcess that starts `command` on the host remotely."""
    parts = [sys.executable, "-m", "uabench.targets.remote", "launch", *host.to_args(), "--", *command]
    harness = Path(__file__).resolve().parents[2]
    path.write_text(
        "#!/bin/sh\n# uabench remote launcher (generated)\n"
        f"export PYTHONPATH={shlex.quote(str(harness))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
        f'exec {" ".join(shlex.quote(p) for p in parts)} "$@"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# --- command line of the launcher --------------------------------------------------------------


def _host_from(args: argparse.Namespace) -> RemoteHost:
    return RemoteHost(
        args.target,
        args.port,
        args.identity,
        args.known_hosts,
        args.parent,
        not args.accept_new_host_key,
        args.workdir,
        args.control,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uabench.targets.remote")
    commands = parser.add_subparsers(dest="command", required=True)
    launch_parser = commands.add_parser("launch", help="run an adapter role remotely (an adapter `run`)")
    for one in (launch_parser,):
        one.add_argument("--target", required=True)
        one.add_argument("--port", type=int, default=22)
        one.add_argument("--identity")
        one.add_argument("--known-hosts")
        one.add_argument("--workdir", required=True, help="the work directory made by mktemp -d there")
        one.add_argument("--parent", default="")
        one.add_argument("--accept-new-host-key", action="store_true")
        one.add_argument("--control", default="", help="an ssh ControlMaster socket")
    launch_parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    # rest = remote command ... followed by the adapter's role arguments (role --config FILE)
    roles = {"capabilities", "server", "client", "publisher", "subscriber"}
    split = next((i for i, part in enumerate(rest) if part in roles), len(rest))
    try:
        return launch(_host_from(args), rest[:split], rest[split:])
    except (RemoteError, OSError, ValueError, subprocess.TimeoutExpired) as error:
        print(f"uabench remote launch: {error}", file=sys.stderr)  # one line, on the adapter's log
        return 1


if __name__ == "__main__":
    sys.exit(main())
