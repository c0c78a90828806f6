"""What a client asks of a server when it subscribes (SPEC §3 subscribe, contract v8): its
CreateSession and CreateSubscription requests, recorded on the wire by the recording proxy
(robustness/recorder.py) in front of a running server, and decoded by asyncua's codec in
the tools' venv (tools/.venv) (tools/uabench_tools/decode_requests.py)."""

from __future__ import annotations

from dataclasses import dataclass

from uabench.engine import tools_venv
from uabench.engine.servers import Server, free_port
from uabench.engine.session import Session
from uabench.robustness.recorder import Recorder
from uabench.sdks import Sdk

DECODE_BOUND_S = 60.0


@dataclass(frozen=True)
class Subscription:
    interval_ms: float
    lifetime_count: int
    keep_alive_count: int


@dataclass(frozen=True)
class Asked:
    session_timeouts_ms: list[float]
    subscriptions: list[Subscription]


def decode(messages: list[bytes]) -> Asked:
    """The session timeouts and subscription counts the messages ask for (security None)."""
    what = "decoding the recorded requests"
    done = tools_venv.run("decode_requests", {"messages": [m.hex() for m in messages]}, DECODE_BOUND_S, what)
    found = tools_venv.last_line(done, what)
    return Asked(found["session_timeouts_ms"], [Subscription(**one) for one in found["subscriptions"]])


def asked(session: Session, client: Sdk, server: Server, workload: dict) -> Asked:
    """Runs `client`'s `workload` against `server` through a recording proxy; what it asked."""
    host, port = server.endpoint.removeprefix("opc.tcp://").split("/")[0].rsplit(":", 1)
    proxy_port = free_port()
    with Recorder(proxy_port, host, int(port)) as recorder:
        config = {**session.client_config(server, workload), "endpoint": f"opc.tcp://127.0.0.1:{proxy_port}"}
        session.run_client(client, server, config)
        messages = [m.data for m in recorder.messages]
    return decode(messages)
