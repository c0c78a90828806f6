"""The `uabench` command line."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from uabench import paths, plan, sdks, targets
from uabench.containers import isolation
from uabench.containers.engine import EngineError
from uabench.containers.isolation import IsolationError
from uabench.plan import PlanError
from uabench.proc import cleanup, whole
from uabench.proc.lock import LockError
from uabench.proc.lock import release as release_cores
from uabench.results.model import ModelError
from uabench.results.store import Store, StoreError, open_store

DEFAULT_SUITES = ("read", "write")

if TYPE_CHECKING:
    from uabench.results.compare import Side
    from uabench.results.margins import Margins


def cmd_list(_args: argparse.Namespace) -> int:
    rows: list[tuple[str, ...]] = [("sdk", "language", "version", "roles", "workloads", "security policies")]
    # every declared version (`asyncua@1.1.8`: the id a plan or --sdk selects it by), each after its pinned one
    for sdk in sdks.every_version():
        rows.append(
            (sdk.id, sdk.language, sdk.version, ",".join(sdk.roles), ",".join(sdk.workloads), ",".join(sdk.policies))
        )
    _print_columns(rows)
    return 0


def _print_columns(rows: list[tuple[str, ...]]) -> None:
    """Rows as left-aligned columns, the first row the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def cmd_outdated(args: argparse.Namespace) -> int:
    from uabench import outdated

    wanted = [s for s in args.sdk.split(",") if s] if args.sdk else None
    known = {versions[0].id for versions in sdks.registry()}
    unknown = sorted(set(wanted or ()) - known)
    if unknown:
        print(
            f"uabench outdated: unknown SDK {', '.join(unknown)} (known: {', '.join(sorted(known))})", file=sys.stderr
        )
        return 2
    findings = outdated.survey(wanted)
    _print_columns(outdated.table(findings))
    for f in findings:
        if f.verdict == outdated.NEWER:
            print(
                f"To try {f.sdk} {f.newest} beside {f.pinned} (README, versions side by side): declare "
                f'[versions."{f.newest}"] in implementations/{f.sdk}/sdk.toml, UABENCH_SDK_VERSION={f.newest} '
                f"implementations/{f.sdk}/install, then the quick version plan and its verdicts: uabench --store "
                f"results/versions.sqlite run read write subscription encryption footprint --profile quick --versions "
                f"--sdk {_with_references(f.sdk)}; uabench --store results/versions.sqlite trend --sdk {f.sdk}"
            )
    return outdated.exit_status(findings)


def _with_references(chosen: str) -> str:
    """`chosen` (comma-separated SDKs) and the reference client and server, which a version plan
    needs beside them: the load generator, and the server each version's ratio is taken to."""
    from uabench import references

    named = [*chosen.split(","), references.declared("client"), references.declared("server")]
    return ",".join(dict.fromkeys(named))


def cmd_check(args: argparse.Namespace) -> int:
    from uabench import checks

    if args.all == bool(args.sdk):
        print("uabench check: name SDKs or pass --all (not both)", file=sys.stderr)
        return 2
    if not args.all and (args.images or args.require_builds):
        flag = "--images" if args.images else "--require-builds"
        print(f"uabench check: {flag} applies to the ARM checks, which only --all runs", file=sys.stderr)
        return 2
    if args.quick and (args.images or args.require_builds):
        print(
            "uabench check: --quick leaves out the ARM checks, so --images and --require-builds mean nothing with it",
            file=sys.stderr,
        )
        return 2
    if not args.all:
        for sdk_id in args.sdk:
            sdks.get(sdk_id)  # an unknown name is an error, not an empty selection
    _results_directory()  # the adapters' sessions work in its runs/, the JUnit file by default too
    junit = _junit(args.junit, "check")
    _claim_cores("uabench check")  # its adapters run on these cores as a run's do
    if args.quick:  # make test's form: the pinned version of each SDK, no check marked `full`, no ARM
        pinned = args.sdk or [sdk.id for sdk in sdks.all_sdks()]
        return checks.run(["test_contract"], ["--sdk", ",".join(pinned), "-m", "not full"], junit)
    if args.all:  # every contract check, and the ARM checks of the builds here
        # The ARM images take far longer to build than a check run (docs/arm.md): their checks run
        # only when asked for, so that a plain --all never reports them as skipped.
        options = ["--arm-how", "image,binary" if args.images else "binary"]
        options += ["--require-builds"] if args.require_builds else []
        # without a chosen engine the image checks use podman, as before
        with _container_engine(bool(args.engine or os.environ.get("UABENCH_ENGINE")), args.engine):
            return checks.run(["test_contract", "test_arm_smoke"], options, junit)
    return checks.run(["test_contract"], ["--sdk", ",".join(args.sdk)], junit)


def _selected(args: argparse.Namespace) -> Callable[[plan.TestCase], bool]:
    """The run's --include, --exclude and --test as Robot applies them (its own matchers), so
    the estimate counts only the tests that will run. The adapter check has no tag: as in
    Robot, an --include leaves it out."""
    from robot.model import TagPatterns
    from robot.utils import MultiMatcher

    include, exclude = TagPatterns(args.include or []), TagPatterns(args.exclude or [])
    names = MultiMatcher(args.test or [], match_if_no_patterns=True)

    def selected(case: plan.TestCase) -> bool:
        return (
            (not args.include or include.match(case.tags)) and not exclude.match(case.tags) and names.match(case.name)
        )

    return selected


def _junit(given: str | None, command: str) -> Path:
    """The JUnit file of a check command, its directory made now: one that cannot be is one
    line before any check starts, not a traceback after."""
    junit = Path(given or paths.RESULTS / command / "junit.xml")
    try:
        junit.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"--junit {junit}: cannot create {junit.parent}: {error.strerror or error}") from None
    if junit.is_dir():
        raise ValueError(f"--junit {junit}: is a directory, not a file")
    return junit


def _claim_cores(holder: str) -> None:
    """This invocation's CPUs, held until it ends (proc/lock.py): refused with one line when
    another uabench run or check holds any of them."""
    from uabench.proc import lock

    lock.claim(os.sched_getaffinity(0), holder)


def _time_budget(text: str) -> float:
    from uabench.engine import budget

    try:
        return budget.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(text: str) -> float:
    """A finite number above 0 (argparse's float takes nan, inf and -5 alike)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text!r}")
    return value


def _whole(text: str) -> int:
    """A whole number of at least 1 (sessions, clients)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return value


def cmd_run(args: argparse.Namespace) -> int:
    """One Robot execution of every plan's suite: one output.xml, log.html and report.html in
    the run's directory, tests from the Matrix modifier, `[k/N]` progress from the listener."""
    try:
        return _run(args)
    finally:  # the versions this run measured (_versions_measured) are not the next command's
        plan.measure_versions(None)


