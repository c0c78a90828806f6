"""The estimate counts the tests that --include, --exclude and --test leave, as Robot does."""

import argparse

from uabench.cli import _selected
from uabench.plan import TestCase as Case

INTEROP = Case("open62541 reads milo: every node type", "Interop Cell Should Pass", (), ("interop", "server:milo"))
RANKING = Case(
    "Throughput ranking (open62541 load): 100 nodes",
    "Throughput Ranking Should Be Measured",
    (),
    ("throughput", "server:milo", "server:asyncua"),
)
CHECK = Case("adapter check", "Adapters Should Be Installed", (), ())


def _kept(include=None, exclude=None, test=None) -> list[str]:
    selected = _selected(argparse.Namespace(include=include, exclude=exclude, test=test))
    return [case.name for case in (INTEROP, RANKING, CHECK) if selected(case)]


def test_no_selection_keeps_every_test():
    assert _kept() == [INTEROP.name, RANKING.name, CHECK.name]


def test_include_keeps_the_tagged_tests_only():
    assert _kept(include=["interop"]) == [INTEROP.name]
    assert _kept(include=["server:asyncua"]) == [RANKING.name]


def test_exclude_and_test_patterns():
    assert _kept(exclude=["throughput"]) == [INTEROP.name, CHECK.name]
    assert _kept(test=["open62541 reads*"]) == [INTEROP.name]
