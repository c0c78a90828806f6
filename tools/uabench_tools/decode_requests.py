"""What a client asked for in its CreateSession and CreateSubscription requests, decoded by
asyncua's own codec from messages the recording proxy kept (robustness/recorder.py): run in
the tools' venv (tools/.venv) (engine/tools_venv.py), as `python decode_requests.py '{"messages": [hex, ...]}'`,
printing one JSON line {"session_timeouts_ms": [...], "subscriptions": [{interval_ms,
lifetime_count, keep_alive_count}, ...]}. Messages of security policy None only: a signed or
encrypted body is not readable here."""

from __future__ import annotations

import json
import struct
import sys

from asyncua import ua
from asyncua.common.utils import Buffer
from asyncua.ua.ua_binary import struct_from_binary

# a MSG's body after its 8-byte header, channel and token ids and sequence header (OPC 10000-6
# §6.7.2), starting with the request's type NodeId (four-byte encoding, namespace 0)
BODY = 24
TYPES = {461: ua.CreateSessionRequest, 787: ua.CreateSubscriptionRequest}


def main() -> None:
    arguments = json.loads(sys.argv[1])
    timeouts, subscriptions = [], []
    for text in arguments["messages"]:
        data = bytes.fromhex(text)
        if (
            data[:3] != b"MSG"
            or data[3:4] != b"F"
            or data[BODY : BODY + 2] != b"\x01\x00"
        ):
            continue
        (identifier,) = struct.unpack_from("<H", data, BODY + 2)
        kind = TYPES.get(identifier)
        if kind is None:
            continue
        request = struct_from_binary(kind, Buffer(data[BODY:]))
        if isinstance(request, ua.CreateSessionRequest):
            timeouts.append(request.Parameters.RequestedSessionTimeout)
        else:
            parameters = request.Parameters
            subscriptions.append(
                {
                    "interval_ms": parameters.RequestedPublishingInterval,
                    "lifetime_count": parameters.RequestedLifetimeCount,
                    "keep_alive_count": parameters.RequestedMaxKeepAliveCount,
                }
            )
    print(json.dumps({"session_timeouts_ms": timeouts, "subscriptions": subscriptions}))


if __name__ == "__main__":
    main()
