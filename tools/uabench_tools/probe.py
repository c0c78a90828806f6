"""The conformance probe (issue 17): sends well-encoded but unusual requests to one server and
prints what came back, one JSON line per check: {"check", "observed"} or {"check", "error"}.
It judges nothing; uabench.conformance.checks does, from these observations.

Built on asyncua's low-level client (the asyncua the asyncua adapter pins), not on a
high-level client of any SDK: every request is an asyncua request object sent with
`UASocketProtocol.send_request` and its response decoded here, so the probe can send what a
normal client never would (an invalid TimestampsToReturn, a negative maxAge, an empty
NodesToRead, a Republish of a sequence number never sent) and keeps the exact service result
and every per-operation status, where asyncua's service methods raise on the first Bad one.
asyncua is Python, like the harness, and its codec covers every service of Part 4; open62541's
raw service calls would need a C build per probe. The session is opened step by step
(Hello, OpenSecureChannel, CreateSession, ActivateSession): asyncua's `connect` would start a
keep-alive and a renewal task that hide a session timeout and a token expiry.

asyncua lives in its own venv, not the harness's; this script imports nothing of uabench:

    implementations/asyncua/.venv/bin/python probe.py '<JSON arguments>'

arguments: {"endpoint", "checks" (check ids: this class's methods), "timeout_s", "signals", "writes", "endpoints",
"session_wait_s", "gates": {"sessions", "subscriptions", "monitored_items"}}."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from asyncua import Client, ua
from asyncua.common.utils import Buffer
from asyncua.ua.ua_binary import struct_from_binary

NAMESPACE = "urn:uabench:model"
MISSING = "uabench_no_such_node"  # a string NodeId no server of the contract has
# The probe's own bound on one request: a server that never answers is a finding, not a hang.
SERVER_STATE = ua.NodeId(ua.ObjectIds.Server_ServerStatus_State)
LIMITS = {
    "MaxNodesPerRead": ua.ObjectIds.Server_ServerCapabilities_OperationLimits_MaxNodesPerRead,
    "MaxNodesPerWrite": ua.ObjectIds.Server_ServerCapabilities_OperationLimits_MaxNodesPerWrite,
    "MaxNodesPerBrowse": ua.ObjectIds.Server_ServerCapabilities_OperationLimits_MaxNodesPerBrowse,
}
# A limit above this is not exercised: one request of that many operations would exceed the
# message size every SDK accepts by default, and the answer would be about the message, not the limit.
LIMIT_PROBED_UP_TO = 20000
# A request of that many operations takes an interpreted server seconds: its bound is this, so
# slowness is not reported as a missing answer.
LIMIT_TIMEOUT_S = 60.0
SECURITY_POLICY_PREFIX = "http://opcfoundation.org/UA/SecurityPolicy#"


class NoAnswer(Exception):
    """The server closed the connection or did not answer within the bound."""


class Probe:
    def __init__(self, arguments: dict) -> None:
        self.endpoint: str = arguments["endpoint"]
        self.timeout_s: float = float(arguments.get("timeout_s", 5.0))
        self.signals: int = int(arguments.get("signals", 10))
        self.writes: int = int(arguments.get("writes", 10))
        self.endpoints: list[dict] = arguments.get(
            "endpoints", [{"policy": "None", "mode": "None"}]
        )
        self.session_wait_s: float = float(arguments.get("session_wait_s", 30.0))
        self.gates: dict = arguments.get("gates", {})
        self.ns = 0

    # --- the session and the raw request ------------------------------------------------------

    @asynccontextmanager
    async def session(
        self, session_timeout_ms: float = 60000, channel_lifetime_ms: int = 600000
    ):
        client = await self.open(session_timeout_ms, channel_lifetime_ms)
        try:
            yield client
        finally:
            await self.close(client)

    async def open(
        self, session_timeout_ms: float = 60000, channel_lifetime_ms: int = 600000
    ) -> Client:
        client = Client(self.endpoint, timeout=self.timeout_s)
        client.session_timeout = session_timeout_ms
        client.secure_channel_timeout = channel_lifetime_ms
        try:
            await client.connect_socket()
            await client.send_hello()
            await client.open_secure_channel()
            client.created = await client.create_session()
            client.activated = await client.activate_session()
        except BaseException:
            client.disconnect_socket()
            raise
        if not self.ns:
            self.ns = await self._namespace(client)
        return client

    async def close(self, client: Client) -> None:
        try:
            await asyncio.wait_for(
                self.call(client, ua.CloseSessionRequest(), ua.CloseSessionResponse),
                2.0,
            )
        except (NoAnswer, TimeoutError, ConnectionError, ua.UaError, OSError):
            pass  # a session the server already closed, or a dead server: the socket goes anyway
        finally:
            client.disconnect_socket()

    async def call(
        self,
        client: Client,
        request: Any,
        response_type: type,
        timeout_s: float | None = None,
    ) -> tuple[str, Any]:
        """Sends `request` as it is; returns the service result's name and the decoded response
        (None for a ServiceFault)."""
        protocol = client.uaclient.protocol
        if protocol is None:
            raise NoAnswer("the connection is closed")
        timeout_s = timeout_s or self.timeout_s
        try:
            data: Buffer = await asyncio.wait_for(
                protocol.send_request(request, timeout_s), timeout_s + 1
            )
        except (
            ua.UaStatusCodeError
        ) as fault:  # a ServiceFault: its status is the answer
            return ua.StatusCode(fault.code).name, None
        except TimeoutError:
            raise NoAnswer(
                f"no answer to {type(request).__name__} within {timeout_s:g} s"
            ) from None
        except (ConnectionError, OSError) as closed:
            raise NoAnswer(
                f"the connection closed on {type(request).__name__} ({closed})"
            ) from None
        response = struct_from_binary(response_type, data)
        return response.ResponseHeader.ServiceResult.name, response

    async def _namespace(self, client: Client) -> int:
        _, response = await self.call(
            client,
            read_request(
                [(ua.NodeId(ua.ObjectIds.Server_NamespaceArray), ua.AttributeIds.Value)]
            ),
            ua.ReadResponse,
        )
        names = response.Results[0].Value.Value if response else None
        if not names or NAMESPACE not in names:
            raise RuntimeError(
                f"the server's NamespaceArray has no {NAMESPACE}: {names}"
            )
        return names.index(NAMESPACE)

    def node(self, name: str) -> ua.NodeId:
        return ua.NodeId(name, self.ns)

    async def read(
        self,
        client: Client,
        nodes: list[tuple[ua.NodeId, int]],
        timeout_s: float | None = None,
        **parameters,
    ) -> dict:
        service, response = await self.call(
            client, read_request(nodes, **parameters), ua.ReadResponse, timeout_s
        )
        results = response.Results if response else []
        return {
            "service": service,
            "statuses": [r.StatusCode.name for r in results],
            "values": results,
        }

    async def write(
        self,
        client: Client,
        values: list[tuple[ua.NodeId, ua.Variant]],
        timeout_s: float | None = None,
    ) -> dict:
        request = ua.WriteRequest()
        request.Parameters.NodesToWrite = [
            ua.WriteValue(
                NodeId=node,
                AttributeId=ua.AttributeIds.Value,
                Value=ua.DataValue(value),
            )
            for node, value in values
        ]
        service, response = await self.call(
            client, request, ua.WriteResponse, timeout_s
        )
        return {
            "service": service,
            "statuses": [s.name for s in response.Results] if response else [],
        }

    # --- Attribute Read --------------------------------------------------------------------------

    async def read_unknown_node(self, client: Client) -> dict:
        return _plain(
            await self.read(client, [(self.node(MISSING), ua.AttributeIds.Value)])
        )

    async def read_invalid_attribute(self, client: Client) -> dict:
        return _plain(await self.read(client, [(self.node("Real"), 999)]))

    async def read_nothing_to_do(self, client: Client) -> dict:
        return _plain(await self.read(client, []))

    async def read_negative_max_age(self, client: Client) -> dict:
        return _plain(
            await self.read(
                client, [(self.node("Real"), ua.AttributeIds.Value)], max_age=-1.0
            )
        )

    async def read_invalid_timestamps(self, client: Client) -> dict:
        # an enumeration value past Neither (3); asyncua packs the int as it is
        return _plain(
            await self.read(
                client, [(self.node("Real"), ua.AttributeIds.Value)], timestamps=7
            )
        )

    async def read_index_range(self, client: Client) -> dict:
        found = await self.read(
            client, [(self.node("Page"), ua.AttributeIds.Value)], index_range="2:5"
        )
        return {**_plain(found), "value": _value(found)}

    async def read_index_range_invalid(self, client: Client) -> dict:
        return _plain(
            await self.read(
                client, [(self.node("Page"), ua.AttributeIds.Value)], index_range="5:2"
            )
        )

    async def read_index_range_no_data(self, client: Client) -> dict:
        return _plain(
            await self.read(
                client,
                [(self.node("Page"), ua.AttributeIds.Value)],
                index_range="600:610",
            )
        )

    async def read_variable_attributes(self, client: Client) -> dict:
        attributes = {
            "DataType": ua.AttributeIds.DataType,
            "ValueRank": ua.AttributeIds.ValueRank,
            "ArrayDimensions": ua.AttributeIds.ArrayDimensions,
            "AccessLevel": ua.AttributeIds.AccessLevel,
            "Value": ua.AttributeIds.Value,
        }
        variables = ["Signal_0", "Tick", "Real", "Page", "Array_10", "SDD", "Write_0"]
        found = await self.read(
            client, [(self.node(v), a) for v in variables for a in attributes.values()]
        )
        observed: dict[str, Any] = {"service": found["service"], "variables": {}}
        results = iter(found["values"])
        for variable in variables:
            one = {}
            for name in attributes:
                result = next(results, None)
                one[name] = _attribute(name, result)
            observed["variables"][variable] = one
        return observed

    # --- Attribute Write -------------------------------------------------------------------------

    async def write_type_mismatch(self, client: Client) -> dict:
        # Write_2: no other check reads it (a server that takes the Int32 keeps it; the attribute
        # check reads Write_0, the read-back check writes Write_1, all at once)
        found = await self.write(
            client, [(self.node("Write_2"), ua.Variant(7, ua.VariantType.Int32))]
        )
        after = await self.read(client, [(self.node("Write_2"), ua.AttributeIds.Value)])
        return {**_plain(found), "after": _value(after)}

    async def write_read_only(self, client: Client) -> dict:
        return _plain(
            await self.write(
                client, [(self.node("Real"), ua.Variant(1.0, ua.VariantType.Float))]
            )
        )

    async def write_unknown_node(self, client: Client) -> dict:
        return _plain(
            await self.write(
                client, [(self.node(MISSING), ua.Variant(1.0, ua.VariantType.Double))]
            )
        )

    async def write_read_back(self, client: Client) -> dict:
        # a binary fraction: exact in a Double, so anything but equality is a changed value
        written = 1234.0625
        found = await self.write(
            client, [(self.node("Write_1"), ua.Variant(written, ua.VariantType.Double))]
        )
        after = await self.read(client, [(self.node("Write_1"), ua.AttributeIds.Value)])
        return {**_plain(found), "written": written, "after": _value(after)}

    # --- View -----------------------------------------------------------------------------------

    async def browse(
        self,
        client: Client,
        nodes: list[ua.NodeId],
        max_references: int = 0,
        timeout_s: float | None = None,
    ) -> tuple[str, Any]:
        request = ua.BrowseRequest()
        request.Parameters.RequestedMaxReferencesPerNode = max_references
        request.Parameters.NodesToBrowse = [
            ua.BrowseDescription(
                NodeId=node,
                BrowseDirection=ua.BrowseDirection.Forward,
                ReferenceTypeId=ua.NodeId(ua.ObjectIds.HierarchicalReferences),
                IncludeSubtypes=True,
                NodeClassMask=0,
                ResultMask=ua.BrowseResultMask.All,
            )
            for node in nodes
        ]
        return await self.call(client, request, ua.BrowseResponse, timeout_s)

    async def browse_object(self, client: Client) -> dict:
        service, response = await self.browse(client, [self.node("uabench")])
        result = response.Results[0] if response and response.Results else None
        return {
            "service": service,
            "status": result.StatusCode.name if result else None,
            "names": [r.BrowseName.Name for r in result.References] if result else [],
            "continuation": bool(result and result.ContinuationPoint),
            "expected": self.expected_names(),
        }

    async def browse_next(self, client: Client) -> dict:
        limit = 5
        service, response = await self.browse(client, [self.node("uabench")], limit)
        result = response.Results[0] if response and response.Results else None
        pages = [[r.BrowseName.Name for r in result.References]] if result else []
        observed: dict[str, Any] = {
            "service": service,
            "limit": limit,
            "expected": self.expected_names(),
        }
        point = result.ContinuationPoint if result else None
        statuses = [result.StatusCode.name] if result else []
        while (
            point and len(pages) < 200
        ):  # bounded: 200 pages of 5 hold every variable asked for
            request = ua.BrowseNextRequest()
            request.Parameters.ReleaseContinuationPoints = False
            request.Parameters.ContinuationPoints = [point]
            next_service, next_response = await self.call(
                client, request, ua.BrowseNextResponse
            )
            if (
                next_service != "Good"
                or not next_response
                or not next_response.Parameters.Results
            ):
                observed["next_service"] = next_service
                break
            one = next_response.Parameters.Results[0]
            statuses.append(one.StatusCode.name)
            pages.append([r.BrowseName.Name for r in one.References])
            point = one.ContinuationPoint
        observed.update(pages=pages, statuses=statuses, ended=not point)
        return observed

    async def translate(self, client: Client, names: list[str]) -> dict:
        elements = [
            ua.RelativePathElement(
                ReferenceTypeId=ua.NodeId(ua.ObjectIds.HierarchicalReferences),
                IsInverse=False,
                IncludeSubtypes=True,
                TargetName=ua.QualifiedName(name, self.ns),
            )
            for name in names
        ]
        request = ua.TranslateBrowsePathsToNodeIdsRequest()
        request.Parameters.BrowsePaths = [
            ua.BrowsePath(
                StartingNode=ua.NodeId(ua.ObjectIds.ObjectsFolder),
                RelativePath=ua.RelativePath(elements),
            )
        ]
        service, response = await self.call(
            client, request, ua.TranslateBrowsePathsToNodeIdsResponse
        )
        result = response.Results[0] if response and response.Results else None
        return {
            "service": service,
            "status": result.StatusCode.name if result else None,
            "targets": [_node_text(t.TargetId, self.ns) for t in result.Targets]
            if result
            else [],
        }

    async def translate_path(self, client: Client) -> dict:
        return await self.translate(client, ["uabench", "Tick"])

    async def translate_no_match(self, client: Client) -> dict:
        return await self.translate(client, ["uabench", MISSING])

    def expected_names(self) -> list[str]:
        fixed = ["Tick", "Real", "Page", "SDD", "Image", "Array_10", "Array_10000"]
        return (
            [f"Signal_{i}" for i in range(self.signals)]
            + fixed
            + [f"Write_{j}" for j in range(self.writes)]
        )

    # --- Subscription ---------------------------------------------------------------------------

    async def create_subscription(
        self,
        client: Client,
        interval_ms: float = 100.0,
        keep_alive: int = 10,
        lifetime: int = 30,
    ) -> tuple[str, Any]:
        request = ua.CreateSubscriptionRequest()
        request.Parameters.RequestedPublishingInterval = interval_ms
        request.Parameters.RequestedLifetimeCount = lifetime
        request.Parameters.RequestedMaxKeepAliveCount = keep_alive
        request.Parameters.MaxNotificationsPerPublish = 0
        request.Parameters.PublishingEnabled = True
        request.Parameters.Priority = 0
        service, response = await self.call(
            client, request, ua.CreateSubscriptionResponse
        )
        return service, response.Parameters if response else None

    async def monitor(
        self, client: Client, subscription: int, nodes: list[ua.NodeId], start: int = 1
    ) -> dict:
        request = ua.CreateMonitoredItemsRequest()
        request.Parameters.SubscriptionId = subscription
        request.Parameters.TimestampsToReturn = ua.TimestampsToReturn.Both
        request.Parameters.ItemsToCreate = [
            ua.MonitoredItemCreateRequest(
                ItemToMonitor=ua.ReadValueId(
                    NodeId=node, AttributeId=ua.AttributeIds.Value
                ),
                MonitoringMode=ua.MonitoringMode.Reporting,
                RequestedParameters=ua.MonitoringParameters(
                    ClientHandle=start + k,
                    SamplingInterval=50.0,
                    QueueSize=5,
                    DiscardOldest=True,
                ),
            )
            for k, node in enumerate(nodes)
        ]
        service, response = await self.call(
            client, request, ua.CreateMonitoredItemsResponse
        )
        results = response.Results if response else []
        return {
            "service": service,
            "statuses": [r.StatusCode.name for r in results],
            "sampling_ms": [r.RevisedSamplingInterval for r in results],
            "queue_sizes": [r.RevisedQueueSize for r in results],
        }

    async def subscription_revised(self, client: Client) -> dict:
        service, created = await self.create_subscription(client, 100.0, 10, 30)
        observed: dict[str, Any] = {"service": service}
        if created:
            observed.update(
                interval_ms=created.RevisedPublishingInterval,
                lifetime=created.RevisedLifetimeCount,
                keep_alive=created.RevisedMaxKeepAliveCount,
                items=await self.monitor(
                    client,
                    created.SubscriptionId,
                    [self.node("Tick"), self.node("Signal_0")],
                ),
            )
        return observed

    async def monitored_item_unknown_node(self, client: Client) -> dict:
        service, created = await self.create_subscription(client)
        if not created:
            return {"service": service, "subscription": "not created"}
        return await self.monitor(client, created.SubscriptionId, [self.node(MISSING)])

    async def publish(
        self, client: Client, acknowledge: list[tuple[int, int]] | None = None
    ) -> tuple[str, Any]:
        request = ua.PublishRequest()
        request.Parameters.SubscriptionAcknowledgements = [
            ua.SubscriptionAcknowledgement(SubscriptionId=s, SequenceNumber=n)
            for s, n in acknowledge or []
        ]
        return await self.call(client, request, ua.PublishResponse)

    async def keep_alive(self, client: Client) -> dict:
        """A subscription with nothing to report: the gaps between its keep-alive messages
        (after the first, which a server sends at the end of the first publishing cycle)."""
        service, created = await self.create_subscription(client, 100.0, 5, 30)
        if not created:
            return {"service": service, "subscription": "not created"}
        arrivals: list[float] = []
        kinds: list[str] = []
        # three Publish requests queued: the server always has one to answer with
        pending = [asyncio.ensure_future(self.publish(client)) for _ in range(3)]
        bound = (
            time.monotonic()
            + 4
            * created.RevisedMaxKeepAliveCount
            * created.RevisedPublishingInterval
            / 1000
            + 5
        )
        while len(arrivals) < 4 and time.monotonic() < bound:
            done, _ = await asyncio.wait(
                pending,
                timeout=max(0.0, bound - time.monotonic()),
                return_when="FIRST_COMPLETED",
            )
            if not done:
                break
            for one in done:
                pending.remove(one)
                one_service, response = one.result()
                arrivals.append(time.monotonic())
                message = response.Parameters.NotificationMessage if response else None
                kinds.append(
                    one_service
                    if not message
                    else "keep-alive"
                    if not message.NotificationData
                    else "notification"
                )
                pending.append(asyncio.ensure_future(self.publish(client)))
        for one in pending:
            one.cancel()
        return {
            "service": service,
            "interval_ms": created.RevisedPublishingInterval,
            "keep_alive": created.RevisedMaxKeepAliveCount,
            "kinds": kinds,
            "gaps_ms": [
                (b - a) * 1000 for a, b in zip(arrivals[1:], arrivals[2:], strict=False)
            ],
        }

    async def republish_unknown(self, client: Client) -> dict:
        service, created = await self.create_subscription(client)
        if not created:
            return {"service": service, "subscription": "not created"}
        request = ua.RepublishRequest()
        request.Parameters.SubscriptionId = created.SubscriptionId
        request.Parameters.RetransmitSequenceNumber = 987654
        found, _ = await self.call(client, request, ua.RepublishResponse)
        return {"service": found}

    async def set_publishing_mode(self, client: Client) -> dict:
        _, created = await self.create_subscription(client)
        if not created:
            return {"subscription": "not created"}
        request = ua.SetPublishingModeRequest()
        request.Parameters.PublishingEnabled = False
        request.Parameters.SubscriptionIds = [
            created.SubscriptionId,
            created.SubscriptionId + 1000003,
        ]
        service, response = await self.call(
            client, request, ua.SetPublishingModeResponse
        )
        return {
            "service": service,
            "statuses": [s.name for s in response.Parameters.Results]
            if response
            else [],
        }

    async def modify_subscription(self, client: Client) -> dict:
        _, created = await self.create_subscription(client, 100.0, 10, 30)
        if not created:
            return {"subscription": "not created"}
        observed: dict[str, Any] = {}
        for which, subscription in (
            ("known", created.SubscriptionId),
            ("unknown", created.SubscriptionId + 1000003),
        ):
            request = ua.ModifySubscriptionRequest()
            request.Parameters.SubscriptionId = subscription
            request.Parameters.RequestedPublishingInterval = 250.0
            request.Parameters.RequestedLifetimeCount = 60
            request.Parameters.RequestedMaxKeepAliveCount = 20
            service, response = await self.call(
                client, request, ua.ModifySubscriptionResponse
            )
            observed[which] = {"service": service}
            if response and which == "known":
                observed[which].update(
                    interval_ms=response.Parameters.RevisedPublishingInterval,
                    lifetime=response.Parameters.RevisedLifetimeCount,
                    keep_alive=response.Parameters.RevisedMaxKeepAliveCount,
                )
        return observed

    async def delete_subscriptions(self, client: Client) -> dict:
        _, created = await self.create_subscription(client)
        if not created:
            return {"subscription": "not created"}
        observed = {}
        for which in ("first", "again"):
            request = ua.DeleteSubscriptionsRequest()
            request.Parameters.SubscriptionIds = [created.SubscriptionId]
            service, response = await self.call(
                client, request, ua.DeleteSubscriptionsResponse
            )
            observed[which] = {
                "service": service,
                "statuses": [s.name for s in response.Results] if response else [],
            }
        return observed

    # --- Session and SecureChannel --------------------------------------------------------------

    async def session_timeout(self, _: Client) -> dict:
        """A session of its own, asked for a 2 s timeout, left idle past what the server revised
        it to (if the probe's bound allows the wait), then asked to read."""
        client = await self.open(session_timeout_ms=2000)
        try:
            revised = float(client.created.RevisedSessionTimeout)
            observed: dict[str, Any] = {
                "revised_ms": revised,
                "bound_s": self.session_wait_s,
            }
            if revised / 1000 * 1.5 + 1 > self.session_wait_s:
                return observed
            waited = revised / 1000 * 1.5 + 1
            await asyncio.sleep(waited)
            found = await self.read(client, [(SERVER_STATE, ua.AttributeIds.Value)])
            return {**observed, "waited_s": waited, **_plain(found)}
        finally:
            client.disconnect_socket()

    async def session_nonces(self, client: Client) -> dict:
        """The serverNonce lengths of the CreateSession and ActivateSession answers that opened
        this check's session (None: the field was null)."""

        def length(nonce: bytes | None) -> int | None:
            return None if nonce is None else len(nonce)

        return {
            "create": length(client.created.ServerNonce),
            "activate": length(client.activated.ServerNonce),
        }

    async def closed_session(self, _: Client) -> dict:
        client = await self.open()
        try:
            closed, _ = await self.call(
                client, ua.CloseSessionRequest(), ua.CloseSessionResponse
            )
            found = await self.read(client, [(SERVER_STATE, ua.AttributeIds.Value)])
            return {"close": closed, **_plain(found)}
        finally:
            client.disconnect_socket()

    async def channel_renewal(self, _: Client) -> dict:
        """A channel asked for a 2 s token: renewed at half its revised lifetime, then read
        after the first token's lifetime has passed (if the probe's bound allows the wait)."""
        client = await self.open(channel_lifetime_ms=2000)
        try:
            protocol = client.uaclient.protocol
            first = protocol._connection.security_token
            lifetime = float(first.RevisedLifetime)
            opened = time.monotonic()
            observed: dict[str, Any] = {
                "revised_ms": lifetime,
                "bound_s": self.session_wait_s,
                "token": first.TokenId,
            }
            waits = lifetime / 1000 * 1.25 + 0.5 <= self.session_wait_s
            if waits:
                await asyncio.sleep(lifetime / 2000)
            try:
                await client.open_secure_channel(renew=True)
            except ua.UaStatusCodeError as refused:
                return {**observed, "renew": ua.StatusCode(refused.code).name}
            # asyncua keeps the renewed token as the next one until the server uses it
            observed.update(
                renew="Good",
                renewed_token=protocol._connection.next_security_token.TokenId,
            )
            observed["read_after_renewal"] = _plain(
                await self.read(client, [(SERVER_STATE, ua.AttributeIds.Value)])
            )
            if waits:
                await asyncio.sleep(
                    max(0.0, opened + lifetime / 1000 * 1.25 - time.monotonic())
                )
                observed["waited_s"] = time.monotonic() - opened
                found = await self.read(client, [(SERVER_STATE, ua.AttributeIds.Value)])
                observed["read_after_expiry"] = _plain(found)
            return observed
        finally:
            await self.close(client)

    async def get_endpoints(self, client: Client) -> dict:
        request = ua.GetEndpointsRequest()
        request.Parameters.EndpointUrl = self.endpoint
        service, response = await self.call(client, request, ua.GetEndpointsResponse)
        found = [
            {
                "url": e.EndpointUrl,
                "policy": (e.SecurityPolicyUri or "").removeprefix(
                    SECURITY_POLICY_PREFIX
                ),
                "mode": e.SecurityMode.name.rstrip("_"),  # asyncua names None "None_"
            }
            for e in (response.Endpoints if response else [])
        ]
        return {
            "service": service,
            "endpoints": found,
            "configured": self.endpoints,
            "url": self.endpoint,
        }

    # --- Operation limits -----------------------------------------------------------------------

    async def limit(self, client: Client, name: str) -> int | None:
        # the long bound here too: the three limit checks run at once, and an interpreted server
        # answers this read only after another check's request of thousands of operations
        found = await self.read(
            client, [(ua.NodeId(LIMITS[name]), ua.AttributeIds.Value)], LIMIT_TIMEOUT_S
        )
        if found["statuses"] != ["Good"]:
            return None
        value = found["values"][0].Value.Value
        return int(value) if isinstance(value, int) else None

    async def enforced(
        self, client: Client, name: str, send: Callable[[int], Awaitable[dict]]
    ) -> dict:
        declared = await self.limit(client, name)
        observed: dict[str, Any] = {
            "declared": declared,
            "probed_up_to": LIMIT_PROBED_UP_TO,
        }
        if not declared or declared > LIMIT_PROBED_UP_TO:
            return observed
        at = await send(declared)
        above = await send(declared + 1)
        return {
            **observed,
            "at_limit": {
                "service": at["service"],
                "bad": [s for s in at["statuses"] if s != "Good"][:3],
            },
            "above_limit": {
                "service": above["service"],
                "count": len(above["statuses"]),
            },
        }

    async def max_nodes_per_read(self, client: Client) -> dict:
        return await self.enforced(
            client,
            "MaxNodesPerRead",
            lambda n: self.read(
                client,
                [
                    (self.node(f"Signal_{k % self.signals}"), ua.AttributeIds.Value)
                    for k in range(n)
                ],
                LIMIT_TIMEOUT_S,
            ),
        )

    async def max_nodes_per_write(self, client: Client) -> dict:
        return await self.enforced(
            client,
            "MaxNodesPerWrite",
            lambda n: self.write(
                client,
                [
                    (
                        self.node(f"Write_{k % self.writes}"),
                        ua.Variant(float(k), ua.VariantType.Double),
                    )
                    for k in range(n)
                ],
                LIMIT_TIMEOUT_S,
            ),
        )

    async def max_nodes_per_browse(self, client: Client) -> dict:
        async def send(n: int) -> dict:
            service, response = await self.browse(
                client, [self.node("uabench")] * n, 1, LIMIT_TIMEOUT_S
            )
            return {
                "service": service,
                "statuses": [r.StatusCode.name for r in response.Results]
                if response
                else [],
            }

        return await self.enforced(client, "MaxNodesPerBrowse", send)

    # --- Profile capacity gates (Part 7) --------------------------------------------------------

    async def gate_sessions(self, _: Client) -> dict:
        """Sessions, each on its own channel, opened one after another until the server
        refuses one or the probe's cap is reached; all closed at the end."""
        cap = int(self.gates.get("sessions", 0))
        opened: list[Client] = []
        refused = None
        try:
            while len(opened) < cap:
                try:
                    opened.append(await self.open())
                except (
                    ua.UaError,
                    NoAnswer,
                    TimeoutError,
                    ConnectionError,
                    OSError,
                ) as error:
                    refused = _refusal(error)
                    break
            working = (
                _plain(
                    await self.read(opened[-1], [(SERVER_STATE, ua.AttributeIds.Value)])
                )
                if opened
                else None
            )
        finally:
            await asyncio.gather(
                *(self.close(c) for c in opened), return_exceptions=True
            )
        return {
            "reached": len(opened),
            "cap": cap,
            "refused": refused,
            "last_read": working,
        }

    async def gate_subscriptions(self, client: Client) -> dict:
        cap = int(self.gates.get("subscriptions", 0))
        reached, refused = 0, None
        while reached < cap:
            service, created = await self.create_subscription(client, 1000.0, 10, 30)
            if not created or service != "Good":
                refused = service
                break
            reached += 1
        return {"reached": reached, "cap": cap, "refused": refused}

    async def gate_monitored_items(self, client: Client) -> dict:
        cap = int(self.gates.get("monitored_items", 0))
        service, created = await self.create_subscription(client, 1000.0, 10, 30)
        if not created:
            return {
                "reached": 0,
                "cap": cap,
                "refused": f"CreateSubscription: {service}",
            }
        reached, refused, batch = 0, None, 100
        while reached < cap:
            size = min(batch, cap - reached)
            nodes = [
                self.node(f"Signal_{(reached + k) % self.signals}") for k in range(size)
            ]
            found = await self.monitor(
                client, created.SubscriptionId, nodes, start=reached + 1
            )
            good = sum(1 for s in found["statuses"] if s == "Good")
            reached += good
            if found["service"] != "Good" or good < size:
                bad = [s for s in found["statuses"] if s != "Good"]
                refused = (
                    found["service"]
                    if found["service"] != "Good"
                    else bad[0]
                    if bad
                    else "fewer results"
                )
                break
        return {"reached": reached, "cap": cap, "refused": refused}


def read_request(
    nodes: list[tuple[ua.NodeId, int]],
    max_age: float = 0.0,
    timestamps: int = 2,
    index_range: str | None = None,
) -> ua.ReadRequest:
    request = ua.ReadRequest()
    request.Parameters.MaxAge = max_age
    request.Parameters.TimestampsToReturn = timestamps
    request.Parameters.NodesToRead = [
        ua.ReadValueId(NodeId=node, AttributeId=attribute, IndexRange=index_range)
        for node, attribute in nodes
    ]
    return request


def _plain(found: dict) -> dict:
    """An observation without the decoded DataValues (not JSON)."""
    return {k: v for k, v in found.items() if k != "values"}


def _value(found: dict) -> Any:
    """The first result's value as JSON: its variant type's name and the value."""
    if not found["values"]:
        return None
    value = found["values"][0].Value
    if value is None:
        return None
    return {"type": value.VariantType.name, "value": _json(value.Value)}


def _attribute(name: str, result: Any) -> Any:
    if result is None:
        return {"status": "missing"}
    status = result.StatusCode.name
    if status != "Good":
        return {"status": status}
    value = result.Value.Value if result.Value else None
    if name == "DataType":
        return {
            "status": status,
            "value": value.to_string() if isinstance(value, ua.NodeId) else repr(value),
        }
    if name == "Value":
        return {
            "status": status,
            "type": result.Value.VariantType.name,
            "array": isinstance(value, list),
            "length": len(value) if isinstance(value, list | bytes) else None,
        }
    return {"status": status, "value": _json(value)}


def _json(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, int | float | str | bool) or value is None:
        return value
    return repr(value)


def _node_text(node: ua.NodeId, ns: int) -> str:
    return f"s={node.Identifier}" if node.NamespaceIndex == ns else node.to_string()


def _refusal(error: BaseException) -> str:
    if isinstance(error, ua.UaStatusCodeError):
        return ua.StatusCode(error.code).name
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}".rstrip(
        ": "
    )


