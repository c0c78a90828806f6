"""The PubSub suite (adapters/SPEC.md §8): its plan, its test cases, the cells it measures,
and the "hosts" its subscribers run on (network namespaces on a Linux bridge).

Cells go into the store like client/server cells, with the publisher in the `server` columns
(its CPU, memory and context switches are the server figures) and the subscriber(s) in the
`client` columns, so a PubSub signal-rate sweep sits on the same axes as the client/server
subscription sweep of the same SDK:

- `pubsub-sweep`: one publisher, one subscriber on loopback, N signals at the interval;
  parameter N. The sweep stops when the mean cycle time exceeds 1.1 x the interval.
- `pubsub-subscribers`: one publisher and k subscribers, each in its own network namespace
  on a bridge; parameter k; the result combines the k subscribers.
- `pubsub-interop`: every publisher SDK to every subscriber SDK, verified.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from dataclasses import dataclass

from uabench_contract import Histogram

from uabench import sdks
from uabench.engine.constants import SUSTAINED_CYCLE_RATIO
from uabench.engine.session import Measured, Session, combine_resources, combine_results
from uabench.plan import Phase, Plan
from uabench.proc.netns import MTU, Hosts
from uabench.proc.process import READY_TIMEOUT_S, AdapterError, AdapterProcess
from uabench.results import figures, provenance
from uabench.sdks import Sdk

SUBSCRIBER_GRACE_S = 90.0     # start-up (a large DataSet's address space), a backlog to work off (SPEC §8), the result
KINDS = ("pubsub-sweep", "pubsub-subscribers", "pubsub-interop")
SWEEP_VARIANT = "signal rate"
SUBSCRIBERS_VARIANT = "subscribers"


# --- running cells ---------------------------------------------------------------------------------

def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("0.0.0.0", 0))
        return probe.getsockname()[1]


def judge(result: dict | None) -> str | None:
    """Why a subscriber result does not pass, or None: something must have arrived, every
    NetworkMessage must decode, every value must verify. Loss is reported, not judged."""
    if result is None:
        return "no result"
    figures = result.get("pubsub", {})
    if result["operations"]["attempted"] == 0:
        return (f"no NetworkMessage arrived in the measured phase ({figures.get('datagrams', 0)} datagrams, "
                f"{figures.get('foreign', 0)} from other publishers)")
    if result["operations"]["failed"]:
        examples = "; ".join(result.get("errors", {}).get("examples", [])[:3])
        return f"{result['operations']['failed']} of {result['operations']['attempted']} NetworkMessages did not " \
               f"decode: {examples}"
    verification = result["verification"]
    if verification["failed"]:
        examples = "; ".join(verification.get("examples", [])[:3])
        return f"{verification['failed']} of {verification['checked']} values wrong: {examples}"
    if result["config"].get("verify", True) and verification["checked"] == 0:
        return "nothing was verified"
    return None


def combine(results: list[dict]) -> dict:
    """One record for several subscribers of the same publisher: counts and histograms add
    up, throughput is the total delivered; each subscriber's summary is kept."""
    if len(results) == 1:
        return results[0]
    combined = combine_results(results, overlap=True)
    first = results[0].get("pubsub", {})
    combined["pubsub"] = {key: (sum(r["pubsub"].get(key, 0) for r in results) if isinstance(value, int)
                                and not isinstance(value, bool) and key not in ("writers", "max_datagram_bytes")
                                else value) for key, value in first.items()}
    combined["pubsub"]["max_datagram_bytes"] = max(r["pubsub"].get("max_datagram_bytes", 0) for r in results)
    combined["subscribers"] = [{
        "messages_per_s": r["throughput"]["ops_per_s"], "signals_per_s": r["throughput"]["values_per_s"],
        "lost": r["pubsub"].get("lost"), "cycle_mean_ns": Histogram(r.get("cycle_time_ns")).mean(),
        "delay_p99_ns": Histogram(r.get("delay_ns")).percentile(99), "ip": r.get("ip")} for r in results]
    return combined


