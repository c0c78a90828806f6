"""The conformance section (issue 17): the matrix of checks × servers grouped by Part 7's
conformance units, the capacity gates with each server's headroom, and per server the count the
summary shows beside its ranking. Built from the conformance cells' results (robot/library.py
records one per check and server)."""

from __future__ import annotations

from dataclasses import dataclass

from uabench.conformance.cells import ConformanceCell
from uabench.document.model import Cell, Column, Section, Status, Table, Tally, row

GATE_PREFIX = "gate_"
# how each outcome shows in the matrix
SHOWN = {
    "pass": ("pass", Status.PASS),
    "deviation": ("deviation", Status.FAIL),
    "error": ("probe error", Status.FAIL),
    "not_supported": ("not supported", Status.NOT_SUPPORTED),
    "inconclusive": ("inconclusive", Status.MARKED),
}


@dataclass(frozen=True)
class Count:
    """One server's checks (capacity gates included): passed of those that gave a verdict."""

    passed: int
    deviations: int
    known: int  # of the deviations, those its sdk.toml declares
    not_supported: int
    inconclusive: int
    total: int

    def cell(self) -> Cell:
        judged = self.total - self.not_supported - self.inconclusive
        parts = [f"{self.deviations} deviation{'s' if self.deviations != 1 else ''}"] if self.deviations else []
        parts += [f"{self.not_supported} not supported"] if self.not_supported else []
        parts += [f"{self.inconclusive} inconclusive"] if self.inconclusive else []
        status = Status.PASS if not self.deviations else Status.FAIL
        return Cell(Tally(self.passed, judged), status, ", ".join(parts) or None)


def conformance_cells(cells: list[dict]) -> list[dict]:
    return [c for c in cells if c["kind"] == ConformanceCell.CHECK and c.get("result")]


def counts(cells: list[dict]) -> dict[str, Count]:
    """Per server, its checks' outcomes (the newest cell of each check)."""
    newest: dict[tuple[str, str], dict] = {}
    for c in conformance_cells(cells):
        newest[c["server"], c["variant"]] = c
    found: dict[str, Count] = {}
    for server in sorted({server for server, _ in newest}):
        outcomes = [c["result"] for (s, _), c in newest.items() if s == server]
        deviations = [r for r in outcomes if r["outcome"] in ("deviation", "error")]
        found[server] = Count(
            passed=sum(r["outcome"] == "pass" for r in outcomes),
            deviations=len(deviations),
            known=sum(bool(r.get("known")) for r in deviations),
            not_supported=sum(r["outcome"] == "not_supported" for r in outcomes),
            inconclusive=sum(r["outcome"] == "inconclusive" for r in outcomes),
            total=len(outcomes),
        )
    return found


def _matrix(cells: list[dict], servers: list[str]) -> Table:
    by_check: dict[str, dict[str, dict]] = {}
    about: dict[str, dict] = {}
    for c in cells:
        if c["variant"].startswith(GATE_PREFIX):
            continue
        by_check.setdefault(c["variant"], {})[c["server"]] = c["result"]
        about[c["variant"]] = c["result"]
    rows = []
    for check, results in by_check.items():
        one = about[check]
        row_cells = [Cell(one["unit"]), Cell(one["title"]), Cell(one["cite"]), Cell(one["expected"])]
        for server in servers:
            result = results.get(server)
            if result is None:
                row_cells.append(Cell(None))
                continue
            text, status = SHOWN.get(result["outcome"], (result["outcome"], Status.MARKED))
            detail = None if result["outcome"] == "pass" else result["got"]
            if result.get("known"):
                detail = f"{detail}; known: {result['known']}"
            row_cells.append(Cell(text, status, detail))
        rows.append(row_cells)
    columns = [
        Column("conformance unit", kind="text"),
        Column("check", kind="text"),
        Column("specification", kind="text"),
        Column("expected", kind="text"),
        *(Column(server, kind="text") for server in servers),
    ]
    return Table(columns, rows)


def _gates(cells: list[dict], servers: list[str]) -> Table | None:
    gates = [c for c in cells if c["variant"].startswith(GATE_PREFIX)]
    if not gates:
        return None
    rows = []
    for c in sorted(gates, key=lambda c: (c["variant"], servers.index(c["server"]))):
        r, observed = c["result"], c["result"].get("observed") or {}
        text, status = SHOWN.get(r["outcome"], (r["outcome"], Status.MARKED))
        stopped = observed.get("refused") is None and observed.get("reached") == observed.get("cap")
        headroom = r.get("headroom")
        shown = None if headroom is None else f"{'≥ ' if stopped else ''}{headroom:.1f}×"
        rows.append(
            row(
                r["unit"],
                c["server"],
                Cell(text, status),
                observed.get("reached"),
                shown,
                observed.get("refused") or ("none (the probe's cap)" if stopped else None),
            )
        )
    columns = [
        Column("conformance unit", kind="text"),
        Column("server", kind="text"),
        Column("verdict", kind="text"),
        Column("reached", "sessions, subscriptions or monitored items"),
        Column("headroom", kind="text"),
        Column("refused with", kind="text"),
    ]
    return Table(columns, rows)


def conformance_section(cells: list[dict]) -> Section | None:
    mine = conformance_cells(cells)
    if not mine:
        return None
    servers = sorted({c["server"] for c in mine})
    tally = counts(mine)
    summary = Table(
        [Column("server", kind="text"), Column("checks passed", kind="text"), Column("known deviations")],
        [row(server, tally[server].cell(), tally[server].known) for server in servers],
        notes=[
            "Passed of the checks that gave a verdict; not supported (a server that declares no operation limit) "
            "and inconclusive (a revised timeout past the probe's bound) are counted apart. A known deviation is "
            "one the SDK's sdk.toml declares with the rule it breaks: still a deviation, shown so."
        ],
    )
    tables = [summary, _matrix(mine, servers)]
    gates = _gates(mine, servers)
    if gates:
        tables.append(gates)
    probe = (mine[0].get("client_config") or {}).get("probe", "asyncua")
    return Section(
        "Conformance",
        paragraphs=[
            f"Each server's answers to well-encoded but unusual requests, sent by the conformance probe ({probe}'s "
            "low-level client: every request built and sent as it is, every service result and per-operation "
            "status kept), judged against the clause of the specification each check cites and grouped under "
            "the conformance units of OPC 10000-7, as the OPC Foundation's Compliance Test Tool groups its tests. "
            "A deviation does not stop the performance suites: it is shown here and beside the server in the "
            "summary.",
            "The capacity gates are the Standard 2017 UA Server Profile's minimums (50 parallel sessions, 5 "
            "subscriptions per session, 500 monitored items per subscription); the headroom is how far above "
            "the minimum the server went before refusing, or (≥) where the probe stopped at its cap.",
        ],
        tables=tables,
    )
