"""Validation against the JSON Schemas of contract/schema with the `jsonschema` library.

The only module of the package that needs a third-party library (the `schema` extra:
`pip install contract/python[schema]`): the adapters and the harness validate with the
ecosystem's validator, while `uabench_contract` itself stays standard-library only.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import jsonschema
import referencing
from jsonschema.exceptions import ValidationError

import uabench_contract as contract

# Keys that JSON Schema cannot reject (SPEC rules across keys, e.g. the DataSetWriter count)
# are still rejected by the reference implementation that fills in the defaults afterwards.
_FILL = {
    "server": contract.server_config,
    "client": contract.client_config,
    "publisher": contract.publisher_config,
    "subscriber": contract.subscriber_config,
}
_UNKNOWN = ("additionalProperties", "unevaluatedProperties")


@functools.cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator of schema `name` that resolves the `urn:uabench:contract:*` references."""
    resources = [
        (s["$id"], referencing.Resource.from_contents(s))
        for s in map(contract.schema, contract.SCHEMAS)
    ]
    registry = referencing.Registry().with_resources(resources)
    return jsonschema.Draft202012Validator(contract.schema(name), registry=registry)


def json_path(path: Any) -> str:
    """`$.security.endpoints[0].policy` for the path parts ("security", "endpoints", 0, "policy")."""
    return "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in path
    )


def _key(path: Any) -> str:
    return json_path(path)[2:]


def _unexpected(error: ValidationError) -> list[str]:
    """The property names an additionalProperties/unevaluatedProperties error is about."""
    if error.validator == "additionalProperties":
        allowed = error.schema.get("properties", {})
        return [name for name in error.instance if name not in allowed]
    # jsonschema names them only in its message: "... ('a', 'b' were unexpected)"
    listed = re.search(r"\((.*) (?:was|were) unexpected\)", error.message)
    return re.findall(r"'([^']*)'", listed.group(1)) if listed else []


def _errors(name: str, instance: Any) -> list[ValidationError]:
    # A value error names its own key; an "unexpected key" error on the same object may be a
    # consequence of it (a failed subschema contributes no evaluated keys), so it goes last.
    errors = validator(name).iter_errors(instance)
    return sorted(
        errors,
        key=lambda e: (
            e.validator in _UNKNOWN,
            -len(e.absolute_path),
            list(map(str, e.path)),
        ),
    )


def describe(error: ValidationError) -> str:
    """One problem, naming the config key the way SPEC §2 asks (`config: unknown key 'x'`)."""
    prefix = _key(error.absolute_path)
    prefix = prefix + "." if prefix else ""
    if error.validator in _UNKNOWN:
        names = _unexpected(error) or ["?"]
        return f"config: unknown key '{prefix}{names[0]}'"
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        return (
            f"config: missing required key '{prefix}{missing[0] if missing else '?'}'"
        )
    if error.validator == "pattern" and "description" in error.schema:
        return f"config: key '{_key(error.absolute_path)}' must be {error.schema['description']}, got {error.instance!r}"
    return f"config: key '{_key(error.absolute_path)}': {error.message}"


def problems(name: str, instance: Any) -> list[str]:
    """Every way `instance` breaks schema `name`, each as `JSON path: message`."""
    return [
        f"{json_path(e.absolute_path)}: {e.message}" for e in _errors(name, instance)
    ]


def check_config(role: str, raw: dict) -> dict:
    """The config of `role` with its defaults filled in; ConfigError naming the key if the schema
    (or a rule of SPEC the schema cannot express) rejects it."""
    errors = _errors(role, raw)
    if errors:
        raise contract.ConfigError(describe(errors[0]))
    return _FILL[role](raw)
