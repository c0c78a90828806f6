"""The footprint's points (footprint/plan.py). Every point of a server is a server process of its
own, so what one point held never stays in the next one's memory:

- a held point: the server starts (update loop as the plan says), its RSS is read once settled
  (idle), then a client holds the model's workload at one step for the profile's hold and the
  server's RSS is read over the last settle window of that hold (held). The figure is held − idle
  of the same process, which takes the process-to-process scatter of the start out of the slope.
- a start-up point: the server starts with a number of signals: the time from its process start
  to its ready line, its settled idle RSS, then a new session's first requests (the cold path)
  and those after them.

RSS is what the OS counts for the server's process tree (proc/sampling.py, every 0.25 s). Where
a runtime lets another process force a full collection (the JVM, Node: footprint/heap.py), its used heap
after one is read beside RSS and is the point's figure; elsewhere a runtime with a heap shows in
RSS what it keeps committed."""

from __future__ import annotations

import contextlib
import random
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from enum import StrEnum

from uabench import targets
from uabench.containers import images
from uabench.containers.engine import EngineError
from uabench.engine import tools_venv
from uabench.engine.cells import CellSpec, Measured, NotSupportedError, Outcome
from uabench.engine.servers import Server
from uabench.engine.session import Session
from uabench.footprint import heap, memory, nodesets
from uabench.footprint.cells import KNOWN, NO_MODEL
from uabench.footprint.memory import CLIENT_KIND, IMPORT_KIND, KIND, STARTUP_KIND, WARMUP_KIND, Reading
from uabench.footprint.plan import FootprintProfile, FootprintSetup, ImportModel, Model, Settle
from uabench.proc import stacks
from uabench.proc.sampling import INTERVAL_S
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError

# the client's warm-up: its sessions, subscriptions and monitored items are made before it, so
# the measured phase holds all of them from its start
HOLD_WARMUP_S = 1.0
# a sampler's first sample: at once here; seconds where it is a Python started beside the adapter
# on an emulated machine (the VM target)
FIRST_SAMPLE_S = 60.0
# A client on another machine (beside its server on a board or the VM) warms up this long: its
# sampler starts there once the adapter is found, and a client's 1 s warm-up had ended before it
# on the arm64 VM (4 of 7 clients had no RSS sample in their measured phase, run 17 of the epyc
# store). A point that still has none fails (measure_client).
REMOTE_CLIENT_WARMUP_S = 30.0
KIB, MIB = 1024, 1024 * 1024
# The first-request phase on an emulated server's target lasts at least this long: the figure
# needs a second request to compare the first with, and under emulation one Read may take longer
# than the plan's phase (node-opcua's at 100,000 signals on the arm64 VM: over its 0.5 s).
EMULATED_FIRST_REQUEST_S = 5.0


class FootprintError(RuntimeError):
    pass


def _samples(measured: Measured, since_ns: int, until_ns: int | None = None) -> list[tuple[int, int]]:
    """The (wall_ns, rss) samples of a measured process in a window (an SSH target's are fetched)."""
    fetch = getattr(measured.sampler, "fetch", None)
    if fetch is not None:
        fetch()
    return [
        (s.wall_ns, s.rss)
        for s in measured.sampler.samples
        if s.wall_ns >= since_ns and (until_ns is None or s.wall_ns <= until_ns)
    ]


def settled_rss(measured: Measured, settle: Settle, since_ns: int) -> Reading:
    """The RSS of a process left alone, once settled: at most settle.bound_s from its first sample,
    then the last reading as it is (marked unsettled). The first sample may take a while on a
    remote or emulated target, whose sampler starts beside the adapter (targets/remote.py): up to
    FIRST_SAMPLE_S, which does not count against the bound."""
    began = time.monotonic()
    deadline: float | None = None
    while True:
        samples = _samples(measured, since_ns)
        if samples and deadline is None:
            deadline = time.monotonic() + settle.bound_s
        found = memory.reading(samples, settle)
        if deadline is None:
            if time.monotonic() - began >= FIRST_SAMPLE_S:
                raise FootprintError(f"no RSS sample of {measured.process.name} within {FIRST_SAMPLE_S:g} s")
        elif found is not None and (found.settled or time.monotonic() >= deadline):
            return found
        elif time.monotonic() >= deadline + settle.window_s:
            raise FootprintError(
                f"fewer than {memory.MIN_SAMPLES} RSS samples of {measured.process.name} in {settle.window_s:g} s "
                f"within {settle.bound_s:g} s of its first"
            )
        time.sleep(INTERVAL_S)


