"""Robot Framework keyword library for the uabench suites.

Imported by a suite with the suite's name (suites/benchmark.resource); the suite's test
cases, one per cell of its plan, come from the pre-run modifier uabench.robot.modifier.

The library is assembled (robotlibcore's DynamicCore) from keyword components that share one
RunContext: the run's own keywords below, the client/server plans' (robot/comparisons.py,
searches.py, refusals.py, pubsub.py) and each suite package's, which its suite.py registers
(SuiteKind.keywords), so a new suite brings its keywords in its own package. Each keyword is
thin: it calls a plain function of its suite or the engine and concludes (engine/keywords.py)."""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Any

from robot.api import logger
from robot.api.deco import keyword
from robot.libraries.BuiltIn import BuiltIn
from robotlibcore import DynamicCore

from uabench import plan as plans
from uabench.engine import adapters
from uabench.engine.keywords import RunContext
from uabench.engine.session import Session
from uabench.engine.warmup import SteadyRule
from uabench.results.store import open_store
from uabench.robot.comparisons import ComparisonKeywords
from uabench.robot.pubsub import PubSubKeywords
from uabench.robot.refusals import RefusalKeywords
from uabench.robot.searches import SearchKeywords

CLIENT_SERVER = (ComparisonKeywords, SearchKeywords, RefusalKeywords, PubSubKeywords)


class UabenchLibrary(DynamicCore):
    ROBOT_LIBRARY_SCOPE = "SUITE"

    def __init__(
        self, suite: str, plan: str = "", profile: str = "quick", store: str = "", sdks: str = "", run_dir: str = ""
    ) -> None:
        loaded = plans.load(plan or suite)
        if loaded.suite != suite:
            raise plans.PlanError(f"{loaded.path} is a plan for suite '{loaded.suite}', not '{suite}'")
        loaded.require_profile(profile)  # an unknown profile fails at import, not mid-run
        self.store_location = store
        self.run_dir = Path(run_dir) if run_dir else None
        self.run = RunContext(suite, loaded, profile, plans.selected(sdks), self._open)
        super().__init__([RunKeywords(self.run), *(component(self.run) for component in components())])

    @property
    def session(self) -> Session | None:
        return self.run.opened

    def _open(self) -> Session:
        """Opens the results store and the run's Session. Without a STORE (a plain
        `robot suites/x.robot`), the store and the run's files go to Robot's output directory,
        beside its log and report."""
        run = self.run
        output_dir = Path(BuiltIn().get_variable_value("${OUTPUT_DIR}", "."))
        store = open_store(self.store_location or output_dir / "uabench.sqlite")
        run_dir = self.run_dir or (
            None if self.store_location else output_dir / "runs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{run.suite}"
        )
        extra: dict[str, Any] = {"workdir": run_dir} if run_dir else {}
        steady = SteadyRule(
            bound_s=run.plan.server_warmup_s(run.profile),
            chunk_s=run.plan.steady_chunk_s(run.profile),
            sdk_floor=run.plan.sdk_warmup_floor(run.profile),
        )
        session = Session(store, run.suite, run.profile, plan=run.plan, steady=steady, **extra)
        logger.info(f"schedule seed {session.seed} (UABENCH_SEED={session.seed} replays its block orders)")
        logger.info(f"run {session.run_id}, store {store.path}, work dir {session.workdir}")
        return session


def components() -> list[type]:
    """The client/server plans' components and every suite package's (SuiteKind.keywords),
    each once."""
    named = sorted({kind.keywords for kind in plans.suite_kinds().values() if kind.keywords})
    found = []
    for name in named:
        module, _, attribute = name.partition(":")
        found.append(getattr(importlib.import_module(module), attribute))
    return [*CLIENT_SERVER, *found]


class RunKeywords:
    """The run's own keywords: its start and finish, and that the adapters answer."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    @keyword
    def start_benchmark_run(self) -> None:
        """Opens the results store and records the run's provenance."""
        self.run.session()

    @keyword
    def finish_benchmark_run(self) -> None:
        """Stops every server the run started and closes the run in the store."""
        for cleanup in self.run.cleanups:
            cleanup()
        session = self.run.opened
        if session:
            for sdk_id, (status, seconds, killed) in session.pool.stop_all().items():
                logger.info(
                    f"{sdk_id} server stopped: status {status} after {seconds:.2f} s" + (" (killed)" if killed else "")
                )
            session.close()

    @keyword
    def adapters_should_be_installed(self) -> None:
        """Every SDK of the plan answers `capabilities` as its sdk.toml declares, and there is
        at least one server and one client to pair."""
        self._installed(("server", "client"))

    @keyword
    def pubsub_adapters_should_be_installed(self) -> None:
        """Every SDK answers `capabilities` with the PubSub roles its sdk.toml declares, and
        names the reason where it has none; there is a publisher and a subscriber."""
        self._installed(("publisher", "subscriber"))

    def _installed(self, roles: tuple[str, ...]) -> None:
        run = self.run
        found = adapters.problems(run.only, roles, logger.info, versions=run.plan.measures_versions(run.profile))
        if found:
            raise AssertionError("\n".join(found))
