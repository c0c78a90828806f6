"""The standard address space (SPEC §4) and its update loop."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timezone

from asyncua import Server, ua
from asyncua.server.address_space import AttributeValue

from uabench import contract

log = logging.getLogger("uabench_asyncua.server")

FLOAT, DOUBLE = ua.VariantType.Float, ua.VariantType.Double


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

        def nodeid(name: str) -> ua.NodeId:
            return ua.NodeId(name, ns)

        def name(text: str) -> ua.QualifiedName:
            return ua.QualifiedName(text, ns)

        folder = await server.nodes.objects.add_object(nodeid("uabench"), name("uabench"))
        tick = await folder.add_variable(nodeid("Tick"), name("Tick"), 0, ua.VariantType.UInt32)
        signals = [
            await folder.add_variable(nodeid(f"Signal_{i}"), name(f"Signal_{i}"), contract.signal(i, 0), FLOAT)
            for i in range(self._signals)
        ]
        await folder.add_variable(nodeid("Real"), name("Real"), contract.REAL_VALUE, FLOAT)
        page = await folder.add_variable(nodeid("Page"), name("Page"), contract.page(), ua.VariantType.Int16)
        await page.write_value_rank(ua.ValueRank.OneDimension)
        await page.write_array_dimensions([contract.PAGE_LENGTH])
        await folder.add_variable(nodeid("SDD"), name("SDD"), contract.sdd(), ua.VariantType.ByteString)
        await folder.add_variable(nodeid("Image"), name("Image"), contract.image(), ua.VariantType.ByteString)
        for j in range(self._writes):
            variable = await folder.add_variable(nodeid(f"Write_{j}"), name(f"Write_{j}"), 0.0, DOUBLE)
            await variable.set_writable()

        aspace = server.iserver.aspace
        self._moving = [(n.nodeid, aspace[n.nodeid].attributes[ua.AttributeIds.Value]) for n in [tick, *signals]]

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
            value = ua.DataValue(variant, SourceTimestamp=now, ServerTimestamp=now)
            if attribute.datachange_callbacks:
                await aspace.write_attribute_value(nodeid, ua.AttributeIds.Value, value)
            else:
                attribute.value = value
