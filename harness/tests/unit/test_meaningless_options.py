"""Options that would be accepted without effect or meaning are refused with one line and exit 2,
before anything starts or the store is touched (issue 39)."""

import pytest

from uabench import cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "read", "--out", "X"], "--out X: names the report's directory, and there is none without --report"),
        (["run", "read", "read", "--estimate"], "suites/plans/read.toml is named twice"),
        (["capacity", "open62541", "--plan", "read"], "--plan read: is no capacity plan"),
        (["capacity", "open62541", "--out", "X"], "--out X: names the report's directory"),
        (["check", "open62541", "--images"], "--images applies to the ARM checks, which only --all runs"),
        (["check", "open62541", "--require-builds"], "--require-builds applies to the ARM checks"),
        (["check", "--all", "--quick", "--require-builds"], "--quick leaves out the ARM checks"),
    ],
)
def test_an_option_without_effect_is_refused(tmp_path, capsys, args, message):
    store = tmp_path / "store.sqlite"
    assert cli.main(["--store", str(store), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not store.exists()


@pytest.mark.parametrize("command", ["report", "compare"])
def test_an_out_that_is_a_file_or_cannot_be_made_is_one_line(tmp_path, capsys, command):
    afile = tmp_path / "afile"
    afile.write_text("kept")
    extra = ["a.sqlite", "b.sqlite"] if command == "compare" else []
    for out, message in (
        (afile, "is a file, not a directory"),
        (afile / "sub", f"cannot create it: {afile} is a file, not a directory"),
    ):
        assert cli.main(["--store", str(tmp_path / "s.sqlite"), command, *extra, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {out}: {message}" in err and len(err.strip().splitlines()) == 1, err
    assert afile.read_text() == "kept" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_compare_of_runs_with_no_suite_in_common_is_refused(tmp_path, capsys):
    from uabench.results.store import open_store

    for name, suite in (("a", "read"), ("b", "write")):
        store = open_store(tmp_path / f"{name}.sqlite")
        store.finish_run(store.begin_run(suite, "smoke", {}))
        store.close()
    status = cli.main(["compare", str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite"), "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert status == 2 and "ran no suite in common (read; write): there is nothing to compare" in err, err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--notifications-per-s", "nan", "must be a finite number above 0, got 'nan'"),
        ("--notifications-per-s", "inf", "must be a finite number above 0, got 'inf'"),
        ("--notifications-per-s", "-5", "must be a finite number above 0"),
        ("--interval-ms", "0", "must be a finite number above 0"),
        ("--sessions", "2.5", "must be a whole number of at least 1, got '2.5'"),
        ("--signals", "10.5", "must be a whole number of at least 1"),
    ],
)
def test_predict_refuses_what_is_no_rate_or_count(tmp_path, capsys, option, value, message):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--store", str(tmp_path / "s.sqlite"), "predict", "--sdk", "open62541", f"{option}={value}"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("budget", ["-0:30", "-5", "-0.5"])
def test_a_negative_time_budget_is_named_as_such(tmp_path, capsys, budget):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--store", str(tmp_path / "s.sqlite"), "run", "read", "--estimate", "--time-budget", budget])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and f"time budget: '{budget}' must be more than 0 s" in err, err


def test_images_list_with_nothing_recorded_says_so(tmp_path, capsys, monkeypatch):
    from uabench import paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    assert cli.main(["images", "--list"]) == 1
    assert "no image recorded in" in capsys.readouterr().err
