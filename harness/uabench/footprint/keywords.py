"""The footprint suite's keywords (suites/footprint.robot, footprint/runner.py)."""

from __future__ import annotations

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import plan as plans
from uabench import sdks, targets
from uabench.engine.cells import Outcome
from uabench.engine.keywords import RunContext, load_client
from uabench.footprint import memory as footprint_memory
from uabench.footprint import plan as footprint_plan
from uabench.footprint import runner as footprint_runner
from uabench.footprint import suite as footprint_suite


class FootprintKeywords:
    """A server's RSS per model step, its start-up, its images, and a client's RSS."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    def _footprint(self) -> tuple[footprint_plan.FootprintSetup, footprint_plan.FootprintProfile]:
        setup = footprint_suite.of(self.run.plan)
        assert setup, "the footprint keywords need a footprint plan"
        return setup, setup.chosen(self.run.profile)

    @keyword
    def server_footprint_should_be_measured(self, server_id: str, model_name: str) -> None:
        """The RSS `server_id` needs per step of the footprint model `model_name` (held − idle of
        one server process per point, the reference client holding the step), and the slope of
        it over the steps with its interval. Fails when a point fails."""
        setup, chosen = self._footprint()
        server, model = sdks.get(server_id), setup.model(model_name)
        client = load_client(sdks.get(plans.reference_client() or server.base), server, model.workload["workload"])
        points, failures = footprint_runner.measure_model(
            self.run.session(), setup, chosen, self.run.profile, (server, client), model, logger.info
        )
        _footprint_verdict(failures, f"{model.name} of {server_id}")
        fitted = footprint_memory.fit([float(x) for x, _ in points], [float(y) for _, y in points])
        if fitted:
            logger.info(f"{server_id}: {fitted.slope / 1024:,.2f} KiB per {model.unit} ({fitted.points} points)")

    @keyword
    def server_start_up_should_be_measured(self, server_id: str) -> None:
        """`server_id`'s time from process start to ready, its idle RSS and a new session's first
        requests, at each signal count of the profile, each point a server process of its own."""
        setup, chosen = self._footprint()
        server = sdks.get(server_id)
        client = load_client(sdks.get(plans.reference_client() or server.base), server, "read")
        failures = footprint_runner.measure_startup(
            self.run.session(), setup, chosen, self.run.profile, (server, client), logger.info
        )
        _footprint_verdict(failures, f"start-up of {server_id}")

    @keyword
    def server_model_import_should_be_measured(self, server_id: str) -> None:
        """`server_id` started with each companion model of the profile's imports (and with none,
        between them): its time to ready and idle memory, and the model probe's verdict on what
        it imported. Fails on a failed import its sdk.toml does not declare."""
        setup, chosen = self._footprint()
        failures = footprint_runner.measure_import(
            self.run.session(), setup, chosen, self.run.profile, sdks.get(server_id), logger.info
        )
        _footprint_verdict(failures, f"model import of {server_id}")

    @keyword
    def server_image_should_be_measured(self, server_id: str) -> None:
        """The size of each image of `server_id` built here (uabench images), per architecture;
        skipped when none is built."""
        server = sdks.get(server_id)
        sizes, missing = footprint_runner.image_sizes(server)
        if missing:
            raise SkipExecution(f"not measured: {missing}")
        outcome = Outcome("pass", result={"images": sizes})
        self.run.session().recorder.record(footprint_memory.IMAGE_KIND, server, server, "image", 0, {}, outcome)
        logger.info(", ".join(f"{arch} {size / 1e6:.0f} MB" for arch, size in sizes.items()))

    @keyword
    def client_footprint_should_be_measured(self, client_id: str) -> None:
        """The RSS of `client_id`'s client holding the profile's numbers of sessions against the
        reference server (or its own SDK's server, where the reference server refuses it). With the
        servers on a board or the VM, the client runs there too, beside its server: its memory is
        that machine's, as its servers' are."""
        setup, chosen = self._footprint()
        client = sdks.get(client_id)
        reference = sdks.get(plans.reference_client() or client.base)
        server = reference if reference.refuses(client.id, "read") is None else sdks.get(client.base)
        placement = targets.current()
        with targets.placed(placement.clients_beside_servers() if placement.cross_host else placement):
            failures = footprint_runner.measure_client(
                self.run.session(), setup, chosen, self.run.profile, client, server, logger.info
            )
        _footprint_verdict(failures, f"the {client_id} client")


def _footprint_verdict(failures: list[str], what: str) -> None:
    if failures and failures[0].startswith("not supported: "):
        raise SkipExecution(failures[0])
    if failures:
        raise AssertionError(f"{what}: {len(failures)} point(s) failed: " + "; ".join(failures))
