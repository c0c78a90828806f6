"""The ARM support (uabench.arm): architecture names, Dockerfiles, and the smoke step
judge against purpose-built faulty launchers. The emulated runs themselves are checks
(uabench/checks/test_arm_smoke.py, `uabench arm-smoke`, `uabench check --all`)."""

import json

import pytest

from uabench import sdks
from uabench.containers import images


def test_architecture_names():
    assert images.arch("arm64").platform == "linux/arm64"
    assert images.arch("arm/v7").name == "armhf"
    assert images.arch("armv6").name == "armel" and images.arch("armel").dist == "armv6"
    with pytest.raises(ValueError, match="unknown architecture"):
        images.arch("mips")
    assert images.image_name("milo", images.arch("arm64")) == "localhost/uabench/milo:arm64"


def test_every_sdk_has_a_dockerfile():
    assert set(images.sdk_ids()) == {sdk.id for sdk in sdks.all_sdks()}  # every adapter here has an image
    for sdk in images.sdk_ids():
        text = images.dockerfile(sdk).read_text()
        assert "ARG BASE=" in text and "FROM ${BASE}" in text  # the base image is a build argument
    assert not list(images.CONTAINERS.glob("*.Containerfile"))  # renamed, none left behind


def test_amd64_is_native_and_not_an_arm_target():
    assert images.arch("x86_64").name == "amd64" and not images.arch("amd64").emulated
    assert images.arch("arm64").emulated
    with pytest.raises(ValueError, match="not an ARM architecture"):
        images.arm_arch("amd64")


def test_the_image_summary_keeps_one_entry_per_engine(tmp_path):
    summary = tmp_path / "images.json"
    summary.write_text('[{"sdk": "milo", "arch": "arm64", "status": "built", "image": "old"}]')  # before engines
    built = [
        images.Built("milo", "arm64", "linux/arm64", "m", "built", engine="docker", digest="sha256:1"),
        images.Built("milo", "arm64", "linux/arm64", "m", "failed", engine="podman"),
    ]
    images.record(built, summary, "dockerd 20.10 (test)")
    entries = {(e.get("engine"), e["status"]) for e in json.loads(summary.read_text())}
    assert entries == {("docker", "built"), ("podman", "failed")}  # podman's replaced the unnamed one
