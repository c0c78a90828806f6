// The `server` role: an OPCUAServer with the standard address space and the endpoints
// the config asks for.
import { OPCUAServer, adjustLimitsWithParameters, nodesets } from "node-opcua";
import { buildAddressSpace } from "./addressSpace.js";
import { emit } from "./protocol.js";
import { MODE, POLICY, makeWorkFolder, serverCertificateManager, stageKeyPair } from "./security.js";

// Limits raised to the contract's ranges (1000 sessions per client, 1000 subscriptions per
// session) so that node-opcua's small defaults (10 sessions) do not cap a benchmark.
const CAPACITY = {
  maxSessions: 5000,
  maxSubscriptions: 100000,
  maxSubscriptionsPerSession: 1000,
  maxMonitoredItems: 50000000,
  maxMonitoredItemsPerSubscription: 1000000,
  operationLimits: { maxNodesPerRead: 10000, maxNodesPerWrite: 10000, maxMonitoredItemsPerCall: 100000 },
};

// SPEC §3 "Message sizes" (at least 8 MiB). node-opcua's server grants 16 MiB to a client whose
// Hello sets no limit, but only 256 chunks of it, which at the smallest chunk size (8 KiB) is
// 2 MiB. These are node-opcua's own transport parameters (server_tcp_transport.ts) with the
// default chunk count raised so that 16 MiB fits in chunks of any size; a client that asks
// for a limit still gets at most what it asked for.
const TRANSPORT_LIMITS = {
  minBufferSize: 8192,
  maxBufferSize: 8 * 64 * 1024,
  minMaxMessageSize: 128 * 1024,
  defaultMaxMessageSize: 16 * 1024 * 1024,
  maxMaxMessageSize: 128 * 1024 * 1024,
  minMaxChunkCount: 1,
  defaultMaxChunkCount: (16 * 1024 * 1024) / 8192,
  maxMaxChunkCount: 9000,
};

// node-opcua offers every (policy x mode) combination of the lists it is given; the
// contract's endpoint list is a set of pairs, so say so when that offers more.
function endpointOptions(endpoints) {
  const policies = [...new Set(endpoints.map((e) => e.policy))];
  const modes = [...new Set(endpoints.map((e) => e.mode))];
  const offered = policies.flatMap((p) => modes.filter((m) => (p === "None") === (m === "None")).map((m) => `${p}/${m}`));
  const asked = new Set(endpoints.map((e) => `${e.policy}/${e.mode}`));
  const extra = offered.filter((pair) => !asked.has(pair));
  if (extra.length) process.stderr.write(`node-opcua offers policy x mode products; also offering ${extra.join(", ")}\n`);
  return { securityPolicies: policies.map((p) => POLICY[p]), securityModes: modes.map((m) => MODE[m]) };
}

/** Serves until `lifecycle.stop()` (called on SIGTERM/SIGINT). */
export async function runServer(config, lifecycle) {
  const { security } = config;
  const folder = makeWorkFolder("server");
  const certificateManager = await serverCertificateManager(folder, security.trusted_certificates);
  const keyPair = security.certificate
    ? stageKeyPair(folder, security.certificate, security.private_key)
    : {};

  const server = new OPCUAServer({
    host: config.host,
    hostname: config.host,
    port: config.port,
    ...endpointOptions(security.endpoints),
    ...keyPair,
    serverCertificateManager: certificateManager,
    serverInfo: {
      applicationUri: security.application_uri,
      productUri: "urn:uabench:node-opcua",
      applicationName: { text: "uabench node-opcua server", locale: "en" },
    },
    maxConnectionsPerEndpoint: CAPACITY.maxSessions,
    serverCapabilities: CAPACITY,
    transportSettings: { adjustTransportLimits: (hello) => adjustLimitsWithParameters(hello, TRANSPORT_LIMITS) },
    // Namespace 0 first, then the config's companion models (SPEC §4 "Imported information
    // models"), loaded by node-opcua's own NodeSet2 loader in initialize(); a file it rejects
    // rejects initialize(), which main.js reports as a runtime error.
    nodesets: [nodesets.standard, ...config.nodesets],
  });
  await server.initialize();
  const updateLoop = buildAddressSpace(server.engine.addressSpace, config);
  await server.start();
  updateLoop.start();

  let stopping = false;
  lifecycle.stop = async () => {
    if (stopping) return;
    stopping = true;
    updateLoop.stop();
    // The contract allows 5 s for shutdown; do not let a slow session close hold us.
    setTimeout(() => process.exit(0), 3000).unref();
    try {
      await server.shutdown(0);
      await certificateManager.dispose();
    } catch (error) {
      process.stderr.write(`shutdown: ${error?.message ?? error}\n`);
    }
    process.exit(0);
  };
  emit({ event: "ready", endpoint: `opc.tcp://${config.host}:${config.port}`, pid: process.pid });
}
