"""Are the adapters there as their sdk.toml declares? The first check of every suite."""

from __future__ import annotations

from collections.abc import Callable

from uabench import sdks, targets
from uabench.containers import isolation

# What each adapter answered to `capabilities`, by (SDK, launcher): asked once per process, i.e.
# once per `uabench run` however many suites it runs. Starting a JVM or Node.js for it costs
# seconds per suite (7 suites in make bench), and an adapter cannot change under a running
# benchmark. A broken adapter's error is kept as well: it stays broken for the run.
_answered: dict[tuple[str, str], dict | sdks.AdapterBroken] = {}


def capabilities(sdk: sdks.Sdk) -> dict:
    """`sdk`'s capabilities, asked at most once per process; raises sdks.AdapterBroken."""
    command = _capabilities_command(sdk.id)  # --isolation container: the image's
    key = (sdk.id, " ".join(command) if command else str(sdk.run))
    if key not in _answered:
        try:
            _answered[key] = sdks.capabilities(sdk, command)
        except sdks.AdapterBroken as error:
            _answered[key] = error
    found = _answered[key]
    if isinstance(found, sdks.AdapterBroken):
        raise found
    return found


def _capabilities_command(sdk: str) -> list[str] | None:
    """`capabilities` of `sdk`'s image when the run's clients run in containers, else None (ask
    the host's)."""
    placed = targets.for_role("capabilities")
    if not isinstance(placed, isolation.Containers):
        return None
    engine = placed.engine
    return engine.command(*engine.run_args(placed.image(sdk).name, placed.platform, arguments=["capabilities"]))


def problems(
    only: list[str] | None, roles: tuple[str, ...], log: Callable[[str], None], versions: bool = False
) -> list[str]:
    """Every chosen SDK (`versions`: at every version it declares) answers `capabilities` with
    the version its sdk.toml pins and with exactly the `roles` (of those the suite needs) it
    declares, and names the reason for each it lacks; each role has at least one SDK. The
    problems found, empty if none."""
    every = sdks.every_version() if versions else sdks.all_sdks()
    chosen = [sdk for sdk in every if only is None or sdk.base in only]
    found = []
    for sdk in chosen:
        try:
            answer = capabilities(sdk)
        except sdks.AdapterBroken as error:
            found.append(str(error))
            continue
        if str(answer.get("version")) != sdk.version:
            found.append(f"{sdk.id}: runs version {answer.get('version')}, sdk.toml pins {sdk.version}")
        for role in roles:
            declared, answered = role in sdk.roles, role in answer.get("roles", [])
            if declared != answered:
                found.append(
                    f"{sdk.id}: sdk.toml {'declares' if declared else 'does not declare'} the {role} "
                    f"role, capabilities {'lists' if answered else 'does not list'} it"
                )
            if not declared and role not in sdk.not_supported:
                found.append(f"{sdk.id}: no [not_supported] reason for the {role} role")
        has = [role for role in roles if role in sdk.roles]
        log(
            f"{sdk.id} {answer.get('version')}: "
            + (", ".join(has) if has else "none of " + ", ".join(roles) + ": " + sdk.reason_unsupported(roles[0]))
        )
    for role in roles:
        if not any(role in sdk.roles for sdk in chosen):
            found.append(f"need at least one {role} adapter, have {[sdk.id for sdk in chosen]}")
    return found
