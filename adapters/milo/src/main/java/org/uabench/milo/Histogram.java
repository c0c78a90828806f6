package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * Latency histogram of SPEC §5: a value's bucket is the value with all but its 8 most significant
 * bits cleared. Buckets live in a flat array (256 exact values, then 128 per power of two), so
 * recording is a few shifts and one increment. Not thread-safe: one per recording thread or lock.
 */
final class Histogram {

  private static final int EXACT = 256;
  private static final int PER_OCTAVE = 128;

  private final long[] counts = new long[EXACT + 56 * PER_OCTAVE];

  static long bucket(long valueNs) {
    long v = Math.max(1, valueNs);
    int shift = 64 - Long.numberOfLeadingZeros(v) - 8;
    return shift <= 0 ? v : (v >>> shift) << shift;
  }

  private static int index(long valueNs) {
    long v = Math.max(1, valueNs);
    int shift = 64 - Long.numberOfLeadingZeros(v) - 8;
    if (shift <= 0) {
      return (int) v;
    }
    return EXACT + (shift - 1) * PER_OCTAVE + (int) ((v >>> shift) - 128);
  }

  private static long value(int index) {
    if (index < EXACT) {
      return index;
    }
    int shift = (index - EXACT) / PER_OCTAVE + 1;
    long top = (index - EXACT) % PER_OCTAVE + 128;
    return top << shift;
  }

  void record(long valueNs) {
    counts[index(valueNs)]++;
  }

  void merge(Histogram other) {
    for (int i = 0; i < counts.length; i++) {
      counts[i] += other.counts[i];
    }
  }

  long total() {
    long total = 0;
    for (long count : counts) {
      total += count;
    }
    return total;
  }

  /** The sparse serialisation [[bucket_value_ns, count], ...], sorted, without zero counts. */
  ArrayNode toJson() {
    ArrayNode out = Protocol.JSON.createArrayNode();
    for (int i = 1; i < counts.length; i++) {
      if (counts[i] != 0) {
        out.addArray().add(value(i)).add(counts[i]);
      }
    }
    return out;
  }
}
