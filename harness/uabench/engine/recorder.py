"""What a run measured, recorded the moment it ends: each cell into the run's spool (on disk
first) and then the results store; a store that refuses a write leaves the run's cells in the
spool, said once, and `uabench import` loads them."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from uabench import plan as plans
from uabench import targets
from uabench.engine.cells import CellSpec, Outcome
from uabench.proc import cleanup
from uabench.results import provenance as provenance_of
from uabench.results import spool
from uabench.results.store import REFUSED, Store, StoreError
from uabench.sdks import Sdk


@dataclass
class RunRecorder:
    """One run's record: its row in `store` (begun by `begin`), its spool in `workdir`, and its
    cells; `provenance` says what the run's record holds (at its start and again at its end)."""

    store: Store
    suite: str
    profile: str
    workdir: Path
    provenance: Callable[[], dict]
    spool_key: str = field(default_factory=spool.new_key)
    run_id: int = 0
    _spool_begun: bool = field(default=False, init=False, repr=False)
    _spool_failed: bool = field(default=False, init=False, repr=False)
    _store_refused: str | None = field(default=None, init=False, repr=False)  # the store's first error
    _lost: bool = field(default=False, init=False, repr=False)  # a cell neither spool nor store took

    def begin(self) -> int:
        """The run's row in the store, and its record in the spool: when it began, also if it
        measures nothing."""
        self.run_id = self.store.begin_run(self.suite, self.profile, self.provenance())
        self._spool(lambda _file: None)
        return self.run_id

    def record_cell(self, spec: CellSpec, config: dict, outcome: Outcome, server_config: dict | None = None) -> Outcome:
        """Stores the outcome of the cell `spec` with the client `config` it ran (record)."""
        return self.record(
            spec.kind,
            spec.client,
            spec.server,
            spec.variant,
            spec.repetition,
            config,
            outcome,
            server_config,
            spec.parameter,
        )

    def record(
        self,
        kind: StrEnum,
        client: Sdk,
        server: Sdk,
        variant: str,
        repetition: int,
        config: dict,
        outcome: Outcome,
        server_config: dict | None = None,
        parameter: object = None,
    ) -> Outcome:
        """Stores one cell: `client` is the measured side (clients, subscribers), `server`
        the peer (server, publisher). A cell that did not pass once a stop signal arrived is
        the one the stop cut (its processes were killed by the signal, e.g. a server still
        starting): it is not stored, so the run keeps only what was measured before."""
        if cleanup.received() is not None and outcome.status != "pass":
            return outcome
        outcome.cell_id = self.add_cell(
            suite=self.suite,
            kind=kind,
            client=client.id,
            server=server.id,
            variant=variant,
            parameter=None if parameter is None else str(parameter),
            repetition=repetition,
            status=outcome.status,
            reason=outcome.reason,
            config_hash=provenance_of.config_hash(config),
            client_config=config,
            server_config=server_config,
            result=outcome.result,
            client_resources=outcome.client_resources,
            server_resources=outcome.server_resources,
            client_perf=outcome.client_perf,
            server_perf=outcome.server_perf,
            client_bound=outcome.client_bound,
        )
        return outcome

    @property
    def spool_file(self) -> spool.Spool:
        return spool.Spool(self.workdir / spool.NAME)

    def _spool(self, write: Callable[[spool.Spool], None]) -> None:
        """One record into the run's spool, its run record first. A spool that cannot be
        written is said once and the run goes on: the store still gets every cell."""
        try:
            if not self._spool_begun:
                self.spool_file.begin(self.spool_key, self.suite, self.profile, self.provenance())
                self._spool_begun = True
            write(self.spool_file)
        except spool.SpoolError as error:
            if not self._spool_failed:
                print(f"uabench: warning: {error}; cells go to the store only", file=sys.stderr)
            self._spool_failed = True

    def _refuse(self, error: StoreError) -> None:
        """The store refused a write of this run: said once, and from here on the run's cells go to
        its spool only (each store write could wait out a lock again); its end goes to both."""
        if self._store_refused is None:
            print(
                f"uabench: warning: {error}; the run's cells and end go to its spool {self.spool_file.path} "
                f"only (`uabench import {self.workdir}` loads it)",
                file=sys.stderr,
            )
            self._store_refused = str(error)

    @property
    def store_error(self) -> StoreError | None:
        """The one line for a store that refused this run's cells (or, after close, its end),
        naming the spool and the import; None when the store took everything."""
        if self._store_refused is None or self._spool_failed:
            return None
        return spool.refusal_of(self.workdir, self._store_refused)

    def add_cell(self, **cell) -> int | None:
        """Stores one cell of this run, first in the spool (on disk when it returns), then in
        the store; a stop signal waits until it is stored. None when the store did not take it
        (kept in the spool, and `uabench run` ends with the store's error and exit 2); a
        StoreError only when the spool could not be written either."""
        if not isinstance(cell["kind"], StrEnum) or cell["kind"] not in plans.cell_kinds():
            # a free string would store figures under a kind no section reads: a defect, not input
            raise ValueError(f"a cell's kind must be one of plan.cell_kinds(), not {cell['kind']!r}")
        cell["created_ns"] = time.time_ns()  # part of its key: set once, the same in spool and store
        placement = targets.current()
        # a cell of an emulated target is never ranked with native ones (report, compare)
        cell["emulated"] = bool(cell.get("emulated")) or placement.emulated
        if isinstance(cell.get("result"), dict):
            cell["result"]["placement"] = {role: targets.label(role) for role in ("server", "client")}
            clock = getattr(placement.server, "clock", None)
            if placement.cross_host and clock:  # a delay across hosts includes the clocks' offset
                cell["result"]["placement"]["clock_offset_ns"] = clock["offset_ns"]
                cell["result"]["placement"]["clock_uncertainty_ns"] = clock["uncertainty_ns"]
        with cleanup.signals_deferred():
            self._spool(lambda file: file.cell(self.spool_key, cell))
            if self._store_refused is not None and not self._spool_failed:
                return None
            try:
                return self.store.add_cell(self.run_id, **cell)
            except StoreError as error:
                if self._spool_failed:
                    self._lost = True  # the cell is nowhere else: the run failed, and so does its test
                    raise
                self._refuse(error)
                return None

    def finish(self, status: str = "finished") -> None:
        """Stores the run's end: `interrupted` when the harness received a stop signal (the
        cells measured before it are kept), `failed` when a measured cell was lost, else
        `status`. A store that refused the run's cells (or refuses its end) does not make this
        fail, which would be a Robot teardown failure: the spool's end keeps the status and the
        store's error, the store's copy is marked `failed` where it can be, and spool.refusal
        gives `uabench run` its line."""
        if cleanup.received() is not None:
            status = "interrupted"
        elif self._lost:
            status = "failed"  # measured cells are missing from it (neither spool nor store took them)
        ended = self.provenance()
        refused_before = self._store_refused is not None
        if not refused_before:
            try:
                self.store.update_provenance(self.run_id, ended)
                self.store.finish_run(self.run_id, status)
            except StoreError as error:
                if self._spool_failed:
                    raise  # nothing else has the run's end
                self._refuse(error)
        elif not self._spool_failed:
            try:  # the store's copy lacks cells: not a finished run there (an import ends it)
                self.store.update_provenance(self.run_id, {**ended, REFUSED: self._store_refused})
                self.store.finish_run(self.run_id, "failed")
            except StoreError:
                pass  # it stays running; the next invocation marks it abandoned, an import ends it
        self._spool(lambda file: file.end(self.spool_key, status, ended, self._store_refused))
        if self._store_refused is not None and not self._spool_failed:
            spool.refused(self.workdir, self._store_refused)
