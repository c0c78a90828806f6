// Monotonic nanoseconds for latencies and phases, mapped to Unix wall-clock nanoseconds
// for the result's start_ns/end_ns.

export const nowNs = () => Number(process.hrtime.bigint());

const referenceMonotonic = process.hrtime.bigint();
const referenceWallNs = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

export function wallNs(monotonicNs) {
  return referenceWallNs + (BigInt(Math.round(monotonicNs)) - referenceMonotonic);
}