def held_rss(measured: Measured, settle: Settle, outcome: Outcome) -> Reading:
    """The RSS of the server over the last settle window of the client's measured phase."""
    assert outcome.result is not None
    found = memory.reading(_samples(measured, outcome.result["start_ns"], outcome.result["end_ns"]), settle)
    if found is None:
        raise FootprintError(
            f"the measured phase held fewer than {memory.MIN_SAMPLES} RSS samples or lasted under "
            f"{settle.window_s:g} s: the profile's hold_s is too short"
        )
    return found


class HeldHeap:
    """The collected heap of a server while a client holds its point. The client's set-up takes
    from a tenth of a second (one session) to seconds (a hundred), and nothing tells the harness
    when it ended: so the heap is collected and read every COLLECT_EVERY_S from the client's start
    to its end, and the reading is the last collection that began and ended inside the client's
    measured phase (everything is made before its warm-up, so the measured phase holds all of it)."""

    COLLECT_EVERY_S = 0.75

    def __init__(self, pid: int, language: str) -> None:
        self.pid, self.language = pid, language
        self.collections: list[tuple[int, int, int]] = []  # (began_ns, ended_ns, heap bytes)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"heap-{pid}", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.COLLECT_EVERY_S):
            began = time.time_ns()
            try:
                found = heap.collected_heap(self.pid, self.language)
            except (heap.HeapError, OSError, subprocess.TimeoutExpired) as error:
                self.errors.append(str(error))
                continue
            self.collections.append((began, time.time_ns(), found))

    def __enter__(self) -> HeldHeap:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=heap.JCMD_TIMEOUT_S * 2 + 1)

    def reading(self, result: dict) -> int:
        """The heap of the last collection inside the client's measured phase."""
        inside = [
            found
            for began, ended, found in self.collections
            if result["start_ns"] <= began <= ended <= result["end_ns"]
        ]
        if not inside:
            why = self.errors[-1] if self.errors else f"{len(self.collections)} collections, none inside it"
            raise FootprintError(f"the heap was not read during the client's measured phase: {why}")
        return inside[-1]


def _idle(running: Server, server: Sdk, settle: Settle) -> tuple[Reading, int | None]:
    """A fresh server's settled idle RSS, and its used heap after a full collection where its
    runtime lets uabench force one (else None)."""
    idle = settled_rss(running.measured, settle, running.measured.process.started_ns)
    # jcmd and V8's inspector reach a process of this machine only (a container's too: its host
    # pid, its network the host's), not one on an SSH target or the VM
    if not heap.collects(server.language) or running.measured.process.remote is not None:
        return idle, None
    return idle, heap.collected_heap(running.measured.process.pid, server.language)


def _idle_figure(idle: Reading, idle_heap: int | None, server: Sdk) -> tuple[int, str]:
    """The idle bytes a point's figure is of, and their basis: RSS, or the heap after a full
    collection where it could be had."""
    return (idle.rss, "RSS") if idle_heap is None else (idle_heap, heap.COLLECTED[server.language])


def held_point(
    session: Session,
    server: Sdk,
    client: Sdk,
    model: Model,
    step: int,
    hold_s: float,
    settle: Settle,
    overrides: dict,
) -> tuple[Outcome, dict]:
    """One held point on its own server process: the client's outcome and the figures. A server
    whose runtime uabench can collect (footprint/heap.py) also has its heap after a full
    collection, idle and held, and its figure (delta_bytes) is the heap's; RSS's stays beside it."""
    if model.vary == "monitored_items" and (why := server.cannot_publish(step)):
        return Outcome("not_supported", why), {}
    running = session.pool.fresh(server, **model.server_config(step, overrides))
    try:
        idle, idle_heap = _idle(running, server, settle)
        config = session.client_config(running, model.held(step))
        config = {**config, "warmup_s": HOLD_WARMUP_S, "duration_s": hold_s}
        figures: dict = {"idle": idle.summary(), "config": config, "server_config": running.config}
        with contextlib.ExitStack() as stack:
            held_heap = (
                stack.enter_context(HeldHeap(running.measured.process.pid, server.language))
                if idle_heap is not None
                else None
            )
            outcome = session.run_client(client, running, config)
        if outcome.status == "pass":
            figures |= stack_figures(running, server)
            held = held_rss(running.measured, settle, outcome)
            rss_delta = held.rss - idle.rss
            figures |= {"held": held.summary(), "rss_delta_bytes": rss_delta, "delta_bytes": rss_delta, "basis": "RSS"}
            if held_heap is not None and idle_heap is not None:  # both or neither
                heap_held = held_heap.reading(outcome.measured)
                figures |= {
                    "idle_heap_bytes": idle_heap,
                    "held_heap_bytes": heap_held,
                    "delta_bytes": heap_held - idle_heap,
                    "basis": heap.COLLECTED[server.language],
                }
    finally:
        session.pool.stop(running)
    return outcome, figures


