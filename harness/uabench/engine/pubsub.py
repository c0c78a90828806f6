"""The PubSub scenarios (adapters/SPEC.md §8) on the engine's cell runner and sweep: each
cell gets its own multicast group and port, the publisher is the peer (the `server` columns
of the store) and the subscribers the measured processes (the `client` columns), so a PubSub
signal-rate sweep sits on the same axes as the client/server subscription sweep of an SDK:

- `pubsub-sweep`: one publisher, one subscriber on loopback, N signals at the interval;
  parameter N. The sweep stops at the first point not sustained (results.sustain, the rule of
  the client/server subscription sweep) and bisects the limit; `pubsub-sweep-verdict` records it.
- `pubsub-subscribers`: one publisher and k subscribers, each in its own network namespace
  on a bridge; parameter k; the result combines the k subscribers.
- `pubsub-interop`: every publisher SDK to every subscriber SDK, verified.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from enum import StrEnum

from uabench_contract import Histogram

from uabench import sdks, targets
from uabench.engine import cells, search
from uabench.engine.cells import Measured, Outcome
from uabench.engine.constants import SIGNALS_PER_EXTRA_SECOND
from uabench.engine.session import Session
from uabench.netpath.path import NetworkPath
from uabench.plan import Phase, Plan
from uabench.proc.netns import MTU, Hosts
from uabench.results import sustain
from uabench.results.kinds import CellKind
from uabench.sdks import Sdk
from uabench.targets.process import AdapterProcess

SWEEP_VARIANT = "signal rate"
SUBSCRIBERS_VARIANT = "subscribers"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("0.0.0.0", 0))
        return probe.getsockname()[1]


class PubSubRun:
    """Runs the PubSub cells of a plan in a benchmark Session and records them in its store."""

    def __init__(self, session: Session, plan: Plan, profile: str) -> None:
        assert plan.pubsub, f"{plan.path} is not a PubSub plan"
        self.session, self.plan, self.profile, self.setup = session, plan, profile, plan.pubsub
        self.cells = 0

    def configs(self, signals: int, interface: str) -> tuple[dict, dict]:
        """(publisher, subscriber) configs of a new cell: its own group and port, so no cell
        (of this run or a concurrent one) hears another's publisher."""
        self.cells += 1
        hosts = self.setup.groups.num_addresses - 2
        group = self.setup.groups.network_address + 1 + (os.getpid() * 97 + self.cells) % hosts
        address = f"opc.udp://{group}:{free_udp_port()}/"
        publisher = {**self.setup.config, "address": address, "interface": interface, "signals": signals}
        return publisher, dict(publisher)

    def measure(
        self,
        publisher: Sdk,
        subscriber: Sdk,
        publisher_config: dict,
        subscriber_configs: list[dict],
        hosts: Hosts | NetworkPath | None = None,
        publisher_prefix: list[str] | None = None,
    ) -> Outcome:
        """Starts the publisher (under `publisher_prefix`, e.g. in a network namespace), then
        the subscribers (subscriber k on host k), which build their side while the publisher
        builds its own: their warm-up starts with its first NetworkMessage (SPEC §8)."""
        if "publisher" not in publisher.roles:
            return Outcome("not_supported", publisher.reason_unsupported("publisher"))
        if "subscriber" not in subscriber.roles:
            return Outcome("not_supported", subscriber.reason_unsupported("subscriber"))
        running = Measured.start(
            AdapterProcess(
                publisher,
                "publisher",
                publisher_config,
                self.session.workdir,
                self.session.server_cpus,
                name=f"{publisher.id}-publisher-{time.monotonic_ns()}",
                prefix=publisher_prefix,
            )
        )
        try:  # a large DataSet takes a while to build
            ready_s = running.process.ready_timeout_s + publisher_config["signals"] / SIGNALS_PER_EXTRA_SECOND
            return cells.run_cell(
                subscriber,
                "subscriber",
                subscriber_configs,
                self.session.workdir,
                self.session.client_cpus,
                peer=running,
                peer_ready=lambda: running.wait_ready(ready_s),
                hosts=hosts,
            )
        finally:
            running.stop()

    def cell(
        self,
        kind: StrEnum,
        variant: str,
        publisher_id: str,
        subscriber_id: str,
        phase: Phase,
        signals: int,
        repetition: int = 0,
        parameter: object = None,
        count: int = 0,
    ) -> Outcome:
        """One measured and recorded cell: on loopback (count 0), or with `count` subscribers
        on hosts."""
        publisher, subscriber = sdks.get(publisher_id), sdks.get(subscriber_id)
        timing = {"warmup_s": phase.warmup_s, "duration_s": phase.duration_s}
        if count == 0:
            # on loopback, or from the publisher's target to the address here on the path to it
            publisher_config, template = self.configs(signals, targets.address("publisher"))
            configs = [dict(template, interface=targets.local_address_toward("publisher"), **timing)]
            outcome = self.measure(publisher, subscriber, publisher_config, configs)
        elif targets.elsewhere("publisher"):
            configs = [{"subscribers": count}]
            publisher_config = {"target": targets.label("publisher")}
            outcome = Outcome(
                "not_supported",
                f"subscribers on network namespaces of this machine's bridge cannot hear a publisher on "
                f"{targets.label('publisher')}",
            )
        else:
            with Hosts(count) as hosts:
                publisher_config, template = self.configs(signals, hosts.bridge_address)
                configs = [dict(template, interface=hosts.address(k), **timing) for k in range(count)]
                outcome = self.measure(publisher, subscriber, publisher_config, configs, hosts)
                left = hosts.down()
                if left:
                    outcome.status, outcome.reason = "fail", f"could not remove {', '.join(left)}"
        self.session.versions.setdefault(publisher.id, publisher.version)
        if outcome.result:
            self.session.versions[subscriber.id] = outcome.result.get("version", subscriber.version)
        return self.session.recorder.record(
            kind, subscriber, publisher, variant, repetition, configs[0], outcome, publisher_config, parameter
        )


