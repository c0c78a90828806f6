"""The soak's growth rates (robustness/growth.py), the robustness and soak plans, and their report
sections. A leak against a real leaking server is in test_robustness.py."""

from __future__ import annotations

import random

import pytest

from uabench import plan as plans
from uabench.document.model import Report
from uabench.report.markdown import render as markdown
from uabench.robustness import suite as robustness_suite
from uabench.robustness.growth import growth
from uabench.robustness.report import robustness_section, scores, soak_section


def _series(slope_per_h: float, noise: float, seconds: int = 180, seed: int = 1) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    times = [float(t) for t in range(seconds)]
    # a sawtooth like a collected heap, plus noise, plus the steady growth
    values = [100 + slope_per_h * t / 3600 + 8 * ((t % 20) / 20) + rng.gauss(0, noise) for t in times]
    return times, values


def test_a_steady_growth_is_a_leak_with_its_rate_in_the_interval() -> None:
    times, values = _series(slope_per_h=600.0, noise=0.5)  # 10 MB a minute
    found = growth("rss_mb", times, values)
    assert found is not None and found.leak
    assert found.low <= 600.0 <= found.high


def test_a_flat_noisy_sawtooth_is_no_leak() -> None:
    leaks = 0
    for seed in range(20):
        times, values = _series(slope_per_h=0.0, noise=2.0, seed=seed)
        found = growth("rss_mb", times, values)
        assert found is not None
        leaks += found.leak
    assert leaks <= 2  # a 95 % interval: about one in twenty, by chance


def test_a_slow_drift_whose_interval_excludes_zero_is_below_the_floor_and_no_leak() -> None:
    """+0.5 MB/h on 50 MB: the interval of a long, quiet run excludes zero, but the growth is below
    1 MB/h (and 1 % of RSS per hour); the same run growing 3 MB/h is a leak."""
    times = [float(t) for t in range(0, 7200, 10)]
    drift = growth("rss_mb", times, [50 + 0.5 * t / 3600 for t in times])
    assert drift is not None and drift.low > 0 and drift.floor == 1.0 and not drift.leak
    grown = growth("rss_mb", times, [50 + 3.0 * t / 3600 for t in times])
    assert grown is not None and grown.leak
    big = growth("rss_mb", times, [1000 + 3.0 * t / 3600 for t in times])  # 3 MB/h on 1 GB: below 1 %/h
    assert big is not None and big.floor == pytest.approx(10.0, rel=0.01) and not big.leak


def test_a_constant_count_has_no_growth() -> None:
    found = growth("threads", [float(t) for t in range(100)], [12.0] * 100)
    assert found is not None and (found.per_hour, found.leak) == (0.0, False)


def test_too_few_samples_give_no_rate() -> None:
    assert growth("fds", [0.0, 1.0, 2.0], [1.0, 2.0, 3.0]) is None


def test_the_plans_make_their_tests() -> None:
    robustness = plans.load("robustness")
    smoke = plans.test_cases(robustness, ["open62541"], "smoke")
    assert smoke[0].keyword == "Corpus Should Be Recorded"
    assert [c.args[1] for c in smoke[1:]] == ["fuzz-bitflip", "fuzz-nested", "hello-buffers", "session-flood"]
    assert len(plans.test_cases(robustness, ["open62541"], "quick")) == 1 + len(robustness_suite.of(robustness).batches)
    soak = plans.load("soak")
    assert [c.args for c in plans.test_cases(soak, ["milo"], "smoke")] == [("milo",)]
    assert (
        robustness_suite.soak_of(soak) is not None and robustness_suite.soak_of(soak).profiles["smoke"].duration_s == 20
    )


@pytest.mark.parametrize(
    ("plan", "old", "new", "message"),
    [
        ("robustness", '"fuzz-bitflip", "fuzz-length"', '"fuzz-bitflip", "no-such"', "robustness.batches.1: 'no-such'"),
        ("robustness", "cases = 5", "cases = 0", "profiles.smoke.robustness.cases: 0 is less than the minimum"),
        ("robustness", "seed = 1", 'seed = "x"', "robustness.seed: 'x' is not of type 'integer'"),
        ("soak", "duration_s = 20", "duration_s = 1", "profiles.smoke.soak.duration_s: 1 is less than the minimum"),
        ("soak", "churn = true", "churn = 3", "soak.churn: 3 is not of type 'boolean'"),
    ],
)
def test_a_bad_plan_is_refused_naming_the_key(tmp_path, plan: str, old: str, new: str, message: str) -> None:
    source = (plans.PLANS / f"{plan}.toml").read_text()
    assert old in source
    path = tmp_path / f"{plan}.toml"
    path.write_text(source.replace(old, new, 1))
    with pytest.raises(plans.PlanError, match=message.replace(".", r"\.")):
        plans.load(path)


def _cell(kind: str, server: str, variant: str, result: dict) -> dict:
    return {"kind": kind, "server": server, "variant": variant, "result": result}


def test_the_robustness_section_shows_each_outcome_and_the_reproducer() -> None:
    crashed = {
        "outcome": "crashed",
        "reason": "the server process died",
        "hostile": {"cases": 3, "failure": {"case": 2, "what": "Hello", "reproducer": "reproducers/x.bin"}},
    }
    cells = [
        _cell("robustness", "a", "hello-buffers", crashed),
        _cell("robustness", "b", "hello-buffers", {"outcome": "unaffected", "reason": "", "hostile": {"cases": 5}}),
        _cell("robustness", "b", "session-flood", {"outcome": "degraded and recovered", "reason": "RSS 40 → 90 MB"}),
    ]
    assert scores(cells) == {"a": 0.0, "b": 1.0}
    section = robustness_section(cells)
    assert section is not None
    text = markdown(Report("r", [section]))
    assert "crashed (the server process died)" in text and "reproducers/x.bin" in text
    assert "degraded and recovered (RSS 40 → 90 MB)" in text


def test_the_soak_section_flags_a_leak() -> None:
    result = {
        "duration_s": 30,
        "growth": {
            "rss_mb": {"per_hour": 120.0, "low": 80.0, "high": 160.0},
            "threads": {"per_hour": 0.0, "low": 0.0, "high": 0.0},
            "fds": None,
        },
        "leaks": ["rss_mb"],
        "samples": [[0.0, 50.0, 10, 20], [1.0, 51.0, 10, 20]],
        "churn": {"answers": {"served": 40}},
    }
    section = soak_section([_cell("soak", "leaky", "soak", result)])
    assert section is not None
    text = markdown(Report("r", [section]))
    assert "+120.00 [+80.00, +160.00]" in text and "| rss_mb |" in text
