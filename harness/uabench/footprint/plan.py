"""What makes a plan a footprint plan (a `[footprint]` table; suites/plans/footprint.toml): the
memory models of a server (a workload held by the reference client, one of its keys stepped),
the signal counts its start-up and idle memory are measured at, the client model, how RSS is
judged settled, and per benchmark profile how long a hold lasts, how often each point is
measured, and which steps, servers and clients. Checked with a JSON Schema (plan_table), as the
other plan kinds are."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table

# What a model steps, and the unit of its slope in the report. Each subscription monitors the
# workload's nodes (SPEC §3 subscribe), so "subscriptions" adds a subscription with its items.
VARIED = {"sessions": "session", "subscriptions": "subscription", "monitored_items": "monitored item"}

_SIGNALS = {"type": "integer", "minimum": 1, "maximum": 100000}  # SPEC §3 server `signals`
_STEPS = {"type": "array", "minItems": 2, "uniqueItems": True, "items": {"type": "integer", "minimum": 1}}
_MODEL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "vary", "steps", "workload"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "vary": {"enum": list(VARIED)},
        # at least two, for a slope; a profile may take fewer of them (its `steps`: the first n)
        "steps": _STEPS,
        # the client config keys of what is held (monitored_items: the nodes are Signal_0 … n−1)
        "workload": {"type": "object"},
    },
}
_EXPECTED_NODE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "browse_name", "node_class"],
    "properties": {
        "id": {"type": "integer", "minimum": 0},  # numeric, in the model's namespace
        "browse_name": {"type": "string", "minLength": 1},
        "node_class": {"enum": ["Object", "ObjectType", "Variable", "VariableType", "DataType", "ReferenceType"]},
        # a namespace-0 node whose Browse (hierarchical references) must return it: 85 is Objects
        "parent": {"type": "integer", "minimum": 0},
    },
}
_IMPORT_MODEL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "package", "version", "sha512", "files", "expect"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        # the npm package that holds its files, pinned by version and the sha512 of its tarball
        "package": {"type": "string", "minLength": 1},
        "version": {"type": "string", "minLength": 1},
        "sha512": {"type": "string", "pattern": "^[0-9a-f]{128}$"},
        # paths inside the package, imported in this order (a model's required models first)
        "files": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        # what a server that imported them shows: per namespace URI, known nodes
        "expect": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["uri", "nodes"],
                "properties": {
                    "uri": {"type": "string", "minLength": 1},
                    "nodes": {"type": "array", "minItems": 1, "items": _EXPECTED_NODE},
                },
            },
        },
    },
}
# SPEC §4, Imported information models: the companion models imported at start-up
_IMPORT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["models"],
    "properties": {"models": {"type": "array", "minItems": 1, "items": _IMPORT_MODEL}},
}
SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["server", "settle", "models", "startup", "client"],
    "properties": {
        # server config keys of every measured server (its update loop, which keeps values moving)
        "server": {"type": "object"},
        # RSS is settled once the samples of the last window_s lie within tolerance of their
        # median; a reading waits at most bound_s for that (then it is marked unsettled)
        "settle": {
            "type": "object",
            "additionalProperties": False,
            "required": ["window_s", "tolerance", "bound_s"],
            "properties": {
                "window_s": {"type": "number", "minimum": 0.5, "maximum": 60},
                "tolerance": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.2},
                "bound_s": {"type": "number", "minimum": 1, "maximum": 600},
            },
        },
        "models": {"type": "array", "minItems": 1, "items": _MODEL},
        # the server started with these signal counts: time to ready, idle RSS, the first request
        "startup": {
            "type": "object",
            "additionalProperties": False,
            "required": ["signals", "first_request"],
            "properties": {
                "signals": {"type": "array", "minItems": 2, "uniqueItems": True, "items": _SIGNALS},
                # the client config of the first requests after ready (record_latencies is set)
                "first_request": {"type": "object"},
            },
        },
        "import": _IMPORT,
        # each client against the reference server, holding the workload in `steps` sessions
        "client": {
            "type": "object",
            "additionalProperties": False,
            "required": ["steps", "workload"],
            "properties": {"steps": _STEPS, "workload": {"type": "object"}},
        },
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["hold_s", "repetitions"],
    "properties": {
        # the measured phase of a held workload: the last settle.window_s of it is the reading
        "hold_s": {"type": "number", "minimum": 1, "maximum": 600},
        # server processes per point: a slope's interval comes from their scatter
        "repetitions": {"type": "integer", "minimum": 1, "maximum": 50},
        # the first n steps of every model and of the client model
        "steps": {"type": "integer", "minimum": 2, "maximum": 50},
        # the start-up's signal counts in this profile (a subset of startup.signals)
        "signals": {"type": "array", "minItems": 1, "uniqueItems": True, "items": _SIGNALS},
        "models": plan_table.CHOSEN_SCHEMA,
        # the import models measured in this profile; [] measures none
        "imports": {"type": "array", "uniqueItems": True, "items": {"type": "string", "minLength": 1}},
        # server processes per import point (default: repetitions): a start costs little beside a
        # hold, and a difference of two means needs more of them for a narrow interval
        "import_repetitions": {"type": "integer", "minimum": 2, "maximum": 50},
        "servers": plan_table.CHOSEN_SCHEMA,
        "clients": plan_table.CHOSEN_SCHEMA,
    },
}


@dataclass(frozen=True)
class Model:
    name: str
    vary: str  # a key of VARIED
    steps: tuple[int, ...]
    workload: dict

    @property
    def unit(self) -> str:
        return VARIED[self.vary]

    def held(self, step: int) -> dict:
        """The client config keys of this model at `step`."""
        if self.vary == "monitored_items":
            return {**self.workload, "nodes": [f"Signal_{i}" for i in range(step)]}
        return {**self.workload, self.vary: step}

    def server_config(self, step: int, server: dict) -> dict:
        """The server config overrides at `step`: the plan's, with a signal per monitored item."""
        if self.vary == "monitored_items":
            return {**server, "signals": max(int(server.get("signals", 1000)), step)}
        return dict(server)


