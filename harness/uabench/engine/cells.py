"""One measured cell, for every communication model: N measured processes in one role
(clients of a server, subscribers of a publisher), optionally each on its own host (a network
namespace), run to their result against a peer that is already running; their results
combined, their and the peer's resources sampled over the measured phase, the whole judged.

In the store the peer sits in the `server` columns and the measured processes in the
`client` columns: a publisher's CPU is a server figure, its subscribers' a client figure."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from uabench_contract import Histogram, combine_timelines

from uabench import targets
from uabench.engine.constants import (
    CLIENT_BOUND_PERCENT,
    CLIENT_GRACE_S,
    EMULATED_GRACE_S,
    EMULATED_SESSION_S,
    SIGNALS_PER_EXTRA_SECOND,
    SUBSCRIBER_GRACE_S,
)
from uabench.netpath.path import NetworkPath
from uabench.proc import cleanup, sampling
from uabench.proc.netns import MTU, Hosts
from uabench.proc.sampling import PerfStat, ProcessSampler
from uabench.results import records
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError, AdapterProcess

RAW_RECORD_CHARS = 2000  # of a record that breaks the contract, kept in its cell's reason
HISTOGRAMS = ("latency_ns", "cycle_time_ns", "delay_ns", "session_setup_ns")
# SPEC §3 R3: a standstill is judged only over a measured phase of at least this many updates
ADVANCE_MIN_UPDATES = 10
IP_COUNTERS = ("ReasmReqds", "ReasmOKs", "ReasmFails", "InReceives")


class NotSupportedError(AdapterError):
    """The adapter answered that it does not support what it was asked to do."""


@dataclass(frozen=True)
class CellSpec:
    """What one client/server cell measures and how it is stored: `processes` clients of
    `client` running `workload` against `server`'s server (its config with `server_overrides`),
    recorded as `kind`, `variant` and `repetition` (and `parameter`: a sweep's point, a
    comparison's arm). Session.cell takes it whole."""

    kind: StrEnum  # results.kinds.CellKind or a suite's own (plan.cell_kinds)
    client: Sdk
    server: Sdk
    variant: str
    repetition: int
    workload: dict
    processes: int = 1
    parameter: object = None
    server_overrides: dict | None = None


@dataclass
class Measured:
    """One adapter process while it runs: the process and its samplers."""

    process: AdapterProcess
    sampler: ProcessSampler
    perf: PerfStat

    @classmethod
    def start(cls, process: AdapterProcess) -> Measured:
        process.start()
        perf_path = process.workdir / f"{process.name}.perf.csv"
        if process.remote is not None and process.remote_role is not None:
            # on an SSH target: the harness's own sampler runs there (proc/agent.py)
            from uabench.targets.ssh import RemotePerfStat, RemoteSampler, SshTarget

            assert isinstance(process.remote, SshTarget)
            remote = RemoteSampler(process.remote, process.remote_role)
            return cls(process, remote, RemotePerfStat(remote, perf_path))
        return cls(
            process, ProcessSampler(process.pid).start(), PerfStat(process.pid, perf_path, cleanup.adopt).start()
        )

    def wait_ready(self, timeout: float) -> dict:
        """Its ready event; NotSupportedError or AdapterError when it refuses to start."""
        ready = self.process.wait_event(("ready", "error"), timeout)
        if ready["event"] == "error":
            kind = ready.get("kind")
            raise (NotSupportedError if kind == "not_supported" else AdapterError)(
                f"{self.process.sdk.id} {self.process.role} refused to start: {kind}: {ready.get('message')}"
            )
        return ready

    @property
    def alive(self) -> bool:
        return self.process.running()

    def death_reason(self) -> str:
        code = self.process.popen.poll() if self.process.popen else None
        return (
            f"{self.process.sdk.id} {self.process.role} exited with status {code} during the run"
            + self.process.stderr_tail_text()
        )

    def window(self, start_ns: int, end_ns: int) -> tuple[dict | None, dict | None]:
        return self.sampler.window(start_ns, end_ns), self.perf.window(start_ns, end_ns)

    def stop(self) -> tuple[int | None, float, bool]:
        self.perf.stop()
        outcome = self.process.stop()
        self.sampler.stop()
        return outcome


@dataclass
class Outcome:
    """What a cell gave: its verdict, the combined result of its measured processes, their
    resources (client_*) and the peer's (server_*) over the measured phase."""

    status: str  # pass | fail | not_supported
    reason: str | None = None
    result: dict | None = None
    client_resources: dict | None = None
    server_resources: dict | None = None
    client_perf: dict | None = None
    server_perf: dict | None = None
    client_bound: bool = False
    cell_id: int | None = None
    values_stale: bool = False  # SPEC §3 R3 failed: the values did not advance (wrong values)
    retried: str | None = None  # the reason of a first attempt that failed for the machine's sake

    @property
    def measured(self) -> dict:
        """The result of a cell that ran to its result (one that passed, or was judged)."""
        if self.result is None:
            raise ValueError(f"a cell without a result ({self.status}: {self.reason})")
        return self.result


# --- judging ---------------------------------------------------------------------------------


def judge(result: dict | None, role: str = "client") -> str | None:
    """Why one process's result does not pass, or None: operations were attempted and none
    failed, every value verified. A subscriber's operations are the NetworkMessages it
    received (decoded or not); its losses are reported, not judged."""
    if result is None:
        return "no result"
    operations, verification = result["operations"], result["verification"]
    subscriber = role == "subscriber"
    if operations["attempted"] == 0:
        if subscriber:
            figures = result.get("pubsub", {})
            return (
                f"no NetworkMessage arrived in the measured phase ({figures.get('datagrams', 0)} datagrams, "
                f"{figures.get('foreign', 0)} from other publishers)"
            )
        return "no operation was attempted"
    if operations["failed"]:
        examples = "; ".join(result.get("errors", {}).get("examples", [])[:3])
        what = "NetworkMessages did not decode" if subscriber else "operations failed"
        return f"{operations['failed']} of {operations['attempted']} {what}: {examples}"
    if verification["failed"]:
        examples = "; ".join(verification.get("examples", [])[:3])
        return f"{verification['failed']} of {verification['checked']} values wrong: {examples}"
    if result["config"].get("verify", True) and verification["checked"] == 0:
        return "nothing was verified"
    return None


# What fails a correctness cell for the machine's sake, not the SDK's: a client that completed no
# operation in its window, a server that did not print ready within its bound (a core busy with
# something else). Such a cell is recorded as "disturbed" and run once more (Session.cell with
# `retry_machine`); any other failure is the pair's.
MACHINE_FAILURES = (
    re.compile(r"^no operation was attempted$"),
    re.compile(r"^server did not start: .*: no ready(/error)? event within "),
)


def machine_failure(reason: str | None) -> bool:
    """Whether a failed cell's `reason` is the machine's (MACHINE_FAILURES), worth one retry."""
    return reason is not None and any(pattern.search(reason) for pattern in MACHINE_FAILURES)


def values_standing_still(result: dict, server_config: dict | None) -> str | None:
    """SPEC §3 R3, judged here because only the harness knows the server's update interval:
    a verified read of Tick or a Signal over a measured phase of at least ADVANCE_MIN_UPDATES
    updates must have seen some value advance (the client's verification.ticks_advanced),
    else the server's update loop is not running. None when it did, or cannot be judged."""
    config = result["config"]
    if server_config is None or result.get("workload") != "read" or not config.get("verify", True):
        return None
    interval_ms = server_config.get("update_interval_ms", 100)
    phase_ms = (result["end_ns"] - result["start_ns"]) / 1e6
    if interval_ms <= 0 or phase_ms < ADVANCE_MIN_UPDATES * interval_ms:
        return None
    if not any(node == "Tick" or node.startswith("Signal_") for node in config.get("nodes", [])):
        return None
    advanced = result["verification"].get("ticks_advanced", 0)
    if advanced >= 1:
        return None
    return (
        "values did not advance over the measured phase: the server's update loop is not running "
        f"(ticks_advanced {advanced} over {phase_ms / 1e3:.1f} s, update_interval_ms {interval_ms})"
    )


def check_result(event: dict, role: str) -> str | None:
    """The one check of a result event before it counts: the record keeps the contract (its
    JSON Schema and SPEC rules), then the measurement is judged. Why it fails, or None."""
    return contract_breach(event) or judge(event, role)


def contract_breach(event: dict) -> str | None:
    """Why a result record as an adapter printed it breaks the contract (JSON Schema and SPEC
    rules), with the record itself (shortened) for the failed cell, or None. Nothing of such a
    record is combined, sampled or judged: its fields cannot be trusted to have their types."""
    problems = records.validate_result(event)
    if not problems:
        return None
    raw = json.dumps(event)
    raw = raw if len(raw) <= RAW_RECORD_CHARS else raw[:RAW_RECORD_CHARS] + f"… ({len(raw)} characters)"
    return f"the result record breaks the contract: {'; '.join(problems[:5])}; the record: {raw}"


def wrong_values(outcome: Outcome) -> bool:
    """A wrong value, or a NetworkMessage that does not decode: always a failure, never a
    limit of the system under test."""
    result = outcome.result
    if not result:
        return False
    return bool(
        result["verification"]["failed"]
        or outcome.values_stale
        or ("pubsub" in result and result["operations"]["failed"])
    )


def load_generator_bound(role: str, windows: list[dict | None], cpus: set[int] | None) -> bool:
    """The measured processes, not the peer, may have been the limit: one of their threads
    used nearly a whole core (the hot thread: an event loop or a decoder runs on one thread,
    so a single-threaded client on a host with more cores is bound long before the process
    total nears all of them), or together they used nearly all the load generator's CPUs. A
    window without per-thread figures (stored before them) is judged by its process total
    against one core for a subscriber, all CPUs for clients."""
    present = [w for w in windows if w]
    if any((w.get("hot_thread_cpu") or 0.0) >= CLIENT_BOUND_PERCENT for w in present):
        return True
    if role == "subscriber":
        return any(w["cpu_percent"] >= CLIENT_BOUND_PERCENT for w in present)
    combined = combine_resources(present)
    allowance = 100.0 * len(cpus or os.sched_getaffinity(0))
    return bool(combined and combined["cpu_percent"] >= CLIENT_BOUND_PERCENT / 100 * allowance)


# --- combining processes ----------------------------------------------------------------------


def combine_results(results: list[dict], overlap: bool = False) -> dict:
    """One record for several processes that measured side by side: counts, throughput and
    histograms add up. The measured window spans all of them, or with `overlap` only the
    time they all measured (subscribers of one publisher). Subscribers' PubSub counters add
    up too, and each subscriber's summary is kept."""
    if len(results) == 1:
        return results[0]
    combined = dict(results[0])
    first, last = (max, min) if overlap else (min, max)
    combined["start_ns"] = first(r["start_ns"] for r in results)
    combined["end_ns"] = last(r["end_ns"] for r in results)
    combined["processes"] = len(results)
    combined["operations"] = {k: sum(r["operations"][k] for r in results) for k in ("attempted", "succeeded", "failed")}
    combined["values"] = sum(r["values"] for r in results)
    combined["verification"] = {
        "checked": sum(r["verification"]["checked"] for r in results),
        "failed": sum(r["verification"]["failed"] for r in results),
        "examples": [x for r in results for x in r["verification"]["examples"]][:5],
    }
    if any("ticks_advanced" in r["verification"] for r in results):  # SPEC §6: the largest over nodes
        combined["verification"]["ticks_advanced"] = max(r["verification"].get("ticks_advanced", 0) for r in results)
    if any("read_back" in r["verification"] for r in results):  # SPEC §6: values, summed like checked
        combined["verification"]["read_back"] = sum(r["verification"].get("read_back", 0) for r in results)
    combined["errors"] = {"examples": [x for r in results for x in r["errors"]["examples"]][:5]}
    combined["throughput"] = {k: sum(r["throughput"][k] for r in results) for k in ("ops_per_s", "values_per_s")}
    for key in HISTOGRAMS:
        if any(key in r for r in results):
            merged = Histogram()
            for r in results:
                merged.merge(Histogram(r.get(key, [])))
            combined[key] = merged.sparse()
    if all("timeline" in r for r in results):
        combined["timeline"] = combine_timelines([r["timeline"] for r in results], combined["end_ns"])
    if "pubsub" in combined:
        combined.update(_combine_pubsub(results))
    return combined


def _combine_pubsub(results: list[dict]) -> dict:
    first = results[0]["pubsub"]
    figures = {
        key: (
            sum(r["pubsub"].get(key, 0) for r in results)
            if isinstance(value, int) and not isinstance(value, bool) and key not in ("writers", "max_datagram_bytes")
            else value
        )
        for key, value in first.items()
    }
    figures["max_datagram_bytes"] = max(r["pubsub"].get("max_datagram_bytes", 0) for r in results)
    subscribers = [
        {
            "messages_per_s": r["throughput"]["ops_per_s"],
            "signals_per_s": r["throughput"]["values_per_s"],
            "lost": r["pubsub"].get("lost"),
            "cycle_mean_ns": Histogram(r.get("cycle_time_ns")).mean(),
            "delay_p99_ns": Histogram(r.get("delay_ns")).percentile(99),
            "ip": r.get("ip"),
        }
        for r in results
    ]
    return {"pubsub": figures, "subscribers": subscribers}


def combine_resources(windows: Sequence[dict | None]) -> dict | None:
    """Sum of several processes' resource windows (seconds stay per process)."""
    present = [w for w in windows if w]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    combined = sampling.not_added(present)
    for key in present[0]:
        if key in sampling.NOT_ADDED:
            continue
        values = [w.get(key) for w in present]
        numbers = [v for v in values if v is not None]
        if key == "seconds":
            combined[key] = max(numbers)
        elif len(numbers) < len(values):
            combined[key] = None
        else:
            combined[key] = sum(numbers)
    return combined


# --- the cell runner -----------------------------------------------------------------------------


def time_allowed(role: str, config: dict) -> float:
    """Seconds a measured process may take to its result."""
    if role == "subscriber":
        return (
            config["warmup_s"]
            + config["duration_s"]
            + _grace(SUBSCRIBER_GRACE_S)
            + config["signals"] / SIGNALS_PER_EXTRA_SECOND
        )
    sessions = config.get("sessions", 1) * EMULATED_SESSION_S if targets.current().emulated else 0.0
    return config.get("warmup_s", 1) + config.get("duration_s", 5) + _grace(CLIENT_GRACE_S) + sessions


def _grace(seconds: float) -> float:
    return max(seconds, EMULATED_GRACE_S) if targets.current().emulated else seconds


def run_cell(
    sdk: Sdk,
    role: str,
    configs: list[dict],
    workdir: Path,
    cpus: set[int] | None,
    peer: Measured | None = None,
    peer_ready: Callable[[], object] | None = None,
    hosts: Hosts | NetworkPath | None = None,
    started: Callable[[int], None] | None = None,
    prefix: list[str] | None = None,
) -> Outcome:
    """Starts one `role` process of `sdk` per config (process k on host k when `hosts` are
    given), waits for `peer_ready` (a peer still building its side while they start), collects
    their results, combines and judges them, and samples the peer over their measured phase.
    `started(pid)` hears of every process started (a host sampler counts them as measured);
    `prefix` runs each under a command of its own (valgrind) where no hosts are given."""
    if role not in sdk.roles:
        return Outcome("not_supported", sdk.reason_unsupported(role))
    # SPEC §3: each process has a session 0, so verified writes of several processes to the
    # same nodes would take one another's values for their own (W1) and overwrite the
    # read-back pattern: not a measurement the contract defines.
    if len(configs) > 1 and any(c.get("workload") == "write" and c.get("verify", True) for c in configs):
        raise ValueError(f"{len(configs)} client processes of a verified write: SPEC §3 defines one writer process")
    before = [hosts.ip_counters(k) for k in range(hosts.count)] if hosts else []
    measured: list[Measured] = []
    try:
        for k, config in enumerate(configs):
            measured.append(
                Measured.start(
                    AdapterProcess(
                        sdk,
                        role,
                        config,
                        workdir,
                        cpus,
                        name=f"{sdk.id}-{role}-{time.monotonic_ns()}",
                        prefix=hosts.prefix(k) if hosts else prefix,
                    )
                )
            )
            if started is not None:
                started(measured[-1].process.pid)
        if peer is not None and peer_ready is not None:
            try:
                peer_ready()
            except NotSupportedError as error:
                return Outcome("not_supported", str(error))
            except AdapterError as error:
                return Outcome("fail", f"{peer.process.role} did not start: {error}")
        events, statuses, failure = _wait_for_results(measured, time_allowed(role, configs[0]))
    finally:
        for one in measured:
            one.stop()
    # the line protocol comes first: a process that printed anything but events is broken, and so
    # is what it measured (also a result line cut short, which never became an event)
    violations = [v for v in (one.process.protocol_violation() for one in [*measured, *filter(None, [peer])]) if v]
    if failure or any(e["event"] == "error" for e in events):
        return _broken(events, failure, peer, violations)
    if violations:
        return Outcome("fail", "\n".join(violations))
    breaches = [
        f"{role} {k}: {why}" if len(events) > 1 else why for k, e in enumerate(events) if (why := contract_breach(e))
    ]
    if breaches:
        return Outcome("fail", "\n".join(breaches))
    server_config = peer.process.config if peer and peer.process.role == "server" else None
    # the records as the adapters wrote them
    stale = [values_standing_still(event, server_config) for event in events]
    reasons = [judge(event, role) or standstill for event, standstill in zip(events, stale, strict=True)]
    if hosts:
        for k, event in enumerate(events):
            after = hosts.ip_counters(k)
            event["ip"] = {"mtu": MTU, **{key: after.get(key, 0) - before[k].get(key, 0) for key in IP_COUNTERS}}
    result = combine_results(events, overlap=role == "subscriber")
    outcome = Outcome("pass", result=result, values_stale=any(stale))
    windows = [one.window(e["start_ns"], e["end_ns"]) for one, e in zip(measured, events, strict=True)]
    outcome.client_resources = combine_resources([w[0] for w in windows])
    outcome.client_perf = combine_resources([w[1] for w in windows])
    if peer:
        outcome.server_resources, outcome.server_perf = peer.window(result["start_ns"], result["end_ns"])
    outcome.client_bound = load_generator_bound(role, [w[0] for w in windows], cpus)
    reason = next(
        (f"{role} {index}: {why}" if len(events) > 1 else why for index, why in enumerate(reasons) if why), None
    )
    if reason is None and any(status not in (0, None) for status in statuses):
        reason = f"{role} exited with status {statuses} after its result"
    if peer and not peer.alive:  # the cause comes first, the symptoms after
        reason = peer.death_reason() + (f"\n{reason}" if reason else "")
    if reason:
        outcome.status, outcome.reason = "fail", reason
    return outcome


def _broken(events: list[dict], failure: str | None, peer: Measured | None, violations: list[str]) -> Outcome:
    """A cell whose processes did not all give a result: the first error, after the peer's
    death when it died (the likely cause) and any break of the line protocol (a result line
    that did not parse is one)."""
    errors = [e for e in events if e["event"] == "error"]
    kind = errors[0].get("kind", "runtime") if errors else "runtime"
    reason = "\n".join([*violations, failure or f"{kind}: {errors[0].get('message', '')}"])
    if peer and not peer.alive:
        reason = peer.death_reason() + "\n" + reason
    return Outcome("not_supported" if kind == "not_supported" else "fail", reason)


def _wait_for_results(measured: list[Measured], timeout: float) -> tuple[list[dict], list[int | None], str | None]:
    """Each process's result (or error) event and exit status, all within one deadline."""
    events, statuses, failure = [], [], None
    deadline = time.monotonic() + timeout
    for one in measured:
        try:
            events.append(one.process.wait_event(("result", "error"), max(0.1, deadline - time.monotonic())))
            statuses.append(one.process.wait_exit(10))
        except AdapterError as error:
            failure = failure or str(error)
    return events, statuses, failure
