package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.milo.opcua.sdk.client.subscriptions.OpcUaMonitoredItem;
import org.eclipse.milo.opcua.sdk.client.subscriptions.OpcUaSubscription;
import org.eclipse.milo.opcua.stack.core.StatusCodes;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.eclipse.milo.opcua.stack.core.types.enumerated.DataChangeTrigger;
import org.eclipse.milo.opcua.stack.core.types.enumerated.DeadbandType;
import org.eclipse.milo.opcua.stack.core.types.structured.DataChangeFilter;

/**
 * The `subscribe` workload (SPEC §3): every session creates `subscriptions` subscriptions, each
 * monitoring every node, and counts what arrives in the measured phase by receive time.
 *
 * <p>Result mapping: one received data change is one operation (succeeded if its StatusCode is
 * Good); a monitored item the server refused to create is one failed operation.
 */
final class SubscribeWorkload {

  // 100 ns ticks between 1601-01-01 (OPC UA DateTime) and 1970-01-01.
  private static final long EPOCH_DELTA_TICKS = 116444736000000000L;
  // SPEC §3 subscribe: the longest session timeout a subscription's lifetime must outlast (a
  // lifetime is asked for as long as the session timeout, but no longer than this).
  private static final double LIFETIME_CAP_MS = 600_000;

  private final Config.Client config;
  private final List<Sessions.Session> sessions;
  private final Connection connection;
  private final List<Tracker> trackers = new ArrayList<>();
  private final ClientRole.WallClock clock = new ClientRole.WallClock();
  private final Recorder setup = new Recorder();
  private final Timeline timeline;

  private volatile long measureStart = Long.MAX_VALUE;
  private volatile long measureEnd = Long.MAX_VALUE;

  SubscribeWorkload(
      Config.Client config, List<Sessions.Session> sessions, Connection connection) {
    this.config = config;
    this.sessions = sessions;
    this.connection = connection;
    this.timeline = new Timeline(config.timelineMs());
  }

