"""The tables of the plan kinds that are checked with a JSON Schema (conformance, robustness,
soak): their own table and one table of the same name per profile. jsonschema rather than code
by hand: every rule there is a type or a range, and its messages name the key."""

from __future__ import annotations

import jsonschema


class PlanTableError(ValueError):
    pass


def check(value: object, schema: dict, where: str) -> None:
    """A PlanTableError naming the key (e.g. "profiles.quick.soak.duration_s: 5 is less than ...")."""
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as error:
        place = ".".join([where, *(str(p) for p in error.absolute_path)])
        raise PlanTableError(f"{place}: {error.message}") from None


def setup_table(raw: dict, table: str, schema: dict) -> dict:
    check(raw[table], schema, table)
    return raw[table]


def profile_tables(raw: dict, table: str, schema: dict) -> dict[str, dict]:
    """Each profile's `[profiles.NAME.<table>]`, checked; the profile holds nothing else."""
    found = {}
    for name, tables in (raw.get("profiles") or {}).items():
        if not isinstance(tables, dict) or set(tables) != {table}:
            raise PlanTableError(f"profiles.{name} must hold exactly one table, {table}")
        check(tables[table], schema, f"profiles.{name}.{table}")
        found[name] = tables[table]
    return found
