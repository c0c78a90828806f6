// Latency histogram of SPEC §5: a value's bucket keeps its 8 most significant bits.

const TWO_32 = 2 ** 32;

function bitLength(v) {
  return v < TWO_32 ? 32 - Math.clz32(v) : 64 - Math.clz32(Math.floor(v / TWO_32));
}

/** Bucket of an integer nanosecond value (a Number below 2^53). */
export function bucket(valueNs) {
  const v = Math.max(1, Math.trunc(valueNs));
  const shift = bitLength(v) - 8;
  if (shift <= 0) return v;
  const unit = 2 ** shift;
  return Math.floor(v / unit) * unit;
}

export class Histogram {
  constructor() {
    this.counts = new Map();
  }

  record(valueNs) {
    const key = bucket(valueNs);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Sparse `[[bucket_ns, count], ...]` sorted by value. */
  sparse() {
    return [...this.counts.entries()].filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0]);
  }
}
