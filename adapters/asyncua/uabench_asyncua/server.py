"""`run server`: an asyncua Server with the standard address space."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal

from asyncua import Server

import uabench_contract as contract

from . import security
from .address_space import StandardAddressSpace

log = logging.getLogger("uabench_asyncua.server")

# The contract allows up to 10000 outstanding requests per session; asyncua closes a
# connection whose inbound queue exceeds this (default 500, a flood guard). asyncua 1.1.8
# has no such guard and never reads the attribute.
MAX_PENDING_MESSAGES = 10_000
STOP_TIMEOUT_S = 3.0


def endpoint_url(host: str, port: int) -> str:
    return f"opc.tcp://[{host}]:{port}" if ":" in host else f"opc.tcp://{host}:{port}"


async def import_nodesets(server: Server, paths: list[str]) -> None:
    """SPEC §4, Imported information models: asyncua's own loader (XmlImporter), which maps
    each file's namespace indexes onto the server's. A file it rejects is a runtime error
    naming the file, never ready."""
    for path in paths:
        try:
            await server.import_xml(path)
        except Exception as error:
            log.exception("import of %s failed", path)
            contract.fail(
                "runtime",
                f"nodesets: asyncua could not import {path}: {type(error).__name__}: {error}",
                contract.EXIT_RUNTIME,
            )


async def serve(config: dict) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    url = endpoint_url(config["host"], config["port"])
    server = Server()
    # Message sizes (SPEC §3): asyncua's server.limits default to 100 MiB per message (chunks
    # enough for it), above the contract's 8 MiB, so they stay.
    server.iserver.max_pending_messages_per_connection = MAX_PENDING_MESSAGES
    await server.init()
    server.set_endpoint(url)
    server.set_server_name("uabench asyncua server")
    await server.set_application_uri(config["security"]["application_uri"])
    endpoints = await security.configure_server(server, config["security"])

    space = StandardAddressSpace(server, config["signals"], config["writes"])
    await space.create()
    await import_nodesets(server, config["nodesets"])

    if stop.is_set():  # stopped while building the address space
        return
    try:
        await server.start()
    except OSError as error:
        contract.fail(
            "runtime",
            f"cannot listen on {url}: {error.strerror or error}",
            contract.EXIT_RUNTIME,
        )
    # No await since start(): no connection has been served with the default policies.
    security.trust_only(server, endpoints, config["security"]["trusted_certificates"])
    updates = None
    if config["update_interval_ms"] > 0:
        updates = asyncio.create_task(space.run_updates(config["update_interval_ms"]))
    contract.emit({"event": "ready", "endpoint": url, "pid": os.getpid()})

    await stop.wait()
    log.info("stopping")
    if updates:
        updates.cancel()
    with contextlib.suppress(Exception, asyncio.TimeoutError):
        await asyncio.wait_for(server.stop(), STOP_TIMEOUT_S)
