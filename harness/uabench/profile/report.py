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
        notes=notes,
    )
