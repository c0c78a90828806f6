"""Versions side by side (adapters/SPEC.md §1, issue 19): an SDK's other declared versions in the
registry, in a plan's rankings, and the report's version trend with compare's verdicts."""

import pytest

from uabench import paths, plan, sdks
from uabench.document.model import Report
from uabench.report import markdown
from uabench.report.sections import ranking_section
from uabench.report.versions import version_section, without_versions
from uabench.results.store import open_store
from unit.test_compare import _store

MAIN = 'id = "x"\nlanguage = "C"\nversion = "2.0"\nroles = ["server", "client"]\n'


def _toml(tmp_path, text):
    toml = tmp_path / "sdk.toml"
    toml.write_text(MAIN + text)
    return toml


def test_a_declared_version_is_the_same_adapter_with_its_version_in_the_environment(tmp_path):
    main, older = sdks._load(_toml(tmp_path, '[versions."1.10"]\nroles = ["client"]\n[versions."1.9"]\n'))[::2]
    assert (main.id, main.environment, main.base) == ("x", {}, "x")
    assert [s.id for s in sdks._load(_toml(tmp_path, '[versions."1.10"]\n[versions."1.9"]\n'))] == [
        "x",
        "x@1.9",
        "x@1.10",  # ordered as versions, not as text
    ]
    assert older.id == "x@1.10" and older.run == main.run and older.environment == {"UABENCH_SDK_VERSION": "1.10"}
    assert older.roles == ("client",) and main.roles == ("server", "client")  # an override stays its own


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('[versions."1.0"]\ndeviations = {}\n', "unknown key 'deviations'"),
        ('[versions."2.0"]\n', "is the pinned version itself"),
        ('[versions."one"]\n', "not a version number"),
        ('versions = ["1.0"]\n', "must be a table"),
    ],
)
def test_a_bad_version_entry_is_refused_naming_it(tmp_path, entry, message):
    with pytest.raises(ValueError, match=message):
        sdks._load(_toml(tmp_path, entry))


@pytest.fixture
def versioned(tmp_path, monkeypatch):
    """A registry of two SDKs, one of them declaring an older version."""
    for sdk, extra in (("x", '[versions."1.0"]\n'), ("y", "")):
        (tmp_path / "implementations" / sdk).mkdir(parents=True)
        (tmp_path / "implementations" / sdk / "sdk.toml").write_text(MAIN.replace('"x"', f'"{sdk}"') + extra)
        (tmp_path / "adapters" / sdk).mkdir(parents=True)
        (tmp_path / "adapters" / sdk / "run").write_text("#!/bin/sh\n")
    monkeypatch.setattr(paths, "IMPLEMENTATIONS", tmp_path / "implementations")
    monkeypatch.setattr(paths, "ADAPTERS", tmp_path / "adapters")


def test_the_matrices_hold_the_pinned_versions_and_get_finds_every_one(versioned):
    assert [s.id for s in sdks.all_sdks()] == ["x", "y"]
    assert [s.id for s in sdks.every_version()] == ["x", "x@1.0", "y"]
    assert sdks.get("x@1.0").version == "1.0" and sdks.get("x@2.0").id == "x"  # the pinned one by number
    with pytest.raises(sdks.UnknownSdk, match="unknown version '1.5' of x"):
        sdks.get("x@1.5")


def test_only_the_versions_profiles_rank_the_other_versions(versioned, tmp_path):
    toml = tmp_path / "plan.toml"
    toml.write_text(
        'suite = "read"\nversions = ["quick"]\nranking = "r"\n'
        "[profiles.quick]\n[profiles.smoke]\n"
        '[[throughput]]\nname = "r"\nworkload = { workload = "read", nodes = ["Tick"] }\n'
    )
    loaded = plan.load(str(toml))
    ranking = {
        p: [t.args[2] for t in plan.test_cases(loaded, None, p) if "ranking" in t.tags] for p in ("quick", "smoke")
    }
    assert ranking == {"quick": ["x@1.0,x,y"], "smoke": ["x,y"]}
    plan.measure_versions(True)  # uabench run --versions: every profile
    try:
        assert [t.args[2] for t in plan.test_cases(loaded, None, "smoke") if "ranking" in t.tags] == ["x@1.0,x,y"]
    finally:
        plan.measure_versions(None)
    assert [t.args[2] for t in plan.test_cases(loaded, None, "smoke") if "ranking" in t.tags] == ["x,y"]
    plan.measure_versions(False)  # servers on a container, SSH or VM target: the pinned versions alone
    try:
        assert [t.args[2] for t in plan.test_cases(loaded, None, "quick") if "ranking" in t.tags] == ["x,y"]
    finally:
        plan.measure_versions(None)
    toml.write_text(toml.read_text().replace('versions = ["quick"]', 'versions = ["huge"]'))
    with pytest.raises(plan.PlanError, match="versions: a list of the profiles"):
        plan.load(str(toml))


