"""The network suite's cells (suites/plans/network.toml) on the engine's cell runner: every
server in its own network namespace, the client in another, joined by a path shaped like a
network profile (netpath/path.py), every RTD recorded (SPEC §6 `latencies`).

- `network-calibration`: ping-sized TCP exchanges over the path (network/echo.py): what the
  path alone adds to a round trip.
- `network-rtd`: the reference client reads one server, one scenario of the paper, one request
  in flight, at least `requests` RTDs. On a network-bound path (calibrated round trip above
  `network_bound_ms`) every server's cells run at the same time, each server on its own path;
  otherwise one cell at a time, servers in random order. Scenario D (think time) always runs
  its servers at once: its clients sleep between requests.
- `network-constrained`: the same at one scenario on a host whose CPU a cgroup quota limits,
  the server's CPU sampled every 10 ms (network/cpuload.py) for the RTD–CPU study.
- `network-interop`: every client against the reference server over one network, verified.
- `network-subscription`: the reference client subscribes to each server over each network.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from uabench import plan as plans
from uabench import references, sdks
from uabench.engine import cells, search
from uabench.engine.cells import Measured, Outcome
from uabench.engine.pubsub import PubSubRun
from uabench.engine.servers import free_port
from uabench.engine.session import Session
from uabench.netpath import profiles
from uabench.netpath.path import NetworkPath
from uabench.network import analysis
from uabench.network import plan as network_plan
from uabench.network.cells import NetworkCell
from uabench.network.cpuload import FineCpuSampler
from uabench.network.plan import NetworkProfile, Scenario
from uabench.proc import cgroups, cleanup, launcher
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError, AdapterProcess

CALIBRATION_EXCHANGES = {"smoke": 50, "quick": 200, "full": 1000}
# A cell's measured phase is sized from the RTD expected (the calibrated round trip, or what the
# same server and scenario took on the network before): this margin over it, so the first try
# mostly has its requests; a cell short of them is measured once more, longer.
DURATION_MARGIN = 1.15
SDK_TIME_GUESS_S = 0.002  # a server's share of an RTD before any was measured (a Python SDK's)
# PubSub over a lossy path: 200 Floats (a 1 kB NetworkMessage, one datagram) every 10 ms, 100
# messages/s for twice the subscription time, so a loss of 0.5 % shows as a count, not a 0 or 1;
# 0.8 Mbit/s fits the slowest profile's downlink (3g: 2 Mbit/s).
PUBSUB_SIGNALS = 200
PUBSUB_INTERVAL_MS = 10
SUBSCRIPTION = {"publishing_interval_ms": 100, "sampling_interval_ms": 100, "queue_size": 1}


@dataclass
class Calibration:
    network: str
    rtd_ns: list[int]

    @property
    def mean_s(self) -> float:
        return sum(self.rtd_ns) / len(self.rtd_ns) / 1e9


class NetworkRun:
    """Runs the cells of a network plan in a benchmark Session and records them in its store."""

    def __init__(self, session: Session, plan: plans.Plan, profile: str) -> None:
        setup = network_plan.of(plan)
        assert setup, f"{plan.path} is not a network plan"
        self.session, self.plan, self.profile, self.setup = session, plan, profile, setup
        self.chosen: NetworkProfile = setup.profiles[profile]
        self.calibrations: dict[str, Calibration] = {}
        self.sdk_time_s: dict[tuple[str, str], float] = {}  # (server, scenario) -> mean RTD less the path's
        # the reference client: the load generator of every RTD cell but the interop ones
        self.client = sdks.get(plans.reference_client() or references.declared("client"))
        self.rng = random.Random(session.seed)  # the run's seed orders servers (UABENCH_SEED replays it)

    # --- the path and the server on it ------------------------------------------------------

    def calibrate(self, network: str) -> Calibration:
        """Ping-sized exchanges over a path of `network` (once per network), recorded."""
        if network in self.calibrations:
            return self.calibrations[network]
        count = CALIBRATION_EXCHANGES.get(self.profile, 200)
        with NetworkPath(profiles.load(network)) as path:
            port = free_port()
            echo = subprocess.Popen(
                [*path.server_prefix(), sys.executable, "-m", "uabench.network.echo", "serve"]
                + [path.server_address, str(port)],
                stdout=subprocess.PIPE,
                text=True,
                start_new_session=True,
                preexec_fn=launcher.preexec(),
            )
            cleanup.adopt(echo)
            try:
                assert echo.stdout is not None
                echo.stdout.readline()
                path.forward(port)
                done = subprocess.run(
                    [*path.client_prefix(), sys.executable, "-m", "uabench.network.echo", "measure"]
                    + [path.server_address, str(port), str(count)],
                    capture_output=True,
                    text=True,
                    timeout=30 + count * 5,
                )
            finally:
                echo.kill()
                echo.wait(timeout=10)
        if done.returncode != 0:
            raise AdapterError(f"calibration over {network} failed: {done.stderr.strip()[-500:]}")
        measured = json.loads(done.stdout)
        found = Calibration(network, measured["rtd_ns"])
        self.calibrations[network] = found
        stats = analysis.rtd_stats(found.rtd_ns, None)
        assert stats
        self.session.recorder.add_cell(
            suite=self.session.suite,
            kind=NetworkCell.CALIBRATION,
            client="echo",
            server="echo",
            variant=network,
            parameter=network,
            repetition=0,
            status="pass",
            reason=None,
            config_hash=network,
            client_config={"exchanges": count, "bytes": measured["bytes"]},
            server_config=None,
            result={"rtd_ns": found.rtd_ns, "stats": stats.summary(), "network": path.summary()},
        )
        return found

    def network_bound(self, network: str) -> bool:
        """Whether a path of `network` makes its clients wait on it: its calibrated ping-sized
        round trip is above the plan's bound (its servers' cells then run at the same time)."""
        return self.calibrate(network).mean_s * 1000 > self.setup.network_bound_ms

    @contextlib.contextmanager
    def server_on(
        self, path: NetworkPath, sdk: Sdk, limit: cgroups.CpuLimit | None = None
    ) -> Iterator[tuple[Measured, str, dict]]:
        """`sdk`'s server in the path's server namespace (in `limit`'s cgroup), reachable from
        the client's through the path: (its process, its endpoint, its config)."""
        config = self.session.pool.config(sdk, host=path.server_address)
        process = AdapterProcess(
            sdk,
            "server",
            config,
            self.session.workdir,
            self.session.server_cpus,
            name=f"{sdk.id}-server-{config['port']}",
            prefix=path.server_prefix(),
        )
        running = Measured.start(process)
        try:
            if limit is not None:
                limit.add(process.pid)
            ready = running.wait_ready(process.ready_timeout_s)
            path.forward(config["port"])
            yield running, ready["endpoint"], config
        finally:
            running.stop()

    # --- one cell ---------------------------------------------------------------------------

    def rtd_config(
        self, endpoint: str, scenario: Scenario, network: str, server: str, requests: int, warmup_s: float
    ) -> dict:
        think_ms = self.chosen.think_ms if scenario.think else 0.0
        ping_s = self.calibrate(network).mean_s
        sdk_s = self.sdk_time_s.get((server, scenario.name), SDK_TIME_GUESS_S)
        expected_s = ping_s + sdk_s + think_ms / 1000
        return {
            "endpoint": endpoint,
            "workload": "read",
            "nodes": plans.writes(scenario.nodes),
            "nodes_per_request": scenario.nodes,
            "in_flight": 1,
            "think_ms": think_ms,
            "record_latencies": True,
            "warmup_s": warmup_s,
            "duration_s": round(requests * expected_s * DURATION_MARGIN + 0.3, 2),
        }

    def rtd_cell(
        self,
        path: NetworkPath,
        running: Measured,
        endpoint: str,
        server: Sdk,
        scenario: Scenario,
        warmup_s: float,
        requests: int | None = None,
        client: Sdk | None = None,
        sampler: Callable[[], contextlib.AbstractContextManager] | None = None,
    ) -> tuple[Outcome, dict]:
        """One RTD cell (not recorded): at least `requests` RTDs, measured once more and longer
        when the first try had fewer; its result names the scenario."""
        client = client or self.client
        wanted = requests or self.chosen.requests
        network = path.profile.name
        config = self.rtd_config(endpoint, scenario, network, server.id, wanted, warmup_s)
        refused = server.refuses(client.id)
        if refused:  # the server declares it never gives this client a session (sdk.toml [interop])
            return Outcome("not_supported", refused), config
        for attempt in range(2):
            retransmits = path.tcp_counters().get("RetransSegs", 0)
            with sampler() if sampler else contextlib.nullcontext() as fine:
                outcome = cells.run_cell(
                    client, "client", [config], self.session.workdir, self.session.client_cpus,
                    peer=running, hosts=path,
                )  # fmt: skip
            if outcome.result is not None:
                outcome.result["path"] = {
                    **path.summary(),
                    "tcp_retransmits": path.tcp_counters().get("RetransSegs", 0) - retransmits,
                    "attempt": attempt + 1,
                }
                if fine is not None:
                    outcome.result["cpu_samples"] = fine.samples
            latencies = analysis.rtds(outcome.result)
            mean_s = sum(latencies) / len(latencies) / 1e9 if latencies else 0.0
            if outcome.status != "pass" or len(latencies) >= wanted or attempt == 1:
                break
            # the first try fell short: the RTD it measured sizes the second
            think_s = config["think_ms"] / 1000
            config = dict(config, duration_s=round(wanted * (mean_s + think_s) * DURATION_MARGIN + 0.3, 2))
        if outcome.result is not None:
            outcome.result["scenario"] = {"name": scenario.name, "nodes": scenario.nodes, "think": scenario.think}
        if outcome.status == "pass":
            self.sdk_time_s.setdefault((server.id, scenario.name), max(mean_s - self.calibrate(network).mean_s, 0.0))
            if len(latencies) < wanted:
                outcome.status, outcome.reason = "fail", f"{len(latencies)} RTDs, fewer than the {wanted} asked for"
        return outcome, config

    # --- the tests ----------------------------------------------------------------------------

    def rtd(self, network: str, servers: list[str], log: Callable[[str], None]) -> list[Outcome]:
        """Every server over `network`, every scenario; recorded as `network-rtd` cells."""
        bound = self.network_bound(network)
        log(
            f"{network}: ping-sized RTD {self.calibrate(network).mean_s * 1000:.2f} ms "
            + ("(network-bound: servers at once)" if bound else "(one cell at a time)")
        )
        at_max_speed = [s for s in self.setup.scenarios if not s.think]
        thinking = [s for s in self.setup.scenarios if s.think]
        outcomes: list[Outcome] = []
        if bound:
            outcomes += self._at_once(network, servers, list(self.setup.scenarios), log)
        else:
            for server in self.rng.sample(servers, len(servers)):  # no server always first
                outcomes += self._one_server(network, server, at_max_speed, concurrent=False, log=log)
            if thinking:
                outcomes += self._at_once(network, servers, thinking, log)
        return outcomes

    def _at_once(self, network: str, servers: list[str], scenarios: list[Scenario], log) -> list[Outcome]:
        with ThreadPoolExecutor(max_workers=len(servers)) as pool:
            found = list(
                pool.map(
                    lambda s: self._one_server(network, s, scenarios, concurrent=True, log=log, record=False), servers
                )
            )
        return [self._record_rtd(*item) for items in found for item in items]

    def _one_server(
        self, network: str, server_id: str, scenarios: list[Scenario], concurrent: bool, log, record: bool = True
    ) -> list:
        server = sdks.get(server_id)
        results: list = []
        try:
            with (
                NetworkPath(profiles.load(network)) as path,
                self.server_on(path, server) as (running, endpoint, config),
            ):

                def measure(index_scenario: tuple[int, Scenario]):
                    index, scenario = index_scenario
                    warmup = self.chosen.server_warmup_s if index == 0 or concurrent else self.chosen.warmup_s
                    outcome, client_config = self.rtd_cell(path, running, endpoint, server, scenario, warmup)
                    return (network, scenario, server, client_config, outcome, config, concurrent)

                if concurrent:
                    with ThreadPoolExecutor(max_workers=len(scenarios)) as pool:
                        results = list(pool.map(measure, enumerate(scenarios)))
                else:
                    results = [measure(item) for item in enumerate(scenarios)]
        except AdapterError as error:
            results = [
                (
                    network,
                    scenario,
                    server,
                    {"scenario": scenario.name},
                    Outcome("fail", f"server: {error}"),
                    None,
                    concurrent,
                )
                for scenario in scenarios
            ]
        for item in results:
            log(f"{network} {item[1].name} {server_id}: {_summary(item[4])}")
        return [self._record_rtd(*item) for item in results] if record else results

    def _record_rtd(self, network, scenario, server, client_config, outcome, server_config, concurrent) -> Outcome:
        if outcome.result is not None:
            outcome.result["concurrent"] = concurrent
        return self.session.recorder.record(
            NetworkCell.RTD,
            self.client,
            server,
            f"{network}/{scenario.name}",
            0,
            client_config,
            outcome,
            server_config,
            network,
        )

    def constrained(
        self, cores: float, background: float, servers: list[str], log: Callable[[str], None]
    ) -> list[Outcome]:
        """Every server on a host of `cores` (cgroup quota), the constrained scenario over the
        constrained network, the server's CPU sampled every 10 ms; `network-constrained` cells."""
        network, scenario = self.setup.constrained_network, self.setup.scenario(self.setup.constrained_scenario)
        self.calibrate(network)
        outcomes = []
        for server_id in self.rng.sample(servers, len(servers)):
            server = sdks.get(server_id)
            client_config: dict = {"scenario": scenario.name}
            server_config = None
            try:
                with (
                    NetworkPath(profiles.load(network)) as path,
                    cgroups.CpuLimit(cores) as limit,
                    self.server_on(path, server, limit) as (running, endpoint, server_config),
                    _background(limit, background, cores) as beside,
                ):
                    before = limit.throttled()
                    outcome, client_config = self.rtd_cell(
                        path, running, endpoint, server, scenario, self.chosen.server_warmup_s,
                        sampler=functools.partial(FineCpuSampler, running.process.pid, *beside),
                    )  # fmt: skip
                    after = limit.throttled()
            except (AdapterError, cgroups.CgroupError) as error:
                outcome = Outcome("fail", f"server: {error}")
            if outcome.result is not None:
                outcome.result["cpu_limit"] = {
                    "cores": cores,
                    "background_load_percent": background,
                    "throttled": {k: after.get(k, 0) - before.get(k, 0) for k in after},
                }
            log(f"{network} {scenario.name} {server_id} on {cores:g} cores: {_summary(outcome)}")
            outcomes.append(
                self.session.recorder.record(
                    NetworkCell.CONSTRAINED,
                    self.client,
                    server,
                    f"{network}/{scenario.name}/{cores:g} cores" + (f"/{background:g} % load" if background else ""),
                    0,
                    client_config,
                    outcome,
                    server_config,
                    f"{cores:g}",
                )  # fmt: skip
            )
        return outcomes

    def interop(self, client_id: str, log: Callable[[str], None]) -> Outcome:
        network, scenario = self.setup.interop_network, self.setup.scenario(self.setup.interop_scenario)
        server, client = sdks.get(self.setup.reference_server), sdks.get(client_id)
        client_config: dict = {"scenario": scenario.name}
        server_config = None
        try:
            with (
                NetworkPath(profiles.load(network)) as path,
                self.server_on(path, server) as (running, endpoint, server_config),
            ):
                outcome, client_config = self.rtd_cell(
                    path, running, endpoint, server, scenario, self.chosen.server_warmup_s,
                    requests=self.chosen.interop_requests, client=client,
                )  # fmt: skip
        except AdapterError as error:
            outcome = Outcome("fail", f"server: {error}")
        log(f"interop over {network}: {client_id} → {server.id}: {_summary(outcome)}")
        return self.session.recorder.record(
            NetworkCell.INTEROP,
            client,
            server,
            f"{network}/{scenario.name}",
            0,
            client_config,
            outcome,
            server_config,
            network,
        )

    def subscriptions(self, network: str, servers: list[str], log: Callable[[str], None]) -> list[Outcome]:
        """The reference client subscribes to each server's Signal_0..k over `network`: the
        delay (receive − SourceTimestamp) and the gaps of the notifications."""
        bound = self.network_bound(network)

        def one(server_id: str) -> tuple[Sdk, dict, Outcome, dict | None]:
            server = sdks.get(server_id)
            config: dict = {}
            refused = server.refuses(self.client.id, "subscribe")
            if refused:  # the server declares it never gives this client a session (sdk.toml [interop])
                return server, config, Outcome("not_supported", refused), None
            try:
                with (
                    NetworkPath(profiles.load(network)) as path,
                    self.server_on(path, server) as (running, endpoint, server_config),
                ):
                    config = {
                        "endpoint": endpoint,
                        "workload": "subscribe",
                        "nodes": plans.signals(self.setup.subscription_nodes),
                        **SUBSCRIPTION,
                        "warmup_s": max(self.chosen.warmup_s, 1.0),
                        "duration_s": self.chosen.subscription_s,
                    }
                    outcome = cells.run_cell(
                        self.client,
                        "client",
                        [config],
                        self.session.workdir,
                        self.session.client_cpus,
                        peer=running,
                        hosts=path,
                    )
                    return server, config, outcome, server_config
            except AdapterError as error:
                return server, config, Outcome("fail", f"server: {error}"), None

        if bound:
            with ThreadPoolExecutor(max_workers=len(servers)) as pool:
                found = list(pool.map(one, servers))
        else:
            found = [one(s) for s in self.rng.sample(servers, len(servers))]
        outcomes = []
        for server, config, outcome, server_config in found:
            if outcome.result is not None:
                outcome.result["concurrent"] = bound
            log(f"subscriptions over {network} {server.id}: {_summary(outcome)}")
            outcomes.append(
                self.session.recorder.record(
                    NetworkCell.SUBSCRIPTION,
                    self.client,
                    server,
                    network,
                    0,
                    config,
                    outcome,
                    server_config,
                    network,
                )  # fmt: skip
            )
        return outcomes

    def pubsub(self, network: str, log: Callable[[str], None]) -> Outcome:
        """The reference publisher (in the server's namespace) to the reference subscriber (in
        the client's) over `network`: what its loss does to NetworkMessages. UDP does not pass
        toxiproxy, so a profile's delay and jitter do not apply; its loss and bandwidth do."""
        pubsub_plan = plans.load("pubsub")
        run = PubSubRun(self.session, pubsub_plan, self.profile)
        publisher_id = plans.reference_publisher() or references.declared("publisher")
        publisher = sdks.get(publisher_id)
        subscriber = sdks.get(plans.reference_subscriber(pubsub_plan, publisher_id) or publisher_id)
        timing = {"warmup_s": max(self.chosen.warmup_s, 1.0), "duration_s": 2 * self.chosen.subscription_s}
        with NetworkPath(profiles.load(network)) as path:
            publisher_config, template = run.configs(PUBSUB_SIGNALS, path.server_address)
            publisher_config["publishing_interval_ms"] = PUBSUB_INTERVAL_MS
            config = dict(template, interface=path.client_address, publishing_interval_ms=PUBSUB_INTERVAL_MS, **timing)
            outcome = run.measure(
                publisher, subscriber, publisher_config, [config], hosts=path, publisher_prefix=path.server_prefix()
            )
            if outcome.result is not None:
                outcome.result["path"] = path.summary()
        log(f"PubSub over {network}: {publisher.id} → {subscriber.id}: {_summary(outcome)}")
        return self.session.recorder.record(
            NetworkCell.PUBSUB, subscriber, publisher, network, 0, config, outcome, publisher_config, network
        )


@contextlib.contextmanager
def _background(limit: cgroups.CpuLimit, percent: float, cores: float) -> Iterator[list[int]]:
    """A stress-ng worker in the constrained host's cgroup taking `percent` of its quota (none
    at 0): the other processes of a gateway (Morato et al.'s experiment without isolation).
    Yields its pid (none without it), whose CPU counts in the host's load."""
    if not percent:
        yield []
        return
    worker = subprocess.Popen(
        [
            "stress-ng",
            "--cpu",
            "1",
            "--cpu-load",
            str(round(min(100.0, percent * cores))),
            "--timeout",
            "3600s",
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        # in the cgroup before it runs: the worker it forks is born there
        preexec_fn=launcher.preexec(then=lambda: limit.add(os.getpid())),
    )
    cleanup.adopt(worker)
    try:
        time.sleep(0.2)  # its worker starts
        yield [worker.pid]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)


def _summary(outcome: Outcome) -> str:
    if outcome.status != "pass" or outcome.result is None:
        return f"{outcome.status}: {search.first_line(outcome.reason)}"
    series = analysis.rtds(outcome.result)
    if series:
        stats = analysis.rtd_stats(series, None)
        assert stats
        return f"{stats.count} RTDs, mean {stats.mean_ms:.2f} ms, min {stats.min_ms:.2f}, max {stats.max_ms:.2f}"
    return f"{outcome.result['operations']['succeeded']} operations"


# --- the estimate (estimate.py) ----------------------------------------------------------


def expected_rtd_s(network: str) -> float:
    """A round trip over `network` before it is calibrated: the profile's delay both ways, and
    a server's share."""
    profile = profiles.load(network)
    return 2 * profile.delay_ms / 1000 + SDK_TIME_GUESS_S


def test_seconds(plan: plans.Plan, profile: str, keyword: str, args: tuple[str, ...], startup) -> float:
    """The typical seconds of one network test (its cells as network/run.py runs them)."""
    setup = network_plan.of(plan)
    assert setup is not None
    setup, chosen = setup, setup.profiles[profile]
    servers = args[-1].split(",") if args else []

    def cell(network: str, scenario: Scenario, requests: int) -> float:
        think_s = chosen.think_ms / 1000 if scenario.think else 0.0
        return chosen.warmup_s + requests * (expected_rtd_s(network) + think_s) * DURATION_MARGIN + 1.0

    def server(sdk: str) -> float:
        return startup(sdk) + chosen.server_warmup_s

    reference = plans.reference_client() or references.declared("client")
    if keyword == "RTD Over Network Should Be Measured":
        network = args[0]
        calibration = CALIBRATION_EXCHANGES.get(profile, 200) * expected_rtd_s(network) + 1.0
        fast = [s for s in setup.scenarios if not s.think]
        slow = [s for s in setup.scenarios if s.think]
        if expected_rtd_s(network) * 1000 > setup.network_bound_ms:
            return (
                calibration
                + max(server(s) for s in servers)
                + max(cell(network, s, chosen.requests) + startup(reference) for s in setup.scenarios)
            )
        sequential = sum(
            server(s) + sum(cell(network, c, chosen.requests) + startup(reference) for c in fast) for s in servers
        )
        thinking = max(server(s) for s in servers) + max((cell(network, c, chosen.requests) for c in slow), default=0.0)
        return calibration + sequential + (thinking if slow else 0.0)
    if keyword == "RTD On A Constrained Host Should Be Measured":
        scenario = setup.scenario(setup.constrained_scenario)
        # a quarter of a core makes the server's share of each RTD four times as long, or more
        slowdown = 1 / max(float(args[0]), 0.05)
        return sum(
            (server(s) + cell(setup.constrained_network, scenario, chosen.requests)) * min(slowdown, 4) for s in servers
        )
    if keyword == "Network Interop Should Pass":
        scenario = setup.scenario(setup.interop_scenario)
        return (
            server(setup.reference_server)
            + startup(args[0])
            + cell(setup.interop_network, scenario, chosen.interop_requests)
        )
    if keyword == "PubSub Over Network Should Be Measured":
        return (
            2 * startup(plans.reference_publisher() or references.declared("publisher"))
            + max(chosen.warmup_s, 1.0)
            + 2 * chosen.subscription_s
            + 2.0
        )
    if keyword == "Subscriptions Over Network Should Be Measured":
        one = startup(reference) + max(chosen.warmup_s, 1.0) + chosen.subscription_s + 1.0
        if expected_rtd_s(args[0]) * 1000 > setup.network_bound_ms:
            return max(server(s) for s in servers) + one
        return sum(server(s) + one for s in servers)
    return 0.0
