// The timeline of SPEC §6 through this adapter's own module, against the reference's rules:
// windows from the start of warm-up, completions counted by completion time, the arrays cut
// or padded to end at the record's end_ns.
import assert from "node:assert/strict";
import { test } from "node:test";
import { wallNs } from "../clock.js";
import { Recorder } from "../recorder.js";
import { Timeline } from "../timeline.js";

test("the timeline counts successful completions per window from the start of warm-up", () => {
  const timeline = new Timeline(100);
  const start = 5e9;
  const window = 1e8;
  timeline.begin(start, 2.5 * window);
  for (const [at, values] of [[start - 1, 7], [start, 1], [start + window - 1, 2], [start + window, 3],
    [start + 2 * window + 1, 4], [start + 3 * window, 9]]) timeline.completed(at, values);
  const startWall = wallNs(start);
  const record = timeline.record(startWall + 250_000_000n);
  assert.deepEqual(record, { window_ms: 100, start_ns: startWall, ops: [2, 1, 1], values: [3, 3, 4] });
  assert.deepEqual(timeline.record(startWall + 100_000_000n).ops, [2]);
  assert.deepEqual(timeline.record(startWall + 400_000_000n).ops, [2, 1, 1, 0]);
  assert.deepEqual(new Timeline().record(42n), { window_ms: 100, start_ns: 42n, ops: [], values: [] });
});

test("the recorder's result carries the timeline with the configured window", () => {
  const recorder = new Recorder(10);
  recorder.timeline.begin(1e9, 5e7);
  recorder.startNs = wallNs(1e9 + 2e7);
  recorder.endNs = wallNs(1e9 + 5e7);
  recorder.timeline.completed(1e9 + 2.5e7, 4);
  const { timeline } = recorder.result("node-opcua", "x", "client", { workload: "read" });
  assert.equal(timeline.window_ms, 10);
  assert.equal(timeline.start_ns, wallNs(1e9));
  assert.deepEqual(timeline.ops, [0, 0, 1, 0, 0]);
  assert.deepEqual(timeline.values, [0, 0, 4, 0, 0]);
});
