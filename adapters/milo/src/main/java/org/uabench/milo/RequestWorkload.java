package org.uabench.milo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * one's completion. Open loop: request g (counted over all sessions) is due at start + g / rate
 * on session g mod S, as that session's request k = g div S. A generator thread releases due
 * requests; one that finds every in_flight slot busy waits for a completion, and its latency
 * counts from its due time. Due times follow from k, so waiting requests are just a count.
 *
 * <p>think_ms (closed loop): a completed request's slot sends its next request only after that
 * long, scheduled on a timer thread; the next request's latency counts from its own send. With
 * `reconnect`, a slot whose request failed waits at least 10 ms the same way (SPEC §3 Connection
 * loss: while Milo reconnects, requests fail at once and must not be spun on).
 *
 * <p>With verify, session 0 of the write workload reads back every 64th measured write as soon as
 * it succeeds (SPEC §3 W1), outside the in_flight slots; the drain waits for those Reads too.
 */
final class RequestWorkload {

  private static final long GRACE_NS = TimeUnit.SECONDS.toNanos(5);
  private static final String NOT_COMPLETED = "not completed within 5 s after the measured phase";
  // A completion that arrives synchronously would recurse; past this depth, hop to an executor.
  private static final int MAX_INLINE_DEPTH = 16;
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
  // SPEC §3 W1: session 0's requests k with k mod 64 = 63 are read back.
  private static final int READ_BACK_EVERY = 64;
  // C of a request that is not read back.
  private static final long NOT_SAMPLED = -1;
  // SPEC §3 Connection loss: a closed-loop slot's wait after a failed request (reconnect true).
  private static final long RETRY_NS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Config.Client config;
  private final boolean write;
  private final Lane[] lanes;
  private final Executor trampoline;
  private final double periodNs;
  private final Timeline timeline;
  // SPEC §6 latencies: null unless record_latencies.
  private final Latencies latencies;
  // think_ms in ns, the wait after a failed request (0 unless reconnect), and the timer that
  // wakes waiting slots (null when neither applies).
  private final long thinkNs;
  private final long retryNs;
  private final ScheduledExecutorService timer;

  private long start;
  private long measureStart;
  private long measureEnd;

