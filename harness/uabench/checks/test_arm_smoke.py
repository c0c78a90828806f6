"""The emulated ARM smoke checks (`uabench check --all`; `--images` adds the images): each SDK's ARM server under qemu
(its image, or its cross-built binary alone: the C adapter's Bazel build) read and written by the
native client with every value verified. Cells go to the store as suite `arm-smoke`, marked emulated.

The matrix comes from --arm-sdk, --arm-arch and --arm-how (default: the reference server,
suites/references.toml, on arm64, image and binary); a build that is not here skips with the command that makes it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from uabench.arm import smoke
from uabench.containers import images
from uabench.engine.session import Session
from uabench.results.store import Store

if TYPE_CHECKING:
    from uabench.checks.conftest import SmokeTarget


@dataclass
class SmokeRun:
    target: SmokeTarget
    steps: dict[str, smoke.SmokeResult]


@pytest.fixture(scope="session")
def arm_session(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """One `arm-smoke` run in the store for every target checked."""
    session = Session(store, "arm-smoke", "smoke", workdir=tmp_path_factory.mktemp("arm-smoke"))
    status = "interrupted"
    try:
        yield session
        status = "finished"
    finally:
        session.close(status)


@pytest.fixture(scope="module")
def smoked(smoke_target, arm_session: Session, unavailable) -> Iterator[SmokeRun]:
    token = secrets.token_hex(6)
    missing = None
    try:
        emulated = smoke.launched(
            arm_session, smoke_target.sdk, images.arch(smoke_target.arch), smoke_target.how, token
        )
    except smoke.NotBuilt as why:
        pytest.skip(f"not built: {why}")
    except images.ImageError as error:
        missing = str(error)
    if missing:  # outside the except block: the report is the reason, not a chained traceback
        unavailable(missing)
    try:
        results = smoke.smoke_one(arm_session, smoke.reference_client(), emulated)
        yield SmokeRun(smoke_target, {result.step: result for result in results})
    finally:
        smoke.cleanup_containers(token)


def _passed(smoked: SmokeRun, step: str) -> None:
    result = smoked.steps.get(step)
    if result is None:
        ready = smoked.steps.get("server ready")
        if ready is not None and ready.status != "pass":
            pytest.fail(f"not run: the server did not start: {ready.detail}", pytrace=False)
        pytest.skip(f"not checked for {smoked.target.id}")
    assert result.status == "pass", f"{result.status}: {result.detail}"


def test_server_ready_under_emulation(smoked: SmokeRun) -> None:
    _passed(smoked, "server ready")


def test_native_client_reads_every_node_one_per_request(smoked: SmokeRun) -> None:
    _passed(smoked, "read 1 node/request")


def test_native_client_reads_every_node_in_one_request(smoked: SmokeRun) -> None:
    _passed(smoked, f"read {len(smoke.SMOKE_NODES)} nodes/request")


def test_native_client_writes_with_read_back(smoked: SmokeRun) -> None:
    _passed(smoked, "write + read back")


def test_native_client_reads_over_basic256sha256(smoked: SmokeRun) -> None:
    """Only the C adapter: its cross-compiled crypto (mbedTLS) is what emulation can prove."""
    _passed(smoked, "read Basic256Sha256 SignAndEncrypt")


def test_server_stops_on_sigterm_under_emulation(smoked: SmokeRun) -> None:
    _passed(smoked, "server stops on SIGTERM")
