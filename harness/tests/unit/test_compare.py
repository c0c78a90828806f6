"""`uabench compare`: the verdict rules on chosen repetitions, the command on stores written
through the real Store API (so that each verdict is known to occur), its errors, and the
committed reference store compared with itself (real measurements: nothing may differ)."""

import math
import shutil

import pytest

from uabench import cli, paths
from uabench.report import comparison
from uabench.results import compare, stats
from uabench.results.store import open_store

REFERENCE = paths.REPO / "reports" / "reference" / "uabench.sqlite"


BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]


PLAN = {"ranking": "bulk", "throughput": {"bulk": {"in_flight": 8}}, "sweeps": {}}


def _estimate(values):
    return stats.estimate(values)


def test_a_change_within_the_margin_is_same():
    judged = compare.judge(_estimate(BASE), _estimate([v * 1.005 for v in reversed(BASE)]))
    assert judged.verdict == compare.SAME, judged.reason
    assert -compare.MARGIN <= judged.change.low and judged.change.high <= compare.MARGIN


def test_a_clear_change_is_faster_or_slower():
    faster = compare.judge(_estimate(BASE), _estimate([v * 1.2 for v in BASE]))
    assert faster.verdict == compare.FASTER and faster.p_value < 0.05 and faster.change.low > 0
    slower = compare.judge(_estimate(BASE), _estimate([v * 0.8 for v in BASE]))
    assert slower.verdict == compare.SLOWER and slower.change.high < 0
    # lower is better (a latency): the same drop is an improvement
    assert compare.judge(_estimate(BASE), _estimate([v * 0.8 for v in BASE]), higher_is_better=False).verdict == (
        compare.FASTER
    )


def test_a_change_that_may_lie_inside_the_noise_threshold_is_inconclusive():
    # significant, but its interval straddles -5 %: criterion's rule reports no change
    judged = compare.judge(_estimate(BASE), _estimate([v * 0.95 for v in reversed(BASE)]))
    assert judged.p_value < 0.05 and judged.change.high < 0 and judged.change.low < -compare.MARGIN
    assert judged.change.high > -compare.MARGIN
    assert judged.verdict == compare.INCONCLUSIVE and "noise threshold" in judged.reason


def test_repetitions_that_drift_are_inconclusive():
    # B is 12 % lower but still rising rep after rep (a JIT compiling): not a figure to compare
    rising = [82.0, 84.0, 85.0, 87.0, 88.0, 90.0, 91.0, 93.0]
    judged = compare.judge(_estimate(BASE), _estimate(rising))
    assert judged.change.high < -compare.MARGIN and judged.p_value < 0.05
    assert judged.verdict == compare.INCONCLUSIVE and "B the repetitions rise" in judged.reason
    # the same values in random order are a change
    shuffled = [87.0, 82.0, 91.0, 85.0, 93.0, 84.0, 90.0, 88.0]
    assert compare.judge(_estimate(BASE), _estimate(shuffled)).verdict == compare.SLOWER


def test_three_repetitions_cannot_show_a_change_to_the_rank_test():
    # the interval excludes 0, but 3 against 3 repetitions cannot reach p < 0.05 (smallest p = 0.1)
    judged = compare.judge(_estimate([100.0, 101.0, 99.0]), _estimate([120.0, 121.0, 119.0]))
    assert judged.change.low > 0 and judged.p_value >= 0.05
    assert judged.verdict == compare.INCONCLUSIVE and "Mann-Whitney" in judged.reason


def test_wide_intervals_are_inconclusive():
    judged = compare.judge(_estimate([80.0, 120.0, 95.0, 110.0, 70.0]), _estimate([90.0, 130.0, 85.0, 100.0, 125.0]))
    assert judged.verdict == compare.INCONCLUSIVE and "includes 0" in judged.reason


def test_a_single_repetition_is_inconclusive():
    judged = compare.judge(_estimate([100.0]), _estimate([100.0]))
    assert judged.verdict == compare.INCONCLUSIVE and "single repetition" in judged.reason


def test_figures_without_repetitions_are_judged_by_their_intervals():
    def known(center, low, high):
        return stats.Estimate(center, low, high, 3, None, (), "ratio of medians")

    assert compare.judge(known(0.5, 0.45, 0.55), known(0.7, 0.65, 0.75)).verdict == compare.FASTER
    assert compare.judge(known(0.5, 0.45, 0.55), known(0.52, 0.47, 0.57)).verdict == compare.INCONCLUSIVE


