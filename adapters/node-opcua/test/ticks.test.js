// The read verification rules R1–R4 of SPEC §3 (ticks.js), each shown to pass and to fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, DataValue } from "node-opcua";
import { signal } from "../model.js";
import { TickVerification, tickStep, ticksAdvanced } from "../ticks.js";

const T0 = Date.now() - 100_000;
// Positions: Tick 0, Signal_3 1 and 3, Real 2 (not tracked).
const NODES = ["Tick", "Signal_3", "Real", "Signal_3"];

const at = (offsetMs) => new Date(T0 + offsetMs);
const tick = (t, source) => new DataValue({ value: { dataType: DataType.UInt32, value: t }, sourceTimestamp: source });
const sig = (t, source) => new DataValue({ value: { dataType: DataType.Float, value: signal(3, t) }, sourceTimestamp: source });

/** One response of Tick (position 0) then Signal_3 (position 1), its request sent just now: its first failure or null. */
function response(v, values, measured = true) {
  const responseTick = v.responseTick(0, values);
  const sentAfter = v.sentAfter();
  const received = Date.now();
  for (let j = 0; j < values.length; j++) {
    const failure = v.judge(j, values[j], responseTick, sentAfter, received, measured);
    if (failure !== null) return failure;
  }
  return null;
}

/** One value whose request was sent when the session's high-water tick was sentAfter. */
const answer = (v, sentAfter, position, value) => v.judge(position, value, -1, sentAfter, Date.now(), true);
/** One value whose request was sent just now. */
const single = (v, position, value) => answer(v, v.sentAfter(), position, value);

test("healthy values pass and only measured steps count", () => {
  const v = new TickVerification(NODES);
  assert.equal(response(v, [tick(10, at(0)), sig(10, at(0))], false), null);
  assert.equal(response(v, [tick(11, at(1)), sig(10, at(0))], false), null);
  assert.equal(response(v, [tick(13, at(3)), sig(13, at(3))]), null);
  assert.equal(response(v, [tick(14, at(4)), sig(14, at(4))]), null);
  assert.equal(ticksAdvanced([v]), 4);
  assert.equal(single(v, 2, new DataValue({ value: { dataType: DataType.Float, value: 1234.5 } })), null);
});

test("R1: a Signal agrees with the Tick of its response within one update", () => {
  const v = new TickVerification(NODES);
  assert.equal(response(v, [tick(25, at(0)), sig(24, at(0))]), null);
  assert.equal(response(v, [tick(25, at(0)), sig(26, at(1))]), null);
  assert.equal(response(v, [tick(26, at(1)), sig(28, at(1))]),
    "Signal_3: tick 28, but Tick 26 (mod 16384) in the same response");
  assert.equal(response(new TickVerification(NODES), [tick(25, at(0)), sig(17, at(0))]),
    "Signal_3: tick 17, but Tick 25 (mod 16384) in the same response");
  const wrap = new TickVerification(NODES);
  assert.equal(response(wrap, [tick(16384, at(0)), sig(16383, at(0))]), null);
  assert.equal(response(wrap, [tick(16384, at(0)), sig(16385, at(1))]), null);
  // A Tick of the wrong type is no Tick for R1 (R5 reports it).
  const int32 = new DataValue({ value: { dataType: DataType.Int32, value: 25 }, sourceTimestamp: at(0) });
  assert.equal(new TickVerification(NODES).responseTick(0, [int32, sig(17, at(0))]), -1);
});

test("R2: concurrent requests answered out of order pass", () => {
  const v = new TickVerification(NODES);
  assert.equal(v.sentAfter(), -1);
  assert.equal(single(v, 1, sig(10, at(0))), null);
  // Requests a and b both go out after tick 10 arrived; b's answer (tick 11) arrives after a's
  // (tick 14): arrival order goes back 3 updates, causal order does not.
  const a = v.sentAfter();
  const b = v.sentAfter();
  assert.equal(a, 10);
  assert.equal(answer(v, a, 1, sig(14, at(4))), null);
  assert.equal(answer(v, b, 1, sig(11, at(1))), null);
  assert.equal(v.sentAfter(), 14);
  // A Signal may trail a Tick that arrived before its request by one update, not by two.
  assert.equal(single(v, 0, tick(15, at(5))), null);
  assert.equal(single(v, 1, sig(14, at(4))), null);
  assert.equal(v.sentAfter(), 15);
});

