import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from helpers import TESTS

# the fixtures the unit and integration tests of one module share (a fixture is found where it is imported)
from helpers.faults_inputs import inputs  # noqa: F401
from helpers.report import reference  # noqa: F401
from helpers.store import short_locks  # noqa: F401

from uabench import paths
from uabench.sdks import Sdk

# The runs of the tests claim cores (proc/lock.py) in a lock directory of the test session's
# own: a benchmark run elsewhere on this machine neither refuses them nor is refused by them.
os.environ["UABENCH_LOCK_DIR"] = tempfile.mkdtemp(prefix="uabench-test-locks-")


# Each test's time limit (pytest-timeout), by its lane: a unit test computes, an integration test
# starts adapters and servers (a marker on a test sets its own). Markers, not the `timeout` key of
# pyproject.toml: `uabench check` reads that file too, and its checks have limits of their own.
LANES = {"unit": 20, "integration": 120}  # seconds


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        lane = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else None
        if lane in LANES:
            item.add_marker(lane)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(LANES[lane]))


def pytest_sessionfinish(session, exitstatus):
    """The test session's lock directory goes with it (a run leaves nothing behind)."""
    shutil.rmtree(os.environ["UABENCH_LOCK_DIR"], ignore_errors=True)


@pytest.fixture
def script_adapter(tmp_path, monkeypatch):
    """A deliberately broken adapter program (a shell script), to exercise the harness's
    process control where real adapters behave; it stands in for no SDK."""
    monkeypatch.setattr(paths, "ADAPTERS", tmp_path / "adapters")

    def make(body: str, sdk_id: str = "broken") -> Sdk:
        run = tmp_path / "adapters" / sdk_id / "run"
        run.parent.mkdir(parents=True, exist_ok=True)
        run.write_text("#!/usr/bin/env bash\n" + body + "\n")
        run.chmod(run.stat().st_mode | stat.S_IXUSR)
        return Sdk(
            id=sdk_id,
            language="bash",
            version="0",
            roles=("server", "client"),
            workloads=("read",),
            policies=("None",),
            modes=("None",),
        )

    return make


@pytest.fixture
def workdir(tmp_path) -> Path:
    return tmp_path / "work"


@pytest.fixture
def check_repo(tmp_path) -> Path:
    """A checkout for `uabench check` (UABENCH_REPO) with the real reference SDK beside
    purpose-built faulty adapters: `add(sdk_id, run_script, **sdk_toml)`."""
    import shutil

    from uabench import plan

    reference_sdk = plan.reference_client()
    if reference_sdk is None:
        pytest.skip("no SDK with a client role is installed")
    repo = tmp_path / "repo"
    for part in ("implementations", "adapters"):
        (repo / part).mkdir(parents=True)
        (repo / part / reference_sdk).symlink_to(paths.REPO / part / reference_sdk)
    shutil.copytree(paths.SUITES, repo / "suites")
    return repo
