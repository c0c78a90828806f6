"""Container images of every adapter (`uabench images`), ARM and amd64, built with the
container engine chosen by `--engine` (uabench.containers.engine: docker or podman).

Every SDK whose sdk.toml has an [image] table has an image (uabench.image_recipe): its
Dockerfile (its own, implementations/<sdk>/Dockerfile, or a shared one: the two Python SDKs
build ci/containers/python/Dockerfile), the files its build context holds, its build arguments,
what the host makes first (`prepare`: the Bazel cross build of the C adapter, the Go and Rust
cross builds, node-opcua's Node.js) and what differs per architecture. Nothing here names an SDK.

Each Dockerfile takes its base image as the build argument BASE: with Docker Hub reachable that
is debian:bookworm-slim; here `ci/containers/make-base` debootstraps Debian for the architecture
and imports it into the engine (docker takes podman's copy with save/load when podman has one).
Foreign architectures build and run through qemu-user-static (binfmt_misc), so every timing
taken of these images on an x86-64 machine is *emulated*.

Images are tagged localhost/uabench/<sdk>:<arch>. The build context is a directory staged for
the one build (.cache/image-context/<sdk>-<arch>/, hard links where it can) with only what the
recipe's `context` names, laid out as in the repository: the engine is sent those files and
nothing else (no .venv, results or sources), whatever the SDK.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from uabench import image_recipe, paths, sdks
from uabench.containers import engine as engines
from uabench.containers.engine import Engine, EngineError
from uabench.image_recipe import ImageRecipe
from uabench.proc import launcher

CONTAINERS = paths.REPO / "ci" / "containers"
CONTAINERS_CONF = engines.CONTAINERS_CONF
IMAGE_REPOSITORY = "localhost/uabench"
# The build host's trust store, copied into the build context for builds that download (pip),
# so a TLS proxy the host trusts is trusted there too.
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
BUILD_CA = paths.REPO / ".cache" / "build-ca"
STAGED = paths.REPO / ".cache" / "image-context"
MAKE_BASE_STOP_S = 30  # make-base stops debootstrap and unmounts what it mounted within this


@dataclass(frozen=True)
class Arch:
    name: str  # Debian architecture: arm64, armhf, armel
    platform: str  # OCI platform
    variant: str
    dist: str  # ci/bazel-build target of the C adapter
    qemu_cpu: str  # the oldest Raspberry Pi core of this architecture
    description: str

    @property
    def emulated(self) -> bool:
        return self.name != "amd64"  # this machine's own architecture


ARCHES = {
    "arm64": Arch("arm64", "linux/arm64", "v8", "aarch64", "cortex-a53", "Raspberry Pi 3/4/5, 64-bit OS"),
    "armhf": Arch("armhf", "linux/arm/v7", "v7", "armhf", "cortex-a7", "Raspberry Pi 2/3/4, 32-bit OS (ARMv7)"),
    "armel": Arch("armel", "linux/arm/v6", "v6", "armv6", "arm1176", "Raspberry Pi Zero/1 (ARMv6)"),
    "amd64": Arch("amd64", "linux/amd64", "", "host", "", "this machine (x86-64, native)"),
}
ALIASES = {
    "aarch64": "arm64",
    "arm/v8": "arm64",
    "linux/arm64": "arm64",
    "arm/v7": "armhf",
    "armv7": "armhf",
    "linux/arm/v7": "armhf",
    "arm/v6": "armel",
    "armv6": "armel",
    "linux/arm/v6": "armel",
    "x86_64": "amd64",
    "linux/amd64": "amd64",
}


class ImageError(Exception):
    pass


def arch(name: str) -> Arch:
    key = ALIASES.get(name, name)
    if key not in ARCHES:
        raise ValueError(
            f"unknown architecture '{name}' (one of {', '.join(ARCHES)}; aliases {', '.join(sorted(ALIASES))})"
        )
    return ARCHES[key]


def arm_arch(name: str) -> Arch:
    """An ARM architecture (the emulated smoke suite and the remote Pi run no other)."""
    found = arch(name)
    if not found.emulated:
        raise ValueError(f"'{name}' is not an ARM architecture (one of arm64, armhf, armel)")
    return found


def sdk_ids() -> list[str]:
    """The SDKs with an image: those whose sdk.toml declares [image]."""
    return [sdk.id for sdk in sdks.all_sdks() if sdk.image is not None]


def recipe(sdk: str) -> ImageRecipe:
    """`sdk`'s [image]; ImageError when it declares none."""
    found = sdks.get(sdk).image
    if found is None:
        raise ImageError(f"{sdk} declares no [image] in its sdk.toml (images: {', '.join(sdk_ids()) or 'none'})")
    return found


def dockerfile(sdk: str) -> Path:
    return paths.REPO / recipe(sdk).dockerfile


def not_built(sdk: str, target: Arch) -> str | None:
    """Why `sdk` has no image for `target` (its sdk.toml says), or None."""
    return recipe(sdk).on(target.name).not_built


