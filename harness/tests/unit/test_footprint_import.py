"""The footprint's model import (SPEC §4, Imported information models): the plan's models, the
judgement of what the model probe saw, the cost's difference with its interval, the declared
failures of sdk.toml, and the report's table. The probe and the servers run in the integration
tests and the footprint suite's smoke."""

from __future__ import annotations

import io
import tarfile

import pytest
from helpers import REPO
from helpers.footprint import cell as _cell
from helpers.footprint import edited_plan as _plan

from uabench import plan, sdks
from uabench.engine.cells import Outcome
from uabench.footprint import memory, nodesets, runner
from uabench.footprint import suite as footprint_suite
from uabench.footprint.cells import KNOWN
from uabench.footprint.plan import ImportModel
from uabench.footprint.report import footprint_section

DI = "http://opcfoundation.org/UA/DI/"
MODEL = ImportModel(
    "DI",
    "node-opcua-nodesets",
    "1.0.0",
    "0" * 128,
    ("nodesets/di.xml",),
    (
        {
            "uri": DI,
            "nodes": [
                {"id": 1002, "browse_name": "DeviceType", "node_class": "ObjectType"},
                {"id": 5001, "browse_name": "DeviceSet", "node_class": "Object", "parent": 85},
            ],
        },
    ),
)


def _seen(index: int | None = 2, **changes: dict) -> dict:
    """What the probe prints of a server that imported MODEL (index: DI's namespace), with the
    nodes' fields changed as given (by id)."""
    nodes = {
        1002: {"id": 1002, "browse_name": {"index": index, "name": "DeviceType"}, "node_class": "ObjectType"},
        5001: {
            "id": 5001,
            "browse_name": {"index": index, "name": "DeviceSet"},
            "node_class": "Object",
            "under_parent": True,
        },
    }
    for key, change in changes.items():
        nodes[int(key.removeprefix("i"))] = {"id": int(key.removeprefix("i")), **change}
    return {"namespaces": 4, "models": [{"uri": DI, "index": index, "nodes": list(nodes.values()) if index else []}]}


def test_the_shipped_plan_pins_each_model_and_the_smoke_imports_one():
    loaded = plan.load("footprint")
    setup = footprint_suite.of(loaded)
    assert setup is not None and setup.nodeset_import is not None
    names = [m.name for m in setup.imports_of("quick")]
    assert names == ["DI 1.05", "Machinery 1.04", "DI 1.04", "Machinery 1.02"]
    assert [m.name for m in setup.imports_of("smoke")] == ["DI 1.05"]
    machinery = setup.nodeset_import.model("Machinery 1.04")
    assert machinery.files[0].endswith("Di.NodeSet2.xml") and machinery.files[-1].endswith("Machinery.NodeSet2.xml")
    assert nodesets.tarball_url(machinery) == (
        "https://registry.npmjs.org/node-opcua-nodesets/-/node-opcua-nodesets-2.185.0.tgz"
    )
    smoke = [case.name for case in plan.test_cases(loaded, ["open62541"], "smoke")]
    assert "model import of open62541" in smoke


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('imports = ["DI 1.05"]', 'imports = ["DI 9"]', r"smoke\.footprint\.imports: no \['DI 9'\]"),
        ('name = "DI 1.04"', 'name = "DI 1.05"', r"footprint\.import\.models: names must differ"),
        ('sha512 = "10b7', 'sha512 = "XYZ', r"footprint\.import\.models\.2\.sha512"),
        ("{ id = 1002, browse_name", "{ id = -1, browse_name", r"footprint\.import\.models\.0\.expect"),
        ('node_class = "ObjectType" },\n        { id = 5001', 'node_class = "Thing" },\n        { id = 5001', "Thing"),
    ],
)
def test_a_bad_import_table_is_refused_naming_the_key(tmp_path, old, new, message):
    with pytest.raises(plan.PlanError, match=message):
        _plan(tmp_path, old, new)


def test_an_import_as_the_files_say_is_verified():
    assert nodesets.judge(_seen(), MODEL) == []


@pytest.mark.parametrize(
    ("observed", "problem"),
    [
        (_seen(index=None), f"namespace {DI} is not in the server's NamespaceArray"),
        (
            _seen(
                i5001={"browse_name": {"index": 1, "name": "DeviceSet"}, "node_class": "Object", "under_parent": True}
            ),
            "ns=2;i=5001 (http://opcfoundation.org/UA/DI/): BrowseName 1:DeviceSet, expected 2:DeviceSet",
        ),
        (
            _seen(i1002={"browse_name": {"index": 2, "name": "DeviceType"}, "node_class": "Object"}),
            "ns=2;i=1002 (http://opcfoundation.org/UA/DI/): NodeClass Object, expected ObjectType",
        ),
        (
            _seen(
                i5001={"browse_name": {"index": 2, "name": "DeviceSet"}, "node_class": "Object", "under_parent": False}
            ),
            "ns=2;i=5001 (http://opcfoundation.org/UA/DI/): a Browse of i=85 does not return it",
        ),
        (_seen(i1002={"status": "BadNodeIdUnknown"}), "BadNodeIdUnknown, expected DeviceType"),
    ],
)
def test_each_way_an_import_can_be_wrong_is_found(observed, problem):
    found = nodesets.judge(observed, MODEL)
    assert len(found) == 1 and problem in found[0]


def test_the_probe_is_asked_for_each_node_and_the_parents_where_given():
    assert nodesets.probe_arguments(MODEL) == {
        "models": [{"uri": DI, "nodes": [{"id": 1002}, {"id": 5001, "parent": 85}]}]
    }