  RequestWorkload(Config.Client config, List<Sessions.Session> sessions, Executor trampoline) {
    this.config = config;
    this.write = config.workload().equals("write");
    this.trampoline = trampoline;
    this.periodNs = config.rate() == null ? 0 : 1e9 / config.rate();
    this.timeline = new Timeline(config.timelineMs());
    this.latencies = config.recordLatencies() ? new Latencies() : null;
    this.thinkNs = Math.round(config.thinkMs() * 1e6);
    this.retryNs = config.reconnect() && config.rate() == null ? RETRY_NS : 0;
    this.timer =
        thinkNs == 0 && retryNs == 0
            ? null
            : new ScheduledThreadPoolExecutor(
                1,
                task -> {
                  Thread thread = new Thread(task, "uabench-wait");
                  thread.setDaemon(true);
                  return thread;
                });
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
    start = System.nanoTime();
    measureStart = start + (long) (config.warmupS() * 1e9);
    measureEnd = measureStart + (long) (config.durationS() * 1e9);
    timeline.begin(start, measureEnd - start);

    if (config.rate() == null) {
      for (Lane lane : lanes) {
        for (int i = 0; i < config.inFlight(); i++) {
          lane.step();
        }
      }
      sleepUntil(measureEnd);
    } else {
      for (Lane lane : lanes) {
        lane.planMeasuredRange();
      }
      generate();
    }

    long deadline = measureEnd + GRACE_NS;
    for (Lane lane : lanes) {
      while (lane.outstanding() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
    }
    Recorder total = new Recorder();
    List<TickVerification> ticks = new ArrayList<>(lanes.length);
    for (Lane lane : lanes) {
      total.merge(lane.close());
      ticks.add(lane.ticks);
    }
    synchronized (total) {
      total.ticksAdvanced = TickVerification.ticksAdvanced(ticks);
    }
    if (timer != null) {
      timer.shutdownNow();
    }
    return total;
  }

  long measureStart() {
    return measureStart;
  }

  /** Every successful completion from the start of warm-up (SPEC §6). */
  Timeline timeline() {
    return timeline;
  }

  long measureEnd() {
    return measureEnd;
  }

  /** SPEC §6 latencies, send instants after {@link Timeline#start()}; null unless recorded. */
  Latencies latencies() {
    return latencies;
  }

  /** Due time of global open-loop request g. */
  private long due(long g) {
    return start + (long) (g * periodNs);
  }

  /** Releases every request that is due, then sleeps until the next one is. */
  private void generate() {
    int sessions = lanes.length;
    long released = 0;
    while (true) {
      long now = Math.min(System.nanoTime(), measureEnd - 1);
      // dueCount = number of g with due(g) <= now: estimated by arithmetic (at high rates many
      // fall due between two wake-ups), then settled exactly with due() itself.
      long dueCount = Math.max(released, (long) ((now - start) / periodNs));
      while (dueCount > released && due(dueCount - 1) > now) {
        dueCount--;
      }
      while (due(dueCount) <= now) {
        dueCount++;
      }
      if (dueCount > released) {
        for (int s = 0; s < sessions; s++) {
          // Requests g < dueCount with g mod S == s.
          lanes[s].release(dueCount > s ? (dueCount - s + sessions - 1) / sessions : 0);
        }
        released = dueCount;
      }
      long next = due(released);
      if (next >= measureEnd) {
        return;
      }
      sleepUntil(next);
    }
  }

  private static void sleepUntil(long time) {
    long wait;
    while ((wait = time - System.nanoTime()) > 0) {
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
    private final int npr;
    private final ReadValueId[] readIds;
    private final NodeId[] nodeIds;
    private final Verify.Check[] checks;
    // R1-R4 across values; guarded by itself (completions arrive on several threads, in any
    // order: R2 judges each response against what had arrived before its request was sent).
    private final TickVerification ticks;
    // W1 (session 0 of a verified write workload, else null): the lowest request in flight and
    // the judge of what is read back. The former is guarded by this lane's lock.
    private final LowestInFlight inFlight;
    private final ReadBackVerification readBack;
    // Guarded by this: the sampled writes k whose read-back is sent and not yet answered (each
    // Read's completion holds its k and C).
    private final Set<Long> readBacksPending = new HashSet<>();

    private final Recorder measured = new Recorder();
    // Warm-up runs the same verification into a record nobody reads, so the JIT sees it.
    private final Recorder warmup = new Recorder();

    // Guarded by this. Closed loop: next request number. Open loop: requests released (due)
    // so far, the next one to send, and the free in_flight slots.
    private long nextRequest;
    private long released;
    private int freeSlots;
    // Measured requests started (closed loop) or the range of k due in the measured phase (open
    // loop), and how many of them completed.
    private long measuredStarted;
    private long firstMeasuredK;
    private long endMeasuredK;
    private long measuredCompleted;
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
        readIds[i] =
            new ReadValueId(nodeIds[i], AttributeId.Value.uid(), null, QualifiedName.NULL_VALUE);
        checks[i] = Verify.forNode(nodes.get(i));
      }
      ticks = new TickVerification(nodes);
      boolean readsBack = write && config.verify() && s == 0;
      inFlight = readsBack ? new LowestInFlight(config.inFlight()) : null;
      readBack = readsBack ? new ReadBackVerification(nodes, lanes.length, npr) : null;
    }

    private long dueOf(long k) {
      return due(k * lanes.length + s);
    }

    /** Open loop: the k whose due times fall in the measured phase, found with dueOf itself. */
    void planMeasuredRange() {
      firstMeasuredK = firstKDueAtOrAfter(measureStart);
      endMeasuredK = firstKDueAtOrAfter(measureEnd);
    }

    private long firstKDueAtOrAfter(long time) {
      long k = Math.max(0, (long) (((time - start) / periodNs - s) / lanes.length));
      while (k > 0 && dueOf(k - 1) >= time) {
        k--;
      }
      while (dueOf(k) < time) {
        k++;
      }
      return k;
    }

    /** Closed loop: send the next request now, unless the measured phase is over. */
    void step() {
      long now = System.nanoTime();
      if (now >= measureEnd) {
        return;
      }
      long k;
      long lowest;
      synchronized (this) {
        k = nextRequest++;
        if (now >= measureStart) {
          measuredStarted++;
        }
        lowest = allotted(k);
      }
      send(k, now, sampled(k, now) ? lowest : NOT_SAMPLED);
    }

    /**
     * Under this lane's lock, as request k is allotted (in increasing k): W1 counts it in flight
     * from now, so a later request's C sees it. Returns the lowest request in flight, k included.
     */
    private long allotted(long k) {
      if (inFlight == null) {
        return k;
      }
      inFlight.sent(k);
      return inFlight.lowest(k);
    }

    /** W1: whether request k, sent (open loop: scheduled) at `scheduled`, is read back. */
    private boolean sampled(long k, long scheduled) {
      return readBack != null && k % READ_BACK_EVERY == READ_BACK_EVERY - 1
          && inMeasuredPhase(scheduled);
    }

    /** Open loop: requests k < count are now due; send as many as there are free slots. */
    void release(long count) {
      long first;
      long end;
      long lowest = NOT_SAMPLED;
      synchronized (this) {
        released = Math.max(released, count);
        first = nextRequest;
        end = Math.min(released, nextRequest + freeSlots);
        freeSlots -= (int) (end - first);
        nextRequest = end;
        // The whole batch is in flight before any of it is sent: its sampled requests share
        // one C, the lowest in flight now, which is at most (so as lenient as) each one's own.
        for (long k = first; k < end; k++) {
          lowest = allotted(k);
        }
      }
      for (long k = first; k < end; k++) {
        long scheduled = dueOf(k);
        send(k, scheduled, sampled(k, scheduled) ? lowest : NOT_SAMPLED);
      }
    }

    /** Sends request k; `lowest` is its C if it is to be read back, else NOT_SAMPLED. */
    private void send(long k, long scheduled, long lowest) {
      int first = (int) ((k * npr) % readIds.length);
      if (config.rate() != null && inMeasuredPhase(scheduled)) {
        // SPEC §6 send_lag_ns: the request goes to Milo's async call now.
        measured.sent(System.nanoTime() - scheduled);
      }
      // R2: what this session had received before the request goes out (SPEC §3). Kept in the
      // completion's closure, which Milo's future holds per request anyway.
      long sentAfter = ticks.sentAfter();
      CompletableFuture<?> response;
      try {
        response = write ? sendWrite(k, first) : sendRead(first);
      } catch (RuntimeException e) {
        response = CompletableFuture.failedFuture(e);
      }
      response.whenComplete(
          (result, error) -> {
            long now = System.nanoTime();
            boolean failed =
                complete(
                    inMeasuredPhase(scheduled), k, lowest, first, sentAfter, result, error, now,
                    scheduled);
            continueAfterCompletion(failed);
          });
    }

    private CompletableFuture<ReadResponse> sendRead(int first) {
      ReadValueId[] ids = new ReadValueId[npr];
      for (int j = 0; j < npr; j++) {
        ids[j] = readIds[(first + j) % readIds.length];
      }
      // SPEC: every Read asks for maxAge 0 and the source timestamp only.
      return session.client().readAsync(0.0, TimestampsToReturn.Source, List.of(ids));
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

    /** Counts (and verifies) a completed request; true if it failed. */
    private boolean complete(
        boolean counted, long k, long lowest, int first, long sentAfter, Object result,
        Throwable error, long now, long scheduled) {
      long latency = now - scheduled;
      Recorder recorder = counted ? measured : warmup;
      String failure = error != null ? Sessions.describe(error) : failureOf(result, first);
      if (failure == null) {
        timeline.completed(now, npr);
      }
      if (inFlight != null && !counted) {
        synchronized (this) {
          inFlight.completed(k);
        }
      }
      boolean readsBack;
      synchronized (recorder) {
        if (counted) {
          synchronized (this) {
            if (inFlight != null) {
              inFlight.completed(k);
            }
            if (closed) {
              return failure != null;
            }
            measuredCompleted++;
            // Pending in the same step as the write completes, so the drain cannot see the
            // write done and its read-back not yet sent.
            readsBack = lowest != NOT_SAMPLED && failure == null;
            if (readsBack) {
              readBacksPending.add(k);
            }
          }
        } else {
          readsBack = false;
        }
        if (failure != null) {
          recorder.failed(failure);
          return true;
        }
        recorder.succeeded(latency, npr);
        if (counted && latencies != null) {
          latencies.record(scheduled - start, latency);
        }
      }
      if (readsBack) {
        readBack(k, lowest, first);
      }
      if (!write && config.verify()) {
        verify(((ReadResponse) result).getResults(), first, sentAfter, recorder, counted);
      }
      return false;
    }

    /** SPEC §3 read verification: each value's type and content (R5), then R1-R4 across them. */
    private void verify(
        DataValue[] results, int first, long sentAfter, Recorder recorder, boolean counted) {
      long received = TickVerification.receivedNow();
      synchronized (ticks) {
        long tick = ticks.responseTick(results, first);
        for (int j = 0; j < npr; j++) {
          int position = (first + j) % checks.length;
          Object value = results[j].getValue().getValue();
          String failure = checks[position].apply(value);
          if (failure == null) {
            failure =
                ticks.judge(
                    position, value, results[j].getSourceTime(), tick, sentAfter, received,
                    counted);
          }
          recorder.verified(failure);
        }
      }
    }

    /**
     * W1: write k succeeded; read its nodes back at once, outside the in_flight slots. The
     * values are judged against k and its C when the Read completes.
     */
    private void readBack(long k, long lowest, int first) {
      CompletableFuture<ReadResponse> response;
      try {
        response = sendRead(first);
      } catch (RuntimeException e) {
        response = CompletableFuture.failedFuture(e);
      }
      response.whenComplete((result, error) -> readBackCompleted(k, lowest, first, result, error));
    }

    private void readBackCompleted(
        long k, long lowest, int first, ReadResponse result, Throwable error) {
      String failure = error != null ? Sessions.describe(error) : readFailureOf(result);
      synchronized (measured) {
        synchronized (this) {
          if (closed) {
            return; // close() has failed its values already
          }
          readBacksPending.remove(k);
        }
        for (int j = 0; j < npr; j++) {
          int position = (first + j) % readIds.length;
          measured.readBack(
              failure != null
                  ? readBack.failed(position, failure)
                  : readBack.judge(position, result.getResults()[j], k, lowest));
        }
      }
    }

    /** Null if a Read's service result is Good and it returned every value, else why not. */
    private String readFailureOf(ReadResponse read) {
      StatusCode service = read.getResponseHeader().getServiceResult();
      if (service != null && !service.isGood()) {
        return Sessions.statusName(service.getValue());
      }
      DataValue[] values = read.getResults();
      if (values == null || values.length != npr) {
        return "read returned " + (values == null ? 0 : values.length) + " of " + npr + " values";
      }
      return null;
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
          return "write returned " + (statuses == null ? 0 : statuses.length) + " of " + npr
              + " results";
        }
      }
      StatusCode service = header.getServiceResult();
      if (service != null && !service.isGood()) {
        return Sessions.statusName(service.getValue());
      }
      for (int j = 0; j < npr; j++) {
        if (statuses[j] == null || !statuses[j].isGood()) {
          String node = config.nodes().get((first + j) % checks.length);
          long code = statuses[j] == null ? StatusCode.BAD.getValue() : statuses[j].getValue();
          return node + ": " + Sessions.statusName(code);
        }
      }
      return null;
    }

