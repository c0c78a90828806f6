package org.uabench.milo;

import java.util.Map;

/** The standard address space of SPEC §4: names and value functions shared by both roles. */
final class Model {

  static final String NAMESPACE_URI = "urn:uabench:model";
  static final String OBJECT_NAME = "uabench";

  static final int PAGE_LENGTH = 512;
  static final int SDD_LENGTH = 20_000;
  static final int IMAGE_LENGTH = 65_535;
  static final float REAL_VALUE = 1234.5f;
  static final int TICK_MODULUS = 16384;
  static final int SIGNAL_INDEX_MODULUS = 1024;

  /** Array_10 and Array_10000: Double[n] with element k = k + 0.5. */
  static final Map<String, double[]> ARRAYS = Map.of("Array_10", array(10), "Array_10000", array(10000));

  static final short[] PAGE = page();
  static final byte[] SDD = sdd();
  static final byte[] IMAGE = image();

  private Model() {}

  static float signal(int index, long tick) {
    return (float) ((index % SIGNAL_INDEX_MODULUS) * TICK_MODULUS + (tick % TICK_MODULUS));
  }

  static String signalName(int index) {
    return "Signal_" + index;
  }

  static String writeName(int index) {
    return "Write_" + index;
  }

  private static double[] array(int length) {
    double[] array = new double[length];
    for (int k = 0; k < length; k++) {
      array[k] = k + 0.5;
    }
    return array;
  }

  private static short[] page() {
    short[] page = new short[PAGE_LENGTH];
    for (int k = 0; k < PAGE_LENGTH; k++) {
      page[k] = (short) (((k * 37) % 65536) - 32768);
    }
    return page;
  }

  private static byte[] sdd() {
    byte[] sdd = new byte[SDD_LENGTH];
    for (int k = 0; k < SDD_LENGTH; k++) {
      sdd[k] = (byte) ((k * 31 + 7) % 256);
    }
    return sdd;
  }

  private static byte[] image() {
    byte[] image = new byte[IMAGE_LENGTH];
    for (int k = 0; k < IMAGE_LENGTH; k++) {
      image[k] = (byte) ((k * 13 + 1) % 256);
    }
    return image;
  }
}
