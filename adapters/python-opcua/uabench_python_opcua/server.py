"""The server role: the standard address space (SPEC §4) behind an opcua.Server."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from datetime import datetime

from opcua import Server, ua
import uabench_contract as contract
from uabench_contract import validation

from . import security

log = logging.getLogger("uabench.python_opcua.server")


def run_server(path: str) -> None:
    try:
        config = validation.check_config("server", contract.load_config(path))
        contract.check_nodesets(config["nodesets"])
        settings = config["security"]
        policy_types = security.server_policy_types(settings["endpoints"])
        trusted = frozenset(
            security.der(security.load_certificate(p, "security.trusted_certificates"))
            for p in settings["trusted_certificates"]
        )
        certificate = private_key = None
        if settings["certificate"]:
            certificate = security.load_certificate(
                settings["certificate"], "security.certificate"
            )
        if settings["private_key"]:
            private_key = security.load_private_key(
                settings["private_key"], "security.private_key"
            )
    except contract.ConfigError as error:
        contract.fail("config", str(error), contract.EXIT_CONFIG)
    except contract.NotSupported as error:
        contract.fail("not_supported", str(error), contract.EXIT_NOT_SUPPORTED)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    endpoint = f"opc.tcp://{config['host']}:{config['port']}"
    try:
        # Message sizes (SPEC §3): python-opcua sets no message size or chunk count limit
        # (its Acknowledge says 0, unlimited), so there is nothing to raise.
        server = Server()
        server.set_endpoint(endpoint)
        server.set_server_name("uabench python-opcua server")
        server.set_application_uri(settings["application_uri"])
        server.set_security_policy(policy_types)
        server.set_security_IDs(["Anonymous"])
        server.certificate, server.private_key = certificate, private_key
        server.bserver = security.GuardedBinaryServer(
            server.iserver, config["host"], config["port"], trusted
        )
        space = AddressSpace(server, config["signals"], config["writes"])
        import_nodesets(server, config["nodesets"])
        server.start()
    except Exception as error:  # e.g. port in use
        log.exception("server failed to start")
        contract.emit(
            {
                "event": "error",
                "kind": "runtime",
                "message": f"server failed to start: {error}",
            }
        )
        os._exit(contract.EXIT_RUNTIME)  # the library's threads may still be alive

    updater = None
    if config["update_interval_ms"] > 0:
        updater = threading.Thread(
            target=space.update_loop,
            name="update-loop",
            daemon=True,
            args=(config["update_interval_ms"] / 1000.0, stop),
        )
        updater.start()
    contract.emit({"event": "ready", "endpoint": endpoint, "pid": os.getpid()})

    stop.wait()
    # SPEC: exit 0 within 5 s even if the library's shutdown hangs on a stuck connection.
    threading.Timer(4.0, lambda: os._exit(0)).start()
    if updater:
        updater.join(1.0)
    try:
        server.stop()
    except Exception:
        log.exception("error while stopping the server")
    os._exit(0)


def import_nodesets(server: Server, paths: list[str]) -> None:
    """SPEC §4, Imported information models: python-opcua's own loader (XmlImporter), which
    maps each file's namespace indexes onto the server's. A file it rejects is a runtime error
    naming the file, never ready."""
    for path in paths:
        try:
            server.import_xml(path)
        except Exception as error:
            log.exception("import of %s failed", path)
            contract.fail(
                "runtime",
                f"nodesets: python-opcua could not import {path}: {type(error).__name__}: {error}",
                contract.EXIT_RUNTIME,
            )


class AddressSpace:
    """The uabench object, its variables, and the update loop that moves Tick and Signal_i."""

    def __init__(self, server: Server, signals: int, writes: int) -> None:
        self.server = server
        ns = server.register_namespace(contract.NAMESPACE_URI)
        folder = server.get_objects_node().add_object(
            ua.NodeId("uabench", ns), ua.QualifiedName("uabench", ns)
        )
        read = ua.AccessLevel.CurrentRead.mask
        read_write = read | ua.AccessLevel.CurrentWrite.mask
        variables = [("Tick", ua.Variant(0, ua.VariantType.UInt32), read)]
        variables += [
            (
                f"Signal_{i}",
                ua.Variant(contract.signal(i, 0), ua.VariantType.Float),
                read,
            )
            for i in range(signals)
        ]
        variables += [
            ("Real", ua.Variant(contract.REAL_VALUE, ua.VariantType.Float), read),
            (
                "Page",
                ua.Variant(
                    contract.page(), ua.VariantType.Int16, [contract.PAGE_LENGTH]
                ),
                read,
            ),
            ("SDD", ua.Variant(contract.sdd(), ua.VariantType.ByteString), read),
            ("Image", ua.Variant(contract.image(), ua.VariantType.ByteString), read),
        ]
        variables += [
            (
                name,
                ua.Variant(contract.array(length), ua.VariantType.Double, [length]),
                read,
            )
            for name, length in contract.ARRAYS.items()
        ]
        variables += [
            (f"Write_{j}", ua.Variant(0.0, ua.VariantType.Double), read_write)
            for j in range(writes)
        ]
        _add_variables(server, folder.nodeid, ns, variables)
        self.tick = 0
        self.tick_id = ua.NodeId("Tick", ns)
        self.signal_ids = [ua.NodeId(f"Signal_{i}", ns) for i in range(signals)]
        # Nodes added through AddNodes have no SourceTimestamp; a client reads tick 0 with
        # one (SPEC §3 R4) also when the update loop is off.
        self.publish(0)

    def update(self) -> None:
        self.tick = (self.tick + 1) % 2**32
        self.publish(self.tick)

    def publish(self, tick: int) -> None:
        now = datetime.utcnow()
        set_value = self.server.set_attribute_value
        float_type = ua.VariantType.Float
        set_value(
            self.tick_id,
            ua.DataValue(
                ua.Variant(tick, ua.VariantType.UInt32),
                sourceTimestamp=now,
                serverTimestamp=now,
            ),
        )
        for i, node_id in enumerate(self.signal_ids):
            set_value(
                node_id,
                ua.DataValue(
                    ua.Variant(contract.signal(i, tick), float_type),
                    sourceTimestamp=now,
                    serverTimestamp=now,
                ),
            )

    def update_loop(self, period: float, stop: threading.Event) -> None:
        # Fixed schedule; a late update is done at once and missed periods are skipped, so
        # each update still advances t by exactly one.
        due = time.monotonic() + period
        while not stop.wait(max(0.0, due - time.monotonic())):
            try:
                self.update()
            except Exception:
                log.exception("update loop")
            due += period
            now = time.monotonic()
            if due < now:
                due = now + period - (now - due) % period


def _add_variables(
    server: Server, parent_id: ua.NodeId, ns: int, variables: list
) -> None:
    """Adds (name, Variant, access level) variables under `parent_id`.

    Node.add_variable checks each new reference against all references the parent already
    has, which is quadratic: 10 000 signals take about a minute. So, like the library's own
    loader of the standard address space, this adds the nodes through
    NodeManagementService.try_add_nodes(check=False) without a parent, and then links them
    to the parent in one pass (HasComponent forward on the parent, inverse on each child).
    """
    items, forward = [], []
    for name, variant, access in variables:
        item = ua.AddNodesItem()
        item.RequestedNewNodeId = ua.NodeId(name, ns)
        item.BrowseName = ua.QualifiedName(name, ns)
        item.NodeClass = ua.NodeClass.Variable
        item.ReferenceTypeId = ua.NodeId(ua.ObjectIds.HasComponent)
        item.TypeDefinition = ua.NodeId(ua.ObjectIds.BaseDataVariableType)
        attributes = ua.VariableAttributes()
        attributes.DisplayName = attributes.Description = ua.LocalizedText(name)
        attributes.DataType = ua.NodeId(
            variant.VariantType.value
        )  # built-in type ids match
        attributes.Value = variant
        if variant.Dimensions:
            attributes.ValueRank, attributes.ArrayDimensions = (
                len(variant.Dimensions),
                variant.Dimensions,
            )
        else:
            attributes.ValueRank = ua.ValueRank.Scalar
        attributes.AccessLevel = attributes.UserAccessLevel = access
        item.NodeAttributes = attributes
        items.append(item)

        reference = ua.ReferenceDescription()
        reference.ReferenceTypeId = item.ReferenceTypeId
        reference.NodeId = item.RequestedNewNodeId
        reference.NodeClass = item.NodeClass
        reference.BrowseName = item.BrowseName
        reference.DisplayName = attributes.DisplayName
        reference.TypeDefinition = item.TypeDefinition
        reference.IsForward = True
        forward.append(reference)

    nodes = server.iserver.node_mgt_service
    rejected = list(nodes.try_add_nodes(items, check=False))
    if rejected:
        raise RuntimeError(
            f"could not add {len(rejected)} variables, e.g. {rejected[0].BrowseName}"
        )
    server.iserver.aspace[parent_id].references.extend(forward)
    inverse = []
    for item in items:
        link = ua.AddReferencesItem()
        link.SourceNodeId = item.RequestedNewNodeId
        link.TargetNodeId = parent_id
        link.TargetNodeClass = ua.NodeClass.Object
        link.ReferenceTypeId = item.ReferenceTypeId
        link.IsForward = False
        inverse.append(link)
    failed = [r for r in nodes.add_references(inverse) if not r.is_good()]
    if failed:
        raise RuntimeError(
            f"could not link {len(failed)} variables to their parent: {failed[0]}"
        )
