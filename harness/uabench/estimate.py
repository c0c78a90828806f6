"""How long a run will take, estimated from its plan before anything starts.

The estimate follows the engine's schedule: a server of the default config is started once
per suite and kept (paused while another one runs); a server with overrides (a sweep point,
a refused policy) is started for its cell. A server is warmed up to steady state once per
load (engine.warmup): the reference load before the cells that need a warm server, a
ranking's own load before its blocks. An interleaved comparison runs its blocks of every
(server, variant) once.

Two figures: the typical duration (typical start-up times per runtime, a typical warm-up per
runtime, the fewest repetitions) and the most it may take (every warm-up to its bound, the
most repetitions, every disturbed repetition measured again once). Sweeps with a stop
condition and capacity searches count at their longest in both. The machine's load is not
known in advance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from uabench import sdks
from uabench.engine.capacity import too_few_for_p99
from uabench.engine.constants import DISTURBED_RETRIES, HEADROOM_REPETITIONS
from uabench.engine.schedule import STEADY_RUN
from uabench.plan import Phase, Plan, TestCase, suite_kinds, test_cases
from uabench.proc import pinning
from uabench.results import runs as runs_module

# What each SDK's adapter and server cost is declared in its sdk.toml [expectations]
# (sdks.Expectations), measured on the 2-core reference machine; these are the defaults for an
# SDK that declares none. startup_s: seconds from starting an adapter process to its first
# measured operation, a client cell's wall time beyond its warm-up and duration less
# CELL_OVERHEAD_S (a native binary is ready at once, a JVM or Node.js needs seconds to load and
# compile). steady_chunks: the chunks a server needs to reach steady state under its first load,
# the steady run included (engine.warmup: the steady run must last as long as the climb before
# it, and a JIT runtime compiles over its first seconds of load); a later load on a warm server
# (encryption's second mode) took 3 to 19 (mean 12) in a fresh-clone make bench (24 Nov 2026):
# a runtime's crypto path warms up anew.
STARTUP_DEFAULT_S = 1.5
STEADY_CHUNKS_DEFAULT = STEADY_RUN + 5
LATER_CHUNKS = STEADY_RUN + 8
# Capacity probes beyond the plain search (doublings, refinement, confirmation, overload): the
# lowest miss is probed again and a miss that then holds climbs on (engine.capacity). Measured
# in make bench (quick): 15 to 23 probes per server where the plain search has 15.
CAPACITY_REPROBES = 5
# A client cell's own overhead besides its phases: connecting, writing the result, judging.
CELL_OVERHEAD_S = 0.15
HOST_PROBE_OVERHEAD_S = 0.05  # perf's start and its share of the calibration run
# The negative security tests run a fixed short workload (library.NEGATIVE_WORKLOAD), the
# trusted client after the refusal, and before it the security probe's handshake: its own
# process in the tools' venv (tools/.venv) (about 1 s to start and import asyncua on the 2-core reference
# machine) and well under a second when the server answers; STEP_TIMEOUT_S more when it does not.
NEGATIVE_CELL_S = 0.4
NEGATIVE_PROBE_S = 1.5
# The test written in every suite: client/server, PubSub.
CHECK_KEYWORDS = ("Adapters Should Be Installed", "PubSub Adapters Should Be Installed")
# The load every fresh server is warmed up with (Session.REFERENCE_LOAD).
REFERENCE_LOAD = "reference load"


def limit_cells(phase: Phase) -> int:
    """The cells a sweep with a stop rule adds to its grid at most: its first missed and last
    held point measured once more each (engine.search), then `bisect_steps` points of
    `repetitions` each, and the held point topped up to `limit_repetitions`. Counted whether
    or not the sweep will stop inside its grid."""
    return 2 + phase.bisect_steps * phase.repetitions + max(0, phase.limit_repetitions - phase.repetitions)


def startup_s(sdk_id: str) -> float:
    """Typical start-up of `sdk_id`'s adapter (its sdk.toml [expectations])."""
    declared = _expectations(sdk_id).startup_s
    return STARTUP_DEFAULT_S if declared is None else declared


def _expectations(sdk_id: str) -> sdks.Expectations:
    """What `sdk_id`'s sdk.toml expects; a plan's SDK that is not installed here expects the defaults."""
    try:
        return sdks.get(sdk_id).expectations
    except sdks.UnknownSdk:
        return sdks.Expectations()