    /**
     * Closed loop: the chain goes on (after think_ms, or after the retry wait if the request
     * failed). Open loop: the slot goes to a waiting request, if any.
     */
    private void continueAfterCompletion(boolean failed) {
      Runnable next;
      if (config.rate() == null) {
        long waitNs = failed ? Math.max(thinkNs, retryNs) : thinkNs;
        if (waitNs > 0) {
          // The slot sleeps on the timer, then sends; past the end, step() sends nothing.
          if (System.nanoTime() + waitNs < measureEnd) {
            try {
              timer.schedule(this::step, waitNs, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
              // the run is over (the timer is shut down): nothing more to send
            }
          }
          return;
        }
        next = this::step;
      } else {
        long k;
        long lowest;
        synchronized (this) {
          if (nextRequest >= released) {
            freeSlots++;
            return;
          }
          k = nextRequest++;
          lowest = allotted(k);
        }
        long scheduled = dueOf(k);
        long c = sampled(k, scheduled) ? lowest : NOT_SAMPLED;
        next = () -> send(k, scheduled, c);
      }
      int[] depth = DEPTH.get();
      if (depth[0] >= MAX_INLINE_DEPTH) {
        trampoline.execute(next);
        return;
      }
      depth[0]++;
      try {
        next.run();
      } finally {
        depth[0]--;
      }
    }

    private long measuredDueOrStarted() {
      if (config.rate() == null) {
        return measuredStarted;
      }
      return Math.max(0, Math.min(released, endMeasuredK) - firstMeasuredK);
    }

    /** Measured requests without a response, and read-backs without one (W1). */
    synchronized long outstanding() {
      return measuredDueOrStarted() - measuredCompleted + readBacksPending.size();
    }

    /** After the grace period: every measured request without a response has failed. */
    Recorder close() {
      synchronized (measured) {
        long open;
        synchronized (this) {
          closed = true;
          open = measuredDueOrStarted() - measuredCompleted;
          // W1: a read-back unanswered at the end of the drain fails each of its values.
          for (long k : readBacksPending) {
            int first = (int) ((k * npr) % readIds.length);
            for (int j = 0; j < npr; j++) {
              measured.readBack(readBack.failed((first + j) % readIds.length, NOT_COMPLETED));
            }
          }
        }
        measured.failed(open, NOT_COMPLETED);
      }
      return measured;
    }
  }
}
