// The standard address space of adapters/SPEC.md §4: pure value functions shared by the
// server (to publish the values) and the client (to verify them).

export const NAMESPACE_URI = "urn:uabench:model";
export const ROOT_OBJECT = "uabench";
export const TICK_MODULUS = 16384;
export const SIGNAL_INDEX_MODULUS = 1024;
export const REAL_VALUE = 1234.5;
export const PAGE_LENGTH = 512;
export const SDD_LENGTH = 20000;
export const IMAGE_LENGTH = 65535;

export function signal(index, tick) {
  return (index % SIGNAL_INDEX_MODULUS) * TICK_MODULUS + (tick % TICK_MODULUS);
}

export function page() {
  const values = new Int16Array(PAGE_LENGTH);
  for (let k = 0; k < PAGE_LENGTH; k++) values[k] = ((k * 37) % 65536) - 32768;
  return values;
}

function bytePattern(length, factor, offset) {
  const bytes = Buffer.alloc(length);
  for (let k = 0; k < length; k++) bytes[k] = (k * factor + offset) % 256;
  return bytes;
}

export const ARRAYS = { Array_10: 10, Array_10000: 10000 };

/** Double[length] with element k = k + 0.5. */
export function doubleArray(length) {
  const values = new Float64Array(length);
  for (let k = 0; k < length; k++) values[k] = k + 0.5;
  return values;
}

export const sdd = () => bytePattern(SDD_LENGTH, 31, 7);
export const image = () => bytePattern(IMAGE_LENGTH, 13, 1);

export function writeValue(session, request, nodesPerRequest, position) {
  return session * 1e9 + request * nodesPerRequest + position;
}

export function writeVerificationValue(pattern, position) {
  return -(100000 * pattern + position) - 0.25;
}
