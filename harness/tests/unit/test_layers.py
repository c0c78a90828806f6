"""The harness's floors (import-linter's layers contract in harness/pyproject.toml, run by
`make test` as lint-imports) and the suites' registry (plan.suite_kinds)."""

import pkgutil
import tomllib

import uabench
from uabench import paths, plan

CONTRACT = paths.REPO / "harness" / "pyproject.toml"


def _floors() -> list[set[str]]:
    contracts = tomllib.loads(CONTRACT.read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return [{name.strip() for name in floor.split("|")} for floor in layers]


def test_every_package_and_module_of_the_harness_has_its_floor():
    """lint-imports checks only what the contract names: a package left out would be free to
    import anything, so each one must be given its floor when it is added."""
    listed = set().union(*_floors())
    present = {f"uabench.{module.name}" for module in pkgutil.iter_modules(uabench.__path__)}
    assert present - listed == set(), "give these a floor in [tool.importlinter] (harness/pyproject.toml)"
    assert listed - present == set(), "the contract names what is no longer there"


def test_every_suite_package_registers_its_kinds_of_plan_and_nothing_else_does():
    kinds = plan.suite_kinds()
    assert set(kinds) == {
        "conformance",
        "footprint",
        "instructions",
        "network",
        "profile",
        "resilience",
        "robustness",
        "soak",
    }
    for table, kind in kinds.items():
        assert kind.table == table and table in kind.keys  # the table that makes a plan this kind is one of its keys
        assert kind.parse.__module__.endswith(".suite") and kind.tests.__module__ == kind.parse.__module__
    floors = _floors()
    suites_floor = next(floor for floor in floors if "uabench.network" in floor)
    assert {kind.parse.__module__.rsplit(".", 1)[0] for kind in kinds.values()} <= suites_floor


def test_a_plan_of_a_registered_kind_is_parsed_by_its_suite_and_read_back_through_it():
    from uabench.conformance import suite as conformance_suite
    from uabench.robustness import suite as robustness_suite

    loaded = plan.load("conformance")
    assert loaded.kind == "conformance" and conformance_suite.of(loaded) is loaded.setup
    assert robustness_suite.of(loaded) is None and robustness_suite.soak_of(loaded) is None
    assert plan.load("read").kind is None and conformance_suite.of(plan.load("read")) is None
