package org.uabench.milo;

import java.util.Arrays;

/**
 * The lowest request index of a session still in flight (SPEC §3 W1's C). Requests are added in
 * increasing index order and complete in any order.
 *
 * <p>Written here rather than taken from java.util: a TreeSet or skip list allocates a node per
 * request, and this runs on every write of session 0. The indices sit ascending in one array,
 * completed ones flagged in place and dropped from the front as the lowest completes; the array
 * is compacted when full. At most in_flight requests are outstanding, so with twice that capacity
 * a compaction frees at least half of it: O(1) amortized per request, O(log n) per completion.
 * Not thread-safe: the caller holds its session's lock, the same lock that allots indices.
 */
final class LowestInFlight {

  private long[] indices;
  private boolean[] done;
  // Entries [head, tail) of indices, ascending; done[i] flags the completed ones.
  private int head;
  private int tail;

  LowestInFlight(int inFlight) {
    int capacity = 2 * Math.max(1, inFlight);
    indices = new long[capacity];
    done = new boolean[capacity];
  }

  /** Request k was allotted; k is higher than every index added before. */
  void sent(long k) {
    if (tail == indices.length) {
      compact();
    }
    indices[tail++] = k;
  }

  /** Request k's response arrived (or it failed); an index not in flight is ignored. */
  void completed(long k) {
    int i = Arrays.binarySearch(indices, head, tail, k);
    if (i < 0 || done[i]) {
      return;
    }
    done[i] = true;
    while (head < tail && done[head]) {
      done[head++] = false;
    }
  }

  /** The lowest index still in flight, or `otherwise` if none is. */
  long lowest(long otherwise) {
    return head < tail ? indices[head] : otherwise;
  }

  private void compact() {
    int live = 0;
    for (int i = head; i < tail; i++) {
      if (!done[i]) {
        indices[live++] = indices[i];
      }
      done[i] = false;
    }
    head = 0;
    tail = live;
    if (tail == indices.length) {
      // More in flight than the capacity allows for: grow rather than lose one.
      indices = Arrays.copyOf(indices, 2 * indices.length);
      done = Arrays.copyOf(done, indices.length);
    }
  }
}
