"""The counts of one server and workload (instructions/counts.py): a server process of its own
under callgrind, with the workload's server config; after its start-up is dumped and set aside,
the client runs the workload's two loads in turn, the profile's pairs of them, each load followed
by a dump of what the server executed meanwhile. The client runs natively: only the server is
counted. Then the server is stopped (SIGTERM)."""

from __future__ import annotations

import functools
import itertools
import shutil
import subprocess
import time
from enum import StrEnum
from pathlib import Path

from uabench import pki
from uabench.engine.cells import Outcome
from uabench.engine.session import Session
from uabench.instructions import counts
from uabench.instructions.cells import InstructionsCell
from uabench.instructions.plan import InstructionsProfile, Workload
from uabench.proc import launcher
from uabench.results import instruction_counts
from uabench.results.instruction_counts import Count, CountError, Difference
from uabench.sdks import Sdk
from uabench.targets.process import AdapterProcess

# Under valgrind a server starts and stops 20 to 50 times slower than natively (open62541's
# 1,000 signals: 2 s to ready): the contract's 30 s to ready and 5 s to stop would cut it short.
READY_TIMEOUT_S = 180.0
EXIT_TIMEOUT_S = 60.0
DUMP_TIMEOUT_S = 60.0
# a load's span: its phase and this margin for the client's start, session and drain (about 1 s
# against a server under valgrind; a load that takes longer is no count)
SPAN_MARGIN_S = 4.0  # callgrind_control answers in about 0.4 s; a big dump takes longer
# each session of a session workload: a client process whose phase is this long (at one request
# a second, its one request), all of a load's sessions within the load's span
SESSION_S = 0.3

# What a runtime needs to run under callgrind. Go preempts goroutines with signals (SIGURG), and
# callgrind 3.19 aborts on them (threads.c:247, vgCallgrind_post_signal: 'sigNum ==
# vgCallgrind_current_state.sig' failed): the counted gopcua server runs without asynchronous
# preemption (goroutines still yield at calls and allocations).
ENVIRONMENT = {"Go": {"GODEBUG": "asyncpreemptoff=1"}}

_servers = itertools.count()

# The same certificates and keys in every run (pki/README.md): a run's new ones move open62541's
# heap layout, and with it the count of a read by up to 0.5 %.
KEPT_PKI = Path(__file__).with_name("pki")


@functools.cache
def valgrind_version() -> str:
    found = subprocess.run([counts.VALGRIND, "--version"], capture_output=True, text=True, check=False)
    return found.stdout.strip() or "?"


def valgrind_missing() -> str | None:
    """Why no count can be taken here, or None."""
    absent = [tool for tool in (counts.VALGRIND, counts.CONTROL) if shutil.which(tool) is None]
    if absent:
        return f"not installed: {', '.join(absent)} (Debian's valgrind package; ci/apt-packages installs it)"
    return None


