"""The checks: pytest modules shipped with the harness, one runner for all of them.

- test_contract.py   the adapter contract (adapters/SPEC.md §7), parametrised by SDK
- test_arm_smoke.py  ARM builds served under qemu, parametrised by SDK, architecture and build

`uabench check` is this runner (`--all` adds the ARM checks, `--images` their image
variants; `--quick`, make test's form, checks each SDK's pinned version and leaves out the
checks marked `full`: the open-loop send lag and latency records, the think time, the
subscription lifetime read off the wire, the Basic256Sha256 read of its own server, and the
one-node reads and plain writes that make test's Robot smoke makes across the same pairs);
plain `pytest harness/uabench/checks -k milo` works as well. `uabench arm-smoke` and a server
on a host over SSH are no checks but runs with targets (uabench.targets): `uabench run read write
--profile smoke --server-target container --arch …` and `uabench run …
--server-target ssh://user@host`. The options (the store, the ARM matrix; conftest.py) need the
checks named by path: pytest reads a conftest's options only from the paths it is given, so
`pytest --pyargs uabench.checks` runs the default selection.
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
        *(["-k", keyword] if keyword else []),  # any pytest selection (the harness's own tests use it)
        *options,
    ]
    return int(pytest.main(args))
