// One uabench session: its own OPCUAClient, hence its own SecureChannel, plus a Session,
// and the namespace index of urn:uabench:model as this server numbers it; it records its
// losses and restorations (SPEC §3 Connection loss) from node-opcua's own events.
import {
  AttributeIds, ClientSecureChannelLayer, NodeId, NodeIdType, OPCUAClient, ReadRequest, ReadResponse, StatusCodes,
  TimestampsToReturn, VariableIds,
} from "node-opcua";
import { nowNs } from "./clock.js";
import { NAMESPACE_URI } from "./model.js";
import { ConnectError } from "./protocol.js";
import { MODE, POLICY } from "./security.js";

const CONNECT_TIMEOUT_MS = 10000;
// node-opcua's own socket timeout (60 s), taken before useRequestTimeout may raise the static.
const TRANSPORT_TIMEOUT_MS = ClientSecureChannelLayer.defaultTransportTimeout;

/**
 * SPEC §3 request_timeout_ms as node-opcua's client options; {} for null (the SDK's defaults:
 * 15 s a request, 60 s the socket). defaultTransactionTimeout is every request's timeout but
 * Publish's (the publish engine sets its own timeoutHint): OpenSecureChannel, CreateSession and
 * ActivateSession too; node-opcua raises any below 5 s (minTransactionTimeout) to 5 s.
 * transportTimeout bounds the TCP connect (half of it) and the Hello/Acknowledge wait, but is
 * also the idle-socket timeout, so it is only ever raised above the SDK's 60 s, never lowered.
 */
export function timeoutOptions(config) {
  const ms = config.request_timeout_ms ?? null;
  if (ms === null) return {};
  return { defaultTransactionTimeout: ms, transportTimeout: Math.max(ms, TRANSPORT_TIMEOUT_MS) };
}

/**
 * Once per run, before any session connects: the endpoint fetcher node-opcua builds for a secure
 * connect (client_base_impl.ts __findEndpoint, a TmpClient) takes none of the client's options,
 * only ClientSecureChannelLayer's statics, so request_timeout_ms goes there too. null: untouched.
 */
export function useRequestTimeout(config) {
  const options = timeoutOptions(config);
  if (options.defaultTransactionTimeout === undefined) return;
  ClientSecureChannelLayer.defaultTransactionTimeout = options.defaultTransactionTimeout;
  ClientSecureChannelLayer.defaultTransportTimeout = options.transportTimeout;
}

