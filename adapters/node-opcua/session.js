// One uabench session: its own OPCUAClient, hence its own SecureChannel, plus a Session,
// and the namespace index of urn:uabench:model as this server numbers it.
import {
  AttributeIds, NodeId, NodeIdType, OPCUAClient, ReadRequest, ReadResponse, StatusCodes, TimestampsToReturn, VariableIds,
} from "node-opcua";
import { nowNs } from "./clock.js";
import { NAMESPACE_URI } from "./model.js";
import { ConnectError } from "./protocol.js";
import { MODE, POLICY } from "./security.js";

const CONNECT_TIMEOUT_MS = 10000;

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ConnectError(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class UaSession {
  constructor(config, keyPair, certificateManager) {
    const { security } = config;
    this.endpoint = config.endpoint;
    this.client = OPCUAClient.create({
      applicationName: "uabench node-opcua client",
      applicationUri: security.application_uri,
      securityPolicy: POLICY[security.policy],
      securityMode: MODE[security.mode],
      ...keyPair,
      clientCertificateManager: certificateManager,
      endpointMustExist: false,
      keepSessionAlive: true,
      // A failed connect is reported, not retried: the contract wants an answer within 10 s.
      connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 500 },
      // Longer than any subscription keep-alive interval (at most 3 x 60 s).
      requestedSessionTimeout: 600000,
    });
    this.session = null;
    this.namespaceIndex = -1;
    this.setupNs = 0;
  }

  async open() {
    try {
      await withTimeout(this.#connect(), CONNECT_TIMEOUT_MS, `connect to ${this.endpoint}`);
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
    const closing = (async () => {
      if (this.session) await this.session.close().catch(() => {});
      await this.client.disconnect().catch(() => {});
    })();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  }
}
