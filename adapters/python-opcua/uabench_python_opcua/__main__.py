"""Command line of the adapter: capabilities, server, client (adapters/SPEC.md §2)."""

import logging
import sys

import uabench_contract as contract

from . import LANGUAGE, ROLES, SDK_ID, SECURITY, WORKLOADS, sdk_version

USAGE = "usage: run capabilities | run server --config FILE | run client --config FILE"


def _config_path(args: list[str]) -> str:
    if len(args) != 2 or args[0] != "--config":
        contract.fail(
            "config", f"config: expected --config FILE ({USAGE})", contract.EXIT_CONFIG
        )
    return args[1]


def main(argv: list[str]) -> None:
    # python-opcua logs a lot at INFO; the protocol on stdout must stay clean.
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not argv:
        contract.fail("config", USAGE, contract.EXIT_CONFIG)
    command, args = argv[0], argv[1:]
    if command == "capabilities":
        contract.emit(
            {
                "sdk": SDK_ID,
                "version": sdk_version(),
                "language": LANGUAGE,
                "roles": ROLES,
                "workloads": WORKLOADS,
                "security": SECURITY,
            }
        )
        return
    if command in ("publisher", "subscriber"):
        contract.fail(
            "not_supported",
            f"python-opcua has no PubSub: no {command} role",
            contract.EXIT_NOT_SUPPORTED,
        )
    if command == "server":
        from .server import run_server

        run_server(_config_path(args))
        return
    if command == "client":
        from .client import run_client

        run_client(_config_path(args))
        return
    contract.fail(
        "config", f"unknown command '{command}' ({USAGE})", contract.EXIT_CONFIG
    )


if __name__ == "__main__":
    main(sys.argv[1:])