class _Counted:
    """A server under callgrind and the number of its dumps so far; without `counted`, the same
    server natively (the one the load generator's counts are taken against)."""

    def __init__(
        self, session: Session, server: Sdk, server_config: dict, counted: bool = True, cache: dict | None = None
    ) -> None:
        config = session.pool.config(server, identities=pki.kept_pki(KEPT_PKI), **server_config)
        self.directory = session.workdir / f"callgrind-{server.id}-{next(_servers)}"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.counted = counted
        self.process = AdapterProcess(
            server,
            "server",
            config,
            self.directory,
            session.server_cpus,
            name=f"{server.id}-server-{'callgrind-' if counted else ''}{config['port']}",
            prefix=counts.prefix(self.directory, cache) if counted else None,
        )
        self.dumps = 0
        self.endpoint = ""

    def start(self) -> None:
        with launcher.environment(ENVIRONMENT.get(self.process.sdk.language, {})):
            self.process.start()
        self.endpoint = self.process.wait_event(("ready",), READY_TIMEOUT_S)["endpoint"]
        if self.counted:
            self.dump()  # the start-up, set aside

    def dump(self) -> dict[str, int]:
        """Dumps the counters (and zeroes them): the events since the last dump (counts.totals)."""
        done = subprocess.run(
            [counts.CONTROL, "--dump", str(self.process.pid)],
            capture_output=True,
            text=True,
            timeout=DUMP_TIMEOUT_S,
            check=False,
        )
        self.dumps += 1
        path = counts.dump_file(self.directory, self.process.pid, self.dumps)
        deadline = time.monotonic() + DUMP_TIMEOUT_S
        while not _written(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _written(path):
            raise CountError(f"callgrind_control --dump wrote no {path.name}: {done.stdout[-300:]}{done.stderr[-300:]}")
        return counts.totals(path)

    def stop(self) -> None:
        self.process.stop(EXIT_TIMEOUT_S)


def _written(path: Path) -> bool:
    """A dump is complete once its totals line is there whole (callgrind writes it last: a line
    still being written was read short, 1 dump in about 50 of async-opcua's)."""
    if not path.exists():
        return False
    text = path.read_text(errors="replace")
    return "\ntotals:" in text and text.endswith("\n")


def differences(
    session: Session, server: Sdk, client: Sdk, one: Workload, chosen: InstructionsProfile, count_client: bool = False
) -> tuple[list[Difference], list[str]]:
    """The profile's pairs of loads of `one` on one `server` process under callgrind, each load
    recorded as an "instructions" cell (the load's index the parameter), each pair's difference,
    and what failed. With `count_client`, then the same pairs of loads of the client itself under
    callgrind against that server (client_loads)."""
    counted = _Counted(session, server, one.server, cache=chosen.cache)
    found: list[Difference] = []

    def run(load: dict, what: str) -> tuple[dict, Count]:
        begun = time.monotonic()
        sessions = load.get("sessions")  # a session workload: that many client processes in turn
        config = _load_config(session, counted.endpoint, one, load, SESSION_S if sessions else chosen.duration_s)
        attempted = values = 0
        for _ in range(sessions or 1):
            done = _operations(session.run_client(client, None, config), what)
            attempted, values = attempted + done[0], values + done[1]
        # every load's dump ends the same wall-clock span after its start: what the server does by
        # the clock (its timers, an update loop: open62541's subscription counts of equal
        # notifications lay 3.5 % apart with spans left to the client's and the dump's timing)
        # is the same in both loads of a pair, give or take one tick
        left = begun + chosen.duration_s + SPAN_MARGIN_S - time.monotonic()
        if left < 0:
            raise CountError(
                f"{what}: the load took {SPAN_MARGIN_S - left:.1f} s past its phase (at most {SPAN_MARGIN_S:g} s)"
            )
        time.sleep(left)
        if sessions:  # what one operation is: a session (its requests are in every session alike)
            return config, Count.of(sessions, sessions, counted.dump())
        return config, Count.of(attempted, values, counted.dump())

    try:
        counted.start()
        # the first load of a process holds the lazy set-up of its first channel and session
        # (open62541: 3.2 M instructions more than the same load after it): run once, set aside
        run(one.loads[0], "the first load, set aside")
        for pair in range(chosen.pairs):
            loads = []
            for index, load in enumerate(one.loads):
                config, found_count = run(load, f"pair {pair + 1}, load {index + 1}")
                _record(session, instruction_counts.KIND, client, server, one, (pair, index), config, found_count)
                loads.append(found_count)
            found.append(instruction_counts.difference(loads[0], loads[1]))
    except (CountError, OSError, subprocess.TimeoutExpired) as error:
        return found, [_failed(session, instruction_counts.KIND, client, server, one, chosen, str(error))]
    finally:
        counted.stop()
    if count_client:
        try:
            client_loads(session, server, client, one, chosen)
        except (CountError, OSError, subprocess.TimeoutExpired, IndexError) as error:
            why = f"the load generator's count: {error}"
            return found, [_failed(session, InstructionsCell.CLIENT, client, server, one, chosen, why)]
    return found, []


def client_loads(session: Session, server: Sdk, client: Sdk, one: Workload, chosen: InstructionsProfile) -> None:
    """The load generator's own count: the profile's pairs of `one`'s two loads, each a client
    process of its own under callgrind against `server` running natively (a server under valgrind
    answers 20 to 50 times slower and keeps the client waiting: open62541's client counted 8,306
    a 1-node read against it with its differences 0.15 % apart, 8,308 within 0.035 % against the
    native server; 28 Nov), each load recorded as an "instructions-client" cell. A client process
    is counted whole (valgrind writes its total at exit): its start-up (open62541's client: 3.96 M
    instructions, ±0.1 %) and session are in both loads of a pair and cancel in their difference."""
    native = _Counted(session, server, one.server, counted=False)
    try:
        native.start()
        for pair in range(chosen.pairs):
            for index, load in enumerate(one.loads):
                config = _load_config(session, native.endpoint, one, load, chosen.duration_s)
                pids: list[int] = []
                with launcher.environment(ENVIRONMENT.get(client.language, {})):
                    prefix = counts.prefix(native.directory, chosen.cache)
                    outcome = session.run_client(client, None, config, prefix=prefix, started=pids.append)
                attempted, values = _operations(outcome, f"the client's pair {pair + 1}, load {index + 1}")
                # the adapter's own file: its launcher's children (dirname) write files of their own
                totals = counts.totals(native.directory / f"{counts.OUTPUT_PREFIX}{pids[0]}")
                count = Count.of(attempted, values, totals)
                _record(session, InstructionsCell.CLIENT, client, server, one, (pair, index), config, count, client)
    finally:
        native.stop()


def _load_config(session: Session, endpoint: str, one: Workload, load: dict, duration_s: float) -> dict:
    """The client config of one load of `one` against `endpoint`: the kept PKI's client, no
    warm-up, a phase of `duration_s` (a load's `sessions` is the runner's, not the client's)."""
    config = session.client_config_for(
        endpoint,
        {k: v for k, v in {**one.workload, **load}.items() if k not in ("security", "sessions")},
        one.workload.get("security"),
        pki.kept_pki(KEPT_PKI).client,
    )
    return {**config, "warmup_s": 0, "duration_s": duration_s}


def _record(
    session: Session,
    kind: StrEnum,
    client: Sdk,
    server: Sdk,
    one: Workload,
    where: tuple[int, int],
    config: dict,
    count: Count,
    counted: Sdk | None = None,
) -> None:
    """One counted load as a cell of `kind`: its pair the repetition, its load's index the
    parameter; `counted` is whose instructions they are (the server unless said)."""
    pair, index = where
    language = (counted or server).language
    about = {"load": _described(one.loads[index]), "per": one.per, "language": language}
    result = {**count.summary, **about, "valgrind": valgrind_version()}
    session.recorder.record(
        kind, client, server, one.name, pair, config, Outcome("pass", result=result), one.server, index
    )


def _failed(
    session: Session, kind: StrEnum, client: Sdk, server: Sdk, one: Workload, chosen: InstructionsProfile, why: str
) -> str:
    """A count that could not be taken, recorded as a failed cell of `kind`; `why` again."""
    config = {**one.workload, "duration_s": chosen.duration_s}
    session.recorder.record(kind, client, server, one.name, 0, config, Outcome("fail", why), one.server)
    return why


def _operations(outcome: Outcome, what: str) -> tuple[int, int]:
    """The operations and values of a client run that passed with none failed; else a CountError."""
    if outcome.status != "pass" or outcome.result is None:
        raise CountError(f"{what}: the client did not pass: {outcome.reason}")
    operations = outcome.result["operations"]
    if operations["failed"]:
        raise CountError(f"{what}: {operations['failed']} of {operations['attempted']} operations failed")
    return int(operations["attempted"]), int(outcome.result.get("values") or operations["attempted"])


def _described(load: dict) -> str:
    """A load as the report names it: "rate 50", "closed loop", "1000 nodes"."""
    shown = [f"{len(v)} nodes" if k == "nodes" else f"{k} {v}" for k, v in load.items()]
    return ", ".join(shown) or "closed loop"
