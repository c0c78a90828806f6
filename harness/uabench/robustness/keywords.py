"""The robustness and soak suites' keywords (suites/robustness.robot, suites/soak.robot)."""

from __future__ import annotations

from pathlib import Path

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import plan as plans
from uabench import sdks
from uabench.engine import search
from uabench.engine.keywords import NEGATIVE_WORKLOAD, RunContext, conclude, load_client
from uabench.engine.servers import free_port
from uabench.robustness import runner as robustness_runner
from uabench.robustness import suite as robustness_suite
from uabench.robustness import survival, trials
from uabench.robustness.recorder import Recorder


class RobustnessKeywords:
    """The fuzzer's corpus, a hostile batch's survival, and the soak."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    @keyword
    def corpus_should_be_recorded(self) -> None:
        """The fuzzer's corpus: the reference client's messages (a read, a write and a
        subscription) recorded through a proxy to its own SDK's server, kept in the run's
        directory. Fails when a message the fuzzer needs is missing."""
        session = self.run.session()
        reference = plans.reference_client()
        if reference is None:
            raise SkipExecution("not supported: no reference client installed")
        client = sdks.get(reference)
        running = session.pool.get(sdks.get(reference), warm=False, signals=10, writes=10)
        host, port = running.endpoint.removeprefix("opc.tcp://").split("/")[0].rsplit(":", 1)
        with Recorder(free_port(), host, int(port)) as recorder:
            proxy = f"opc.tcp://127.0.0.1:{recorder.port}"
            for workload in robustness_runner.CORPUS_WORKLOADS:
                config = dict(session.client_config(running, dict(workload)), endpoint=proxy)
                outcome = session.run_client(client, running, config)
                if outcome.status != "pass":
                    raise AssertionError(
                        f"the reference client's {workload['workload']} through the recorder: "
                        f"{search.first_line(outcome.reason)}"
                    )
        problems = robustness_runner.corpus_problems(recorder.messages)
        recorder.save(self._corpus())
        logger.info(f"{len(recorder.messages)} messages recorded to {self._corpus()}")
        if problems:
            raise AssertionError("the corpus is incomplete: " + "; ".join(problems))

    def _corpus(self) -> Path:
        return self.run.session().workdir / "corpus.json"

    @keyword
    def server_should_survive(self, server_id: str, batch: str) -> None:
        """One hostile batch against `server_id`: its resources and a verified read before, right
        after and after the recovery wait, classified (robustness/survival.py) and stored. Fails
        when the server crashed or hung; a degradation is a warning."""
        session = self.run.session()
        setup = robustness_suite.of(self.run.plan)
        assert setup, "Server Should Survive needs a robustness plan"
        chosen = setup.profiles[self.run.profile]
        if not self._corpus().exists():
            raise AssertionError("no corpus: the test recording it did not pass")
        reference = plans.reference_client()
        assert reference is not None, "the corpus test needs the reference client"
        server = sdks.get(server_id)
        client = load_client(sdks.get(reference), server, "read")
        try:
            found, verdict = trials.survive(
                session, client, server, batch, setup.seed, chosen, self._corpus(), dict(NEGATIVE_WORKLOAD)
            )
        except trials.NoBaseline as error:
            raise AssertionError(str(error)) from None
        conclude(survival.survival_finding(server, batch, found, verdict))

    @keyword
    def server_should_not_leak(self, server_id: str) -> None:
        """The soak: a steady subscription from the reference client and session churn beside it
        for the profile's duration, the server's RSS, threads and descriptors sampled; their
        growth per hour with an interval (robustness/growth.py). Fails when the subscription
        load fails; a leak (an interval above zero) is a finding, stored and warned."""
        session = self.run.session()
        setup = robustness_suite.soak_of(self.run.plan)
        assert setup, "Server Should Not Leak needs a soak plan"
        chosen = setup.profiles[self.run.profile]
        reference = plans.reference_client()
        if reference is None:
            raise SkipExecution("not supported: no reference client installed")
        server = sdks.get(server_id)
        client = load_client(sdks.get(reference), server, "subscribe")
        soaked = trials.soak(session, client, server, setup, chosen, self._corpus())
        conclude(trials.soak_finding(server_id, soaked))
