package org.uabench.milo;

import java.math.BigDecimal;
import java.util.List;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;

/**
 * SPEC §3 W1: judges a value session 0 read back under load, right after its write k succeeded.
 * The write workload puts `s·1e9 + m` on the node at position `m mod len(nodes)` (session s,
 * value m = request·nodes_per_request + j), so a value read back names the write that put it
 * there: it must be one of this run's writes to this node, and not one of session 0's writes
 * that had completed before write k was sent (their index is below C, the lowest request of
 * session 0 still in flight then), since a later write had overwritten them.
 *
 * <p>Stateless after construction: the caller keeps k and C per read-back.
 */
final class ReadBackVerification {

  private static final long SESSION_STRIDE = 1_000_000_000L;

  private final String[] nodes;
  private final int sessions;
  private final int nodesPerRequest;

  ReadBackVerification(List<String> nodes, int sessions, int nodesPerRequest) {
    this.nodes = nodes.toArray(String[]::new);
    this.sessions = sessions;
    this.nodesPerRequest = nodesPerRequest;
  }

  /**
   * The failure of the value read back at `position` of the node list, or null if it passes;
   * `k` is the sampled write, `lowestInFlight` its C.
   */
  String judge(int position, DataValue value, long k, long lowestInFlight) {
    StatusCode status = value.getStatusCode();
    if (status == null || !status.isGood()) {
      return failed(position, Sessions.statusName(status == null ? StatusCode.BAD.getValue() : status.getValue()));
    }
    Object got = value.getValue().getValue();
    if (!(got instanceof Double number)) {
      return failed(position, Verify.show(got) + ", which no write of this run put there");
    }
    double v = number;
    if (!(v >= 0) || v != Math.rint(v) || v >= (double) sessions * SESSION_STRIDE) {
      return failed(position, plain(v) + ", which no write of this run put there");
    }
    long whole = (long) v;
    long s = whole / SESSION_STRIDE;
    long m = whole % SESSION_STRIDE;
    if (!nodes[(int) (m % nodes.length)].equals(nodes[position])) {
      return failed(position, plain(v) + ", which no write of this run put there");
    }
    long write = m / nodesPerRequest;
    if (s == 0 && write < lowestInFlight) {
      return failed(
          position,
          "session 0's write " + write + ", but its writes before " + lowestInFlight
              + " had completed when write " + k + " was sent");
    }
    return null;
  }

  /** A value at `position` that could not be read back (a failed or unanswered Read). */
  String failed(int position, String error) {
    return "read-back of " + nodes[position] + ": " + error;
  }

  /** 17.5 as "17.5" and 1000004711 as "1000004711", not Java's "1.000004711E9". */
  private static String plain(double v) {
    return Double.isFinite(v) ? BigDecimal.valueOf(v).stripTrailingZeros().toPlainString() : Double.toString(v);
  }
}