@dataclass(frozen=True)
class ImportModel:
    """Companion models imported together (`files`, in order) and what a server that imported
    them shows: [{"uri", "nodes": [{"id", "browse_name", "node_class", "parent"?}]}]."""

    name: str
    package: str  # an npm package, pinned by version and the sha512 of its tarball
    version: str
    sha512: str
    files: tuple[str, ...]
    expect: tuple[dict, ...]


@dataclass(frozen=True)
class ImportSetup:
    models: tuple[ImportModel, ...]

    def model(self, name: str) -> ImportModel:
        found = next((m for m in self.models if m.name == name), None)
        if found is None:
            raise KeyError(f"no import model '{name}' (has: {', '.join(m.name for m in self.models)})")
        return found


@dataclass(frozen=True)
class Settle:
    window_s: float
    tolerance: float
    bound_s: float


@dataclass(frozen=True)
class FootprintProfile:
    hold_s: float
    repetitions: int
    steps: int | None
    signals: tuple[int, ...] | None
    models: tuple[str, ...] | None
    servers: tuple[str, ...] | None
    clients: tuple[str, ...] | None
    imports: tuple[str, ...] | None = None
    import_repetitions: int | None = None


@dataclass(frozen=True)
class FootprintSetup:
    server: dict
    settle: Settle
    models: tuple[Model, ...]
    signals: tuple[int, ...]
    first_request: dict
    client_steps: tuple[int, ...]
    client_workload: dict
    profiles: dict[str, FootprintProfile]
    nodeset_import: ImportSetup | None = None

    def imports_of(self, profile: str | None) -> tuple[ImportModel, ...]:
        """The import models measured in `profile` (none without an [footprint.import] table)."""
        if self.nodeset_import is None:
            return ()
        names = self.chosen(profile).imports
        return tuple(m for m in self.nodeset_import.models if names is None or m.name in names)

    def chosen(self, profile: str | None) -> FootprintProfile:
        found = self.profiles.get(profile or "quick") or next(iter(self.profiles.values()))
        return found

    def model(self, name: str) -> Model:
        found = next((m for m in self.models if m.name == name), None)
        if found is None:
            raise KeyError(f"no model '{name}' (has: {', '.join(m.name for m in self.models)})")
        return found

    def models_of(self, profile: str | None) -> tuple[Model, ...]:
        names = self.chosen(profile).models
        return tuple(m for m in self.models if names is None or m.name in names)

    def steps_of(self, steps: tuple[int, ...], profile: str | None) -> tuple[int, ...]:
        """A model's steps in `profile`: its first n."""
        return steps[: self.chosen(profile).steps or len(steps)]

    def signals_of(self, profile: str | None) -> tuple[int, ...]:
        return self.chosen(profile).signals or self.signals


