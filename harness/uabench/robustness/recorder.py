"""Records the messages a client sends (the fuzzer's corpus, issue 18): a TCP proxy between the
reference client and a server that passes every byte on and keeps the client's messages, whole
(tools/uabench_tools/wire.py frames them). Written here rather than taken from a proxy tool: the
recording is of OPC UA messages, framed as they pass, and toxiproxy (the network suite's proxy)
records nothing."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from uabench_tools import wire


class Recorder:
    """A proxy on 127.0.0.1:`port` to `host`:`target_port`, in a thread of its own; `messages`
    holds what the clients sent, in order."""

    def __init__(self, port: int, host: str, target_port: int) -> None:
        self.port, self.host, self.target_port = port, host, target_port
        self.messages: list[wire.Message] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="uabench-recorder", daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> Recorder:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"recorder: could not listen on port {self.port}")
        return self

    def __exit__(self, *_: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._pair, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()
        self._server.close()

    async def _pair(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            self._pipe(client_reader, server_writer, record=True),
            self._pipe(server_reader, client_writer, record=False),
            return_exceptions=True,
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: bool) -> None:
        pending = b""
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
                if record:
                    found, pending = wire.split(pending + data)
                    self.messages += found
        finally:
            writer.close()

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"messages": [{"hex": m.data.hex()} for m in self.messages]}))