def _run(args: argparse.Namespace) -> int:
    from robot.run import run as run_robot  # robot.run the function, not the module

    from uabench import estimate, rundir
    from uabench.engine import budget
    from uabench.proc import launcher
    from uabench.results import provenance, reference, spool
    from uabench.robot.modifier import Matrix
    from uabench.robot.pacing import Pacer, budget_note
    from uabench.robot.progress import Progress
    from uabench.robot.signals import StopSignals

    _seed()
    if args.out is not None and not args.report:
        raise ValueError(f"--out {args.out}: names the report's directory, and there is none without --report")
    args.out = args.out or str(paths.RESULTS / "report")
    only = plan.selected(args.sdk)
    chosen = [plan.load(name) for name in (args.plans or DEFAULT_SUITES)]
    resolved = [Path(one.path).resolve() for one in chosen]  # read and suites/plans/read.toml are one plan
    twice = sorted({str(one.path) for one, at in zip(chosen, resolved, strict=True) if resolved.count(at) > 1})
    if twice:
        raise ValueError(f"plan {twice[0]} is named twice: each plan runs once per invocation")
    placement = _placement(args)
    plan.measure_versions(_versions_measured(args.versions, placement))
    _handicap(args.handicap, placement)
    if placement[0].kind == "container" or placement[1].kind == "container":
        _containable([one.suite for one in chosen])
    _network_local([one for one in chosen if one.kind == "network"], placement)
    estimates: list[estimate.Estimate] = []
    asked: set[str] = set()  # each adapter's capabilities are asked once per run
    earlier, fingerprint = _earlier_runs(args.store), provenance.machine()["fingerprint"]
    modelled: dict[str, float] = {}
    for one in chosen:
        one.require_profile(args.profile)
        plan.require_cells(one, only, args.profile)  # a plan that selects nothing is an error
        model = estimate.for_plan(one, args.profile, only, asked=asked, selected=_selected(args))
        modelled[one.suite] = model.seconds
        by = estimate.calibration(
            earlier, one.suite, args.profile, fingerprint, _place(placement[0], args.arch), _languages(only)
        )
        estimates.append(estimate.calibrated(model, by))
        how = f" ({by.text()})" if by else ""
        print(f"{one.path.stem}: {estimate.clock(estimates[-1].seconds)}{how} ({len(estimates[-1].tests)} tests)")
    total = estimate.total(estimates)
    print(f"{args.profile} profile: {total.text()}", flush=True)
    listeners: list[object] = [Progress(), StopSignals()]
    if args.time_budget is not None:
        listeners.append(Pacer(args.time_budget))
        print(f"time budget {estimate.clock(args.time_budget)}: {budget_note(total.seconds, args.time_budget)}")
    if args.estimate:
        return 0
    budget.set_estimates(modelled)  # the model's, recorded with each run for the next calibration
    if args.report:  # the report is written after the run: a directory that cannot be is said now
        _out_directory(args.out)
    _results_directory()
    _claim_cores(f"store {args.store}")
    _writable_store(args.store)
    cleanup.note_signals()  # until Robot runs: robot.signals.StopSignals takes over then
    marker = launcher.mark_harness()  # every run this invocation stores carries it
    if reference.uncommitted(provenance.git_commit()):  # said before the run, once every input is checked
        print(
            "uabench: warning: the measured code has uncommitted changes: this run is stored as measured by "
            "a dirty work tree, and its report says that no commit reproduces it",
            file=sys.stderr,
        )
    run_dir = rundir.new()
    selection = {
        key: value
        for key, value in (("include", args.include), ("exclude", args.exclude), ("test", args.test))
        if value
    }
    with _placed(placement, args, only, run_dir):
        try:
            status = run_robot(
                *[str(paths.SUITES / f"{one.suite}.robot") for one in chosen],
                outputdir=str(run_dir),
                prerunmodifier=[Matrix([str(one.path) for one in chosen], args.profile, args.sdk or "", run_dir)],
                listener=listeners,
                variable=[f"STORE:{args.store}"],
                dryrun=args.dryrun,
                name="uabench" if len(chosen) > 1 else None,
                pythonpath=[str(paths.REPO / "harness")],
                console="quiet",
                loglevel="INFO",
                **selection,
            )
        except SystemExit:  # Robot's answer to a second signal: stop at once
            status = 1
    print(f"Robot output, log and report: {run_dir}")
    refused = spool.refusal(run_dir)  # a store that refused cells: its line naming the import, exit 2
    if refused:
        raise refused
    if _close_runs(args.store, marker, cleanup.received()):
        return 130
    if args.report and not args.dryrun:
        try:
            status |= cmd_report(argparse.Namespace(store=args.store, out=args.out, run=None))
        except KeyboardInterrupt:  # the run is whole and stored finished; only its report was cut
            print(
                f"uabench: interrupted while writing the report; the run is stored finished, {WRITTEN_WHOLE}: "
                f"`uabench --store {args.store} report --out {args.out}` writes it",
                file=sys.stderr,
            )
            return 130
    return 1 if status else 0


def _handicap(given: str | None, placement: tuple[targets.Spec, targets.Spec]) -> None:
    """--handicap, checked before anything runs and handed to the run's sessions (Robot runs in
    this process) as UABENCH_HANDICAP; without it, a value inherited from the environment is
    dropped, so that only a run asked for on its command line is handicapped."""
    from uabench.engine import handicap
    from uabench.proc import cgroups

    os.environ.pop(handicap.VARIABLE, None)
    if given is None:
        return
    handicap.parse(given)  # a ValueError of one line
    if placement[0].kind != "local":
        raise ValueError(f"--handicap {given}: a cgroup quota limits local servers only, not on {placement[0]}")
    missing = cgroups.unavailable()
    if missing:
        raise ValueError(f"--handicap {given}: {missing}")
    os.environ[handicap.VARIABLE] = given


# Suites whose adapters run in network namespaces: `docker run --network host` joins the
# daemon's network namespace, never one the harness made.
NAMESPACED_SUITES = frozenset({"pubsub", "network"})


def _containable(suites: list[str]) -> None:
    namespaced = sorted(NAMESPACED_SUITES.intersection(suites))
    if namespaced:
        raise ValueError(
            f"--isolation container: {', '.join(namespaced)} runs adapters in network namespaces, which a "
            "container started with the host's network cannot join; run it with --isolation host"
        )


def _network_local(network_plans: list[plan.Plan], placement: tuple[targets.Spec, targets.Spec]) -> None:
    """The network suite builds its own path between two namespaces of this machine: it places
    both roles itself."""
    if network_plans and (placement[0].kind, placement[1].kind) != ("local", "local"):
        raise targets.TargetError(
            f"{network_plans[0].suite}: its servers and clients run in network namespaces of this machine "
            "joined by a shaped path; run it without --server-target, --client-target and --isolation"
        )


def _placement(args: argparse.Namespace) -> tuple[targets.Spec, targets.Spec]:
    """The server-side and measured roles' targets the command line asks for, checked before
    anything runs; `--isolation container` is both roles in containers."""
    server, client = targets.parse(args.server_target), targets.parse(args.client_target)
    if args.isolation == "container":
        if (server.kind, client.kind) != ("local", "local"):
            raise targets.TargetError("--isolation container places every role: give it without --server-target")
        server = client = targets.Spec("container")
    if server.kind == "ssh":
        from uabench.targets import remote

        try:  # before ssh ever sees it
            remote.check_target(server.target, server.port)
        except remote.RemoteError as error:
            raise targets.TargetError(f"--server-target {server}: {error}") from None
    if client.kind in ("ssh", "vm"):
        raise targets.TargetError(
            f"--client-target {client}: not supported: the measured roles (clients, subscribers) run on this "
            f"machine or in its containers; put the servers on the {client.kind.upper()} target with --server-target"
        )
    if server.kind == "vm":
        from uabench.targets import vm

        if not args.arch:
            raise targets.TargetError(f"--server-target vm: give the VM's architecture: --arch {vm.ARCHES[0]}")
        why = vm.available(args.arch)
        if why:
            raise targets.TargetError(f"--server-target vm: {why}")
    if args.arch:
        from uabench.containers import images

        images.arch(args.arch)  # a ValueError of one line for an unknown one
        if (server.kind, client.kind) == ("local", "local"):
            raise targets.TargetError(
                f"--arch {args.arch}: local processes are this machine's; run another architecture with "
                "--server-target container or ssh://…"
            )
    return server, client


