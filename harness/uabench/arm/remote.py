"""Remote targets over SSH: run an adapter role on another machine (a Raspberry Pi).

The adapter is deployed as a binary (the Bazel cross build, `.cache/dist/<target>/`) or as a
container image (`docker|podman save | ssh host podman load`). The role is then started through
`ssh` by a small POSIX-sh wrapper on the remote side that

- runs the adapter with its stdout on the ssh channel, so the JSON line protocol of
  adapters/SPEC.md reaches the harness unchanged (logs: stderr, as always);
- samples the adapter's /proc/<pid>/stat and /proc/<pid>/status every 0.5 s into a file;
- forwards SIGTERM to the adapter, so stopping is the contract's SIGTERM, exit 0.

Locally the role is an ordinary AdapterProcess whose `run` is `python -m uabench.remote
launch ...`: it uploads the config (and the certificate files it names, with their paths
rewritten), opens the ssh channel and, on SIGTERM, sends the remote adapter SIGTERM and
waits for it. Only `ssh`/`scp` (openssh-client) are needed here; `sh`, `mktemp` and /proc there.

Everything goes into a directory made by `mktemp -d` on the remote host (not a predictable
/tmp path), removed with everything uploaded to it (configs, private keys, the adapter) when
the role is done or deploying fails. A target is checked before ssh sees it, and passed after
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
import time
from dataclasses import dataclass, field
from pathlib import Path

REMOTE_WRAPPER = r"""#!/bin/sh
# uabench remote wrapper: run an adapter, sample it from /proc, forward SIGTERM.
# usage: uabench-remote DIR NAME [--adapter-env NAME=VALUE] -- COMMAND [ARGS...]
# --adapter-env: COMMAND only starts the adapter (an engine's `run`): the process sampled is the
# one whose environment holds NAME=VALUE (the container's adapter, not the engine's CLI).
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
    while [ -z "$sampled" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
      for f in /proc/[0-9]*/environ; do  # the lowest such pid: the adapter, not a child it started
        if tr '\0' '\n' < "$f" 2>/dev/null | grep -qxF -- "$marker"; then
          p=${f#/proc/}; p=${p%/environ}
          if [ -z "$sampled" ] || [ "$p" -lt "$sampled" ]; then sampled=$p; fi
        fi
      done
      [ -n "$sampled" ] || { sleep 0.1; i=$((i+1)); }
    done
    [ -n "$sampled" ] || exit 0
    echo "$sampled" > "$dir/$name.adapter.pid"  # *.pid: killed with the work directory
  fi
  while kill -0 "$sampled" 2>/dev/null; do
    read -r up _ < /proc/uptime
    st=$(cat "/proc/$sampled/stat" 2>/dev/null) || break
    ss=$(grep -E '^(VmRSS|Threads|voluntary_ctxt_switches|nonvoluntary_ctxt_switches):' \
         "/proc/$sampled/status" 2>/dev/null | tr -s ' \t\n' '   ')
    echo "$up|$st|$ss"
    sleep 0.5
  done
) > "$dir/$name.samples" 2>/dev/null < /dev/null &
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

    def read(self, remote: str) -> str:
        return self.ssh(f"cat {shlex.quote(remote)} 2>/dev/null || true").stdout.decode(errors="replace")

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
        return args


@dataclass
class Deployment:
    """An adapter installed on the remote host: the command that runs it there."""

    host: RemoteHost
    command: list[str]
    kind: str  # binary | image
    what: str  # local binary path or image name
    seconds: float = 0.0
    facts: dict = field(default_factory=dict)


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


def prepare(host: RemoteHost) -> dict:
    """Install the wrapper in the work directory, learn the remote's clock tick and page size
    (to turn /proc samples into CPU % and bytes)."""
    wrapper = f"{host.workdir}/uabench-remote"
    host.ssh(f"cat > {shlex.quote(wrapper)} && chmod +x {shlex.quote(wrapper)}", input=REMOTE_WRAPPER.encode())
    facts = host.ssh("getconf CLK_TCK; getconf PAGESIZE; uname -m; nproc").stdout.decode().split()
    return {"clk_tck": int(facts[0]), "page_size": int(facts[1]), "machine": facts[2], "cpus": int(facts[3])}


def _deploy(host: RemoteHost, install) -> Deployment:
    """A fresh work directory, `install(host_with_workdir, facts)` into it; the directory is
    removed again when installing fails (or is interrupted)."""
    started = time.monotonic()
    host = make_workdir(host)
    try:
        deployment = install(host, prepare(host))
    except BaseException:
        try:
            remove_workdir(host)
        except (RemoteError, subprocess.TimeoutExpired):
            pass  # the install's own error is the one to report
        raise
    deployment.seconds = round(time.monotonic() - started, 2)
    return deployment


def deploy_binary(host: RemoteHost, binary: Path) -> Deployment:
    def install(host: RemoteHost, facts: dict) -> Deployment:
        remote = f"{host.workdir}/{binary.name}"
        host.copy_to(binary, remote)
        host.ssh(f"chmod +x {shlex.quote(remote)}")
        return Deployment(host, [remote], "binary", str(binary), facts=facts)

    return _deploy(host, install)


def deploy_image(
    host: RemoteHost, image: str, run_args: list[str] | None = None, env: list[str] | None = None
) -> Deployment:
    """`docker|podman save` here (the engine `--engine` chose), `podman load` there (the
    remote needs podman; both save a docker-archive it loads). `run_args` and `env`
    (NAME=VALUE) adapt `podman run` to the remote, e.g. for the namespace Pi."""
    from uabench.arm import images
    from uabench.containers.engine import EngineError

    def install(host: RemoteHost, facts: dict) -> Deployment:
        try:
            with images.engine().saved(image) as stream:
                host.ssh("podman load -q", stdin=stream, timeout=1800)
        except EngineError as error:
            raise RemoteError(str(error)) from None
        return Deployment(host, _podman_run(host, image, run_args, env), "image", image, facts=facts)

    return _deploy(host, install)


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


def _rewrite_config(host: RemoteHost, config: dict, name: str) -> dict:
    """Upload the files a config names and point the config at the uploaded copies."""
    config = json.loads(json.dumps(config))
    security = config.get("security")
    if isinstance(security, dict):
        for key in FILE_KEYS:
            if isinstance(security.get(key), str) and Path(security[key]).exists():
                remote = f"{host.workdir}/{name}-{key}{Path(security[key]).suffix}"
                host.copy_to(Path(security[key]), remote)
                security[key] = remote
        trusted = security.get("trusted_certificates")
        if isinstance(trusted, list):
            uploaded = []
            for index, path in enumerate(trusted):
                if isinstance(path, str) and Path(path).exists():
                    remote = f"{host.workdir}/{name}-trusted-{index}{Path(path).suffix}"
                    host.copy_to(Path(path), remote)
                    uploaded.append(remote)
                else:
                    uploaded.append(path)
            security["trusted_certificates"] = uploaded
    return config


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
        # Where the samples will be, for whoever collects them afterwards.
        local.with_suffix(".remote").write_text(
            json.dumps({"target": host.target, "workdir": host.workdir, "name": name})
        )
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


def write_launcher(path: Path, deployment: Deployment) -> Path:
    """A local `run` script for AdapterProcess that starts the deployed adapter remotely."""
    parts = [
        sys.executable,
        "-m",
        "uabench.arm.remote",
        "launch",
        *deployment.host.to_args(),
        "--",
        *deployment.command,
    ]
    harness = Path(__file__).resolve().parents[2]
    path.write_text(
        "#!/bin/sh\n# uabench remote launcher (generated)\n"
        f"export PYTHONPATH={shlex.quote(str(harness))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
        f'exec {" ".join(shlex.quote(p) for p in parts)} "$@"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# --- resource samples ------------------------------------------------------------------------


def parse_samples(text: str, clk_tck: int, page_size: int) -> list[dict]:
    """The wrapper's sample lines as [{t, cpu_s, rss_bytes, threads, voluntary, involuntary}]."""
    del page_size  # RSS comes from /proc/<pid>/status (kB)
    samples = []
    for line in text.splitlines():
        try:
            uptime, procstat, status = line.split("|", 2)
            fields = procstat.rsplit(")", 1)[1].split()
            utime, stime = int(fields[11]), int(fields[12])
            tokens = status.split()
            values = {key: tokens[i + 1] for i, key in enumerate(tokens[:-1]) if key.endswith(":")}
            samples.append(
                {
                    "t": float(uptime),
                    "cpu_s": (utime + stime) / clk_tck,
                    "rss_bytes": int(values.get("VmRSS:", 0)) * 1024,
                    "threads": int(values.get("Threads:", 0)),
                    "voluntary": int(values.get("voluntary_ctxt_switches:", 0)),
                    "involuntary": int(values.get("nonvoluntary_ctxt_switches:", 0)),
                }
            )
        except (ValueError, IndexError):
            continue
    return samples


def summarize(samples: list[dict]) -> dict | None:
    """CPU %, peak RSS, threads and context switches over the sampled life of the process."""
    if len(samples) < 2:
        return None
    first, last = samples[0], samples[-1]
    seconds = last["t"] - first["t"]
    if seconds <= 0:
        return None
    return {
        "seconds": round(seconds, 2),
        "samples": len(samples),
        "cpu_percent": round(100 * (last["cpu_s"] - first["cpu_s"]) / seconds, 1),
        "rss_peak_bytes": max(s["rss_bytes"] for s in samples),
        "threads_max": max(s["threads"] for s in samples),
        "voluntary_ctx_switches": last["voluntary"] - first["voluntary"],
        "involuntary_ctx_switches": last["involuntary"] - first["involuntary"],
    }


def collect(host: RemoteHost, config_path: Path, facts: dict) -> dict | None:
    """The resource summary of the role started with `config_path` (after it stopped)."""
    marker = config_path.with_suffix(".remote")
    if not marker.exists():
        return None
    info = json.loads(marker.read_text())
    text = host.read(f"{info['workdir']}/{info['name']}.samples")
    samples = parse_samples(text, facts["clk_tck"], facts["page_size"])
    summary = summarize(samples)
    if summary is not None:
        summary["remote"] = host.target
        summary["machine"] = facts.get("machine")
    return summary


# --- a server role on the remote host, loaded and verified from here ---------------------------


@dataclass
class RemoteStep:
    step: str
    status: str
    detail: str
    seconds: float


def serve_and_check(
    store,
    host: RemoteHost,
    deployment: Deployment,
    sdk_id: str,
    workdir: Path | None = None,
    ready_timeout: float = 120.0,
) -> tuple[list[RemoteStep], dict | None]:
    """Start `sdk_id`'s server from `deployment` on the remote host (bound to its address),
    read every node and write with read-back from the native reference client here, stop it
    with SIGTERM and collect its resource samples. Cells go to the run's spool, then the store
    (suite `remote`); a store that refused them is a StoreError naming `uabench import`."""
    from uabench import paths, plan, sdks
    from uabench.arm import smoke as arm
    from uabench.engine.session import Session
    from uabench.proc.process import AdapterError

    try:  # the deployment is removed however this ends, also before the session exists
        reference, base = sdks.get(plan.reference_client() or sdk_id), sdks.get(sdk_id)
        session = Session(
            store, "remote", "smoke", workdir=workdir or paths.RESULTS / "runs" / time.strftime("remote-%Y%m%d-%H%M%S")
        )
    except BaseException:
        _removed(deployment.host)
        raise
    variant = f"remote {host.target} ({deployment.facts.get('machine', '?')}, {deployment.kind})"
    steps = [RemoteStep("deploy", "pass", f"{deployment.kind} {deployment.what}", deployment.seconds)]
    resources = None
    status = "finished"
    try:
        launcher = write_launcher(session.workdir / f"run-{sdk_id}-remote", deployment)
        remote_sdk = arm.LaunchedSdk(
            **arm._fields(base), launcher=launcher, arch=deployment.facts.get("machine", "?"), how="remote"
        )
        begun = time.monotonic()
        try:
            server = arm.start_server(session, remote_sdk, ready_timeout, host=host.address)
        except AdapterError as error:
            steps.append(RemoteStep("server ready", "fail", str(error), round(time.monotonic() - begun, 1)))
            return steps, None
        steps.append(RemoteStep("server ready", "pass", server.endpoint, round(time.monotonic() - begun, 1)))
        for name, workload in (
            ("read every node", arm._workload("read", arm.SMOKE_NODES, 1)),
            ("write + read back", arm._workload("write", plan.writes(20), 5)),
        ):
            begun = time.monotonic()
            config = session.client_config(server, workload)
            outcome = session.run_client(reference, server, config)
            detail = outcome.reason or ""
            if outcome.status == "pass" and outcome.result:
                detail = (
                    f"{outcome.result['operations']['succeeded']} requests, "
                    f"{outcome.result['verification']['checked']} values verified"
                )
            steps.append(RemoteStep(name, outcome.status, detail, round(time.monotonic() - begun, 1)))
            session.add_cell(  # spooled first (results.spool)
                suite="remote",
                kind=name,
                client=reference.id,
                server=sdk_id,
                variant=variant,
                parameter=host.target,
                repetition=0,
                status=outcome.status,
                reason=outcome.reason,
                client_config=config,
                result=outcome.result,
                client_resources=outcome.client_resources,
                client_bound=outcome.client_bound,
            )
        code, seconds, killed = server.measured.stop()
        session.servers.clear()
        steps.append(
            RemoteStep(
                "server stops on SIGTERM",
                "pass" if code == 0 and not killed else "fail",
                f"status {code} after {seconds:.1f} s",
                round(seconds, 1),
            )
        )
        resources = collect(host, server.measured.process.config_path, deployment.facts)
        steps.append(
            RemoteStep(
                "resource samples",
                "pass" if resources else "fail",
                json.dumps(resources) if resources else "no samples came back",
                0.0,
            )
        )
        session.add_cell(
            suite="remote",
            kind="server resources",
            client=reference.id,
            server=sdk_id,
            variant=variant,
            parameter=host.target,
            repetition=0,
            status="pass" if resources else "fail",
            server_resources=resources,
        )
    except BaseException:
        status = "interrupted"
        raise
    finally:
        session.close(status)
        steps.append(_removed(deployment.host))
    if session.store_error:  # the cells are in the run's spool; the line names the import command
        raise session.store_error
    return steps, resources


def _removed(host: RemoteHost) -> RemoteStep:
    """The work directory removed with what still runs from it and every uploaded file."""
    begun = time.monotonic()
    try:
        left = remove_workdir(host)
    except (RemoteError, subprocess.TimeoutExpired) as error:
        left = [f"not removed: {str(error).splitlines()[0] if str(error) else type(error).__name__}"]
    return RemoteStep(
        "nothing left on the remote host",
        "fail" if left else "pass",
        "; ".join(left) or f"{host.workdir} removed",
        round(time.monotonic() - begun, 1),
    )


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
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uabench.remote")
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
