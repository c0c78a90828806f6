package org.uabench.milo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.eclipse.milo.opcua.stack.core.types.enumerated.TimestampsToReturn;

/**
 * The write workload's verification pass (SPEC §3): after the measured phase, session 0 writes
 * -(100000·p + i) - 0.25 to the node at position i, reads every node back and counts each
 * read-back value that differs.
 */
final class WriteVerification {

  private WriteVerification() {}

  static void run(Config.Client config, Sessions.Session session, Recorder recorder)
      throws Exception {
    List<String> nodes = config.nodes();
    int pattern = (int) ((System.currentTimeMillis() / 1000) % 1000) + 1;
    // With a node listed twice, the write at its last position is the one that stays.
    Map<String, Double> expected = new HashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      expected.put(nodes.get(i), -(100000.0 * pattern + i) - 0.25);
    }
    Map<String, String> writeFailures = new HashMap<>();
    int chunk = config.nodesPerRequest();

    for (int from = 0; from < nodes.size(); from += chunk) {
      int to = Math.min(nodes.size(), from + chunk);
      List<NodeId> ids = new ArrayList<>();
      List<DataValue> values = new ArrayList<>();
      for (int i = from; i < to; i++) {
        ids.add(session.nodeId(nodes.get(i)));
        values.add(DataValue.valueOnly(new Variant(-(100000.0 * pattern + i) - 0.25)));
      }
      try {
        List<StatusCode> statuses =
            session.client().writeValuesAsync(ids, values).get(10, TimeUnit.SECONDS);
        for (int i = from; i < to; i++) {
          StatusCode status = statuses.get(i - from);
          if (status == null || !status.isGood()) {
            writeFailures.put(nodes.get(i), "write " + Sessions.statusName(status == null ? 0x80000000L : status.getValue()));
          }
        }
      } catch (Exception e) {
        for (int i = from; i < to; i++) {
          writeFailures.put(nodes.get(i), "write " + Sessions.describe(e));
        }
      }
    }

    for (int from = 0; from < nodes.size(); from += chunk) {
      int to = Math.min(nodes.size(), from + chunk);
      List<NodeId> ids = new ArrayList<>();
      for (int i = from; i < to; i++) {
        ids.add(session.nodeId(nodes.get(i)));
      }
      List<DataValue> values;
      try {
        values = session.client().readValuesAsync(0.0, TimestampsToReturn.Source, ids)
            .get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        for (int i = from; i < to; i++) {
          recorder.verified(nodes.get(i) + ": read back failed: " + Sessions.describe(e));
        }
        continue;
      }
      for (int i = from; i < to; i++) {
        String node = nodes.get(i);
        DataValue value = values.get(i - from);
        Object got = value.getValue().getValue();
        Double want = expected.get(node);
        String failure = null;
        if (writeFailures.containsKey(node)) {
          failure = node + ": " + writeFailures.get(node);
        } else if (!value.getStatusCode().isGood()) {
          failure = node + ": read back " + Sessions.statusName(value.getStatusCode().getValue());
        } else if (!(got instanceof Double d) || d.doubleValue() != want) {
          failure = node + ": read back " + Verify.show(got) + ", expected " + want;
        }
        recorder.verified(failure);
      }
    }
  }
}
