// The stdout protocol of SPEC §2: one JSON object per line and nothing else on stdout.

export const EXIT = { ok: 0, runtime: 1, connect: 1, config: 2, not_supported: 3 };

export class ConfigError extends Error {}
export class NotSupported extends Error {}
export class ConnectError extends Error {}

// Unix nanoseconds exceed 2^53, so they travel as BigInt and are spliced in as digits.
function toJson(event) {
  return JSON.stringify(event, (_key, value) => (typeof value === "bigint" ? `\u0000${value}` : value))
    .replace(/"\\u0000(-?\d+)"/g, "$1");
}

export function emit(event) {
  process.stdout.write(toJson(event) + "\n");
}

/** Prints the error event and exits once stdout has drained. */
export function fail(kind, message) {
  emit({ event: "error", kind, message });
  process.stderr.write(`${kind}: ${message}\n`);
  process.exitCode = EXIT[kind] ?? 1;
  setImmediate(() => process.exit(process.exitCode));
}
