"""A known handicap: one SDK's server given a share of the CPU it would otherwise have (a cgroup
CFS quota, proc.cgroups), so that a comparison can be shown to see a change of known size
(issue 38: an A/B run in which one server is 30 % slower must come out "slower" for that
server, with an interval that holds −30 %, and "same" for every other).

`uabench run --handicap SDK=0.7` sets UABENCH_HANDICAP for the run (a Robot run started by hand
may set it too); every server process of SDK is then limited to 0.7 of the cores the server
may use, from its start (its warm-up included). The run's provenance records it, and the
report and compare say so wherever a handicapped run's figures are shown: a handicapped run is
a test of the tool, never a measurement of the SDK."""

from __future__ import annotations

import os

from uabench import sdks

VARIABLE = "UABENCH_HANDICAP"


def parse(text: str) -> dict[str, float]:
    """`SDK=FRACTION[,SDK=FRACTION]` as {SDK: fraction}; a ValueError of one line naming what is
    wrong (an SDK with no adapter, a fraction outside (0, 1))."""
    found: dict[str, float] = {}
    known = [one.id for one in sdks.with_role("server")]
    for part in (one.strip() for one in text.split(",")):
        sdk, equals, value = part.partition("=")
        sdk = sdk.strip()
        if not equals or not sdk:
            raise ValueError(f"handicap '{part}': give SDK=FRACTION, e.g. asyncua=0.7")
        if sdk not in known:
            raise ValueError(f"handicap '{part}': no server SDK '{sdk}' (known: {', '.join(known)})")
        try:
            fraction = float(value)
        except ValueError:
            raise ValueError(f"handicap '{part}': '{value}' is not a number") from None
        if not 0.05 <= fraction < 1:
            raise ValueError(f"handicap '{part}': the share of CPU must be at least 0.05 and below 1, got {value}")
        if sdk in found:
            raise ValueError(f"handicap '{part}': {sdk} is handicapped twice")
        found[sdk] = fraction
    return found


def declared() -> dict[str, float]:
    """The run's handicaps from UABENCH_HANDICAP; none when it is unset or empty."""
    text = os.environ.get(VARIABLE, "").strip()
    return parse(text) if text else {}


def text(handicaps: dict[str, float]) -> str:
    """As the report and compare state it."""
    return ", ".join(f"{sdk}'s server limited to {fraction:.0%} of its CPU" for sdk, fraction in handicaps.items())
