"""What each suite runs: its variants, their workloads, and the quick and full profiles.
The Robot suites get their test cases from here, so adding an adapter grows every matrix."""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import sdks


@dataclass(frozen=True)
class Profile:
    name: str
    interop_warmup_s: float
    interop_duration_s: float
    throughput_warmup_s: float
    throughput_duration_s: float
    repetitions: int


PROFILES = {
    "smoke": Profile("smoke", 0.1, 0.3, 0.5, 0.5, 2),
    "quick": Profile("quick", 0.2, 0.5, 1.5, 2.0, 3),
    "full": Profile("full", 1.0, 3.0, 5.0, 10.0, 5),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile '{name}' (known: {', '.join(PROFILES)})") from None


def signals(count: int) -> list[str]:
    return [f"Signal_{i}" for i in range(count)]


def writes(count: int) -> list[str]:
    return [f"Write_{i}" for i in range(count)]


@dataclass(frozen=True)
class Variant:
    name: str
    workload: dict  # client config keys besides endpoint/security/timing


VARIANTS = {
    "read": [
        Variant("1 node/request", {"workload": "read", "nodes": signals(100), "nodes_per_request": 1,
                                   "in_flight": 4}),
        Variant("100 nodes/request", {"workload": "read", "nodes": signals(100) + ["Tick"],
                                      "nodes_per_request": 100, "in_flight": 4}),
        *(Variant(name, {"workload": "read", "nodes": [name], "nodes_per_request": 1, "in_flight": 2})
          for name in ("Real", "Page", "SDD", "Image")),
    ],
    "write": [
        Variant("1 node/request", {"workload": "write", "nodes": writes(100), "nodes_per_request": 1,
                                   "in_flight": 4}),
        Variant("10 nodes/request", {"workload": "write", "nodes": writes(100), "nodes_per_request": 10,
                                     "in_flight": 4}),
    ],
}

# The load a reference client applies when it ranks servers: enough requests in flight to
# saturate a server, not so many that queueing dominates latency.
THROUGHPUT_VARIANTS = {
    "read": [
        Variant("1 node/request", {"workload": "read", "nodes": signals(100), "nodes_per_request": 1,
                                   "in_flight": 16}),
        Variant("100 nodes/request", {"workload": "read", "nodes": signals(100), "nodes_per_request": 100,
                                      "in_flight": 8}),
    ],
    "write": [
        Variant("10 nodes/request", {"workload": "write", "nodes": writes(100), "nodes_per_request": 10,
                                     "in_flight": 16}),
    ],
}
RANKING_VARIANT = {"read": "100 nodes/request", "write": "10 nodes/request"}


def variant(suite: str, name: str, throughput: bool = False) -> Variant:
    table = THROUGHPUT_VARIANTS if throughput else VARIANTS
    for candidate in table[suite]:
        if candidate.name == name:
            return candidate
    raise ValueError(f"suite {suite} has no variant '{name}'")


def reference_client() -> str | None:
    """The load generator that ranks servers: the native client when it is there."""
    clients = [sdk.id for sdk in sdks.with_role("client")]
    wanted = os.environ.get("UABENCH_REFERENCE_CLIENT", "open62541")
    if wanted in clients:
        return wanted
    return clients[0] if clients else None


def selected(ids: str | None) -> list[str] | None:
    """Parse a comma-separated SDK selection ('' or None = all)."""
    if not ids:
        return None
    chosen = [part.strip() for part in ids.split(",") if part.strip()]
    known = {sdk.id for sdk in sdks.all_sdks()}
    for sdk_id in chosen:
        if sdk_id not in known:
            raise ValueError(f"unknown SDK '{sdk_id}' (known: {', '.join(sorted(known))})")
    return chosen


@dataclass(frozen=True)
class TestCase:
    name: str
    keyword: str
    args: tuple[str, ...]
    tags: tuple[str, ...]


def client_server_tests(suite: str, only: list[str] | None = None) -> list[TestCase]:
    """Every client x every server x every variant, then the reference client's throughput
    cells that rank the servers."""
    chosen = [sdk for sdk in sdks.all_sdks() if only is None or sdk.id in only]
    clients = [sdk.id for sdk in chosen if "client" in sdk.roles]
    servers = [sdk.id for sdk in chosen if "server" in sdk.roles]
    tests = []
    for server in servers:
        for client in clients:
            for v in VARIANTS[suite]:
                tests.append(TestCase(f"{client} reads {server}: {v.name}" if suite == "read"
                                      else f"{client} writes {server}: {v.name}",
                                      "Interop Cell Should Pass", (client, server, v.name),
                                      ("interop", f"client:{client}", f"server:{server}")))
    reference = reference_client()
    if reference:  # ranks the selected servers even when the selection leaves it out
        for server in servers:
            for v in THROUGHPUT_VARIANTS[suite]:
                tests.append(TestCase(f"Throughput of {server} ({reference} load): {v.name}",
                                      "Throughput Should Be Measured", (reference, server, v.name),
                                      ("throughput", f"client:{reference}", f"server:{server}")))
        if servers and suite == "read":  # one headroom measurement per run is enough
            tests.append(TestCase(f"Headroom of the {reference} load generator",
                                  "Load Generator Headroom Should Be Measured", (reference,),
                                  ("headroom", f"client:{reference}")))
    return tests