def _place(server: targets.Spec, arch: str | None) -> str:
    """Where a run's servers will be, as results.runs.place names a stored run's: '' for this
    machine (its own processes or containers), else the SSH or VM target and the images' arch."""
    if server.kind == "vm":
        return f"vm {arch}"
    if server.kind == "ssh":
        return f"{server} {arch or isolation.host_arch().name}"
    return ""


@contextlib.contextmanager
def _placed(
    placement: tuple[targets.Spec, targets.Spec], args: argparse.Namespace, only: list[str] | None, run_dir: Path
):
    """While the suites run: each role on its target (targets/). Local: nothing to do. A
    container target: the engine running and every chosen SDK's image prepared; an SSH target:
    connected, the harness's sampler shipped, the clocks compared, every image loaded there; a
    VM target: booted, then an SSH target."""
    server, client = placement
    if (server.kind, client.kind) == ("local", "local"):
        yield
        return
    from uabench.containers import engine as engines
    from uabench.containers import images
    from uabench.targets import ssh

    arch = images.arch(args.arch) if args.arch else isolation.host_arch()
    chosen = list(only) if only is not None else [sdk.id for sdk in sdks.all_sdks()]
    measuring = list(chosen)
    reference = plan.reference_client()
    if reference is not None and reference not in measuring:
        measuring.append(reference)  # it warms servers up and measures their capacity

    with contextlib.ExitStack() as stack:
        running = stack.enter_context(engines.running(args.engine))
        print(f"targets: servers {server}, clients {client}, images {arch.name} with {running.name}", flush=True)
        placed: dict[str, targets.Target | None] = {"server": None, "client": None}

        def say(line: str) -> None:
            print(line, flush=True)

        # a server target gets the reference client's image too: the footprint suite measures each
        # client's memory there against it (targets.Placement.clients_beside_servers)
        for role, spec, wanted in (("server", server, measuring), ("client", client, measuring)):
            if spec.kind == "container":
                # the measured side stays this machine's architecture: the load generator is native
                made = isolation.prepare(running, wanted, run_dir / "images", print, arch if role == "server" else None)
                for image in made.images.values():
                    print(f"  {role} {image.sdk}: {image.name} {image.digest[:19]}", flush=True)
                placed[role] = made
            elif spec.kind == "ssh":
                placed[role] = stack.enter_context(
                    ssh.connect(
                        spec,
                        arch,
                        wanted,
                        run_dir,
                        say,
                        args.ssh_identity,
                        args.ssh_known_hosts,
                        args.target_env,
                    )
                )
            elif spec.kind == "vm":
                from uabench.targets import vm

                booted = stack.enter_context(vm.booted(arch.name, say))
                placed[role] = stack.enter_context(
                    ssh.connect(
                        targets.Spec("ssh", booted.host.target, booted.host.port),
                        arch,
                        wanted,
                        run_dir,
                        say,
                        booted.host.identity,
                        booted.host.known_hosts,
                        args.target_env,
                        vm=booted.about,
                    )
                )
        targets.use(targets.Placement(placed["server"], placed["client"]))
        try:
            yield
        finally:
            targets.use(None)


def _versions_measured(asked: bool, placement: tuple[targets.Spec, targets.Spec]) -> bool | None:
    """plan.measure_versions for this run: `--versions` measures every declared version, and a
    target other than this machine measures none (an image, Bazel's cross-build and `uabench
    images`, is made of the pinned version only), a plan's `versions` profiles included."""
    away = [spec for spec in placement if spec.kind != "local"]
    if not away:
        return True if asked else None
    if asked:
        raise ValueError(
            f"--versions: the other declared versions run on this machine only, not on the {away[0]} target "
            "(its images are built of the pinned versions): leave out --versions or the target"
        )
    print(f"versions: the pinned ones alone on the {away[0]} target (its images are built of them only)", flush=True)
    return False


def _earlier_runs(location: str) -> list[dict]:
    """The runs of the store `run` will write to, for the estimate's calibration: none when it
    cannot be read (the run then says why when it opens it for writing). Each names its servers'
    languages (estimate.LANGUAGES)."""
    from uabench import estimate

    try:
        store = open_store(location, readonly=True)
    except (StoreError, OSError):
        return []
    try:
        return [
            {**run, estimate.LANGUAGES: estimate.server_languages(run, store.servers(run["id"]))}
            for run in store.runs()
        ]
    except StoreError:  # damaged beyond its header: found only on reading
        return []
    finally:
        store.close()


def _languages(only: list[str] | None) -> list[str]:
    """The languages of the servers a run chose (all SDKs' without --sdk), for the estimate's
    calibration by a run of servers alike."""
    chosen = sdks.all_sdks() if only is None else [sdk for sdk in sdks.every_version() if sdk.id in only]
    return sorted({sdk.language for sdk in chosen})


def _writable_store(location: str) -> None:
    """The store `run` writes to, opened once before anything runs: a store it cannot use
    (corrupt, a directory, read-only, newer, locked) is one line and exit 2 here rather than
    a failed suite setup."""
    open_store(location).close()


def _seed() -> None:
    """UABENCH_SEED (a run's seed from its provenance, to replay its block orders) checked
    before anything runs: a bad one would otherwise end the first measured test."""
    given = os.environ.get("UABENCH_SEED")
    if given is not None and not (given.strip().isdigit() and int(given) < 2**32):
        raise ValueError(f"UABENCH_SEED: '{given}' is not a seed (a whole number from 0 to {2**32 - 1})")


# The commands that start processes (adapters, perf, pytest, ssh, podman) remove what a killed
# harness left before they start; the others only name it.
ACTING = frozenset({"run", "capacity", "check", "arm-smoke", "images"})


# import ends the runs its spool ended that the store still holds `running` (those of a harness
# whose store failed it): named before it, each would be called left by a killed harness first
LEFTOVERS_AFTER = frozenset({"import"})


def _leftovers(command: str, store: str) -> None:
    """Before any command: what killed harnesses left (their runs in this store, processes,
    network namespaces; engine/orphans.py) removed, or only named by a command that changes
    nothing; one line on stderr when there is anything. A store that cannot be opened is left
    to the command itself to report."""
    from uabench.engine import orphans
    from uabench.proc import launcher

    acting = command in ACTING
    opened = None
    with contextlib.suppress(StoreError):
        opened = open_store(store, readonly=True)  # one that is not there is not created here
    try:
        # opened for writing only to mark abandoned runs: a store another run is writing to
        # would otherwise hold up every check
        if acting and opened is not None and orphans.abandoned_runs(opened):
            opened.close()
            opened = None
            opened = open_store(store)
        line = orphans.reap(opened) if acting else orphans.seen(opened)
    except StoreError:  # busy or read-only: the processes and namespaces go all the same
        line = orphans.reap(None) if acting else orphans.seen(None)
    finally:
        if opened is not None:
            opened.close()
    if line:
        print(line, file=sys.stderr)
    if acting:
        launcher.mark_harness()  # what it starts carries its marker: a later invocation can prove it


