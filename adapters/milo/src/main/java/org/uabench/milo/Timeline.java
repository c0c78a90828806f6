package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The result record's timeline (SPEC §6): successful completions and their values per window of
 * timeline_ms from the start of the workload (warm-up included) to the end of the measured
 * phase. Completions arrive on the SDK's executor threads, so the counts are atomic arrays
 * allocated once at {@link #begin}: counting is an index and two atomic additions, no lock and
 * no allocation per operation.
 */
final class Timeline {

  private final int windowMs;
  private final long windowNs;
  private volatile long start;
  private volatile boolean begun;
  private volatile AtomicLongArray ops = new AtomicLongArray(0);
  private volatile AtomicLongArray values = new AtomicLongArray(0);

  Timeline(int windowMs) {
    this.windowMs = windowMs;
    this.windowNs = windowMs * 1_000_000L;
  }

  /** The workload starts at {@code start} (System.nanoTime) and runs {@code spanNs}. */
  void begin(long start, long spanNs) {
    int windows = (int) Math.max(0, (spanNs + windowNs - 1) / windowNs);
    this.start = start;
    values = new AtomicLongArray(windows);
    ops = new AtomicLongArray(windows);
    begun = true;
  }

  /** One operation completed successfully at {@code at} (System.nanoTime), carrying values. */
  void completed(long at, long valueCount) {
    AtomicLongArray counts = ops;
    long k = Math.floorDiv(at - start, windowNs);
    if (k >= 0 && k < counts.length()) {
      counts.incrementAndGet((int) k);
      values.addAndGet((int) k, valueCount);
    }
  }

  /**
   * The record's timeline, its windows cut or padded to end at the record's end_ns; {@code
   * startWallNs} is {@link #start()} on the record's clock. A timeline never begun starts at
   * end_ns, empty.
   */
  ObjectNode toJson(long startWallNs, long endWallNs) {
    long startNs = begun ? startWallNs : endWallNs;
    long span = endWallNs - startNs;
    long windows = span > 0 ? (span + windowNs - 1) / windowNs : 0;
    ObjectNode json = Protocol.object();
    json.put("window_ms", windowMs);
    json.put("start_ns", startNs);
    ArrayNode opsJson = json.putArray("ops");
    ArrayNode valuesJson = json.putArray("values");
    for (int k = 0; k < windows; k++) {
      boolean have = k < ops.length();
      opsJson.add(have ? ops.get(k) : 0);
      valuesJson.add(have ? values.get(k) : 0);
    }
    return json;
  }

  long start() {
    return start;
  }
}
