"""`uabench reference --check` (results/reference.py): the committed reference is current only when
one clean commit on one machine made every run and the measured code has not changed since."""

from __future__ import annotations

import subprocess

from uabench import cli, paths
from uabench.results import reference
from uabench.results.store import open_store


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=paths.REPO, capture_output=True, text=True, check=True).stdout.strip()


def _store(path, *runs: tuple[str, str]):
    """A store with one finished run per (commit, machine fingerprint)."""
    store = open_store(path)
    for commit, machine in runs:
        run_id = store.begin_run("read", "quick", {"git_commit": commit, "machine": {"fingerprint": machine}})
        store.finish_run(run_id)
    store.close()
    return path


def test_runs_of_two_commits_or_machines_or_a_dirty_tree_are_not_one_reference(tmp_path):
    head = _git("rev-parse", "HEAD")
    found = reference.problems(_store(tmp_path / "s.sqlite", (head, "m1"), (head + "-dirty", "m2")))
    assert any("measured at 2 commits" in line for line in found)
    assert any("on 2 machines" in line for line in found)
    assert any("uncommitted changes" in line for line in found)


def test_a_commit_outside_the_history_or_before_a_change_to_the_measured_code_is_stale(tmp_path):
    assert (
        "is not in this repository's history" in reference.problems(_store(tmp_path / "a.sqlite", ("f" * 40, "m")))[0]
    )
    root = _git("rev-list", "--max-parents=0", "HEAD").split()[0]
    stale = reference.problems(_store(tmp_path / "b.sqlite", (root, "m")))
    assert len(stale) == 1 and f"the measured code changed since {root[:12]}" in stale[0]


def test_the_checkout_s_own_commit_is_current_unless_its_measured_code_has_uncommitted_changes(tmp_path, capsys):
    head = _git("rev-parse", "HEAD")
    store = _store(tmp_path / "s.sqlite", (head, "m"))
    edited = _git("diff", "--name-only", "HEAD", "--", *reference.MEASURED)
    assert reference.problems(store) == ([] if not edited else reference.problems(store))
    assert bool(reference.problems(store)) == bool(edited)
    status = cli.main(["reference", "--check", "--reference-store", str(store)])
    assert status == (1 if edited else 0)
    assert "run 1 (read): not recorded" in capsys.readouterr().out  # runs before the command was recorded


def test_commits_that_differ_only_outside_the_measured_code_are_one_reference(tmp_path):
    """A reference measured over two sessions: the data of the first committed between them
    changes no measured file, so both commits measured one code."""
    log = _git("log", "--format=%H", "-200").split()
    pairs = [
        (c, p)
        for c, p in zip(log, log[1:], strict=False)
        if not _git("diff", "--name-only", p, c, "--", *reference.MEASURED)
    ]
    measured = [
        (c, p)
        for c, p in zip(log, log[1:], strict=False)
        if _git("diff", "--name-only", p, c, "--", *reference.MEASURED)
    ]
    assert pairs and measured
    child, parent = pairs[0]
    found = reference.problems(_store(tmp_path / "a.sqlite", (parent, "m"), (child, "m")))
    assert not any("commits whose measured code differs" in line for line in found)
    child, parent = measured[0]
    found = reference.problems(_store(tmp_path / "b.sqlite", (parent, "m"), (child, "m")))
    assert any("measured at 2 commits whose measured code differs" in line for line in found)


def test_a_run_is_dirty_only_when_the_measured_code_has_uncommitted_changes(tmp_path, monkeypatch):
    """A run into a committed store (the reference's) changes that store: the runs after it were
    recorded '-dirty' although they measured the commit. Shown on a repository of its own: a
    changed report is clean, a changed adapter is dirty."""
    from uabench.results import provenance

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, check=True)

    git("init", "-q")
    for path in ("reports/reference/uabench.sqlite", "adapters/x/main.c"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("1\n")
    git("add", ".")
    git("-c", "user.email=u@b", "-c", "user.name=u", "commit", "-q", "-m", "one")
    monkeypatch.setattr(paths, "REPO", tmp_path)
    (tmp_path / "reports/reference/uabench.sqlite").write_text("2\n")
    assert not provenance.git_commit().endswith("-dirty")
    (tmp_path / "adapters/x/main.c").write_text("2\n")
    assert provenance.git_commit().endswith("-dirty")
