"""Options, parametrisation and shared fixtures of the checks (see uabench.checks).

Test ids name what is checked, so `-k` selects by name: `test_contract.py -k milo`,
`test_arm_smoke.py -k "arm64 and binary"`, `test_remote.py -k image`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from uabench import paths, sdks
from uabench.results.store import Store, open_store


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("uabench", "uabench checks")
    group.addoption(
        "--store", default=None, help="results store for the ARM and remote cells (default: a throw-away store)"
    )
    group.addoption(
        "--require-builds",
        action="store_true",
        help="a missing ARM build, image or namespace host fails instead of skipping",
    )
    group.addoption("--arm-arch", default="arm64", help="comma-separated architectures of the ARM smoke checks")
    group.addoption(
        "--arm-sdk", default="open62541", help="comma-separated SDKs of the ARM smoke checks ('all': every one)"
    )
    group.addoption("--arm-how", default="image,binary", help="image and/or binary (the Bazel C adapter)")
    group.addoption(
        "--remote-target",
        default=None,
        help="user@host of a real remote host (default: the namespace Pi on this machine)",
    )
    group.addoption("--remote-port", type=int, default=22)
    group.addoption("--remote-identity", default=None)
    group.addoption("--remote-known-hosts", default=None)
    group.addoption(
        "--remote-workdir", default="", help="where the run's mktemp -d directory is made (default: $TMPDIR or /tmp)"
    )
    group.addoption("--remote-binary", default=None, help="adapter binary to deploy (default: the host build)")
    group.addoption(
        "--remote-image",
        default=None,
        help="container image to deploy (default with the namespace Pi: open62541's arm64 image)",
    )
    group.addoption("--remote-sdk", default="open62541", help="the SDK the binary or image is")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "role(name): check only the SDKs that declare this role")


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


# --- parametrisation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SmokeTarget:
    """One ARM build of an SDK: its image run by podman --arch, or the C adapter's Bazel
    cross build run by qemu-user."""

    sdk: str
    arch: str
    how: str  # image | binary

    @property
    def id(self) -> str:
        return f"{self.sdk}-{self.arch}-{self.how}"


@dataclass(frozen=True)
class RemoteTarget:
    """A remote host (user@host, or None for the namespace Pi) and what is deployed on it."""

    target: str | None
    sdk: str
    binary: str | None = None
    image: str | None = None

    @property
    def id(self) -> str:
        what = (
            f"binary-{Path(self.binary).parent.name}"
            if self.binary
            else f"image-{(self.image or '').rsplit('/', 1)[-1]}"
        )
        return f"{self.target or 'namespace-pi'}-{self.sdk}-{what}"


def smoke_targets(config: pytest.Config) -> list[SmokeTarget]:
    from uabench.arm import images

    chosen = _split(config.getoption("arm_sdk"))
    chosen = list(images.SDKS) if chosen in ([], ["all"]) else chosen
    found = []
    for arch in _split(config.getoption("arm_arch")):
        name = images.arch(arch).name
        for how in _split(config.getoption("arm_how")):
            for sdk in chosen:
                if how == "image" or sdk == "open62541":  # only the C adapter has a Bazel build
                    found.append(SmokeTarget(sdk, name, how))
    return found


def remote_targets(config: pytest.Config) -> list[RemoteTarget]:
    from uabench.arm import images

    target, sdk = config.getoption("remote_target"), config.getoption("remote_sdk")
    binary, image = config.getoption("remote_binary"), config.getoption("remote_image")
    if binary or image:
        return [RemoteTarget(target, sdk, binary, image)]
    if target:
        raise pytest.UsageError("--remote-target needs --remote-binary or --remote-image")
    # The namespace Pi: the host build of the C adapter, and (with --arm-how image) its arm64
    # image under qemu.
    host = host_binary()
    found = [RemoteTarget(None, "open62541", str(host) if host else str(HOST_BINARIES[0]))]
    if "image" in _split(config.getoption("arm_how")):
        found.append(RemoteTarget(None, "open62541", image=images.image_name("open62541", images.arch("arm64"))))
    return found


HOST_BINARIES = (
    paths.REPO / ".cache" / "dist" / "host" / "uabench-open62541",
    paths.REPO / "adapters" / "open62541" / "build" / "uabench-open62541",
)


def host_binary() -> Path | None:
    """A native build of the C adapter: Bazel's (ci/bazel-build host) or CMake's."""
    return next((candidate for candidate in HOST_BINARIES if candidate.exists()), None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Module scope: pytest then runs every check of one target before the next one, so a
    # target's session, server or deployment is set up once.
    if "sdk" in metafunc.fixturenames:
        role = metafunc.definition.get_closest_marker("role")
        chosen = [sdk for sdk in sdks.all_sdks() if role is None or role.args[0] in sdk.roles]
        metafunc.parametrize("sdk", chosen, ids=[sdk.id for sdk in chosen], scope="module")
    if "smoke_target" in metafunc.fixturenames:
        smoke = smoke_targets(metafunc.config)
        metafunc.parametrize("smoke_target", smoke, ids=[t.id for t in smoke], scope="module")
    if "remote_target" in metafunc.fixturenames:
        remote = remote_targets(metafunc.config)
        metafunc.parametrize("remote_target", remote, ids=[t.id for t in remote], scope="module")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every check of one target in the order of its module, then the next target: pytest's
    own grouping interleaves targets once a check has parameters of its own, and then
    restarts servers and sessions."""

    def target(item: pytest.Item) -> str:
        params = getattr(item, "callspec", None)
        for name in ("sdk", "smoke_target", "remote_target"):
            if params and name in params.params:
                value = params.params[name]
                return value.id if hasattr(value, "id") else str(value)
        return ""

    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (str(item.path), target(item), item.reportinfo()[1] or 0, order[id(item)]))


# --- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    location = request.config.getoption("store") or tmp_path_factory.mktemp("store") / "checks.sqlite"
    opened = open_store(location)
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def unavailable(request: pytest.FixtureRequest):
    """Skip a check whose build or host is missing (with the reason), or fail it when the
    run asked for that build explicitly (--require-builds: `uabench arm-smoke`, `uabench remote`)."""

    def missing(reason: str) -> None:
        if request.config.getoption("require_builds"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)

    return missing


@pytest.fixture(scope="module")
def namespace_pi(unavailable):
    """The stand-in Raspberry Pi (fixtures/pi_namespace.py), removed after the module."""
    from uabench.checks.fixtures import pi_namespace

    why = pi_namespace.available()
    if why:
        unavailable(f"no namespace Pi here: {why}")
    with pi_namespace.PiNamespace() as pi:
        yield pi
