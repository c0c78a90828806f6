"""sdk.toml's [image] (uabench.image_recipe) and what `uabench images` makes of it without an
engine: the recipes shipped, the refusals of bad ones, the build arguments and the staged build
context. The builds themselves are integration tests (test_isolation, test_arm) and checks."""

import os
import re
from pathlib import Path

import pytest

from uabench import image_recipe, paths, sdks
from uabench.containers import images

GOOD = {"dockerfile": "implementations/x/Dockerfile", "context": ["implementations/{sdk}/sdk.toml"]}


def test_every_shipped_recipe_names_a_dockerfile_and_files_that_exist_once_made():
    for sdk in sdks.all_sdks():
        assert sdk.image is not None, f"{sdk.id} declares no [image]"
        assert (paths.REPO / sdk.image.dockerfile).is_file(), sdk.image.dockerfile
        made = {sdk.image.binary} | set(sdk.image.inputs)  # what prepare or the install make
        for entry in sdk.image.context:
            filled = image_recipe.fill(entry, sdk.id, "arm64", "aarch64")
            if not filled.startswith(".cache/") and not any(m and filled.startswith(m.split("{")[0]) for m in made):
                assert (paths.REPO / filled).exists(), f"{sdk.id}: {filled}"


def test_every_build_argument_a_recipe_passes_is_one_its_dockerfile_declares():
    for sdk in sdks.all_sdks():
        assert sdk.image is not None
        declared = set(re.findall(r"^ARG (\w+)", (paths.REPO / sdk.image.dockerfile).read_text(), re.M))
        passed = set(sdk.image.build_args) | {key for arch in sdk.image.arches.values() for key in arch.build_args}
        assert passed <= declared, f"{sdk.id}: {sorted(passed - declared)} not an ARG of {sdk.image.dockerfile}"


@pytest.mark.parametrize(
    "table, message",
    [
        ({**GOOD, "dockerfil": "x"}, "image: unknown key 'dockerfil'"),
        ({"context": []}, "image: missing key 'dockerfile'"),
        ({**GOOD, "context": "sdk.toml"}, "image.context: must be a list of paths"),
        ({**GOOD, "binary": ".cache/dist/{target}/x"}, "image.binary: unknown placeholder {target}"),
        ({**GOOD, "build_args": {"DIST": 6}}, "image.build_args: must be a table of build arguments"),
        ({**GOOD, "arch": {"mips": {}}}, "image.arch.mips: unknown architecture"),
        ({**GOOD, "arch": {"armel": {"not_build": "x"}}}, "image.arch.armel: unknown key 'not_build'"),
        ({**GOOD, "secure_smoke": "yes"}, "image.secure_smoke: must be true or false"),
        ({**GOOD, "prepare": "make {"}, "image.prepare: Single '{'"),
    ],
)
def test_a_bad_recipe_is_refused_naming_the_file_and_the_key(table, message):
    with pytest.raises(ValueError) as refused:
        image_recipe.parse(Path("implementations/x/sdk.toml"), table)
    assert str(refused.value).startswith(f"implementations/x/sdk.toml: {message}")


def test_the_build_arguments_fill_the_placeholders_and_the_architecture_adds_its_own(monkeypatch):
    recipe = image_recipe.parse(
        Path("sdk.toml"),
        {
            **GOOD,
            "build_args": {"SDK": "{sdk}", "DIST": "{dist}", "DEPS": "gcc"},
            "arch": {"arm64": {"build_args": {"DEPS": ""}, "base_suite": "trixie"}, "armel": {"not_built": "no"}},
        },
    )
    monkeypatch.setattr(images, "recipe", lambda sdk: recipe)
    monkeypatch.setattr(images, "ensure_base", lambda target, suite: None)
    monkeypatch.setattr(images, "engine", lambda: type("E", (), {"digest": lambda self, name: f"id-of-{name}"})())
    arm64, armhf = images.arch("arm64"), images.arch("armhf")
    assert images.build_arguments("twin", arm64) == [
        "BASE=id-of-localhost/uabench-base:trixie-arm64",
        "SDK=twin",
        "DIST=aarch64",
        "DEPS=",
    ]
    assert images.build_arguments("twin", armhf)[1:] == ["SDK=twin", "DIST=armhf", "DEPS=gcc"]
    assert images.not_built("twin", images.arch("armel")) == "no" and images.not_built("twin", armhf) is None


def test_the_staged_context_holds_only_what_the_recipe_names(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    for name in ("adapters/a/pkg/__init__.py", "adapters/a/pkg/__pycache__/x.pyc", "adapters/a/run", "secret.key"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    (repo / "implementations/a").mkdir(parents=True)
    (repo / "implementations/a/sdk.toml").write_text("id")
    (tmp_path / "made" / "dist").mkdir(parents=True)  # what an install made elsewhere, linked into the checkout
    (tmp_path / "made" / "dist" / "binary").write_text("elf")
    (repo / ".cache").mkdir()
    (repo / ".cache" / "dist").symlink_to(tmp_path / "made" / "dist")
    context = ["adapters/{sdk}/pkg", "implementations/{sdk}/sdk.toml", ".cache/dist"]
    recipe = image_recipe.parse(Path("sdk.toml"), {**GOOD, "context": context, "exclude": ["__pycache__"]})
    monkeypatch.setattr(paths, "REPO", repo)
    monkeypatch.setattr(images, "STAGED", tmp_path / "staged")
    monkeypatch.setattr(images, "recipe", lambda sdk: recipe)
    staged = images.stage_context("a", images.arch("arm64"))
    found = sorted(str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file())
    assert found == [".cache/dist/binary", "adapters/a/pkg/__init__.py", "implementations/a/sdk.toml"]
    assert os.stat(staged / "implementations/a/sdk.toml").st_ino == os.stat(repo / "implementations/a/sdk.toml").st_ino
    (repo / "adapters/a/pkg/__init__.py").unlink()  # a second build stages afresh
    assert not (images.stage_context("a", images.arch("arm64")) / "adapters/a/pkg/__init__.py").exists()
