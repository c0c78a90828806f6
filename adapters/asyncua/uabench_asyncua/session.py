"""One client session: an asyncua Client (own SecureChannel + Session) and its node ids."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

from asyncua import Client, ua

import uabench_contract as contract
from uabench_contract import Connection

from . import compat, security
from .connection import ConnectionWatch

log = logging.getLogger("uabench_asyncua.client")

# SPEC §2: a session not set up within this (or request_timeout_ms, when longer) is the
# connect error; request_timeout_ms null keeps REQUEST_TIMEOUT_S as the Client's timeout.
CONNECT_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 10.0
DISCONNECT_TIMEOUT_S = 3.0
PARALLEL_CONNECTS = 16
SESSION_TIMEOUT_MS = (
    600_000  # asyncua asks for an hour, which servers clamp (with a warning)
)
# Room above in_flight for the client's own background requests (keep-alive reads, publish).
SPARE_REQUESTS = 16


def request_timeout_s(config: dict) -> float:
    """SPEC §3 request_timeout_ms as the Client's `timeout` (s): asyncua bounds each request
    with it (Publish excepted: sent with none) and each connect step (TCP connect, Hello,
    OpenSecureChannel, CreateSession, ActivateSession), in 2.1.0 and 1.1.8 alike. It does not
    reach 2.1.0's watchdog: its ServerState probe, every watchdog_intervall (1 s), fails after
    min(session timeout / 2, watchdog_intervall), whatever `timeout` is, and a failed probe
    is a lost connection (1.1.8's probe is a plain request, with `timeout`)."""
    ms = config["request_timeout_ms"]
    return REQUEST_TIMEOUT_S if ms is None else ms / 1000


class ConnectError(Exception):
    """The endpoint could not be reached or no session could be created."""


@dataclass
class Session:
    client: Client
    namespace: int
    setup_ns: int = (
        0  # SPEC §6: connect .. ActivateSession, without the namespace lookup
    )
    _nodeids: dict[str, ua.NodeId] = field(default_factory=dict)
    watch: ConnectionWatch | None = None

    def __post_init__(self) -> None:
        # The Read and Write services the workloads call: the SDK's own (watched once the
        # connection is, where the SDK has no observer to tell a loss)
        self.read = self.client.uaclient.read
        self.write = self.client.uaclient.write

    def watch_connection(
        self, index: int, connection: Connection, subscribe: bool
    ) -> None:
        """SPEC §3 Connection loss: from now on the session's losses are recorded."""
        self.watch = ConnectionWatch(index, connection, subscribe)
        self.watch.attach(self.client)
        # asyncua 1.1.8 has no observer: its requests tell a loss too (connection.py)
        if not compat.OBSERVER:
            self.read = self.watch.watched(self.client.uaclient.read)
            self.write = self.watch.watched(self.client.uaclient.write)

    def nodeid(self, name: str) -> ua.NodeId:
        nodeid = self._nodeids.get(name)
        if nodeid is None:
            nodeid = self._nodeids[name] = ua.NodeId(name, self.namespace)
        return nodeid

    async def close(self) -> None:
        if self.watch is not None:
            self.watch.closing = True
        with contextlib.suppress(Exception, asyncio.TimeoutError):
            await asyncio.wait_for(self.client.disconnect(), DISCONNECT_TIMEOUT_S)


async def open_session(config: dict, in_flight: int) -> Session:
    # Message sizes (SPEC §3): asyncua's client announces no limit (max_messagesize and
    # max_chunkcount 0) and takes the server's, so nothing to raise here.
    # SPEC §3 reconnect: asyncua's own supervisor reconnects and restores the subscriptions,
    # with its defaults (first retry after 1 s, doubling up to 30 s; a request waits up to
    # 60 s for the reconnection before it fails); 1.1.8 has none (compat.AUTO_RECONNECT)
    timeout_s = request_timeout_s(config)
    client = Client(
        config["endpoint"],
        timeout=timeout_s,
        **compat.client_options(config["reconnect"]),
    )
    compat.limit_requests(client, in_flight + SPARE_REQUESTS)
    client.session_timeout = SESSION_TIMEOUT_MS
    # the whole set-up, never shorter than one of its steps may take
    setup_s = max(CONNECT_TIMEOUT_S, timeout_s)
    deadline = asyncio.get_running_loop().time() + setup_s
    try:
        namespace, setup_ns = await asyncio.wait_for(
            _connect(client, config["security"]), setup_s
        )
    except asyncio.TimeoutError:
        client.disconnect_socket()
        # the whole set-up's bound, or (request_timeout_ms below it) one step's timeout
        waited = setup_s if asyncio.get_running_loop().time() >= deadline else timeout_s
        raise ConnectError(
            f"no session with {config['endpoint']} within {waited:g} s"
        ) from None
    except ValueError as error:  # NamespaceArray lacks the uabench URI
        await Session(client, 0).close()
        raise ConnectError(f"{config['endpoint']}: {error}") from error
    except Exception as error:
        client.disconnect_socket()
        raise ConnectError(
            f"cannot connect to {config['endpoint']}: {_reason(error)}"
        ) from error
    return Session(client, namespace, setup_ns)


async def _connect(client: Client, settings: dict) -> tuple[int, int]:
    """Connects; returns the namespace index of the uabench model on this server and the
    session set-up time in ns: from the GetEndpoints that set_security does for a secure
    policy (or the OpenSecureChannel) until ActivateSession has completed."""
    started = time.perf_counter_ns()
    await security.configure_client(client, settings)
    await client.connect()
    setup_ns = max(1, time.perf_counter_ns() - started)
    return await client.get_namespace_index(contract.NAMESPACE_URI), setup_ns


async def open_sessions(config: dict, in_flight: int) -> list[Session]:
    """All sessions or none: on any failure the opened ones are closed and ConnectError raised."""
    gate = asyncio.Semaphore(PARALLEL_CONNECTS)

    async def one() -> Session:
        async with gate:
            return await open_session(config, in_flight)

    results = await asyncio.gather(
        *(one() for _ in range(config["sessions"])), return_exceptions=True
    )
    opened = [r for r in results if isinstance(r, Session)]
    failures = [r for r in results if not isinstance(r, Session)]
    if failures:
        await close_sessions(opened)
        error = failures[0]
        raise error if isinstance(error, ConnectError) else ConnectError(_reason(error))
    return opened


async def close_sessions(sessions: list[Session]) -> None:
    await asyncio.gather(*(s.close() for s in sessions))


def _reason(error: BaseException) -> str:
    if isinstance(error, ua.UaStatusCodeError):
        return ua.StatusCode(error.code).name
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