def _store(
    path,
    servers: dict[str, list[float]],
    suite: str = "read",
    provenance: dict | None = None,
    probes: list[float] = (),
):
    store = open_store(path)
    run_id = store.begin_run(suite, "quick", {"plan": PLAN, **(provenance or {})})
    for block, ops_per_s in enumerate(probes):  # the host probe after each block (proc/hostprobe.py)
        store.add_cell(
            run_id,
            suite=suite,
            kind="host-probe",
            client="host",
            server="host",
            variant="bulk",
            parameter="throughput",
            repetition=block,
            status="pass",
            result={"tool": "perf bench sched pipe", "ops_per_s": ops_per_s},
        )
    for server, values in servers.items():
        for repetition, value in enumerate(values):
            store.add_cell(
                run_id,
                suite=suite,
                kind="throughput",
                client="open62541",
                server=server,
                variant="bulk",
                repetition=repetition,
                status="pass",
                client_config={"workload": "read", "in_flight": 8},
                result={"throughput": {"values_per_s": value, "ops_per_s": value / 100}, "latency_ns": [[1000, 5]]},
            )
    store.finish_run(run_id)
    store.close()
    return run_id


ON_M1 = {"machine": {"fingerprint": "m1", "cpu_model": "a CPU", "cores": 2}}
# margins as `uabench margins` writes them, of the machine m1: ±5 % for absolute throughput
MARGINS_5 = """machine = "m1"
cpu_model = "a CPU"
commit = "abc"
a = "a"
b = "b"

[margins."throughput"]
margin = 0.05
figures = 10
largest = 0.06
"""


def _verdicts(markdown: str) -> dict[str, str]:
    """server -> verdict from the rendered headline table."""
    found = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 11 and cells[1] == "values/s, bulk":
            found[cells[2]] = cells[7]
    return found