# --- the scenarios ------------------------------------------------------------------------------


def judged(outcomes: list[Outcome]) -> sustain.Judged:
    """The sustain rule over a point's repetitions (results.sustain: their median)."""
    return sustain.judge([o.result or {} for o in outcomes])


def summary(outcome: Outcome) -> str:
    """One line for the Robot log."""
    result = outcome.result or {}
    counters = result.get("pubsub", {})
    cycle = Histogram(result.get("cycle_time_ns"))
    delay = Histogram(result.get("delay_ns"))
    cpu = (outcome.server_resources or {}).get("cpu_percent")

    def ms(value):
        return f"{value / 1e6:.1f}" if value is not None else "–"

    return (
        f"{result.get('throughput', {}).get('values_per_s', 0):,.0f} signals/s, "
        f"{result.get('throughput', {}).get('ops_per_s', 0):,.1f} messages/s, cycle mean {ms(cycle.mean())} "
        f"p99 {ms(cycle.percentile(99))} max {ms(cycle.max())} ms, delay p50 {ms(delay.percentile(50))} "
        f"p99 {ms(delay.percentile(99))} ms, lost {counters.get('lost', 0)}, "
        f"datagrams {counters.get('datagrams', 0)} (max {counters.get('max_datagram_bytes', 0)} B), publisher CPU "
        + (f"{cpu:.1f} %" if cpu is not None else "–")
        + (" [subscriber-bound]" if outcome.client_bound else "")
    )


def sweep(run: PubSubRun, publisher: str, subscriber: str, log: Callable[[str], None]) -> search.SweepResult:
    """N signals at the interval, N rising until a point is not sustained (the median of its
    repetitions, the first miss and the last held point measured once more), then the limit
    bisected between them; the limit is recorded as a `pubsub-sweep-verdict` cell."""
    phase = run.plan.phase(run.profile, "sweep")

    def measure(signals, repetition: int) -> Outcome:
        return run.cell(
            CellKind.PUBSUB_SWEEP, SWEEP_VARIANT, publisher, subscriber, phase, signals, repetition, parameter=signals
        )

    found = search.sweep(
        phase.signals,
        measure,
        phase.repetitions,
        search.StopRule(lambda _, outcomes: judged(outcomes).held),
        log=lambda line: log(f"N = {line}"),
        describe=lambda _, outcomes: "; ".join(summary(o) for o in outcomes) + " — " + judged(outcomes).text(),
        bisection=search.Bisection(phase.resolution, phase.bisect_steps),
        limit_repetitions=phase.limit_repetitions,
    )
    if found.limit:
        verdict = search.record_limit(
            run.session.recorder, CellKind.PUBSUB_SWEEP_VERDICT, subscriber, publisher, SWEEP_VARIANT, found, "signals"
        )
        log(f"{publisher}: {verdict['text']}")
    return found


def subscriber_sweep(run: PubSubRun, publisher: str, subscriber: str, log: Callable[[str], None]) -> search.SweepResult:
    """1, 2, 4, 8 … subscribers, each on its own host (a network namespace on a bridge):
    does the publisher's CPU stay flat as subscribers are added? Every point must pass."""
    phase = run.plan.phase(run.profile, "subscribers")

    def measure(count, repetition: int) -> Outcome:
        return run.cell(
            CellKind.PUBSUB_SUBSCRIBERS,
            SUBSCRIBERS_VARIANT,
            publisher,
            subscriber,
            phase,
            phase.signals[0],
            repetition,
            parameter=count,
            count=count,
        )

    def describe(_count, outcomes: list[Outcome]) -> str:
        lines = []
        for outcome in outcomes:
            ip = [s.get("ip") or {} for s in outcome.measured.get("subscribers", [])] or [
                outcome.measured.get("ip") or {}
            ]
            fragments, whole = sum(i.get("ReasmReqds", 0) for i in ip), sum(i.get("ReasmOKs", 0) for i in ip)
            lines.append(
                f"{summary(outcome)}; the subscribers' kernels reassembled {whole} datagrams "
                f"from {fragments} IP fragments (MTU {MTU})"
            )
        return "; ".join(lines)

    return search.sweep(
        phase.counts, measure, phase.repetitions, log=lambda line: log(f"k = {line}"), describe=describe
    )


def interop(run: PubSubRun, publisher: str, subscriber: str, log: Callable[[str], None]) -> Outcome:
    phase = run.plan.phase(run.profile, "interop")
    outcome = run.cell(CellKind.PUBSUB_INTEROP, "interop", publisher, subscriber, phase, phase.signals[0])
    if outcome.status == "pass":
        log(
            f"{publisher} → {subscriber}: {summary(outcome)}; "
            f"{outcome.measured['verification']['checked']} values verified"
        )
    return outcome
