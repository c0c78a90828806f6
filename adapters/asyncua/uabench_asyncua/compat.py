"""What the loaded asyncua offers, found by feature, never by version string: one adapter
runs on every version sdk.toml declares (adapters/SPEC.md §1, versions side by side:
UABENCH_SDK_VERSION picks the venv, so the pinned 2.1.0 or 1.1.8). Where asyncua 1.1.8
lacks something this module says so and gives the rest of the adapter one way to use both;
on 2.1.0 every name here is asyncua's own, unwrapped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib.util
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from asyncua import Client, ua
from asyncua.common import subscription as _subscription

T = TypeVar("T")

# asyncua 2.1 reports every Client state change (UaClientState) and each subscription it
# re-creates to an Observer (asyncua.observer); 2.0 has the states but no observer, 1.1.8
# neither: there the requests tell a lost connection (SPEC §3 Connection loss, "where it
# has none"), and 1.1.8's Client.connection_lost_callback, which its watchdog calls.
try:
    from asyncua.client.ua_client import UaClientState
    from asyncua.observer import Observer, SubscriptionEvent

    OBSERVER = True
except ImportError:
    UaClientState = SubscriptionEvent = None
    Observer = object
    OBSERVER = False

# asyncua 2.0 added the Client's automatic reconnection (auto_reconnect and its supervisor);
# 1.1.8 has none: a lost connection stays lost (sdk.toml [not_supported] reconnect).
AUTO_RECONNECT = "auto_reconnect" in inspect.signature(Client.__init__).parameters

# asyncua.pubsub (UADP over UDP, the PubSub roles): 2.1.0 has it, 1.1.8 has no PubSub at all.
PUBSUB = importlib.util.find_spec("asyncua.pubsub") is not None


def client_options(reconnect: bool) -> dict[str, Any]:
    """The Client's keyword arguments for SPEC §3 `reconnect`: the SDK's own reconnection
    where it has one; without it (1.1.8) the client goes on failing its requests."""
    return {"auto_reconnect": reconnect} if AUTO_RECONNECT else {}


def limit_requests(client: Client, limit: int) -> None:
    """asyncua 2.x caps the requests a Client sends at once (100 by default); 1.1.8 sends
    every request at once, with no cap to raise."""
    if hasattr(client, "set_max_concurrent_requests"):
        client.set_max_concurrent_requests(limit)


# asyncua 1.1.8's generated structs name a field that clashes with a type name with a
# trailing underscore (AddNodesItem.NodeClass_, ReadValueId.NodeId_, DataValue.StatusCode_)
# and reach it by a property of the plain name, which the constructor does not take; 2.x
# names them plainly. `struct(ua.X)` is a constructor that takes the plain names on both:
# ua.X itself where the names are plain.
def struct(cls: Callable[..., T]) -> Callable[..., T]:
    renamed = {
        f.name[:-1]: f.name
        for f in dataclasses.fields(cls)
        if f.name.endswith("_")
        and isinstance(getattr(cls, f.name[:-1], None), property)
    }
    if not renamed:
        return cls

    @functools.wraps(cls)
    def build(*args: Any, **fields: Any) -> T:
        return cls(
            *args, **{renamed.get(name, name): value for name, value in fields.items()}
        )

    return build


# Subscription notifications. asyncua 2.x has an iterator mode (a subscription created
# without a handler is an async iterator of DataChangeEvent and StatusChangeEvent, on an
# unbounded queue with queue_maxsize 0); 1.1.8 only calls a handler's methods from its
# publish loop. There `Queued` is that handler, putting the same events on an unbounded
# queue, so the adapter consumes both the same way.
if hasattr(_subscription, "DataChangeEvent"):
    DataChangeEvent = _subscription.DataChangeEvent
    StatusChangeEvent = _subscription.StatusChangeEvent
    ITERATOR = True
else:

    @dataclasses.dataclass(frozen=True)
    class DataChangeEvent:
        node: Any
        value: Any
        data: Any

    @dataclasses.dataclass(frozen=True)
    class StatusChangeEvent:
        notification: Any

    ITERATOR = False


class Queued:
    """asyncua 1.1.8's subscription handler that makes its subscription an async iterator
    of events, as 2.x's iterator mode does (the handler runs in the publish loop: it only
    queues)."""

    def __init__(self) -> None:
        self._events: asyncio.Queue = asyncio.Queue()  # unbounded: nothing dropped

    def datachange_notification(self, node: Any, value: Any, data: Any) -> None:
        self._events.put_nowait(DataChangeEvent(node, value, data))

    def status_change_notification(self, status: Any) -> None:
        self._events.put_nowait(StatusChangeEvent(status))

    def __aiter__(self) -> Queued:
        return self

    async def __anext__(self) -> Any:
        return await self._events.get()


async def create_subscription(
    client: Client, parameters: ua.CreateSubscriptionParameters
) -> tuple[Any, Any]:
    """(the subscription, the async iterator of its events)."""
    if ITERATOR:
        subscription = await client.create_subscription(parameters, queue_maxsize=0)
        return subscription, subscription
    events = Queued()
    return await client.create_subscription(parameters, events), events
