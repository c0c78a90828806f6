// Counts one client run and builds the result record of SPEC §6.
import { Connection } from "./connection.js";
import { Histogram } from "./histogram.js";
import { LatencySeries } from "./latencies.js";
import { Timeline } from "./timeline.js";

const MAX_EXAMPLES = 5;

export class Recorder {
  constructor(timelineMs = 100, recordLatencies = false) {
    this.timeline = new Timeline(timelineMs);
    this.latencies = recordLatencies ? new LatencySeries() : null; // SPEC §6 latencies
    this.attempted = 0;
    this.succeeded = 0;
    this.failed = 0;
    this.values = 0;
    this.checked = 0;
    this.verificationFailed = 0;
    this.verificationExamples = [];
    this.ticksAdvanced = 0; // SPEC §6: set by the read workload; 0 for write and subscribe
    this.readBacks = 0; // SPEC §6 verification.read_back: W1's values, write workload with verify
    this.errorExamples = [];
    this.latency = new Histogram();
    this.sendLag = new Histogram(); // open loop: actual - scheduled send (SPEC §6 send_lag_ns)
    this.sessionSetup = new Histogram();
    this.connection = new Connection(1); // SPEC §6 connection: the client sets one for its sessions
    this.startNs = 0n;
    this.endNs = 0n;
  }

  /** sentNs: the request's (open loop: scheduled) monotonic send instant, for `latencies`. */
  operation(latencyNs, ok, values, error, sentNs = 0) {
    this.attempted += 1;
    if (ok) {
      this.succeeded += 1;
      this.values += values;
      // Whole nanoseconds, at least 1: the value the histogram buckets (histogram.js).
      const latency = Math.max(1, Math.trunc(latencyNs));
      this.latency.record(latency);
      this.latencies?.append(Math.max(0, Math.round(sentNs - this.timeline.startNs)), latency);
    } else {
      this.failed += 1;
      this.error(error);
    }
  }

  /** Open loop: a measured request was handed to the SDK lagNs after its scheduled time. */
  sent(lagNs) {
    this.sendLag.record(lagNs);
  }

  /** One data-change notification of the subscribe workload (SPEC §3): no latency. */
  notification(ok, error) {
    this.attempted += 1;
    if (ok) {
      this.succeeded += 1;
      this.values += 1;
    } else {
      this.failed += 1;
      this.error(error);
    }
  }

  /** Session set-up time (SPEC §6): one entry per session. */
  sessionReady(setupNs) {
    this.sessionSetup.record(setupNs);
  }

  error(message) {
    if (message && this.errorExamples.length < MAX_EXAMPLES) this.errorExamples.push(String(message).slice(0, 200));
  }

  verification(failure) {
    this.checked += 1;
    if (failure !== null) {
      this.verificationFailed += 1;
      if (this.verificationExamples.length < MAX_EXAMPLES) this.verificationExamples.push(failure);
    }
  }

  /** One value read back under load (SPEC §3 W1): a checked value, null or its failure. */
  readBack(failure) {
    this.readBacks += 1;
    this.verification(failure);
  }

  result(sdk, version, role, config) {
    const seconds = Math.max(1e-9, Number(this.endNs - this.startNs) / 1e9);
    return {
      event: "result", sdk, version, role, workload: config.workload, config,
      start_ns: this.startNs, end_ns: this.endNs,
      operations: { attempted: this.attempted, succeeded: this.succeeded, failed: this.failed },
      values: this.values,
      verification: { checked: this.checked, failed: this.verificationFailed, examples: this.verificationExamples,
        ticks_advanced: this.ticksAdvanced, read_back: this.readBacks },
      errors: { examples: this.errorExamples },
      throughput: { ops_per_s: this.succeeded / seconds, values_per_s: this.values / seconds },
      latency_ns: this.latency.sparse(),
      send_lag_ns: this.sendLag.sparse(),
      ...(this.latencies && { latencies: this.latencies.record() }),
      session_setup_ns: this.sessionSetup.sparse(),
      connection: this.connection.record(),
      timeline: this.timeline.record(this.endNs),
    };
  }
}