def _trend_store(path, values):
    declared = {"roles": ["server"], "workloads": ["read"], "policies": ["None"], "not_supported": {}}
    sdks_at = {sdk: {**declared, "version": v} for sdk, v in (("x", "2.0"), ("x@1.0", "1.0"), ("y", "3.1"))}
    _store(path, values, provenance={"sdks": sdks_at})  # test_compare's store of throughput cells
    return open_store(path)


BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]


def _report(tmp_path, older):
    """The version section and the ranking, rendered, of a run measuring x at 1.0 and 2.0."""
    store = _trend_store(tmp_path / "s.sqlite", {"x@1.0": older, "x": BASE, "y": [v * 3 for v in BASE]})
    [run] = store.runs()
    cells = store.cells([run["id"]])
    store.close()
    sections = [version_section([run], {run["id"]: cells}), ranking_section(run, without_versions(cells))]
    return markdown.render(Report("t", sections))


def _trend_row(text):
    return next(line for line in text.splitlines() if line.startswith("| 1.0 → 2.0"))


def test_the_version_trend_gives_compares_verdict_and_the_ranking_the_pinned_versions(tmp_path):
    text = _report(tmp_path, [v * 0.8 for v in BASE])  # 2.0 is 25 % faster than 1.0
    assert "## Version trend" in text and "### x: 1.0 → 2.0" in text
    assert "faster" in _trend_row(text) and "+25" in _trend_row(text)
    ranking = text[text.index("ranking") :]
    assert "| x |" in ranking and "x@1.0" not in ranking  # the ranking and the summary show the pinned versions only


def test_a_version_within_the_noise_is_not_called_faster(tmp_path):
    text = _report(tmp_path, [v * 0.99 for v in BASE])
    assert "faster" not in _trend_row(text) and "same" in _trend_row(text)


def test_no_version_trend_without_another_version(tmp_path):
    store = _trend_store(tmp_path / "s.sqlite", {"x": BASE, "y": BASE})
    [run] = store.runs()
    assert version_section([run], {run["id"]: store.cells([run["id"]])}) is None


def test_an_inconclusive_change_says_which_rule_withheld_the_verdict(tmp_path):
    # 2.0 is 25 % faster, but 1.0's repetitions rise in the order they were measured: a drift
    text = _report(tmp_path, [80.0 + k for k in range(len(BASE))])
    assert "inconclusive" in _trend_row(text) and "faster" not in _trend_row(text)
    assert "inconclusive: the change's interval" in text and "rise in the order they were measured" in text


def test_the_footprint_measures_every_declared_version_with_versions(versioned, monkeypatch):
    from uabench.footprint import suite as footprint_suite

    loaded = plan.load("footprint")
    monkeypatch.setattr(
        footprint_suite, "sdks_chosen", lambda role, allowed, only: ["x", "y"] if role == "server" else []
    )

    def measured() -> list[str]:
        return sorted({case.args[0] for case in plan.test_cases(loaded, None, "quick")})

    assert measured() == ["x", "y"]
    plan.measure_versions(True)
    try:
        assert measured() == ["x", "x@1.0", "y"]
    finally:
        plan.measure_versions(None)


def test_the_instructions_count_every_declared_version_with_versions(versioned, monkeypatch):
    from uabench.instructions import suite as instructions_suite

    loaded = plan.load("instructions")
    monkeypatch.setattr(instructions_suite, "sdks_chosen", lambda role, allowed, only: ["x", "y"])
    monkeypatch.setattr(instructions_suite.InstructionsSetup, "servers_of", lambda self, profile: None)

    def counted() -> list[str]:
        return [case.args[0] for case in plan.test_cases(loaded, None, "quick")]

    assert sorted(set(counted())) == ["x", "y"]
    plan.measure_versions(True)
    try:
        assert list(dict.fromkeys(counted())) == ["x@1.0", "x", "y"]  # each version counted, oldest first
    finally:
        plan.measure_versions(None)