def test_the_files_come_from_the_cached_tarball_when_its_hash_matches(tmp_path):
    # pooch finds the tarball in the cache and checks its hash: no download
    content = b"<UANodeSet/>"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("package/nodesets/di.xml")
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))
    (tmp_path / "node-opcua-nodesets-1.0.0.tgz").write_bytes(buffer.getvalue())
    import hashlib

    model = ImportModel(*[MODEL.name, MODEL.package, MODEL.version], hashlib.sha512(buffer.getvalue()).hexdigest(),
                        MODEL.files, MODEL.expect)  # fmt: skip
    found = nodesets.files(model, tmp_path)
    assert [path.read_bytes() for path in found] == [content]


def test_the_cost_of_an_import_is_a_difference_with_its_interval():
    found = memory.difference([1.20, 1.30, 1.25], [0.50, 0.52, 0.49])
    assert found is not None and found.mean == pytest.approx(0.7467, abs=1e-4)
    assert found.low is not None and found.high is not None and found.low < found.mean < found.high
    alone = memory.difference([1.2], [0.5, 0.52])
    assert alone is not None and alone.low is None
    assert memory.difference([], [1.0]) is None


def test_a_declared_failure_is_known_and_another_is_not():
    asyncua = sdks.get("asyncua")
    declared = asyncua.nodeset_import["DI 1.05"]
    known = runner.known_import_failure(asyncua, "DI 1.05", Outcome("fail", f"refused: {declared.found}: no parent"))
    assert known.reason is not None and known.reason.startswith(KNOWN)
    other = runner.known_import_failure(asyncua, "DI 1.05", Outcome("fail", "BadNodeIdExists"))
    assert other.reason == "BadNodeIdExists"
    passed = runner.known_import_failure(asyncua, "DI 1.04", Outcome("fail", declared.found))
    assert passed.reason == declared.found  # nothing declared for DI 1.04


def _imported(ready_s: float, idle: int) -> dict:
    observed = {"models": [{"uri": DI, "index": 2, "nodes": [{"id": 1002}, {"id": 5001}]}]}
    return {"model": "DI", "files": ["di.xml"], "ready_s": ready_s, "idle": {"rss": idle}, "idle_bytes": idle,
            "basis": "RSS", "observed": observed}  # fmt: skip


def test_the_section_shows_each_models_cost_beside_the_starts_without():
    mib = 1 << 20
    cells = [_cell("footprint-import", "s", "none", 0, _imported(r, 30 * mib)) for r in (0.50, 0.52, 0.48)]
    cells += [
        _cell("footprint-import", "s", "DI", 1, _imported(r, 36 * mib + k * 4096))
        for k, r in enumerate((0.8, 0.9, 0.85))
    ]
    cells += [_cell("footprint-import", "t", "DI", 1, status="fail", reason=f"{KNOWN}its loader: why (error)")]
    cells += [_cell("footprint-import", "u", "DI", 1, status="fail", reason="BadParentNodeIdInvalid")]
    # on a remote target each process's upload has its own name: one reason, said once with its count
    there = "{KNOWN}no parent (could not import /tmp/uabench.x/role-{pid}-nodeset-0.xml: BadParentNodeIdInvalid)"
    cells += [
        _cell("footprint-import", "w", "DI", 1, status="fail", reason=there.format(KNOWN=KNOWN, pid=pid))
        for pid in (21786, 22064)
    ]
    cells += [_cell("footprint-import", "v", "DI", 1, status="not_supported", reason="no loader")]
    section = footprint_section(cells)
    assert section is not None
    table = next(t for t in section.tables if any(c.title == "import time" for c in t.columns))
    rows = {(r[0].value, r[1].value): r for r in table.rows}
    assert set(rows) == {("s", "DI"), ("t", "DI"), ("u", "DI"), ("v", "DI"), ("w", "DI")}
    s = rows["s", "DI"]
    time = s[table.column("import time")]
    assert time.value.center == pytest.approx(350.0) and time.status is None
    assert s[table.column("import memory")].value.center == pytest.approx(6.0 + 4096 / (1 << 20))
    assert s[table.column("import")].value == "verified: 2 nodes in 1 namespace, every process"
    assert rows["t", "DI"][table.column("import")].value == "rejected (declared)"
    assert rows["u", "DI"][table.column("import")].value == "failed in 1 of 1 processes"
    assert rows["v", "DI"][table.column("import")].value == "not supported"
    assert any(
        n.startswith("t, import of DI") and "declared in its sdk.toml (1 of 1 processes). its loader" in n
        for n in section.notes
    )
    assert any(
        n.startswith("u, import of DI") and "not measured (1 of 1 processes). BadParentNodeIdInvalid" in n
        for n in section.notes
    )
    assert [n for n in section.notes if n.startswith("w, ")] == [
        "w, import of DI (its files): declared in its sdk.toml (2 of 2 processes). no parent (could not import "
        "/tmp/uabench.x/role-…-nodeset-0.xml: BadParentNodeIdInvalid)"
    ]
    assert [n for n in section.notes if n.startswith("v, ")] == ["v, model import: not supported. no loader"]


def test_every_declared_import_failure_names_a_model_of_the_plan():
    setup = footprint_suite.of(plan.load("footprint"))
    assert setup is not None and setup.nodeset_import is not None
    names = {m.name for m in setup.nodeset_import.models}
    for sdk in sdks.every_version():
        assert set(sdk.nodeset_import) <= names, (sdk.id, sorted(sdk.nodeset_import))
    assert REPO.joinpath("tools", "uabench_tools", "model_probe.py").is_file()
