"""The profile suite's keyword (suites/profile.robot, profile/profilers.py)."""

from __future__ import annotations

import contextlib
from collections import Counter

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import plan as plans
from uabench import sdks
from uabench.engine.cells import CellSpec, Outcome
from uabench.engine.keywords import RunContext, load_client
from uabench.engine.servers import Server
from uabench.plan_table import Workload
from uabench.profile import figures as profile_figures
from uabench.profile import profilers
from uabench.profile import suite as profile_suite
from uabench.profile.cells import ProfileCell
from uabench.profile.plan import ProfileProfile, ProfileSetup


class ProfileKeywords:
    """Server Should Be Profiled; the profiled servers' perf maps go when the suite ends."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self._profiled_pids: set[int] = set()  # servers profiled: their perf maps go at the end
        run.cleanups.append(self._remove_perf_maps)

    @keyword
    def server_should_be_profiled(self, server_id: str, workload_name: str) -> None:
        """A sampling profile of `server_id` under the profile workload `workload_name`
        (profile/profilers.py), on a server started with its runtime's profiling settings and
        warm: the profile's repetitions of a phase without the profiler and one with it, the
        overhead their throughputs' ratio; the samples of every profiled phase are folded into
        one profile, recorded with its functions by self time and its attribution."""
        session = self.run.session()
        setup = profile_suite.of(self.run.plan)
        assert setup, "Server Should Be Profiled needs a profile plan"
        chosen = setup.profiles[self.run.profile]
        server = sdks.get(server_id)
        missing = profilers.missing(server.language)
        if missing:
            raise AssertionError(f"{server_id} cannot be profiled: {missing}")
        one = setup.workload(workload_name)
        client = load_client(sdks.get(plans.reference_client() or server.base), server, one.workload["workload"])
        workload = {**one.workload, "duration_s": chosen.duration_s}
        with profilers.environment(server.language):
            running = session.pool.get(server, warm=False, **one.server)
        stacks: Counter[str] = Counter()
        ratios: list[float | None] = []
        # the server's perf map (a JIT runtime's) goes when the suite ends: the next workload's
        # profile of the same server needs the names of the code compiled before it
        self._profiled_pids.add(running.measured.process.pid)
        self._profiled(running, server, client, one, workload, setup, chosen, stacks, ratios)
        result = profile_figures.summary(stacks, setup.frequency_hz, setup.top, server.language, ratios)
        session.recorder.record(
            ProfileCell.PROFILE, client, server, one.name, 0, workload, Outcome("pass", result=result), running.config
        )
        shares = ", ".join(f"{name} {share:.0%}" for name, share in result["attribution"].items())
        logger.info(f"{server_id}, {one.name}: {result['samples']} samples; {shares}")

    def _profiled(
        self,
        running: Server,
        server: sdks.Sdk,
        client: sdks.Sdk,
        one: Workload,
        workload: dict,
        setup: ProfileSetup,
        chosen: ProfileProfile,
        stacks: Counter[str],
        ratios: list[float | None],
    ) -> None:
        """The profile's repetitions: a phase without the profiler, then one with it."""
        session = self.run.session()
        server_id = server.id
        for repetition in range(chosen.repetitions):
            cells = {}
            for arm in ("off", "on"):
                label = f"profile: {one.name}"
                directory = session.workdir / f"profile-{server_id}-{workload_slug(one.name)}-{repetition}"
                with contextlib.ExitStack() as stack:
                    if arm == "on":
                        attached = stack.enter_context(
                            profilers.attached(
                                running.measured.process.pid, server.language, setup.frequency_hz, directory
                            )
                        )
                    spec = CellSpec(
                        ProfileCell.TIMING, client, server, one.name, repetition, workload,
                        parameter=arm, server_overrides=one.server,
                    )  # fmt: skip
                    cells[arm] = session.cell(spec, steady_label=label)
                if cells[arm].status == "not_supported":
                    raise SkipExecution(f"not supported: {cells[arm].reason}")
                if cells[arm].status != "pass":
                    raise AssertionError(f"{one.name} on {server_id}, profiler {arm}: {cells[arm].reason}")
            stacks += attached.stacks
            off, on = (cells[arm].measured["throughput"]["values_per_s"] for arm in ("off", "on"))
            ratios.append(on / off if off else None)

    def _remove_perf_maps(self) -> None:
        for pid in self._profiled_pids:
            profilers.remove_perf_maps(pid)


def workload_slug(name: str) -> str:
    """A workload's name as a directory name: "read, SignAndEncrypt" → "read-signandencrypt"."""
    return plans.workload_tag(name).removeprefix("workload:")
