"""Every bad input of the `uabench` command line, one table (issue 13): each row is refused
before anything starts (no adapter, no store written, no process left) with its exit status
and exactly one line on stderr naming the file, key or argument at fault, never a traceback.

The rows call the CLI's main() in this process (a fresh interpreter per row would take most of
a minute on a loaded machine); test_the_real_entry_point_says_the_same runs a few of them
through `python -m uabench.cli` to show the process's own stderr and status are the same."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from helpers.faults_inputs import _errors

from uabench import cli, paths

SMOKE = ["--profile", "smoke", "--sdk", "open62541"]


PLANS = paths.REPO / "suites" / "plans"
RUN = ["--store", "{t}/fresh.sqlite", "run", "read", *SMOKE]


# (id, argv, env, exit status, words of the one stderr line); grouped by area
ROWS = [
    # the command line itself
    ("no-command", [], {}, 2, ["required: command", "uabench --help"]),
    ("unknown-command", ["frob"], {}, 2, ["invalid choice: 'frob'"]),
    ("unknown-option", ["run", "--frob"], {}, 2, ["unrecognized arguments: --frob"]),
    ("unknown-global-option", ["--frob", "list"], {}, 2, ["unrecognized arguments: --frob"]),
    ("option-missing-value", ["run", "--profile"], {}, 2, ["--profile: expected one argument"]),
    ("option-bad-int", ["report", "--run", "x"], {}, 2, ["--run: invalid int value: 'x'", "uabench report --help"]),
    (
        "option-bad-float",
        ["predict", "--sdk", "open62541", "--signals", "abc", "--interval-ms", "1"],
        {},
        2,
        ["--signals: must be a whole number of at least 1, got 'abc'"],
    ),
    (
        "option-bad-choice",
        ["predict", "--sdk", "open62541", "--signals", "1", "--interval-ms", "1", "--communication", "carrier-pigeon"],
        {},
        2,
        ["--communication: invalid choice"],
    ),
    # plans
    ("plan-unknown", ["run", "nosuchplan", "--estimate"], {}, 2, ["no plan 'nosuchplan'", "known: "]),
    ("plan-missing-file", ["run", "{t}/missing.toml"], {}, 2, ["{t}/missing.toml", "no such plan file"]),
    ("plan-directory", ["run", "{t}/plan.d"], {}, 2, ["{t}/plan.d", "is a directory"]),
    ("plan-not-utf8", ["run", "{t}/latin1.toml"], {}, 2, ["{t}/latin1.toml", "line 2", "not UTF-8"]),
    ("plan-not-toml", ["run", "{t}/broken.toml"], {}, 2, ["{t}/broken.toml", "line 1"]),
    ("plan-without-suite", ["run", "{t}/nosuite.toml"], {}, 2, ["{t}/nosuite.toml", "suite"]),
    *(
        (f"plan-{name}", ["run", f"{{t}}/{name}.toml", "--estimate"], {}, 2, [f"{{t}}/{name}.toml", words])
        for name, words in (
            ("headroom-string", "headroom"),
            ("servers-misspelt", "milo0"),
            ("nodes-unbounded", "Signal_0..999999999"),
            ("nodes-per-request-zero", "nodes_per_request"),
            ("key-misspelt", "repetitons"),
        )
    ),
    ("time-budget-not-a-time", ["run", "read", "--time-budget", "abc"], {}, 2, ["--time-budget", "'abc'"]),
    ("time-budget-negative", ["run", "read", "--time-budget=-1"], {}, 2, ["--time-budget", "'-1'"]),
    ("profile-unknown", ["run", "read", "--profile", "nope"], {}, 2, ["read.toml", "no profile 'nope'"]),
    ("capacity-plan-unknown", ["capacity", "open62541", "--plan", "nosuch"], {}, 2, ["no plan 'nosuch'"]),
    # SDK selections
    ("run-sdk-unknown", ["run", "read", "--sdk", "nosuch"], {}, 2, ["unknown SDK 'nosuch'", "known: "]),
    ("run-sdk-empty", ["run", "read", "--sdk", ","], {}, 2, ["--sdk ','", "names no SDK"]),
    ("check-sdk-unknown", ["check", "nosuch"], {}, 2, ["unknown SDK 'nosuch'"]),
    ("check-nothing", ["check"], {}, 2, ["name SDKs or pass --all"]),
    ("check-all-and-sdk", ["check", "--all", "open62541"], {}, 2, ["name SDKs or pass --all (not both)"]),
    (
        "check-junit-uncreatable",
        ["check", "open62541", "--junit", "{t}/afile/j.xml"],
        {},
        2,
        ["--junit {t}/afile/j.xml", "cannot create {t}/afile"],
    ),
    (
        "check-junit-directory",
        ["check", "open62541", "--junit", "{t}/plan.d"],
        {},
        2,
        ["--junit {t}/plan.d", "directory"],
    ),
    ("capacity-sdk-unknown", ["capacity", "nosuch"], {}, 2, ["unknown SDK 'nosuch'"]),
    ("profile-sdk-unknown", ["profile", "nosuch"], {}, 2, ["unknown SDK 'nosuch'"]),
    (
        "profile-workload-unknown",
        ["profile", "open62541", "--workload", "nope"],
        {},
        2,
        ["--workload: no workload 'nope'", "has: read, read, SignAndEncrypt"],
    ),
    ("profile-plan-not-a-profile-plan", ["profile", "open62541", "--plan", "read"], {}, 2, ["is no profile plan"]),
    (
        "predict-sdk-unknown",
        ["--store", "{t}/fresh.sqlite", "predict", "--sdk", "nosuch", "--signals", "1", "--interval-ms", "1"],
        {},
        2,
        ["unknown SDK 'nosuch'"],
    ),
    ("images-arch-unknown", ["images", "--arch", "sparc"], {}, 2, ["unknown architecture 'sparc'"]),
    ("images-sdk-unknown", ["images", "--sdk", "nosuch"], {}, 2, ["no image recipe ([image] in sdk.toml) for nosuch"]),
    ("outdated-sdk-unknown", ["outdated", "--sdk", "nosuch"], {}, 2, ["unknown SDK nosuch (known: "]),
    ("arm-smoke-arch-unknown", ["arm-smoke", "--arch", "sparc"], {}, 2, ["unknown architecture 'sparc'"]),
    ("arm-smoke-sdk-unknown", ["arm-smoke", "--sdk", "nosuch"], {}, 2, ["unknown SDK 'nosuch'"]),
    # the store a run writes to: refused before the first cell
    (
        "run-store-directory",
        ["--store", "{t}/dir.sqlite", "run", "read", *SMOKE],
        {},
        2,
        ["{t}/dir.sqlite", "is a directory"],
    ),
    (
        "run-store-corrupt",
        ["--store", "{t}/corrupt.sqlite", "run", "read", *SMOKE],
        {},
        2,
        ["{t}/corrupt.sqlite", "not a valid SQLite database"],
    ),
    (
        "run-store-newer",
        ["--store", "{t}/newer.sqlite", "run", "read", *SMOKE],
        {},
        2,
        ["{t}/newer.sqlite", "schema version 99"],
    ),
    ("run-store-scheme", ["--store", "postgres://db/x", "run", "read", *SMOKE], {}, 2, ["scheme 'postgres'"]),
    (
        "run-store-parent-file",
        ["--store", "{t}/afile/x.sqlite", "run", "read", *SMOKE],
        {},
        2,
        ["{t}/afile/x.sqlite", "{t}/afile"],
    ),
    ("run-report-out-file", [*RUN, "--report", "--out", "{t}/afile"], {}, 2, ["--out {t}/afile", "not a directory"]),
    # one plan named by its name and by its path (issue 39: it was planned twice)
    ("run-plan-twice-by-path", ["run", "read", str(PLANS / "read.toml"), "--estimate"], {}, 2, ["is named twice"]),
    (
        "capacity-store-corrupt",
        ["--store", "{t}/corrupt.sqlite", "capacity", "open62541", "--profile", "smoke"],
        {},
        2,
        ["{t}/corrupt.sqlite", "not a valid SQLite database"],
    ),
    # the environment
    ("seed-not-a-number", RUN, {"UABENCH_SEED": "abc"}, 2, ["UABENCH_SEED", "'abc'"]),
    ("seed-negative", RUN, {"UABENCH_SEED": "-1"}, 2, ["UABENCH_SEED", "'-1'"]),
    ("seed-too-large", RUN, {"UABENCH_SEED": str(2**32)}, 2, ["UABENCH_SEED", str(2**32)]),
    # stores read by report, compare, model and predict
    *(
        (f"{command}-store-{kind}", ["--store", f"{{t}}/{kind}.sqlite", *args], {}, 2, [f"{{t}}/{kind}.sqlite", words])
        for kind, words in (
            ("missing", "no results store"),
            ("empty", "the file is empty, nothing stored in it"),
            ("corrupt", "not a valid SQLite database"),
            ("dir", "is a directory"),
            ("newer", "schema version 99"),
        )
        for command, args in (
            ("report", ["report", "--out", "{t}/out"]),
            ("trend", ["trend"]),
            ("model", ["model"]),
            ("predict", ["predict", "--sdk", "open62541", "--signals", "10", "--interval-ms", "100"]),
            ("compare-ids", ["compare", "1", "2", "--out", "{t}/out"]),
        )
    ),
    *(
        (
            f"compare-stores-{kind}",
            ["compare", f"{{t}}/{kind}.sqlite", "{t}/fresh.sqlite", "--out", "{t}/out"],
            {},
            2,
            [f"{{t}}/{kind}.sqlite"],
        )
        for kind in ("missing", "empty", "corrupt", "dir", "newer")
    ),
    (
        "report-no-finished-run",
        ["--store", "{t}/fresh.sqlite", "report", "--out", "{t}/out"],
        {},
        2,
        ["no finished runs", "{t}/fresh.sqlite"],
    ),
    (
        "trend-no-version-run",
        ["--store", "{t}/fresh.sqlite", "trend"],
        {},
        2,
        ["holds no finished run that measured an SDK at another version", "{t}/fresh.sqlite"],
    ),
    ("trend-unknown-sdk", ["trend", "--sdk", "milo0"], {}, 2, ["unknown SDK milo0", "known: "]),
    (
        "report-run-unknown",
        ["--store", "{t}/fresh.sqlite", "report", "--run", "99", "--out", "{t}/out"],
        {},
        2,
        ["no such runs", "{t}/fresh.sqlite"],
    ),
    (
        "compare-run-unknown",
        ["--store", "{t}/fresh.sqlite", "compare", "1", "2", "--out", "{t}/out"],
        {},
        2,
        ["{t}/fresh.sqlite", "no run 1"],
    ),
    ("compare-store-and-id", ["--store", "{t}/fresh.sqlite", "compare", "1", "x"], {}, 2, ["not '1' and 'x'"]),
    (
        "compare-stores-without-runs",
        ["compare", "{t}/fresh.sqlite", "{t}/fresh2.sqlite", "--out", "{t}/out"],
        {},
        2,
        ["{t}/fresh.sqlite", "no runs"],
    ),
    (
        "compare-store-with-itself",
        ["compare", "{t}/fresh.sqlite", "{t}/fresh.sqlite", "--out", "{t}/out"],
        {},
        2,
        ["'{t}/fresh.sqlite' and '{t}/fresh.sqlite' are one store"],
    ),
    (
        "margins-stores-without-runs",
        ["margins", "{t}/fresh.sqlite", "{t}/fresh2.sqlite", "--out", "{t}/margins.toml"],
        {},
        2,
        ["{t}/fresh.sqlite", "no runs"],
    ),
    ("margins-store-and-id", ["margins", "1", "x", "--out", "{t}/m.toml"], {}, 2, ["not '1' and 'x'"]),
    ("margins-without-out", ["margins", "a", "b"], {}, 2, ["the following arguments are required: --out"]),
    (
        "compare-margins-broken",
        ["compare", "{t}/fresh.sqlite", "{t}/fresh.sqlite", "--margins", "{t}/broken.toml"],
        {},
        2,
        ["{t}/broken.toml", "cannot read the margins"],
    ),
    ("reference-without-check", ["reference"], {}, 2, ["the following arguments are required: --check"]),
    (
        "reference-store-missing",
        ["reference", "--check", "--reference-store", "{t}/missing.sqlite"],
        {},
        2,
        ["{t}/missing.sqlite"],
    ),
    ("model-no-sweeps", ["--store", "{t}/fresh.sqlite", "model"], {}, 2, ["{t}/fresh.sqlite", "no sweep points"]),
    (
        "predict-no-sweeps",
        ["--store", "{t}/fresh.sqlite", "predict", "--sdk", "open62541", "--signals", "10", "--interval-ms", "100"],
        {},
        2,
        ["open62541", "no client-server sweep points", "run the subscription suite first"],
    ),
    (
        "predict-negative",
        ["--store", "{t}/fresh.sqlite", "predict", "--sdk", "open62541", "--signals", "-1", "--interval-ms", "100"],
        {},
        2,
        ["--signals: must be a whole number of at least 1, got '-1'"],
    ),
    # handicap (a test of compare): refused before anything runs
    *(
        (f"handicap-{name}", ["run", "read", *SMOKE, "--handicap", given], {}, 2, [message])
        for name, given, message in (
            ("form", "asyncua", "handicap 'asyncua': give SDK=FRACTION"),
            ("unknown", "frob=0.7", "no server SDK 'frob'"),
            ("share", "asyncua=1.5", "at least 0.05 and below 1, got 1.5"),
            ("number", "asyncua=x", "'x' is not a number"),
            ("twice", "asyncua=0.7,asyncua=0.5", "asyncua is handicapped twice"),
        )
    ),
    (
        "handicap-remote",
        ["run", "read", *SMOKE, "--handicap", "asyncua=0.7", "--server-target", "container"],
        {},
        2,
        ["a cgroup quota limits local servers only"],
    ),
    # import
    ("import-missing", ["--store", "{t}/fresh.sqlite", "import", "{t}/nope"], {}, 2, ["no spool at {t}/nope"]),
    ("import-empty-dir", ["--store", "{t}/fresh.sqlite", "import", "{t}/spool.d"], {}, 2, ["no spool at {t}/spool.d"]),
    (
        "import-garbage",
        ["--store", "{t}/fresh.sqlite", "import", "{t}/garbage"],
        {},
        2,
        ["{t}/garbage/cells.jsonl line 1", "not a spool record"],
    ),
    (
        "import-not-utf8",
        ["--store", "{t}/fresh.sqlite", "import", "{t}/binary"],
        {},
        2,
        ["{t}/binary/cells.jsonl", "cannot be read"],
    ),
    (
        "import-unknown-kind",
        ["--store", "{t}/fresh.sqlite", "import", "{t}/unknown-kind"],
        {},
        2,
        ["kinds no suite of this checkout records: 'frobnicate'", "nothing imported"],
    ),
    (
        "import-spool-before-store",
        ["--store", "{t}/dir.sqlite", "import", "{t}/garbage"],
        {},
        2,
        ["{t}/garbage/cells.jsonl"],
    ),
    # targets: refused before any store, core or namespace is touched
    *(
        (f"server-target-{name}", ["run", "read", *SMOKE, "--server-target", target], {}, 2, [message])
        for name, target, message in (
            ("option", "ssh://-oProxyCommand=x", "not starting with '-'"),
            ("space", "ssh://pi@host evil", "not local, container, vm or ssh://"),
            ("port", "ssh://pi@host:0", "port 0 is not between 1 and 65535"),
            ("unknown", "docker", "not local, container, vm or ssh://"),
        )
    ),
    ("client-target-ssh", ["run", "read", *SMOKE, "--client-target", "ssh://pi@host"], {}, 2, ["not supported"]),
    ("client-target-vm", ["run", "read", *SMOKE, "--client-target", "vm"], {}, 2, ["not supported"]),
    (
        "vm-no-arch",
        ["run", "read", *SMOKE, "--server-target", "vm"],
        {},
        2,
        ["give the VM's architecture: --arch arm64"],
    ),
    ("vm-armhf", ["run", "read", *SMOKE, "--server-target", "vm", "--arch", "armhf"], {}, 2, ["boots arm64 only"]),
    # no disk (or, on a machine without them, no qemu-system or not root): said before anything runs
    (
        "vm-no-disk",
        ["run", "read", *SMOKE, "--server-target", "vm", "--arch", "arm64"],
        {"UABENCH_ARM_VM_DIR": "/nonexistent/uabench-vm-disk"},
        2,
        ["--server-target vm: "],
    ),
    ("arch-local", ["run", "read", *SMOKE, "--arch", "arm64"], {}, 2, ["local processes are this machine's"]),
    ("arch-unknown", ["run", "read", *SMOKE, "--server-target", "container", "--arch", "sparc"], {}, 2, ["sparc"]),
]


def _files(directory: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(directory.rglob("*"))}


@pytest.mark.parametrize(("argv", "env", "status", "words"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_a_bad_input_is_one_line_and_an_exit_status_and_changes_nothing(
    inputs, monkeypatch, capsys, argv, env, status, words
):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    before = _files(inputs)
    try:
        code = cli.main([part.format(t=inputs) for part in argv])
    except SystemExit as stopped:  # argparse's way out
        code = stopped.code
    out, err = capsys.readouterr()
    lines = _errors(err)
    assert (code, len(lines)) == (status, 1), out[-1000:] + err
    for word in words:
        assert word.format(t=inputs) in lines[0], lines[0]
    assert "Traceback" not in out + err
    assert psutil.Process().children(recursive=True) == []  # no adapter, no pytest, no ssh was started
    assert _files(inputs) == before  # no store created or changed, no report, no run directory


def test_the_table_covers_every_command():
    commands = {action.dest: action for action in cli.parser()._subparsers._group_actions}["command"].choices
    named = {part for row in ROWS for part in row[1] if part in commands}
    assert set(commands) <= named


@pytest.mark.parametrize(
    "argv",
    [
        ["--store", "{t}/fresh.sqlite", "run", "read", *SMOKE],
        ["--store", "{t}/fresh.sqlite", "capacity", "open62541", "--profile", "smoke"],
        ["check", "open62541", "--quick", "--junit", "{t}/out/junit.xml"],
        ["images", "--sdk", "open62541"],
    ],
    ids=["run", "capacity", "check", "images"],
)
def test_a_results_directory_that_is_a_file_is_one_line_before_anything_starts(inputs, monkeypatch, capsys, argv):
    """UABENCH_RESULTS naming a file: a NotADirectoryError traceback once the store had been
    made (issue 39); now one line naming it, and nothing made."""
    monkeypatch.setattr(paths, "RESULTS", inputs / "afile")
    before = _files(inputs)
    code = cli.main([part.format(t=inputs) for part in argv])
    lines = _errors(capsys.readouterr().err)
    assert (code, len(lines)) == (2, 1), lines
    assert f"the results directory {inputs / 'afile'} (UABENCH_RESULTS): is a file, not a directory" in lines[0]
    assert psutil.Process().children(recursive=True) == []
    assert _files(inputs) == before
