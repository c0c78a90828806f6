package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import org.eclipse.milo.opcua.stack.core.Stack;

/** `run client`: opens the sessions, runs one workload, prints the result line. */
final class ClientRole {

  private ClientRole() {}

  static void run(Config.Client config) throws Exception {
    List<Sessions.Session> sessions = Sessions.open(config);
    WallClock clock = new WallClock();
    // SPEC §3 Connection loss: whatever `reconnect` says, Milo reconnects by itself (it has no
    // setting to turn that on or off; its defaults are kept), so the run goes on through a loss
    // either way; this records what Milo reports of it.
    boolean subscribe = config.workload().equals("subscribe");
    Connection connection = Connection.watching(sessions, subscribe);
    ObjectNode result;
    if (subscribe) {
      SubscribeWorkload workload = new SubscribeWorkload(config, sessions, connection);
      workload.run();
      result = workload.result(Main.sdkVersion());
    } else {
      RequestWorkload workload = new RequestWorkload(config, sessions, Stack.sharedExecutor());
      Recorder recorder = workload.run();
      recorder.sessionsReady(sessions);
      if (config.workload().equals("write") && config.verify()) {
        WriteVerification.run(config, sessions.get(0), recorder);
      }
      long endNs = clock.wallNs(workload.measureEnd());
      result =
          recorder.result(
              Main.sdkVersion(), config.asRun(), clock.wallNs(workload.measureStart()), endNs);
      Timeline timeline = workload.timeline();
      result.set("connection", connection.toJson(clock));
      result.set("timeline", timeline.toJson(clock.wallNs(timeline.start()), endNs));
      if (workload.latencies() != null) {
        result.set("latencies", workload.latencies().toJson());
      }
    }
    Protocol.emit(result);
    Sessions.closeSessions(sessions);
  }

  /** Maps System.nanoTime readings onto Unix wall-clock nanoseconds. */
  static final class WallClock {
    private final long epochNs;
    private final long nano;

    WallClock() {
      Instant now = Instant.now();
      nano = System.nanoTime();
      epochNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    long wallNs(long nanoTime) {
      return epochNs + (nanoTime - nano);
    }
  }
}
