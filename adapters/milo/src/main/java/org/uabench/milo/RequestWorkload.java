package org.uabench.milo;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.milo.opcua.stack.core.AttributeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.QualifiedName;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.eclipse.milo.opcua.stack.core.types.enumerated.TimestampsToReturn;
import org.eclipse.milo.opcua.stack.core.types.structured.ReadResponse;
import org.eclipse.milo.opcua.stack.core.types.structured.ReadValueId;
import org.eclipse.milo.opcua.stack.core.types.structured.ResponseHeader;
import org.eclipse.milo.opcua.stack.core.types.structured.WriteResponse;
import org.eclipse.milo.opcua.stack.core.types.structured.WriteValue;

/**
 * The `read` and `write` workloads (SPEC §3). Each session keeps up to in_flight requests
 * outstanding through Milo's CompletableFuture API; no thread waits on a response.
 *
 * <p>Closed loop: in_flight chains per session, each sending its next request from the previous
 * one's completion. Open loop: one generator thread releases requests at fixed scheduled times
 * (rate in total, interleaved across sessions); a request that finds all in_flight slots busy
 * waits in its session's queue, and its latency counts from the scheduled time.
 */
final class RequestWorkload {

  private static final long GRACE_NS = TimeUnit.SECONDS.toNanos(5);
  // Completions that arrive synchronously would recurse; past this depth, hop to an executor.
  private static final int MAX_INLINE_DEPTH = 16;
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private final Config.Client config;
  private final boolean write;
  private final Lane[] lanes;
  private final ExecutorService trampoline;

  private long measureStart;
  private long measureEnd;

  RequestWorkload(Config.Client config, List<Sessions.Session> sessions, ExecutorService trampoline) {
    this.config = config;
    this.write = config.workload().equals("write");
    this.trampoline = trampoline;
    this.lanes = new Lane[sessions.size()];
    for (int s = 0; s < lanes.length; s++) {
      lanes[s] = new Lane(sessions.get(s));
    }
  }

