"""The "Steady state" section: how long (and how much load) each server took to become steady
before it was measured, which never did, and how much else the host did meanwhile (steal, IRQ,
other processes' CPU) with the repetitions that were disturbed and measured again."""

from __future__ import annotations

from dataclasses import dataclass

from uabench.document.model import Cell, Column, Figure, Section, Series, Status, Table, row
from uabench.document.parts import first_line
from uabench.results import steady
from uabench.results.kinds import CellKind
from uabench.results.steady import SteadyVerdict

# What a warm-up used when its run did not record its rule (the engine's defaults).
DEFAULT_RULE = {"tolerance": 0.02, "run": 3}


@dataclass(frozen=True)
class WarmUp:
    suite: str
    server: str
    client: str
    load: str
    steady: bool
    seconds: float | None  # to steady state (None: never steady)
    warmup_s: float | None
    chunks: int
    values_before: int | None  # the load it took: values moved before the steady run
    steady_values_per_s: float | None  # mean throughput of the steady run
    curve: tuple[tuple[float, float], ...] = ()  # (chunk start s, chunk values/s)


def rule_of(run: dict) -> dict:
    return ((run["provenance"].get("schedule") or {}).get("steady_state")) or {}


def _from_verdict(suite: str, cell: dict) -> WarmUp:
    """A steady-state cell: the engine's own verdict over its warm-up chunks."""
    verdict = SteadyVerdict.from_result(cell["result"] or {})
    throughputs, start = verdict.values_per_s, verdict.steady_chunk
    run = int((verdict.rule or DEFAULT_RULE).get("run", DEFAULT_RULE["run"]))
    held = throughputs[start : start + run] if start is not None else ()
    return WarmUp(
        suite,
        cell["server"],
        cell["client"],
        cell["variant"],
        verdict.steady,
        verdict.seconds_to_steady if verdict.steady else None,
        verdict.warmup_s,
        verdict.chunks,
        verdict.values_before_steady,
        sum(held) / len(held) if held else None,
        tuple(zip(verdict.chunk_starts_s, throughputs, strict=False)),
    )


def _from_chunks(suite: str, chunks: list[dict], rule: dict) -> WarmUp:
    """Warm-up chunk cells without a verdict: the steady run found again with the run's rule."""
    chunks = sorted(chunks, key=lambda c: c["repetition"])
    results = [c["result"] or {} for c in chunks if c["status"] == "pass" and c.get("result")]
    throughputs = [r["throughput"]["values_per_s"] for r in results]
    run = rule.get("run", DEFAULT_RULE["run"])
    start = steady.steady_start(throughputs, rule.get("tolerance", DEFAULT_RULE["tolerance"]), run)
    begun = [r.get("start_ns") for r in results]
    ended = results[-1].get("end_ns") if results else None

    def since_first(ns: int | None) -> float | None:
        return (ns - begun[0]) / 1e9 if ns is not None and begun and begun[0] is not None else None

    values = [r.get("values", 0) for r in results]
    held = throughputs[start : start + run] if start is not None else []
    return WarmUp(
        suite,
        chunks[0]["server"],
        chunks[0]["client"],
        chunks[0]["variant"],
        start is not None,
        since_first(begun[start]) if start is not None else None,
        since_first(ended),
        len(chunks),
        sum(values[:start] if start is not None else values),
        sum(held) / len(held) if held else None,
        tuple((s, v) for b, v in zip(begun, throughputs, strict=True) if (s := since_first(b)) is not None),
    )


def warm_ups(run: dict, cells: list[dict]) -> list[WarmUp]:
    verdicts = [c for c in cells if c["kind"] == CellKind.STEADY_STATE]
    judged = {(c["server"], c["client"], c["variant"]) for c in verdicts}
    found = [_from_verdict(run["suite"], c) for c in verdicts]
    groups: dict[tuple, list[dict]] = {}
    for c in cells:
        if c["kind"] == CellKind.WARMUP and (c["server"], c["client"], c["variant"]) not in judged:
            groups.setdefault((c["server"], c["client"], c["variant"]), []).append(c)
    found += [_from_chunks(run["suite"], group, rule_of(run)) for group in groups.values()]
    return found


