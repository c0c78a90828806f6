"""The checks: pytest modules shipped with the harness, one runner for all of them.

- test_contract.py   the adapter contract (adapters/SPEC.md §7), parametrised by SDK
- test_arm_smoke.py  ARM builds served under qemu, parametrised by SDK, architecture and build
- test_remote.py     a server role on a host over SSH, parametrised by host and deployment

`uabench check`, `uabench arm-smoke` and `uabench remote` are this runner with different
selections; plain `pytest harness/uabench/checks -k milo` works as well. The options (the
store, the ARM matrix, the remote host; conftest.py) need the checks named by path: pytest
reads a conftest's options only from the paths it is given, so `pytest --pyargs
uabench.checks` runs the default selection.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(modules: list[str], options: list[str], junit: Path, keyword: str | None = None) -> int:
    """Run the named check modules (e.g. "test_contract") under pytest; its exit status."""
    import pytest

    junit.parent.mkdir(parents=True, exist_ok=True)
    args = [
        *(str(HERE / f"{module}.py") for module in modules),
        # By path, with this directory as rootdir: the conftest options are known at once,
        # and no repository configuration or cache directory is involved.
        f"--rootdir={HERE}",
        "-p",
        "no:cacheprovider",
        "-v",
        "-rfEs",
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit1",  # keeps each check's detail (record_property) in the XML
        *(["-k", keyword] if keyword else []),
        *options,
    ]
    return int(pytest.main(args))
