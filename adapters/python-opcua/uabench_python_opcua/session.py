"""One uabench session: an opcua.Client with its SecureChannel, Session and namespace."""

from __future__ import annotations

import logging
import time

from opcua import Client, ua
import uabench_contract as contract

from . import security

log = logging.getLogger("uabench.python_opcua.session")

REQUEST_TIMEOUT_S = (
    5  # synchronous calls and the TCP connect; SPEC wants connect errors < 10 s
)


def request_timeout_s(config: dict) -> float:
    """SPEC §3 request_timeout_ms as the Client's `timeout` (s); null keeps REQUEST_TIMEOUT_S.
    python-opcua bounds with it each set-up step (TCP connect, Hello, OpenSecureChannel,
    CreateSession, ActivateSession) and every synchronous request; not Publish (sent with
    none), nor the requests the pipeline sends with a callback (its own `_expire` applies it
    there, with reconnect). It does not reach the requests' TimeoutHint: python-opcua writes
    1000 ms into every request header whatever `timeout` is."""
    ms = config["request_timeout_ms"]
    return REQUEST_TIMEOUT_S if ms is None else ms / 1000


class Credentials:
    """The client's security settings, loaded once (before connecting) for all sessions."""

    def __init__(self, settings: dict) -> None:
        self.policy = (
            None
            if settings["policy"] == "None"
            else security.client_policy(settings["policy"])
        )
        self.mode = security.MODES[settings["mode"]]
        self.application_uri = settings["application_uri"]
        self.certificate = self.private_key = None
        if self.policy is not None:
            self.certificate = security.load_certificate(
                settings["certificate"], "security.certificate"
            )
            self.private_key = security.load_private_key(
                settings["private_key"], "security.private_key"
            )


class Session:
    def __init__(
        self, index: int, endpoint: str, credentials: Credentials, timeout_s: float
    ) -> None:
        self.index = index
        self.timeout_s = timeout_s  # request_timeout_s
        # Message sizes (SPEC §3): the client's Hello asks for no limit (max_messagesize 0).
        self.client = Client(endpoint, timeout=timeout_s)
        self.client.application_uri = credentials.application_uri
        self.client.name = self.client.description = (
            f"uabench python-opcua client {index}"
        )
        self.credentials = credentials
        # What CreateSession asks for: python-opcua's default, 1 h (connect() then replaces
        # client.session_timeout by the server's revised value).
        self.requested_session_timeout_ms = self.client.session_timeout
        self.namespace = None
        self.setup_ns = 0  # GetEndpoints (secure only) .. ActivateSession, SPEC §6

    def connect(self) -> None:
        """Raises on any failure to reach the endpoint or create the session."""
        started = time.perf_counter_ns()
        credentials = self.credentials
        if credentials.policy is not None:
            # Client.set_security with no server certificate path, but with our own key
            # loading: trust the certificate of the endpoint the server offers.
            endpoints = self.client.connect_and_get_server_endpoints()
            offered = Client.find_endpoint(
                endpoints, credentials.mode, credentials.policy.URI
            )
            server_certificate = security.x509.load_der_x509_certificate(
                offered.ServerCertificate
            )
            policy = credentials.policy(
                server_certificate,
                credentials.certificate,
                credentials.private_key,
                credentials.mode,
            )
            self.client.security_policy = policy
            self.client.uaclient.set_security(policy)
        self.client.connect()
        self.setup_ns = max(1, time.perf_counter_ns() - started)

    def resolve_namespace(self) -> int:
        uris = self.client.get_namespace_array()
        if contract.NAMESPACE_URI not in uris:
            raise RuntimeError(f"server has no namespace {contract.NAMESPACE_URI}")
        self.namespace = uris.index(contract.NAMESPACE_URI)
        return self.namespace

    def node_id(self, name: str) -> ua.NodeId:
        return ua.NodeId(name, self.namespace)

    @property
    def channel(self):
        """The session's UASocketClient: its send_request(request, callback) queues a request
        and returns at once, which is how several requests are kept in flight."""
        return self.client.uaclient._uasocket

    def read(self, names: list[str]) -> list:
        return self.client.uaclient.read(
            read_parameters([self.node_id(n) for n in names])
        )

    def write(self, names: list[str], values: list[float]) -> list:
        return self.client.uaclient.write(
            write_parameters([self.node_id(n) for n in names], values)
        )

    def disconnect(self) -> None:
        try:
            self.client.disconnect()
        except Exception as error:  # the result is already out; just leave quietly
            log.debug("disconnect of session %d: %s", self.index, error)


def read_parameters(node_ids: list) -> ua.ReadParameters:
    parameters = ua.ReadParameters()
    parameters.MaxAge = 0  # SPEC §3: every Read asks maxAge 0 and Source timestamps
    parameters.TimestampsToReturn = ua.TimestampsToReturn.Source
    for node_id in node_ids:
        item = ua.ReadValueId()
        item.NodeId = node_id
        item.AttributeId = ua.AttributeIds.Value
        parameters.NodesToRead.append(item)
    return parameters


def write_parameters(node_ids: list, values: list[float]) -> ua.WriteParameters:
    parameters = ua.WriteParameters()
    for node_id, value in zip(node_ids, values, strict=True):
        item = ua.WriteValue()
        item.NodeId = node_id
        item.AttributeId = ua.AttributeIds.Value
        # value only (SPEC §3): no timestamps (several servers reject writes that carry
        # them) and no StatusCode, which python-opcua would otherwise encode as Good
        item.Value = ua.DataValue(ua.Variant(value, ua.VariantType.Double))
        item.Value.StatusCode = None
        parameters.NodesToWrite.append(item)
    return parameters
