"""The conformance suite's keyword (suites/conformance.robot): the probe's checks of a group against a server."""

from __future__ import annotations

from robot.api.deco import keyword

from uabench import sdks
from uabench.conformance import runner as conformance_runner
from uabench.conformance import suite as conformance_suite
from uabench.conformance import verdicts
from uabench.conformance.cells import ConformanceCell
from uabench.engine.keywords import RunContext, conclude


class ConformanceKeywords:
    """Conformance Should Be Measured."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    @keyword
    def conformance_should_be_measured(self, server_id: str, group: str) -> None:
        """The conformance probe's checks of `group` against `server_id`, each recorded as a
        cell (pass; fail: a deviation or the probe's own error; not_supported; not_run:
        inconclusive). Fails on a deviation the SDK's sdk.toml does not declare, or when the
        server died; a declared one is a warning."""
        session = self.run.session()
        setup = conformance_suite.of(self.run.plan)
        assert setup, "Conformance Should Be Measured needs a conformance plan"
        chosen = setup.profiles[self.run.profile]
        server = sdks.get(server_id)
        probe = sdks.get("asyncua")  # the probe is asyncua's low-level client (tools/uabench_tools/probe.py)
        running = session.pool.get(server, warm=False, signals=setup.signals, writes=setup.writes)
        settings = {
            "signals": setup.signals,
            "writes": setup.writes,
            "endpoints": running.config["security"]["endpoints"],
            "session_wait_s": chosen.session_wait_s,
            "timeout_s": chosen.timeout_s,
            "gates": chosen.gates,
        }
        config = {"endpoint": running.endpoint, "probe": conformance_runner.probe_version(), **settings}
        found = conformance_runner.run(running.endpoint, group, settings)
        alive = running.alive
        judged = verdicts.judge(found, group, server, alive, "" if alive else running.death_reason())
        for one, outcome in judged.cells:
            session.recorder.record(
                ConformanceCell.CHECK, probe, server, one.check.id, 0, config, outcome, running.config
            )
        conclude(judged.finding)