def _fill(text: str, sdk: str, target: Arch) -> str:
    return image_recipe.fill(text, sdk, target.name, target.dist)


def image_name(sdk: str, target: Arch) -> str:
    return f"{IMAGE_REPOSITORY}/{sdk}:{target.name}"


def base_image(target: Arch, suite: str = "bookworm") -> str:
    return f"localhost/uabench-base:{suite}-{target.name}"


def base_suite(sdk: str, target: Arch) -> str:
    return recipe(sdk).on(target.name).base_suite


def engine() -> Engine:
    """The engine the command chose (engines.running exported it); podman when none was."""
    if not shutil.which(engines.current().name):
        raise ImageError(f"{engines.current().name} is not installed (apt packages: ci/containers/apt-packages)")
    return engines.current()


def image_exists(name: str) -> bool:
    return engine().exists(name)


def image_size(name: str) -> int | None:
    return engine().size(name)


def ensure_base(target: Arch, suite: str = "bookworm") -> None:
    """The debootstrapped base of `target` in the engine (no-op when it exists). For Docker the
    base is made in podman where podman is installed and loaded from there (`podman save | docker
    load`; also seconds instead of a debootstrap when podman has it already): Debian's Docker
    20.10 records an imported root file system as the host's architecture whatever `import
    --platform` says, and every build on a foreign base then fails. Without podman, Docker
    imports it itself (right for this machine's architecture; make-base refuses a wrong one)."""
    chosen = engine()
    name = base_image(target, suite)
    if chosen.exists(name):
        return
    podman = engines.Engine("podman", {"CONTAINERS_CONF": str(CONTAINERS_CONF)})
    via_podman = chosen.name == "docker" and shutil.which("podman") is not None
    maker = podman if via_podman else chosen
    if not (via_podman and podman.exists(name)):
        returncode, stderr = _make_base(
            [target.name, "--suite", suite], {**maker.environ(), engines.ENVIRONMENT: maker.name}
        )
        if returncode != 0:
            raise ImageError(f"make-base {target.name} --suite {suite} failed: {stderr.strip()[-800:]}")
    if via_podman:
        try:
            transfer(podman, chosen, name)
        except EngineError as error:
            raise ImageError(f"base {name}: podman save | docker load failed: {error}") from None


def _make_base(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Runs make-base with `args`: (its exit status, its stderr). Stopped (Ctrl-C, SIGTERM) or killed, the
    harness takes it down with SIGTERM, which make-base passes on to its debootstrap before it
    removes its half-made root file system: here for the first two (subprocess.run would SIGKILL
    it, and its trap would never run), PR_SET_PDEATHSIG for a killed harness."""
    process = subprocess.Popen(
        [str(CONTAINERS / "make-base"), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=launcher.preexec(death_signal=signal.SIGTERM),
    )
    try:
        _, stderr = process.communicate()
    except BaseException:
        process.terminate()
        try:
            process.wait(timeout=MAKE_BASE_STOP_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise
    return process.returncode, stderr


def transfer(source: Engine, destination: Engine, image: str) -> None:
    """`source save | destination load` of one image."""
    with source.saved(image) as stream:
        destination.run(*destination.load_args(), stdin=stream, timeout=1800)


def prerequisite(sdk: str, target: Arch, fresh: bool = False) -> str | None:
    """Why the host-side inputs of `sdk`'s image are missing, or None: its `prepare` is run (when
    it declares a `binary`, only if that is missing or `fresh`), then every path of its `inputs`
    and `context` must exist."""
    declared = recipe(sdk)
    repo = paths.REPO
    binary = repo / _fill(declared.binary, sdk, target) if declared.binary else None
    if declared.prepare and (fresh or binary is None or not binary.exists()):
        command = _fill(declared.prepare, sdk, target)
        # without the harness marker: a Bazel server a build starts outlives the command by
        # design (5 min idle), and the next uabench would take it for a killed harness's leftover
        env = {k: v for k, v in os.environ.items() if k != launcher.MARKER}
        done = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            return f"{command} failed: {(done.stderr or done.stdout).strip()[-400:]}"
    for path in (*declared.inputs, *declared.context):
        if not (repo / _fill(path, sdk, target)).exists():
            how = sdks.get(sdk).install or "its install"
            return f"{_fill(path, sdk, target)} is missing: run {how}"
    return None


def build_arguments(sdk: str, target: Arch) -> list[str]:
    # The base by image ID: podman import records no platform variant, so a lookup of the
    # name under --platform linux/arm/v6 would miss it and try a registry.
    suite = base_suite(sdk, target)
    ensure_base(target, suite)
    base_id = engine().digest(base_image(target, suite))
    if base_id is None:
        raise ImageError(f"no base image {base_image(target, suite)} in {engine().name}")
    declared = recipe(sdk)
    arguments = {**declared.build_args, **declared.on(target.name).build_args}
    return [f"BASE={base_id}", *(f"{key}={_fill(value, sdk, target)}" for key, value in arguments.items())]


def stage_context(sdk: str, target: Arch) -> Path:
    """The build context of one image: a fresh directory with the recipe's `context` (without
    its `exclude` patterns) at their repository paths, hard-linked where the file system allows
    (copied otherwise), so what the engine is sent is what the recipe names."""
    declared = recipe(sdk)
    staged = STAGED / f"{sdk}-{target.name}"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    excluded = [_fill(pattern, sdk, target) for pattern in declared.exclude]

    def link(source: str, destination: str) -> None:
        try:
            os.link(source, destination)
        except OSError:  # another file system, or links not allowed: a copy
            shutil.copy2(source, destination)

    def ignored(directory: str, names: list[str]) -> set[str]:
        relative = Path(os.path.relpath(directory, paths.REPO))  # not resolved: a context entry may be a link
        return {
            name
            for name in names
            if any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(str(relative / name), p) for p in excluded)
        }

    for entry in declared.context:
        relative = _fill(entry, sdk, target)
        source, destination = paths.REPO / relative, staged / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination, symlinks=True, ignore=ignored, copy_function=link)
        else:
            link(str(source), str(destination))
    return staged


@dataclass
class Built:
    sdk: str
    arch: str
    platform: str
    image: str
    status: str  # built | failed | not_built
    seconds: float | None = None
    size_bytes: int | None = None
    reason: str | None = None
    log: str | None = None
    engine: str | None = None
    digest: str | None = None  # the image ID (sha256 of its configuration)


def _build_ca() -> None:
    """.cache/build-ca/ holds the host's CA bundle when it has one (else stays empty): the
    Dockerfiles' pip stage trusts it."""
    BUILD_CA.mkdir(parents=True, exist_ok=True)
    if HOST_CA_BUNDLE.exists():
        shutil.copyfile(HOST_CA_BUNDLE, BUILD_CA / "ca.crt")


