"""The network suite's parts outside the SDKs: profiles and plans refused with their key, the
paper's statistics on series whose answer is known, and paths (namespaces, tbf, iptables,
toxiproxy) and cgroups that leave nothing behind, also when the harness is killed."""

from __future__ import annotations

import numpy as np
import pytest

from uabench import plan as plans
from uabench.netpath import profiles
from uabench.network import analysis
from uabench.proc import cgroups


def test_every_shipped_profile_loads_and_names_its_paper_environment():
    names = profiles.names()
    assert {"loopback", "ethernet", "wifi", "lossy-wifi", "3g"} <= set(names)
    for name in names:
        profile = profiles.load(name)
        assert profile.name == name and profile.description
    assert profiles.load("3g").paper == "3G-VPN" and profiles.load("3g").delay_ms > profiles.load("wifi").delay_ms


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('name = "bad"\ndelay_ms = 5\nproxy = false\n', "delay_ms and jitter_ms need proxy = true"),
        ('name = "bad"\nproxy = true\ndelay_ms = 5\njitter_ms = 6\n', "key 'jitter_ms' (6) above delay_ms"),
        ('name = "bad"\nproxy = true\nloss_percent = 60\n', "key 'loss_percent' must be a number in [0, 50]"),
        ('name = "bad"\nproxy = true\nup_kbit = 2.5\n', "key 'up_kbit' must be an integer"),
        ('name = "bad"\nlatency = 5\n', "unknown key 'latency'"),
        ('name = "other"\n', "key 'name' must be the file's name"),
    ],
)
def test_a_bad_profile_is_refused_naming_its_key(tmp_path, text, says):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(profiles.ProfileError, match=None) as caught:
        profiles.load(str(path))
    assert says in str(caught.value)


def test_an_unknown_profile_names_the_profiles_there_are():
    with pytest.raises(profiles.ProfileError, match="no network profile 'moon'.*3g"):
        profiles.load("moon")


def _plan_text(**changes: str) -> str:
    text = (plans.PLANS / "network.toml").read_text()
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {'networks = ["ethernet", "3g"]': 'networks = ["ethernet", "5g"]'},
            "profiles.smoke.network.networks: no network profile '5g'",
        ),
        ({"requests = 30": "requests = 3"}, "profiles.smoke.network.requests must be an integer in [10, 1e+06]"),
        ({"cpu_limits = [0.25]": "cpu_limits = [0]"}, "profiles.smoke.network.cpu_limits must be a list of cores"),
        (
            {'constrained_scenario = "C"': 'constrained_scenario = "E"'},
            "network.constrained_scenario must name a scenario",
        ),
        ({"think_ms = 10": "think_ms = 10\nthink = 5"}, "unknown key 'profiles.smoke.network.think'"),
        ({'reference_server = "open62541"': 'reference_server = "nope"'}, "nope"),
    ],
)
def test_a_bad_network_plan_is_refused_naming_its_key(tmp_path, change, says):
    path = tmp_path / "network.toml"
    path.write_text(_plan_text(**change))
    with pytest.raises(plans.PlanError) as caught:
        plans.load(path)
    assert says in str(caught.value)


def test_the_network_plan_has_one_test_per_network_limit_client_and_network():
    plan = plans.load("network")
    cases = plans.test_cases(plan, ["open62541"], "quick")
    keywords = [c.keyword for c in cases]
    assert keywords.count("RTD Over Network Should Be Measured") == 3
    assert keywords.count("RTD On A Constrained Host Should Be Measured") == 3  # ½ and ¼ isolated, ¼ beside a load
    assert keywords.count("Network Interop Should Pass") == 1
    assert keywords.count("Subscriptions Over Network Should Be Measured") == 3


