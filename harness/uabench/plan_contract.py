"""What the adapter contract allows in a plan: every config a plan makes the harness send an
adapter is validated here, before anything starts, against the contract's JSON Schemas
(contract/schema, through uabench_contract.validation and the `jsonschema` library), and the
bounds a plan's own keys share with the contract (a server's signals, a PubSub DataSet's size)
are read from those schemas, never copied, so a plan accepts exactly what the adapters will."""

from __future__ import annotations

import functools

import uabench_contract as contract
from uabench_contract import validation

ConfigError = contract.ConfigError
# Node families with an index (SPEC §4): `Signal_i`, i < the server's `signals`, and `Write_j`,
# j < its `writes`; a range like "Signal_0..99" may only span one of them.
INDEXED = {"Signal_": "signals", "Write_": "writes"}


@functools.cache
def _property(schema: str, key: str) -> dict:
    if schema == "pubsub":
        return contract.schema("common")["$defs"]["pubsub"]["properties"][key]
    return contract.schema(schema)["properties"][key]


def bound(schema: str, key: str, which: str) -> float:
    """`minimum`, `maximum` or `default` of `key` in contract schema `schema` ("server",
    "client" or "pubsub" for the keys both PubSub roles share)."""
    return _property(schema, key)[which]


def default_server() -> dict:
    """The keys of a server config a plan's nodes depend on, at the contract's defaults (the
    harness starts every server with them unless a sweep overrides them)."""
    return {key: bound("server", key, "default") for key in INDEXED.values()}


def node_limits(server: dict) -> dict[str, int]:
    """How many nodes of each indexed family a server with config `server` holds."""
    config = {**default_server(), **server}
    return {prefix: int(config[key]) for prefix, key in INDEXED.items()}


# What the harness sets per cell (the endpoint, the port): any valid value stands for it here.
PER_CELL: dict[str, dict] = {"client": {"endpoint": "opc.tcp://plan-check:4840"}, "server": {"port": 4840}}


def check(role: str, config: dict) -> dict:
    """`config` of `role` with its defaults filled in; ConfigError naming the key otherwise."""
    return validation.check_config(role, {**PER_CELL.get(role, {}), **config})


# Where a sweep of each kind puts its value before Sweep.point converts it (int(), division),
# so a value of the wrong type or out of range is named as the contract names it, not as the
# conversion's traceback: (role, key) of the config that carries the raw value.
SWEPT_KEY = {
    "signals": ("server", "signals"),
    "sessions": ("client", "sessions"),
    "interval": ("server", "update_interval_ms"),
    "nodes_per_request": ("client", "nodes_per_request"),
    "in_flight": ("client", "in_flight"),
}


def sweep_value(kind: str, value: object, workload: dict) -> None:
    """ConfigError if the contract refuses `value` as the key a sweep of `kind` sets."""
    if kind not in SWEPT_KEY:
        return
    role, key = SWEPT_KEY[kind]
    check(role, {key: value} if role == "server" else {**workload, "nodes": ["Signal_0"], key: value})
