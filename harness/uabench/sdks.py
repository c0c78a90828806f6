"""The SDK registry: every `implementations/<sdk>/sdk.toml` with an adapter beside it, and the
other versions each declares (`[versions."V"]`, adapters/SPEC.md §1): `<sdk>@V` runs the same
adapter with UABENCH_SDK_VERSION=V."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

import uabench_contract as contract
from packaging.version import InvalidVersion, Version

from uabench import image_recipe, paths
from uabench.image_recipe import ImageRecipe

# What a `[versions."V"]` entry may declare differently from the main version; the rest
# (deviations, known failures, limits) is the SDK's, whatever its version.
VERSION_KEYS = {"roles", "workloads", "security", "not_supported", "nodeset_import"}


class UnknownSdk(Exception):
    pass


class AdapterBroken(Exception):
    """`run capabilities` failed: the adapter is not installed or not working."""


@dataclass(frozen=True)
class Deviation:
    """A known departure of an SDK from the specification, as a check finds it: at `step` the
    server gave no status (or, where `status` is declared, that status, not a security one) and
    the finding starts with `found`; `why` names the rule it breaks."""

    step: str
    found: str
    why: str
    status: str | None = None

    def matches(self, step: str, status: str | None, detail: str) -> bool:
        return status == self.status and step == self.step and detail.startswith(self.found)


# A data change notification of one Signal (a Float, status Good): its client handle, then the
# DataValue's mask, the Variant's type byte and value, the source and server timestamps. The first
# Publish after a subscription's items are made carries one per item; a server may split it by
# MaxNotificationsPerPublish, and gopcua's (the one with a [limits] server_max_response_bytes) does not.
NOTIFICATION_BYTES = 4 + 1 + 1 + 4 + 8 + 8


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
    """A resilience test or an interop cell that fails on this SDK's known behaviour: as a server,
    with the clients in `clients` (sdk.toml [resilience."<incident>/<workload>"],
    [interop."<workload>"]), or as a client, against the servers in `servers` (sdk.toml
    [client_resilience."<incident>/<workload>"]). The failure's reason contains `found`; `why`
    names the behaviour and the rule it breaks."""

    clients: tuple[str, ...]
    found: str | tuple[str, ...]  # one finding, or a list of the forms it takes (any matches)
    why: str
    # [interop] only: these clients never get a session, so what measures figures (rankings,
    # sweeps, capacity) does not try; the interop cell still runs it and so keeps the claim honest
    refused: bool = False
    servers: tuple[str, ...] = ()  # [client_resilience] only

    def matches(self, peer: str, reason: str) -> bool:
        """Whether a failure with `peer` (the client of a server's entry, the server of a
        client's) and this reason is the one declared."""
        forms = (self.found,) if isinstance(self.found, str) else self.found
        return (peer in self.clients or peer in self.servers) and any(form in reason for form in forms)

    def refuses(self, client: str) -> str | None:
        """Why `client` is not even tried, or None."""
        if not self.refused or client not in self.clients:
            return None
        return f"known failure, on the server's behaviour: {self.why}"


@dataclass(frozen=True)
class Expectations:
    """What the estimate (estimate.py) expects of an SDK, from its sdk.toml
    [expectations], measured on the 2-core reference machine; None: the estimate's default for
    an SDK that declares none."""

    startup_s: float | None = None  # adapter process start to its first measured operation
    steady_chunks: int | None = None  # warm-up chunks its server needs under its first load (steady run included)
    ready_s_per_1k_signals: float | None = None  # its server's start-up per 1,000 signals
    fuzz_case_s: tuple[float, float] | None = None  # a robustness case against its server: (mutated, built)
    # the least load its server is warmed up with before it may be called steady: a JIT runtime
    # compiles in steps for tens of seconds and a short plateau between two looks steady
    # (engine/warmup.warm_up's floor_s); the warm-up goes at least this long whatever the plan's bound
    warmup_s: float | None = None


EXPECTATION_KEYS = frozenset(f.name for f in fields(Expectations))


def _expectations(path: Path, table: object) -> Expectations:
    if not isinstance(table, dict):
        raise ValueError(f"{path}: expectations: must be a table")
    unknown = sorted(set(table) - EXPECTATION_KEYS)
    if unknown:
        raise ValueError(
            f"{path}: expectations: unknown key '{unknown[0]}' (one of {', '.join(sorted(EXPECTATION_KEYS))})"
        )
    for key, value in table.items():
        values = value if key == "fuzz_case_s" and isinstance(value, list) and len(value) == 2 else [value]
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in values):
            want = "two seconds [mutated, built]" if key == "fuzz_case_s" else "a number ≥ 0"
            raise ValueError(f"{path}: expectations.{key}: must be {want}, got {value!r}")
    fuzz = table.get("fuzz_case_s")
    return Expectations(
        startup_s=table.get("startup_s"),
        steady_chunks=table.get("steady_chunks"),
        ready_s_per_1k_signals=table.get("ready_s_per_1k_signals"),
        warmup_s=table.get("warmup_s"),
        fuzz_case_s=(float(fuzz[0]), float(fuzz[1])) if fuzz else None,
    )


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
    # its client's: by "incident/workload" (sdk.toml [client_resilience])
    client_resilience: dict[str, KnownFailure] = field(default_factory=dict)
    interop: dict[str, KnownFailure] = field(default_factory=dict)  # by workload (sdk.toml [interop])
    robustness: dict[str, KnownDeviation] = field(default_factory=dict)  # by batch (sdk.toml [robustness])
    # a companion model its server's loader rejects or imports wrong: by the footprint plan's
    # import model (sdk.toml [nodeset_import."<model>"]; footprint/runner.py)
    nodeset_import: dict[str, KnownDeviation] = field(default_factory=dict)
    # sdk.toml [limits] (SPEC §3 Message sizes): the largest Read response its server can send, and why
    server_max_response_bytes: int | None = None
    limits_reason: str = ""
    colour: str | None = None  # sdk.toml `colour`: its line and bars in the report's plots
    expectations: Expectations = field(default_factory=Expectations)  # sdk.toml [expectations]
    image: ImageRecipe | None = None  # sdk.toml [image]: its container image (uabench images)

    @property
    def base(self) -> str:
        """The SDK this is a version of: its adapter's folder (the id without `@V`)."""
        return self.id.partition("@")[0]

    @property
    def run(self) -> Path:
        return paths.ADAPTERS / self.base / "run"

    @property
    def environment(self) -> dict[str, str]:
        """What the adapter's `run` needs in its environment to load this version."""
        return {"UABENCH_SDK_VERSION": self.version} if "@" in self.id else {}

    @property
    def label(self) -> str:
        """The SDK and version, as a version comparison names it."""
        return f"{self.base} {self.version}"

    def supports(self, feature: str) -> bool:
        return feature in self.roles or feature in self.workloads or feature in self.policies

    def reason_unsupported(self, feature: str) -> str:
        return self.not_supported.get(feature, f"{self.id} does not declare {feature}")

    def cannot_send(self, workload: dict) -> str | None:
        """Why this SDK's server cannot answer a read `workload` (its responses may exceed the
        largest it can send, sdk.toml [limits]), or None."""
        limit = self.server_max_response_bytes
        if limit is None or workload.get("workload") != "read":
            return None
        needed = contract.response_bytes(list(workload["nodes"]), int(workload.get("nodes_per_request", 1)))
        if needed <= limit:
            return None
        why = self.limits_reason
        return f"{self.id}'s server sends no response over {limit} bytes, this workload needs {needed}: {why}"

    def cannot_publish(self, monitored_items: int) -> str | None:
        """Why this SDK's server cannot send the first Publish response of a subscription of
        `monitored_items` Signals (it carries a notification of every item), or None."""
        limit = self.server_max_response_bytes
        needed = contract.RESPONSE_OVERHEAD + monitored_items * NOTIFICATION_BYTES
        if limit is None or needed <= limit:
            return None
        return (
            f"{self.id}'s server sends no response over {limit} bytes, the first Publish of "
            f"{monitored_items} monitored items needs about {needed}: {self.limits_reason}"
        )

    def refuses(self, client: str, workload: str | None = None) -> str | None:
        """Why this SDK's server never gives `client` a session (sdk.toml [interop], refused), for
        `workload` or any; None if it does."""
        if workload is None:
            declared = list(self.interop.values())
        else:
            declared = [self.interop[workload]] if workload in self.interop else []
        return next((why for known in declared if (why := known.refuses(client))), None)

    def sendable(self, nodes: list[str]) -> list[str]:
        """The nodes whose value alone fits in a Read response this SDK's server can send."""
        return [node for node in nodes if self.cannot_send({"workload": "read", "nodes": [node]}) is None]

    def offers(self, policy: str, mode: str) -> bool:
        if policy == "None":
            return True
        return policy in self.policies and mode in self.modes


