"""The standard address space (SPEC §4) and its update loop."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone

from asyncua import Server, ua
from asyncua.server.address_space import AttributeValue

import uabench_contract as contract

from . import compat

log = logging.getLogger("uabench_asyncua.server")

FLOAT, DOUBLE = ua.VariantType.Float, ua.VariantType.Double
GOOD = ua.StatusCode()  # shared: a fresh one per value costs more than the value itself
# structs whose fields asyncua 1.1.8 names differently (compat.struct): ua.X itself on 2.x
AddNodesItem = compat.struct(ua.AddNodesItem)
ReferenceDescription = compat.struct(ua.ReferenceDescription)
DataValue = compat.struct(ua.DataValue)


@dataclass
class Variable:
    name: str
    value: ua.Variant
    dimensions: list[int] | None = None
    writable: bool = False


def add_variables(
    server: Server, parent: ua.NodeId, ns: int, variables: list[Variable]
) -> None:
    """Adds variables as HasComponent children of `parent`, in time linear in their number.

    asyncua's AddNodes scans all of the parent's references for every node added (and
    compares them by constructing NodeIds), so 10000 children take minutes. Here the nodes
    are added without a parent, each child gets its inverse reference through the normal
    AddReferences service, and the parent's forward references are appended directly:
    they are new by construction, so the duplicate scan has nothing to find."""
    component = ua.NodeId(ua.ObjectIds.HasComponent)
    base_variable = ua.NodeId(ua.ObjectIds.BaseDataVariableType)
    access = ua.AccessLevel.CurrentRead.mask
    items, inverse, forward = [], [], []
    for v in variables:
        nodeid, name = ua.NodeId(v.name, ns), ua.QualifiedName(v.name, ns)
        writable = access | ua.AccessLevel.CurrentWrite.mask if v.writable else access
        attributes = ua.VariableAttributes(
            DisplayName=ua.LocalizedText(v.name),
            Description=ua.LocalizedText(v.name),
            Value=v.value,
            DataType=ua.NodeId(v.value.VariantType.value),
            ValueRank=ua.ValueRank.OneDimension
            if v.dimensions
            else ua.ValueRank.Scalar,
            ArrayDimensions=v.dimensions,
            AccessLevel=writable,
            UserAccessLevel=writable,
        )
        items.append(
            AddNodesItem(
                RequestedNewNodeId=nodeid,
                BrowseName=name,
                NodeClass=ua.NodeClass.Variable,
                ReferenceTypeId=component,
                TypeDefinition=base_variable,
                NodeAttributes=attributes,
            )
        )
        inverse.append(
            ua.AddReferencesItem(
                SourceNodeId=nodeid,
                ReferenceTypeId=component,
                IsForward=False,
                TargetNodeId=parent,
                TargetNodeClass=ua.NodeClass.Object,
            )
        )
        forward.append(
            ReferenceDescription(
                ReferenceTypeId=component,
                IsForward=True,
                NodeId=nodeid,
                BrowseName=name,
                DisplayName=attributes.DisplayName,
                NodeClass=ua.NodeClass.Variable,
                TypeDefinition=base_variable,
            )
        )
    nodes = server.iserver.node_mgt_service
    failed = [item.BrowseName.Name for item in nodes.try_add_nodes(items, check=False)]
    failed += [ref.SourceNodeId.Identifier for ref in nodes.try_add_references(inverse)]
    if failed:
        raise RuntimeError(f"cannot create variables {failed[:5]}")
    aspace = server.iserver.aspace
    aspace[parent].references.extend(forward)
    # Nodes added unchecked get no timestamps; give every initial value its creation time.
    now = datetime.now(timezone.utc)
    for v, item in zip(variables, items):
        value = aspace[item.RequestedNewNodeId].attributes[ua.AttributeIds.Value]
        value.value = DataValue(
            v.value, StatusCode=GOOD, SourceTimestamp=now, ServerTimestamp=now
        )


class StandardAddressSpace:
    """Creates the uabench variables and keeps Tick and Signal_i moving."""

    def __init__(self, server: Server, signals: int, writes: int) -> None:
        self._server = server
        self._signals = signals
        self._writes = writes
        self._tick = 0
        # (NodeId, AttributeValue) of Tick followed by every Signal_i, for the update loop.
        self._moving: list[tuple[ua.NodeId, AttributeValue]] = []

    async def create(self) -> None:
        server = self._server
        ns = await server.register_namespace(contract.NAMESPACE_URI)
        folder = await server.nodes.objects.add_object(
            ua.NodeId("uabench", ns), ua.QualifiedName("uabench", ns)
        )
        variables = [Variable("Tick", ua.Variant(0, ua.VariantType.UInt32))]
        variables += [
            Variable(f"Signal_{i}", ua.Variant(contract.signal(i, 0), FLOAT))
            for i in range(self._signals)
        ]
        variables += [
            Variable("Real", ua.Variant(contract.REAL_VALUE, FLOAT)),
            Variable(
                "Page",
                ua.Variant(contract.page(), ua.VariantType.Int16),
                dimensions=[contract.PAGE_LENGTH],
            ),
            Variable("SDD", ua.Variant(contract.sdd(), ua.VariantType.ByteString)),
            Variable("Image", ua.Variant(contract.image(), ua.VariantType.ByteString)),
        ]
        variables += [
            Variable(
                name, ua.Variant(contract.array(length), DOUBLE), dimensions=[length]
            )
            for name, length in contract.ARRAYS.items()
        ]
        variables += [
            Variable(f"Write_{j}", ua.Variant(0.0, DOUBLE), writable=True)
            for j in range(self._writes)
        ]
        add_variables(server, folder.nodeid, ns, variables)

        aspace = server.iserver.aspace
        moving = [ua.NodeId(v.name, ns) for v in variables[: 1 + self._signals]]
        self._moving = [
            (nodeid, aspace[nodeid].attributes[ua.AttributeIds.Value])
            for nodeid in moving
        ]

    async def run_updates(self, interval_ms: int) -> None:
        """Every interval: t += 1, then Tick and every Signal_i get one shared SourceTimestamp.

        asyncio is single-threaded, so a saturating load delays the loop but cannot stop it:
        the sleep's wake-up joins the ready queue behind at most one batch of requests. A late
        update still advances t by exactly one (missed periods are skipped, not replayed),
        so subscribers never see a gap the server did not produce."""
        period = interval_ms / 1000.0
        deadline = time.monotonic()
        while True:
            deadline += period
            delay = deadline - time.monotonic()
            if delay < 0:
                deadline = time.monotonic()
                delay = 0
            await asyncio.sleep(delay)
            self._tick += 1
            await self._publish(self._tick)

    async def _publish(self, tick: int) -> None:
        # Writing AttributeValue.value directly skips the per-node type checks and awaits
        # of Server.write_attribute_value; only monitored nodes (with data-change callbacks)
        # go through the address space so their subscriptions are notified.
        now = datetime.now(timezone.utc)
        aspace = self._server.iserver.aspace
        for index, (nodeid, attribute) in enumerate(self._moving):
            if index == 0:
                variant = ua.Variant(tick % 2**32, ua.VariantType.UInt32)
            else:
                variant = ua.Variant(contract.signal(index - 1, tick), FLOAT)
            value = DataValue(
                variant, StatusCode=GOOD, SourceTimestamp=now, ServerTimestamp=now
            )
            if attribute.datachange_callbacks:
                await aspace.write_attribute_value(nodeid, ua.AttributeIds.Value, value)
            else:
                attribute.value = value
