"""The sampling-overhead section: throughput of the reference pair with resource sampling on
over off, paired per interleaved block (results.figures.sampling_overhead), once per run."""

from __future__ import annotations

from uabench.document.model import Column, Section, Table, row
from uabench.report import uncertainty
from uabench.results import figures

COLUMNS = [
    Column("client → server", kind="text"),
    Column("values/s, sampling on (median)", "values/s"),
    Column("values/s, sampling off (median)", "values/s"),
    Column("on / off [95% CI]", "ratio", 4),
    Column("samplers' CPU % of a core (on)", "%", 2),
    Column("blocks"),
]


def overhead_section(run: dict, cells: list[dict]) -> Section | None:
    found = figures.sampling_overhead(cells)
    if found is None:
        return None
    goal = figures.OVERHEAD_GOAL_PERCENT
    low_cost = 100.0 * (1.0 - found.ratio.high)  # the least cost the interval allows
    high_cost = 100.0 * (1.0 - found.ratio.low)
    if high_cost <= goal:
        verdict = f"within the goal: sampling costs at most {high_cost:.1f} % (goal ≤ {goal:g} %)."
    elif low_cost > goal:
        verdict = f"OVER the goal: sampling costs at least {low_cost:.1f} % of the throughput (goal ≤ {goal:g} %)."
    else:
        verdict = (
            f"not decided: the interval ({low_cost:.1f} % to {high_cost:.1f} % cost) includes the goal of "
            f"{goal:g} %; more blocks would tell."
        )
    table = Table(
        COLUMNS,
        [
            row(
                f"{found.client} → {found.server}",
                found.on_values_per_s,
                found.off_values_per_s,
                uncertainty.figure_cell(found.ratio),
                found.sampler_cpu_percent,
                found.blocks,
            )
        ],
    )
    intro = (
        f"The reference client against the reference server with the ranking's load ({found.variant}), "
        "resource sampling on and off in interleaved blocks shuffled from the run's seed. Off: no "
        "sampler thread samples, no perf stat counts the client, the server's is stopped, the host "
        "sampler pauses. On is how every other cell of the run was measured. The samplers' CPU is their "
        "own schedstat time (the harness's sampler threads and the perf stat processes) per on cell."
    )
    return Section(
        "Sampling overhead",
        paragraphs=[intro],
        tables=[table],
        notes=[f"Sampling on / off: {verdict}", *uncertainty.method_notes([found.ratio])],
    )