@dataclass(frozen=True)
class Estimate:
    seconds: float  # typical
    tests: tuple[float, ...]  # typical seconds of each test, in order
    cells: int
    upper: float = 0.0  # at most

    def text(self) -> str:
        return (
            f"estimated duration {clock(self.seconds)}, at most {clock(max(self.upper, self.seconds))}, "
            f"for {len(self.tests)} tests, {self.cells} cells (typical start-up and warm-up times and the "
            "fewest repetitions; at most: every warm-up to its bound and the most repetitions)"
        )


def total(estimates: Sequence[Estimate]) -> Estimate:
    """One estimate for several plans run one after another."""
    return Estimate(
        sum(e.seconds for e in estimates),
        tuple(t for e in estimates for t in e.tests),
        sum(e.cells for e in estimates),
        sum(e.upper for e in estimates),
    )


def clock(seconds: float) -> str:
    """mm:ss, or h:mm:ss from an hour on."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


@dataclass(frozen=True)
class Calibration:
    """How the last run of a suite on this machine compared with its estimate: its estimate's
    factor and where it comes from."""

    factor: float  # actual / estimated
    run_id: int
    actual_s: float
    estimated_s: float
    languages: tuple[str, ...] = ()  # its servers' (LANGUAGES), when known

    def text(self) -> str:
        servers = f" ({', '.join(self.languages)} servers)" if self.languages else ""
        return (
            f"the model's estimate × {self.factor:.2f}: run {self.run_id} of this suite on this machine{servers} "
            f"took {clock(self.actual_s)} against its {clock(self.estimated_s)}"
        )


# A stored run's servers' languages (server_languages), put on the run dicts `calibration` reads:
# under emulation a Python or Java server is slowed several times as much as a native one.
LANGUAGES = "server_languages"


def server_languages(run: dict, servers: Iterable[str]) -> list[str]:
    """The languages of a stored run's `servers`, as its provenance names them."""
    known = (run.get("provenance") or {}).get("sdks") or {}
    return sorted({(known.get(server) or {}).get("language", server) for server in servers})


def calibration(
    runs: Sequence[dict],
    suite: str,
    profile: str,
    fingerprint: str | None,
    where: str = "",
    languages: Iterable[str] | None = None,
) -> Calibration | None:
    """The newest finished run of `suite` in `profile` on the machine `fingerprint`, its servers in
    the same place `where` (results.runs.place: '' here, 'vm arm64' on the VM target, whose
    emulation takes several times as long), that recorded
    its estimate and ran on the fewest repetitions (no time budget, or one below the estimate of
    the whole `uabench run` it was part of, which the budget is set against: a larger budget is
    filled by repetitions, so its duration says nothing of the estimate; a run that did not
    record that total cannot tell, and is not used). Of those, the newest whose servers were of
    the `languages` this run's are (LANGUAGES, on runs that have it), else the newest: the
    model's start-up times are the reference machine's, and a target slows each runtime by its
    own factor (the arm64 VM: the native servers ×3.2, asyncua ×8.4).
    The model cannot know a machine's speed; its last run on it can (as hyperfine times a
    command's first runs before it states how long the rest will take)."""
    comparable = [
        run
        for run in sorted(runs, key=lambda r: r["id"], reverse=True)
        if _comparable(run, suite, profile, fingerprint, where)
    ]
    if not comparable:
        return None
    wanted = None if languages is None else sorted(set(languages))
    run = next((run for run in comparable if wanted is not None and run.get(LANGUAGES) == wanted), comparable[0])
    estimated = run["provenance"]["schedule"]["estimate_s"]
    actual = (run["finished_ns"] - run["started_ns"]) / 1e9
    return Calibration(actual / estimated, run["id"], actual, estimated, tuple(run.get(LANGUAGES) or ()))


def _comparable(run: dict, suite: str, profile: str, fingerprint: str | None, where: str) -> bool:
    provenance = run.get("provenance") or {}
    schedule = provenance.get("schedule") or {}
    budget_s, total = schedule.get("time_budget_s"), schedule.get("estimate_total_s")
    return (
        run["suite"] == suite
        and run["profile"] == profile
        and run["status"] == "finished"
        and bool(run.get("finished_ns"))
        and (provenance.get("machine") or {}).get("fingerprint") == fingerprint
        and runs_module.place(run) == where
        and bool(schedule.get("estimate_s"))
        and (budget_s is None or (total is not None and budget_s <= total))
    )


