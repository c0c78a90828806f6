// contract/vectors/verification.json through this adapter's own verifiers, with node-opcua's
// DataValue types: the rules every client re-implements by hand (SPEC §3 R1–R4, W1 and its C,
// the subscription's lifetime count; §6 the timeline), replayed as the scripts the Python
// reference played, so this adapter is held to the reference's outputs, not to a copy of its rules.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DataType, DataValue, StatusCodes } from "node-opcua";
import { SCHEMA_DIR } from "../config.js";
import { InFlight } from "../load.js";
import { judgeReadBack } from "../readback.js";
import { lifetimeCount } from "../subscribe.js";
import { TickVerification, ticksAdvanced } from "../ticks.js";
import { Timeline } from "../timeline.js";

const VECTORS = path.resolve(SCHEMA_DIR, "..", "vectors");
const VERIFICATION = JSON.parse(fs.readFileSync(path.join(VECTORS, "verification.json"), "utf8"));

// What sentAfter() gives before any tick arrived: the vectors' request null (R2 judges by nothing).
const NONE_YET = -1;

/** A verdict against the vector's: null when it expects none, else a message holding every fragment. */
function expectFailure(failure, fragments, where) {
  if (fragments === null) {
    assert.equal(failure, null, where);
    return;
  }
  assert.notEqual(failure, null, `${where}: passed, expected ${JSON.stringify(fragments)}`);
  for (const fragment of fragments) {
    assert.ok(failure.includes(fragment), `${where}: ${JSON.stringify(failure)} lacks ${JSON.stringify(fragment)}`);
  }
}

/**
 * A value as node-opcua decodes a Read result: a Variant of the vector's DataType, the
 * SourceTimestamp a Date (the vectors' µs are whole ms), absent when source_us is null.
 */
const readValue = ({ type, value, source_us: sourceUs }) => new DataValue({
  value: { dataType: DataType[type], value },
  sourceTimestamp: sourceUs === null ? null : new Date(sourceUs / 1000),
});

test("read: R1–R4 through ticks.js, one TickVerification per session", async (t) => {
  for (const vector of VERIFICATION.read) {
    await t.test(vector.name, () => {
      const sessions = Array.from({ length: vector.sessions }, () => new TickVerification(vector.nodes));
      const kept = new Map(); // request -> sentAfter() at its send, as readRequests keeps it (R2's F)
      vector.steps.forEach((step, number) => {
        if (step.send) {
          kept.set(step.send.request, sessions[step.send.session].sentAfter());
          return;
        }
        const { session, request, first, received_us: receivedUs, measured, values, fails } = step.response;
        const ticks = sessions[session];
        const sentAfter = request === null ? NONE_YET : kept.get(request);
        kept.delete(request);
        const dataValues = values.map(readValue);
        const responseTick = ticks.responseTick(first, dataValues);
        dataValues.forEach((dataValue, j) => {
          const position = (first + j) % vector.nodes.length;
          assert.equal(vector.nodes[position], values[j].node, `step ${number} value ${j}: position`);
          // Warm-up values are judged too (measured only decides what counts): check them all.
          const failure = ticks.judge(position, dataValue, responseTick, sentAfter, receivedUs / 1000, measured);
          expectFailure(failure, fails[j], `step ${number} value ${j} (${values[j].node})`);
        });
      });
      assert.equal(ticksAdvanced(sessions), vector.ticks_advanced, "ticks_advanced");
    });
  }
});

test("read_back: W1's judgement of one value (readback.js)", async (t) => {
  for (const vector of VERIFICATION.read_back) {
    await t.test(vector.name, () => {
      const statusCode = StatusCodes[vector.status];
      assert.equal(statusCode.value, vector.status_code, vector.status);
      const dataValue = new DataValue({
        statusCode,
        ...(vector.value !== null && { value: { dataType: DataType[vector.type], value: vector.value } }),
      });
      // The vector carries the layout judgeReadBack takes: nodes, sessions, nodes_per_request.
      const failure = judgeReadBack(vector.node, dataValue, vector, vector.request, vector.lowest);
      expectFailure(failure, vector.fails, vector.node);
    });
  }
});

test("lowest_in_flight: W1's C as session 0's requests are sent and finish (load.js)", async (t) => {
  for (const vector of VERIFICATION.lowest_in_flight) {
    await t.test(vector.name, () => {
      const inFlight = new InFlight();
      const entries = new Map();
      for (const step of vector.steps) {
        if ("sent" in step) {
          const entry = inFlight.sent(true);
          assert.equal(entry.k, step.sent, "requests are numbered in the order they are sent");
          entries.set(entry.k, entry);
        } else if ("finished" in step) {
          inFlight.finished(entries.get(step.finished));
        } else {
          assert.equal(inFlight.lowest, step.lowest, JSON.stringify(step));
        }
      }
    });
  }
});

test("lifetime: the lifetime count a subscription asks for (subscribe.js)", async (t) => {
  for (const v of VERIFICATION.lifetime) {
    const name = `session timeout ${v.session_timeout_ms} ms, interval ${v.publishing_interval_ms} ms, `
      + `keep-alive count ${v.keep_alive_count}`;
    await t.test(name, () => {
      assert.equal(lifetimeCount(v.session_timeout_ms, v.publishing_interval_ms, v.keep_alive_count), v.lifetime_count);
    });
  }
});

test("timeline: the record's timeline (timeline.js)", async (t) => {
  for (const vector of VERIFICATION.timeline) {
    await t.test(vector.name, () => {
      const timeline = new Timeline(vector.window_ms);
      const { begin } = vector;
      if (begin !== null) timeline.begin(begin.start_ns, begin.span_ns, (ns) => BigInt(ns) + BigInt(begin.offset_ns));
      for (const [atNs, values] of vector.completions) timeline.completed(atNs, values);
      // The adapter's record holds Unix ns as BigInt (protocol.js prints them as digits).
      assert.deepEqual(timeline.record(BigInt(vector.end_ns)), { ...vector.record, start_ns: BigInt(vector.record.start_ns) });
    });
  }
});
