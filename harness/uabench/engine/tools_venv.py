"""The tools that speak OPC UA themselves (tools/uabench_tools): the security handshake, the
conformance probe, the hostile client and the decoder of a client's recorded requests. They
run in their own environment, tools/.venv (ci/setup makes it from tools/requirements.lock),
whose OPC UA stack (asyncua) is pinned for the tools alone, so their verdicts do not move when
an SDK under test is upgraded. Each is one process given its arguments as one JSON argument,
bounded in time, printing JSON lines; this module starts it and says clearly what went wrong."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

# The checkout this harness runs from, not UABENCH_REPO: the tools are the harness's own, which
# a repository of purpose-built faulty adapters (tests' check_repo) does not carry.
TOOLS = Path(__file__).resolve().parents[3] / "tools"
PYTHON = TOOLS / ".venv" / "bin" / "python"
STAMP = TOOLS / ".venv" / ".uabench-lock"  # ci/python-env's stamp: written last


def version() -> str:
    """The tools' OPC UA stack, as "asyncua 2.1.0" (tools/requirements.in's pin): read when a
    tool is run, not on import, so a checkout without the tools still loads the harness."""
    try:
        pinned = re.search(r"^asyncua==(\S+)", (TOOLS / "requirements.in").read_text(), re.MULTILINE)
    except OSError:
        pinned = None
    return f"asyncua {pinned.group(1)}" if pinned else "not installed"


def run(tool: str, arguments: dict, bound_s: float, what: str) -> subprocess.CompletedProcess:
    """The tool `uabench_tools.<tool>` run with `arguments` to its end, within `bound_s`;
    RuntimeError (starting with `what`) when the tools are not installed or the tool overran."""
    if not STAMP.exists():
        raise RuntimeError(
            f"{what}: the tools are not installed ({PYTHON.parent.parent} missing or incomplete): run make setup"
        )
    try:
        return subprocess.run(
            [str(PYTHON), "-m", f"uabench_tools.{tool}", json.dumps(arguments)],
            capture_output=True,
            text=True,
            timeout=bound_s,
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{what}: no answer from {tool} within {bound_s:g} s") from None


def failure(done: subprocess.CompletedProcess, what: str) -> RuntimeError:
    """The error of a tool that printed no answer: its last line on stderr, or its exit."""
    last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return RuntimeError(f"{what} failed: {last}")


def last_line(done: subprocess.CompletedProcess, what: str) -> dict:
    """The JSON object of the tool's last stdout line."""
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise failure(done, what) from None
    if not isinstance(found, dict):
        raise failure(done, what)
    return found
