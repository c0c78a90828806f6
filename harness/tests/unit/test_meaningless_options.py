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