def test_table_ii_figures_and_formula_1():
    ms = [2.0, 3.0, 4.0, 100.0]
    stats = analysis.rtd_stats([int(v * 1e6) for v in ms], nodes=30)
    assert stats is not None
    assert stats.count == 4 and stats.min_ms == 2.0 and stats.max_ms == 100.0
    assert stats.mean_ms == pytest.approx(27.25) and stats.sd_ms == pytest.approx(np.std(ms, ddof=1))
    assert stats.throughput_kbps == pytest.approx(128 * 30 / 27.25)  # bits per ms = kbit/s
    assert stats.outliers == {5: 1, 10: 1, 20: 1}
    assert analysis.rtd_stats([], 1) is None


def test_peaks_follow_equations_2_and_3():
    rtd = [1, 1, 6, 1, 12, 25]
    cpu = [90, 10, 70, 90, 30, 95]
    x = analysis.rtd_peaks(rtd, 5)
    assert x.tolist() == [0, 0, 1, 0, 1, 1]
    # equation (3): a CPU peak only where the RTD peaked, whatever the load elsewhere
    assert analysis.cpu_peaks(cpu, x, 50).tolist() == [0, 0, 1, 0, 0, 1]


def test_kulczynski_2_is_the_mean_of_both_conditional_probabilities():
    x = np.array([1, 1, 1, 1, 0, 0])
    y = np.array([1, 1, 0, 0, 1, 0])
    # a = 2, b = 2, c = 1: (2/4 + 2/3) / 2
    assert analysis.kulczynski_2(x, y) == pytest.approx((0.5 + 2 / 3) / 2)
    assert analysis.kulczynski_2(x, np.zeros(6, dtype=int)) is None


def test_correlations_find_peaks_that_go_with_load_and_not_those_that_do_not():
    rng = np.random.default_rng(7)
    rtd = rng.integers(1_000_000, 2_000_000, 1000)
    load = rng.uniform(0, 30, 1000)
    loaded = rng.choice(1000, 60, replace=False)
    rtd[loaded] = 30_000_000  # every peak ...
    load[loaded] = 90  # ... while the CPU was busy
    together = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), load.tolist())}
    assert together[(5, 40)].pearson == pytest.approx(1.0) and together[(5, 40)].p_value < 1e-10
    # the same peaks with the load elsewhere: no CPU peak coincides, nothing to correlate
    load_elsewhere = np.roll(load, 500)
    load_elsewhere[loaded] = 5
    apart = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), load_elsewhere.tolist())}
    assert apart[(5, 40)].cpu_peaks == 0 and apart[(5, 40)].pearson is None
    # a saturated server: the load is high at every request, so equation (3) copies the RTD
    # peaks (PEA 1 by construction) while the peaks say nothing about the load
    saturated = {(c.n, c.k): c for c in analysis.correlations(rtd.tolist(), [95.0] * 1000)}
    assert saturated[(5, 40)].pearson == pytest.approx(1.0) and saturated[(5, 40)].kulczynski == pytest.approx(1.0)
    assert saturated[(5, 40)].pearson_load is None and saturated[(5, 40)].loaded == 1000
    assert together[(5, 40)].pearson_load == pytest.approx(1.0)
    with pytest.raises(ValueError, match="1000 RTDs but 999 CPU loads"):
        analysis.correlations(rtd.tolist(), load.tolist()[:-1])


def test_cpu_at_requests_integrates_the_samples_over_each_round_trip():
    # a process using half a core from 0 to 1 s, then a whole one (cumulative ns per 10 ms)
    samples = [
        (t, t // 2 if t <= 1_000_000_000 else 500_000_000 + (t - 1_000_000_000))
        for t in range(0, 2_000_000_001, 10_000_000)
    ]
    loads = analysis.cpu_at_requests([100_000_000, 1_500_000_000, 1_990_000_000], [50_000_000] * 3, samples, 20_000_000)
    assert loads[0] == pytest.approx(50.0) and loads[1] == pytest.approx(100.0)
    assert loads[2] is None  # its window ends after the last sample


def test_a_cpu_limit_outside_its_range_is_refused():
    with pytest.raises(cgroups.CgroupError, match="a CPU limit of 0 cores"):
        cgroups.CpuLimit(0).__enter__()
