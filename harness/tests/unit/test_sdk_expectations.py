"""sdk.toml [expectations]: what the estimate expects of an SDK, declared in its own folder."""

import pytest

from uabench import estimate, sdks
from uabench.robustness import batches

MAIN = 'id = "x"\nlanguage = "C"\nversion = "2.0"\nroles = ["server", "client"]\n'


def _load(tmp_path, text: str) -> sdks.Sdk:
    toml = tmp_path / "sdk.toml"
    toml.write_text(MAIN + text)
    return sdks._load(toml)[0]


def test_declared_expectations_are_read(tmp_path):
    sdk = _load(tmp_path, "[expectations]\nstartup_s = 0.5\nsteady_chunks = 9\nfuzz_case_s = [0.1, 0.2]\n")
    assert sdk.expectations == sdks.Expectations(startup_s=0.5, steady_chunks=9, fuzz_case_s=(0.1, 0.2))


def test_an_sdk_that_declares_none_gets_the_estimates_defaults(tmp_path):
    assert _load(tmp_path, "").expectations == sdks.Expectations()
    assert estimate.startup_s("no-such-sdk") == estimate.STARTUP_DEFAULT_S
    silent = batches.typical_seconds("fuzz-bitflip", 10, 100.0)
    assert silent == batches.HOSTILE_START_S + 10 * batches.SILENT_CASE_S[0]
    assert batches.typical_seconds("fuzz-bitflip", 10, 100.0, (0.1, 0.2)) == pytest.approx(batches.HOSTILE_START_S + 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[expectations]\nstart_s = 1\n", "expectations: unknown key 'start_s'"),
        ("[expectations]\nstartup_s = -1\n", r"expectations.startup_s: must be a number ≥ 0, got -1"),
        ('[expectations]\nsteady_chunks = "8"\n', "expectations.steady_chunks: must be a number"),
        ("[expectations]\nfuzz_case_s = [1]\n", r"expectations.fuzz_case_s: must be two seconds \[mutated, built\]"),
        ("[expectations]\nstartup_s = true\n", "expectations.startup_s: must be a number"),
        ("expectations = 3\n", "expectations: must be a table"),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_key(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        _load(tmp_path, text)


def test_every_installed_sdk_declares_its_start_up_and_warm_up():
    for sdk in sdks.all_sdks():
        assert sdk.expectations.startup_s is not None and sdk.expectations.steady_chunks is not None, sdk.id


def test_the_estimate_is_calibrated_by_the_last_comparable_run_of_its_suite_on_this_machine():
    from uabench import estimate

    def run(
        run_id, estimate_s=100.0, took_s=120.0, budget_s=None, machine="m", suite="read", status="finished", total=None
    ):
        schedule = {"estimate_s": estimate_s, "time_budget_s": budget_s, "estimate_total_s": total}
        return {
            "id": run_id,
            "suite": suite,
            "profile": "quick",
            "status": status,
            "started_ns": 0,
            "finished_ns": int(took_s * 1e9),
            "provenance": {"schedule": schedule, "machine": {"fingerprint": machine}},
        }

    runs = [
        run(1, took_s=110.0),
        run(2, took_s=130.0),  # the newest comparable one: 1.3
        run(3, budget_s=500.0, total=400.0, took_s=480.0),  # a budget above the run's estimate: repetitions filled it
        # a budget for the whole run (four suites) above this suite's estimate but below the total's: comparable
        run(8, budget_s=500.0, total=800.0, took_s=100.0, suite="write"),
        run(9, budget_s=500.0, took_s=90.0, suite="write"),  # no total recorded: cannot tell, not used
        run(4, machine="other", took_s=300.0),
        run(5, suite="write", took_s=50.0),
        run(6, status="interrupted", took_s=10.0),
        run(7, estimate_s=None),  # before the estimate was recorded
    ]
    found = estimate.calibration(runs, "read", "quick", "m")
    assert found is not None and (found.run_id, found.factor) == (2, 1.3)
    assert "× 1.30: run 2 of this suite on this machine took 02:10 against its 01:40" in found.text()
    model = estimate.Estimate(60.0, (20.0, 40.0), 7, 90.0)
    assert estimate.calibrated(model, found) == estimate.Estimate(78.0, (26.0, 52.0), 7, 117.0)
    assert estimate.calibration(runs, "read", "quick", "elsewhere") is None
    assert estimate.calibration(runs, "write", "quick", "m").run_id == 8
    # a run on the VM target (emulated: several times as long) calibrates only runs there
    on_vm = run(10, took_s=400.0)
    on_vm["provenance"]["targets"] = {"server": {"kind": "ssh", "name": "vm", "arch": "arm64"}}
    assert estimate.calibration([*runs, on_vm], "read", "quick", "m").run_id == 2
    assert estimate.calibration([*runs, on_vm], "read", "quick", "m", "vm arm64").run_id == 10
    assert estimate.calibrated(model, None) is model
    # of those, the newest whose servers were of the same languages, else the newest
    python = {**run(11, took_s=800.0), estimate.LANGUAGES: ["Python"]}
    native = {**run(12, took_s=300.0), estimate.LANGUAGES: ["C", "Go", "Rust"]}
    for each in (python, native):
        each["provenance"]["targets"] = on_vm["provenance"]["targets"]
    vm_runs = [*runs, on_vm, python, native]
    assert estimate.calibration(vm_runs, "read", "quick", "m", "vm arm64", ["Python"]).run_id == 11
    assert estimate.calibration(vm_runs, "read", "quick", "m", "vm arm64", ["Rust", "Go", "C"]).run_id == 12
    by_java = estimate.calibration(vm_runs, "read", "quick", "m", "vm arm64", ["Java"])
    assert (
        by_java.run_id == 12
        and "run 12 of this suite on this machine (C, Go, Rust servers) took 05:00" in by_java.text()
    )
    assert "(Python servers)" in estimate.calibration(vm_runs, "read", "quick", "m", "vm arm64", ["Python"]).text()
    provenance = {"sdks": {"asyncua": {"language": "Python"}, "open62541": {"language": "C"}}}
    assert estimate.server_languages({"provenance": provenance}, {"asyncua", "open62541"}) == ["C", "Python"]
