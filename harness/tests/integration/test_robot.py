import pytest
from robot.api import ExecutionResult

from uabench import cli, paths, sdks


@pytest.mark.skipif("open62541" not in {s.id for s in sdks.all_sdks()}, reason="needs the open62541 adapter")
def test_one_run_writes_one_merged_output(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    status = cli.main(
        [
            "--store",
            str(tmp_path / "store.sqlite"),
            "run",
            "read",
            "write",
            "--profile",
            "smoke",
            "--sdk",
            "open62541",
            "--include",
            "interop",
        ]
    )
    out = capfd.readouterr().out  # the progress lines go to the process's stdout, as Robot's console does
    assert status == 0, out
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert sorted(p.name for p in run_dir.glob("*.*")) == ["log.html", "output.xml", "report.html"]
    result = ExecutionResult(str(run_dir / "output.xml")).suite
    assert result.name == "uabench" and [suite.name for suite in result.suites] == ["Read", "Write"]
    assert all(test.status == "PASS" for test in result.all_tests)
    assert sorted(p.name for p in run_dir.iterdir() if p.is_dir()) == ["read", "write"]  # each plan's run files
    assert f"[1/{result.test_count}]" in out and f"[{result.test_count}/{result.test_count}]" in out
