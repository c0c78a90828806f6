"""An SDK is its folders (issue 37; adapters/SPEC.md §1, CONTRIBUTING "Adding an SDK"): in a copy
of this checkout, python-opcua's two folders are copied to a new name, renamed only inside those
folders, and nothing else is touched. uabench must then list the twin, check its contract, put it
into every suite matrix python-opcua is in, estimate its tests, plan its image and report its
figures, as it does for the SDK it copies.

The copy holds the checkout's tracked files (what a clone has); what the installs made (venvs,
builds, node_modules) is linked from this checkout, as a clone's own `make setup` would make it.
The harness's code is this checkout's, pointed at the copy by UABENCH_REPO."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from uabench import paths, plan

ORIGINAL = "python-opcua"
TWIN = "python-opcua-twin"
# what `make setup` makes in a checkout: linked into the copy, never copied or written
INSTALLED = (
    "adapters/*/build",
    "adapters/*/target",
    "adapters/*/node_modules",
    "implementations/*/.venv",
    "implementations/*/.prefix",
    "implementations/*/.build",
    "implementations/*/.src",
    "implementations/*/versions/*/.venv",
    "implementations/*/versions/*/.prefix",  # another version's C library (open62541 1.4.17)
    "implementations/*/versions/*/.build",
    ".cache/dist",
    ".cache/build-ca",
)
# the suites and what each selects for python-opcua (every suite of suites/plans)
SUITES = sorted(p.stem for p in plan.PLANS.glob("*.toml"))
NAMED = re.compile(rf"(?<![\w-]){re.escape(ORIGINAL)}(?![\w-])")


def _copy_checkout(copy: Path) -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=paths.REPO, capture_output=True, check=True)
    for name in filter(None, tracked.stdout.decode().split("\0")):
        source = paths.REPO / name
        if source.is_file() or source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name, follow_symlinks=False)
    for pattern in INSTALLED:
        for tree in paths.REPO.glob(pattern):
            link = copy / tree.relative_to(paths.REPO)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(tree)


def _make_twin(copy: Path) -> None:
    """The two folders copied (a venv or build inside stays a link) and every mention of the
    SDK's id in them renamed: its sdk.toml id, install paths, the adapter's SDK_ID."""
    for part in ("implementations", "adapters"):
        twin = copy / part / TWIN
        shutil.copytree(copy / part / ORIGINAL, twin, symlinks=True)
        for directory, _, files in os.walk(twin):  # os.walk does not follow the links into installs
            for name in files:
                file = Path(directory) / name
                if file.is_symlink():
                    continue
                text = file.read_text(encoding="utf-8")
                file.write_text(NAMED.sub(TWIN, text), encoding="utf-8")


def _entries(copy: Path) -> set[Path]:
    """Every file and link of the copy (os.walk: not through the links into the installs)."""
    found = set()
    for directory, subdirectories, files in os.walk(copy):
        for name in files + [d for d in subdirectories if (Path(directory) / d).is_symlink()]:
            found.add((Path(directory) / name).relative_to(copy))
    return found


@pytest.fixture(scope="module")
def twin_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (paths.IMPLEMENTATIONS / ORIGINAL / ".venv").exists():
        pytest.skip(f"{ORIGINAL} is not installed (make setup)")
    copy = tmp_path_factory.mktemp("twin") / "checkout"
    _copy_checkout(copy)
    before = _entries(copy)
    _make_twin(copy)
    after = _entries(copy)
    # the proof's premise: nothing outside the twin's two folders was added
    assert {p.parts[:2] for p in after - before} == {("implementations", TWIN), ("adapters", TWIN)}
    return copy


def _uabench(copy: Path, *args: str, timeout: float = 110) -> subprocess.CompletedProcess:
    env = {**os.environ, "UABENCH_REPO": str(copy), "UABENCH_RESULTS": str(copy / "results")}
    env.pop("UABENCH_HARNESS", None)  # a command of its own, not a child of this test's harness
    return subprocess.run(
        [sys.executable, "-m", "uabench.cli", *args],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_twin_is_listed_and_answers_as_its_sdk_toml_declares(twin_checkout):
    listed = _uabench(twin_checkout, "list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[1:] if line.strip()}
    assert rows[TWIN][1:3] == rows[ORIGINAL][1:3]  # language and version: the same SDK
    junit = twin_checkout / "results" / "check.xml"
    checked = _uabench(twin_checkout, "check", TWIN, "--quick", "--junit", str(junit))
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-2000:]
    cases = [case for case in ElementTree.parse(junit).iter("testcase") if TWIN in (case.get("name") or "")]
    assert len(cases) >= 10 and not [
        case for case in cases if case.find("failure") is not None
    ]  # its checks, by its id


@pytest.mark.timeout(300)  # 15 suites, each dry run 3-4 s on the 2-core machine (the lane's limit is 120 s)
def test_the_twin_joins_every_suite_matrix_its_original_is_in_with_its_estimate(twin_checkout):
    """Robot's dry run of every suite's smoke profile: the test names each suite would run."""
    missing, named = [], []
    for suite in SUITES:
        store = twin_checkout / "results" / f"dry-{suite}.sqlite"
        dry = _uabench(twin_checkout, "--store", str(store), "run", suite, "--profile", "smoke", "--dryrun")
        assert dry.returncode == 0, f"{suite}: {dry.stdout[-2000:]}{dry.stderr[-2000:]}"
        assert re.search(r"estimated duration \d\d:\d\d", dry.stdout), dry.stdout[-1000:]
        tests = [line for line in dry.stdout.splitlines() if re.match(r"\[\d+/\d+\] ", line)]
        if any(NAMED.search(t) for t in tests):
            named.append(suite)
            if not any(TWIN in t for t in tests):
                missing.append(suite)
    assert missing == [], f"suites whose tests name {ORIGINAL} but not {TWIN}: {missing}"
    # not vacuous: the suites whose matrices name each server by its id
    assert {"read", "write", "subscription", "conformance", "robustness", "soak", "resilience"} <= set(named), named


def test_the_image_plan_of_the_twin_stages_its_own_folders(twin_checkout):
    script = (
        "import json; from uabench.containers import images; a = images.arch('arm64'); images._build_ca();"
        f"staged = images.stage_context({TWIN!r}, a);"
        "print(json.dumps({'sdks': images.sdk_ids(), 'files': sorted(str(p.relative_to(staged)) "
        "for p in staged.rglob('*') if p.is_file()), "
        f"'args': images.recipe({TWIN!r}).build_args, 'dockerfile': str(images.dockerfile({TWIN!r}))}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "UABENCH_REPO": str(twin_checkout)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert TWIN in found["sdks"] and ORIGINAL in found["sdks"]
    assert f"adapters/{TWIN}/uabench_python_opcua/__main__.py" in found["files"]
    assert f"implementations/{TWIN}/requirements.lock" in found["files"]
    assert not any(ORIGINAL + "/" in f for f in found["files"]), found["files"]  # only the twin's own
    assert found["args"]["SDK"] == "{sdk}" and found["dockerfile"].endswith("ci/containers/python/Dockerfile")


@pytest.mark.timeout(300)  # four interop cells of a Python adapter, about a minute on the 2-core machine
def test_the_twins_figures_reach_the_report(twin_checkout):
    reference = plan.reference_client()
    assert reference is not None
    out = twin_checkout / "results" / "report"
    store = twin_checkout / "results" / "read.sqlite"
    run = _uabench(
        twin_checkout,
        "--store",
        str(store),
        "run",
        "read",
        "--profile",
        "smoke",
        "--include",
        "interop",
        "--sdk",
        f"{TWIN},{reference}",
        "--report",
        "--out",
        str(out),
        timeout=280,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    report = (out / "report.md").read_text()
    assert re.search(rf"\b{re.escape(reference)} reads {TWIN}\b", run.stdout), run.stdout[-2000:]
    assert TWIN in report
