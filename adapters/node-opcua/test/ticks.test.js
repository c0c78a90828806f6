// The read verification rules R1–R4 of SPEC §3 (ticks.js), each shown to pass and to fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, DataValue } from "node-opcua";
import { signal } from "../model.js";
import { TickVerification, ticksAdvanced } from "../ticks.js";

const T0 = Date.now() - 100_000;
// Positions: Tick 0, Signal_3 1 and 3, Real 2 (not tracked).
const NODES = ["Tick", "Signal_3", "Real", "Signal_3"];

const at = (offsetMs) => new Date(T0 + offsetMs);
const tick = (t, source) => new DataValue({ value: { dataType: DataType.UInt32, value: t }, sourceTimestamp: source });
const sig = (t, source) => new DataValue({ value: { dataType: DataType.Float, value: signal(3, t) }, sourceTimestamp: source });

/** One response of Tick (position 0) then Signal_3 (position 1): its first failure or null. */
function response(v, values, measured = true) {
  const responseTick = v.responseTick(0, values);
  const received = Date.now();
  for (let j = 0; j < values.length; j++) {
    const failure = v.judge(j, values[j], responseTick, received, measured);
    if (failure !== null) return failure;
  }
  return null;
}

const single = (v, position, value) => v.judge(position, value, -1, Date.now(), true);

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
  assert.equal(response(v, [tick(25, at(0)), sig(17, at(0))]),
    "Signal_3: tick 17, but Tick 25 (mod 16384) in the same response");
  const wrap = new TickVerification(NODES);
  assert.equal(response(wrap, [tick(16384, at(0)), sig(16383, at(0))]), null);
  assert.equal(response(wrap, [tick(16384, at(0)), sig(16385, at(1))]), null);
  // A Tick of the wrong type is no Tick for R1 (R5 reports it).
  const int32 = new DataValue({ value: { dataType: DataType.Int32, value: 25 }, sourceTimestamp: at(0) });
  assert.equal(new TickVerification(NODES).responseTick(0, [int32, sig(17, at(0))]), -1);
});

test("R2: ticks never go back by more than one update", () => {
  const v = new TickVerification(NODES);
  assert.equal(single(v, 1, sig(40, at(0))), null);
  assert.equal(single(v, 1, sig(39, at(0))), null);
  assert.equal(single(v, 1, sig(37, at(0))), "Signal_3: tick went back from 40 to 37");
  assert.equal(single(v, 0, tick(100, at(0))), null);
  assert.equal(single(v, 0, tick(99, at(0))), null);
  assert.equal(single(v, 0, tick(98, at(0))), "Tick: tick went back from 100 to 98");
  const wrap = new TickVerification(["Signal_3"]);
  assert.equal(single(wrap, 0, sig(16382, at(0))), null);
  assert.equal(single(wrap, 0, sig(1, at(3))), null);
  assert.equal(ticksAdvanced([wrap]), 3);
});

test("R3: steps sum per node over sessions; the largest node is reported; frozen values give 0", () => {
  const a = new TickVerification(NODES);
  const b = new TickVerification(NODES);
  assert.equal(single(a, 0, tick(1, at(0))), null);
  assert.equal(single(a, 0, tick(4, at(3))), null);
  assert.equal(single(b, 0, tick(2, at(1))), null);
  assert.equal(single(b, 0, tick(4, at(3))), null);
  assert.equal(single(b, 3, sig(1, at(0))), null);
  assert.equal(single(b, 1, sig(2, at(1))), null);
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