  void run() throws Exception {
    for (Sessions.Session session : sessions) {
      for (int n = 0; n < config.subscriptions(); n++) {
        trackers.add(subscribe(session));
      }
    }
    long start = System.nanoTime();
    measureStart = start + (long) (config.warmupS() * 1e9);
    measureEnd = measureStart + (long) (config.durationS() * 1e9);
    timeline.begin(start, measureEnd - start);
    long wait;
    while ((wait = measureEnd - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }

  private Tracker subscribe(Sessions.Session session) throws Exception {
    OpcUaSubscription subscription =
        new OpcUaSubscription(session.client(), config.publishingIntervalMs());
    Tracker tracker = new Tracker(config.nodes().size());
    Connection.Watch watch = connection.watch(session.index());
    subscription.setSubscriptionListener(
        new OpcUaSubscription.SubscriptionListener() {
          @Override
          public void onDataReceived(
              OpcUaSubscription s, List<OpcUaMonitoredItem> items, List<DataValue> values) {
            long now = System.nanoTime();
            for (int i = 0; i < items.size(); i++) {
              Object position = items.get(i).getUserObject().orElse(null);
              if (position instanceof Integer p) {
                tracker.received(p, values.get(i), now);
              }
            }
          }

          @Override
          public void onTransferFailed(OpcUaSubscription s, StatusCode status) {
            // Milo moved the session's subscriptions to a new session and could not move this
            // one: it has dropped it (SPEC §3 Connection loss: `lost`).
            watch.dropped();
          }

          @Override
          public void onStatusChanged(OpcUaSubscription s, StatusCode status) {
            // Bad_Timeout: the server ended the subscription's lifetime (it could only lapse
            // while no PublishRequest reached the server, i.e. in the last loss); Milo has
            // dropped it (OpcUaSubscription#reset), and does not create it again: `lost`.
            if (status.getValue() == StatusCodes.Bad_Timeout) {
              watch.dropped();
            }
          }
        });
    // Milo's default LifetimeCount is 5 x its MaxKeepAliveCount, both computed in field
    // initialisers for its default 1000 ms interval (keep-alive 10, lifetime 50); this constructor
    // does not recompute them, so at 100 ms the subscription dies after 5 s without a
    // PublishRequest. A network cut longer than that left the session (Milo's 120 s timeout) alive
    // and Milo re-activated it, but the server had deleted the subscription without a
    // StatusChangeNotification (no PublishRequest queued to carry it); Milo's PublishingManager
    // takes the Bad_NoSubscription Publish faults silently and stops publishing, so the
    // subscription stalls unnoticed. A lifetime of at least the session timeout (Milo's 120 s is
    // below SPEC's 600 s cap) keeps the subscription as long as the session it belongs to:
    // re-activated, the session has it; expired, Milo's new session calls TransferSubscriptions,
    // which moves it or reports the failure (onTransferFailed). The server may revise the count
    // (open62541: at most 15000).
    subscription.setLifetimeCount(
        uint(
            lifetimeCount(
                session.client().getConfig().getSessionTimeout().doubleValue(),
                config.publishingIntervalMs(),
                subscription.getMaxKeepAliveCount().longValue())));
    subscription.create();
    watch.subscribed();

    List<OpcUaMonitoredItem> items = new ArrayList<>();
    for (int p = 0; p < config.nodes().size(); p++) {
      OpcUaMonitoredItem item =
          OpcUaMonitoredItem.newDataItem(session.nodeId(config.nodes().get(p)));
      item.setSamplingInterval(config.samplingIntervalMs());
      item.setQueueSize(uint(config.queueSize()));
      item.setFilter(
          new DataChangeFilter(
              DataChangeTrigger.StatusValue, uint(DeadbandType.None.getValue()), 0.0));
      item.setUserObject(p);
      items.add(item);
    }
    subscription.addMonitoredItems(items);
    subscription.createMonitoredItems();
    for (int p = 0; p < items.size(); p++) {
      StatusCode created = items.get(p).getCreateResult().orElse(null);
      if (created == null || !created.isGood()) {
        setup.failed(
            "monitored item " + config.nodes().get(p) + ": "
                + (created == null ? "not created" : Sessions.statusName(created.getValue())));
      }
    }
    return tracker;
  }

  ObjectNode result(String version) {
    Recorder total = new Recorder();
    total.merge(setup);
    total.sessionsReady(sessions);
    Histogram cycle = new Histogram();
    Histogram delay = new Histogram();
    long notifications = 0;
    long tickGaps = 0;
    long duplicates = 0;
    long minUpdates = Long.MAX_VALUE;
    long maxUpdates = 0;
    for (Tracker tracker : trackers) {
      synchronized (tracker) {
        total.merge(tracker.recorder);
        cycle.merge(tracker.cycle);
        delay.merge(tracker.delay);
        notifications += tracker.updates;
        tickGaps += tracker.tickGaps;
        duplicates += tracker.duplicates;
        minUpdates = Math.min(minUpdates, tracker.updates);
        maxUpdates = Math.max(maxUpdates, tracker.updates);
      }
    }
    long startNs = clock.wallNs(measureStart);
    long endNs = clock.wallNs(measureEnd);
    ObjectNode result = total.result(version, config.asRun(), startNs, endNs);
    ObjectNode subscription = Protocol.object();
    subscription.put("notifications", notifications);
    subscription.put("values_per_s", notifications / Math.max(1e-9, (endNs - startNs) / 1e9));
    ObjectNode updates = subscription.putObject("updates_per_subscription");
    updates.put("min", trackers.isEmpty() ? 0 : minUpdates);
    updates.put("max", maxUpdates);
    subscription.put("tick_gaps", tickGaps);
    subscription.put("duplicates", duplicates);
    result.set("subscription", subscription);
    result.set("cycle_time_ns", cycle.toJson());
    result.set("delay_ns", delay.toJson());
    result.set("connection", connection.toJson(clock));
    result.set("timeline", timeline.toJson(clock.wallNs(timeline.start()), endNs));
    return result;
  }

  /** What one subscription received; Milo delivers a subscription's notifications in order. */
  private final class Tracker {
    final Recorder recorder = new Recorder();
    final Histogram cycle = new Histogram();
    final Histogram delay = new Histogram();
    final Verify.Check[] checks;
    final long[] lastReceived;
    final long[] lastTick;
    long updates;
    long tickGaps;
    long duplicates;

    Tracker(int nodeCount) {
      checks = new Verify.Check[nodeCount];
      lastReceived = new long[nodeCount];
      lastTick = new long[nodeCount];
      for (int p = 0; p < nodeCount; p++) {
        checks[p] = Verify.forNode(config.nodes().get(p));
        lastTick[p] = -1;
      }
    }

    synchronized void received(int p, DataValue value, long now) {
      long previous = lastReceived[p];
      lastReceived[p] = now;
      long tick = tickOf(config.nodes().get(p), value.getValue().getValue());
      long previousTick = lastTick[p];
      lastTick[p] = tick;
      if (value.getStatusCode().isGood()) {
        timeline.completed(now, 1);
      }
      if (now < measureStart || now >= measureEnd) {
        return;
      }
      updates++;
      if (!value.getStatusCode().isGood()) {
        recorder.failed(config.nodes().get(p) + ": " + Sessions.statusName(value.getStatusCode().getValue()));
        return;
      }
      // Each data change counts as one operation and one value; its latency is not defined.
      recorder.attempted++;
      recorder.succeeded++;
      recorder.values++;
      if (previous != 0) {
        cycle.record(now - previous);
      }
      DateTime source = value.getSourceTime();
      if (source != null && source.isValid()) {
        long sourceNs = (source.getUtcTime() - EPOCH_DELTA_TICKS) * 100;
        delay.record(clock.wallNs(now) - sourceNs);
      }
      if (tick >= 0 && previousTick >= 0) {
        // SPEC §3 subscribe: a forward step adds its gap, the same tick is a duplicate, an older
        // tick (a restarted server, a republished notification) neither.
        long step = Math.floorMod(tick - previousTick, Model.TICK_MODULUS);
        if (step == 0) {
          duplicates++;
        } else if (step < Model.TICK_MODULUS / 2) {
          tickGaps += step - 1;
        }
      }
      if (config.verify()) {
        recorder.verified(checks[p].apply(value.getValue().getValue()));
      }
    }
  }

  /**
   * SPEC §3 subscribe: the lifetime count to ask for, a lifetime (count × publishing interval) of
   * at least the session timeout asked for (at most 600 s, LIFETIME_CAP_MS) and of three
   * keep-alives; a UInt32. The interval is at least 1 ms (the config's range). Static, so the
   * contract's lifetime vectors test this very function.
   */
  static long lifetimeCount(
      double sessionTimeoutMs, double publishingIntervalMs, long keepAliveCount) {
    long wanted =
        (long) Math.ceil(Math.min(sessionTimeoutMs, LIFETIME_CAP_MS) / publishingIntervalMs);
    return Math.min(Math.max(3 * keepAliveCount, wanted), UInteger.MAX_VALUE);
  }

  /** The tick a Signal_i or Tick value carries, or -1 for other nodes and unexpected values. */
  private static long tickOf(String node, Object value) {
    if (node.equals("Tick") && value instanceof UInteger tick) {
      return tick.longValue();
    }
    if (node.startsWith("Signal_") && value instanceof Float signal && signal >= 0) {
      return ((long) signal.floatValue()) % Model.TICK_MODULUS;
    }
    return -1;
  }
}
