// The result record's timeline (SPEC §6): successful completions and their values per
// window of `timeline_ms` from the start of the workload (warm-up included) to the end of
// the measured phase. Counting is an index and two additions into arrays allocated at
// begin(), so it costs the completion path next to nothing.
import { wallNs } from "./clock.js";

export class Timeline {
  constructor(windowMs = 100) {
    this.windowMs = windowMs;
    this.windowNs = windowMs * 1e6;
    this.startNs = 0;
    this.begun = false;
    // Float64: exact integer counts up to 2^53, where a 32-bit array could overflow on values.
    this.ops = new Float64Array(0);
    this.values = new Float64Array(0);
  }

  /**
   * The workload starts at monotonic `startNs` and runs `spanNs` (warm-up + measured phase).
   * toWall maps that clock to the record's (BigInt Unix ns): wallNs, the mapping of the record's
   * own start_ns/end_ns (SPEC §6); a test passes a fixed offset of its own.
   */
  begin(startNs, spanNs, toWall = wallNs) {
    this.startNs = startNs;
    this.begun = true;
    this.toWall = toWall;
    const windows = Math.max(0, Math.ceil(spanNs / this.windowNs));
    this.ops = new Float64Array(windows);
    this.values = new Float64Array(windows);
  }

  /** One operation completed successfully at monotonic `atNs`, carrying `values`. */
  completed(atNs, values) {
    const k = Math.floor((atNs - this.startNs) / this.windowNs);
    if (k >= 0 && k < this.ops.length) {
      this.ops[k] += 1;
      this.values[k] += values;
    }
  }

  /** The record's `timeline`, its windows cut or padded to end at the record's end_ns (BigInt). */
  record(endNs) {
    const startNs = this.begun ? this.toWall(this.startNs) : endNs;
    const windowNs = BigInt(this.windowNs);
    const span = endNs - startNs;
    const windows = span > 0n ? Number((span + windowNs - 1n) / windowNs) : 0;
    const counts = (array) => Array.from({ length: windows }, (_, k) => (k < array.length ? array[k] : 0));
    return { window_ms: this.windowMs, start_ns: startNs, ops: counts(this.ops), values: counts(this.values) };
  }
}
