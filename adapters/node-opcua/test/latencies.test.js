// SPEC v6 through this adapter's own modules: the record's `latencies` (record_latencies),
// the closed loop's think time (think_ms) and the config rule joining think_ms and rate.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clientConfig } from "../config.js";
import { bucket } from "../histogram.js";
import { LatencySeries } from "../latencies.js";
import { SessionLoad, makePhase } from "../load.js";
import { ConfigError } from "../protocol.js";
import { Recorder } from "../recorder.js";

const CLIENT = { endpoint: "opc.tcp://127.0.0.1:4840", workload: "read", nodes: ["Real"] };

test("the series grows past its first arrays and counts what exceeds its limit as truncated", () => {
  const series = new LatencySeries(3000);
  for (let i = 0; i < 3005; i++) series.append(i, i + 1);
  const { send_ns: sends, latency_ns: latencies, truncated } = series.record();
  assert.equal(sends.length, 3000);
  assert.equal(latencies.length, 3000);
  assert.equal(truncated, 5);
  assert.deepEqual([sends[0], sends[2999], latencies[2999]], [0, 2999, 3000]);
  assert.deepEqual(new LatencySeries().record(), { send_ns: [], latency_ns: [], truncated: 0 });
});

test("the recorder lists each succeeded measured request as its histogram counts it", () => {
  const recorder = new Recorder(100, true);
  recorder.timeline.begin(1e9, 1e9);
  recorder.operation(1500.7, true, 1, null, 1e9 + 2.5e8 + 0.4); // open loop: a fractional schedule
  recorder.operation(0, false, 0, "BadTimeout", 1e9 + 3e8); // a failure is not in the histogram
  recorder.operation(0.2, true, 1, null, 1e9 + 4e8);
  recorder.operation(123_456_789, true, 1, null, 1e9);
  const result = recorder.result("node-opcua", "x", "client", { workload: "read", record_latencies: true });
  assert.deepEqual(result.latencies, { send_ns: [250_000_000, 400_000_000, 0], latency_ns: [1500, 1, 123_456_789], truncated: 0 });
  const histogram = new Map();
  for (const value of result.latencies.latency_ns) histogram.set(bucket(value), (histogram.get(bucket(value)) ?? 0) + 1);
  assert.deepEqual([...histogram].sort((a, b) => a[0] - b[0]), result.latency_ns);
  assert.ok(!("latencies" in new Recorder().result("node-opcua", "x", "client", { workload: "read" })));
});

test("think_ms with a rate is a bad config naming think_ms; the defaults are filled", () => {
  assert.throws(() => clientConfig({ ...CLIENT, think_ms: 5, rate: 10 }),
    (error) => error instanceof ConfigError && error.message.includes("think_ms"));
  const filled = clientConfig({ ...CLIENT, rate: 10 });
  assert.deepEqual([filled.think_ms, filled.record_latencies], [0, false]);
  assert.equal(clientConfig({ ...CLIENT, think_ms: 5 }).think_ms, 5);
});

test("a closed-loop slot waits think_ms between a response and its next request, outside the latency", async () => {
  const thinkMs = 30;
  const recorder = new Recorder(100, true);
  const phase = makePhase(0, 0.3);
  recorder.timeline.begin(phase.start, phase.measureUntil - phase.start);
  const send = () => new Promise((resolve) => setTimeout(() => resolve({ ok: true, values: 1 }), 2));
  const load = new SessionLoad({ send, recorder, phase, inFlight: 1, rate: null, sessions: 1, index: 0, thinkMs });
  await load.run();
  const { send_ns: sends, latency_ns: latencies } = recorder.latencies.record();
  // at most one request per think time (without it, hundreds); at least two, however busy the
  // machine: the bounds judge the think time, not how fast this machine's timers are
  assert.ok(sends.length >= 2 && sends.length <= 10, `${sends.length} requests in 300 ms`);
  for (let i = 1; i < sends.length; i++) {
    assert.ok(sends[i] - sends[i - 1] >= thinkMs * 1e6 + latencies[i - 1], `request ${i} ${sends[i] - sends[i - 1]} ns after the one before`);
  }
  // were the think time inside the latency, every latency would hold it; a timer of 2 ms may
  // run late on a loaded machine, so one latency below it is the proof, not all of them
  assert.ok(Math.min(...latencies) < thinkMs * 1e6, "a latency holds the think time");
  assert.equal(recorder.succeeded, sends.length);
});
