package org.uabench.milo;

import java.util.Arrays;
import org.eclipse.milo.opcua.stack.core.OpcUaDataType;
import org.eclipse.milo.opcua.stack.core.types.builtin.ByteString;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;

/**
 * Value checks of SPEC §4, one {@link Check} per requested node, resolved once so the hot path
 * does no string parsing. A check returns null when the value is right, else a short reason.
 */
final class Verify {

  interface Check {
    String apply(Object value);
  }

  private Verify() {}

  static Check forNode(String node) {
    if (node.startsWith("Signal_")) {
      int index;
      try {
        index = Integer.parseInt(node.substring("Signal_".length()));
      } catch (NumberFormatException e) {
        return value -> node + ": not a node of the standard address space";
      }
      return value -> checkSignal(node, index, value);
    }
    double[] array = Model.ARRAYS.get(node);
    if (array != null) {
      return value ->
          value instanceof Double[] doubles && Arrays.equals(unbox(doubles), array)
              ? null
              : node + ": got " + show(value) + ", expected Double[" + array.length + "] of k + 0.5";
    }
    if (node.startsWith("Write_")) {
      return value ->
          value instanceof Double ? null : node + ": got " + show(value) + ", expected Double";
    }
    return switch (node) {
      case "Tick" -> value ->
          value instanceof UInteger ? null : "Tick: got " + show(value) + ", expected UInt32";
      case "Real" -> value ->
          value instanceof Float f && f == Model.REAL_VALUE
              ? null
              : "Real: got " + show(value) + ", expected " + Model.REAL_VALUE;
      case "Page" -> value ->
          value instanceof Short[] page && Arrays.equals(unbox(page), Model.PAGE)
              ? null
              : "Page: got " + show(value) + ", expected Int16[512] pattern";
      case "SDD" -> value ->
          value instanceof ByteString b && Arrays.equals(b.bytes(), Model.SDD)
              ? null
              : "SDD: got " + show(value) + ", expected 20000-byte pattern";
      case "Image" -> value ->
          value instanceof ByteString b && Arrays.equals(b.bytes(), Model.IMAGE)
              ? null
              : "Image: got " + show(value) + ", expected 65535-byte pattern";
      default -> value -> node + ": not a node of the standard address space";
    };
  }

  private static String checkSignal(String node, int index, Object value) {
    if (value instanceof Float f) {
      float v = f;
      if (Float.isFinite(v) && v == Math.rint(v) && v >= 0 && v < (1 << 24)
          && ((int) v) / Model.TICK_MODULUS == index % Model.SIGNAL_INDEX_MODULUS) {
        return null;
      }
    }
    return node + ": got " + show(value) + ", expected tick-encoded Float for index " + index;
  }

  private static short[] unbox(Short[] boxed) {
    short[] out = new short[boxed.length];
    for (int i = 0; i < boxed.length; i++) {
      if (boxed[i] == null) {
        return null;
      }
      out[i] = boxed[i];
    }
    return out;
  }

  private static double[] unbox(Double[] boxed) {
    double[] out = new double[boxed.length];
    for (int i = 0; i < boxed.length; i++) {
      if (boxed[i] == null) {
        return null;
      }
      out[i] = boxed[i];
    }
    return out;
  }

  /** The OPC UA built-in type a decoded value had on the wire (R5 names it: "Int32"). */
  private static String typeName(Class<?> type) {
    OpcUaDataType builtin = OpcUaDataType.fromBackingClass(type);
    return builtin != null ? builtin.name() : type.getSimpleName();
  }

  static String show(Object value) {
    String text;
    if (value == null) {
      text = "null";
    } else if (value instanceof Object[] array) {
      text = typeName(value.getClass().getComponentType()) + Arrays.toString(array);
    } else if (value instanceof ByteString b) {
      text = "ByteString[" + b.length() + "]";
    } else {
      text = typeName(value.getClass()) + " " + value;
    }
    return text.length() <= 60 ? text : text.substring(0, 57) + "...";
  }
}
