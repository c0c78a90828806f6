"""The checks can fail: `uabench check` against purpose-built faulty adapters (shell scripts,
two of them wrapping the real reference adapter with one fault each) must fail exactly the
checks whose contract clause they break, and pass the others."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from uabench import paths, plan, sdks

FAULTY = """#!/usr/bin/env bash
# The reference adapter with eight faults: it lies about its version, accepts an unknown
# server key, verifies nothing (sees no value advance, reads nothing back under load) as a client, swaps the client's
# send lag (none in the open loop, one entry in the closed loop), ignores think_ms and
# record_latencies (contract v6: it runs its config without them) and request_timeout_ms (v10: its
# SDK's own connect timeout instead), ignores SIGTERM as a server and, as a server, drops the
# NodeSet2 files it is given (SPEC §4) and starts without them.
real={real}
case "$1" in
  capabilities) "$real" capabilities | sed 's/"sdk": *"[^"]*"/"sdk":"faulty"/' ;;
  server)
    if grep -q signalz "$3"; then exit 0; fi
    config=$(mktemp); trap 'rm -f "$config"' EXIT
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c.pop("nodesets", None)
json.dump(c, open(sys.argv[2], "w"))' "$3" "$config"
    trap '' TERM; "$real" server --config "$config" || exit; sleep 30 ;;
  client)
    config=$(mktemp); trap 'rm -f "$config"' EXIT
    sed -e 's/"think_ms": *[0-9.]*/"think_ms": 0/' \
      -e 's/"record_latencies": *true/"record_latencies": false/' \
      -e 's/"request_timeout_ms": *[0-9][0-9]*/"request_timeout_ms": null/' "$3" > "$config"
    "$real" client --config "$config" | sed -u -e 's/"checked": *[0-9]*/"checked":0/g' \
      -e 's/"send_lag_ns": *[[][]]/"send_lag_ns":SWAP/' \
      -e 's/"send_lag_ns": *[[][][0-9, ]*[]]/"send_lag_ns":[]/' -e 's/"send_lag_ns":SWAP/"send_lag_ns":[[1000,1]]/' \
      -e 's/"ticks_advanced": *[0-9]*/"ticks_advanced":0/g' -e 's/"read_back": *[0-9]*/"read_back":0/g'
    exit "${{PIPESTATUS[0]}}" ;;
  *) exec "$real" "$@" ;;
esac
"""

MUTE = """#!/usr/bin/env bash
# Dies at once in every role without a word on stdout.
echo "mute: broken on purpose" >&2
exit 1
"""


def _add(repo: Path, sdk_id: str, script: str, version: str) -> None:
    (repo / "implementations" / sdk_id).mkdir()
    (repo / "implementations" / sdk_id / "sdk.toml").write_text(
        f'id = "{sdk_id}"\nlanguage = "bash"\nversion = "{version}"\nroles = ["server", "client", "publisher", '
        f'"subscriber"]\nworkloads = ["read", "write", "subscribe"]\n'
    )
    run = repo / "adapters" / sdk_id / "run"
    run.parent.mkdir()
    run.write_text(script)
    run.chmod(0o755)


def _outcomes(junit: Path) -> dict[str, str]:
    found = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[case.get("name")] = kinds[0] if kinds else "passed"
    return found


def test_faulty_adapters_fail_the_checks_they_break(check_repo, tmp_path):
    reference = sdks.get(plan.reference_client())
    _add(check_repo, "faulty", FAULTY.format(real=paths.REPO / "adapters" / reference.id / "run"), "9.9")
    _add(check_repo, "mute", MUTE, "1.0")
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "UABENCH_REPO": str(check_repo), "UABENCH_RESULTS": str(tmp_path / "results")}
    done = subprocess.run(
        [sys.executable, "-m", "uabench.cli", "check", "faulty", "mute", "--junit", str(junit)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    outcomes = _outcomes(junit)
    assert not any(reference.id in name for name in outcomes), "the reference SDK is not selected"
    faulty = {
        name.split("[")[0] + "[" + name.split("[", 1)[1].removeprefix("faulty").lstrip("-"): kind
        for name, kind in outcomes.items()
        if "[faulty" in name
    }
    assert faulty == {
        "test_capabilities_agree_with_sdk_toml[]": "failure",  # version 9.9 in sdk.toml
        "test_bad_config_exits_2_naming_the_key[server-unknown-key]": "failure",
        "test_bad_config_exits_2_naming_the_key[server-out-of-range]": "passed",
        "test_bad_config_exits_2_naming_the_key[client-unknown-key]": "passed",
        "test_bad_config_exits_2_naming_the_key[client-out-of-range]": "passed",
        "test_server_refuses_a_nodeset_it_cannot_read[]": "failure",  # dropped the files: ready
        "test_server_refuses_a_nodeset_that_is_not_one[]": "failure",
        "test_server_imports_a_companion_model[]": "failure",  # the probe finds no DI namespace
        "test_server_prints_ready[]": "passed",
        "test_reference_client_reads_every_node[1-node]": "passed",
        "test_reference_client_reads_every_node[all-nodes]": "passed",
        "test_client_reads_every_node_of_the_reference_server[1-node]": "failure",  # nothing verified
        "test_client_reads_every_node_of_the_reference_server[all-nodes-2-sessions]": "failure",
        "test_client_writes_the_reference_server_with_read_back[]": "failure",
        "test_client_reports_the_send_lag_of_the_open_loop[open-loop]": "failure",  # no send lag
        "test_client_reports_the_send_lag_of_the_open_loop[closed-loop]": "failure",  # a send lag
        "test_client_records_every_latency[open-loop]": "failure",  # no latencies
        "test_client_records_every_latency[closed-loop]": "failure",
        "test_client_waits_its_think_time[]": "failure",  # no think time
        "test_client_sees_the_values_of_the_reference_server_advance[]": "failure",  # ticks_advanced 0
        "test_values_of_the_server_advance_for_the_reference_client[]": "passed",
        "test_client_reads_back_writes_under_load[]": "failure",  # read_back 0 after hundreds of writes
        "test_server_keeps_writes_made_under_load[]": "passed",
        "test_client_asks_for_a_subscription_lifetime_that_outlives_a_short_loss[100-ms]": "passed",
        "test_client_asks_for_a_subscription_lifetime_that_outlives_a_short_loss[1-ms]": "passed",
        "test_unreachable_endpoint_gives_a_connect_error[]": "passed",
        # its connect gives up after open62541's own 5 s, not the 15 s asked
        "test_request_timeout_ms_is_how_long_a_client_waits_for_a_silent_server[]": "failure",
        "test_client_reads_its_own_server_over_basic256sha256[]": "skipped",  # declares no security
        "test_server_exits_0_within_5_s_of_sigterm[]": "failure",  # had to be killed
    }
    mute = {name: kind for name, kind in outcomes.items() if "[mute" in name}
    assert mute and all(kind == "failure" for name, kind in mute.items() if "basic256" not in name), mute
