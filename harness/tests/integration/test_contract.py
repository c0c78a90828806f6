import json
import subprocess

import pytest
import uabench_contract as contract
from helpers.contract import CONFIGS, _label, _unreadable_file
from uabench_contract import validation

from uabench import paths

LAUNCHED = [
    v
    for v in CONFIGS["bad"]
    if v["role"] in ("server", "client")
    and v["key"] in ("signalz", "security.endpoints[0].policy", "sessions", "nodes_per_reqest")
]


@pytest.mark.parametrize("sdk", ["asyncua", "python-opcua", "node-opcua"])
@pytest.mark.parametrize("vector", LAUNCHED, ids=_label)
def test_adapter_launcher_refuses_bad_config(sdk, vector, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(vector["config"]))
    done = subprocess.run(
        [str(paths.ADAPTERS / sdk / "run"), vector["role"], "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == vector["exit"], done.stderr[-500:]
    event = json.loads(done.stdout.strip().splitlines()[-1])
    assert validation.problems("event", event) == []
    assert event["kind"] == vector["kind"] and vector["key"] in event["message"]


# Each adapter's launcher and role gets a few of the file-level vectors (all of them for
# every role would take minutes); together they cover every kind of unreadable file.
LAUNCHER_ROLES = {
    "asyncua": contract.ROLES,
    "python-opcua": ("server", "client"),
    "node-opcua": ("server", "client"),
}


FILE_LEVEL = [v for v in CONFIGS["unreadable"] if v["any_role"]]


UNREADABLE_LAUNCHED = [
    (sdk, role, FILE_LEVEL[(n * 7 + k) % len(FILE_LEVEL)])
    for n, (sdk, roles) in enumerate(LAUNCHER_ROLES.items())
    for role in roles
    for k in range(0, len(FILE_LEVEL), 7)
]


@pytest.mark.parametrize(
    ("sdk", "role", "vector"), UNREADABLE_LAUNCHED, ids=lambda x: x["name"] if isinstance(x, dict) else x
)
def test_adapter_launcher_refuses_unreadable_config(sdk, role, vector, tmp_path):
    done = subprocess.run(
        [str(paths.ADAPTERS / sdk / "run"), role, "--config", str(_unreadable_file(vector, tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == vector["exit"], done.stdout[-500:] + done.stderr[-500:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, lines
    event = json.loads(lines[0])
    assert validation.problems("event", event) == []
    assert event["kind"] == vector["kind"] and vector["says"] in event["message"]


@pytest.mark.parametrize("sdk", ["asyncua", "python-opcua", "node-opcua"])
def test_adapter_capabilities_keep_the_schema(sdk):
    done = subprocess.run(
        [str(paths.ADAPTERS / sdk / "run"), "capabilities"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert validation.problems("capabilities", json.loads(done.stdout)) == []


def test_verification_replay_fails_a_vector_the_reference_does_not_keep(tmp_path):
    """contract/vectors/replay.py (the Python clients' runner of verification.json, each
    Python SDK's `tests` step) is no test that cannot fail: a vector expecting a pass where R1
    fails, a ticks_advanced off by one, a read-back that should fail, and a timeline count."""
    vectors = json.loads((paths.REPO / "contract" / "vectors" / "verification.json").read_text())
    r1 = next(c for c in vectors["read"] if c["name"].startswith("R1: a Signal one update"))
    r1["steps"][1]["response"]["fails"][2] = None
    r1["ticks_advanced"] += 1
    next(c for c in vectors["read_back"] if c["fails"])["fails"] = None
    vectors["timeline"][0]["record"]["ops"][0] += 1
    faulty = tmp_path / "verification.json"
    faulty.write_text(json.dumps(vectors))
    python = paths.REPO / "implementations" / "asyncua" / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), str(paths.REPO / "contract" / "vectors" / "replay.py"), "asyncua", str(faulty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr[-500:]
    problems = json.loads(done.stdout)
    assert len(problems) == 4, problems
    assert "got 'Signal_3: tick 17, but Tick 25 (mod 16384) in the same response', expected None" in problems[0]