@dataclass
class Outcome:
    status: str  # pass | fail | not_supported
    reason: str | None = None
    result: dict | None = None
    publisher_resources: dict | None = None
    publisher_perf: dict | None = None
    subscriber_resources: dict | None = None
    subscriber_perf: dict | None = None
    subscriber_bound: bool = False

    def cycle_ratio(self) -> float | None:
        if not self.result:
            return None
        return figures.cycle_ratio(self.result)


class PubSubRun:
    """Runs PubSub cells in a benchmark Session and records them in its store."""

    def __init__(self, session: Session, plan: Plan, profile: str) -> None:
        self.session, self.plan, self.profile = session, plan, profile
        self.cells = 0

    def configs(self, signals: int, interface: str) -> tuple[dict, dict]:
        """(publisher, subscriber) configs of a new cell: its own group and port, so no cell
        (of this run or a concurrent one) hears another's publisher."""
        self.cells += 1
        hosts = self.plan.pubsub.groups.num_addresses - 2
        group = self.plan.pubsub.groups.network_address + 1 + (os.getpid() * 97 + self.cells) % hosts
        address = f"opc.udp://{group}:{free_udp_port()}/"
        publisher = {**self.plan.pubsub.config, "address": address, "interface": interface, "signals": signals}
        return publisher, dict(publisher)

    def start_publisher(self, sdk: Sdk, config: dict) -> Measured:
        process = AdapterProcess(sdk, "publisher", config, self.session.workdir, self.session.server_cpus,
                                 name=f"{sdk.id}-publisher-{time.monotonic_ns()}")
        return Measured.start(process)

    @staticmethod
    def wait_ready(publisher: Measured, config: dict) -> None:
        """The publisher's ready line; a large DataSet takes a while to build."""
        process = publisher.process
        ready = process.wait_event(("ready", "error"), READY_TIMEOUT_S + config["signals"] / 5000)
        if ready["event"] == "error":
            kind = ready.get("kind")
            raise (NotSupportedError if kind == "not_supported" else AdapterError)(
                f"{process.sdk.id} publisher refused to start: {kind}: {ready.get('message')}")

    def measure(self, publisher: Sdk, subscriber: Sdk, publisher_config: dict, subscriber_configs: list[dict],
                prefixes: list[list[str]] | None = None, hosts: Hosts | None = None) -> Outcome:
        """Starts the publisher, then the subscribers (in their namespaces), collects their
        results and the publisher's resource use over their common measured phase."""
        for sdk, role in ((publisher, "publisher"), (subscriber, "subscriber")):
            if role not in sdk.roles:
                return Outcome("not_supported", sdk.reason_unsupported(role))
        before = [hosts.ip_counters(k) for k in range(hosts.count)] if hosts else []
        running = self.start_publisher(publisher, publisher_config)
        subscribers: list[Measured] = []
        try:
            # The subscribers build their side while the publisher builds its own: their
            # warm-up starts with its first NetworkMessage (SPEC §8).
            for index, config in enumerate(subscriber_configs):
                prefix = prefixes[index] if prefixes else None
                process = AdapterProcess(subscriber, "subscriber", config, self.session.workdir,
                                         self.session.client_cpus, name=f"{subscriber.id}-subscriber-"
                                         f"{index}-{time.monotonic_ns()}", prefix=prefix)
                subscribers.append(Measured.start(process))
            try:
                self.wait_ready(running, publisher_config)
            except NotSupportedError as error:
                return Outcome("not_supported", str(error))
            except AdapterError as error:
                return Outcome("fail", f"publisher did not start: {error}")
            return self._collect(running, subscribers, subscriber_configs, hosts, before)
        finally:
            for one in subscribers:
                one.stop()
            running.stop()

    def _collect(self, publisher: Measured, subscribers: list[Measured], configs: list[dict],
                 hosts: Hosts | None, before: list[dict]) -> Outcome:
        config = configs[0]
        timeout = config["warmup_s"] + config["duration_s"] + SUBSCRIBER_GRACE_S + config["signals"] / 5000
        deadline = time.monotonic() + timeout
        events, failure = [], None
        for one in subscribers:
            try:
                events.append(one.process.wait_event(("result", "error"), max(0.1, deadline - time.monotonic())))
                one.process.wait_exit(10)
            except AdapterError as error:
                failure = failure or str(error)
        errors = [e for e in events if e["event"] == "error"]
        if failure or errors:
            kind = errors[0].get("kind", "runtime") if errors else "runtime"
            reason = failure or f"{kind}: {errors[0].get('message', '')}"
            if not publisher.process.running():
                reason = f"the publisher exited during the run{publisher.process.stderr_tail_text()}\n{reason}"
            return Outcome("not_supported" if kind == "not_supported" else "fail", reason)
        if hosts:
            for k, event in enumerate(events):
                after = hosts.ip_counters(k)
                event["ip"] = {"mtu": MTU, **{key: after.get(key, 0) - before[k].get(key, 0)
                                              for key in ("ReasmReqds", "ReasmOKs", "ReasmFails", "InReceives")}}
        result = combine(events)
        outcome = Outcome("pass", result=result)
        reasons = [(index, judge(event)) for index, event in enumerate(events)]
        reason = next((f"subscriber {index}: {why}" if len(events) > 1 else why
                       for index, why in reasons if why), None)
        windows = [one.window(e["start_ns"], e["end_ns"]) for one, e in zip(subscribers, events, strict=True)]
        outcome.subscriber_resources = combine_resources([w[0] for w in windows])
        outcome.subscriber_perf = combine_resources([w[1] for w in windows])
        outcome.publisher_resources, outcome.publisher_perf = publisher.window(result["start_ns"], result["end_ns"])
        # one subscriber process saturating a core cannot tell whether the publisher kept up
        outcome.subscriber_bound = any(w[0] and w[0]["cpu_percent"] >= 90.0 for w in windows)
        if reason is None and not publisher.process.running():
            reason = f"the publisher exited during the run{publisher.process.stderr_tail_text()}"
        if reason:
            outcome.status, outcome.reason = "fail", reason
        return outcome

    def record(self, kind: str, publisher: Sdk, subscriber: Sdk, variant: str, repetition: int, parameter: object,
               publisher_config: dict, subscriber_config: dict, outcome: Outcome) -> int:
        return self.session.store.add_cell(
            self.session.run_id, suite=self.session.suite, kind=kind, client=subscriber.id, server=publisher.id,
            variant=variant, parameter=None if parameter is None else str(parameter), repetition=repetition,
            status=outcome.status, reason=outcome.reason, config_hash=provenance.config_hash(subscriber_config),
            client_config=subscriber_config,
            server_config=publisher_config, result=outcome.result, client_resources=outcome.subscriber_resources,
            server_resources=outcome.publisher_resources, client_perf=outcome.subscriber_perf,
            server_perf=outcome.publisher_perf, client_bound=outcome.subscriber_bound)

    # --- the scenarios -------------------------------------------------------------------------

    def cell(self, kind: str, variant: str, publisher_id: str, subscriber_id: str, phase: Phase, signals: int,
             repetition: int = 0, parameter: object = None, count: int = 0) -> Outcome:
        """One measured cell: on loopback (count 0), or with `count` subscribers on hosts."""
        publisher, subscriber = sdks.get(publisher_id), sdks.get(subscriber_id)
        timing = {"warmup_s": phase.warmup_s, "duration_s": phase.duration_s}
        if count == 0:
            publisher_config, subscriber_config = self.configs(signals, "127.0.0.1")
            subscriber_config.update(timing)
            outcome = self.measure(publisher, subscriber, publisher_config, [subscriber_config])
            configs = [subscriber_config]
        else:
            with Hosts(count) as hosts:
                publisher_config, template = self.configs(signals, hosts.bridge_address)
                configs = [dict(template, interface=hosts.address(k), **timing) for k in range(count)]
                outcome = self.measure(publisher, subscriber, publisher_config, configs,
                                       [hosts.prefix(k) for k in range(count)], hosts)
                left = hosts.down()
                if left:
                    outcome.status, outcome.reason = "fail", f"could not remove {', '.join(left)}"
        self.session.versions.setdefault(publisher.id, publisher.version)
        if outcome.result:
            self.session.versions[subscriber.id] = outcome.result.get("version", subscriber.version)
        self.record(kind, publisher, subscriber, variant, repetition, parameter, publisher_config, configs[0], outcome)
        return outcome