# --- a version plan's runs beside the rankings' (results/runs.py VERSIONED) ----------------------


def _two_runs(path):
    """A store whose read ranking (x, y) was followed by a version plan of x alone (x@1.0, x)."""
    _trend_store(path, {"x": BASE, "y": [v * 3 for v in BASE]})
    declared = {"x": {"version": "2.0"}, "x@1.0": {"version": "1.0"}}
    _store(
        path,
        {"x@1.0": [v * 0.8 for v in BASE], "x": BASE},
        provenance={"sdks": declared, "machine": {"fingerprint": "f2"}},
    )
    return open_store(path)


def test_a_version_plan_does_not_replace_its_suites_ranking_run(tmp_path):
    from uabench.results import compare, runs

    store = _two_runs(tmp_path / "s.sqlite")
    chosen = runs.latest_finished(store)[0]
    assert [(r["id"], bool(r.get(runs.VERSIONED))) for r in chosen] == [(1, False), (2, True)]
    assert [r["id"] for r in runs.rankings(chosen)] == [1] and [r["id"] for r in runs.versioned(chosen)] == [2]
    assert [r["id"] for r in compare.latest_runs(store)] == [1]  # compare takes the ranking, as the report
    cells = runs.cells_of(store, chosen)
    store.close()
    [ranked], trend = runs.rankings(chosen), runs.versioned(chosen)
    sections = [version_section(trend, cells, [ranked]), ranking_section(ranked, without_versions(cells[1]))]
    text = markdown.render(Report("t", sections))
    ranking = text[text.index("ranking") :]
    assert "| y |" in ranking  # y, which the version plan did not measure, is still ranked
    assert "faster" in _trend_row(text)  # and the trend is the version plan's
    assert "Measured in runs 2 (read)" in text and "The report's other runs were measured on another machine" in text


def test_a_suite_measured_by_a_version_plan_alone_ranks_its_pinned_versions(tmp_path):
    from uabench.results import compare, runs

    store = _trend_store(tmp_path / "s.sqlite", {"x@1.0": BASE, "x": BASE})
    chosen = runs.latest_finished(store)[0]
    compared = compare.latest_runs(store)  # a store of version runs alone is compared whole
    store.close()
    assert runs.rankings(chosen) == runs.versioned(chosen) == chosen == compared


def _footprint_cells(server, idle_mib, ready_s, per_session):
    from helpers.footprint import cell

    startup = {"ready_s": ready_s, "idle": {"rss": 0}, "first_request_us": 900.0, "later_requests_us": 90.0}
    cells = []
    for k, signals in enumerate((1000, 10000) * 2):
        up = {**startup, "idle": {"rss": int((idle_mib + k * 0.01) * 2**20) + signals * 1024}}
        cells.append(cell("footprint-startup", server, "start-up", signals, {**up, "ready_s": ready_s + k * 1e-3}))
    for step, wobble in ((1, 0), (50, 2048), (100, -2048), (1, 1024), (50, 0), (100, 0)):
        delta = int(step * per_session * 1024) + wobble
        held = {"idle": {"rss": 8 << 20, "settled": True}, "held": {"rss": 0, "settled": True}, "delta_bytes": delta}
        cells.append(cell("footprint", server, "sessions", step, held))
    return cells


def _footprint_trend(newer_idle, newer_ready, newer_per_session):
    cells = _footprint_cells("x@1.0", 100.0, 2.0, 20.0) + _footprint_cells(
        "x", newer_idle, newer_ready, newer_per_session
    )
    run = {"id": 1, "suite": "footprint", "provenance": {"sdks": {"x": {"version": "2.0"}}}}
    return markdown.render(Report("t", [version_section([run], {1: cells})]))


