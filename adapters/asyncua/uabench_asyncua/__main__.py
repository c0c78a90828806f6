"""Entry point of the asyncua adapter: `run capabilities | server | client | publisher | subscriber
--config FILE`."""

from __future__ import annotations

import asyncio
import logging
import sys

import asyncua

import uabench_contract as contract
from uabench_contract import validation

from . import compat, security

SDK = "asyncua"
LANGUAGE = "Python"
# PubSub only where the loaded asyncua has asyncua.pubsub (not 1.1.8: compat.PUBSUB)
ROLES = ["server", "client"] + (["publisher", "subscriber"] if compat.PUBSUB else [])
WORKLOADS = ["read", "write", "subscribe"]
USAGE = (
    "usage: run capabilities | run {server,client,publisher,subscriber} --config FILE"
)


def capabilities() -> dict:
    return {
        "sdk": SDK,
        "version": asyncua.__version__,
        "language": LANGUAGE,
        "roles": ROLES,
        "workloads": WORKLOADS,
        "security": [{"policy": p, "mode": m} for p, m in security.SUPPORTED],
    }


def config_path(args: list[str]) -> str:
    if len(args) == 2 and args[0] == "--config":
        return args[1]
    if len(args) == 1 and args[0].startswith("--config="):
        return args[0].split("=", 1)[1]
    raise contract.ConfigError(f"config: {USAGE}")


def main(argv: list[str]) -> None:
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not argv:
        contract.fail("config", USAGE, contract.EXIT_CONFIG)
    command, args = argv[0], argv[1:]
    if command == "capabilities":
        contract.emit(capabilities())
        return
    if command in ("publisher", "subscriber"):
        if not compat.PUBSUB:
            contract.fail(
                "not_supported",
                f"asyncua {asyncua.__version__} has no PubSub (no asyncua.pubsub)",
                contract.EXIT_NOT_SUPPORTED,
            )
        pubsub_role(command, args)
        return
    if command not in ("server", "client"):
        contract.fail(
            "config", f"unknown command '{command}'; {USAGE}", contract.EXIT_CONFIG
        )
    try:
        raw = contract.load_config(config_path(args))
        if command == "server":
            config = validation.check_config("server", raw)
            check_security(config["security"]["endpoints"])
            security.check_files(
                config["security"],
                ["certificate", "private_key", "trusted_certificates"],
            )
            contract.check_nodesets(config["nodesets"])
        else:
            config = validation.check_config("client", raw)
            check_security([config["security"]])
            security.check_files(config["security"], ["certificate", "private_key"])
    except contract.ConfigError as error:
        contract.fail("config", str(error), contract.EXIT_CONFIG)
    except contract.NotSupported as error:
        contract.fail("not_supported", str(error), contract.EXIT_NOT_SUPPORTED)

    try:
        if command == "server":
            from .server import serve

            asyncio.run(serve(config))
        else:
            from .client import run_client

            asyncio.run(run_client(config, SDK, asyncua.__version__))
    except Exception as error:  # anything the roles did not report themselves
        logging.getLogger("uabench_asyncua").exception("%s failed", command)
        contract.fail(
            "runtime", f"{type(error).__name__}: {error}", contract.EXIT_RUNTIME
        )


def pubsub_role(command: str, args: list[str]) -> None:
    """`run publisher|subscriber --config FILE` (SPEC §8), in uabench_asyncua/pubsub.py."""
    try:
        raw = contract.load_config(config_path(args))
        config = validation.check_config(command, raw)
    except contract.ConfigError as error:
        contract.fail("config", str(error), contract.EXIT_CONFIG)
    try:
        from .pubsub import run

        run(command, config)
    except Exception as error:  # anything the roles did not report themselves
        logging.getLogger("uabench_asyncua").exception("%s failed", command)
        contract.fail(
            "runtime", f"{type(error).__name__}: {error}", contract.EXIT_RUNTIME
        )


def check_security(pairs: list[dict]) -> None:
    for pair in pairs:
        if (pair["policy"], pair["mode"]) not in security.SUPPORTED:
            raise contract.NotSupported(
                f"security {pair['policy']}/{pair['mode']} is not supported by asyncua"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
