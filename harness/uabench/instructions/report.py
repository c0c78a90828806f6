"""The instructions section (issue 20): per server and workload, the instructions per operation
from the differences of its loads under callgrind (instructions/counts.py), how far the
repeated differences lie apart, and beside them the same workload timed without valgrind
(server CPU per operation, the closed loop's median latency). Servers the plan does not count
say why. Built from the "instructions" and "instructions-timing" cells robot/library.py records."""

from __future__ import annotations

import statistics

from uabench.document.model import Cell, Column, Interval, Rank, Section, Status, Table, row
from uabench.document.parts import failure_notes, first_line
from uabench.instructions import counts as counts_tool
from uabench.instructions.cells import InstructionsCell
from uabench.results import figures, ranking, stats
from uabench.results import instruction_counts as counts
from uabench.results.compare import COUNT_CHANGE
from uabench.results.instruction_counts import L1_CYCLES, LL_CYCLES, RAM_CYCLES, spread, spread_of

KIND, TIMING_KIND, CLIENT_KIND = counts.KIND, InstructionsCell.TIMING, InstructionsCell.CLIENT


def _timing(cells: list[dict]) -> dict[tuple[str, str], figures.Point]:
    return {(p.server, p.sweep): p for p in figures.points(cells, TIMING_KIND)}


def _cpu_us_per_operation(point: figures.Point | None) -> float | None:
    """Server CPU µs per operation without valgrind: its µs per value × values per operation."""
    if point is None or point.server_cpu_s_per_million is None:
        return None
    ops, values = point.ops_per_s.get("mean"), point.values_per_s.get("mean")
    if not ops or not values:
        return None
    return point.server_cpu_s_per_million * values / ops