# runtimes whose threads' stacks no thread stack mapping holds
STACKS_ELSEWHERE = {
    "Go": "goroutine stacks live in Go's heap and grow by copying (its RSS counts them); no thread's stack "
    "mapping holds them",
}


def stack_figures(running: Server, server: Sdk) -> dict:
    """How deep the server's thread stacks have been by the end of its held point (proc/stacks.py):
    {"stacks": …}, or {"stacks_unmeasured": why} where they cannot be read."""
    if server.language in STACKS_ELSEWHERE:
        return {"stacks_unmeasured": STACKS_ELSEWHERE[server.language]}
    process = running.measured.process
    try:
        if process.remote is not None and process.remote_role is not None:  # read there by the agent
            return {"stacks": process.remote.stacks(process.remote_role).summary()}
        return {"stacks": stacks.high_water_quiet(process.pid).summary()}
    except stacks.StackError as error:
        return {"stacks_unmeasured": str(error)}


def startup_point(
    session: Session, server: Sdk, client: Sdk, signals: int, settle: Settle, overrides: dict, first_request: dict
) -> tuple[Outcome, dict]:
    """One start-up point on its own server process: its time to ready, its idle RSS, and the
    latencies of a new session's first requests."""
    running = session.pool.fresh(server, **{**overrides, "signals": signals})
    try:
        ready_s = running.ready_s
        idle, idle_heap = _idle(running, server, settle)
        idle_bytes, basis = _idle_figure(idle, idle_heap, server)  # the address space's cost
        config = session.client_config(
            running, {**first_request_phase(first_request), "record_latencies": True, "warmup_s": 0}
        )
        outcome = session.run_client(client, running, config)
        figures: dict = {
            "ready_s": ready_s,
            "idle": idle.summary(),
            "idle_bytes": idle_bytes,
            "basis": basis,
            "config": config,
            "server_config": running.config,
        }
        if outcome.status == "pass":
            figures |= first_requests(outcome.measured)
    finally:
        session.pool.stop(running)
    return outcome, figures


def first_request_phase(first_request: dict) -> dict:
    """The plan's first-request workload, its phase at least EMULATED_FIRST_REQUEST_S where the
    run places its servers on an emulated target."""
    server = targets.current().server
    if server is None or not server.emulated:
        return first_request
    return {**first_request, "duration_s": max(float(first_request.get("duration_s", 0)), EMULATED_FIRST_REQUEST_S)}


def first_requests(result: dict) -> dict:
    """The first request's latency of a new session and the median of the others (µs), from
    its recorded latencies (SPEC §6: in the order they completed; one in flight, so sent)."""
    latencies = result.get("latencies") or {}
    found = latencies.get("latency_ns") or []
    if len(found) < 2:
        raise FootprintError(f"{len(found)} latencies recorded: the first request needs others to compare with")
    return {
        "first_request_us": found[0] / 1e3,
        "later_requests_us": statistics.median(found[1:]) / 1e3,
        "requests": len(found),
    }


def shuffled(points: list[tuple[int, int]], seed: str) -> list[tuple[int, int]]:
    """(repetition, step) points in an order of their own per run: a drift of the host over the
    test (its page cache, another process) then spreads over every step instead of tilting the
    slope, as pyperf and hyperfine randomise what they compare."""
    order = list(points)
    random.Random(seed).shuffle(order)
    return order


def _recorded(outcome: Outcome, figures: dict) -> Outcome:
    """The outcome as stored: a passed one's result carries the footprint's figures."""
    if outcome.status != "pass" or outcome.result is None:
        return outcome
    outcome.result = {**outcome.result, "footprint": figures}
    return outcome


