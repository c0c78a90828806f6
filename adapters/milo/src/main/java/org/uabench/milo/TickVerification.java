package org.uabench.milo;

import java.util.Arrays;
import java.util.List;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;

/**
 * The read verification rules that span values (SPEC §3, R1–R4): the ticks of one response agree
 * (R1), are not older than what the session had received before sending the request (R2),
 * advance over the measured phase (R3, counted here, judged by the harness) and carry a plausible
 * SourceTimestamp (R4). R5 (wire types) is {@link Verify}'s; only values that passed it reach this
 * class.
 *
 * <p>One instance per session, since the rules hold per session. Its arrays are sized by the node
 * list once, so judging a value allocates nothing but a failure message. The caller judges one
 * response at a time (holding this object's lock), in any order: R2 compares against the
 * session's high-water tick as it was when the request was sent ({@link #sentAfter()}), so a
 * server or a client pool that completes concurrent requests out of order is judged correctly.
 */
final class TickVerification {

  /** OPC UA DateTime units (100 ns) per second. */
  private static final long UNITS_PER_S = 10_000_000L;
  /** A SourceTimestamp may run ahead of the client's receive time by this much (clock skew). */
  private static final long FUTURE_SLACK = UNITS_PER_S;
  /** 1970-01-01 in OPC UA DateTime units (100 ns since 1601-01-01). */
  private static final long UNIX_EPOCH = 116_444_736_000_000_000L;
  private static final int MODULUS = Model.TICK_MODULUS;
  private static final int HALF = MODULUS / 2;
  private static final long NONE = -1;

  // Per position in the node list: its slot (a distinct Tick or Signal_i node), or -1.
  private final int[] slotOf;
  // Per slot: the node's name, whether it is Tick, the furthest tick seen and its
  // SourceTimestamp, and the forward steps seen in the measured phase.
  private final String[] names;
  private final boolean[] isTick;
  private final long[] last;
  private final long[] lastSource;
  private final long[] advanced;
  // R2: the highest tick (mod the modulus) of any Tick or Signal this session has judged, or
  // NONE. Written under the caller's lock; volatile so a sender reads it without taking it.
  private volatile long highWater = NONE;

  TickVerification(List<String> nodes) {
    slotOf = new int[nodes.size()];
    List<String> distinct =
        nodes.stream().filter(TickVerification::carriesTick).distinct().toList();
    for (int p = 0; p < slotOf.length; p++) {
      slotOf[p] = distinct.indexOf(nodes.get(p));
    }
    names = distinct.toArray(String[]::new);
    isTick = new boolean[names.length];
    for (int slot = 0; slot < names.length; slot++) {
      isTick[slot] = names[slot].equals("Tick");
    }
    last = new long[names.length];
    lastSource = new long[names.length];
    advanced = new long[names.length];
    Arrays.fill(last, NONE);
  }

  private static boolean carriesTick(String node) {
    return node.equals("Tick") || node.startsWith("Signal_");
  }

  /** The client's receive time, in DateTime units. Milliseconds suffice against a 1 s slack. */
  static long receivedNow() {
    return UNIX_EPOCH + System.currentTimeMillis() * (UNITS_PER_S / 1000);
  }

  /**
   * The session's high-water tick now, or -1 before any: taken when a request is sent and passed
   * back to {@link #judge} with its response. Every value it reflects arrived before the send.
   */
  long sentAfter() {
    return highWater;
  }

  /**
   * The Tick of one response, or -1 when it read none: values[j] is the value of position
   * (first + j) mod len(nodes). A Tick of the wrong type counts as absent (R5 reports it).
   */
  long responseTick(DataValue[] values, int first) {
    for (int j = 0; j < values.length; j++) {
      int slot = slotOf[(first + j) % slotOf.length];
      if (slot >= 0 && isTick[slot] && values[j].getValue().getValue() instanceof UInteger tick) {
        return tick.longValue();
      }
    }
    return NONE;
  }