class NotSupportedError(AdapterError):
    pass


def summary(outcome: Outcome) -> str:
    """One line for the Robot log."""
    result = outcome.result or {}
    figures = result.get("pubsub", {})
    cycle = Histogram(result.get("cycle_time_ns"))
    delay = Histogram(result.get("delay_ns"))
    cpu = (outcome.publisher_resources or {}).get("cpu_percent")

    def ms(value):
        return f"{value / 1e6:.1f}" if value is not None else "–"

    return (f"{result.get('throughput', {}).get('values_per_s', 0):,.0f} signals/s, "
            f"{result.get('throughput', {}).get('ops_per_s', 0):,.1f} messages/s, cycle mean {ms(cycle.mean())} "
            f"p99 {ms(cycle.percentile(99))} max {ms(cycle.max())} ms, delay p50 {ms(delay.percentile(50))} "
            f"p99 {ms(delay.percentile(99))} ms, lost {figures.get('lost', 0)}, "
            f"datagrams {figures.get('datagrams', 0)} (max {figures.get('max_datagram_bytes', 0)} B), publisher CPU "
            + (f"{cpu:.1f} %" if cpu is not None else "–")
            + (" [subscriber-bound]" if outcome.subscriber_bound else ""))


# --- the scenarios as the Robot keywords run them ------------------------------------------

