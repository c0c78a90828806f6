// Monotonic nanoseconds for latencies and phases, mapped to Unix wall-clock nanoseconds
// for the result's start_ns/end_ns.

export const nowNs = () => Number(process.hrtime.bigint());

const referenceMonotonic = process.hrtime.bigint();
const referenceWallNs = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

export function wallNs(monotonicNs) {
  return referenceWallNs + (BigInt(Math.round(monotonicNs)) - referenceMonotonic);
}

const referenceWallMs = performance.timeOrigin + performance.now();
const referenceMonotonicNs = Number(referenceMonotonic);

/** Nanoseconds from a Unix time (ms plus extra ns) to the monotonic instant `monotonicNs`. */
export function nsSinceUnix(monotonicNs, unixMs, extraNs = 0) {
  return (monotonicNs - referenceMonotonicNs) + (referenceWallMs - unixMs) * 1e6 - extraNs;
}