STEADY_COLUMNS = [
    Column("server", kind="text"),
    Column("suite", kind="text"),
    Column("load", kind="text"),
    Column("load generator", kind="text"),
    Column("steady", kind="text"),
    Column("time to steady state s", "s", 1),
    Column("warm-up s", "s", 1),
    Column("chunks"),
    Column("values before steady", "values"),
    Column("steady values/s", "values/s"),
]


def _rule_text(runs: list[dict]) -> str:
    ruled = [(run["suite"], rule_of(run)) for run in runs if rule_of(run)]
    # the bound is a plan's choice per suite; the rest of the rule is the harness's
    rules = {str({k: v for k, v in rule.items() if k != "bound_s"}) for _, rule in ruled}
    if len(rules) != 1:
        return "Each server is warmed up until successive chunks of its throughput agree (the rule is kept per run)."
    rule = ruled[0][1]
    bounds = ", ".join(f"{suite} {each.get('bound_s', 0):g} s" for suite, each in ruled)
    shift = ""
    if "trend_shift" in rule:
        shift = f" and its later half within ±{rule['trend_shift']:.0%} of its earlier half"
    return (
        f"Each server is loaded in chunks of {rule.get('chunk_s', 0):g} s until it is steady: a run of chunks up to "
        "the last one, at least as long as the climb before it, that agrees within "
        f"±{rule.get('tolerance', 0):.0%} (at least {rule.get('run')} chunks), or that shows no trend (over the last "
        f"{rule.get('trend_chunks')} or half of all chunks: |Kendall tau| below {rule.get('trend_tau')}, 10th to 90th "
        f"percentile within {rule.get('trend_spread', 0):.0%} of the median{shift}); at most {bounds}. Only then is "
        "it measured. The time to steady state runs from the first chunk to the first chunk of the steady run; the "
        "load is the values moved before it. A server that never became steady is measured anyway and marked, and "
        "measured repetitions that still trend are marked noisy."
    )


def steady_table(found: list[WarmUp]) -> Table:
    rows = [
        row(
            w.server,
            w.suite,
            w.load,
            w.client,
            Cell("yes") if w.steady else Cell("never", Status.MARKED),
            w.seconds,
            w.warmup_s,
            w.chunks,
            w.values_before,
            w.steady_values_per_s,
        )
        for w in sorted(found, key=lambda w: (w.server, w.suite, w.load))
    ]
    never = [f"{w.server} ({w.suite}, {w.load})" for w in found if not w.steady]
    notes = [f"Never steady within the bound: {', '.join(never)}."] if never else []
    return Table(STEADY_COLUMNS, rows, notes)


# --- host interference ---------------------------------------------------------------------------

LISTED = 20  # disturbed repetitions named one by one; cells.csv has every one
HOST_FIGURES = (("steal_percent", "steal"), ("irq_percent", "IRQ"), ("other_percent", "other processes"))
HOST_COLUMNS = [
    Column("run", kind="text"),
    Column("cells"),
    *(Column(f"{label} % (mean)", "% of the machine", 1) for _, label in HOST_FIGURES),
    *(Column(f"{label} % (max)", "% of the machine", 1) for _, label in HOST_FIGURES),
    Column("disturbed, measured again"),
]


def host_of(cell: dict) -> dict | None:
    return (cell.get("result") or {}).get("host") or cell.get("host")


