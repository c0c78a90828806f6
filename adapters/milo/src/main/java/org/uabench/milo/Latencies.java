package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;

/**
 * SPEC §6 `latencies` (record_latencies): every measured request the latency histogram counts,
 * its send instant after the timeline's start and its latency, in completion order. One instance
 * is shared by all sessions, so appends are synchronized (completions arrive on several threads);
 * an append is two array stores, the arrays grow by doubling up to {@link #MAX} entries, and
 * requests beyond that are only counted.
 */
final class Latencies {

  static final int MAX = 1_000_000;

  private long[] sendNs = new long[4096];
  private long[] latencyNs = new long[4096];
  private int size;
  private long truncated;

  /** One request: sent (open loop: scheduled) sendNs after the timeline's start. */
  synchronized void record(long sendNs, long latencyNs) {
    if (size == MAX) {
      truncated++;
      return;
    }
    if (size == this.sendNs.length) {
      int grown = Math.min(MAX, size * 2);
      this.sendNs = Arrays.copyOf(this.sendNs, grown);
      this.latencyNs = Arrays.copyOf(this.latencyNs, grown);
    }
    this.sendNs[size] = Math.max(0, sendNs);
    // The histogram counts a latency of 0 in the smallest bucket, 1.
    this.latencyNs[size] = Math.max(1, latencyNs);
    size++;
  }

  synchronized int size() {
    return size;
  }

  synchronized long truncated() {
    return truncated;
  }

  /** The record's `latencies` object; the arrays are serialised as JSON arrays of integers. */
  synchronized ObjectNode toJson() {
    ObjectNode json = Protocol.object();
    json.putPOJO("send_ns", Arrays.copyOf(sendNs, size));
    json.putPOJO("latency_ns", Arrays.copyOf(latencyNs, size));
    json.put("truncated", truncated);
    return json;
  }
}
