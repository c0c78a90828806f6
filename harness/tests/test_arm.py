"""The ARM builds under emulation (uabench.arm, uabench.images): the Bazel cross-built C
adapter and, where built, its arm64 image serve the standard address space to the native
client with every value verified. The full suite is `uabench arm-smoke` (all SDKs, arm64 and
armhf); these run when the builds exist (ci/bazel-build aarch64, uabench images)."""

import shutil
from pathlib import Path

import pytest

from uabench import paths
from uabench.arm import images
from uabench.arm import smoke as arm
from uabench.results.store import open_store

AARCH64 = paths.REPO / ".cache" / "dist" / "aarch64" / "uabench-open62541"


def test_architecture_names():
    assert images.arch("arm64").platform == "linux/arm64"
    assert images.arch("arm/v7").name == "armhf"
    assert images.arch("armv6").name == "armel" and images.arch("armel").dist == "armv6"
    with pytest.raises(ValueError, match="unknown architecture"):
        images.arch("mips")
    assert images.image_name("milo", images.arch("arm64")) == "localhost/uabench/milo:arm64"


def test_every_sdk_has_a_containerfile():
    for sdk in images.SDKS:
        text = (images.CONTAINERS / f"{sdk}.Containerfile").read_text()
        assert "ARG BASE=" in text and "FROM ${BASE}" in text  # the base image is a build argument


def _check(results):
    assert results, "nothing ran"
    failed = [r for r in results if r.status != "pass"]
    assert not failed, failed
    assert {r.step for r in results} >= {"server ready", "read 1 node/request", "write + read back"}


@pytest.mark.skipif(not AARCH64.exists() or not shutil.which("qemu-aarch64-static"),
                    reason="needs ci/bazel-build aarch64 and qemu-user-static")
def test_aarch64_binary_serves_under_qemu(tmp_path):
    store = open_store(tmp_path / "arm.sqlite")
    _check(arm.run(store, [images.arch("arm64")], ["open62541"], binary=True, workdir=tmp_path / "run"))
    cells = store.cells(suite="arm-smoke")
    assert cells and all(cell["emulated"] for cell in cells)
    assert all("emulated" in cell["variant"] for cell in cells)


def _has_image(name: str) -> bool:
    try:
        return images.image_exists(name)
    except images.ImageError:
        return False


@pytest.mark.skipif(not shutil.which("podman") or not _has_image("localhost/uabench/open62541:arm64"),
                    reason="needs the image: uabench images --arch arm64 --sdk open62541")
def test_arm64_image_serves_under_qemu(tmp_path: Path):
    store = open_store(tmp_path / "arm.sqlite")
    _check(arm.run(store, [images.arch("arm64")], ["open62541"], binary=False, workdir=tmp_path / "run"))
    left = images.podman("ps", "-aq", "--filter", f"label={arm.LABEL}").stdout.split()
    assert not left, "a smoke container outlived the run"
