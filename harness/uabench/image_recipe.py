"""An SDK's container image as its sdk.toml declares it ([image], adapters/SPEC.md §1): the
Dockerfile, what the build context holds, the build arguments, what the host must make first
(a cross build, a runtime for the architecture) and what differs per architecture. `uabench
images` (containers/images.py) builds every SDK that declares one and names no SDK itself, so a
new SDK's image needs nothing outside its own folders but a recipe it may share (the two Python
SDKs build ci/containers/python/Dockerfile with their own arguments).

Text values may hold the placeholders {sdk} (the SDK's id), {arch} (the Debian architecture:
arm64, armhf, armel, amd64) and {dist} (the cross-build target: aarch64, armhf, armv6, host)."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path

PLACEHOLDERS = ("sdk", "arch", "dist")
ARCHES = ("arm64", "armhf", "armel", "amd64")
KEYS = {"dockerfile", "context", "exclude", "build_args", "prepare", "binary", "inputs", "secure_smoke", "arch"}
ARCH_KEYS = {"build_args", "base_suite", "not_built"}


@dataclass(frozen=True)
class ArchRecipe:
    """What differs on one architecture ([image.arch.<name>])."""

    build_args: dict[str, str] = field(default_factory=dict)
    base_suite: str = "bookworm"  # the Debian suite of the base image
    not_built: str | None = None  # why there is no image for it (shown instead of a failure)


@dataclass(frozen=True)
class ImageRecipe:
    dockerfile: str  # relative to the repository root
    context: tuple[str, ...]  # the files and directories the Dockerfile copies, repository-relative
    exclude: tuple[str, ...] = ()  # glob patterns of names left out of `context`'s directories
    build_args: dict[str, str] = field(default_factory=dict)  # BASE is the builder's
    prepare: str | None = None  # a command that makes the host-side inputs (a cross build) first
    binary: str | None = None  # the native binary `prepare` makes: it runs under qemu-user alone too
    inputs: tuple[str, ...] = ()  # what the SDK's install makes and the context needs
    secure_smoke: bool = False  # the ARM smoke proves its cross-compiled crypto with a secure read
    arches: dict[str, ArchRecipe] = field(default_factory=dict)

    def on(self, arch: str) -> ArchRecipe:
        return self.arches.get(arch, ArchRecipe())


def fill(text: str, sdk: str, arch: str, dist: str) -> str:
    """`text` with its placeholders replaced."""
    return text.format(sdk=sdk, arch=arch, dist=dist)


def _placeholders(text: str, where: str) -> str:
    """`text` if every placeholder in it is known; ValueError naming `where` otherwise."""
    try:
        named = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    unknown = [name for name in named if name not in PLACEHOLDERS]
    if unknown:
        raise ValueError(f"{where}: unknown placeholder {{{unknown[0]}}} (known: {', '.join(PLACEHOLDERS)})")
    return text


def _texts(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{where}: must be a list of paths, got {value!r}")
    return tuple(_placeholders(v, where) for v in value)


def _arguments(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{where}: must be a table of build arguments (text values), got {value!r}")
    return {key: _placeholders(v, f"{where}.{key}") for key, v in value.items()}


def _text(table: dict, key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}.{key}: must be text, got {value!r}")
    return _placeholders(value, f"{where}.{key}")


def _unknown(table: dict, known: set[str], where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key '{unknown[0]}' (one of {', '.join(sorted(known))})")


def parse(path: Path, table: object) -> ImageRecipe:
    """sdk.toml's [image] table; ValueError naming the file and key of the first problem."""
    where = f"{path}: image"
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table")
    _unknown(table, KEYS, where)
    dockerfile = _text(table, "dockerfile", where)
    if dockerfile is None:
        raise ValueError(f"{where}: missing key 'dockerfile' (the recipe, relative to the repository root)")
    arches = table.get("arch", {})
    if not isinstance(arches, dict):
        raise ValueError(f"{where}.arch: must hold [image.arch.<architecture>] tables")
    per_arch = {}
    for name, entry in arches.items():
        here = f"{where}.arch.{name}"
        if name not in ARCHES:
            raise ValueError(f"{here}: unknown architecture (one of {', '.join(ARCHES)})")
        if not isinstance(entry, dict):
            raise ValueError(f"{here}: must be a table")
        _unknown(entry, ARCH_KEYS, here)
        per_arch[name] = ArchRecipe(
            build_args=_arguments(entry.get("build_args", {}), f"{here}.build_args"),
            base_suite=_text(entry, "base_suite", here) or "bookworm",
            not_built=_text(entry, "not_built", here),
        )
    secure = table.get("secure_smoke", False)
    if not isinstance(secure, bool):
        raise ValueError(f"{where}.secure_smoke: must be true or false, got {secure!r}")
    return ImageRecipe(
        dockerfile=dockerfile,
        context=_texts(table.get("context"), f"{where}.context"),
        exclude=_texts(table.get("exclude", []), f"{where}.exclude"),
        build_args=_arguments(table.get("build_args", {}), f"{where}.build_args"),
        prepare=_text(table, "prepare", where),
        binary=_text(table, "binary", where),
        inputs=_texts(table.get("inputs", []), f"{where}.inputs"),
        secure_smoke=secure,
        arches=per_arch,
    )
