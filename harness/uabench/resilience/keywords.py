"""The resilience suite's keyword (suites/resilience.robot, resilience/runner.py)."""

from __future__ import annotations

from robot.api.deco import keyword

from uabench import sdks
from uabench.engine.keywords import RunContext, conclude
from uabench.resilience import runner as resilience_runner
from uabench.resilience import suite as resilience_suite


class ResilienceKeywords:
    """Client Should Recover."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    @keyword
    def client_should_recover(self, client_id: str, server_id: str, incident: str, workload: str) -> None:
        """One incident (the server restarted on its port, or the path cut) during `workload` of
        `client_id` against `server_id`, as often as the profile repeats it, each stored
        (resilience/runner.py). Fails when the load did not resume (unless the client's SDK
        declares it has no automatic reconnection, or the server's declares the behaviour it fails
        on: then skipped with the reason) or went wrong."""
        session = self.run.session()
        setup = resilience_suite.of(self.run.plan)
        assert setup, "Client Should Recover needs a resilience plan"
        chosen = setup.profiles[self.run.profile]
        found = resilience_runner.measure(
            session, sdks.get(client_id), sdks.get(server_id), incident, workload, chosen, setup.signals
        )
        conclude(resilience_runner.recovery_finding(client_id, server_id, incident, workload, found))
