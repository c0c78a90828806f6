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


def test_every_cell_kind_is_an_enum_member_owned_by_one_package():
    """Each kind of stored cell is a member of results.kinds.CellKind or of one suite's own enum,
    declared in that suite's package; no two declare one value (a section would read another's
    cells)."""
    from uabench.results.kinds import CellKind

    enums = [CellKind, *{kind.cells for kind in plan.suite_kinds().values() if kind.cells}]
    values = [member.value for enum in enums for member in enum]
    assert len(values) == len(set(values)), "two enums declare one kind"
    assert plan.cell_kinds() == frozenset(values)
    for enum in enums[1:]:
        package = enum.__module__.rsplit(".", 1)[0]
        owners = [kind for kind in plan.suite_kinds().values() if kind.cells is enum]
        assert owners and all(kind.parse.__module__.startswith(package) for kind in owners)


def test_the_recorder_stores_no_cell_of_a_free_string_or_unknown_kind(tmp_path):
    import enum

    import pytest

    from uabench.engine.recorder import RunRecorder
    from uabench.results.kinds import CellKind
    from uabench.results.store import open_store

    store = open_store(tmp_path / "s.sqlite")
    recorder = RunRecorder(store, "read", "smoke", tmp_path, lambda: {})
    recorder.begin()
    cell = dict(suite="read", client="open62541", server="open62541", variant="v", repetition=0, status="pass")
    stray = enum.StrEnum("Stray", {"FROB": "frobnicate"})
    for wrong in ("throughput", stray.FROB):  # a string, even a known one; a kind no package registers
        with pytest.raises(ValueError, match="plan.cell_kinds"):
            recorder.add_cell(kind=wrong, **cell)
    assert recorder.add_cell(kind=CellKind.THROUGHPUT, **cell) is not None
    assert [c["kind"] for c in store.cells([recorder.run_id])] == ["throughput"]
    store.close()