def _close_runs(store: str, marker: str, signum: int | None) -> bool:
    """After Robot: a run of this invocation still `running` lost its suite teardown, it is
    `interrupted` after a signal, else `failed`. After a signal, one line says what was kept;
    True then (the caller skips the report and exits 130)."""
    import signal

    opened = open_store(store)
    try:
        ours = [r for r in opened.runs() if (r["provenance"].get("harness") or {}).get("marker") == marker]
        for run in ours:
            if run["status"] == "running":
                opened.finish_run(run["id"], "interrupted" if signum else "failed")
        if signum is None:
            return False
        cells = len(opened.cells([r["id"] for r in ours])) if ours else 0
    finally:
        opened.close()
    ids = ", ".join(str(r["id"]) for r in ours)
    kept = (
        f"kept {len(ours)} run(s) (id {ids}, stored as interrupted) with {cells} measured cell(s) in {store}"
        if ours
        else "no run had started"
    )
    print(f"uabench: stopped by {signal.Signals(signum).name}: {kept}; no report written", file=sys.stderr)
    return True


def _out_directory(given: str) -> Path:
    """The directory a report or comparison will be written to (--out), checked now and made
    only when written: one that cannot be, or a file in its place, is one line before anything
    is read or measured, and a refused command leaves nothing behind."""
    return _creatable(Path(given), f"--out {given}", "the report's files are written into it")


def _results_directory() -> Path:
    """The results directory (UABENCH_RESULTS, else results/ in the checkout), checked as --out
    is before a command that writes into it (runs, check logs, image logs) starts: a file in its
    place was a NotADirectoryError traceback once the store had been made (issue 39)."""
    where = paths.RESULTS
    return _creatable(where, f"the results directory {where} (UABENCH_RESULTS)", "runs and logs are written into it")


def _immutable(directory: Path) -> bool:
    """Whether nothing can be made in `directory` although access() says it can: root passes
    access() on a directory made immutable (chattr +i) or on a read-only file system."""
    probe = directory / f".uabench-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return True
    probe.rmdir()
    return False


def _creatable(out: Path, what: str, why: str) -> Path:
    """`out` when it is a directory or can be made as one (it is not made here); else a
    ValueError of one line that starts with `what`."""
    if out.exists():
        if not out.is_dir():
            raise ValueError(f"{what}: is a file, not a directory ({why})")
        if not os.access(out, os.W_OK | os.X_OK) or _immutable(out):
            raise ValueError(f"{what}: is not writable ({why})")
        return out
    parent = next(ancestor for ancestor in out.absolute().parents if ancestor.exists())
    if not parent.is_dir():
        raise ValueError(f"{what}: cannot create it: {parent} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{what}: cannot create it: {parent} is not writable")
    return out


def cmd_report(args: argparse.Namespace) -> int:
    from uabench.report.files import build

    _out_directory(args.out)
    store = open_store(args.store, readonly=True)
    _note_skipped(store, args.run)
    outputs = build(store, Path(args.out), args.run)
    for kind, path in outputs.items():
        print(f"{kind:9} {path}")
    return 0


def cmd_trend(args: argparse.Namespace) -> int:
    """`uabench trend`: the version trend of a store (the report's section: every declared version's
    figures and compare's verdict from each version to the next) on standard output, as Markdown."""
    from uabench.document.model import Report
    from uabench.report import markdown
    from uabench.report.document import trend_section
    from uabench.results.runs import cells_of, latest_finished

    wanted = [s for s in args.sdk.split(",") if s] if args.sdk else None
    known = {versions[0].id for versions in sdks.registry()}
    if set(wanted or ()) - known:
        unknown = ", ".join(sorted(set(wanted or ()) - known))
        print(f"uabench trend: unknown SDK {unknown} (known: {', '.join(sorted(known))})", file=sys.stderr)
        return 2
    store = open_store(args.store, readonly=True)
    try:
        chosen = latest_finished(store)[0]
        section = trend_section(chosen, cells_of(store, chosen), wanted)
    finally:
        store.close()
    if section is None:
        of = f"{', '.join(wanted)} at" if wanted else "an SDK at"
        print(
            f"uabench trend: {args.store} holds no finished run that measured {of} another version than its pinned "
            "one (a version plan: uabench run read write subscription encryption footprint --profile quick "
            f"--versions --sdk {_with_references(','.join(wanted or ['SDK']))})",
            file=sys.stderr,
        )
        return 2
    print(markdown.render(Report("uabench version trend", [section])), end="")
    return 0


def _note_skipped(store: Store, chosen: list[int] | None) -> None:
    """The one line naming the runs a report or comparison of the latest runs skipped."""
    from uabench.results.runs import latest_finished, note

    line = None if chosen else note(latest_finished(store)[1])
    if line:
        print(f"uabench: {store.path}: {line}", file=sys.stderr)


def cmd_import(args: argparse.Namespace) -> int:
    """`uabench import RUN_DIR_OR_SPOOL`: the cells a store could not take, loaded from the
    run's spool (each cell once, however often it is imported)."""
    from uabench.plan import cell_kinds
    from uabench.results import spool

    loaded = spool.load(Path(args.spool))  # a spool that cannot be read leaves the store untouched
    spool.check_kinds(loaded, cell_kinds())
    store = open_store(args.store)
    try:
        done = spool.import_into(store, loaded)
    finally:
        store.close()
    print(
        f"uabench import: {store.path}: {done.runs_added} run(s) added, {done.runs_present} already there; "
        f"{done.cells_added} cell(s) added, {done.cells_present} already there"
        + (
            "; the spool's last line was cut short (a write the harness never finished) and skipped"
            if done.torn
            else ""
        )
    )
    return 0


def cmd_capacity(args: argparse.Namespace) -> int:
    """`uabench capacity SDK`: the capacity plan for one server."""
    sdks.get(args.sdk)
    if not plan.load(args.plan).capacity:
        raise plan.PlanError(f"--plan {args.plan}: is no capacity plan (it has no [capacity] table)")
    placement = {key: getattr(args, key) for key in PLACEMENT_OPTIONS}
    return cmd_run(_run_of([args.plan], args.profile, args, args.report, args.out, placement))


