"""The SDK registry: every `implementations/<sdk>/sdk.toml` with an adapter beside it."""

from __future__ import annotations

import json
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from uabench import paths


class UnknownSdk(Exception):
    pass


class AdapterBroken(Exception):
    """`run capabilities` failed: the adapter is not installed or not working."""


@dataclass(frozen=True)
class Deviation:
    """A known departure of an SDK from the specification, as a check finds it: the server gave no
    status at `step` and the finding starts with `found`; `why` names the rule it breaks."""

    step: str
    found: str
    why: str

    def matches(self, step: str, status: str | None, detail: str) -> bool:
        return status is None and step == self.step and detail.startswith(self.found)


@dataclass(frozen=True)
class KnownDeviation:
    """A departure from the specification that a conformance check finds and the SDK's
    sdk.toml declares ([conformance."<check id>"]): what came back contains `found`."""

    found: str
    why: str

    def matches(self, got: str) -> bool:
        return self.found in got


@dataclass(frozen=True)
class KnownFailure:
    """A resilience test that fails on this SDK's server's known behaviour, not on the client
    alone (sdk.toml [resilience."<incident>/<workload>"]): with the clients in `clients`, the
    failure's reason contains `found`; `why` names the server's behaviour and the rule it breaks."""

    clients: tuple[str, ...]
    found: str
    why: str

    def matches(self, client: str, reason: str) -> bool:
        return client in self.clients and self.found in reason


@dataclass(frozen=True)
class Sdk:
    id: str
    language: str
    version: str
    roles: tuple[str, ...]
    workloads: tuple[str, ...]
    policies: tuple[str, ...]
    modes: tuple[str, ...]
    not_supported: dict[str, str] = field(default_factory=dict)
    install: str = ""
    deviations: dict[str, Deviation] = field(default_factory=dict)  # by check (sdk.toml [deviations])
    conformance: dict[str, KnownDeviation] = field(default_factory=dict)  # by check id (sdk.toml [conformance])
    resilience: dict[str, KnownFailure] = field(default_factory=dict)  # by "incident/workload" (sdk.toml [resilience])

    @property
    def run(self) -> Path:
        return paths.ADAPTERS / self.id / "run"

    def supports(self, feature: str) -> bool:
        return feature in self.roles or feature in self.workloads or feature in self.policies

    def reason_unsupported(self, feature: str) -> str:
        return self.not_supported.get(feature, f"{self.id} does not declare {feature}")

    def offers(self, policy: str, mode: str) -> bool:
        if policy == "None":
            return True
        return policy in self.policies and mode in self.modes


def _load(path: Path) -> Sdk:
    with path.open("rb") as stream:
        data = tomllib.load(stream)
    security = data.get("security", {})
    try:
        return Sdk(
            id=data["id"],
            language=data["language"],
            version=str(data["version"]),
            roles=tuple(data.get("roles", ())),
            workloads=tuple(data.get("workloads", ())),
            policies=tuple(security.get("policies", ("None",))),
            modes=tuple(security.get("modes", ("None",))),
            not_supported=dict(data.get("not_supported", {})),
            install=data.get("install", ""),
            deviations={name: Deviation(**entry) for name, entry in data.get("deviations", {}).items()},
            conformance={check: KnownDeviation(**entry) for check, entry in data.get("conformance", {}).items()},
            resilience={
                test: KnownFailure(**{**entry, "clients": tuple(entry.get("clients", ()))})
                for test, entry in data.get("resilience", {}).items()
            },
        )
    except KeyError as missing:
        raise ValueError(f"{path}: missing key {missing}") from None
    except TypeError as wrong:  # a [deviations], [conformance] or [resilience] entry with a key it does not have
        raise ValueError(f"{path}: deviations: {wrong}") from None


def all_sdks() -> list[Sdk]:
    found = []
    for toml in sorted(paths.IMPLEMENTATIONS.glob("*/sdk.toml")):
        sdk = _load(toml)
        if (paths.ADAPTERS / sdk.id / "run").exists():
            found.append(sdk)
    return found


def get(sdk_id: str) -> Sdk:
    for sdk in all_sdks():
        if sdk.id == sdk_id:
            return sdk
    known = ", ".join(s.id for s in all_sdks()) or "none"
    raise UnknownSdk(f"unknown SDK '{sdk_id}' (known: {known})")


def with_role(role: str) -> list[Sdk]:
    return [sdk for sdk in all_sdks() if role in sdk.roles]


def capabilities(sdk: Sdk, command: list[str] | None = None) -> dict:
    """What the adapter itself says it is (`run capabilities`, or `command`: its image's)."""
    try:
        done = subprocess.run(command or [str(sdk.run), "capabilities"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise AdapterBroken(f"{sdk.id}: run capabilities failed: {error}") from None
    if done.returncode != 0:
        raise AdapterBroken(f"{sdk.id}: run capabilities exited {done.returncode}: {done.stderr.strip()[-400:]}")
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AdapterBroken(f"{sdk.id}: capabilities is not one JSON object: {done.stdout[:200]!r}") from None
    if not isinstance(found, dict):
        raise AdapterBroken(f"{sdk.id}: capabilities is not a JSON object")
    return found