  /**
   * Runs warm-up and measured phase and returns the merged record of the measured phase, whose
   * bounds (System.nanoTime) are then {@link #measureStart()} and {@link #measureEnd()}.
   */
  Recorder run() throws InterruptedException {
    long start = System.nanoTime();
    measureStart = start + (long) (config.warmupS() * 1e9);
    measureEnd = measureStart + (long) (config.durationS() * 1e9);

    if (config.rate() == null) {
      for (Lane lane : lanes) {
        for (int i = 0; i < config.inFlight(); i++) {
          lane.step();
        }
      }
      sleepUntil(measureEnd);
    } else {
      generate(start);
    }

    long deadline = measureEnd + GRACE_NS;
    for (Lane lane : lanes) {
      while (lane.outstanding() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
    }
    Recorder total = new Recorder();
    for (Lane lane : lanes) {
      lane.close();
      total.merge(lane.measured);
    }
    return total;
  }

  long measureStart() {
    return measureStart;
  }

  long measureEnd() {
    return measureEnd;
  }

  /** Open loop: request g (all sessions) is due at start + g / rate, on session g mod S. */
  private void generate(long start) {
    double periodNs = 1e9 / config.rate();
    for (long g = 0; ; g++) {
      long due = start + (long) (g * periodNs);
      if (due >= measureEnd) {
        return;
      }
      sleepUntil(due);
      lanes[(int) (g % lanes.length)].arrive(due);
    }
  }

  private static void sleepUntil(long due) {
    long wait;
    while ((wait = due - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }

  private boolean inMeasuredPhase(long time) {
    return time >= measureStart && time < measureEnd;
  }

  /** One session: its request sequence, its in_flight slots and its records. */
  private final class Lane {
    private final Sessions.Session session;
    private final int s;
    private final ReadValueId[] readIds;
    private final NodeId[] nodeIds;
    private final Verify.Check[] checks;
    private final int npr;

    final Recorder measured = new Recorder();
    // Warm-up runs the same verification into a record nobody reads, so the JIT sees it.
    private final Recorder warmup = new Recorder();

    private long nextRequest;
    private int freeSlots;
    private final ArrayDeque<long[]> waiting = new ArrayDeque<>();
    private long outstandingMeasured;
    private boolean closed;

    Lane(Sessions.Session session) {
      this.session = session;
      this.s = session.index();
      this.npr = config.nodesPerRequest();
      this.freeSlots = config.inFlight();
      List<String> nodes = config.nodes();
      readIds = new ReadValueId[nodes.size()];
      nodeIds = new NodeId[nodes.size()];
      checks = new Verify.Check[nodes.size()];
      for (int i = 0; i < nodes.size(); i++) {
        nodeIds[i] = session.nodeId(nodes.get(i));
        readIds[i] = new ReadValueId(nodeIds[i], AttributeId.Value.uid(), null, QualifiedName.NULL_VALUE);
        checks[i] = Verify.forNode(nodes.get(i));
      }
    }

    /** Closed loop: send the next request now, unless the measured phase is over. */
    void step() {
      long now = System.nanoTime();
      if (now >= measureEnd) {
        return;
      }
      long k;
      synchronized (this) {
        k = nextRequest++;
        if (inMeasuredPhase(now)) {
          outstandingMeasured++;
        }
      }
      send(k, now, false);
    }

    /** Open loop: a request falls due; send it if a slot is free, else queue it. */
    void arrive(long due) {
      long k;
      synchronized (this) {
        k = nextRequest++;
        if (inMeasuredPhase(due)) {
          outstandingMeasured++;
        }
        if (freeSlots == 0) {
          waiting.add(new long[] {k, due});
          return;
        }
        freeSlots--;
      }
      send(k, due, true);
    }

    private void send(long k, long scheduled, boolean openLoop) {
      boolean counted = inMeasuredPhase(scheduled);
      int first = (int) ((k * npr) % readIds.length);
      CompletableFuture<?> response;
      try {
        response = write ? sendWrite(k, first) : sendRead(first);
      } catch (RuntimeException e) {
        response = CompletableFuture.failedFuture(e);
      }
      response.whenComplete(
          (result, error) -> {
            long latency = System.nanoTime() - scheduled;
            complete(counted ? measured : warmup, counted, first, result, error, latency);
            if (openLoop) {
              releaseSlot();
            } else {
              next();
            }
          });
    }

    private CompletableFuture<ReadResponse> sendRead(int first) {
      ReadValueId[] ids = new ReadValueId[npr];
      for (int j = 0; j < npr; j++) {
        ids[j] = readIds[(first + j) % readIds.length];
      }
      return session.client().readAsync(0.0, TimestampsToReturn.Both, List.of(ids));
    }

    private CompletableFuture<WriteResponse> sendWrite(long k, int first) {
      WriteValue[] values = new WriteValue[npr];
      for (int j = 0; j < npr; j++) {
        double value = s * 1e9 + k * npr + j;
        values[j] =
            new WriteValue(
                nodeIds[(first + j) % nodeIds.length], AttributeId.Value.uid(), null,
                DataValue.valueOnly(new Variant(value)));
      }
      return session.client().writeAsync(List.of(values));
    }

    private void complete(
        Recorder recorder, boolean counted, int first, Object result, Throwable error, long latency) {
      String failure = error != null ? Sessions.describe(error) : failureOf(result, first);
      synchronized (recorder) {
        if (closed && counted) {
          return;
        }
        if (counted) {
          synchronized (this) {
            outstandingMeasured--;
          }
        }
        if (failure != null) {
          recorder.failed(failure);
          return;
        }
        recorder.succeeded(latency, npr);
      }
      if (!write && config.verify()) {
        DataValue[] values = ((ReadResponse) result).getResults();
        for (int j = 0; j < npr; j++) {
          int position = (first + j) % checks.length;
          recorder.verified(checks[position].apply(values[j].getValue().getValue()));
        }
      }
    }

    /** Null if the service result and every per-node status are Good, else the first problem. */
    private String failureOf(Object result, int first) {
      ResponseHeader header;
      StatusCode[] statuses;
      if (result instanceof ReadResponse read) {
        header = read.getResponseHeader();
        DataValue[] values = read.getResults();
        if (values == null || values.length != npr) {
          return "read returned " + (values == null ? 0 : values.length) + " of " + npr + " values";
        }
        statuses = new StatusCode[npr];
        for (int j = 0; j < npr; j++) {
          statuses[j] = values[j].getStatusCode();
        }
      } else {
        WriteResponse written = (WriteResponse) result;
        header = written.getResponseHeader();
        statuses = written.getResults();
        if (statuses == null || statuses.length != npr) {
          return "write returned " + (statuses == null ? 0 : statuses.length) + " of " + npr + " results";
        }
      }
      StatusCode service = header.getServiceResult();
      if (service != null && !service.isGood()) {
        return Sessions.statusName(service.getValue());
      }
      for (int j = 0; j < npr; j++) {
        if (statuses[j] == null || !statuses[j].isGood()) {
          String node = config.nodes().get((first + j) % checks.length);
          return node + ": " + Sessions.statusName(statuses[j] == null ? 0x80000000L : statuses[j].getValue());
        }
      }
      return null;
    }

    private void next() {
      int[] depth = DEPTH.get();
      if (depth[0] >= MAX_INLINE_DEPTH) {
        trampoline.execute(this::step);
        return;
      }
      depth[0]++;
      try {
        step();
      } finally {
        depth[0]--;
      }
    }

    /** Open loop: hand the slot to the oldest queued request, or free it. */
    private void releaseSlot() {
      long[] queued;
      synchronized (this) {
        queued = waiting.poll();
        if (queued == null) {
          freeSlots++;
          return;
        }
      }
      Runnable sendQueued = () -> send(queued[0], queued[1], true);
      int[] depth = DEPTH.get();
      if (depth[0] >= MAX_INLINE_DEPTH) {
        trampoline.execute(sendQueued);
        return;
      }
      depth[0]++;
      try {
        sendQueued.run();
      } finally {
        depth[0]--;
      }
    }

    synchronized long outstanding() {
      return outstandingMeasured;
    }

    /** After the grace period: whatever measured request is still open has failed. */
    void close() {
      synchronized (measured) {
        long open;
        synchronized (this) {
          closed = true;
          open = outstandingMeasured;
        }
        for (long i = 0; i < open; i++) {
          measured.failed("no response within 5 s after the measured phase");
        }
      }
    }
  }
}
