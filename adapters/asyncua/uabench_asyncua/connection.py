"""SPEC §3 Connection loss: each session's losses and restorations as asyncua tells them.

asyncua 2.x drives every Client through UaClient's states (UaClientState) and reports each
transition, and each subscription it creates, re-creates or deletes, to the Observer set on
`client.uaclient.observer`. Its supervisor task notices a lost connection (the socket closed,
or its 1 s keep-alive read of ServerState failing) and, with `auto_reconnect`, reconnects
(ActivateSession on the old session where the server still has it, else a new session) and
restores every subscription: TransferSubscriptions, or CreateSubscription with the same
monitored items where the transfer fails (the observer's RECREATED).

asyncua 1.1.8 (compat.OBSERVER false) has no states, no observer and no reconnection. Its
Client's watchdog reads ServerState every second; when that read fails (a silent path, or a
closed socket, which 1.1.8 notices only when the read times out: it fails no pending request
when its socket closes) it calls `connection_lost_callback`, and from then on the Client
fails every request with the watchdog's error. So there a session is `lost` at that callback
or, before it, when one of its Read or Write requests fails with a connection status, a closed
connection or a timeout; `restored` when a request sent after the loss is answered (in
subscribe: a data change arriving after the loss, from the same subscription: `transferred`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from asyncua import Client, ua

from uabench_contract import CONNECTION_STATUSES, Connection

from . import compat

T = TypeVar("T")

if compat.OBSERVER:
    # the states a connected client leaves for when its connection is gone: the socket
    # closed (DISCONNECTED) or the supervisor found it dead and reconnects (RECONNECTING)
    DOWN = (compat.UaClientState.DISCONNECTED, compat.UaClientState.RECONNECTING)
    CONNECTED = compat.UaClientState.CONNECTED


def connection_error(error: BaseException) -> bool:
    """Whether a failed request says the connection is lost (SPEC §3): a connection status,
    or asyncua's error for a closed connection or a timeout (1.1.8 wraps a request's timeout
    in a UaError, "Failed to send request")."""
    if isinstance(error, ua.UaStatusCodeError):
        return ua.StatusCode(error.code).name in CONNECTION_STATUSES
    if isinstance(error, (ConnectionError, TimeoutError)):
        return True
    return error.__cause__ is not None and connection_error(error.__cause__)


class ConnectionWatch(compat.Observer):
    """The Observer of one session's Client: `lost` when it leaves CONNECTED, `restored`
    when it is CONNECTED again. In subscribe the restored event waits until the SDK has
    said what became of the subscriptions (see `subscriptions`), and keeps the instant the
    session was back."""

    def __init__(self, session: int, connection: Connection, subscribe: bool) -> None:
        self.session = session
        self.connection = connection
        self.subscribe = subscribe
        self.closing = False  # the adapter's own disconnect at the end is no loss
        self._back_ns: int | None = (
            None  # subscribe: CONNECTED again, subscriptions not yet said
        )
        # no observer: when the last loss was told (perf ns), to judge the requests sent after
        self._lost_ns = 0

    def attach(self, client: Client) -> None:
        """From now on the Client tells this watch: its observer, or (1.1.8) its watchdog."""
        if compat.OBSERVER:
            client.uaclient.observer = self
        else:
            client.connection_lost_callback = self.connection_lost

    def observe_request(self, request: Any) -> contextlib.nullcontext[None]:
        return (
            contextlib.nullcontext()
        )  # no per-request timing (the Observer's default)

    def on_state_change(self, state: Any) -> None:
        if self.closing:
            return
        if state in DOWN:
            self.subscriptions("unknown")  # lost again before the SDK said
            self.connection.mark_lost(self.session, time.time_ns())
        elif state is CONNECTED and self.connection.is_down(self.session):
            if self.subscribe:
                self._back_ns = time.time_ns()
            else:
                self.connection.mark_restored(self.session, time.time_ns())

    def on_subscription_event(self, subscription_id: int | None, event: Any) -> None:
        if event is compat.SubscriptionEvent.RECREATED:
            self.subscriptions("recreated")

    def notified(self) -> None:
        """A data change arrived: one that comes before any re-creation comes from the
        subscriptions the restored session kept or took over (TransferSubscriptions)."""
        if self._back_ns is not None:
            self.subscriptions("transferred")
        elif not compat.OBSERVER and self.connection.is_down(self.session):
            if not self.closing:
                self.connection.mark_restored(
                    self.session, time.time_ns(), "transferred"
                )

    # Without an observer (asyncua 1.1.8), SPEC §3 "where it has none":

    async def connection_lost(self, error: Exception) -> None:
        """1.1.8's Client.connection_lost_callback: its watchdog found the connection dead."""
        self._lost()

    def watched(
        self, service: Callable[[Any], Awaitable[T]]
    ) -> Callable[[Any], Awaitable[T]]:
        """The service call, telling this watch a lost connection by its failure and a
        restored one by its answer."""

        async def call(parameters: Any) -> T:
            sent_ns = time.perf_counter_ns()
            try:
                result = await service(parameters)
            except Exception as error:
                if connection_error(error):
                    self._lost()
                raise
            # an answer to a request sent before the loss says nothing of the connection now
            if sent_ns > self._lost_ns and self.connection.is_down(self.session):
                if not self.closing:
                    self.connection.mark_restored(self.session, time.time_ns())
            return result

        return call

    def _lost(self) -> None:
        if not self.closing and not self.connection.is_down(self.session):
            self._lost_ns = time.perf_counter_ns()
            self.connection.mark_lost(self.session, time.time_ns())

    def subscriptions(self, fate: str) -> None:
        """The SDK has said what became of this session's subscriptions after it came back
        (or the run ends before it did: `unknown`)."""
        if self._back_ns is not None:
            self.connection.mark_restored(self.session, self._back_ns, fate)
            self._back_ns = None


def in_time_order(connection: Connection) -> None:
    """A restored event of subscribe is added when the SDK has said what became of the
    subscriptions, with the earlier instant the session was back: order the events by time
    (per session they stay in turn)."""
    connection.events.sort(key=lambda event: event["t_ns"])
