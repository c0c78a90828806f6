package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.junit.jupiter.api.Test;

/** The read verification rules R1–R4 of SPEC §3, each shown to pass and to fail. */
class TickVerificationTest {

  private static final long SECOND = 10_000_000L;
  private static final long T0 = TickVerification.receivedNow() - 100 * SECOND;
  private static final List<String> NODES = List.of("Tick", "Signal_3", "Real", "Signal_3");

  /** Position of Tick = 0, Signal_3 = 1 (and 3), Real = 2 (not tracked). */
  private static DataValue tick(long t, DateTime source) {
    return new DataValue(new Variant(uint(t)), StatusCode.GOOD, source, null);
  }

  private static DataValue signal(long t, DateTime source) {
    return new DataValue(new Variant(Model.signal(3, t)), StatusCode.GOOD, source, null);
  }

  private static DateTime at(long offset) {
    return new DateTime(T0 + offset);
  }

  /**
   * Judges one response of Tick (position 0) then Signal_3 (position 1), its request sent just
   * now; the first failure or null.
   */
  private static String response(TickVerification v, DataValue tick, DataValue signal, boolean measured) {
    DataValue[] values = {tick, signal};
    long responseTick = v.responseTick(values, 0);
    long sentAfter = v.sentAfter();
    long received = TickVerification.receivedNow();
    for (int j = 0; j < values.length; j++) {
      String failure =
          v.judge(j, values[j].getValue().getValue(), values[j].getSourceTime(), responseTick,
              sentAfter, received, measured);
      if (failure != null) {
        return failure;
      }
    }
    return null;
  }

  /** One value whose request was sent when the session's high-water tick was sentAfter. */
  private static String answer(TickVerification v, long sentAfter, int position, DataValue value) {
    return v.judge(
        position, value.getValue().getValue(), value.getSourceTime(), -1, sentAfter,
        TickVerification.receivedNow(), true);
  }

  /** One value whose request was sent just now. */
  private static String single(TickVerification v, int position, DataValue value) {
    return answer(v, v.sentAfter(), position, value);
  }

  @Test
  void healthyValuesPassAndMeasuredStepsCount() {
    TickVerification v = new TickVerification(NODES);
    assertNull(response(v, tick(10, at(0)), signal(10, at(0)), false));
    assertNull(response(v, tick(11, at(1)), signal(10, at(0)), false));
    assertNull(response(v, tick(13, at(3)), signal(13, at(3)), true));
    assertNull(response(v, tick(14, at(4)), signal(14, at(4)), true));
    // Warm-up steps do not count; 10 -> 13 -> 14 in the measured phase is 4 for both nodes.
    assertEquals(4, TickVerification.ticksAdvanced(List.of(v)));
    assertNull(v.judge(2, 1234.5f, null, -1, -1, TickVerification.receivedNow(), true));
  }

  @Test
  void r1SignalsAgreeWithTheTickOfTheirResponse() {
    TickVerification v = new TickVerification(NODES);
    assertNull(response(v, tick(25, at(0)), signal(24, at(0)), true));
    assertNull(response(v, tick(25, at(0)), signal(26, at(1)), true));
    assertEquals(
        "Signal_3: tick 28, but Tick 26 (mod 16384) in the same response",
        response(v, tick(26, at(1)), signal(28, at(1)), true));
    assertEquals(
        "Signal_3: tick 17, but Tick 25 (mod 16384) in the same response",
        response(new TickVerification(NODES), tick(25, at(0)), signal(17, at(0)), true));
    // Across the wrap: Tick 16384 is 0 mod 16384, a Signal at tick 16383 is one update behind.
    TickVerification wrap = new TickVerification(NODES);
    assertNull(response(wrap, tick(16384, at(0)), signal(16383, at(0)), true));
    assertNull(response(wrap, tick(16384, at(0)), signal(16385, at(1)), true));
  }