test("R2: a response older than one that arrived before its request was sent fails", () => {
  const v = new TickVerification(NODES);
  assert.equal(single(v, 1, sig(40, at(0))), null);
  assert.equal(single(v, 1, sig(37, at(0))), "Signal_3: tick 37, but tick 40 had arrived before this request was sent");
  // Each later step back is found again: the high-water tick stays.
  assert.equal(single(v, 1, sig(38, at(0))), "Signal_3: tick 38, but tick 40 had arrived before this request was sent");
  // Across nodes: tick 40 of Signal_3 arrived, so a Tick of 38 (mod 16384) is two behind.
  assert.equal(single(v, 0, tick(16384 + 38, at(0))), "Tick: tick 38, but tick 40 had arrived before this request was sent");
  assert.equal(single(v, 0, tick(39, at(0))), null);
  // Across the wrap: a forward step counts (3), and 16383 is two behind 1.
  const wrap = new TickVerification(["Signal_3"]);
  assert.equal(single(wrap, 0, sig(16382, at(0))), null);
  assert.equal(single(wrap, 0, sig(1, at(3))), null);
  assert.equal(ticksAdvanced([wrap]), 3);
  assert.equal(single(wrap, 0, sig(16383, at(0))), "Signal_3: tick 16383, but tick 1 had arrived before this request was sent");
});

test("R3: steps sum per node over sessions; the largest node is reported; frozen values give 0", () => {
  const a = new TickVerification(NODES);
  const b = new TickVerification(NODES);
  assert.equal(single(a, 0, tick(1, at(0))), null);
  assert.equal(single(a, 0, tick(4, at(3))), null);
  assert.equal(single(b, 0, tick(2, at(1))), null);
  assert.equal(single(b, 0, tick(4, at(3))), null);
  assert.equal(single(b, 3, sig(3, at(2))), null);
  assert.equal(single(b, 1, sig(4, at(3))), null);
  assert.equal(ticksAdvanced([a, b]), 5);
  const frozen = new TickVerification(NODES);
  for (let i = 0; i < 5; i++) assert.equal(single(frozen, 0, tick(0, at(0))), null);
  assert.equal(ticksAdvanced([frozen]), 0);
  assert.equal(ticksAdvanced([new TickVerification(["Real"])]), 0);
});

test("R4: SourceTimestamp present, not in the future, ordered with the tick", () => {
  const v = new TickVerification(NODES);
  assert.equal(single(v, 0, tick(1, null)), "Tick: no SourceTimestamp");
  assert.equal(single(v, 1, sig(1, new Date(Date.now() + 2300))), "Signal_3: SourceTimestamp 2.3 s in the future");
  assert.equal(single(v, 1, sig(1, new Date(Date.now() + 500))), null);
  assert.equal(single(v, 0, tick(40, at(40))), null);
  assert.equal(single(v, 0, tick(41, at(39))), "Tick: tick 41 has an earlier SourceTimestamp than tick 40");
  // The step still counts and moves the state on: one fault is one failure.
  assert.equal(single(v, 0, tick(42, at(42))), null);
});

test("subscribe's tick step: forward steps add gaps, the same tick a duplicate, an older tick neither", () => {
  assert.deepEqual(tickStep(5, 6), [0, 0]);
  assert.deepEqual(tickStep(5, 9), [3, 0]);
  assert.deepEqual(tickStep(5, 5), [0, 1]);
  assert.deepEqual(tickStep(16383, 1), [1, 0]);
  assert.deepEqual(tickStep(5, 5 + 8191), [8190, 0]);
  assert.deepEqual(tickStep(5, 5 + 8192), [0, 0]);
  assert.deepEqual(tickStep(900, 3), [0, 0]);
});
