// SPEC §3 W1, writes read back under load: session 0 reads back every 64th measured write as
// soon as it succeeded, so a server that answers Good to writes it loses or applies late under
// load fails (the read-back after the phase only sees an idle server). The Read takes no
// in_flight slot and is no operation; the drain waits for it (settled()).
import { AttributeIds, DataType, VariantArrayType } from "node-opcua";
import { describeVariant } from "./verify.js";
import { RequestNodes, describeError } from "./workloads.js";

const PERIOD = 64;
const SESSION_STRIDE = 1e9; // SPEC §3 Write: session s writes s·1e9 + k·nodes_per_request + j

/** Whether session 0's request k is read back: k mod 64 = 63, sent (scheduled) in the measured phase. */
export function readBackSampled(k, measured) {
  return measured && k % PERIOD === PERIOD - 1;
}

/**
 * Judges one value read back after session 0's write `k`, sent while `lowest` was the lowest
 * request index of session 0 in flight: null, or the failure. `layout` is the config's nodes,
 * sessions and nodes_per_request. Allocates nothing unless it fails.
 */
export function judgeReadBack(node, dataValue, layout, k, lowest) {
  const { statusCode, value: variant } = dataValue;
  if (!statusCode.isGood()) return `read-back of ${node}: ${statusCode.name}`;
  const double = variant?.dataType === DataType.Double && variant.arrayType === VariantArrayType.Scalar;
  // Other types' values (Int64 as [high, low], ByteStrings) are not decoded: they fail as they are.
  const v = double ? variant.value : NaN;
  const s = Math.floor(v / SESSION_STRIDE);
  const m = v - s * SESSION_STRIDE;
  // m below the stride: a write index beyond 1e9 / nodes_per_request is out of any run's reach,
  // and it makes (s, m) unique.
  if (!Number.isInteger(v) || v < 0 || s >= layout.sessions || layout.nodes[m % layout.nodes.length] !== node) {
    return `read-back of ${node}: ${double ? String(v) : describeVariant(variant)}, which no write of this run put there`;
  }
  const write = Math.floor(m / layout.nodes_per_request);
  if (s === 0 && write < lowest) {
    return `read-back of ${node}: session 0's write ${write}, but its writes before ${lowest} had completed when write ${k} was sent`;
  }
  return null;
}

/** Session 0's read-backs of one run: which writes are sampled, the Reads in flight, their verdicts. */
export class WriteReadBack {
  /** uaSession: session 0. */
  constructor(uaSession, config, recorder) {
    Object.assign(this, { uaSession, config, recorder });
    this.requests = new RequestNodes(uaSession, config.nodes, config.nodes_per_request);
    this.inFlight = new Set();
  }

  sampled(k, measured) {
    return readBackSampled(k, measured);
  }

  /** Write k succeeded: its Read goes out now. lowest: C, kept when write k was sent. */
  start(k, lowest) {
    const readBack = { k, lowest, abandoned: false, done: null };
    readBack.done = this.#read(readBack).finally(() => this.inFlight.delete(readBack));
    this.inFlight.add(readBack);
  }

  async #read(readBack) {
    const { names, nodeIds } = this.requests.of(readBack.k);
    let dataValues;
    let failure = null;
    try {
      dataValues = await this.uaSession.read(nodeIds.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value })));
      if (dataValues.length !== names.length) failure = `${dataValues.length} values for ${names.length} nodes`;
    } catch (error) {
      failure = describeError(error);
    }
    if (readBack.abandoned) return;
    for (let j = 0; j < names.length; j++) {
      this.recorder.readBack(failure === null
        ? judgeReadBack(names[j], dataValues[j], this.config, readBack.k, readBack.lowest)
        : `read-back of ${names[j]}: ${failure}`);
    }
  }

  /** Resolves when no read-back is in flight (one started meanwhile is waited for too). */
  async settled() {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight].map((readBack) => readBack.done));
  }

  /** At the end of the drain: each value of a Read still unanswered fails. */
  abandon() {
    for (const readBack of this.inFlight) {
      readBack.abandoned = true;
      for (const name of this.requests.of(readBack.k).names) {
        this.recorder.readBack(`read-back of ${name}: no response within 5 s after the measured phase`);
      }
    }
    this.inFlight.clear();
  }
}