def calibrated(found: Estimate, by: Calibration | None) -> Estimate:
    """`found` scaled by `by` (every test alike), or as it is without one."""
    if by is None:
        return found
    return Estimate(
        found.seconds * by.factor, tuple(t * by.factor for t in found.tests), found.cells, found.upper * by.factor
    )


def for_plan(
    plan: Plan,
    profile: str,
    only: list[str] | None = None,
    startup: Callable[[str], float] = startup_s,
    asked: set[str] | None = None,
    selected: Callable[[TestCase], bool] | None = None,
) -> Estimate:
    """The estimate of a plan's suite: its adapter check, then every test case of its matrix
    that `selected` keeps (the run's --include, --exclude and --test; default all).
    `asked`: the adapters an earlier suite of the same run has asked already (updated)."""
    checked = tuple(sdk.id for sdk in sdks.all_sdks() if only is None or sdk.id in only)
    check = TestCase("adapter check", CHECK_KEYWORDS[bool(plan.pubsub)], checked, ())
    cases = [case for case in [check, *test_cases(plan, only, profile)] if selected is None or selected(case)]
    return estimate(plan, profile, cases, startup, asked)


@dataclass
class _Cost:
    """Typical and longest seconds and the cells of one test."""

    typical: float = 0.0
    most: float = 0.0
    cells: int = 0

    def add(self, typical: float, most: float | None = None, cells: int = 0) -> None:
        self.typical += typical
        self.most += typical if most is None else most
        self.cells += cells


@dataclass
class _Servers:
    """The servers a Session keeps: started once per suite, warmed once per load."""

    plan: Plan
    profile: str
    startup: Callable[[str], float]
    alive: set[str] = field(default_factory=set)
    warmed: set[tuple[str, str]] = field(default_factory=set)
    compiled: set[str] = field(default_factory=set)  # servers past their first warm-up

    def start(self, server: str, cost: _Cost) -> None:
        if server not in self.alive:
            self.alive.add(server)
            cost.add(self.startup(server))

    def warm(self, server: str, client: str, load: str, cost: _Cost, fresh: bool = False) -> None:
        """Warm `server` up to steady state with `load` (once, unless it is a `fresh` server of
        its own config)."""
        if not fresh and (server, load) in self.warmed:
            return
        self.warmed.add((server, load))
        chunk = self.startup(client) + self.plan.steady_chunk_s(self.profile) + 0.2 + CELL_OVERHEAD_S
        # a JIT runtime compiles during its first warm-up; later loads find it compiled
        first = fresh or server not in self.compiled
        self.compiled.add(server)
        # its least first warm-up (engine/session.steady_state: sdk.toml [expectations] warmup_s)
        floor = (_expectations(server).warmup_s or 0.0) if first and self.plan.sdk_warmup_floor(self.profile) else 0.0
        bound = max(self.plan.server_warmup_s(self.profile), floor)
        most = max(STEADY_RUN, math.ceil(bound / chunk) + 1)
        declared = _expectations(server).steady_chunks
        chunks = STEADY_CHUNKS_DEFAULT if declared is None else declared
        typical = min(max(chunks if first else LATER_CHUNKS, math.ceil(floor / chunk)), most)
        cost.add(typical * chunk, most * chunk, typical)


@dataclass
class _Meter:
    """One test's cost as a suite's cost function adds to it (plan.TestCost)."""

    cost: _Cost
    servers: _Servers
    cell_overhead_s: float = CELL_OVERHEAD_S

    def add(self, typical: float, most: float | None = None, cells: int = 0) -> None:
        self.cost.add(typical, most, cells)

    def start(self, server: str) -> None:
        self.servers.start(server, self.cost)

    def warm(self, server: str, client: str, load: str, fresh: bool = False) -> None:
        self.servers.warm(server, client, load, self.cost, fresh)

    def startup(self, sdk_id: str) -> float:
        return self.servers.startup(sdk_id)

    def expectations(self, sdk_id: str) -> sdks.Expectations:
        return _expectations(sdk_id)