def build(sdk: str, target: Arch, log_dir: Path, no_cache: bool = False, fresh_inputs: bool = False) -> Built:
    name = image_name(sdk, target)
    result = Built(sdk, target.name, target.platform, name, "not_built")
    reason = not_built(sdk, target)
    if reason:
        result.reason = reason
        return result
    _build_ca()
    missing = prerequisite(sdk, target, fresh_inputs)
    if missing:
        result.status, result.reason = "failed", missing
        return result
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{sdk}-{target.name}.log"
    chosen = engine()
    result.engine = chosen.name
    try:
        arguments = build_arguments(sdk, target)
    except (ImageError, EngineError) as error:
        result.status, result.reason = "failed", str(error)
        return result
    context = stage_context(sdk, target)
    command = chosen.build_args(dockerfile(sdk), name, context, target.platform, arguments, no_cache)
    started = time.monotonic()
    try:
        with log.open("w") as stream:
            done = subprocess.run(
                chosen.command(*command), env=chosen.environ(), stdout=stream, stderr=subprocess.STDOUT, text=True
            )
    finally:
        shutil.rmtree(context, ignore_errors=True)
    result.seconds = round(time.monotonic() - started, 1)
    result.log = str(log)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-6:]
        result.status, result.reason = "failed", " | ".join(tail)
        return result
    result.status = "built"
    result.size_bytes = chosen.size(name)
    result.digest = chosen.digest(name)
    return result


def capabilities(sdk: str, target: Arch) -> dict:
    """`capabilities` of the image, run under emulation."""
    chosen = engine()
    done = chosen.run(
        *chosen.run_args(image_name(sdk, target), target.platform, arguments=["capabilities"]), check=False, timeout=300
    )
    if done.returncode != 0:
        raise ImageError(f"{sdk}:{target.name} capabilities exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def human_size(size: int | None) -> str:
    return "-" if size is None else f"{size / 1e6:.0f} MB"


def record(results: list[Built], path: Path, daemon: str = "") -> None:
    """Merge these results into the JSON summary at `path` (one entry per engine, sdk and arch:
    docker and podman keep separate image stores); `daemon` names what served the engine."""
    known: dict[str, dict] = {}
    if path.exists():
        try:
            known = {_key(e.get("engine"), e["sdk"], e["arch"]): e for e in json.loads(path.read_text())}
        except (ValueError, KeyError, TypeError):
            known = {}
    for one in results:
        known[_key(one.engine, one.sdk, one.arch)] = asdict(one) | {
            "recorded_ns": time.time_ns(),
            "emulated": arch(one.arch).emulated,
            "engine_daemon": daemon,
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(sorted(known.values(), key=lambda e: (e["arch"], e["sdk"], e.get("engine") or "")), indent=1)
    )


def _key(engine: str | None, sdk: str, arch: str) -> str:
    return f"{engine or 'podman'}:{sdk}:{arch}"  # entries from before the engine was recorded: podman
