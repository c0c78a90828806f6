"""The resilience section (issue 18): the recovery table, one row per incident, workload and
client-server pair (robot/library.py's Client Should Recover stores one "resilience" cell per
repetition, its recovery figures from resilience/recovery.py). With repetitions, each time is
the median and its range."""

from __future__ import annotations

import statistics

from uabench.document.model import Cell, Column, Section, Status, Table
from uabench.resilience.cells import ResilienceCell

SHOWN = {"resumed": Status.PASS, "resumed unnoticed": Status.MARKED}


def resilience_cells(cells: list[dict]) -> list[dict]:
    return [c for c in cells if c["kind"] == ResilienceCell.RECOVERY and (c.get("result") or {}).get("recovery")]


def _seconds(values: list[float | None]) -> Cell:
    """The median of the repetitions (and their range), or why there is none."""
    found = [v for v in values if v is not None]
    if not found:
        return Cell(None, detail="never")
    text = f"{statistics.median(found):.2f}"
    if len(found) > 1:
        text += f" [{min(found):.2f}, {max(found):.2f}]"
    if len(found) < len(values):
        text += f" ({len(values) - len(found)} of {len(values)} never)"
    return Cell(text)


def _one(values: list) -> str | None:
    distinct = sorted({str(v) for v in values if v is not None})
    return ", ".join(distinct) if distinct else None


def resilience_section(cells: list[dict]) -> Section | None:
    mine = resilience_cells(cells)
    if not mine:
        return None
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for c in mine:
        groups.setdefault((c["variant"], c["client"], c["server"]), []).append(c)
    rows = []
    declared: dict[str, str] = {}
    for (variant, client, server), group in sorted(groups.items()):
        figures = [c["result"]["recovery"] for c in group]
        verdicts = [f["verdict"] for f in figures]
        worst = next((v for v in verdicts if v not in SHOWN), verdicts[0])
        # the reason without the outcome it begins with (shown beside it); an SDK's declared one
        # (the same in every row of its client) once, as a note
        reasons = "; ".join(sorted({c["reason"].removeprefix(f"{worst}: ") for c in group if c.get("reason")}))
        if all(c["status"] == "not_supported" for c in group):
            declared.setdefault(client, reasons)
            reasons = f"not supported by {client}'s SDK (note below)"
        known = _one([c["result"].get("known") for c in group if c["status"] == "fail"])
        if known:
            # whose behaviour: the server's (sdk.toml [resilience]; all a store before
            # [client_resilience] holds) or the client's ([client_resilience])
            whose = _one([c["result"].get("known_on") for c in group if c["status"] == "fail"]) or f"{server} (server)"
            declared.setdefault(whose, f"known: {known}")
            reasons = f"{reasons}; known, on {whose.partition(' (')[0]}'s behaviour (note below)"
        rows.append(
            [
                Cell(variant.replace("/", " during ")),
                Cell(f"{client} → {server}"),
                Cell(worst, SHOWN.get(worst, Status.FAIL if worst != "inconclusive" else None), reasons or None),
                _seconds([f["detected_s"] for f in figures]),
                _seconds([f["reconnected_s"] for f in figures]),
                _seconds([f["resumed_s"] for f in figures]),
                _seconds([f["outage_s"] for f in figures]),
                Cell(statistics.median(f["failed"] for f in figures)),
                Cell(_one([f["subscriptions"] for f in figures])),
                Cell(_one([f["tick_gaps"] for f in figures])),
                Cell(_one([f["duplicates"] for f in figures])),
            ]
        )
    columns = [
        Column("incident", kind="text"),
        Column("client → server", kind="text"),
        Column("outcome", kind="text"),
        Column("detected s", "s after the strike", kind="text"),
        Column("reconnected s", "s after the restoration", kind="text"),
        Column("resumed s", "s after the restoration", kind="text"),
        Column("outage s", "strike to resumption", kind="text"),
        Column("failed operations", "operations"),
        Column("subscriptions", kind="text"),
        Column("tick gaps", kind="text"),
        Column("duplicates", kind="text"),
    ]
    setups = sorted({(c["result"]["incident"]["kind"], c["result"]["incident"]["down_s"]) for c in mine})
    return Section(
        "Resilience: recovery of clients",
        paragraphs=[
            "Each client ran its workload with reconnect on (adapters/SPEC.md §3, Connection loss: the SDK's own "
            "automatic reconnection, never the adapter's) against a server of its own; once the load flowed, the "
            "harness struck once. Restart: the server was SIGKILLed and started again on the same port. Cut: every "
            "packet between the client's and the server's network namespaces was dropped (iptables DROP), then "
            "let through again. Outage lengths: "
            + ", ".join(f"{kind} {down:g} s" for kind, down in setups)
            + ". Detected: the client's first `lost` event after the strike. Reconnected: its `restored` event, "
            "after the restoration (the server ready again, or the rules removed). Resumed: the first 20 ms window "
            "after the restoration in which operations succeeded again (subscribe: good notifications arrived), "
            "what an application sees. Resumed unnoticed: the load came back without the client recording a loss "
            "(a cut shorter than its timeouts). A restart reads without verification (the new server's ticks begin "
            "again); a cut verifies every value. Tick gaps: notifications the subscription skipped; duplicates: "
            "notifications delivered twice. Times of repeated runs: median [min, max]."
        ],
        tables=[Table(columns, rows, notes=[f"{sdk}: {why}" for sdk, why in sorted(declared.items())])],
    )