def host_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    rows, notes = [], []
    for run in runs:
        cells = cells_of[run["id"]]
        windows = [h for c in cells if (h := host_of(c))]
        disturbed = [c for c in cells if c["status"] == "disturbed"]
        if not windows and not disturbed:
            continue

        def figure(key: str, pick, windows=windows):
            values = [w[key] for w in windows if w.get(key) is not None]
            return pick(values) if values else None

        rows.append(
            row(
                f"{run['id']}: {run['suite']}",
                len(windows),
                *(figure(key, lambda v: sum(v) / len(v)) for key, _ in HOST_FIGURES),
                *(figure(key, max) for key, _ in HOST_FIGURES),
                len(disturbed),
            )
        )
        notes += [
            f"run {run['id']}, server {c['server']} (load generator {c['client']}), {c['variant']}, "
            f"repetition {c['repetition']}: "
            f"{first_line(c['reason'])}"
            for c in disturbed
        ]
    if not rows:
        return None
    if len(notes) > LISTED:
        notes = [
            *notes[:LISTED],
            f"… and {len(notes) - LISTED} more disturbed repetitions (status disturbed in cells.csv).",
        ]
    threshold = next(
        (
            t
            for run in runs
            if (t := (run["provenance"].get("schedule") or {}).get("host_threshold_percent")) is not None
        ),
        None,
    )
    intro = (
        "What else the machine did while cells were measured, from /proc/stat, in % of the whole machine: "
        "steal time (a hypervisor running other guests), interrupt time and other processes' CPU. "
        + (
            f"A repetition with steal or other processes' CPU above {threshold:g} % was disturbed: it is kept in "
            "the store as such (listed below) and measured again."
            if threshold is not None
            else ""
        )
    )
    return Section("Host interference", paragraphs=[intro.strip()], tables=[Table(HOST_COLUMNS, rows)], notes=notes)


def timeline_curve(result: dict) -> list[tuple[float, float]]:
    """values/s per timeline window, by the window's start in s since the start of warm-up."""
    timeline = result.get("timeline") or {}
    window_s = (timeline.get("window_ms") or 0) / 1e3
    if not window_s:
        return []
    return [(k * window_s, v / window_s) for k, v in enumerate(timeline.get("values") or [])]


def first_repetitions(runs: list[dict], cells_of: dict[int, list[dict]]) -> Figure | None:
    """The first measured repetition of every server in each ranking, window by window from the
    start of its warm-up: whether the cell was still warming up when its measurement began."""
    series = []
    for run in runs:
        ranking = (run["provenance"].get("plan") or {}).get("ranking")
        first: dict[str, dict] = {}
        for c in cells_of[run["id"]]:
            if (
                c["kind"] == CellKind.THROUGHPUT
                and c["variant"] == ranking
                and c["status"] == "pass"
                and c.get("result")
            ):
                first.setdefault(c["server"], c)
        for server, c in sorted(first.items()):
            curve = timeline_curve(c["result"])
            if curve:
                series.append(Series(f"{server} ({run['suite']}, {ranking})", server, curve, style=run["suite"]))
    if not series:
        return None
    return Figure(
        "First measured repetition per server: values/s per window from the start of its warm-up",
        "line",
        "s since the start of warm-up",
        "values/s",
        series,
        logy=True,
    )


def steady_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    found = [w for run in runs for w in warm_ups(run, cells_of[run["id"]])]
    host = host_section(runs, cells_of)
    if not found and not host:
        return None
    curves = [
        Series(f"{w.server} ({w.suite}, {w.load})", w.server, list(w.curve), style=w.suite) for w in found if w.curve
    ]
    plot = Figure(
        "Throughput during warm-up", "line", "s since the first chunk", "values/s per chunk", curves, logy=True
    )
    timeline = first_repetitions(runs, cells_of) if found else None
    return Section(
        "Steady state",
        paragraphs=[_rule_text([run for run in runs if run["suite"] in {w.suite for w in found}])] if found else [],
        tables=[steady_table(found)] if found else [],
        figures=[f for f in (plot if curves else None, timeline) if f],
        subsections=[host] if host else [],
    )
