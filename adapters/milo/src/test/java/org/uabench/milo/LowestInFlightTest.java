package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** W1's C: the lowest request still in flight, whatever order requests complete in. */
class LowestInFlightTest {

  @Test
  void theLowestOutstandingRequestOrTheGivenOneWhenNone() {
    LowestInFlight inFlight = new LowestInFlight(3);
    assertEquals(7, inFlight.lowest(7));
    inFlight.sent(0);
    inFlight.sent(1);
    inFlight.sent(2);
    inFlight.completed(1);
    assertEquals(0, inFlight.lowest(9), "1 completed, 0 still in flight");
    inFlight.completed(0);
    assertEquals(2, inFlight.lowest(9));
    inFlight.completed(5);
    assertEquals(2, inFlight.lowest(9), "an index never sent changes nothing");
    inFlight.completed(2);
    assertEquals(9, inFlight.lowest(9));
  }

  /** Against a TreeSet, over many compactions: one request stuck while thousands pass it. */
  @Test
  void agreesWithASortedSetOverRandomCompletions() {
    int inFlightMax = 8;
    LowestInFlight inFlight = new LowestInFlight(inFlightMax);
    TreeSet<Long> expected = new TreeSet<>();
    ArrayDeque<Long> outstanding = new ArrayDeque<>();
    Random random = new Random(12);
    long next = 0;
    for (int step = 0; step < 20_000; step++) {
      if (outstanding.size() < inFlightMax && (outstanding.isEmpty() || random.nextBoolean())) {
        inFlight.sent(next);
        expected.add(next);
        outstanding.add(next++);
      } else {
        // Complete any but request 3, which stays in flight to the end.
        Long[] open = outstanding.toArray(Long[]::new);
        long k = open[random.nextInt(open.length)];
        if (k == 3) {
          continue;
        }
        outstanding.remove(k);
        expected.remove(k);
        inFlight.completed(k);
      }
      assertEquals(expected.isEmpty() ? next : expected.first(), inFlight.lowest(next));
    }
    assertEquals(3, inFlight.lowest(next));
  }
}