  @Test
  void r2ConcurrentRequestsAnsweredOutOfOrderPass() {
    TickVerification v = new TickVerification(NODES);
    assertEquals(-1, v.sentAfter());
    assertNull(single(v, 1, signal(10, at(0))));
    // Requests a and b both go out after tick 10 arrived; b's answer (tick 11) arrives after
    // a's (tick 14): arrival order goes back 3 updates, causal order does not.
    long a = v.sentAfter();
    long b = v.sentAfter();
    assertEquals(10, a);
    assertNull(answer(v, a, 1, signal(14, at(4))));
    assertNull(answer(v, b, 1, signal(11, at(1))));
    assertEquals(14, v.sentAfter());
    // A Signal may trail a Tick that arrived before its request by one update (the server sets
    // Tick before the Signals), not by two.
    assertNull(single(v, 0, tick(15, at(5))));
    assertNull(single(v, 1, signal(14, at(4))));
    assertEquals(15, v.sentAfter());
  }

  @Test
  void r2AResponseOlderThanOneThatArrivedBeforeItsRequestFails() {
    TickVerification v = new TickVerification(NODES);
    assertNull(single(v, 1, signal(40, at(0))));
    assertEquals(
        "Signal_3: tick 37, but tick 40 had arrived before this request was sent",
        single(v, 1, signal(37, at(0))));
    // Each later step back is found again: the high-water tick stays.
    assertEquals(
        "Signal_3: tick 38, but tick 40 had arrived before this request was sent",
        single(v, 1, signal(38, at(0))));
    // Across nodes: tick 40 of Signal_3 arrived, so a Tick of 38 (mod 16384) is two behind.
    assertEquals(
        "Tick: tick 38, but tick 40 had arrived before this request was sent",
        single(v, 0, tick(16384 + 38, at(0))));
    assertNull(single(v, 0, tick(39, at(0))));
    // Across the wrap: 16383 is two behind 1.
    TickVerification wrap = new TickVerification(List.of("Signal_3"));
    assertNull(single(wrap, 0, signal(16382, at(0))));
    assertNull(single(wrap, 0, signal(1, at(3))));
    assertEquals(3, TickVerification.ticksAdvanced(List.of(wrap)));
    assertEquals(
        "Signal_3: tick 16383, but tick 1 had arrived before this request was sent",
        single(wrap, 0, signal(16383, at(0))));
  }

  @Test
  void r3StepsSumPerNodeOverSessionsAndTheLargestNodeIsReported() {
    TickVerification a = new TickVerification(NODES);
    TickVerification b = new TickVerification(NODES);
    assertNull(single(a, 0, tick(1, at(0))));
    assertNull(single(a, 0, tick(4, at(3))));
    assertNull(single(b, 0, tick(2, at(1))));
    assertNull(single(b, 0, tick(4, at(3))));
    assertNull(single(b, 3, signal(3, at(2))));
    assertNull(single(b, 1, signal(4, at(3))));
    assertEquals(5, TickVerification.ticksAdvanced(List.of(a, b)));
    // Frozen values: no step at all.
    TickVerification frozen = new TickVerification(NODES);
    for (int i = 0; i < 5; i++) {
      assertNull(single(frozen, 0, tick(0, at(0))));
    }
    assertEquals(0, TickVerification.ticksAdvanced(List.of(frozen)));
    assertEquals(0, TickVerification.ticksAdvanced(List.of(new TickVerification(List.of("Real")))));
  }

  @Test
  void r5NamesTheWireTypeOfAWrongTick() {
    assertEquals(
        "Tick: got Int32 25, expected UInt32", Verify.forNode("Tick").apply(Integer.valueOf(25)));
    assertNull(Verify.forNode("Tick").apply(uint(25)));
  }

  @Test
  void r4SourceTimestampsArePresentNotInTheFutureAndOrderedWithTheTick() {
    TickVerification v = new TickVerification(NODES);
    assertEquals("Tick: no SourceTimestamp", single(v, 0, tick(1, null)));
    assertEquals("Signal_3: no SourceTimestamp", single(v, 1, signal(1, DateTime.MIN_VALUE)));
    DateTime future = new DateTime(TickVerification.receivedNow() + 23 * SECOND / 10);
    assertEquals("Signal_3: SourceTimestamp 2.3 s in the future", single(v, 1, signal(1, future)));
    DateTime soon = new DateTime(TickVerification.receivedNow() + SECOND / 2);
    assertNull(single(v, 1, signal(1, soon)));
    assertNull(single(v, 0, tick(40, at(40))));
    assertEquals(
        "Tick: tick 41 has an earlier SourceTimestamp than tick 40", single(v, 0, tick(41, at(39))));
    // The step still counts and moves the state on: one fault is one failure.
    assertNull(single(v, 0, tick(42, at(42))));
  }
}
