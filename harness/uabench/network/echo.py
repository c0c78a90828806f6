"""The calibration of a network path: ping-sized exchanges over TCP through the same path the
OPC UA traffic takes (veth, tbf, loss, toxiproxy), so the report can show what the path alone
adds to a round trip. ICMP ping would not pass the TCP proxy; an echo over the standard
library's socketserver is all this needs (no tool of the field does less).

    python -m uabench.network.echo serve HOST PORT            # in the server's namespace
    python -m uabench.network.echo measure HOST PORT COUNT    # in the client's; one JSON line:
    {"rtd_ns": [...], "bytes": 64}
"""

from __future__ import annotations

import json
import socket
import socketserver
import sys
import time

PAYLOAD = 64  # bytes each way: an ICMP echo's default payload is 56 (+ 8 of header)
CONNECT_S = 10.0
EXCHANGE_S = 30.0  # a lost segment on a 3G profile costs a retransmission timeout or two


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while data := self.request.recv(4096):
            self.request.sendall(data)


def serve(host: str, port: int) -> None:
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer((host, port), _Echo) as server:
        print("ready", flush=True)
        server.serve_forever()


def measure(host: str, port: int, count: int) -> list[int]:
    """The round trip of each of `count` exchanges of PAYLOAD bytes, one at a time, ns."""
    rtds = []
    with socket.create_connection((host, port), timeout=CONNECT_S) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.settimeout(EXCHANGE_S)
        payload = b"u" * PAYLOAD
        for _ in range(count):
            sent = time.perf_counter_ns()
            connection.sendall(payload)
            received = 0
            while received < PAYLOAD:
                chunk = connection.recv(PAYLOAD - received)
                if not chunk:
                    raise ConnectionError("the echo server closed the connection")
                received += len(chunk)
            rtds.append(time.perf_counter_ns() - sent)
    return rtds


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "serve":
        serve(argv[1], int(argv[2]))
        return 0
    if len(argv) == 4 and argv[0] == "measure":
        print(json.dumps({"rtd_ns": measure(argv[1], int(argv[2]), int(argv[3])), "bytes": PAYLOAD}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
