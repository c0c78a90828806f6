package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.eclipse.milo.opcua.stack.core.StatusCodes;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.junit.jupiter.api.Test;

/** SPEC §3 W1: a value read back under load passes only if a write of this run put it there. */
class ReadBackVerificationTest {

  // Write_3 sits at positions 1 and 3 (m mod 4 = 1 or 3); 2 nodes per request, 3 sessions.
  private static final List<String> NODES = List.of("Write_0", "Write_3", "Write_1", "Write_3");
  private static final ReadBackVerification JUDGE = new ReadBackVerification(NODES, 3, 2);
  // The sampled write and its C: session 0's writes below 4799 had completed when it was sent.
  private static final long K = 4863;
  private static final long C = 4799;

  private static String judge(int position, DataValue value) {
    return JUDGE.judge(position, value, K, C);
  }

  private static DataValue good(Object value) {
    return new DataValue(new Variant(value));
  }

  @Test
  void writesOfThisRunToThisNodePass() {
    assertNull(judge(1, good(4799.0 * 2 + 1)), "session 0's write C itself, at position 1");
    assertNull(judge(1, good(4863.0 * 2 + 1)), "the sampled write's own value");
    assertNull(judge(1, good(5000.0 * 2 + 3)), "a later write of session 0 to Write_3");
    assertNull(judge(3, good(4900.0 * 2 + 1)), "Write_3 at position 1 read at its position 3");
    assertNull(judge(0, good(4800.0 * 2)), "Write_0");
    assertNull(judge(1, good(1e9 + 5)), "session 1's write 2, older than C: its order is free");
    assertNull(judge(1, good(2e9 + 1)), "session 2, the last one");
  }

  @Test
  void aBadStatusFails() {
    assertEquals(
        "read-back of Write_3: BadNodeIdUnknown",
        judge(1, new DataValue(new StatusCode(StatusCodes.Bad_NodeIdUnknown))));
  }

  @Test
  void aValueNoWriteOfThisRunPutThereFails() {
    String none = ", which no write of this run put there";
    assertEquals("read-back of Write_3: 17.5" + none, judge(1, good(17.5)));
    assertEquals("read-back of Write_3: -100001.25" + none, judge(1, good(-100001.25)));
    assertEquals("read-back of Write_3: 9602" + none, judge(1, good(4801.0 * 2)), "Write_1's");
    assertEquals("read-back of Write_3: 3000000001" + none, judge(1, good(3e9 + 1)), "session 3");
    assertEquals("read-back of Write_3: NaN" + none, judge(1, good(Double.NaN)));
    assertEquals("read-back of Write_3: Float 9.0" + none, judge(1, good(9.0f)));
    assertEquals("read-back of Write_3: UInt32 9" + none, judge(1, good(uint(9))));
    assertEquals("read-back of Write_3: null" + none, judge(1, new DataValue(Variant.NULL_VALUE)));
  }

  @Test
  void aWriteOfSession0OverwrittenBeforeTheSampledWriteWasSentFails() {
    assertEquals(
        "read-back of Write_3: session 0's write 4798, but its writes before 4799 had completed"
            + " when write 4863 was sent",
        judge(1, good(4798.0 * 2 + 1)));
    assertEquals(
        "read-back of Write_0: session 0's write 0, but its writes before 4799 had completed"
            + " when write 4863 was sent",
        judge(0, good(0.0)),
        "the node's initial 0 is session 0's first write");
  }

  @Test
  void aReadThatFailedFailsEachValue() {
    assertEquals(
        "read-back of Write_1: not completed within 5 s after the measured phase",
        JUDGE.failed(2, "not completed within 5 s after the measured phase"));
  }
}