def cmd_profile(args: argparse.Namespace) -> int:
    """`uabench profile SDK --workload W`: the profile plan for one server and one workload, then
    the report with its flame graph."""
    sdks.get(args.sdk)
    from uabench.profile import suite as profile_suite

    loaded = plan.load(args.plan)
    profiled = profile_suite.of(loaded)
    if profiled is None:
        raise plan.PlanError(f"{loaded.path} is no profile plan (it has no [profile] table)")
    names = [w.name for w in profiled.workloads]
    if args.workload not in names:
        raise plan.PlanError(f"--workload: no workload '{args.workload}' in {loaded.path} (has: {', '.join(names)})")
    placement = {key: getattr(args, key) for key in PLACEMENT_OPTIONS}
    # the report draws the flame graph (profile/report.py): always written, its path printed
    run = _run_of([args.plan], args.profile, args, True, args.out, placement)
    run.include = [plan.workload_tag(args.workload)]
    status = cmd_run(run)
    from uabench.document.model import slug  # the report's own file name for it

    drawn = Path(args.out) / "flamegraphs" / f"{slug(f'{args.sdk} {args.workload}')}.svg"
    if status == 0 and drawn.exists():
        print(f"flame graph: {drawn}")
    return status


def _run_of(plans: list[str], profile: str, args: argparse.Namespace, report: bool, out: str | None, placement: dict):
    """The arguments of `uabench run` for a command that is one (capacity, arm-smoke)."""
    return argparse.Namespace(
        plans=plans,
        profile=profile,
        sdk=args.sdk,
        store=args.store,
        report=report,
        out=out,
        estimate=False,
        dryrun=False,
        include=None,
        exclude=None,
        test=None,
        time_budget=None,
        handicap=None,
        versions=False,
        **placement,
    )


def cmd_model(args: argparse.Namespace) -> int:
    from uabench.results.model import MAX_BAND_PP, MIN_R2, NEEDED_REPETITIONS, sizings

    found = sizings(open_store(args.store, readonly=True).cells())
    if not found:
        print(
            f"uabench model: no sweep points in {args.store}: run the subscription (or pubsub) suite first",
            file=sys.stderr,
        )
        return 2
    for s in found:
        print(
            f"{s.sdk} ({s.communication}): {len(s.used)} points with >= {NEEDED_REPETITIONS} repetitions used "
            f"({sum(p.repetitions for p in s.used)} repetitions), {len(s.under_repeated)} with fewer, "
            f"{len(s.saturated)} saturated excluded"
        )
        label = " [indicative: fitted on under-repeated points, never used to predict]" if s.indicative else ""
        for f in (s.delivered, s.burger):
            if f is None:
                continue
            r2 = f"{f.r2:.3f}" if f.r2 is not None else "–"
            print(
                f"  {f.form:9} {f.text()}  R² {r2}  held-out RMSE {f.heldout_rmse:.2f} pp  "
                f"95 % band ± {f.band:.1f} pp over {f.points} points" + (label if f.form == "delivered" else "")
            )
        refusal = s.refusal()
        print(f"  predict: {'refuses: ' + refusal if refusal else 'answers'}")
    print(
        "used: delivered, N = delivered notifications/s, S = sessions (measured inputs; sessions cost a term of "
        "their own); compared: burger, x = signals × rate × clients^0.3 (requested; grows with clients where N "
        f"is constant). predict answers where R² >= {MIN_R2}, band <= ± {MAX_BAND_PP:g} pp, inside the fitted "
        "points' convex hull of (N, S)."
    )
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from uabench.results.model import find

    rate = args.notifications_per_s
    if rate is None and args.signals is not None and args.interval_ms is not None:
        rate = args.signals * 1000.0 / args.interval_ms if args.interval_ms > 0 else -1.0
    if rate is None or rate <= 0 or args.sessions < 1:
        print(
            "uabench predict: give --notifications-per-s (or --signals with --interval-ms), all positive, "
            "and --sessions >= 1",
            file=sys.stderr,
        )
        return 2
    sdks.get(args.sdk)
    model = find(open_store(args.store, readonly=True).cells(), args.sdk, args.communication)
    refusal = model.refusal() or model.outside(rate, args.sessions)
    if refusal:
        print(f"uabench predict: refusing for {args.sdk} ({args.communication}): {refusal}", file=sys.stderr)
        return 2
    fitted = model.delivered
    assert fitted is not None and fitted.r2 is not None and fitted.band is not None  # refusal() checked them
    cpu = fitted.predict(rate, args.sessions)
    print(
        f"{args.sdk} ({args.communication}): predicted server CPU {cpu:.1f} ± {fitted.band:.1f} % of one core "
        f"(95 % band) for {rate:,.0f} notifications/s over {args.sessions:g} session(s); "
        f"{fitted.text()}, R² {fitted.r2:.3f}, {fitted.points} points"
    )
    return 0


def cmd_images(args: argparse.Namespace) -> int:
    from uabench.containers import images

    summary = paths.RESULTS / "images" / "images.json"
    if args.list:
        import json

        entries = json.loads(summary.read_text()) if summary.exists() else []
        if not entries:
            print(
                f"uabench images: no image recorded in {summary}: `uabench images` builds and records them",
                file=sys.stderr,
            )
            return 1
        for entry in entries:
            seconds = "-" if entry.get("seconds") is None else f"{entry['seconds']:.0f} s"
            print(
                f"{entry['status']:9} {entry.get('engine') or 'podman':6} {entry['image']:36} {entry['platform']:13} "
                f"{images.human_size(entry.get('size_bytes')):>7} {seconds:>7}"
                + (f"  {entry['reason'][:120]}" if entry.get("reason") else "")
            )
        return 0
    targets = [images.arch(name) for name in _split(args.arch)]
    _results_directory()  # the build logs and the summary are written into it
    with_image = images.sdk_ids()
    chosen = _split(args.sdk) or with_image
    unknown = [sdk for sdk in chosen if sdk not in with_image]
    if unknown:
        raise ValueError(
            f"no image recipe ([image] in sdk.toml) for {', '.join(unknown)} (one of {', '.join(with_image)})"
        )
    from uabench.containers import engine as engines

    with engines.running(args.engine) as engine:
        print(f"engine: {engine.name} ({engine.daemon})", flush=True)
        return _build_images(targets, chosen, args.no_cache, summary, engine.daemon)


def _build_images(targets: list, chosen: list[str], no_cache: bool, summary: Path, daemon: str) -> int:
    from uabench.containers import images

    results = []
    for target in targets:
        started = time.monotonic()
        try:
            images.ensure_base(target)
        except (images.ImageError, EngineError) as error:  # every SDK of this architecture needs it
            print(f"failed    base {images.base_image(target)}: {error}", flush=True)
            results += [
                images.Built(
                    sdk, target.name, target.platform, images.image_name(sdk, target), "failed", reason=str(error)
                )
                for sdk in chosen
            ]
            continue
        print(
            f"base {images.base_image(target)} ({images.human_size(images.image_size(images.base_image(target)))}, "
            f"{time.monotonic() - started:.0f} s)",
            flush=True,
        )
        for sdk in chosen:
            built = images.build(sdk, target, paths.RESULTS / "images" / "logs", no_cache=no_cache)
            results.append(built)
            seconds = "-" if built.seconds is None else f"{built.seconds:.0f} s"
            print(
                f"{built.status:9} {built.image:36} {target.platform:13} {images.human_size(built.size_bytes):>7} "
                f"{seconds:>7}" + (f"  {built.reason}" if built.reason else ""),
                flush=True,
            )
    images.record(results, summary, daemon)
    print(f"(build times are emulated for foreign architectures; summary: {summary})")
    return 1 if any(r.status == "failed" for r in results) else 0


