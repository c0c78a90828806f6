package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts one client run (SPEC §6). Completions arrive on the SDK's executor threads, so every
 * method is synchronized; each session has its own recorder to keep the lock uncontended, and
 * the recorders are merged at the end.
 */
final class Recorder {

  static final int MAX_EXAMPLES = 5;

  long attempted;
  long succeeded;
  long failed;
  long values;
  long checked;
  long verificationFailed;
  // SPEC §6 verification.ticks_advanced: set by the read workload, 0 for write and subscribe.
  long ticksAdvanced;
  // SPEC §6 verification.read_back: values read back under load (W1), also in checked.
  long readBack;
  final List<String> verificationExamples = new ArrayList<>();
  final List<String> errorExamples = new ArrayList<>();
  final Histogram latency = new Histogram();
  // Open loop: actual - scheduled send of each measured request (SPEC §6 send_lag_ns).
  final Histogram sendLag = new Histogram();
  final Histogram sessionSetup = new Histogram();

  synchronized void succeeded(long latencyNs, int valueCount) {
    attempted++;
    succeeded++;
    values += valueCount;
    latency.record(latencyNs);
  }

  synchronized void sent(long lagNs) {
    sendLag.record(lagNs);
  }

  synchronized void failed(String error) {
    failed(1, error);
  }

  synchronized void failed(long count, String error) {
    attempted += count;
    failed += count;
    if (count > 0 && error != null && errorExamples.size() < MAX_EXAMPLES) {
      errorExamples.add(error);
    }
  }

  synchronized void verified(String failure) {
    checked++;
    if (failure != null) {
      verificationFailed++;
      if (verificationExamples.size() < MAX_EXAMPLES) {
        verificationExamples.add(failure);
      }
    }
  }

  /** A value read back under load (SPEC §3 W1): a checked value, null if it passed. */
  synchronized void readBack(String failure) {
    readBack++;
    verified(failure);
  }

  /** One entry per session: the time it took to be ready (SPEC §6 session_setup_ns). */
  synchronized void sessionsReady(List<Sessions.Session> sessions) {
    sessions.forEach(session -> sessionSetup.record(session.setupNs()));
  }

  synchronized void merge(Recorder other) {
    synchronized (other) {
      attempted += other.attempted;
      succeeded += other.succeeded;
      failed += other.failed;
      values += other.values;
      checked += other.checked;
      verificationFailed += other.verificationFailed;
      readBack += other.readBack;
      addExamples(verificationExamples, other.verificationExamples);
      addExamples(errorExamples, other.errorExamples);
      latency.merge(other.latency);
      sendLag.merge(other.sendLag);
      sessionSetup.merge(other.sessionSetup);
    }
  }

  private static void addExamples(List<String> into, List<String> from) {
    for (String example : from) {
      if (into.size() < MAX_EXAMPLES) {
        into.add(example);
      }
    }
  }

  /** The result record; callers add workload-specific sections (e.g. "subscription"). */
  synchronized ObjectNode result(String version, ObjectNode config, long startNs, long endNs) {
    double seconds = Math.max(1e-9, (endNs - startNs) / 1e9);
    ObjectNode result = Protocol.object();
    result.put("event", "result");
    result.put("sdk", Main.SDK_ID);
    result.put("version", version);
    result.put("role", "client");
    result.put("workload", config.get("workload").asText());
    result.set("config", config);
    result.put("start_ns", startNs);
    result.put("end_ns", endNs);
    ObjectNode operations = result.putObject("operations");
    operations.put("attempted", attempted);
    operations.put("succeeded", succeeded);
    operations.put("failed", failed);
    result.put("values", values);
    ObjectNode verification = result.putObject("verification");
    verification.put("checked", checked);
    verification.put("failed", verificationFailed);
    verification.put("ticks_advanced", ticksAdvanced);
    verification.put("read_back", readBack);
    verificationExamples.forEach(verification.putArray("examples")::add);
    ObjectNode errors = result.putObject("errors");
    errorExamples.forEach(errors.putArray("examples")::add);
    ObjectNode throughput = result.putObject("throughput");
    throughput.put("ops_per_s", succeeded / seconds);
    throughput.put("values_per_s", values / seconds);
    result.set("latency_ns", latency.toJson());
    result.set("send_lag_ns", sendLag.toJson());
    result.set("session_setup_ns", sessionSetup.toJson());
    return result;
  }
}