def parse(raw: dict) -> tuple[FootprintSetup, dict[str, dict]]:
    """The footprint setup of a plan, and its profiles as the plan's `profiles` (no phases)."""
    setup = plan_table.setup_table(raw, "footprint", SETUP_SCHEMA)
    models = tuple(Model(m["name"], m["vary"], tuple(m["steps"]), dict(m["workload"])) for m in setup["models"])
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise plan_table.PlanTableError(f"footprint.models: names must differ, got {names}")
    for index, model in enumerate(models):
        if list(model.steps) != sorted(model.steps):
            raise plan_table.PlanTableError(f"footprint.models[{index}].steps: must rise, got {list(model.steps)}")
    signals = tuple(setup["startup"]["signals"])
    nodeset_import = _import(setup.get("import"))
    import_names = [m.name for m in nodeset_import.models] if nodeset_import else []
    profiles = {}
    for name, t in plan_table.profile_tables(raw, "footprint", PROFILE_SCHEMA).items():
        where = f"profiles.{name}.footprint"
        unknown = [n for n in t.get("signals", ()) if n not in signals]
        if unknown:
            raise plan_table.PlanTableError(f"{where}.signals: {unknown} are not in footprint.startup.signals")
        profiles[name] = FootprintProfile(
            float(t["hold_s"]),
            int(t["repetitions"]),
            int(t["steps"]) if "steps" in t else None,
            tuple(t["signals"]) if "signals" in t else None,
            plan_table.chosen_names(t, "models", names, where),
            tuple(t["servers"]) if "servers" in t else None,
            tuple(t["clients"]) if "clients" in t else None,
            _chosen_imports(t, import_names, where),
            int(t["import_repetitions"]) if "import_repetitions" in t else None,
        )
    settle = setup["settle"]
    return (
        FootprintSetup(
            dict(setup["server"]),
            Settle(float(settle["window_s"]), float(settle["tolerance"]), float(settle["bound_s"])),
            models,
            signals,
            dict(setup["startup"]["first_request"]),
            tuple(setup["client"]["steps"]),
            dict(setup["client"]["workload"]),
            profiles,
            nodeset_import,
        ),
        {name: {} for name in profiles},
    )


def _import(table: dict | None) -> ImportSetup | None:
    if table is None:
        return None
    models = tuple(
        ImportModel(m["name"], m["package"], m["version"], m["sha512"], tuple(m["files"]), tuple(m["expect"]))
        for m in table["models"]
    )
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise plan_table.PlanTableError(f"footprint.import.models: names must differ, got {names}")
    return ImportSetup(models)


def _chosen_imports(table: dict, known: list[str], where: str) -> tuple[str, ...] | None:
    """A profile's import models: None all of them, () none (an empty list may name nothing)."""
    if "imports" not in table:
        return None
    unknown = [name for name in table["imports"] if name not in known]
    if unknown:
        raise plan_table.PlanTableError(f"{where}.imports: no {unknown} (has: {', '.join(known) or 'none'})")
    return tuple(table["imports"])
