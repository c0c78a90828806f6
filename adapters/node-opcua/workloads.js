// The requests of the `read` and `write` workloads (SPEC §3) for one session, and the
// write verification pass.
import { AttributeIds, ClientSecureChannelLayer, DataType, StatusCodes, Variant } from "node-opcua";
import { withTimeout } from "./session.js";
import { verifyValue } from "./verify.js";
import { writeValue, writeVerificationValue } from "./model.js";

// Requests repeat with period len(nodes)/gcd; keep their prepared node lists unless huge.
const MAX_CACHED_NODES = 1_000_000;

export function describeError(error) {
  return String(error?.message ?? error).split("\n")[0].slice(0, 200);
}

const firstBad = (statusCodes) => statusCodes.find((s) => !s.isGood());

/** Node names and NodeIds of request k: nodes[(k·n + j) mod len(nodes)], j < n. */
export class RequestNodes {
  constructor(uaSession, nodes, perRequest) {
    Object.assign(this, { uaSession, nodes, perRequest, cache: new Map(), cached: 0 });
    this.nodeIds = new Map(nodes.map((name) => [name, uaSession.nodeId(name)]));
  }

  of(k) {
    const start = (k * this.perRequest) % this.nodes.length;
    let batch = this.cache.get(start);
    if (batch) return batch;
    const names = [];
    for (let j = 0; j < this.perRequest; j++) names.push(this.nodes[(start + j) % this.nodes.length]);
    batch = { names, nodeIds: names.map((name) => this.nodeIds.get(name)) };
    if (this.cached + this.perRequest <= MAX_CACHED_NODES) {
      this.cache.set(start, batch);
      this.cached += this.perRequest;
    }
    return batch;
  }
}

/** ticks: this session's TickVerification (R1-R4 of SPEC §3 across values). */
export function readRequests(uaSession, config, recorder, ticks) {
  const requests = new RequestNodes(uaSession, config.nodes, config.nodes_per_request);
  return async (k) => {
    const { names, nodeIds } = requests.of(k);
    const first = (k * config.nodes_per_request) % config.nodes.length;
    // R2: what this session had received before the request goes out (SPEC §3).
    const sentAfter = ticks.sentAfter();
    let dataValues;
    try {
      dataValues = await uaSession.read(nodeIds.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value })));
    } catch (error) {
      return { ok: false, values: 0, error: describeError(error) };
    }
    const bad = dataValues.length === names.length ? firstBad(dataValues.map((dv) => dv.statusCode)) : StatusCodes.BadUnexpectedError;
    if (bad) return { ok: false, values: 0, error: bad.name };
    const check = config.verify
      ? (measured) => {
        const received = Date.now();
        const tick = ticks.responseTick(first, dataValues);
        for (let j = 0; j < names.length; j++) {
          const failure = verifyValue(names[j], dataValues[j].value)
            ?? ticks.judge((first + j) % config.nodes.length, dataValues[j], tick, sentAfter, received, measured);
          if (measured) recorder.verification(failure);
        }
      }
      : null;
    return { ok: true, values: names.length, check };
  };
}

function doubleWrite(nodeId, value) {
  return { nodeId, attributeId: AttributeIds.Value, value: { value: new Variant({ dataType: DataType.Double, value }) } };
}

export function writeRequests(uaSession, config, sessionIndex) {
  const requests = new RequestNodes(uaSession, config.nodes, config.nodes_per_request);
  const perRequest = config.nodes_per_request;
  return async (k) => {
    const { nodeIds } = requests.of(k);
    const nodesToWrite = nodeIds.map((nodeId, j) => doubleWrite(nodeId, writeValue(sessionIndex, k, perRequest, j)));
    let statusCodes;
    try {
      statusCodes = await uaSession.session.write(nodesToWrite);
    } catch (error) {
      return { ok: false, values: 0, error: describeError(error) };
    }
    const bad = statusCodes.length === nodeIds.length ? firstBad(statusCodes) : StatusCodes.BadUnexpectedError;
    return bad ? { ok: false, values: 0, error: bad.name } : { ok: true, values: nodeIds.length };
  };
}

/**
 * A request node-opcua holds while it reconnects has no timeout of its own (it is sent once the
 * session is restored): after the phase, the verification waits for an answer no longer than
 * the SDK's request timeout (its static default, or request_timeout_ms: session.js
 * useRequestTimeout; node-opcua gives none less than 5 s), and after one such wait sends
 * nothing more.
 */
class Bounded {
  constructor() {
    this.gaveUp = null;
  }

  /** send(): the SDK call's promise, made only when no earlier call went unanswered. */
  async call(send, what) {
    if (this.gaveUp) throw new Error(this.gaveUp);
    try {
      const { defaultTransactionTimeout, minTransactionTimeout } = ClientSecureChannelLayer;
      return await withTimeout(send(), Math.max(minTransactionTimeout, defaultTransactionTimeout), what, Error);
    } catch (error) {
      if (/no answer within/.test(error.message)) this.gaveUp = error.message;
      throw error;
    }
  }
}

/** After the measured phase: write a per-run pattern to every node, read it back, count differences. */
export async function verifyWrites(uaSession, config, recorder) {
  const pattern = (Date.now() % 1000) + 1;
  const nodes = config.nodes;
  const chunk = Math.min(config.nodes_per_request, 1000);
  const bounded = new Bounded();
  for (let from = 0; from < nodes.length; from += chunk) {
    const positions = [...Array(Math.min(chunk, nodes.length - from)).keys()].map((j) => from + j);
    const nodeIds = positions.map((i) => uaSession.nodeId(nodes[i]));
    try {
      const nodesToWrite = positions.map((i, j) => doubleWrite(nodeIds[j], writeVerificationValue(pattern, i)));
      await bounded.call(() => uaSession.session.write(nodesToWrite), "write");
    } catch (error) {
      recorder.error(`write verification: ${describeError(error)}`);
    }
  }
  for (let from = 0; from < nodes.length; from += chunk) {
    const positions = [...Array(Math.min(chunk, nodes.length - from)).keys()].map((j) => from + j);
    let dataValues;
    try {
      const nodesToRead = positions.map((i) => ({ nodeId: uaSession.nodeId(nodes[i]), attributeId: AttributeIds.Value }));
      dataValues = await bounded.call(() => uaSession.read(nodesToRead), "read");
    } catch (error) {
      for (const i of positions) recorder.verification(`${nodes[i]}: read-back failed: ${describeError(error)}`);
      continue;
    }
    positions.forEach((i, j) => {
      const expected = writeVerificationValue(pattern, i);
      const { statusCode, value } = dataValues[j];
      const ok = statusCode.isGood() && value?.dataType === DataType.Double && value.value === expected;
      recorder.verification(ok ? null : `${nodes[i]}: read back ${statusCode.isGood() ? value?.value : statusCode.name}, wrote ${expected}`);
    });
  }
}
