"""SPEC §3 Connection loss: each session's losses and restorations as asyncua tells them.

asyncua 2.x drives every Client through UaClient's states (UaClientState) and reports each
transition, and each subscription it creates, re-creates or deletes, to the Observer set on
`client.uaclient.observer`. Its supervisor task notices a lost connection (the socket closed,
or its 1 s keep-alive read of ServerState failing) and, with `auto_reconnect`, reconnects
(ActivateSession on the old session where the server still has it, else a new session) and
restores every subscription: TransferSubscriptions, or CreateSubscription with the same
monitored items where the transfer fails (the observer's RECREATED).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from asyncua.client.ua_client import UaClientState
from asyncua.observer import Observer, SubscriptionEvent

from uabench_contract import Connection

# the states a connected client leaves for when its connection is gone: the socket closed
# (DISCONNECTED) or the supervisor found it dead and reconnects (RECONNECTING)
DOWN = (UaClientState.DISCONNECTED, UaClientState.RECONNECTING)


class ConnectionWatch(Observer):
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

    def observe_request(self, request: Any) -> contextlib.nullcontext[None]:
        return (
            contextlib.nullcontext()
        )  # no per-request timing (the Observer's default)

    def on_state_change(self, state: UaClientState) -> None:
        if self.closing:
            return
        if state in DOWN:
            self.subscriptions("unknown")  # lost again before the SDK said
            self.connection.mark_lost(self.session, time.time_ns())
        elif state is UaClientState.CONNECTED and self.connection.is_down(self.session):
            if self.subscribe:
                self._back_ns = time.time_ns()
            else:
                self.connection.mark_restored(self.session, time.time_ns())

    def on_subscription_event(
        self, subscription_id: int | None, event: SubscriptionEvent
    ) -> None:
        if event is SubscriptionEvent.RECREATED:
            self.subscriptions("recreated")

    def notified(self) -> None:
        """A data change arrived: one that comes before any re-creation comes from the
        subscriptions the restored session kept or took over (TransferSubscriptions)."""
        if self._back_ns is not None:
            self.subscriptions("transferred")

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
