"""What resource sampling costs the measurement: the reference client against the reference
server with the ranking's load, sampling on and off in interleaved blocks shuffled from the
run's seed (engine.interleave), once per run. Every cell is stored as kind "sampling-overhead"
with its arm as parameter; the report gives the paired throughput ratio off/on with its interval.

"Off" means: no sampler thread samples, no perf stat runs for the client and the server's is
stopped (SIGSTOP), the host sampler pauses (proc.sampling.off). The arms are measured the same
way otherwise; host disturbance is not judged in either (the off arm has no host samples to
judge, and retrying only one arm would bias the pair)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from uabench.engine import interleave
from uabench.engine.cells import Outcome
from uabench.engine.schedule import Repetitions
from uabench.proc import sampling
from uabench.results import figures, stats

KIND = figures.OVERHEAD_KIND
ARMS = ("on", "off")


def compare(
    cell: Callable[[str, int], Outcome], repetitions: int, seed: int, log: Callable[[str], None]
) -> interleave.Interleaved[str]:
    """`repetitions` blocks of both arms in a shuffled order; `cell(arm, block)` measures and
    stores one cell. A fixed number of blocks keeps it short (it is measured in every run):
    the report gives the interval those blocks allow, whatever its width."""

    def measure(arm: str, block: int, _judge_host: bool) -> Outcome:
        with sampling.off() if arm == "off" else contextlib.nullcontext():
            return cell(arm, block)

    return interleave.interleave(
        list(ARMS),
        measure,
        lambda outcome: outcome.measured["throughput"]["values_per_s"],
        Repetitions(repetitions, repetitions),
        seed,
        retries=0,
        log=log,
    )


def summary(found: interleave.Interleaved[str], seed: int) -> str:
    """One line: each arm's median throughput and the paired ratio on/off with its interval."""
    values = found.values(lambda outcome: outcome.measured["throughput"]["values_per_s"])
    if not all(values.get(arm) for arm in ARMS):
        return "sampling overhead not measured: " + "; ".join(
            f"{arm}: {outcome.status}: {(outcome.reason or '').splitlines()[0] if outcome.reason else ''}"
            for arm, outcome in found.dropped.items()
        )
    ratio = stats.paired_ratio(values["on"], values["off"], seed=seed)
    return (
        f"sampling on/off throughput {ratio.center:.4f} [{ratio.low:.4f}, {ratio.high:.4f}] over {found.blocks} "
        f"blocks (paired per block; goal: at most {figures.OVERHEAD_GOAL_PERCENT:g} % lower with sampling)"
    )
