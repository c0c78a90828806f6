// The read verification rules that span values (SPEC §3, R1–R4): the ticks of one response
// agree (R1), are not older than what the session had received before sending the request (R2),
// advance over the measured phase (R3: counted here, judged by the harness) and carry a
// plausible SourceTimestamp (R4). R5 (wire types) is verifyValue's; only values that passed it
// reach this module. R2 compares against the session's high-water tick as it was when the
// request was sent (sentAfter()), so responses to concurrent requests may be judged in any order.
import { TICK_MODULUS } from "./model.js";
import { verifyValue } from "./verify.js";

const HALF = TICK_MODULUS / 2;
// A SourceTimestamp may run ahead of the client's receive time by this much (clock skew).
const FUTURE_SLACK_MS = 1000;
const NONE = -1;
// The null DateTime (OPC 10000-6 §5.2.2.5: 1601-01-01, 0 on the wire): a value without a
// SourceTimestamp. Any later instant is one, 1970 or before too.
const NULL_DATETIME_MS = Date.UTC(1601, 0, 1);

export const carriesTick = (node) => node === "Tick" || node.startsWith("Signal_");

/**
 * SPEC §3 subscribe: [tick gaps, duplicates] an item's update with tick `next` adds after one
 * with tick `last` (both mod 16384): a forward step d adds d − 1 gaps, the same tick one
 * duplicate, an older tick (a restarted server, a republished notification) neither.
 */
export function tickStep(last, next) {
  const step = (((next - last) % TICK_MODULUS) + TICK_MODULUS) % TICK_MODULUS;
  if (step === 0) return [0, 1];
  return step < HALF ? [step - 1, 0] : [0, 0];
}

/**
 * One session's state, since the rules hold per session: typed arrays sized by the node list
 * once, so judging a value allocates nothing but a failure message.
 */
export class TickVerification {
  constructor(nodes) {
    const distinct = [...new Set(nodes.filter(carriesTick))];
    // Per position in the node list: its slot (a distinct Tick or Signal_i node), or -1.
    this.slotOf = Int32Array.from(nodes, (node) => distinct.indexOf(node));
    this.names = distinct;
    this.isTick = distinct.map((node) => node === "Tick");
    // Per slot: the furthest tick seen, its SourceTimestamp (ms), the measured forward steps.
    this.last = new Float64Array(distinct.length).fill(NONE);
    this.lastSource = new Float64Array(distinct.length);
    this.advanced = new Float64Array(distinct.length);
    // R2: the highest tick (mod the modulus) of any Tick or Signal this session has judged.
    this.highWater = NONE;
  }

  /**
   * The session's high-water tick now, or -1 before any: taken when a request is sent and passed
   * back to judge() with its response. Every value it reflects arrived before the send.
   */
  sentAfter() {
    return this.highWater;
  }

  /**
   * The Tick of one response, or -1 when it read none: dataValues[j] is the value of position
   * (first + j) mod len(nodes). A Tick of the wrong type counts as absent (R5 reports it).
   */
  responseTick(first, dataValues) {
    for (let j = 0; j < dataValues.length; j++) {
      const slot = this.slotOf[(first + j) % this.slotOf.length];
      if (slot >= 0 && this.isTick[slot] && verifyValue("Tick", dataValues[j].value) === null) {
        return dataValues[j].value.value;
      }
    }
    return NONE;
  }

  /**
   * Judges one value that passed R5 and moves its node's state on; returns null or the failure.
   * responseTick: the Tick of the same response or -1; sentAfter: sentAfter() when its request
   * was sent; receivedMs: the client's receive time; measured: whether its forward steps count
   * towards ticks_advanced.
   */
  judge(position, dataValue, responseTick, sentAfter, receivedMs, measured) {
    const slot = this.slotOf[position];
    if (slot < 0) return null;
    const node = this.names[slot];
    const tick = this.isTick[slot] ? dataValue.value.value : dataValue.value.value % TICK_MODULUS;
    const wrapped = tick % TICK_MODULUS;
    // R2's high-water tick moves on to every value that arrived (whatever else it fails) when it
    // is a forward step from it, whatever order the responses are judged in.
    const beyond = this.highWater === NONE ? 1 : (wrapped - this.highWater + TICK_MODULUS) % TICK_MODULUS;
    if (beyond >= 1 && beyond < HALF) this.highWater = wrapped;
    const source = dataValue.sourceTimestamp?.getTime?.();
    if (!(source > NULL_DATETIME_MS)) return `${node}: no SourceTimestamp`;
    if (!this.isTick[slot] && responseTick >= 0) {
      // Within one update either way: an update may fall between the server reading the two
      // values, whichever of them it reads first.
      const now = responseTick % TICK_MODULUS;
      const ahead = (tick - now + TICK_MODULUS) % TICK_MODULUS;
      if (ahead > 1 && ahead < TICK_MODULUS - 1) {
        return `${node}: tick ${tick}, but Tick ${now} (mod ${TICK_MODULUS}) in the same response`;
      }
    }
    if (sentAfter !== NONE) {
      // Back by 0 or 1 is allowed: an update is not atomic across nodes (a server may set Tick
      // before the Signals), so a Signal may trail a Tick that arrived earlier by one update.
      const back = (sentAfter - wrapped + TICK_MODULUS) % TICK_MODULUS;
      if (back >= 2 && back < HALF) {
        return `${node}: tick ${wrapped}, but tick ${sentAfter} had arrived before this request was sent`;
      }
    }
    const failure = this.#advance(slot, node, tick, source, measured);
    if (failure === null && source > receivedMs + FUTURE_SLACK_MS) {
      return `${node}: SourceTimestamp ${((source - receivedMs) / 1000).toFixed(1)} s in the future`;
    }
    return failure;
  }

  /**
   * R3's forward steps and the ordering half of R4, per node. A forward step becomes the node's
   * furthest tick even when its SourceTimestamp is out of order, so one fault is one failure; a
   * value behind the furthest tick (an earlier request answered late, or a step back R2 judged)
   * leaves it.
   */
  #advance(slot, node, tick, source, measured) {
    const previous = this.last[slot];
    if (previous === NONE) {
      this.last[slot] = tick;
      this.lastSource[slot] = source;
      return null;
    }
    let step;
    if (this.isTick[slot]) {
      step = Math.max(0, tick - previous);
    } else {
      // A step forward is below half the modulus (SPEC §3 R3); exactly half is neither back nor
      // forward, so like a step back it neither counts nor becomes the furthest tick.
      const forward = (tick - previous + TICK_MODULUS) % TICK_MODULUS;
      step = forward < HALF ? forward : 0;
    }
    if (step === 0) return null;
    if (measured) this.advanced[slot] += step;
    const previousSource = this.lastSource[slot];
    this.last[slot] = tick;
    this.lastSource[slot] = source;
    return source < previousSource ? `${node}: tick ${tick} has an earlier SourceTimestamp than tick ${previous}` : null;
  }
}

/**
 * verification.ticks_advanced (SPEC §6) over sessions: the forward steps summed per node across
 * the sessions' states, the largest sum over nodes; 0 when no Tick or Signal was read.
 */
export function ticksAdvanced(states) {
  let best = 0;
  const slots = states.length ? states[0].advanced.length : 0;
  for (let slot = 0; slot < slots; slot++) {
    let sum = 0;
    for (const state of states) sum += state.advanced[slot];
    best = Math.max(best, sum);
  }
  return best;
}