def cmd_arm_smoke(args: argparse.Namespace) -> int:
    """`uabench arm-smoke`: the read and write suites' smoke profile with the servers in their
    ARM images under qemu on this machine (a container target of each architecture), the native
    clients measuring; every cell emulated, reported apart and never ranked. The Bazel-built C
    adapter under qemu-user, which has no image, is checked by `uabench check --all`."""
    from uabench.containers import images

    arches = [images.arm_arch(name).name for name in _split(args.arch)]  # refuses unknown names here
    status = 0
    for arch in arches:
        print(f"arm-smoke {arch}: uabench run read write --profile smoke --server-target container --arch {arch}")
        placement = dict.fromkeys(PLACEMENT_OPTIONS) | {
            "isolation": "host",
            "engine": args.engine,
            "server_target": "container",
            "client_target": "local",
            "arch": arch,
            "target_env": [],
        }
        status |= cmd_run(_run_of(["read", "write"], "smoke", args, False, None, placement))
    return status


def _two_sides(args: argparse.Namespace, doing: str, note_skipped: bool = False) -> list[Side]:
    """compare's and margins' A and B: two stores (the newest run of every suite in each; with
    `note_skipped`, the runs skipped are named first) or two run ids of the --store store."""
    from uabench.results import compare

    ids = [text.isdigit() for text in (args.a, args.b)]
    if any(ids) and not all(ids):
        raise ValueError(f"{doing} two stores or two run ids, not '{args.a}' and '{args.b}'")
    if all(ids):
        if int(args.a) == int(args.b):
            raise ValueError(
                f"'{args.a}' and '{args.b}' are one run: {doing} two different runs (a run against itself "
                "is the same by construction)"
            )
        return [compare.load_side(args.store, int(text)) for text in (args.a, args.b)]
    if _same_file(args.a, args.b):
        raise ValueError(
            f"'{args.a}' and '{args.b}' are one store: {doing} two stores, or two run ids of one with --store "
            "(a store against itself is the same by construction)"
        )
    for location in (args.a, args.b) if note_skipped else ():  # the newest finished runs: say which were skipped
        opened = open_store(location, readonly=True)
        _note_skipped(opened, None)
        opened.close()
    return [compare.load_side(text) for text in (args.a, args.b)]


def _same_file(a: str, b: str) -> bool:
    """Whether two store locations (paths or sqlite:/// URLs) are one existing file."""
    from uabench.results.store import StoreError, store_path

    try:
        return store_path(a).samefile(store_path(b))
    except (OSError, StoreError):  # one is not there, or not a store URL: load_side says so
        return False


def _pair_arguments(parser: argparse.ArgumentParser) -> None:
    """A and B of compare and margins."""
    parser.add_argument("a", help="store (path or sqlite:///path), or a run id in --store")
    parser.add_argument("b", help="store, or a run id in --store")
    # given after the subcommand it overrides the global --store; not given, the global one stands
    parser.add_argument("--store", default=argparse.SUPPRESS, help="the store of two run ids")


def cmd_compare(args: argparse.Namespace) -> int:
    """`uabench compare A B`: two stores (the newest run of every suite in each), or two run ids
    of the --store store; the table printed, compare.md and compare.html written."""
    from uabench.report import comparison, markdown
    from uabench.results import compare

    _out_directory(args.out)
    measured, margins_path = _margins(args.margins)  # a file that cannot be read: said before any store is
    sides = _two_sides(args, "compare", note_skipped=True)
    if not args.margins:  # the margins measured on the sides' machine, where a file of them is found
        measured, margins_path = _margins_of(sides) or (measured, margins_path)
    suites = [sorted({run["suite"] for run in side.runs}) for side in sides]
    if not set(suites[0]) & set(suites[1]):
        raise ValueError(
            f"{args.a} and {args.b} ran no suite in common ({', '.join(suites[0]) or 'none'}; "
            f"{', '.join(suites[1]) or 'none'}): there is nothing to compare"
        )
    report, _, _ = comparison.document(sides[0], sides[1], measured, margins_path)
    elsewhere = compare.machine_difference(*sides)
    if elsewhere:  # said where it cannot be missed as well as at the top of the comparison
        print(f"uabench compare: warning: {elsewhere}", file=sys.stderr)
    print("\n".join(markdown.section(report.sections[0])).rstrip())
    for kind, path in comparison.write(report, Path(args.out)).items():
        print(f"{kind:9} {path}")
    return 0


def _margins(given: str | None) -> tuple[Margins | None, str | None]:
    """The margins compare judges with: the file given, else the committed reference's when it
    is there (results/margins.py); (None, None) when there are none."""
    from uabench.results import margins, reference

    path = Path(given) if given else reference.DIRECTORY / "margins.toml"
    if not given and not path.is_file():
        return None, None
    return margins.load(path), str(path)


def _margins_of(sides: list[Side]) -> tuple[Margins, str] | None:
    """The margins measured on the one machine both sides ran on, from the files searched
    (results/margins.SEARCHED: this checkout's results/margins.toml, then the reference's)."""
    from uabench.results import compare, margins

    machines = set(compare.machines(sides[0])) | set(compare.machines(sides[1]))
    found = margins.measured_on(machines.pop()) if len(machines) == 1 else None
    return (found[0], str(found[1])) if found else None


def cmd_margins(args: argparse.Namespace) -> int:
    """`uabench margins A B`: compare's margins measured from an A/A pair (two stores, or two
    run ids of --store, each of one commit on one machine), written to --out."""
    from uabench.results import compare, margins, ranking, reference

    sides = _two_sides(args, "measure margins from")
    commits = {run["provenance"].get("git_commit") for side in sides for run in side.runs}
    if len(commits) != 1 or any(reference.uncommitted(c) for c in commits):
        raise ValueError(
            f"an A/A pair is two runs of one clean commit; these ran at {', '.join(sorted(map(str, commits)))}"
        )
    fingerprints = set(compare.machines(sides[0])) | set(compare.machines(sides[1]))
    if len(fingerprints) != 1 or None in fingerprints:
        raise ValueError(f"an A/A pair is two runs on one machine: {compare.machine_difference(sides[0], sides[1])}")
    found = compare.compare(sides[0].figures, sides[1].figures)
    changes = [
        (margins.kind_of(c.a.name, c.a.unit), c.change.center)
        for c in found
        if c.a is not None and c.change is not None
    ]
    for key, before in sides[0].rankings.items():  # the rankings' pairs (results/ranking.py)
        if key in sides[1].rankings:
            changes += [(margins.PAIRS, change) for change in ranking.ratio_changes(before, sides[1].rankings[key])]
    measured = margins.measure(changes)
    if not measured:
        raise ValueError("the pair has too few figures in common to measure any margin")
    machine = next(run["provenance"]["machine"] for run in sides[0].runs)
    written = margins.Margins(
        str(fingerprints.pop()),
        str(machine.get("cpu_model", "")),
        str(commits.pop()),
        "; ".join(f"{s.label} (runs {', '.join(str(r['id']) for r in s.runs)})" for s in sides[:1]),
        "; ".join(f"{s.label} (runs {', '.join(str(r['id']) for r in s.runs)})" for s in sides[1:]),
        measured,
    )
    out = Path(args.out)
    whole.write({out: written.toml()})
    for kind, m in sorted(measured.items()):
        print(f"{kind:45} ±{m.margin * 100:5.1f} %  ({m.figures} figures; noisiest {m.largest * 100:.1f} %)")
    print(f"written to {out}")
    return 0