def estimate(
    plan: Plan,
    profile: str,
    cases: Sequence[TestCase],
    startup: Callable[[str], float] = startup_s,
    asked: set[str] | None = None,
) -> Estimate:
    """The estimate of running `cases` (a plan's test cases, in order) in `profile`. `asked`:
    the adapters whose capabilities the run has asked already (engine.adapters asks each once
    per run); those of this plan's check are added to it."""
    servers = _Servers(plan, profile, startup)
    asked = set() if asked is None else asked
    costs = [_test_cost(plan, profile, case, servers, asked) for case in cases]
    return Estimate(
        sum(c.typical for c in costs),
        tuple(c.typical for c in costs),
        sum(c.cells for c in costs),
        sum(c.most for c in costs),
    )


def _measured(chosen: str, client: str) -> list[str]:
    """The servers of a comparison that `client` is tried against: not one that declares it never
    gives that client a session (sdk.toml [interop] refused; engine.session does not try it)."""
    found = []
    for server in chosen.split(","):
        try:
            refused = sdks.get(server).refuses(client)
        except sdks.UnknownSdk:  # a plan's SDK that is not installed here: counted, as _language does
            refused = None
        if refused is None:
            found.append(server)
    return found


def _test_cost(plan: Plan, profile: str, case: TestCase, servers: _Servers, asked: set[str]) -> _Cost:
    keyword, args, startup = case.keyword, case.args, servers.startup
    cost = _Cost()

    def cell(kind: str, client: str) -> float:
        phase = plan.phase(profile, kind)
        return startup(client) + phase.warmup_s + phase.duration_s + CELL_OVERHEAD_S

    def blocks(kind: str, client: str, items: int) -> None:
        """An interleaved comparison's blocks: the fewest, or the most with every repetition
        disturbed as often as it is measured again."""
        phase = plan.phase(profile, kind)
        # and the host probe after each block: its calibration, then one window (proc/hostprobe.py)
        one = items * cell(kind, client) + phase.duration_s + HOST_PROBE_OVERHEAD_S
        most = phase.most_repetitions * one * (1 + DISTURBED_RETRIES)
        cost.add(phase.repetitions * one, most, phase.repetitions * items)

    suite_kind = suite_kinds()[plan.kind] if plan.kind else None
    if suite_kind is not None and suite_kind.cost is not None and keyword not in CHECK_KEYWORDS:
        suite_kind.cost(plan, profile, case, _Meter(cost, servers))  # a suite's own keywords, its own estimate
        return cost
    if keyword == "Interop Cell Should Pass":
        client, server, _ = args
        servers.start(server, cost)
        cost.add(cell("interop", client), cells=1)
    elif keyword == "Throughput Ranking Should Be Measured":
        client, variant, chosen = args
        tried = _measured(chosen, client)
        for server in tried:
            servers.start(server, cost)
            servers.warm(server, client, variant, cost)
        blocks("throughput", client, len(tried))
    elif keyword == "Security Overhead Should Be Measured":
        name, client, chosen = args
        values = plan.sweep(name).points(profile)
        tried = _measured(chosen, client)
        for server in tried:
            servers.start(server, cost)
            for value in values:
                servers.warm(server, client, f"{name}: {value}", cost)
        blocks("sweep", client, len(tried) * len(values))
    elif keyword == "Load Generator Headroom Should Be Measured":  # one process, then two
        # skipped where the load generator has fewer than two cores of its own (library.py)
        if len(pinning.plan().client or ()) >= 2:
            repetitions = min(plan.phase(profile, "throughput").repetitions, HEADROOM_REPETITIONS)
            cost.add(2 * repetitions * cell("throughput", args[0]), cells=2 * repetitions)
    elif keyword == "Sampling Overhead Should Be Measured":  # both arms, a fixed number of blocks
        client, variant = args
        servers.start(client, cost)
        servers.warm(client, client, variant, cost)
        repetitions = plan.phase(profile, "throughput").repetitions
        cost.add(2 * repetitions * cell("throughput", client), cells=2 * repetitions)
    elif keyword == "Sweep Should Complete":
        name, client, server = args
        sweep, phase = plan.sweep(name), plan.phase(profile, "sweep")
        points = len(sweep.points(profile))
        warm = sweep.workload.get("workload") != "subscribe"
        if sweep.server:  # every point configures the server anew, so each starts its own
            for _ in range(points):
                cost.add(startup(server))
                if warm:
                    servers.warm(server, client, REFERENCE_LOAD, cost, fresh=True)
        else:
            servers.start(server, cost)
            if warm:
                servers.warm(server, client, REFERENCE_LOAD, cost)
        # a sweep with a stop rule: its limit's two re-measured points and its bisection steps
        extra = limit_cells(phase) if sweep.stop else 0
        points_cells = points * phase.repetitions + extra
        if sweep.server and extra:  # each re-measured and each bisection point starts its server anew
            cost.add((2 + phase.bisect_steps) * startup(server))
        measured = points_cells * cell("sweep", client)
        cost.add(measured, measured * (1 + DISTURBED_RETRIES), cells=points_cells)
    elif keyword == "Capacity Should Be Found":
        client, server = args
        capacity, phase = plan.capacity, plan.phase(profile, "capacity")
        assert capacity is not None, "capacity tests come only from plans with a [capacity] table"
        servers.start(server, cost)
        servers.warm(server, client, REFERENCE_LOAD, cost)
        doublings = max(1, math.floor(math.log2(capacity.max_rate / capacity.start_rate)) + 1)
        # the search's probes, the two that confirm its bracket, the lowest miss probed again
        # and the climbs on from a miss that held (CAPACITY_REPROBES), then the overload probes
        overload = len(capacity.overload_factors) * capacity.overload_repetitions
        probes = doublings + capacity.refine_steps + 2 + CAPACITY_REPROBES + overload
        cost.add(probes * phase.repetitions * cell("capacity", client), cells=probes * phase.repetitions)
    elif keyword == "Latency At Common Loads Should Be Measured":
        client, chosen = args
        latency, phase = plan.capacity.latency if plan.capacity else None, plan.phase(profile, "latency")
        assert latency is not None, "the latency table comes only from plans with [capacity.latency]"
        run = [load for load in latency.loads if not too_few_for_p99(load[0], phase.duration_s)]
        count = len(chosen.split(",")) * (len(run) + len(latency.capacity_shares))
        # the servers are warm from their capacity search; loads beyond a server's capacity are not run
        cost.add(count * phase.repetitions * cell("latency", client), cells=count * phase.repetitions)
    elif keyword == "Untrusted Client Should Be Rejected":
        client, server = args
        servers.start(server, cost)
        cost.add(NEGATIVE_PROBE_S + startup(client) + NEGATIVE_CELL_S + CELL_OVERHEAD_S, cells=1)
    elif keyword == "Unoffered Policy Should Be Refused":
        client, server = args  # the refused configuration is a server of its own
        cost.add(startup(server) + NEGATIVE_PROBE_S + startup(client) + NEGATIVE_CELL_S + CELL_OVERHEAD_S, cells=1)
    elif keyword in (
        "PubSub Sweep Should Complete",
        "PubSub Subscriber Sweep Should Complete",
        "PubSub Interop Should Pass",
    ):
        publisher, subscriber = args
        kind = {
            "PubSub Sweep Should Complete": "sweep",
            "PubSub Subscriber Sweep Should Complete": "subscribers",
            "PubSub Interop Should Pass": "interop",
        }[keyword]
        phase = plan.phase(profile, kind)
        points = len(phase.signals) if kind == "sweep" else len(phase.counts) if kind == "subscribers" else 1
        one = startup(publisher) + startup(subscriber) + phase.warmup_s + phase.duration_s + CELL_OVERHEAD_S
        count = points * phase.repetitions + (limit_cells(phase) if kind == "sweep" else 0)
        cost.add(count * one, cells=count)
    elif keyword in CHECK_KEYWORDS:  # asks every adapter (args: which, when known) for its capabilities
        new = [sdk for sdk in (args or [sdk.id for sdk in sdks.all_sdks()]) if sdk not in asked]
        asked.update(new)  # asked once per run (engine.adapters)
        cost.add(CELL_OVERHEAD_S + sum(startup(sdk) for sdk in new))
    else:
        cost.add(CELL_OVERHEAD_S)  # a keyword this estimate does not know: counted as quick
    return cost