class Unsupported(Exception):
    """A role the SDK declares not supported: the test is skipped, the cell says why."""


def _value_failure(outcome: Outcome) -> bool:
    """A wrong value or an undecodable message: always a failure, never "the limit"."""
    result = outcome.result
    return bool(result and (result["verification"]["failed"] or result["operations"]["failed"]))


def held(outcome: Outcome) -> bool:
    """The publisher kept its interval: mean cycle time within the limit and nothing lost."""
    return bool(outcome.status == "pass" and outcome.result and figures.pubsub_held(outcome.result))


def _ratio_text(outcome: Outcome) -> str:
    ratio, lost = outcome.cycle_ratio(), (outcome.result or {}).get("pubsub", {}).get("lost")
    return (f"cycle {ratio:.2f} x" if ratio is not None else "no cycle time") + (f", {lost} lost" if lost else "")


def sweep(run: PubSubRun, publisher: str, subscriber: str, log) -> list[tuple[int, Outcome]]:
    """N signals at the interval, N rising until the mean cycle time exceeds 1.1 x the
    interval. A failure at the first point, or a wrong value anywhere, fails; a later point
    that cannot be measured (the publisher gave up) marks the limit."""
    phase = run.plan.phase(run.profile, "sweep")
    measured: list[tuple[int, Outcome]] = []
    for index, signals in enumerate(phase.signals):
        outcomes = [run.cell("pubsub-sweep", SWEEP_VARIANT, publisher, subscriber, phase, signals, repetition,
                             parameter=signals) for repetition in range(phase.repetitions)]
        if all(o.status == "pass" and not held(o) for o in outcomes):
            # Other load on the machine can stall one run: measure a missed point once more
            # before calling it the limit. The point holds if any repetition held.
            log(f"N = {signals}: missed the interval ({', '.join(_ratio_text(o) for o in outcomes)}); "
                "measuring it once more")
            outcomes.append(run.cell("pubsub-sweep", SWEEP_VARIANT, publisher, subscriber, phase, signals,
                                     len(outcomes), parameter=signals))
        failed = [o for o in outcomes if o.status != "pass"]
        if any(o.status == "not_supported" for o in outcomes):
            raise Unsupported(failed[0].reason)
        if failed:
            if index == 0 or any(_value_failure(o) for o in failed):
                raise AssertionError(f"N = {signals}: {failed[0].reason}")
            log(f"N = {signals}: {_first(failed[0].reason)} — limit reached")
            break
        for outcome in outcomes:
            log(f"N = {signals}: {summary(outcome)}")
            measured.append((signals, outcome))
        if not any(held(o) for o in outcomes):
            log(f"N = {signals}: the publisher missed its interval ({', '.join(_ratio_text(o) for o in outcomes)}, "
                f"limit {SUSTAINED_CYCLE_RATIO:g}) — stop")
            break
    sustained = [(n, o) for n, o in measured if held(o)]
    if sustained:
        n, best = max(sustained, key=lambda item: item[1].result["throughput"]["values_per_s"])
        log(f"{publisher}: highest sustained {best.result['throughput']['values_per_s']:,.0f} signals/s "
            f"(N = {n}), publisher CPU {(best.publisher_resources or {}).get('cpu_percent', float('nan')):.1f} %")
    return measured