def cmd_reference(args: argparse.Namespace) -> int:
    """`uabench reference --check`: whether the committed reference report is current for this
    checkout (results/reference.py); exit 0 when it is, 1 when not, each reason a line."""
    from uabench.results import reference

    store = Path(args.reference_store)
    found = reference.problems(store)
    for run_id, suite, command in reference.commands(store):
        print(f"run {run_id} ({suite}): {command}")
    if found:
        print(f"uabench reference: {store} is not current for this checkout:")
        for line in found:
            print(f"  - {line}")
        return 1
    print(f"uabench reference: {store} is current: one clean commit, one machine, the measured code unchanged since")
    return 0


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


class Parser(argparse.ArgumentParser):
    """argparse with its errors as one line (the usage it prints first is a screenful for the
    run command): the problem, then where the usage is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    main = Parser(prog="uabench", description="Cross-implementation OPC UA benchmark")
    main.add_argument(
        "--store",
        default=str(paths.default_store()),
        help="results store: a path or sqlite:///path (default: %(default)s)",
    )
    commands = main.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="list the SDKs with an adapter").set_defaults(func=cmd_list)
    p = commands.add_parser(
        "outdated",
        help="each SDK's pinned version beside the newest its registry serves "
        "(exit 1: a newer release exists; 3: a look-up failed)",
    )
    p.add_argument("--sdk", help="comma-separated SDKs (default: all)")
    p.set_defaults(func=cmd_outdated)

    check = commands.add_parser("check", help="run the adapter contract checks (pytest, uabench.checks)")
    check.add_argument("sdk", nargs="*", help="SDKs whose contract checks run (selected by test id)")
    check.add_argument(
        "--all",
        action="store_true",
        help="every SDK's contract checks, and the ARM smoke checks of the builds here",
    )
    check.add_argument(
        "--images", action="store_true", help="with --all: the ARM image checks too (build them with uabench images)"
    )
    _engine_option(check)
    check.add_argument(
        "--require-builds",
        action="store_true",
        help="with --all: a missing ARM build fails instead of skipping",
    )
    check.add_argument(
        "--quick",
        action="store_true",
        help="make test's form: each SDK's pinned version, without the checks marked full (make test-full runs those)",
    )
    check.add_argument("--junit", help="JUnit XML file (default: results/check/junit.xml)")
    check.set_defaults(func=cmd_check)

    run = commands.add_parser("run", help="run Robot Framework suites")
    run.add_argument(
        "plans",
        nargs="*",
        metavar="PLAN",
        help=f"plan names (suites/plans/NAME.toml) or files (default: {' '.join(DEFAULT_SUITES)})",
    )
    run.add_argument("--profile", default="quick", help="smoke, quick or full (default: %(default)s)")
    run.add_argument("--sdk", default="", help="comma-separated SDKs to include (default: all)")
    run.add_argument("--report", action="store_true", help="write the report afterwards")
    run.add_argument("--out", help="report directory, with --report (default: results/report)")
    run.add_argument("--estimate", action="store_true", help="print the estimated duration and exit")
    run.add_argument(
        "--time-budget",
        type=_time_budget,
        metavar="SECONDS|MM:SS",
        help="end adaptive repetitions so that the run ends near this time (default: only the plan's most blocks)",
    )
    run.add_argument(
        "--versions",
        action="store_true",
        help="rank every version an sdk.toml declares beside its server (the version trend), in any profile "
        "(default: in the plan's `versions` profiles)",
    )
    run.add_argument("--dryrun", action="store_true", help="Robot's dry run: list and check the tests, measure nothing")
    run.add_argument(
        "--handicap",
        metavar="SDK=SHARE",
        help="a test of compare: limit SDK's server to SHARE of its CPU (a cgroup quota, e.g. asyncua=0.7); "
        "recorded with the run and said by its report (engine/handicap.py)",
    )
    _isolation_option(run)
    _engine_option(run)
    run.add_argument(
        "--include",
        action="append",
        metavar="TAG",
        help="run only tests with this tag (Robot's --include, e.g. server:milo; repeatable)",
    )
    run.add_argument("--exclude", action="append", metavar="TAG", help="skip tests with this tag (repeatable)")
    run.add_argument(
        "--test", action="append", metavar="NAME", help="run only tests of this name or pattern (repeatable)"
    )
    run.set_defaults(func=cmd_run)

    capacity = commands.add_parser("capacity", help="find a server's read capacity and overload behaviour")
    capacity.add_argument("sdk")
    capacity.add_argument("--plan", default="capacity", help="capacity plan (default: %(default)s)")
    capacity.add_argument("--profile", default="quick")
    capacity.add_argument("--report", action="store_true")
    capacity.add_argument("--out", help="report directory, with --report (default: results/report)")
    _isolation_option(capacity)
    _engine_option(capacity)
    capacity.set_defaults(func=cmd_capacity)

    profiled = commands.add_parser(
        "profile", help="a sampling profile of one server under a workload: flame graph, functions, attribution"
    )
    profiled.add_argument("sdk")
    profiled.add_argument("--workload", default="read", help="a workload of the profile plan (default: %(default)s)")
    profiled.add_argument("--plan", default="profile", help="profile plan (default: %(default)s)")
    profiled.add_argument("--profile", default="quick")
    profiled.add_argument("--out", default=str(paths.RESULTS / "report"))
    _isolation_option(profiled)
    _engine_option(profiled)
    profiled.set_defaults(func=cmd_profile)

    model = commands.add_parser("model", help="fit the CPU sizing model to the stored sweeps")
    model.set_defaults(func=cmd_model)

    predict = commands.add_parser("predict", help="predict server CPU from the CPU sizing model")
    predict.add_argument("--sdk", required=True)
    predict.add_argument("--notifications-per-s", type=_positive, help="delivered notifications/s, all sessions")
    predict.add_argument(
        "--signals", type=_whole, help="with --interval-ms: notifications/s = signals × 1000 / interval"
    )
    predict.add_argument("--interval-ms", type=_positive)
    predict.add_argument("--sessions", "--clients", type=_whole, default=1, help="client sessions (default 1)")
    predict.add_argument("--communication", choices=("client-server", "pubsub"), default="client-server")
    predict.set_defaults(func=cmd_predict)

    images = commands.add_parser("images", help="build the container images of the adapters (docker or podman)")
    images.add_argument(
        "--arch",
        default="arm64",
        help="comma-separated: arm64, armhf (arm/v7), armel (arm/v6), amd64 (default: %(default)s)",
    )
    _engine_option(images)
    images.add_argument("--sdk", default="", help="comma-separated SDKs (default: all)")
    images.add_argument("--no-cache", action="store_true", help="rebuild every layer")
    images.add_argument("--list", action="store_true", help="print the recorded sizes and build times, build nothing")
    images.set_defaults(func=cmd_images)

    smoke = commands.add_parser(
        "arm-smoke",
        help="read and write smoke profile, servers in their ARM images under qemu "
        "(uabench run read write --profile smoke --server-target container --arch …)",
    )
    smoke.add_argument("--arch", default="arm64,armhf", help="comma-separated architectures (default: %(default)s)")
    smoke.add_argument("--sdk", default="", help="comma-separated SDKs (default: all)")
    _engine_option(smoke)
    smoke.set_defaults(func=cmd_arm_smoke)

    imported = commands.add_parser("import", help="load a run's spool (cells a store could not take) into a store")
    imported.add_argument("spool", help="a run directory (results/runs/...) or its cells.jsonl")
    # given after the subcommand it overrides the global --store; not given, the global one stands
    imported.add_argument("--store", default=argparse.SUPPRESS, help="the store to load it into")
    imported.set_defaults(func=cmd_import)

    report = commands.add_parser("report", help="write the report from the results store")
    report.add_argument("--out", default=str(paths.RESULTS / "report"), help="output directory (default: %(default)s)")
    report.add_argument("--run", type=int, action="append", help="run id(s) to report (default: latest per suite)")
    report.set_defaults(func=cmd_report)

    trend = commands.add_parser(
        "trend", help="print the version trend of the store: each version's figures, compare's verdicts between them"
    )
    trend.add_argument("--sdk", help="comma-separated SDKs (default: every SDK measured at two versions or more)")
    trend.set_defaults(func=cmd_trend)

    compared = commands.add_parser(
        "compare", help="compare two stores, or two runs of one store: every figure's change and a verdict"
    )
    _pair_arguments(compared)
    compared.add_argument(
        "--out", default=str(paths.RESULTS / "compare"), help="output directory (default: %(default)s)"
    )
    compared.add_argument(
        "--margins",
        help="margins measured by `uabench margins` (default: those of the sides' machine in results/margins.toml "
        "or reports/reference/margins.toml)",
    )
    compared.set_defaults(func=cmd_compare)

    from uabench.results import reference as reference_check

    referenced = commands.add_parser(
        "reference", help="whether the committed reference report was made by the code checked out"
    )
    referenced.add_argument("--check", action="store_true", required=True, help="check it (exit 1 when stale)")
    referenced.add_argument(
        "--reference-store",
        default=str(reference_check.STORE),
        help="the reference's results store (default: %(default)s)",
    )
    referenced.set_defaults(func=cmd_reference)

    margined = commands.add_parser(
        "margins", help="measure compare's margins from an A/A pair: two runs of one commit on one machine"
    )
    _pair_arguments(margined)
    margined.add_argument(
        "--out", required=True, help="the margins file to write (e.g. reports/reference/margins.toml)"
    )
    margined.set_defaults(func=cmd_margins)
    return main


def _container_engine(needed: bool, requested: str | None) -> contextlib.AbstractContextManager:
    """The chosen container engine running (its daemon started if it needs one) while the checks
    run, which inherit UABENCH_ENGINE and DOCKER_HOST; nothing when no image is used."""
    if not needed:
        return contextlib.nullcontext()
    from uabench.containers import engine as engines

    return engines.running(requested)


PLACEMENT_OPTIONS = (
    "isolation",
    "engine",
    "server_target",
    "client_target",
    "arch",
    "ssh_identity",
    "ssh_known_hosts",
    "target_env",
)


def _isolation_option(command: argparse.ArgumentParser) -> None:
    """Where the adapters run (targets/): the options behind PLACEMENT_OPTIONS but --engine."""
    command.add_argument(
        "--isolation",
        choices=isolation.KINDS,
        default="host",
        help="host (default), or container: every role in a container of its SDK's image (built first)",
    )
    command.add_argument(
        "--server-target",
        default="local",
        metavar="TARGET",
        help="where servers and publishers run: local (default), container, ssh://[user@]host[:port] "
        "(a Raspberry Pi: podman and python3-psutil there), or vm (with --arch arm64: an arm64 machine "
        "emulated here by qemu-system, whose memory figures are its own kernel's; ci/arm-vm/make-disk first)",
    )
    command.add_argument(
        "--client-target",
        default="local",
        metavar="TARGET",
        help="where clients and subscribers run: local (default) or container",
    )
    command.add_argument(
        "--arch",
        help="the images' architecture on a container or SSH target: arm64, armhf, armel or amd64 "
        "(default: this machine's); emulated by qemu-user where the target's CPU is another",
    )
    command.add_argument("--ssh-identity", help="ssh private key of an SSH target")
    command.add_argument("--ssh-known-hosts", help="known_hosts file of an SSH target (default: the user's)")
    command.add_argument(
        "--target-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment of podman on the SSH target (repeatable), e.g. CONTAINERS_CONF=…",
    )


def _engine_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--engine",
        choices=("docker", "podman"),
        help="container engine (default: $UABENCH_ENGINE, else docker when it can run, else podman)",
    )


def _negative_values_attached(argv: list[str]) -> list[str]:
    """`--time-budget -0:30` as `--time-budget=-0:30`: argparse takes a value that starts with a
    dash and is no plain number for an option and says only "expected one argument"; attached,
    the value reaches its option's own check, which says what is wrong with it."""
    merged: list[str] = []
    for token in argv:
        if merged and merged[-1].startswith("--") and "=" not in merged[-1] and re.match(r"^-[\d.]", token):
            merged[-1] = f"{merged[-1]}={token}"
        else:
            merged.append(token)
    return merged


