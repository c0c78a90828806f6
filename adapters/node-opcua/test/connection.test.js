// SPEC §3 Connection loss and §6 `connection` through this adapter's own module, against the
// reference's rules: per session lost then restored, a session already lost not lost again,
// at most 100 events with the rest counted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CONNECTION_EVENTS, Connection, RETRY_MS } from "../connection.js";
import { SessionLoad, makePhase } from "../load.js";
import { Recorder } from "../recorder.js";

test("a run without a loss records none", () => {
  const { connection } = new Recorder().result("node-opcua", "x", "client", { workload: "read" });
  assert.deepEqual(connection, { lost: 0, restored: 0, events: [], truncated: 0 });
});

test("each session alternates lost and restored; repeats are ignored", () => {
  const c = new Connection(2);
  c.markRestored(0, null, 1n);
  c.markLost(1, 2n);
  c.markLost(1, 3n);
  assert.ok(c.isDown(1) && !c.isDown(0));
  c.markRestored(1, "recreated", 4n);
  c.markRestored(1, "recreated", 5n);
  assert.deepEqual(c.record(), {
    lost: 1, restored: 1, truncated: 0,
    events: [
      { t_ns: 2n, session: 1, state: "lost", subscriptions: null },
      { t_ns: 4n, session: 1, state: "restored", subscriptions: "recreated" },
    ],
  });
});

test("events past the first 100 are counted in truncated and in lost/restored", () => {
  const c = new Connection(1);
  for (let i = 0; i < 60; i++) {
    c.markLost(0);
    c.markRestored(0);
  }
  const record = c.record();
  assert.equal(record.events.length, CONNECTION_EVENTS);
  assert.deepEqual([record.lost, record.restored, record.truncated], [60, 60, 20]);
  assert.equal(typeof record.events[0].t_ns, "bigint");
});

test("with reconnect a closed-loop slot waits 10 ms after a failed request, not after a good one", async () => {
  const run = async (retryMs, ok) => {
    const recorder = new Recorder();
    const phase = makePhase(0, 0.2);
    recorder.timeline.begin(phase.start, phase.measureUntil - phase.start);
    const load = new SessionLoad({
      send: async () => ({ ok, values: ok ? 1 : 0, error: ok ? null : "BadConnectionClosed" }),
      recorder, phase, inFlight: 2, rate: null, sessions: 1, index: 0, retryMs,
    });
    await load.run();
    return recorder.attempted;
  };
  const failing = await run(RETRY_MS, false);
  assert.ok(failing >= 2 && failing <= 2 * (200 / RETRY_MS + 1), `${failing} failed requests in 200 ms`);
  assert.ok((await run(RETRY_MS, true)) > 10 * failing);
});
