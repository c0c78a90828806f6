"""Profiles (issue 20): folded stacks, the functions by self time, the attribution of samples by
profile/rules.toml, the flame graph, and the profile plan. A real server's profile is make
test's smoke run (suites/plans/profile.toml)."""

import shutil

import pytest
from helpers.profile import STACKS

from uabench.document.model import Report
from uabench.profile import folded, profilers
from uabench.profile.report import profile_section
from uabench.report import html, markdown

needs_inferno = pytest.mark.skipif(
    shutil.which(str(profilers.INFERNO / "inferno-flamegraph")) is None, reason="inferno not built (ci/profile-tools)"
)


@needs_inferno
def test_the_report_draws_a_flame_graph_from_the_stored_stacks():
    stacks = folded.parse(STACKS)
    result = {
        "profiler": "perf",
        "frequency_hz": 499,
        "samples": 100,
        "top": [f.__dict__ for f in folded.top(stacks, 5)],
        "attribution": folded.attribution(stacks, folded.rules()),
        "throughput_ratio": 0.8,
        "folded": folded.render(stacks),
    }
    cell = {"kind": "profile", "status": "pass", "server": "open62541", "variant": "read", "result": result}
    section = profile_section([cell])
    assert section is not None and len(section.images) == 1
    assert "aesni_cbc_encrypt" in section.images[0].svg and section.images[0].svg.lstrip().startswith("<?xml")
    report = Report("r", [section])
    assert "![open62541, read: 100 samples at 499 Hz](flamegraphs/open62541-read.svg)" in markdown.render(report)
    assert "data:image/svg+xml;base64," in html.render(report)
    # a profiler that cost 20 % is marked
    attribution = section.tables[0]
    assert attribution.rows[0][-1].status is not None
