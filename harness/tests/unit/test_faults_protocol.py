"""The fault suite, part two (issue 13 items 5 and 7): an adapter that breaks the line protocol
fails its cell with what it printed quoted, and two runs at once neither share a directory
nor the cores. Every test runs the real CLI against a checkout with the real reference SDK
and the faulty clients of fixtures/faulty/protocol (the reference client, its stdout spoilt)."""

from __future__ import annotations

from helpers import REFERENCE

from uabench import rundir
from uabench.proc import lock


def test_two_runs_started_in_the_same_second_have_their_own_directories(tmp_path):
    made = [rundir.new(tmp_path) for _ in range(3)]
    assert len(set(made)) == 3 and all(d.is_dir() and not any(d.iterdir()) for d in made)
    assert len({d.name[:15] for d in made}) <= 2  # named by the second they began (rarely two)
    assert all(d.stat().st_mode & 0o777 == 0o700 for d in made)  # its private keys stay its owner's


def test_a_run_called_in_process_frees_its_cores_when_it_ends(tmp_path, monkeypatch, capsys):
    from uabench import cli

    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path / "locks"))
    # refused after its cores were claimed: the store is a directory
    assert cli.main(["--store", str(tmp_path), "run", "read", "--profile", "smoke", "--sdk", REFERENCE]) == 2
    assert "uabench: error: " in capsys.readouterr().err
    assert lock._held == {}  # else every later run on this machine would be refused until pytest ends


def test_a_lock_directory_that_cannot_be_used_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from uabench import cli

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path / "file"))
    store = tmp_path / "store.sqlite"
    assert cli.main(["--store", str(store), "run", "read", "--profile", "smoke", "--sdk", REFERENCE]) == 2
    assert capsys.readouterr().err == (
        f"uabench: error: {tmp_path / 'file'}: cannot claim this run's cores there (File exists); set "
        "UABENCH_LOCK_DIR to a directory every uabench run on this machine can write\n"
    )
    assert not store.exists() and lock._held == {}
