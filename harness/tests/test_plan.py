import pytest

from uabench import plan
from uabench.plan import PlanError


def test_shipped_plans_load():
    for name in ("read", "write"):
        loaded = plan.load(name)
        assert loaded.suite == name and loaded.ranking in {v.name for v in loaded.throughput}
        for profile in ("smoke", "quick", "full"):
            assert loaded.phase(profile, "throughput").repetitions >= 2


def test_node_ranges_expand():
    assert plan.expand_nodes(["Signal_0..2", "Tick"], "x") == ["Signal_0", "Signal_1", "Signal_2", "Tick"]
    with pytest.raises(PlanError, match="empty range"):
        plan.expand_nodes("Signal_5..1", "x")


def _write(tmp_path, text: str):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    return path


BASE = """
suite = "read"
[profiles.quick]
interop = { warmup_s = 0.1, duration_s = 0.3 }
[[interop]]
name = "one"
workload = { workload = "read", nodes = "Signal_0..9" }
"""


def test_a_user_plan_loads(tmp_path):
    loaded = plan.load(_write(tmp_path, BASE))
    assert loaded.interop[0].workload["nodes"][-1] == "Signal_9"


@pytest.mark.parametrize("text,message", [
    ("colour = 1\n" + BASE, "unknown key 'colour'"),
    (BASE.replace('"read"', '"reed"'), "key 'suite'"),
    (BASE.replace("nodes = ", "in_flite = 2, nodes = "), r"interop\[0\].workload: config: unknown key 'in_flite'"),
    (BASE.replace("duration_s = 0.3", "duration_s = -1"), "profiles.quick.interop.duration_s"),
    ("ranking = \"nope\"\n" + BASE, "key 'ranking'"),
    (BASE.replace("[[interop]]", "[[interop]\n"), "line"),
])
def test_invalid_plans_name_the_key_or_line(tmp_path, text, message):
    with pytest.raises(PlanError, match=message):
        plan.load(_write(tmp_path, text))


def test_unknown_profile_is_named(tmp_path):
    with pytest.raises(PlanError, match="no profile 'full'"):
        plan.load(_write(tmp_path, BASE)).phase("full", "interop")