/** promise, or a rejection with new Failure(`${what}: no answer within ... s`) after ms. */
export function withTimeout(promise, ms, what, Failure = ConnectError) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Failure(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The session timeout asked for: longer than any subscription keep-alive interval (at most
// 3 x 60 s), and the lifetime every subscription asks for at least (subscribe.js, SPEC §3).
export const SESSION_TIMEOUT_MS = 600000;

export class UaSession {
  /** index: the session's index in the run; connection: the run's Connection (connection.js). */
  constructor(config, keyPair, certificateManager, index = 0, connection = null) {
    const { security } = config;
    this.endpoint = config.endpoint;
    this.reconnect = config.reconnect === true;
    this.workload = config.workload;
    this.index = index;
    this.connection = connection;
    // subscribe: what became of this session's subscriptions when it is restored (subscribe.js).
    this.subscriptions = null;
    this.closing = false;
    // SPEC §2/§3: the whole set-up (connect .. namespace lookup) is bounded by 10 s, or by
    // request_timeout_ms when that is longer, so the SDK's own timeouts are not cut short.
    this.connectTimeoutMs = Math.max(CONNECT_TIMEOUT_MS, config.request_timeout_ms ?? 0);
    this.client = OPCUAClient.create({
      applicationName: "uabench node-opcua client",
      applicationUri: security.application_uri,
      securityPolicy: POLICY[security.policy],
      securityMode: MODE[security.mode],
      ...keyPair,
      clientCertificateManager: certificateManager,
      endpointMustExist: false,
      keepSessionAlive: true,
      requestedSessionTimeout: SESSION_TIMEOUT_MS,
      ...timeoutOptions(config),
    });
    // node-opcua reconnects by itself, with the connectionStrategy the client was created with
    // (its default: retry for ever, backing off from 1 s to 20 s), when that allows retries.
    // The first connect is never retried (a failed one is the contract's connect error within
    // connectTimeoutMs), so the default is kept aside here and put back once the session is up,
    // and only with `reconnect`: without it a lost connection stays lost, as before.
    this.reconnectStrategy = this.client.connectionStrategy;
    this.client.connectionStrategy = { ...this.reconnectStrategy, maxRetry: 0 };
    this.session = null;
    this.namespaceIndex = -1;
    this.setupNs = 0;
  }

  async open() {
    try {
      await withTimeout(this.#connect(), this.connectTimeoutMs, `connect to ${this.endpoint}`);
    } catch (error) {
      await this.close();
      if (error instanceof ConnectError) throw error;
      throw new ConnectError(`connect to ${this.endpoint}: ${String(error?.message ?? error).replace(/\s+/g, " ")}`);
    }
  }

  async #connect() {
    // SPEC §6 session set-up: connect (GetEndpoints, OpenSecureChannel) until
    // createSession has also activated the session; the namespace lookup is not included.
    const started = nowNs();
    await this.client.connect(this.endpoint);
    this.session = await this.client.createSession();
    this.setupNs = Math.max(1, nowNs() - started);
    const namespaces = await this.session.read({ nodeId: NodeId.resolveNodeId(VariableIds.Server_NamespaceArray), attributeId: AttributeIds.Value });
    const uris = namespaces.value?.value ?? [];
    this.namespaceIndex = uris.indexOf(NAMESPACE_URI);
    if (this.namespaceIndex < 0) throw new ConnectError(`server has no namespace ${NAMESPACE_URI} (NamespaceArray ${JSON.stringify(uris)})`);
    if (this.reconnect) this.client.connectionStrategy = this.reconnectStrategy;
    this.#watch();
  }

  /**
   * SPEC §3 Connection loss from node-opcua's events: the client's connection_lost (its
   * SecureChannel closed on an error), its close when the adapter did not close it, or the
   * session's keepalive_failure (the keep-alive read failed, after which node-opcua drops the
   * channel) is the loss; session_restored (the session reactivated or recreated and its
   * subscriptions repaired) the restoration. node-opcua takes a socket aborted on the client's
   * own host (ECONNABORTED, as `ss -K` does) for an orderly close: it emits close alone and
   * does not reconnect (tcp_transport.ts _on_socket_error ignores the error).
   */
  #watch() {
    const lost = () => {
      if (this.closing || !this.connection) return;
      if (!this.connection.isDown(this.index)) this.subscriptions?.lost();
      this.connection.markLost(this.index);
    };
    this.client.on("connection_lost", lost);
    this.client.on("close", lost);
    this.session.on("keepalive_failure", lost);
    this.session.on("session_restored", () => {
      if (this.closing || !this.connection) return;
      const fate = this.subscriptions ? this.subscriptions.restored() : this.workload === "subscribe" ? "unknown" : null;
      this.connection.markRestored(this.index, fate);
    });
  }

  /**
   * Read service with maxAge 0 and TimestampsToReturn Source (SPEC §3); ClientSession.read
   * would ask for Both. Resolves to the DataValues; rejects on a Bad service result.
   */
  async read(nodesToRead) {
    const request = new ReadRequest({ maxAge: 0, timestampsToReturn: TimestampsToReturn.Source, nodesToRead });
    const response = await this.session.performMessageTransaction(request);
    if (!(response instanceof ReadResponse)) throw new Error("unexpected response to Read");
    const serviceResult = response.responseHeader.serviceResult;
    if (serviceResult && serviceResult !== StatusCodes.Good && !serviceResult.isGood()) throw new Error(serviceResult.name);
    return response.results ?? [];
  }

  nodeId(name) {
    return new NodeId(NodeIdType.STRING, name, this.namespaceIndex);
  }

  async close() {
    this.closing = true;
    const closing = (async () => {
      if (this.session) await this.session.close().catch(() => {});
      await this.client.disconnect().catch(() => {});
    })();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  }
}
