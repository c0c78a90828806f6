"""The harness's scripts that run in asyncua's venv, not the harness's: the security handshake
(engine/security_handshake.py), the conformance probe (conformance/probe.py), the hostile
client (robustness/hostile.py) and the decoder of a client's recorded requests
(checks/decode_requests.py). Each is one process given its arguments as one JSON argument,
bounded in time, printing JSON lines; this module starts it and says clearly what went wrong.
asyncua is the asyncua adapter's pinned SDK (implementations/asyncua/install makes the venv)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

# The checkout this harness runs from, not UABENCH_REPO: the venv is the harness's own tool,
# which a repository of purpose-built faulty adapters (tests' check_repo) does not carry.
ASYNCUA = Path(__file__).resolve().parents[3] / "implementations" / "asyncua"
PYTHON = ASYNCUA / ".venv" / "bin" / "python"
STAMP = ASYNCUA / ".venv" / ".uabench-lock"  # ci/python-env's stamp: written last


def version() -> str:
    """The asyncua the scripts run (sdk.toml's pin): read when a script is run, not on import,
    so a checkout without asyncua still loads the harness's Robot library."""
    try:
        return str(tomllib.loads((ASYNCUA / "sdk.toml").read_text())["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "not installed"


def run(script: Path, arguments: dict, bound_s: float, what: str) -> subprocess.CompletedProcess:
    """`script` run with `arguments` to its end, within `bound_s`; RuntimeError (starting with
    `what`) when asyncua is not installed or the script overran."""
    if not STAMP.exists():
        raise RuntimeError(
            f"{what}: asyncua not installed ({PYTHON.parent.parent} missing or incomplete): "
            "run implementations/asyncua/install"
        )
    try:
        return subprocess.run(
            [str(PYTHON), str(script), json.dumps(arguments)], capture_output=True, text=True, timeout=bound_s
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{what}: no answer from {script.name} within {bound_s:g} s") from None


def failure(done: subprocess.CompletedProcess, what: str) -> RuntimeError:
    """The error of a script that printed no answer: its last line on stderr, or its exit."""
    last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return RuntimeError(f"{what} failed: {last}")


def last_line(done: subprocess.CompletedProcess, what: str) -> dict:
    """The JSON object of the script's last stdout line."""
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise failure(done, what) from None
    if not isinstance(found, dict):
        raise failure(done, what)
    return found
