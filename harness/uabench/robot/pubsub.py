"""The PubSub plan's keywords (suites/pubsub.robot, engine/pubsub.py)."""

from __future__ import annotations

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench.engine import pubsub
from uabench.engine.keywords import passed
from uabench.proc import netns
from uabench.robot.cells import Cells, sweep_verdict


class PubSubKeywords(Cells):
    """PubSub sweeps and interop."""

    @keyword
    def pubsub_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """N signals at the publishing interval, N rising until the publisher misses its
        interval by more than 10 %: publisher CPU and subscriber figures at every point."""
        sweep_verdict(pubsub.sweep(self._pubsub_run(), publisher, subscriber, logger.info))

    @keyword
    def pubsub_subscriber_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """1, 2, 4, 8 subscribers, each in its own network namespace on a bridge, created
        and removed by the harness: the publisher's CPU as subscribers are added."""
        missing = netns.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        try:
            sweep_verdict(pubsub.subscriber_sweep(self._pubsub_run(), publisher, subscriber, logger.info))
        except netns.HostsError as error:
            raise AssertionError(f"network namespaces: {error}") from None

    @keyword
    def pubsub_interop_should_pass(self, publisher: str, subscriber: str) -> None:
        """`publisher` → `subscriber`: every NetworkMessage decodes, every value verifies."""
        passed(pubsub.interop(self._pubsub_run(), publisher, subscriber, logger.info))

    def _pubsub_run(self) -> pubsub.PubSubRun:
        return pubsub.PubSubRun(self.run.session(), self.run.plan, self.run.profile)
