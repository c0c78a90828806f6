"""Targets (uabench.targets): the command line's targets checked before anything runs, and the
remote sampler: the harness's own agent (uabench.proc.agent) sampling a real process, its
samples read back and moved onto this clock by the measured offset. The whole path against
the namespace Pi runs in ci/test (`uabench run … --server-target ssh://…`)."""

import os

import pytest

from uabench import cli, targets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local", targets.Spec("local")),
        ("container", targets.Spec("container")),
        ("ssh://pi@raspberrypi.local", targets.Spec("ssh", "pi@raspberrypi.local", 22)),
        ("ssh://root@10.213.70.2:2222", targets.Spec("ssh", "root@10.213.70.2", 2222)),
        ("ssh://192.168.1.20", targets.Spec("ssh", "192.168.1.20", 22)),
        ("ssh://pi@[fe80::1]:22", targets.Spec("ssh", "pi@fe80::1", 22)),
    ],
)
def test_targets_are_parsed(text, expected):
    assert targets.parse(text) == expected


@pytest.mark.parametrize("text", ["pi@raspberrypi", "ssh://", "ssh://pi@host:0", "ssh://pi@host:99999", "docker", ""])
def test_a_bad_target_is_one_line(text):
    with pytest.raises(targets.TargetError) as refused:
        targets.parse(text)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--client-target", "ssh://pi@pi.local"], "not supported: the measured roles"),
        (["--arch", "arm64"], "local processes are this machine's"),
        (["--arch", "sparc", "--server-target", "container"], "unknown architecture 'sparc'"),
        (["--isolation", "container", "--server-target", "ssh://pi@pi.local"], "without --server-target"),
        (["--server-target", "ssh://-oProxyCommand=x"], "is not user@host"),
    ],
)
def test_a_placement_that_cannot_be_made_is_refused_before_anything_runs(arguments, message, capsys, tmp_path):
    code = cli.main(["--store", str(tmp_path / "s.sqlite"), "run", "read", "--profile", "smoke", *arguments])
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error
    assert not (tmp_path / "s.sqlite").exists() or os.path.getsize(tmp_path / "s.sqlite") >= 0


@pytest.mark.parametrize("arguments", [["--server-target", "container"], ["--isolation", "container"]])
def test_the_network_suite_places_its_roles_itself(arguments, capsys, tmp_path):
    code = cli.main(["--store", str(tmp_path / "s.sqlite"), "run", "network", "--profile", "smoke", *arguments])
    assert code == 2
    error = capsys.readouterr().err
    assert "network: its servers and clients run in network namespaces" in error or "network namespaces" in error
    assert error.count("\n") == 1, error
