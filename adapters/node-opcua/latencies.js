// The result record's `latencies` (SPEC §6, record_latencies): every measured request the
// latency_ns histogram counts, its send instant after the timeline's start and its latency, in
// completion order. Appending is two stores into Float64Arrays that double when full (exact
// integers up to 2^53), so it costs the completion path next to nothing.
export const MAX_LATENCIES = 1_000_000;

export class LatencySeries {
  constructor(limit = MAX_LATENCIES) {
    this.limit = limit;
    this.length = 0;
    this.truncated = 0;
    this.sendNs = new Float64Array(1024);
    this.latencyNs = new Float64Array(1024);
  }

  /** One request sent `sendNs` after the timeline's start, its latency `latencyNs` (integers). */
  append(sendNs, latencyNs) {
    if (this.length === this.limit) {
      this.truncated += 1;
      return;
    }
    if (this.length === this.sendNs.length) {
      const size = Math.min(this.limit, this.length * 2);
      const grow = (array) => {
        const larger = new Float64Array(size);
        larger.set(array);
        return larger;
      };
      this.sendNs = grow(this.sendNs);
      this.latencyNs = grow(this.latencyNs);
    }
    this.sendNs[this.length] = sendNs;
    this.latencyNs[this.length] = latencyNs;
    this.length += 1;
  }

  record() {
    const list = (array) => Array.from(array.subarray(0, this.length));
    return { send_ns: list(this.sendNs), latency_ns: list(this.latencyNs), truncated: this.truncated };
  }
}