  /**
   * Judges one value that passed R5 and moves its node's state on; returns null or the failure.
   * responseTick: the Tick of the same response, or -1; sentAfter: {@link #sentAfter()} when its
   * request was sent; received: receive time (DateTime units); measured: whether its forward
   * steps count towards ticks_advanced.
   */
  String judge(
      int position, Object value, DateTime source, long responseTick, long sentAfter,
      long received, boolean measured) {
    int slot = slotOf[position];
    if (slot < 0) {
      return null;
    }
    String node = names[slot];
    long tick =
        isTick[slot] ? ((UInteger) value).longValue() : ((Float) value).longValue() % MODULUS;
    long wrapped = tick % MODULUS;
    raiseHighWater(wrapped);
    long sourceTime = source == null ? 0 : source.getUtcTime();
    if (sourceTime <= 0) {
      return node + ": no SourceTimestamp";
    }
    if (!isTick[slot] && responseTick >= 0) {
      // Within one update either way: an update may fall between the server reading the
      // two values, whichever of them it reads first.
      long now = responseTick % MODULUS;
      long ahead = Math.floorMod(tick - now, MODULUS);
      if (ahead > 1 && ahead < MODULUS - 1) {
        return node + ": tick " + tick + ", but Tick " + now + " (mod " + MODULUS
            + ") in the same response";
      }
    }
    if (sentAfter != NONE) {
      // Back by 0 or 1 is allowed: an update is not atomic across nodes (Milo's server sets Tick
      // before the Signals), so a Signal may trail a Tick that arrived earlier by one update.
      long back = Math.floorMod(sentAfter - wrapped, MODULUS);
      if (back >= 2 && back < HALF) {
        return node + ": tick " + wrapped + ", but tick " + sentAfter
            + " had arrived before this request was sent";
      }
    }
    String failure = advance(slot, tick, sourceTime, measured);
    if (failure == null && sourceTime > received + FUTURE_SLACK) {
      failure =
          String.format(
              "%s: SourceTimestamp %.1f s in the future", node, (sourceTime - received) / 1e7);
    }
    return failure;
  }

  /**
   * R2: the high-water tick moves on to every value that arrived (whatever else it fails) when it
   * is a forward step from it, whatever order the responses are judged in.
   */
  private void raiseHighWater(long wrapped) {
    long high = highWater;
    long ahead = high == NONE ? 1 : Math.floorMod(wrapped - high, MODULUS);
    if (ahead >= 1 && ahead < HALF) {
      highWater = wrapped;
    }
  }

  /**
   * R3's forward steps and the ordering half of R4, per node. A forward step becomes the node's
   * furthest tick even when its SourceTimestamp is out of order, so one fault is one failure; a
   * value behind the furthest tick (an earlier request answered late, or a step back R2 judged)
   * leaves it.
   */
  private String advance(int slot, long tick, long sourceTime, boolean measured) {
    String node = names[slot];
    long previous = last[slot];
    if (previous == NONE) {
      last[slot] = tick;
      lastSource[slot] = sourceTime;
      return null;
    }
    long step;
    if (isTick[slot]) {
      step = Math.max(0, tick - previous);
    } else {
      // A step forward is below half the modulus (SPEC §3 R3); exactly half is neither back nor
      // forward, so like a step back it neither counts nor becomes the furthest tick.
      long forward = Math.floorMod(tick - previous, MODULUS);
      step = forward < HALF ? forward : 0;
    }
    if (step == 0) {
      return null;
    }
    if (measured) {
      advanced[slot] += step;
    }
    long previousSource = lastSource[slot];
    last[slot] = tick;
    lastSource[slot] = sourceTime;
    return sourceTime < previousSource
        ? node + ": tick " + tick + " has an earlier SourceTimestamp than tick " + previous
        : null;
  }

  /**
   * verification.ticks_advanced (SPEC §6) over sessions: the forward steps summed per node
   * across the sessions' states, the largest sum over nodes; 0 when no Tick or Signal was read.
   */
  static long ticksAdvanced(List<TickVerification> sessions) {
    long best = 0;
    int slots = sessions.isEmpty() ? 0 : sessions.get(0).advanced.length;
    for (int slot = 0; slot < slots; slot++) {
      long sum = 0;
      for (TickVerification session : sessions) {
        sum += session.advanced[slot];
      }
      best = Math.max(best, sum);
    }
    return best;
  }
}
