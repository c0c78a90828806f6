"""SPEC §3 Connection loss for python-opcua, which neither reconnects nor reports a lost
connection to its user: when its socket closes, the session's receive thread
(UASocketClient._run) ends and cancels every request still waiting for a response, and
nothing more. So a session is `lost` when that thread ends or, before (a connection that
goes silent without closing), when one of the adapter's requests fails with a connection
status, a closed connection or the request timeout; it is `restored` by the first
request of the session sent after that which succeeds (only a silent connection that comes
back can give one: a closed one stays closed; responses the server sent before it closed
may still be read after the loss, and restore nothing).
"""

from __future__ import annotations

import threading
import time

from uabench_contract import CONNECTION_STATUSES, Connection

from .session import Session

CLOSED = "connection closed"  # a request the SDK cancelled: its receive thread ended


def connection_error(error: str | None) -> bool:
    """Whether a failed request's error says the connection is lost (SPEC §3)."""
    return error == CLOSED or error in CONNECTION_STATUSES


class ConnectionWatch:
    """The run's `connection` record, written from the sessions' receive threads, the
    pipelines' threads and the watchers (its own lock keeps the events in time order)."""

    def __init__(self, sessions: list[Session]) -> None:
        self.connection = Connection(len(sessions))
        self._lock = threading.Lock()
        self._stopped = False
        self._lost_at = [0] * len(sessions)  # perf ns of each session's last loss
        for session in sessions:
            threading.Thread(
                target=self._receiving,
                args=(session,),
                name=f"watch-{session.index}",
                daemon=True,
            ).start()

    def _receiving(self, session: Session) -> None:
        session.channel._thread.join()  # the SDK's receive thread: ends with the socket
        self.lost(session.index)

    def lost(self, session: int) -> None:
        with self._lock:
            if not self._stopped and not self.connection.is_down(session):
                self._lost_at[session] = time.perf_counter_ns()
                self.connection.mark_lost(session, time.time_ns())

    def succeeded(self, session: int, sent_ns: int) -> None:
        """A request of the session sent at `sent_ns` (perf ns) succeeded."""
        if self.connection.is_down(session) and sent_ns > self._lost_at[session]:
            with self._lock:
                if not self._stopped:
                    self.connection.mark_restored(session, time.time_ns())

    def stop(self) -> None:
        """The run is over: the adapter's own disconnect is no loss."""
        with self._lock:
            self._stopped = True