def instructions_section(run: dict, cells: list[dict]) -> Section | None:
    mine = [c for c in cells if c["kind"] in (KIND, TIMING_KIND, CLIENT_KIND)]
    if not mine:
        return None
    about = (run["provenance"].get("plan") or {}).get("instructions") or {}
    tolerance, time_driven = about.get("tolerance", 0.001), about.get("time_driven") or {}
    language = {c["server"]: c["result"].get("language", "") for c in mine if c["kind"] == KIND and c.get("result")}
    counted, timed = counts.counted(mine), _timing(mine)
    ranks = _ranks(counted)
    rows, notes = [], []
    for (server, workload), (found, per) in counted.items():
        per_request = [d.per_request for d in found]
        apart = spread(found)
        center = statistics.fmean(per_request)
        reproduced = apart is not None and apart <= tolerance
        verdict = _agreement(apart, reproduced)
        if apart is not None and not reproduced:
            why = time_driven.get(language.get(server, ""))
            notes.append(
                f"{server}, {workload}: the {len(found)} differences lie {apart:.2%} apart, more than "
                f"{tolerance:.1%}" + (f": {why}." if why else ": not a reproduced count.")
            )
        point = timed.get((server, workload))
        cpu_us = _cpu_us_per_operation(point)
        latency = point.latency.get("p50_us") if point else None
        per_value = statistics.fmean(d.per_value for d in found)
        cpu_per_million = point.server_cpu_s_per_million if point else None
        measured = point.server_instructions_per_op if point else None
        rank = ranks[workload].ranks.get(server)
        rows.append(
            row(
                Rank(*rank) if rank else None,
                server,
                workload,
                _count_cell([d.per_request for d in found], reproduced),
                per,
                measured,
                per_value,
                cpu_per_million,
                verdict,
                cpu_us,
                latency,
                center / cpu_us if cpu_us else None,
                point.repetitions if point else None,
            )
        )
    if rows and not any(r[5].value is not None for r in rows):
        notes.append(
            "Measured instructions: none. This host's perf counts no hardware instructions (a VM or CI runner "
            "without counters), so the simulated count stands in; on a host whose perf counts them (a Raspberry "
            "Pi, a bare-metal PC) the same workload's measured instructions per operation are shown beside it."
        )
    for c in mine:
        if c["kind"] == KIND and c["status"] == "not_supported":
            notes.append(f"{c['server']}: no count. {c['reason']}")
    # a workload a counted server cannot serve (its timing said so first, and nothing was counted)
    unserved = {
        (c["server"], c["variant"], c["reason"])
        for c in mine
        if c["kind"] == TIMING_KIND and c["status"] == "not_supported"
    }
    notes += [
        f"{server}, {workload}: no count, not supported: {first_line(why)}"
        for server, workload, why in sorted(unserved)
    ]
    notes += failure_notes(mine, (KIND, TIMING_KIND), "no count")
    columns = [
        Column("rank"),
        Column("server", kind="text"),
        Column("workload", kind="text"),
        Column("instructions per operation", "instructions: mean of the differences [lowest, highest]"),
        Column("operation", kind="text"),
        Column("measured per operation", "instructions: perf's hardware counter, without valgrind", digits=0),
        Column("per value", "instructions, simulated"),
        Column("server CPU per million values", "s, without valgrind", digits=2),
        Column("differences agree", kind="text"),
        Column("server CPU per operation", "µs, without valgrind", digits=1),
        Column("latency p50", "µs, closed loop, 1 request in flight, without valgrind", digits=0),
        Column("instructions per µs of CPU", "instructions / µs: the host's rate on this path", digits=0),
        Column("timed repetitions"),
    ]
    tools = sorted({str(c["result"].get("valgrind")) for c in mine if c["kind"] == KIND and c.get("result")} - {"None"})
    cache = about.get("cache")
    caches = [_cache_table(mine, k, tolerance) for k in (KIND, CLIENT_KIND)]
    simulated = (
        f"with its cache simulation ({counts_tool.described(cache)}): beside the instructions, the "
        "misses of the first-level (L1: instruction fetches, data reads and writes) and the last-level (LL) "
        f"caches per operation and the estimated cycles they imply (a hit in L1 {L1_CYCLES} cycle, in LL "
        f"{LL_CYCLES}, in RAM {RAM_CYCLES}: the weights of Rust's iai). A fixed geometry, not the host's, so "
        "the figures are the same on any machine; an estimate of the order, not of a real CPU"
        if cache and any(caches)
        else "without cache simulation: instructions only, no estimated cycles or cache misses"
    )
    return Section(
        "Instructions per request (simulated)",
        paragraphs=[
            f"Simulated by {', '.join(tools) or 'valgrind'} (its callgrind tool, {simulated}).",
            "Each server ran under valgrind's callgrind, which counts every instruction it executes: the same "
            "count on every run and on any machine of the same architecture, however noisy the host. One server "
            "process served the workload's two loads in turn, each for the same time and followed by a dump of "
            "the counters: a low open-loop rate and a closed loop of one request in flight (a subscription: two "
            "numbers of monitored items). A count is the difference of the two loads' instructions over the "
            "difference of their operations, so the start-up (dumped apart), each load's session and what the "
            "server does by the clock (its timers) cancel. Each pair of loads is repeated: 'differences agree' "
            "is how far apart the pairs lie. The server's update loop is off except for the subscription, whose "
            "count holds a notification's sampling, its share of a publish and its encoding.",
            "Beside each count, the same workload without valgrind, on a warm server: the server CPU per "
            "operation and the closed loop's median latency. Instructions per µs of server CPU is the rate "
            "the host executed that path at: a path that runs at a low rate waits on memory or the kernel "
            "(valgrind counts user-space instructions only; the kernel's share is in the CPU time).",
        ],
        tables=[
            t
            for t in (
                Table(columns, rows, _rank_notes(ranks)) if rows else None,
                _client_table(mine, tolerance),
                *caches,
            )
            if t
        ],
        notes=notes,
    )


# A count's margin: compare's threshold for more or fewer instructions (results/compare.py), far
# beyond how far a native server's repeated differences lie apart (0.1 %); a count of a runtime
# that schedules by the clock spreads more, and its interval [lowest, highest] carries that spread.
COUNT_NOISE = ranking.Noise(COUNT_CHANGE, "a count that moved more than this is more or fewer instructions")


def _ranks(counted: dict) -> dict[str, ranking.Ranking]:
    """Per workload, the servers by instructions per operation (fewer is better) by the rank rule:
    a pair ordered where the quotient of their differences' ranges lies beyond COUNT_NOISE."""
    ranges = {key: [d.per_request for d in found] for key, (found, _) in counted.items()}
    found = {}
    for workload in dict.fromkeys(workload for _, workload in ranges):
        servers = [server for server, of in ranges if of == workload]

        def ratio(a: str, b: str, workload: str = workload) -> stats.Estimate:
            mine, theirs = ranges[a, workload], ranges[b, workload]
            center = statistics.fmean(mine) / statistics.fmean(theirs)
            return stats.Estimate(center, min(mine) / max(theirs), max(mine) / min(theirs), 2, None, (), "counts")

        found[workload] = ranking.rank(servers, ratio, COUNT_NOISE, higher_is_better=False)
    return found