def _points(
    session: Session,
    kind: StrEnum,
    pair: tuple[Sdk, Sdk],
    variant: str,
    points: list[tuple[int, int]],
    measure: Callable[[int], tuple[Outcome, dict]],
    config: Callable[[int], dict],
    told: Callable[[int, dict], str],
    log: Callable[[str], None],
) -> tuple[list[tuple[int, dict]], list[str]]:
    """(repetition, parameter) points of one (server, client) `pair`, each measured in a shuffled
    order and recorded as a `kind` cell (a point that could not be measured as failed, with
    why): the (parameter, figures) of those that passed, and what failed ("not supported: …"
    alone when no point is supported; a point that is not is left out of the figures). `told`
    is a point's log line."""
    server, client = pair
    found: list[tuple[int, dict]] = []
    failures: list[str] = []
    unsupported: list[str] = []
    for repetition, parameter in shuffled(points, f"{session.run_id}:{server.id}:{client.id}:{kind}:{variant}"):
        try:
            outcome, figures = measure(parameter)
        except (FootprintError, heap.HeapError, AdapterError) as error:
            outcome, figures = Outcome("fail", str(error)), {}
        session.recorder.record(
            kind, client, server, variant, repetition, figures.get("config") or config(parameter),
            _recorded(outcome, figures), figures.get("server_config"), parameter,
        )  # fmt: skip
        if outcome.status == "not_supported":  # this point: the others may still be measured
            unsupported.append(outcome.reason or "not supported")
            log(f"{told(parameter, {})}: not supported: {outcome.reason}")
            continue
        if outcome.status != "pass":
            failures.append(f"{told(parameter, {})}, repetition {repetition + 1}: {outcome.reason}")
            continue
        found.append((parameter, figures))
        log(told(parameter, figures))
    if unsupported and not found and not failures:
        return found, [f"not supported: {unsupported[0]}"]
    return found, failures


def measure_model(
    session: Session,
    setup: FootprintSetup,
    chosen: FootprintProfile,
    profile: str | None,
    pair: tuple[Sdk, Sdk],
    model: Model,
    log: Callable[[str], None],
) -> tuple[list[tuple[int, int]], list[str]]:
    """Every point of one server's model, each a "footprint" cell (the step its parameter):
    (step, held − idle bytes) of the points measured, and what failed."""
    server, client = pair

    def told(step: int, figures: dict) -> str:
        if not figures:
            return f"{step} {model.vary}"
        return (
            f"{step} {model.vary}: idle {figures['idle']['rss'] / MIB:.1f} MiB, held "
            f"{figures['held']['rss'] / MIB:.1f} MiB, +{figures['delta_bytes'] / KIB:,.0f} KiB ({figures['basis']})"
        )

    found, failures = _points(
        session, KIND, pair, model.name,
        [(r, step) for r in range(chosen.repetitions) for step in setup.steps_of(model.steps, profile)],
        lambda step: held_point(session, server, client, model, step, chosen.hold_s, setup.settle, setup.server),
        model.held, told, log,
    )  # fmt: skip
    return [(step, figures["delta_bytes"]) for step, figures in found], failures


def measure_startup(
    session: Session,
    setup: FootprintSetup,
    chosen: FootprintProfile,
    profile: str | None,
    pair: tuple[Sdk, Sdk],
    log: Callable[[str], None],
) -> list[str]:
    """Every start-up point of one server, each a "footprint-startup" cell (signals its parameter),
    after a warm-up start (a "footprint-warmup" cell)."""
    server, client = pair

    def told(signals: int, figures: dict) -> str:
        if not figures:
            return f"{signals} signals"
        return (
            f"{signals} signals: ready after {figures['ready_s'] * 1e3:,.0f} ms, idle "
            f"{figures['idle']['rss'] / MIB:.1f} MiB, first request {figures['first_request_us']:,.0f} µs "
            f"(then {figures['later_requests_us']:,.0f} µs)"
        )

    def measure(signals: int) -> tuple[Outcome, dict]:
        return startup_point(session, server, client, signals, setup.settle, setup.server, setup.first_request)

    def config(_signals: int) -> dict:
        return setup.first_request

    # First a warm-up start at the profile's fewest signals, stored as "footprint-warmup" and left
    # out of the figures (as hyperfine's --warmup): it reads the server's files (its binary,
    # interpreter, libraries, JARs or modules) and the client's into the page cache, so that no point
    # is the run's one start from disk while the others start from memory (the cold start made one of
    # node-opcua's two ready times at 1,000 signals 10.2 s, the other 1.9). Its failure is said and
    # does not stop the points: they decide the test.
    _, cold = _points(
        session, WARMUP_KIND, pair, "start-up", [(0, min(setup.signals_of(profile)))], measure, config,
        lambda signals, figures: f"warm-up start, discarded: {told(signals, figures)}", log,
    )  # fmt: skip
    for failure in cold:
        log(failure)
    _, failures = _points(
        session, STARTUP_KIND, pair, "start-up",
        [(r, signals) for r in range(chosen.repetitions) for signals in setup.signals_of(profile)],
        measure, config, told, log,
    )  # fmt: skip
    return failures