def _load(path: Path) -> list[Sdk]:
    """The SDK `path` declares, then each of its other versions (oldest first)."""
    with path.open("rb") as stream:
        data = tomllib.load(stream)
    main = _sdk(path, data)
    versions = data.get("versions", {})
    if not isinstance(versions, dict):
        raise ValueError(f'{path}: versions: must be a table of [versions."<version>"] entries')
    found = [main]
    for version, entry in versions.items():
        where = f'{path}: versions."{version}"'
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: must be a table")
        unknown = sorted(set(entry) - VERSION_KEYS)
        if unknown:
            allowed = ", ".join(sorted(VERSION_KEYS))
            raise ValueError(f"{where}: unknown key '{unknown[0]}' (a version may declare {allowed})")
        if version == main.version:
            raise ValueError(f"{where}: is the pinned version itself")
        try:
            Version(version)
        except InvalidVersion:
            raise ValueError(f"{where}: not a version number") from None
        found.append(_sdk(path, {**data, **entry, "id": f"{main.id}@{version}", "version": version}))
    return [main, *sorted(found[1:], key=lambda sdk: Version(sdk.version))]


def _known_failures(table: dict) -> dict[str, KnownFailure]:
    return {
        test: KnownFailure(
            **{
                **entry,
                "clients": tuple(entry.get("clients", ())),
                "servers": tuple(entry.get("servers", ())),
                **({"found": tuple(entry["found"])} if isinstance(entry.get("found"), list) else {}),
            }
        )
        for test, entry in table.items()
    }