def test_every_verdict_occurs_between_two_stores(tmp_path, capsys):
    a = {"same": BASE, "up": BASE, "down": BASE, "noisy": BASE, "gone": BASE}
    b = {
        "same": [v * 1.005 for v in BASE],
        "up": [v * 1.3 for v in BASE],
        "down": [v * 0.7 for v in BASE],
        "noisy": [60.0, 150.0, 90.0, 140.0, 70.0, 120.0, 80.0, 130.0],
        "new": BASE,
    }
    _store(tmp_path / "a.sqlite", a, provenance=ON_M1)
    _store(tmp_path / "b.sqlite", b, provenance=ON_M1)
    # no margins measured on the machine: no faster or slower verdict on a wall-clock figure (issue 67)
    stores = [str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")]
    assert cli.main(["compare", *stores, "--margins", str(tmp_path / "none.toml"), "--out", str(tmp_path)]) == 2
    assert "cannot read the margins" in capsys.readouterr().err
    (tmp_path / "elsewhere.toml").write_text(MARGINS_5.replace('"m1"', '"m2"'))
    assert cli.main(["compare", *stores, "--margins", str(tmp_path / "elsewhere.toml"), "--out", str(tmp_path)]) == 0
    unmeasured = capsys.readouterr().out
    assert set(_verdicts(unmeasured).values()) == {"inconclusive", "missing"}
    assert "no margin measured on this machine" in unmeasured and "uabench margins A B" in unmeasured
    # with the machine's A/A margins every verdict occurs
    (tmp_path / "m1.toml").write_text(MARGINS_5)
    code = cli.main(["compare", *stores, "--margins", str(tmp_path / "m1.toml"), "--out", str(tmp_path / "out")])
    assert code == 0
    printed = capsys.readouterr().out
    assert _verdicts(printed) == {
        "same": "same",
        "up": "faster",
        "down": "slower",
        "noisy": "inconclusive",
        "gone": "missing",
        "new": "missing",
    }
    written = (tmp_path / "out" / "compare.md").read_text()
    assert _verdicts(written) == _verdicts(printed)
    page = (tmp_path / "out" / "compare.html").read_text()
    assert "<table" in page and "inconclusive" in page and "±5 %" in page


def test_two_runs_of_one_store(tmp_path, capsys):
    first = _store(tmp_path / "s.sqlite", {"x": BASE, "y": [v * 2 for v in BASE]}, provenance=ON_M1)
    second = _store(tmp_path / "s.sqlite", {"x": [v * 1.3 for v in BASE], "y": [v * 2 for v in BASE]}, provenance=ON_M1)
    out, measured = str(tmp_path / "out"), tmp_path / "m1.toml"
    measured.write_text(MARGINS_5)
    ids = [str(first), str(second), "--out", out, "--margins", str(measured)]
    assert cli.main(["compare", "--store", str(tmp_path / "s.sqlite"), *ids]) == 0
    assert _verdicts(capsys.readouterr().out) == {"x": "faster", "y": "same"}
    # the global --store works too
    assert cli.main(["--store", str(tmp_path / "s.sqlite"), "compare", *ids]) == 0


def test_rankings_that_swap_are_reported(tmp_path):
    _store(tmp_path / "a.sqlite", {"x": BASE, "y": [v * 2 for v in BASE], "z": [v * 4 for v in BASE]})
    _store(tmp_path / "b.sqlite", {"x": [v * 3 for v in BASE], "y": [v * 2 for v in BASE], "z": [v * 4 for v in BASE]})
    a, b = compare.load_side(str(tmp_path / "a.sqlite")), compare.load_side(str(tmp_path / "b.sqlite"))
    disagreements, separated = compare.ranking_disagreements(a, b)
    assert disagreements == ["read: bulk: y above x in A, below it in B"]
    # ordered in both: y and x (inverted), z above y; z above x only in A (4 / 3 lies within the ±35 %)
    assert separated == 2
    report, _, _ = comparison.document(a, b)
    assert any("The rankings disagree" in text for text in report.sections[0].paragraphs)
    agree, _ = compare.ranking_disagreements(a, a)
    assert agree == []


def test_what_the_rule_cannot_order_shares_ranks_in_the_table(tmp_path):
    _store(tmp_path / "a.sqlite", {"x": BASE, "y": [v * 1.2 for v in BASE], "z": [v * 3 for v in BASE]})
    side = compare.load_side(str(tmp_path / "a.sqlite"))
    ranks = {key[2]: rank for key, rank in compare.ranks(side).items()}
    # y is 20 % above x with an interval that excludes 1, but within the margin: a tie
    assert ranks == {"z": (1, 1), "x": (2, 3), "y": (2, 3)}


def test_suites_run_on_one_side_only_are_named_not_compared(tmp_path):
    _store(tmp_path / "a.sqlite", {"x": BASE})
    _store(tmp_path / "a.sqlite", {"x": BASE}, suite="write")
    _store(tmp_path / "b.sqlite", {"x": BASE})
    a, b = compare.load_side(str(tmp_path / "a.sqlite")), compare.load_side(str(tmp_path / "b.sqlite"))
    report, found, _ = comparison.document(a, b)
    assert [c.key for c in found] == [("read", "values/s, bulk", "x")]
    assert "Not compared: write (run only in A)." in report.sections[0].paragraphs


@pytest.mark.parametrize(
    "argv, message",
    [
        (["compare", "/nonexistent/a.sqlite", "/nonexistent/b.sqlite"], "no results store"),
        (["compare", "1", "/nonexistent/b.sqlite"], "two stores or two run ids"),
        (["compare", "--store", "{store}", "1", "99"], "holds no run 99"),
        # a run or a store with itself: the same by construction (issue 39)
        (["compare", "--store", "{store}", "1", "01"], "'1' and '01' are one run: compare two different runs"),
        (["margins", "--store", "{store}", "1", "1"], "are one run: measure margins from two different runs"),
        (["compare", "{store}", "sqlite://{store}"], "are one store: compare two stores, or two run ids"),
        (["margins", "{store}", "{store}"], "are one store"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    _store(tmp_path / "s.sqlite", {"x": BASE})
    argv = [arg.replace("{store}", str(tmp_path / "s.sqlite")) for arg in argv]
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_empty_store_is_bad_input(tmp_path, capsys):
    open_store(tmp_path / "empty.sqlite").close()
    _store(tmp_path / "full.sqlite", {"x": BASE})
    assert cli.main(["compare", str(tmp_path / "full.sqlite"), str(tmp_path / "empty.sqlite")]) == 2
    assert "holds no runs" in capsys.readouterr().err


def test_the_reference_store_against_itself_changes_nothing(tmp_path):
    """Identical measurements: no figure may come out faster or slower, and the rankings agree."""
    copy = tmp_path / "reference.sqlite"
    shutil.copy(REFERENCE, copy)
    side = compare.load_side(str(copy))
    assert any(f.headline for f in side.figures) and any(f.unit == "ratio" for f in side.figures)
    report, found, disagreements = comparison.document(side, side)
    verdicts = {c.verdict for c in found}
    assert verdicts <= {compare.SAME, compare.INCONCLUSIVE} and compare.SAME in verdicts
    assert disagreements == []
    assert all(c.change is None or c.change.center == 0 for c in found)


def _side(*machines: dict | None) -> compare.Side:
    runs = [
        {
            "id": k,
            "suite": "read",
            "profile": "quick",
            "status": "finished",
            "provenance": {"git_commit": "c1", **({"machine": m} if m else {})},
        }
        for k, m in enumerate(machines, 1)
    ]
    return compare.Side("x", "x.sqlite", runs, [])


EPYC = {"cpu_model": "AMD EPYC", "cores": 2, "fingerprint": "aaaa"}
XEON = {"cpu_model": "Intel Xeon", "cores": 2, "fingerprint": "bbbb"}


def test_runs_of_one_machine_compare_without_a_warning():
    assert compare.machine_difference(_side(EPYC, EPYC), _side(EPYC)) is None


def test_runs_of_different_machines_are_said_so_naming_both():
    found = compare.machine_difference(_side(EPYC), _side(XEON))
    assert found and "A on AMD EPYC, 2 cores (fingerprint aaaa), B on Intel Xeon, 2 cores (fingerprint bbbb)" in found
    assert "does not say what a change of code did" in found
    # a side that itself spans two machines cannot stand for one either
    assert compare.machine_difference(_side(EPYC, XEON), _side(EPYC, XEON)) is not None
    # nor can a run whose machine was not recorded
    assert "a machine not recorded" in (compare.machine_difference(_side(None), _side(None)) or "")


def test_the_comparison_document_carries_the_warning():
    report, _, _ = comparison.document(_side(EPYC), _side(XEON))
    assert report.sections[0].warning and "not measured on one machine" in report.sections[0].warning
    report, _, _ = comparison.document(_side(EPYC), _side(EPYC))
    assert report.sections[0].warning is None


def test_a_handicapped_side_is_said_first_in_the_comparison_and_the_report_summary():
    from uabench.report.comparison import document
    from uabench.results.compare import Side
    from uabench.results.provenance import handicap_warning

    plain = {
        "provenance": {"git_commit": "c1", "machine": {"fingerprint": "f"}},
        "suite": "read",
        "id": 1,
        "profile": "quick",
        "status": "finished",
    }
    slowed = {**plain, "id": 2, "provenance": {**plain["provenance"], "handicap": {"asyncua": 0.7}}}
    assert handicap_warning([plain]) is None
    assert "asyncua's server limited to 70% of its CPU" in (handicap_warning([plain, slowed]) or "")
    report, _, _ = document(Side("a", "a", [plain], []), Side("b", "b", [slowed], []))
    warning = report.sections[0].warning or ""
    assert warning.startswith("B: Handicapped on purpose") and "not that SDK's performance" in warning


def test_margins_are_a_quantile_of_how_far_the_aa_pair_moved_its_figures_with_a_floor_and_enough_figures():
    from uabench.results import margins

    # nine ratios the A/A pair moved by 1 %..9 % (either way), one outlier at 40 %; two sweep points only
    changes = [("ratio", (-1) ** k * k / 100) for k in range(1, 10)] + [("ratio", -0.4)]
    changes += [("quiet", 0.002)] * 3 + [("sweep point", 0.2)] * 2 + [("ratio", math.nan)]
    found = margins.measure(changes)
    assert found["ratio"].margin == pytest.approx(0.09) and found["ratio"].largest == pytest.approx(0.4)
    assert found["ratio"].figures == 10  # the change without a value is no figure
    assert found["quiet"].margin == margins.FLOOR_MARGIN  # no re-run tells 0.2 % apart
    assert "sweep point" not in found  # too few figures to measure it


def test_a_margins_file_reads_back_and_a_broken_one_is_one_line(tmp_path):
    from uabench.results import margins

    written = margins.Margins(
        "f" * 16,
        'CPU "X"',
        "abc",
        "a.sqlite (runs 1)",
        "b.sqlite (runs 2)",
        {
            "throughput": margins.Margin("throughput", 0.2, 12, 0.3),
        },
    )
    path = tmp_path / "margins.toml"
    path.write_text(written.toml())
    assert margins.load(path) == written
    # a host whose re-runs move figures by more than 100 % measures a margin that large (27 Nov):
    # it is read back, not refused, so that compare runs and says what it cannot decide
    path.write_text(written.toml().replace("margin = 0.2000", "margin = 1.1063"))
    assert margins.load(path).by_kind["throughput"].margin == pytest.approx(1.1063)
    for wrong in ("0.0", "-0.1", "nan", "inf"):
        path.write_text(written.toml().replace("margin = 0.2000", f"margin = {wrong}"))
        with pytest.raises(margins.MarginsError, match="must be a finite number above 0"):
            margins.load(path)
    path.write_text("machine = \n")
    with pytest.raises(margins.MarginsError, match="cannot read the margins"):
        margins.load(path)


def test_measured_margins_decide_a_change_the_fixed_one_would_not_and_only_on_their_machine():
    from uabench.results import margins

    def side(values, fingerprint="m"):
        figure = compare.Figure("read", "values/s, bulk", "x", "values/s", _estimate(values), True)
        machine = {"fingerprint": fingerprint, "cpu_model": "c", "cores": 2}
        run = {"provenance": {"machine": machine}, "suite": "read", "id": 1, "profile": "quick", "status": "finished"}
        return compare.Side("s", "s", [run], [figure])

    a, b = side(BASE), side([v * 0.93 for v in reversed(BASE)])  # 7 % slower
    noisy = margins.Margins("m", "c", "abc", "a", "b", {"throughput": margins.Margin("throughput", 0.12, 10, 0.2)})
    tight = margins.Margins("m", "c", "abc", "a", "b", {"throughput": margins.Margin("throughput", 0.05, 10, 0.2)})
    # no margin measured here: no verdict on a wall-clock figure, however clear
    unmeasured = compare.compare(a.figures, b.figures)[0]
    assert unmeasured.verdict == compare.INCONCLUSIVE and "uabench margins A B" in unmeasured.reason
    assert compare.compare(a.figures, b.figures, tight)[0].verdict == compare.SLOWER  # beyond ±5 %
    used = compare.applicable(noisy, a, b)
    judged = compare.compare(a.figures, b.figures, used)[0]
    assert judged.verdict == compare.SAME and judged.margin == 0.12  # re-runs here differ by up to 12 %
    assert compare.applicable(noisy, a, side(BASE, "elsewhere")) is None
    report, _, _ = comparison.document(a, b, noisy, "margins.toml")
    assert "throughput ±12.0 % (from 10 figures of the A/A pair)" in " ".join(report.sections[0].paragraphs)
    report, _, _ = comparison.document(a, side(BASE, "elsewhere"), noisy, "margins.toml")
    said = " ".join(report.sections[0].paragraphs)
    assert "No margins measured on this machine" in said and "throughput: no verdict" in said


def test_uabench_margins_measures_an_aa_pair_and_refuses_two_commits(tmp_path, capsys):
    from uabench.results import margins

    machine = {"fingerprint": "m1", "cpu_model": "Test CPU", "cores": 2}
    servers = {f"s{k}": [v * (1 + k / 10) for v in BASE] for k in range(4)}
    again = {name: [v * 1.01 for v in reversed(values)] for name, values in servers.items()}
    for name, values, commit in (("a", servers, "c1"), ("b", again, "c1"), ("c", again, "c2")):
        _store(tmp_path / f"{name}.sqlite", values, provenance={"git_commit": commit, "machine": machine})
    out = tmp_path / "margins.toml"
    assert cli.main(["margins", str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite"), "--out", str(out)]) == 0
    written = margins.load(out)
    assert written.commit == "c1" and written.machine == "m1" and 0.01 <= written.by_kind["throughput"].margin < 0.05
    assert cli.main(["margins", str(tmp_path / "a.sqlite"), str(tmp_path / "c.sqlite"), "--out", str(out)]) == 2
    assert "two runs of one clean commit; these ran at c1, c2" in capsys.readouterr().err


def test_a_pair_that_moved_its_figures_beyond_100_percent_writes_margins_compare_reads(tmp_path, capsys):
    """27 Nov: on a noisy host the A/A pair's throughput margin came out at 110 % and compare
    refused the file `uabench margins` had just written. Now the margin is measured and used,
    and the comparison gives figures of that kind no verdict."""
    from uabench.results import margins

    machine = {"fingerprint": "m1", "cpu_model": "Test CPU", "cores": 2}
    servers = {f"s{k}": [v * (1 + k / 10) for v in BASE] for k in range(4)}
    again = {name: [v * 2.5 for v in reversed(values)] for name, values in servers.items()}
    for name, values in (("a", servers), ("b", again)):
        _store(tmp_path / f"{name}.sqlite", values, provenance={"git_commit": "c1", "machine": machine})
    out = tmp_path / "margins.toml"
    assert cli.main(["margins", str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite"), "--out", str(out)]) == 0
    assert margins.load(out).by_kind["throughput"].margin == pytest.approx(1.5, rel=0.01)
    compared = tmp_path / "compared"
    assert (
        cli.main(
            [
                "compare",
                str(tmp_path / "b.sqlite"),
                str(tmp_path / "a.sqlite"),
                "--margins",
                str(out),
                "--out",
                str(compared),
            ]
        )
        == 0
    )
    text = (compared / "compare.md").read_text()
    assert "beyond 100 %: no change of them can be told from the noise here" in text
    # 60 % down, within a ±150 % margin: neither slower nor the same (28 Nov: a sustained rate
    # -63.5 % [-83.7, +15.4] was "same" within its ±174 % margin), so no verdict
    assert "| slower |" not in text and "| same |" not in text
    assert "is beyond 100 %: on this machine no change of it can be told from the noise" in text


def test_the_host_probe_is_compared_and_its_drift_said_but_never_ranked(tmp_path):
    """A machine 30 % slower in B, and its servers with it: the probe's figure is "slower" (server
    "host", not a headline, in no ranking) and the comparison says the machine's own change beside
    the servers', which are judged as measured (compare.judge: the probe is not divided out)."""
    from uabench.results import margins

    a_values, b_values = (
        {"x": BASE, "y": [v * 2 for v in BASE]},
        {"x": [v * 0.7 for v in BASE], "y": [v * 1.4 for v in BASE]},
    )
    _store(tmp_path / "a.sqlite", a_values, probes=[v * 1000 for v in BASE], provenance=ON_M1)
    _store(tmp_path / "b.sqlite", b_values, probes=[v * 700 for v in BASE], provenance=ON_M1)
    a, b = compare.load_side(str(tmp_path / "a.sqlite")), compare.load_side(str(tmp_path / "b.sqlite"))
    probe = next(f for f in a.figures if f.server == compare.HOST)
    assert probe.name == "host probe operations/s, bulk" and not probe.headline and probe.ranking is None
    kinds = ("throughput", "host probe")
    measured = margins.Margins("m1", "c", "abc", "a", "b", {k: margins.Margin(k, 0.05, 10, 0.06) for k in kinds})
    report, found, _ = comparison.document(a, b, measured, "m1.toml")
    verdicts = {c.key[2]: c.verdict for c in found}
    assert verdicts == {"x": "slower", "y": "slower", compare.HOST: "slower"}
    drift = next(p for p in report.sections[0].paragraphs if p.startswith("Host probe"))
    assert "read (bulk) -30.0% [" in drift and "(slower)" in drift
    plain = comparison.document(compare.load_side(str(tmp_path / "a.sqlite")), a)[0]
    assert not any(p.startswith("Host probe") and "slower" in p for p in plain.sections[0].paragraphs)


def test_a_published_comparison_is_rendered_again_from_the_stores_its_title_names(tmp_path):
    """make test renders the published compare.md again (report/comparison.unrendered): one
    written by other code than the checkout's says where it first differs."""
    _store(tmp_path / "a.sqlite", {"x": BASE, "y": [v * 2 for v in BASE]})
    _store(tmp_path / "b.sqlite", {"x": [v * 1.01 for v in BASE], "y": [v * 2 for v in BASE]})
    a, b = (compare.load_side(str(tmp_path / name)) for name in ("a.sqlite", "b.sqlite"))
    page = comparison.write(comparison.document(a, b)[0], tmp_path / "out")["markdown"]
    none = tmp_path / "margins.toml"  # no margins file: the assumed margin, as when it was written
    assert comparison.unrendered(page, none, tmp_path) is None
    lines = page.read_text(encoding="utf-8").splitlines()
    changed = next(i for i, line in enumerate(lines) if line.startswith("Verdicts:"))
    lines[changed] = lines[changed].replace("Verdicts:", "Verdicts (older code):")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stale = comparison.unrendered(page, none, tmp_path)
    assert stale is not None and f"(first at line {changed + 1})" in stale
    (tmp_path / "b.sqlite").unlink()
    assert "the store" in comparison.unrendered(page, none, tmp_path) and "is missing" in comparison.unrendered(
        page, none, tmp_path
    )
    page.write_text("# something else\n", encoding="utf-8")
    assert "names no two stores" in comparison.unrendered(page, none, tmp_path)


# --- simulated instruction counts: deterministic, judged by fixed thresholds -----------------------


def _counts_store(path, counts: dict[str, list[float]]):
    """A run of the instructions suite whose servers' repeated differences are `counts` (per
    request): each pair of loads stored as the runner stores it (instructions/runner.py), 100
    requests at the low load and 1,100 at the high one over a fixed 5 M instructions."""
    store = open_store(path)
    plan = {"instructions": {"tolerance": 0.001, "time_driven": {"Go": "schedules by the clock"}}}
    run_id = store.begin_run("instructions", "quick", {"plan": plan})
    for server, per_request in counts.items():
        for pair, count in enumerate(per_request):
            for load, requests in enumerate((100, 1100)):
                result = {"requests": requests, "values": requests, "instructions": int(5e6 + requests * count)}
                store.add_cell(
                    run_id,
                    suite="instructions",
                    kind="instructions",
                    client="open62541",
                    server=server,
                    variant="read, 1 node",
                    parameter=str(load),
                    repetition=pair,
                    status="pass",
                    result={**result, "per": "request", "language": "Go" if server == "gopcua" else "C"},
                )
    store.finish_run(run_id)
    store.close()


def _count(*values):
    return compare._count(list(values))


@pytest.mark.parametrize(
    ("b", "verdict"),
    [
        ((28_650.0, 28_660.0), compare.SAME),  # +0.1 %
        ((28_700.0, 28_710.0), compare.SAME),  # +0.3 %: within 0.5 %
        ((28_800.0, 28_810.0), compare.INCONCLUSIVE),  # +0.6 %: neither the same count nor a change
        ((29_200.0, 29_210.0), compare.MORE),  # +2 %: more instructions
        ((28_000.0, 28_010.0), compare.FEWER),  # -2.2 %
    ],
)
def test_a_deterministic_count_is_same_within_half_a_percent_and_more_or_fewer_beyond_one(b, verdict):
    """Issue 40: two repeated differences a side can never give a rank test's p < 0.05, so judged
    as a measured figure a count could never be more or fewer; a count is judged by thresholds."""
    judged = compare.judge_count(_count(28_620.0, 28_630.0), _count(*b))
    assert judged.verdict == verdict, judged.reason


def test_counts_compare_as_deterministic_and_a_count_not_reproduced_as_measured(tmp_path, capsys):
    """Between two stores: open62541's count 1.5 % higher is "more" (the fixed ±5 % margin of a
    measured figure would have called it the same); gopcua's, whose runtime schedules by the clock
    (its differences 2 % apart), is judged as a measured figure, and two differences cannot decide
    that."""
    _counts_store(tmp_path / "a.sqlite", {"open62541": [28_620.0, 28_625.0], "gopcua": [90_000.0, 91_800.0]})
    _counts_store(tmp_path / "b.sqlite", {"open62541": [29_050.0, 29_055.0], "gopcua": [90_000.0, 91_800.0]})
    a, b = compare.load_side(str(tmp_path / "a.sqlite")), compare.load_side(str(tmp_path / "b.sqlite"))
    assert {f.server: f.deterministic for f in a.figures} == {"open62541": True, "gopcua": False}
    found = {c.key[2]: c for c in compare.compare(a.figures, b.figures)}
    assert found["open62541"].verdict == compare.MORE, found["open62541"].reason
    assert found["gopcua"].verdict == compare.INCONCLUSIVE and found["gopcua"].p_value is not None
    code = cli.main(["compare", str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite"), "--out", str(tmp_path / "o")])
    assert code == 0
    written = (tmp_path / "o" / "compare.md").read_text()
    assert "1 more" in written and "Instruction counts (simulated" in written
    # the planted change gone: the same counts are the same
    same = compare.compare(a.figures, a.figures)
    assert [c.verdict for c in same if c.key[2] == "open62541"] == [compare.SAME]