def subscriber_sweep(run: PubSubRun, publisher: str, subscriber: str, log) -> list[tuple[int, Outcome]]:
    """1, 2, 4, 8 … subscribers, each on its own host (a network namespace on a bridge):
    does the publisher's CPU stay flat as subscribers are added?"""
    phase = run.plan.phase(run.profile, "subscribers")
    if os.geteuid() != 0 or not shutil.which("ip"):
        raise Unsupported("the subscriber-count sweep creates network namespaces: it needs root and iproute2")
    measured = []
    for count in phase.counts:
        for repetition in range(phase.repetitions):
            outcome = run.cell("pubsub-subscribers", SUBSCRIBERS_VARIANT, publisher, subscriber, phase,
                               phase.signals[0], repetition, parameter=count, count=count)
            if outcome.status == "not_supported":
                raise Unsupported(outcome.reason)
            if outcome.status != "pass":
                raise AssertionError(f"{count} subscribers: {outcome.reason}")
            ip = [s.get("ip") or {} for s in outcome.result.get("subscribers", [])] or [outcome.result.get("ip") or {}]
            fragments, whole = sum(i.get("ReasmReqds", 0) for i in ip), sum(i.get("ReasmOKs", 0) for i in ip)
            log(f"{count} subscribers: {summary(outcome)}; the subscribers' kernels reassembled {whole} datagrams "
                f"from {fragments} IP fragments (MTU {MTU})")
            measured.append((count, outcome))
    return measured


def interop(run: PubSubRun, publisher: str, subscriber: str, log) -> Outcome:
    phase = run.plan.phase(run.profile, "interop")
    outcome = run.cell("pubsub-interop", "interop", publisher, subscriber, phase, phase.signals[0])
    if outcome.status == "not_supported":
        raise Unsupported(outcome.reason)
    if outcome.status != "pass":
        raise AssertionError(outcome.reason)
    log(f"{publisher} → {subscriber}: {summary(outcome)}; "
        f"{outcome.result['verification']['checked']} values verified")
    return outcome


def check_adapters(only: list[str] | None, log) -> None:
    """Every SDK answers capabilities with the PubSub roles its sdk.toml declares, every SDK
    without them says why in [not_supported], and there is a publisher and a subscriber."""
    chosen = [sdk for sdk in sdks.all_sdks() if only is None or sdk.id in only]
    problems = []
    for sdk in chosen:
        try:
            capabilities = sdks.capabilities(sdk)
        except sdks.AdapterBroken as error:
            problems.append(str(error))
            continue
        for role in ("publisher", "subscriber"):
            declared, answered = role in sdk.roles, role in capabilities.get("roles", [])
            if declared != answered:
                problems.append(f"{sdk.id}: sdk.toml {'declares' if declared else 'does not declare'} the {role} "
                                f"role, capabilities {'lists' if answered else 'does not list'} it")
            if not declared and role not in sdk.not_supported:
                problems.append(f"{sdk.id}: no [not_supported] reason for the {role} role")
        roles = [r for r in ("publisher", "subscriber") if r in sdk.roles]
        log(f"{sdk.id}: " + (", ".join(roles) if roles else "no PubSub: " + sdk.reason_unsupported("publisher")))
    if not any("publisher" in s.roles for s in chosen) or not any("subscriber" in s.roles for s in chosen):
        problems.append(f"need at least one publisher and one subscriber, have {[s.id for s in chosen]}")
    if problems:
        raise AssertionError("\n".join(problems))


def _first(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:200] if text else ""
