"""The reference SDK of each role (client, server, publisher, subscriber): the one declared
default in suites/references.toml, or UABENCH_REFERENCE_<ROLE> from the environment. The
harness names no SDK in its code; a plan that wants another reference says so itself."""

from __future__ import annotations

import os
import tomllib

from uabench import paths

ROLES = ("client", "server", "publisher", "subscriber")
FILE = "references.toml"


def declared(role: str) -> str:
    """The reference SDK id of `role`; ValueError of one line naming the file or variable when
    it is missing or not a name."""
    variable = f"UABENCH_REFERENCE_{role.upper()}"
    if os.environ.get(variable):
        return os.environ[variable]
    path = paths.SUITES / FILE
    try:
        with path.open("rb") as stream:
            table = tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: cannot read the reference SDKs: {error}") from None
    unknown = sorted(set(table) - set(ROLES))
    if unknown:
        raise ValueError(f"{path}: unknown key '{unknown[0]}' (one of {', '.join(ROLES)})")
    chosen = table.get(role)
    if not isinstance(chosen, str) or not chosen.strip():
        raise ValueError(f"{path}: key '{role}' must name an SDK, got {chosen!r}")
    return chosen