def measure_client(
    session: Session,
    setup: FootprintSetup,
    chosen: FootprintProfile,
    profile: str | None,
    client: Sdk,
    server: Sdk,
    log: Callable[[str], None],
) -> list[str]:
    """Every point of one client's sessions against the reference server (one server process for
    all of them: the client is measured), each a "footprint-client" cell (sessions its parameter):
    the client's RSS over its measured phase."""
    failures = []
    steps = setup.steps_of(setup.client_steps, profile)
    points = [(r, step) for r in range(chosen.repetitions) for step in steps]
    warmup_s = REMOTE_CLIENT_WARMUP_S if targets.elsewhere("client") else HOLD_WARMUP_S
    for repetition, step in shuffled(points, f"{session.run_id}:{client.id}:client"):
        workload = {**setup.client_workload, "sessions": step, "warmup_s": warmup_s, "duration_s": chosen.hold_s}
        spec = CellSpec(
            CLIENT_KIND, client, server, "sessions", repetition, workload, parameter=step, server_overrides=setup.server
        )
        outcome = session.cell(spec, warm=False)
        if outcome.status == "not_supported":
            return [f"not supported: {outcome.reason}"]
        if outcome.status != "pass":
            failures.append(f"{step} sessions, repetition {repetition + 1}: {outcome.reason}")
            continue
        rss = (outcome.client_resources or {}).get("rss_mean")
        if not rss:  # the point's figure: a client that passed unsampled measured nothing
            failures.append(f"{step} sessions, repetition {repetition + 1}: no RSS sample within its measured phase")
            continue
        log(f"{step} sessions: client RSS {rss / MIB:.1f} MiB")
    return failures


# the model probe: its start (asyncua's import) and its Reads and Browses, on a loaded host
PROBE_BOUND_S = 60.0
PROBE_START_S = 1.5  # typical: the tools' Python importing asyncua, a session, a few requests


def probe_model(endpoint: str, model: ImportModel) -> dict:
    """What the model probe (tools/uabench_tools/model_probe.py) sees of `model` on a server."""
    arguments = {**nodesets.probe_arguments(model), "endpoint": endpoint, "timeout_s": 10}
    try:
        done = tools_venv.run("model_probe", arguments, PROBE_BOUND_S, "model probe")
        return tools_venv.last_line(done, "model probe")
    except RuntimeError as error:
        raise FootprintError(str(error)) from None


def import_point(
    session: Session,
    server: Sdk,
    model: ImportModel | None,
    files: list[str],
    settle: Settle,
    overrides: dict,
) -> tuple[Outcome, dict]:
    """One import point on a server process of its own: started with the model's `files` (none:
    the point the models are set beside), its time to ready and settled idle memory, then the
    model probe's look at what it imported. A start the loader refused, or an import the probe
    does not find as the files say, fails with why."""
    config = {**overrides, "nodesets": files}
    try:
        running = session.pool.fresh(server, **config)
    except NotSupportedError as error:
        return Outcome("not_supported", str(error)), {}
    except AdapterError as error:  # it printed an error instead of ready: the loader's message
        return Outcome("fail", str(error)), {}
    try:
        idle, idle_heap = _idle(running, server, settle)
        idle_bytes, basis = _idle_figure(idle, idle_heap, server)
        figures: dict = {
            "model": model.name if model else NO_MODEL,
            "files": [path.rsplit("/", 1)[-1] for path in files],
            "ready_s": running.ready_s,
            "idle": idle.summary(),
            "idle_bytes": idle_bytes,
            "basis": basis,
            "server_config": running.config,
        }
        if model is None:
            return Outcome("pass", result={}), figures
        observed = probe_model(running.endpoint, model)
        figures["observed"] = observed
        problems = nodesets.judge(observed, model)
        if problems:
            return Outcome("fail", "the import is not what its files say: " + "; ".join(problems)), figures
        return Outcome("pass", result={}), figures
    finally:
        session.pool.stop(running)


