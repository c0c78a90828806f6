// The `client` role: opens the sessions, runs one workload through its phases and
// returns the result record.
import { wallNs } from "./clock.js";
import { Connection, RETRY_MS } from "./connection.js";
import { SessionLoad, makePhase } from "./load.js";
import { WriteReadBack } from "./readback.js";
import { Recorder } from "./recorder.js";
import { clientCertificateManager, makeWorkFolder, stageKeyPair } from "./security.js";
import { UaSession, useRequestTimeout } from "./session.js";
import { runSubscribe } from "./subscribe.js";
import { TickVerification, ticksAdvanced } from "./ticks.js";
import { readRequests, verifyWrites, writeRequests } from "./workloads.js";

// Sessions connect a few at a time: a thousand simultaneous RSA handshakes would push
// some past the connect timeout on a small machine.
const CONNECTING_AT_ONCE = 16;

async function openAll(sessions) {
  let next = 0;
  const opener = async () => {
    while (next < sessions.length) await sessions[next++].open();
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTING_AT_ONCE, sessions.length) }, opener));
}

async function runRequests(sessions, config, recorder) {
  const phase = makePhase(config.warmup_s, config.duration_s);
  recorder.timeline.begin(phase.start, phase.measureUntil - phase.start);
  const ticks = sessions.map(() => new TickVerification(config.nodes));
  // SPEC §3 W1: session 0 reads back a sample of its writes during the phase.
  const readBack = config.workload === "write" && config.verify ? new WriteReadBack(sessions[0], config, recorder) : null;
  const loads = sessions.map((uaSession, index) => new SessionLoad({
    send: config.workload === "read"
      ? readRequests(uaSession, config, recorder, ticks[index])
      : writeRequests(uaSession, config, index),
    recorder, phase, index, readBack: index === 0 ? readBack : null,
    inFlight: config.in_flight, rate: config.rate, sessions: config.sessions, thinkMs: config.think_ms,
    retryMs: config.reconnect ? RETRY_MS : 0,
  }));
  await Promise.all(loads.map((load) => load.run()));
  for (const load of loads) load.abandon();
  recorder.ticksAdvanced = ticksAdvanced(ticks);
  if (config.workload === "write" && config.verify) await verifyWrites(sessions[0], config, recorder);
  return { phase, extra: {} };
}

export async function runClient(config, version) {
  const { security } = config;
  const folder = makeWorkFolder("client");
  const certificateManager = await clientCertificateManager(folder);
  const keyPair = security.certificate ? stageKeyPair(folder, security.certificate, security.private_key) : {};

  useRequestTimeout(config);
  // SPEC §3 Connection loss: every session's losses and restorations, from its set-up on.
  const connection = new Connection(config.sessions);
  const sessions = Array.from({ length: config.sessions },
    (_, index) => new UaSession(config, keyPair, certificateManager, index, connection));
  try {
    await openAll(sessions);
  } catch (error) {
    await Promise.all(sessions.map((s) => s.close()));
    throw error;
  }

  const recorder = new Recorder(config.timeline_ms, config.record_latencies === true);
  recorder.connection = connection;
  for (const session of sessions) recorder.sessionReady(session.setupNs);
  const { phase, extra } = config.workload === "subscribe"
    ? await runSubscribe(sessions, config, recorder, makePhase)
    : await runRequests(sessions, config, recorder);
  recorder.startNs = wallNs(phase.measureFrom);
  recorder.endNs = wallNs(phase.measureUntil);

  await Promise.all(sessions.map((s) => s.close()));
  await certificateManager.dispose().catch(() => {});
  return { ...recorder.result("node-opcua", version, "client", config), ...extra };
}