async def run_check(probe: Probe, check: str) -> dict:
    method: Callable[[Client], Awaitable[dict]] = getattr(probe, check)
    try:
        async with probe.session() as client:
            return {"check": check, "observed": await method(client)}
    except NoAnswer as error:
        return {"check": check, "observed": {"no_answer": str(error)}}
    except ua.UaStatusCodeError as error:  # the session this check needed was refused
        return {
            "check": check,
            "observed": {"session_refused": ua.StatusCode(error.code).name},
        }
    except (
        Exception
    ) as error:  # the probe's own failure: reported as such, never as the server's
        return {
            "check": check,
            "error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
        }


async def main(arguments: dict) -> None:
    logging.getLogger("asyncua").setLevel(
        logging.CRITICAL + 1
    )  # the refusals it logs are the point
    probe = Probe(arguments)
    checks = arguments["checks"]
    # The waiting checks (a session timeout, a token lifetime, keep-alives) run beside the others,
    # each on its own session; the capacity gates run one after another (they load the server).
    gates = [check for check in checks if check.startswith("gate_")]
    for check in gates:
        print(json.dumps(await run_check(probe, check)), flush=True)
    others = [check for check in checks if check not in gates]
    if others:
        async with (
            probe.session()
        ):  # the namespace index, once, before the checks run at once
            pass
    for found in await asyncio.gather(*(run_check(probe, check) for check in others)):
        print(json.dumps(found), flush=True)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