# What an interrupted command (Ctrl-C, SIGTERM, SIGHUP: exit 130) leaves, said in its one line.
WRITTEN_WHOLE = "each file it writes is as it was or whole (no half-written report)"
INTERRUPTED = {
    "run": "adapters stopped, results so far are in the store",
    "report": WRITTEN_WHOLE,
    "compare": WRITTEN_WHOLE,
    "margins": WRITTEN_WHOLE,
}


# The commands a stop signal ends with exit 130 and one line, from their start (entry.py), before
# their store is made: a SIGTERM as a run started killed it silently (143), 2 times in 8 leaving a
# store of half its schema; report, compare and margins write their files whole meanwhile
# (proc/whole.py). The others keep the default action, as before.
ANSWER_SIGNALS = ("run", "capacity", "profile", "report", "compare", "margins")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(_negative_values_attached(sys.argv[1:] if argv is None else argv))
    if args.command in ANSWER_SIGNALS:
        cleanup.note_signals()
    elif threading.current_thread() is threading.main_thread():
        for stop in (signal.SIGTERM, signal.SIGHUP):
            # entry.py's, which this layer does not import: the default action again
            if getattr(signal.getsignal(stop), "__module__", None) == "uabench.entry":
                signal.signal(stop, signal.SIG_DFL)
    try:
        if args.command not in LEFTOVERS_AFTER:
            _leftovers(args.command, args.store)
        code = args.func(args)
        if args.command in LEFTOVERS_AFTER:
            _leftovers(args.command, args.store)
        return code
    except (
        ValueError,
        PlanError,
        ModelError,
        StoreError,
        sdks.UnknownSdk,
        LockError,
        EngineError,
        IsolationError,
        targets.TargetError,
    ) as error:
        print(f"uabench: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"uabench: interrupted; {INTERRUPTED.get(args.command, INTERRUPTED['run'])}", file=sys.stderr)
        return 130
    finally:
        release_cores()  # a run's cores are free once its command ends, also when called in-process


if __name__ == "__main__":
    sys.exit(main())
