"""The profile section (issue 20): per server and workload a flame graph drawn from the folded
stacks the profile cell keeps (inferno-flamegraph, at report time), the attribution table
(the share of samples per category of profile/rules.toml), and the functions by self time.
Built from the "profile" cells robot/library.py records."""

from __future__ import annotations

from uabench.document.model import Cell, Column, Image, Section, Status, Table, row, slug
from uabench.profile import folded, profilers
from uabench.profile.cells import ProfileCell

KIND = ProfileCell.PROFILE


def _newest(cells: list[dict]) -> dict[tuple[str, str], dict]:
    found: dict[tuple[str, str], dict] = {}
    for c in cells:
        if c["kind"] == KIND and c["status"] == "pass" and c.get("result"):
            found[c["server"], c["variant"]] = c
    return dict(sorted(found.items()))


def _attribution(newest: dict[tuple[str, str], dict]) -> Table:
    names = [category.name for category in folded.rules()] + [folded.OTHER]
    rows = []
    for (server, workload), c in newest.items():
        r = c["result"]
        shares = r.get("attribution") or {}
        ratio = r.get("throughput_ratio")
        cost = None if ratio is None else 1 - ratio
        rows.append(
            row(
                server,
                workload,
                *(shares.get(name) for name in names),
                r["samples"],
                Cell(cost, Status.MARKED if cost is not None and cost > 0.1 else None),
            )
        )
    columns = [
        Column("server", kind="text"),
        Column("workload", kind="text"),
        *(Column(name, "share of the server's samples", digits=0, kind="percent") for name in names),
        Column("samples"),
        Column("profiler's cost", "1 − values/s profiled ÷ values/s not profiled (median of the pairs)", 0, "percent"),
    ]
    return Table(columns, rows)


def _top(server: str, workload: str, result: dict) -> Table:
    return Table(
        [Column("function (self time)", kind="text"), Column("samples"), Column("share", digits=1, kind="percent")],
        [row(f["name"], f["samples"], f["share"]) for f in result.get("top") or []],
        collapsed=f"{server}, {workload}: functions by self time",
    )


# What a server's profiles say beyond its timings, one sentence each (issue 45): where most of its
# CPU goes, how much no rule claimed, and what SignAndEncrypt moves. A share below NOTABLE is not
# named; a category's share moving less than SHIFT between the plain and the secure profile is noise
# of 3,000-odd samples rather than a finding.
NOTABLE = 0.10
SHIFT = 0.05


def _pct(share: float) -> str:
    return f"{share * 100:.0f} %"  # as the report's percent columns print a share


def _reading(server: str, profiles: dict[str, dict]) -> str:
    """One sentence on `server` from its profiles ({workload: result}): the plain read first."""
    plain_name = next((w for w in profiles if "," not in w), next(iter(profiles)))
    shares = profiles[plain_name].get("attribution") or {}
    ranked = sorted(((v, k) for k, v in shares.items() if k != folded.OTHER and v >= NOTABLE), reverse=True)
    parts = [
        f"{server}, {plain_name}: "
        + (", then ".join(f"{name} {_pct(v)}" for v, name in ranked[:2]) or "no category reaches 10 %")
        + " of its samples"
    ]
    other = shares.get(folded.OTHER) or 0.0
    if other >= NOTABLE:
        parts.append(f"{_pct(other)} matched no rule")
    for workload, result in profiles.items():
        if workload == plain_name:
            continue
        secure = result.get("attribution") or {}
        moved = sorted(
            ((secure.get(k, 0.0) - shares.get(k, 0.0), k) for k in set(secure) | set(shares) if k != folded.OTHER),
            key=lambda m: -abs(m[0]),
        )
        shifts = [f"{k} {'+' if d > 0 else '−'}{abs(d) * 100:.0f} points" for d, k in moved if abs(d) >= SHIFT]
        parts.append(
            f"with {workload.split(', ', 1)[-1]}, cryptography takes {_pct(secure.get('cryptography', 0.0))}"
            + (f" ({'; '.join(shifts)})" if shifts else " and no other share moves by 5 points")
        )
    return "; ".join(parts) + "."


def _readings(newest: dict[tuple[str, str], dict]) -> list[str]:
    by_server: dict[str, dict[str, dict]] = {}
    for (server, workload), c in newest.items():
        by_server.setdefault(server, {})[workload] = c["result"]
    return [_reading(server, profiles) for server, profiles in by_server.items()]


def profile_section(cells: list[dict]) -> Section | None:
    newest = _newest(cells)
    failed = sorted(
        {(c["server"], c["variant"], c["reason"]) for c in cells if c["kind"] == KIND and c["status"] == "fail"}
    )
    if not newest and not failed:
        return None
    categories = folded.rules()
    images, notes = [], [f"{server}, {workload}: no profile: {reason}" for server, workload, reason in failed]
    for (server, workload), c in newest.items():
        title = f"{server}, {workload}: {c['result']['samples']} samples at {c['result']['frequency_hz']} Hz"
        try:
            svg = profilers.flamegraph(folded.parse(c["result"]["folded"]), title)
        except (profilers.ProfileError, OSError) as error:  # the renderer missing here: the table stays
            notes.append(f"{server}, {workload}: no flame graph drawn: {error}")
            continue
        images.append(Image(title, f"flamegraphs/{slug(f'{server} {workload}')}.svg", svg))
    tools = sorted({f"{c['result']['profiler']} at {c['result']['frequency_hz']} Hz" for c in newest.values()})
    return Section(
        "Where the time goes",
        paragraphs=[
            "A sampling profile of each server under the load named, warm: "
            + ", ".join(tools)
            + " (perf with the software clock cpu-clock, which needs no hardware counters, for native code and "
            "for the JIT runtimes through their perf maps; py-spy for CPython). Each sample is put in one "
            "category by its stack, from the running frame towards the root: the first frame a category's "
            "pattern matches decides (harness/uabench/profile/rules.toml lists them); a frame none matches "
            "(a copy, an allocation) passes the sample to its caller. Categories: "
            + "; ".join(f"{c.name}: {c.what}" for c in categories)
            + "; other: no frame matched.",
            "The profiler's cost is measured, not assumed: each profiled phase is paired with one without the "
            "profiler on the same warm server, and the cost is 1 − the ratio of their throughputs (a cost over "
            "10 % is marked: the profile then shows a slowed server).",
        ],
        tables=[_attribution(newest)] + [_top(s, w, c["result"]) for (s, w), c in newest.items()],
        images=images,
        notes=_readings(newest) + notes,
    )
