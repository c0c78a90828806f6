"""Sampling on vs off (engine/overhead.py, proc.sampling.off): what "off" turns off, that no
window is made up across a pause, the comparison's arms and blocks, and the report's verdict
against the 2 % goal, on a faulty (too costly) and an undecided comparison too."""

from uabench import estimate
from uabench import plan as plans
from uabench.engine import overhead
from uabench.engine.cells import Outcome
from uabench.proc import sampling
from uabench.report.overhead import overhead_section
from uabench.results import figures


def test_the_comparison_measures_both_arms_in_every_block_and_off_inside_the_pause():
    seen: list[tuple[str, int, bool]] = []

    def cell(arm: str, block: int) -> Outcome:
        seen.append((arm, block, sampling.switch.off.is_set()))
        return Outcome("pass", result={"throughput": {"values_per_s": 100.0 if arm == "on" else 101.0}})

    found = overhead.compare(cell, 4, seed=7, log=lambda _line: None)
    assert found.blocks == 4
    assert sorted((arm, block) for arm, block, _ in seen) == [(a, b) for a in ("off", "on") for b in range(4)]
    assert all(paused == (arm == "off") for arm, _, paused in seen)
    assert not sampling.switch.off.is_set()
    assert "0.990" in overhead.summary(found, seed=0)


def _cells(on: list[float], off: list[float], sampler: float = 1.5) -> list[dict]:
    def cell(arm: str, block: int, value: float) -> dict:
        resources = {"sampler_cpu_percent": sampler} if arm == "on" else None
        return {
            "kind": figures.OVERHEAD_KIND,
            "status": "pass",
            "parameter": arm,
            "repetition": block,
            "client": "open62541",
            "server": "open62541",
            "variant": "100 nodes/request",
            "result": {"throughput": {"values_per_s": value}},
            "client_resources": resources,
            "server_resources": resources,
        }

    return [cell("on", b, v) for b, v in enumerate(on)] + [cell("off", b, v) for b, v in enumerate(off)]


def _verdict(cells: list[dict]) -> str:
    section = overhead_section({"suite": "read"}, cells)
    assert section is not None
    return next(note for note in section.notes if note.startswith("Sampling on / off"))


def test_the_report_judges_the_paired_ratio_against_the_goal():
    off = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
    cheap = _cells([v * 0.999 for v in off], off)
    found = figures.sampling_overhead(cheap)
    assert found is not None and found.blocks == 6 and found.sampler_cpu_percent == 3.0
    assert "within the goal" in _verdict(cheap)
    costly = _cells([v * 0.95 for v in off], off)  # a sampler that costs 5 %: the faulty case
    assert "OVER the goal" in _verdict(costly)
    noisy = _cells([1000.0, 960.0, 1010.0, 990.0], [1000.0, 1010.0, 990.0, 1005.0])
    assert "not decided" in _verdict(noisy)


def test_no_section_without_two_paired_blocks():
    assert overhead_section({"suite": "read"}, _cells([1000.0], [1000.0])) is None
    one_arm = [c for c in _cells([1.0, 2.0], [1.0, 2.0]) if c["parameter"] == "on"]
    assert figures.sampling_overhead(one_arm) is None
    failed = _cells([1.0, 2.0], [1.0, 2.0])
    failed[-1]["status"] = "fail"
    assert figures.sampling_overhead(failed) is None


def test_the_read_plan_runs_it_once_with_the_reference_pair_and_the_estimate_counts_it():
    read = plans.load("read")
    cases = plans.test_cases(read, None, "quick")
    (case,) = [c for c in cases if c.keyword == "Sampling Overhead Should Be Measured"]
    assert case.args == ("open62541", read.ranking)
    repetitions = read.phase("quick", "throughput").repetitions
    counted = estimate.estimate(read, "quick", [case])
    assert counted.cells >= 2 * repetitions and counted.seconds > 0  # and warm-up chunks when alone
    without_reference = plans.test_cases(read, ["asyncua"], "quick")
    assert not any(c.keyword == case.keyword for c in without_reference)
