"""The network suite's keywords (suites/network.robot, network/run.py)."""

from __future__ import annotations

from collections.abc import Callable

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench.engine import search
from uabench.engine.cells import Outcome
from uabench.engine.keywords import RunContext, included
from uabench.netpath import path as network_path
from uabench.network import run as network_engine
from uabench.proc import cgroups


class NetworkKeywords:
    """RTD, subscriptions and PubSub over emulated networks and constrained hosts."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self._network: network_engine.NetworkRun | None = None

    @keyword
    def rtd_over_network_should_be_measured(self, network: str, servers: str) -> None:
        """Every server's RTD over `network` (a profile of suites/networks), every scenario of the
        plan, at least the profile's requests per cell; every cell passes."""
        self._network_verdict(lambda run: run.rtd(network, included(servers), logger.info))

    @keyword
    def rtd_on_a_constrained_host_should_be_measured(self, cores: str, background: str, servers: str) -> None:
        """Every server on a host of `cores` cores (a cgroup CPU quota), beside a background load
        of `background` percent of it (0: isolated), its CPU sampled every 10 ms beside every RTD
        for the RTD–CPU study."""
        missing = cgroups.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        self._network_verdict(
            lambda run: run.constrained(float(cores), float(background), included(servers), logger.info)
        )

    @keyword
    def network_interop_should_pass(self, client: str) -> None:
        """`client` reads the reference server over the plan's interop network, every value verified."""
        self._network_verdict(lambda run: [run.interop(client, logger.info)])

    @keyword
    def subscriptions_over_network_should_be_measured(self, network: str, servers: str) -> None:
        """The reference client subscribes to every server over `network`: delay and gaps."""
        self._network_verdict(lambda run: run.subscriptions(network, included(servers), logger.info))

    @keyword
    def pubsub_over_network_should_be_measured(self, network: str) -> None:
        """The reference publisher → subscriber over `network`: loss and delay of NetworkMessages."""
        self._network_verdict(lambda run: [run.pubsub(network, logger.info)])

    def _network_verdict(self, measure: Callable[[network_engine.NetworkRun], list[Outcome]]) -> None:
        missing = network_path.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        if self._network is None:
            self._network = network_engine.NetworkRun(self.run.session(), self.run.plan, self.run.profile)
        try:
            outcomes = measure(self._network)
        except (network_path.PathError, cgroups.CgroupError) as error:
            raise AssertionError(f"network path: {error}") from None
        failed = [o for o in outcomes if o.status not in ("pass", "not_supported")]
        if failed:
            raise AssertionError(
                f"{len(failed)} of {len(outcomes)} cells failed: "
                + "; ".join(search.first_line(o.reason or o.status) for o in failed[:3])
            )
