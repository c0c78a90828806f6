"""`uabench check <sdk>`: the contract tests an adapter must pass (adapters/SPEC.md §7)."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from uabench import plan, sdks
from uabench.engine.session import Session, free_port
from uabench.proc.process import AdapterError
from uabench.results.store import open_store
from uabench.sdks import Sdk

ALL_NODES = [*plan.signals(10), "Signal_999", "Tick", "Real", "Page", "SDD", "Image", "Array_10", "Array_10000",
             "Write_0", "Write_99"]
UNREACHABLE_LIMIT_S = 20.0


@dataclass
class Check:
    name: str
    passed: bool
    detail: str = ""


class CheckFailed(Exception):
    pass


def _workload(kind: str, nodes: list[str], per_request: int, **extra) -> dict:
    return {"workload": kind, "nodes": nodes, "nodes_per_request": per_request, "in_flight": 2,
            "warmup_s": 0.2, "duration_s": 0.6, **extra}


class Checker:
    def __init__(self, sdk: Sdk, workdir: Path) -> None:
        self.sdk = sdk
        self.workdir = workdir
        self.session = Session(open_store(workdir / "check.sqlite"), "check", "check", workdir=workdir / "run")
        others = [s for s in sdks.all_sdks() if s.id != sdk.id]
        preferred = plan.reference_client()
        self.reference = next((s for s in others if s.id == preferred), others[0] if others else sdk)
        self.results: list[Check] = []

    def run(self) -> list[Check]:
        steps: list[tuple[str, Callable[[], str]]] = [
            ("capabilities agree with sdk.toml", self.capabilities),
            ("server: bad config exits 2 naming the key", lambda: self.bad_config("server")),
            ("client: bad config exits 2 naming the key", lambda: self.bad_config("client")),
        ]
        if "server" in self.sdk.roles:
            steps += [
                ("server prints ready", self.server_ready),
                (f"{self.reference.id} client reads every node of this server, verified", self.reference_reads),
            ]
        if "client" in self.sdk.roles:
            steps += [
                (f"client reads every node of the {self.reference.id} server, verified", self.client_reads),
                (f"client writes the {self.reference.id} server, read back verified", self.client_writes),
                ("client: unreachable endpoint gives an error event", self.unreachable),
            ]
            if "server" in self.sdk.roles:
                steps.append(("client reads its own server over Basic256Sha256 SignAndEncrypt",
                              self.secure_read))
        if "server" in self.sdk.roles:
            steps.append(("server exits 0 within 5 s of SIGTERM", self.clean_shutdown))
        try:
            for name, step in steps:
                try:
                    self.results.append(Check(name, True, step()))
                except (CheckFailed, AdapterError) as error:
                    self.results.append(Check(name, False, str(error)))
        finally:
            self.session.close()
        return self.results

    # --- the checks --------------------------------------------------------------------------

    def capabilities(self) -> str:
        try:
            caps = sdks.capabilities(self.sdk)
        except sdks.AdapterBroken as error:
            raise CheckFailed(str(error)) from None
        problems = []
        for key in ("sdk", "version", "roles", "workloads", "security"):
            if key not in caps:
                problems.append(f"missing key '{key}'")
        if caps.get("sdk") != self.sdk.id:
            problems.append(f"sdk is {caps.get('sdk')!r}, sdk.toml says {self.sdk.id!r}")
        if str(caps.get("version")) != self.sdk.version:
            problems.append(f"version is {caps.get('version')!r}, sdk.toml pins {self.sdk.version!r}")
        if sorted(caps.get("roles", [])) != sorted(self.sdk.roles):
            problems.append(f"roles {caps.get('roles')} differ from sdk.toml {list(self.sdk.roles)}")
        if sorted(caps.get("workloads", [])) != sorted(self.sdk.workloads):
            problems.append(f"workloads {caps.get('workloads')} differ from sdk.toml {list(self.sdk.workloads)}")
        if problems:
            raise CheckFailed("; ".join(problems))
        return f"{caps['sdk']} {caps['version']}, roles {', '.join(caps['roles'])}"

    def bad_config(self, role: str) -> str:
        if role == "server":
            base = {"port": free_port()}
            cases = [("unknown key", {**base, "signalz": 10}, "signalz"),
                     ("out of range", {**base, "signals": -5}, "signals")]
        else:
            base = {"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"]}
            cases = [("unknown key", {**base, "nodes_per_reqest": 2}, "nodes_per_reqest"),
                     ("out of range", {**base, "in_flight": 0}, "in_flight")]
        seen = []
        for label, config, key in cases:
            path = self.workdir / f"bad-{role}-{key}.json"
            path.write_text(json.dumps(config))
            try:
                done = subprocess.run([str(self.sdk.run), role, "--config", str(path)],
                                      capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                raise CheckFailed(f"{label}: still running after 60 s (it must exit 2 before connecting)") from None
            if done.returncode != 2:
                raise CheckFailed(f"{label} ({key}): exit {done.returncode}, expected 2")
            event = _last_event(done.stdout)
            if not event or event.get("event") != "error" or event.get("kind") != "config":
                raise CheckFailed(f"{label} ({key}): no error event of kind config on stdout: {done.stdout[-200:]!r}")
            if key not in event.get("message", ""):
                raise CheckFailed(f"{label}: message does not name '{key}': {event.get('message')!r}")
            seen.append(event["message"])
        return " | ".join(seen)

    def server_ready(self) -> str:
        started = time.monotonic()
        server = self.session.server(self.sdk)
        return f"{server.endpoint} after {time.monotonic() - started:.1f} s"

    def _expect_pass(self, client: Sdk, server_sdk: Sdk, workload: dict, security: dict | None = None) -> str:
        server = self.session.server(server_sdk)
        outcome = self.session.run_client(client, server, self.session.client_config(server, workload, security))
        if outcome.status != "pass":
            raise CheckFailed(outcome.reason or outcome.status)
        result = outcome.result
        return (f"{result['operations']['succeeded']} requests, {result['verification']['checked']} values "
                f"verified")

    def reference_reads(self) -> str:
        one = self._expect_pass(self.reference, self.sdk, _workload("read", ALL_NODES, 1))
        batch = self._expect_pass(self.reference, self.sdk, _workload("read", ALL_NODES, len(ALL_NODES)))
        return f"1 node/request: {one}; {len(ALL_NODES)} nodes/request: {batch}"

    def client_reads(self) -> str:
        one = self._expect_pass(self.sdk, self.reference, _workload("read", ALL_NODES, 1))
        batch = self._expect_pass(self.sdk, self.reference, _workload("read", ALL_NODES, len(ALL_NODES),
                                                                       sessions=2))
        return f"1 node/request: {one}; all nodes, 2 sessions: {batch}"

    def client_writes(self) -> str:
        return self._expect_pass(self.sdk, self.reference, _workload("write", plan.writes(20), 5))

    def secure_read(self) -> str:
        if not self.sdk.offers("Basic256Sha256", "SignAndEncrypt"):
            return "skipped: not declared in sdk.toml"
        return self._expect_pass(self.sdk, self.sdk, _workload("read", ALL_NODES, 4),
                                 {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"})

    def unreachable(self) -> str:
        started = time.monotonic()
        config = {"endpoint": f"opc.tcp://127.0.0.1:{free_port()}", **_workload("read", ["Real"], 1)}
        outcome = self.session.run_client(self.sdk, None, config)
        elapsed = time.monotonic() - started
        if outcome.status != "fail" or not (outcome.reason or "").startswith("connect"):
            raise CheckFailed(f"expected a connect error event, got {outcome.status}: {outcome.reason}")
        if elapsed > UNREACHABLE_LIMIT_S:
            raise CheckFailed(f"took {elapsed:.1f} s (limit {UNREACHABLE_LIMIT_S:g} s)")
        return f"{outcome.reason} after {elapsed:.1f} s"

    def clean_shutdown(self) -> str:
        server = self.session.server(self.sdk)
        status, seconds, killed = server.measured.stop()
        self.session.servers.clear()
        if killed or status != 0:
            raise CheckFailed(f"status {status} after {seconds:.1f} s" + (" (had to be killed)" if killed else ""))
        return f"status 0 after {seconds:.2f} s"


def _last_event(stdout: str) -> dict | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def check(sdk_id: str) -> list[Check]:
    sdk = sdks.get(sdk_id)
    with tempfile.TemporaryDirectory(prefix=f"uabench-check-{sdk_id}-") as tmp:
        return Checker(sdk, Path(tmp)).run()
