// SPEC §3 W1, writes read back under load: the judge of one value read back (readback.js), each
// rule shown to pass and to fail, and the load driver's part (load.js): which writes are read
// back, the C each keeps, and a drain that waits for the Reads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, DataValue, StatusCodes } from "node-opcua";
import { SessionLoad, makePhase } from "../load.js";
import { writeValue } from "../model.js";
import { judgeReadBack, readBackSampled } from "../readback.js";
import { Recorder } from "../recorder.js";

// Ten nodes, two per request, two sessions: request k of a session writes positions 2k mod 10, +1.
const NODES = Array.from({ length: 10 }, (_, i) => `Write_${i}`);
const LAYOUT = { nodes: NODES, sessions: 2, nodes_per_request: 2 };

const double = (value) => new DataValue({ value: { dataType: DataType.Double, value } });
/** Judges `dataValue` read back from Write_3 after session 0's write 4863, sent while 4796 was in flight. */
const judge = (dataValue, node = "Write_3") => judgeReadBack(node, dataValue, LAYOUT, 4863, 4796);
// The value request k of session s put on Write_3 (the second of its pair, for k mod 5 = 1).
const onWrite3 = (s, k) => double(writeValue(s, k, 2, 1));

test("a value of this run's writes passes: session 0's since C, any of another session's", () => {
  assert.equal(judge(onWrite3(0, 4796)), null);
  assert.equal(judge(onWrite3(0, 4801)), null);
  assert.equal(judge(onWrite3(0, 4871)), null); // written after write 4863: still since C
  assert.equal(judge(onWrite3(1, 1)), null); // other sessions' writes may be older or newer
  assert.equal(judge(onWrite3(1, 99_991)), null);
  // Nodes may repeat in the list: position 9602 mod 11 = 10 is a second Write_3.
  const twice = { ...LAYOUT, nodes: [...NODES, "Write_3"] };
  assert.equal(judgeReadBack("Write_3", double(writeValue(0, 4801, 2, 0)), twice, 4863, 4796), null);
});

test("a Bad status fails, naming it", () => {
  const bad = new DataValue({ statusCode: StatusCodes.BadNodeIdUnknown });
  assert.equal(judge(bad), "read-back of Write_3: BadNodeIdUnknown");
});

test("a value no write of this run put on the node fails", () => {
  const fails = (dataValue, shown) => assert.equal(judge(dataValue), `read-back of Write_3: ${shown}, which no write of this run put there`);
  fails(double(17.5), "17.5");
  fails(double(-100001.25), "-100001.25"); // the pattern of a write verification after the phase
  fails(double(0), "0"); // the initial value: position 0, Write_0's
  fails(double(writeValue(0, 4802, 2, 0)), "9604"); // written to Write_4, not here
  fails(double(writeValue(2, 4801, 2, 1)), "2000009603"); // a session this run does not have
  fails(new DataValue({ value: { dataType: DataType.Float, value: 9603 } }), "Float 9603");
  fails(new DataValue({ value: { dataType: DataType.Null } }), "Null null");
});

test("a value of session 0's that an earlier completed write had put there fails", () => {
  assert.equal(judge(onWrite3(0, 4791)),
    "read-back of Write_3: session 0's write 4791, but its writes before 4796 had completed when write 4863 was sent");
  assert.equal(judge(onWrite3(0, 1)),
    "read-back of Write_3: session 0's write 1, but its writes before 4796 had completed when write 4863 was sent");
});

test("session 0's requests k mod 64 = 63 of the measured phase are read back", () => {
  assert.deepEqual([63, 127, 64 * 1000 + 63].map((k) => readBackSampled(k, true)), [true, true, true]);
  assert.deepEqual([0, 62, 64, 126].map((k) => readBackSampled(k, true)), [false, false, false, false]);
  assert.equal(readBackSampled(63, false), false); // warm-up, or scheduled after the phase
});

/**
 * Session 0's load in a closed loop, each write answered after a delay that varies, so answers
 * arrive out of order; the read-back records what the load hands it.
 */
async function closedLoop(inFlight) {
  const sent = [];
  const completed = new Set();
  const started = [];
  const delays = [7, 1, 4, 0, 9, 2];
  const send = (k) => {
    sent.push({ k, completedBefore: new Set(completed) });
    return new Promise((resolve) => setTimeout(() => {
      completed.add(k);
      resolve({ ok: k % 128 !== 127, values: 2, error: "BadOutOfService" });
    }, delays[k % delays.length]));
  };
  let reads = 0;
  const readBack = {
    sampled: readBackSampled,
    start(k, lowest) {
      reads += 1;
      started.push({ k, lowest });
      // The drain must wait for this Read, which answers after the end of the phase.
      this.done = new Promise((resolve) => setTimeout(() => { reads -= 1; resolve(); }, 500));
    },
    settled() {
      return this.done;
    },
    abandon() {},
  };
  const phase = makePhase(0, 0.6);
  const load = new SessionLoad({ send, recorder: new Recorder(), phase, inFlight, rate: null, sessions: 1, index: 0, readBack });
  await load.run();
  return { sent, started, readsInFlight: reads };
}

test("the load reads back every 64th succeeded write with the lowest write in flight when it was sent", async () => {
  const { sent, started, readsInFlight } = await closedLoop(3);
  assert.ok(started.length >= 1, `${sent.length} writes, none read back`);
  assert.equal(readsInFlight, 0, "the drain did not wait for the read-backs");
  const expected = sent.filter(({ k }) => k % 64 === 63 && k % 128 !== 127).map(({ k }) => k);
  assert.deepEqual(started.map(({ k }) => k).sort((a, b) => a - b), expected);
  for (const { k, lowest } of started) {
    const { completedBefore } = sent[k];
    // Every write before C had completed when k was sent; C itself had not (or C = k).
    for (let j = 0; j < lowest; j++) assert.ok(completedBefore.has(j), `write ${j} < C ${lowest} was in flight when ${k} was sent`);
    assert.ok(lowest === k || !completedBefore.has(lowest), `C ${lowest} of write ${k} had completed`);
    assert.ok(lowest <= k, `C ${lowest} of write ${k}`);
  }
});
