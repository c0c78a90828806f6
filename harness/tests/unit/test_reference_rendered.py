"""The published reference (reports/reference/) is what this checkout renders from its stores:
`uabench reference --check` says whether the code that measured its figures is the checkout's
(results/reference.MEASURED leaves out the code that only renders them); this says whether its
report and comparisons are rendered by the checkout's code. A change to the report's or compare's
code fails here until the reference is rendered again (README: the reference report)."""

import pytest

from uabench import paths
from uabench.report import comparison
from uabench.report.files import unrendered
from uabench.results.reference import DIRECTORY, STORE
from uabench.results.store import open_store

# the reference's report, and the reports of the runs made on another machine than the
# reference's (a reference holds one machine's runs: results/reference.py): the instructions, the
# make bench of 28 Nov with conformance, footprint and the ARM smoke (epyc), the versions side by side
# and the rank rule's proof (issue 67): an A/A pair of make bench and a handicapped run, one commit
# on one machine (reports/ranking/)
RANKING = paths.REPO / "reports" / "ranking"
REPORTS = [
    (STORE, DIRECTORY),
    (DIRECTORY / "uabench-instructions.sqlite", DIRECTORY / "instructions"),
    (DIRECTORY / "uabench-epyc.sqlite", DIRECTORY / "epyc"),
    (DIRECTORY / "uabench-versions.sqlite", DIRECTORY / "versions"),
    (DIRECTORY / "uabench-arm.sqlite", DIRECTORY / "arm"),
    (RANKING / "aa1.sqlite", RANKING),
]


@pytest.mark.parametrize(
    ("path", "directory"), REPORTS, ids=["reference", "instructions", "epyc", "versions", "arm", "ranking"]
)
def test_the_reference_report_is_what_this_checkout_renders(path, directory):
    store = open_store(path, readonly=True)
    try:
        found = unrendered(store, directory, images=False)  # the flame graphs: inferno, a process
        assert found is None, found
    finally:
        store.close()


@pytest.mark.parametrize("page", sorted(p.name for p in DIRECTORY.glob("compare*.md")))
def test_each_published_comparison_is_what_this_checkout_renders(page):
    assert comparison.unrendered(DIRECTORY / page, DIRECTORY / "margins.toml", paths.REPO) is None


@pytest.mark.parametrize("page", sorted(p.name for p in RANKING.glob("compare*.md")))
def test_the_rank_rules_comparisons_are_what_this_checkout_renders(page):
    """The A/A pair is judged without the margins measured from it (they would make it "same" by
    construction: results/margins.py); the handicapped run with them."""
    measured = RANKING / ("margins.toml" if page != "compare-aa.md" else "no-margins.toml")
    assert comparison.unrendered(RANKING / page, measured, paths.REPO) is None
