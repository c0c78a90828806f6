"""Options, parametrisation and shared fixtures of the checks (see uabench.checks).

Test ids name what is checked, so `-k` selects by name: `test_contract.py -k milo`,
`test_arm_smoke.py -k "arm64 and binary"`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from uabench import references, sdks
from uabench.results.store import Store, open_store


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("uabench", "uabench checks")
    group.addoption("--store", default=None, help="results store for the ARM cells (default: a throw-away store)")
    group.addoption(
        "--require-builds",
        action="store_true",
        help="a missing ARM build or image fails instead of skipping",
    )
    group.addoption("--arm-arch", default="arm64", help="comma-separated architectures of the ARM smoke checks")
    group.addoption(
        "--arm-sdk",
        default="",
        help="comma-separated SDKs of the ARM smoke checks ('all': every one with an image; default: the "
        "reference server, suites/references.toml)",
    )
    group.addoption(
        "--arm-how",
        default="image,binary",
        help="image and/or binary (an SDK's cross-built binary alone under qemu-user: sdk.toml [image] binary)",
    )
    group.addoption(
        "--sdk",
        default="",
        help="comma-separated SDKs to check, versions included (asyncua@1.1.8); default: every SDK at every version",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "role(name): check only the SDKs that declare this role")
    config.addinivalue_line(
        "markers",
        "full: a long check (load over seconds, timers, a second security handshake) that `uabench check "
        "--quick` (make test) leaves to the full run (make test-full)",
    )


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


def smoke_targets(config: pytest.Config) -> list[SmokeTarget]:
    from uabench.containers import images

    chosen = _split(config.getoption("arm_sdk")) or [references.declared("server")]
    chosen = images.sdk_ids() if chosen == ["all"] else chosen
    found = []
    for arch in _split(config.getoption("arm_arch")):
        name = images.arch(arch).name
        for how in _split(config.getoption("arm_how")):
            for sdk in chosen:
                if how == "image" or images.recipe(sdk).binary:  # a binary alone: those that declare one
                    found.append(SmokeTarget(sdk, name, how))
    return found


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Module scope: pytest then runs every check of one target before the next one, so a
    # target's session, server or deployment is set up once.
    if "sdk" in metafunc.fixturenames:
        role = metafunc.definition.get_closest_marker("role")
        named = _split(metafunc.config.getoption("sdk"))
        # every declared version is checked too: a plan measures only an adapter that passes
        every = [sdks.get(name) for name in named] if named else sdks.every_version()
        chosen = [sdk for sdk in every if role is None or role.args[0] in sdk.roles]
        metafunc.parametrize("sdk", chosen, ids=[sdk.id for sdk in chosen], scope="module")
    if "smoke_target" in metafunc.fixturenames:
        smoke = smoke_targets(metafunc.config)
        metafunc.parametrize("smoke_target", smoke, ids=[t.id for t in smoke], scope="module")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every check of one target in the order of its module, then the next target: pytest's
    own grouping interleaves targets once a check has parameters of its own, and then
    restarts servers and sessions."""

    def target(item: pytest.Item) -> str:
        params = getattr(item, "callspec", None)
        for name in ("sdk", "smoke_target"):
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
    run asked for that build explicitly (--require-builds: `uabench check --all --require-builds`,
    `make test`)."""

    def missing(reason: str) -> None:
        if request.config.getoption("require_builds"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)

    return missing
