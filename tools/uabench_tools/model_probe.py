"""Looks at what a server imported from NodeSet2 files (adapters/SPEC.md §4, Imported
information models) and prints what it found, one JSON line; it judges nothing (the harness's
uabench.footprint.nodesets does, from this line).

For each expected model: the index of its namespace URI in the server's NamespaceArray; for
each expected node (a numeric identifier in that namespace), its BrowseName and NodeClass as
read; and, where the node has an expected parent, whether a Browse of the parent (forward
hierarchical references) returns it. A node's attributes can be present while the reference a
file gave only as an inverse one (DI's DeviceSet: `Organizes` from Objects) was never linked;
the Browse is what a client navigating the address space sees.

asyncua's high-level client: only ordinary requests are sent. It runs in the tools' venv;
this script imports nothing of uabench:

    tools/.venv/bin/python -m uabench_tools.model_probe '<JSON arguments>'

arguments: {"endpoint", "timeout_s", "models": [{"uri", "nodes": [{"id", "parent"?}]}]},
`parent` a numeric identifier in namespace 0 (85: Objects)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys

from asyncua import Client, ua


async def look(arguments: dict) -> dict:
    client = Client(
        arguments["endpoint"], timeout=float(arguments.get("timeout_s", 10))
    )
    async with client:
        namespaces = await client.get_namespace_array()
        found = []
        for model in arguments["models"]:
            index = (
                namespaces.index(model["uri"]) if model["uri"] in namespaces else None
            )
            nodes = []
            for expected in model["nodes"]:
                nodes.append(await _node(client, index, expected))
            found.append({"uri": model["uri"], "index": index, "nodes": nodes})
    return {"namespaces": len(namespaces), "models": found}


async def _node(client: Client, index: int | None, expected: dict) -> dict:
    seen: dict = {"id": expected["id"]}
    if index is None:
        return seen
    node = client.get_node(ua.NodeId(int(expected["id"]), index))
    try:
        name = await node.read_browse_name()
        seen["browse_name"] = {"index": name.NamespaceIndex, "name": name.Name}
        seen["node_class"] = (await node.read_node_class()).name
    except ua.UaStatusCodeError as error:
        seen["status"] = type(error).__name__
        return seen
    if "parent" in expected:
        parent = client.get_node(ua.NodeId(int(expected["parent"]), 0))
        children = await parent.get_children(refs=ua.ObjectIds.HierarchicalReferences)
        seen["under_parent"] = node.nodeid in {child.nodeid for child in children}
    return seen


def main() -> None:
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    arguments = json.loads(sys.argv[1])
    print(json.dumps(asyncio.run(look(arguments))), flush=True)


if __name__ == "__main__":
    main()
