import time

import pytest
from helpers import wait_gone

from uabench.targets.process import AdapterError, AdapterProcess


def test_adapter_that_never_prints_ready_fails_within_the_timeout_with_its_stderr(script_adapter, workdir):
    sdk = script_adapter('echo "cannot bind port 4840: address in use" >&2; sleep 300 & wait')
    process = AdapterProcess(sdk, "server", {"port": 1}, workdir).start()
    started = time.monotonic()
    with pytest.raises(AdapterError, match="address in use") as error:
        process.wait_event(("ready",), timeout=1.5)
    assert time.monotonic() - started < 3
    assert "no ready event within 1.5 s" in str(error.value)
    status, _, _ = process.stop(timeout=2)
    assert status is not None
    assert wait_gone(process.pid) == []  # the backgrounded sleep died with its group


def test_adapter_that_exits_early_reports_status_and_stderr(script_adapter, workdir):
    sdk = script_adapter('echo "libfoo.so: not found" >&2; exit 3')
    process = AdapterProcess(sdk, "server", {"port": 1}, workdir).start()
    with pytest.raises(AdapterError, match=r"status 3(.|\n)*libfoo.so"):
        process.wait_event(("ready",), timeout=10)


def test_adapter_ignoring_sigterm_is_killed(script_adapter, workdir):
    sdk = script_adapter(
        'trap \'\' TERM; echo \'{"event":"ready","endpoint":"x","pid":1}\'; while true; do sleep 0.1; done'
    )
    process = AdapterProcess(sdk, "server", {"port": 1}, workdir).start()
    assert process.wait_event(("ready",), timeout=10)["endpoint"] == "x"
    status, seconds, killed = process.stop(timeout=0.5)
    assert killed and status == -9 and seconds < 3
    assert wait_gone(process.pid) == []


def test_lines_that_are_not_json_events_are_protocol_errors(script_adapter, workdir):
    sdk = script_adapter('echo \'Server started!\'; echo \'{"event":"ready","endpoint":"e","pid":1}\'; sleep 5')
    process = AdapterProcess(sdk, "server", {"port": 1}, workdir).start()
    process.wait_event(("ready",), timeout=10)
    assert process.protocol_errors == ["Server started!"]
    process.stop()


def test_cpu_pinning_is_applied(script_adapter, workdir):
    sdk = script_adapter('taskset -pc $$ >&2; echo \'{"event":"ready","endpoint":"e","pid":1}\'; sleep 5')
    process = AdapterProcess(sdk, "server", {"port": 1}, workdir, cpus={0}).start()
    process.wait_event(("ready",), timeout=10)
    assert "current affinity list: 0" in "\n".join(process.stderr_tail())
    process.stop()