def test_the_footprint_trend_calls_memory_less_or_more_and_a_time_faster():
    text = _footprint_trend(80.0, 1.5, 30.0)  # 2.0 holds less idle, starts faster, costs more per session
    row = _trend_row(text)
    assert "footprint: idle RSS at 1,000 signals" in text and "footprint: ready, 1,000 signals" in text
    cells = [c.strip() for c in row.split("|")[2:-1]]
    columns = [
        c.strip() for c in next(line for line in text.splitlines() if "footprint: idle" in line).split("|")[2:-1]
    ]
    verdicts = dict(zip(columns, cells, strict=True))
    assert verdicts["footprint: idle RSS at 1,000 signals"].startswith("less (-19.8")
    assert verdicts["footprint: ready, 1,000 signals"].startswith("faster (-25")
    assert verdicts["footprint: per session"].startswith("more (+50")
    assert "faster" not in verdicts["footprint: per session"]


def test_a_footprint_within_the_margin_is_the_same_and_one_process_decides_nothing():
    text = _footprint_trend(100.5, 2.0, 20.0)
    assert _trend_row(text).count("same") >= 3  # idle RSS, per session, ready: within ±5 %
    from uabench.footprint.report import trend_figures

    one = [
        c
        for c in _footprint_cells("x", 100.0, 2.0, 20.0)
        if c["kind"] != "footprint-startup" or c["parameter"] != "1000"
    ]
    one.append(_footprint_cells("x", 100.0, 2.0, 20.0)[0])  # a single process at 1,000 signals
    idle = next(f for f in trend_figures(one) if f.name.startswith("idle RSS"))
    assert idle.estimate.low == float("-inf")  # no range: compare gives it no verdict


def test_an_instruction_count_is_judged_as_a_count():
    from uabench.report.versions import _change
    from uabench.results import compare, stats

    def count(values):
        estimate = stats.Estimate(sum(values) / 2, min(values), max(values), 2, None, tuple(values), "differences")
        return compare.Figure("instructions", "instructions per request, read", "x", "instructions", estimate, False,
                              higher_is_better=False, deterministic=True)  # fmt: skip

    why: list[str] = []
    assert _change(count([1000, 1001]), count([900, 901]), why, "w").value == compare.FEWER
    assert _change(count([1000, 1001]), count([1001, 1002]), why, "w").value == compare.SAME
    assert not why


def test_uabench_trend_prints_the_trend_or_says_why_there_is_none(tmp_path, capsys):
    from uabench import cli

    store = _two_runs(tmp_path / "s.sqlite")
    store.close()
    assert cli.main(["--store", str(tmp_path / "s.sqlite"), "trend"]) == 0
    printed = capsys.readouterr().out
    assert "## Version trend" in printed and "faster" in _trend_row(printed)
    assert "| y |" not in printed  # the trend alone, no ranking
    plain = _trend_store(tmp_path / "plain.sqlite", {"x": BASE, "y": BASE})
    plain.close()
    assert cli.main(["--store", str(tmp_path / "plain.sqlite"), "trend"]) == 2
    assert "holds no finished run that measured an SDK at another version" in capsys.readouterr().err
    assert cli.main(["--store", str(tmp_path / "s.sqlite"), "trend", "--sdk", "nosuch"]) == 2
    assert "unknown SDK nosuch" in capsys.readouterr().err


def test_uabench_list_shows_every_declared_version(versioned, capsys):
    from uabench import cli

    assert cli.main(["list"]) == 0
    listed = [line.split()[:3] for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == [["x", "C", "2.0"], ["x@1.0", "C", "1.0"], ["y", "C", "2.0"]]


@pytest.mark.parametrize("where", ["--server-target container", "--isolation container", "vm", "ssh"])
def test_a_target_away_measures_the_pinned_versions_and_refuses_versions(where, capsys):
    """test-full's container and SSH runs failed at open62541@1.4.17 ("no container image was
    prepared"): the read plan's smoke profile ranks every declared version, and only the pinned
    ones have images. There the pinned versions alone are measured, said in one line, and
    `--versions` is refused before anything runs."""
    from uabench import cli, targets

    if where in ("vm", "ssh"):  # as cli._placement gives them once the VM's disk and the host are checked
        away = (targets.Spec(where, "pi.example" if where == "ssh" else ""), targets.Spec("local"))
    else:
        away = cli._placement(cli.parser().parse_args(["run", "read", *where.split()]))
    assert cli._versions_measured(False, away) is False
    assert "versions: the pinned ones alone on the " in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"--versions: the other declared versions run on this machine only"):
        cli._versions_measured(True, away)
    local = cli._placement(cli.parser().parse_args(["run", "read"]))
    assert cli._versions_measured(True, local) is True and cli._versions_measured(False, local) is None