def _rank_notes(ranks: dict[str, ranking.Ranking]) -> list[str]:
    return [f"Rank: {ranking.RULE}"] + [f"{workload}: {r.sentence()}" for workload, r in ranks.items()]


def _count_cell(values: list[float], reproduced: bool) -> Cell:
    """A count per operation: the mean of its differences [lowest, highest], marked unless reproduced."""
    return Cell(
        Interval(statistics.fmean(values), min(values), max(values), tuple(values)),
        None if reproduced else Status.MARKED,
    )


def _agreement(apart: float | None, reproduced: bool) -> Cell:
    """How far a count's repeated differences lie apart, marked where they are no reproduced count."""
    if apart is None:
        return Cell("one difference", Status.MARKED)
    return Cell(f"within {apart:.3%}", Status.PASS) if reproduced else Cell(f"{apart:.2%} apart", Status.MARKED)


def _client_table(mine: list[dict], tolerance: float) -> Table | None:
    """The load generator's counts (runner.client_loads): per server it loaded and workload, its
    own instructions per operation, counted as the server's are but each load a process of its own."""
    rows = []
    clients = {(c["server"], c["variant"]): c["client"] for c in mine if c["kind"] == CLIENT_KIND}
    for (server, workload), (found, per) in counts.counted(mine, CLIENT_KIND).items():
        apart = spread(found)
        reproduced = apart is not None and apart <= tolerance
        rows.append(
            row(
                clients[server, workload],
                server,
                workload,
                _count_cell([d.per_request for d in found], reproduced),
                per,
                statistics.fmean(d.per_value for d in found),
                _agreement(apart, reproduced),
            )
        )
    if not rows:
        return None
    columns = [
        Column("load generator", kind="text"),
        Column("against", kind="text"),
        Column("workload", kind="text"),
        Column("instructions per operation", "instructions: mean of the differences [lowest, highest]"),
        Column("operation", kind="text"),
        Column("per value", "instructions, simulated"),
        Column("differences agree", kind="text"),
    ]
    about = (
        "The load generator, counted as the servers are: each load a client process of its own under callgrind, "
        "counted whole (its start-up and session are in both loads of a pair and cancel); its session creation "
        "is not counted (each session is a process of its own, whose start-up would be in the count)"
    )
    return Table(columns, rows, notes=[about])


def _cache_table(mine: list[dict], kind: str, tolerance: float) -> Table | None:
    """The simulated cache of the counts of `kind` (the servers' or the load generator's) that
    were taken with it: per counted process and workload its misses and estimated cycles per
    operation, each the mean of the differences, and how far the cycles' differences lie apart."""
    rows = []
    for (server, workload), (found, per) in counts.counted(mine, kind).items():
        simulated = [d for d in found if d.cache is not None]
        if not simulated:
            continue
        cycles = [d.estimated_cycles or 0.0 for d in simulated]
        apart = spread_of(cycles)
        reproduced = apart is not None and apart <= tolerance
        rows.append(
            row(
                server,
                workload,
                per,
                statistics.fmean(d.l1_misses or 0.0 for d in simulated),
                statistics.fmean(d.ll_misses or 0.0 for d in simulated),
                _count_cell(cycles, reproduced),
                statistics.fmean(cycles) / statistics.fmean(d.per_request for d in simulated),
                _agreement(apart, reproduced),
            )
        )
    if not rows:
        return None
    whose = "server" if kind == KIND else "load generator against"
    columns = [
        Column(whose, kind="text"),
        Column("workload", kind="text"),
        Column("operation", kind="text"),
        Column("L1 misses per operation", "misses, simulated: I1 reads, D1 reads and writes", digits=2),
        Column("LL misses per operation", "misses, simulated: last-level cache, reads and writes", digits=2),
        Column("estimated cycles per operation", "cycles, simulated: mean of the differences [lowest, highest]"),
        Column("estimated cycles per instruction", "cycles / instruction, simulated", digits=2),
        Column("estimated cycles agree", kind="text"),
    ]
    what = "the servers'" if kind == KIND else "the load generator's"
    about = (
        f"The simulated cache of {what} counts: the same differences as above. A miss count is a difference "
        "too: where a warm process misses almost never, it can come out a little below zero."
    )
    return Table(columns, rows, notes=[about])
