// Read verification (SPEC §4): checks a returned Variant, including its OPC UA DataType,
// since JavaScript numbers alone cannot tell a Float from a Double or a UInt32.
import { DataType, VariantArrayType } from "node-opcua";
import {
  ARRAYS, IMAGE_LENGTH, PAGE_LENGTH, REAL_VALUE, SDD_LENGTH, SIGNAL_INDEX_MODULUS, TICK_MODULUS,
  doubleArray, image, page, sdd,
} from "./model.js";

const PAGE = page();
const SDD = sdd();
const IMAGE = image();
const DOUBLE_ARRAYS = Object.fromEntries(Object.entries(ARRAYS).map(([name, length]) => [name, doubleArray(length)]));

/** A returned Variant in a failure message: its DataType and value, at most 60 characters. */
export function describeVariant(variant) {
  let text;
  const value = variant?.value;
  if (Buffer.isBuffer(value)) text = `ByteString[${value.length}]`;
  else if (ArrayBuffer.isView(value) || Array.isArray(value)) text = `${DataType[variant.dataType]}[${value.length}]`;
  else text = `${DataType[variant?.dataType] ?? "?"} ${String(value)}`;
  return text.length <= 60 ? text : text.slice(0, 57) + "...";
}

const isScalar = (variant, dataType) =>
  variant && variant.dataType === dataType && variant.arrayType === VariantArrayType.Scalar;

function sameElements(actual, expected) {
  if (!actual || actual.length !== expected.length) return false;
  for (let k = 0; k < expected.length; k++) if (actual[k] !== expected[k]) return false;
  return true;
}

function verifySignal(node, index, variant) {
  const v = variant?.value;
  const ok = isScalar(variant, DataType.Float) && Number.isInteger(v) && v >= 0 && v < 2 ** 24
    && Math.floor(v / TICK_MODULUS) === index % SIGNAL_INDEX_MODULUS;
  return ok ? null : `${node}: got ${describeVariant(variant)}, expected tick-encoded Float for index ${index}`;
}

/** Returns null when `variant` is what the standard address space holds at `node`, else a reason. */
export function verifyValue(node, variant) {
  if (node.startsWith("Signal_")) return verifySignal(node, Number(node.slice(7)), variant);
  switch (node) {
    case "Tick": {
      const v = variant?.value;
      return isScalar(variant, DataType.UInt32) && Number.isInteger(v) && v >= 0 && v < 2 ** 32
        ? null : `Tick: got ${describeVariant(variant)}, expected UInt32`;
    }
    case "Real":
      return isScalar(variant, DataType.Float) && variant.value === REAL_VALUE
        ? null : `Real: got ${describeVariant(variant)}, expected Float ${REAL_VALUE}`;
    case "Page":
      return variant?.dataType === DataType.Int16 && variant.arrayType === VariantArrayType.Array
        && sameElements(variant.value, PAGE)
        ? null : `Page: got ${describeVariant(variant)}, expected Int16[${PAGE_LENGTH}] pattern`;
    case "SDD":
      return isScalar(variant, DataType.ByteString) && Buffer.isBuffer(variant.value) && variant.value.equals(SDD)
        ? null : `SDD: got ${describeVariant(variant)}, expected ${SDD_LENGTH}-byte pattern`;
    case "Image":
      return isScalar(variant, DataType.ByteString) && Buffer.isBuffer(variant.value) && variant.value.equals(IMAGE)
        ? null : `Image: got ${describeVariant(variant)}, expected ${IMAGE_LENGTH}-byte pattern`;
    default:
      if (Object.hasOwn(DOUBLE_ARRAYS, node)) {
        return variant?.dataType === DataType.Double && variant.arrayType === VariantArrayType.Array
          && sameElements(variant.value, DOUBLE_ARRAYS[node])
          ? null : `${node}: got ${describeVariant(variant)}, expected Double[${ARRAYS[node]}] of k + 0.5`;
      }
      if (node.startsWith("Write_")) {
        return isScalar(variant, DataType.Double) ? null : `${node}: got ${describeVariant(variant)}, expected Double`;
      }
      return `${node}: not a node of the standard address space`;
  }
}

/** Tick carried by a verified Signal_i value or the Tick value (for subscription gap counting). */
export function tickOf(node, value) {
  if (node === "Tick") return value;
  if (node.startsWith("Signal_")) return value % TICK_MODULUS;
  return null;
}