def _sdk(path: Path, data: dict) -> Sdk:
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
            server_max_response_bytes=data.get("limits", {}).get("server_max_response_bytes"),
            limits_reason=data.get("limits", {}).get("reason", ""),
            resilience=_known_failures(data.get("resilience", {})),
            client_resilience=_known_failures(data.get("client_resilience", {})),
            interop=_known_failures(data.get("interop", {})),
            robustness={batch: KnownDeviation(**entry) for batch, entry in data.get("robustness", {}).items()},
            nodeset_import={name: KnownDeviation(**entry) for name, entry in data.get("nodeset_import", {}).items()},
            colour=data.get("colour"),
            expectations=_expectations(path, data.get("expectations", {})),
            image=image_recipe.parse(path, data["image"]) if "image" in data else None,
        )
    except KeyError as missing:
        raise ValueError(f"{path}: missing key {missing}") from None
    # an entry of [deviations], [conformance], [resilience], [client_resilience] or [interop] with a key it lacks
    except TypeError as wrong:
        raise ValueError(f"{path}: deviations: {wrong}") from None


def registry() -> list[list[Sdk]]:
    """Per SDK with an adapter: its pinned version, then its other versions."""
    found = []
    for toml in sorted(paths.IMPLEMENTATIONS.glob("*/sdk.toml")):
        versions = _load(toml)
        if versions[0].run.exists():
            found.append(versions)
    return found


def all_sdks() -> list[Sdk]:
    """Every SDK at its pinned version: the matrices and rankings."""
    return [versions[0] for versions in registry()]


def every_version() -> list[Sdk]:
    """Every SDK at every version it declares: what `uabench check --all` checks."""
    return [sdk for versions in registry() for sdk in versions]


def versions_of(sdk_id: str) -> list[Sdk]:
    """`sdk_id` (a plain id) at every version it declares, oldest first."""
    for versions in registry():
        if versions[0].id == sdk_id:
            return sorted(versions, key=lambda sdk: Version(sdk.version))
    raise UnknownSdk(f"unknown SDK '{sdk_id}' (known: {', '.join(s.id for s in all_sdks()) or 'none'})")


def get(sdk_id: str) -> Sdk:
    """An SDK by id: `asyncua`, or one of its declared versions, `asyncua@1.1.8` (the pinned
    version's `asyncua@2.1.0` is `asyncua`)."""
    base, _, version = sdk_id.partition("@")
    for versions in registry():
        if versions[0].id != base:
            continue
        for sdk in versions:
            if sdk.id == sdk_id or sdk.version == version:
                return sdk
        declared = ", ".join(sdk.version for sdk in versions)
        raise UnknownSdk(f"unknown version '{version}' of {base} (declared in its sdk.toml: {declared})")
    known = ", ".join(s.id for s in all_sdks()) or "none"
    raise UnknownSdk(f"unknown SDK '{sdk_id}' (known: {known})")


def with_role(role: str) -> list[Sdk]:
    return [sdk for sdk in all_sdks() if role in sdk.roles]


def capabilities(sdk: Sdk, command: list[str] | None = None) -> dict:
    """What the adapter itself says it is (`run capabilities`, or `command`: its image's)."""
    try:
        done = subprocess.run(
            command or [str(sdk.run), "capabilities"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **sdk.environment},
        )
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