def known_import_failure(server: Sdk, model_name: str, outcome: Outcome) -> Outcome:
    """A failed import that the server's sdk.toml declares ([nodeset_import."<model>"], its
    `found` in the reason) is kept as failed with the declaration's why (KNOWN first); any
    other outcome as it is."""
    declared = server.nodeset_import.get(model_name)
    if outcome.status != "fail" or declared is None or not declared.matches(outcome.reason or ""):
        return outcome
    return Outcome("fail", f"{KNOWN}{declared.why} ({outcome.reason})")


def measure_import(
    session: Session,
    setup: FootprintSetup,
    chosen: FootprintProfile,
    profile: str | None,
    server: Sdk,
    log: Callable[[str], None],
) -> list[str]:
    """Every import point of one server, each a "footprint-import" cell (its model the variant,
    NO_MODEL for the points without files): the profile's repetitions of each, in a shuffled
    order, so that each model's cost is read beside points without files from the same stretch
    of the run. What failed, and a declaration no point bore out; "not supported: …" alone when
    the server has no loader."""
    assert setup.nodeset_import is not None
    models: list[ImportModel | None] = [None, *setup.imports_of(profile)]
    failures: list[str] = []
    declared_seen: set[str] = set()

    def record(name: str, repetition: int, k: int, outcome: Outcome, figures: dict) -> None:
        model = models[k]
        session.recorder.record(
            IMPORT_KIND, server, server, name, repetition,
            {"model": name, **(nodesets.probe_arguments(model) if model else {})},
            _recorded(outcome, figures), figures.get("server_config"), k,
        )  # fmt: skip

    if why := server.not_supported.get("nodeset_import"):  # no process started for nothing
        for k, model in enumerate(models[1:], start=1):
            record(model.name if model else NO_MODEL, 0, k, Outcome("not_supported", why), {})
        return [f"not supported: {why}"]
    located: dict[str, list[str]] = {}  # each model's files, fetched and hash-checked once

    def files_of(model: ImportModel | None) -> list[str]:
        if model is None:
            return []
        if model.name not in located:  # a fetch that failed is tried again at the next point
            located[model.name] = [str(path) for path in nodesets.files(model)]
        return located[model.name]

    repetitions = chosen.import_repetitions or chosen.repetitions
    points = [(r, k) for r in range(repetitions) for k in range(len(models))]
    for repetition, k in shuffled(points, f"{session.run_id}:{server.id}:import"):
        model = models[k]
        name = model.name if model else NO_MODEL
        try:
            outcome, figures = import_point(session, server, model, files_of(model), setup.settle, setup.server)
        except (FootprintError, heap.HeapError, nodesets.NodesetError) as error:
            outcome, figures = Outcome("fail", str(error)), {}
        outcome = known_import_failure(server, name, outcome)
        record(name, repetition, k, outcome, figures)
        if outcome.status == "not_supported":
            return [f"not supported: {outcome.reason}"]
        if outcome.status == "fail" and (outcome.reason or "").startswith(KNOWN):
            declared_seen.add(name)
            log(f"{name}: failed as its sdk.toml declares: {outcome.reason}")
        elif outcome.status != "pass":
            failures.append(f"{name}, repetition {repetition + 1}: {outcome.reason}")
        else:
            log(f"{name}: ready after {figures['ready_s'] * 1e3:,.0f} ms, idle {figures['idle']['rss'] / MIB:.1f} MiB")
    names = {m.name for m in models if m is not None}
    for name in sorted(set(server.nodeset_import) & names - declared_seen):
        failures.append(f'{name}: sdk.toml declares [nodeset_import."{name}"] but no import failed so')
    return failures


def image_sizes(sdk: Sdk) -> tuple[dict[str, int], str | None]:
    """The size of each image of `sdk` the container engine holds, per architecture (`uabench
    images` builds them; the report puts them beside the memory), or why none can be asked for."""
    try:
        found = {
            name: size
            for name, target in images.ARCHES.items()
            if (size := images.image_size(images.image_name(sdk.id, target))) is not None
        }
    except (images.ImageError, EngineError, OSError) as error:
        return {}, f"the container engine cannot be asked: {error}"
    return found, None if found else f"no image of {sdk.id} built here (uabench images --sdk {sdk.id} builds them)"
