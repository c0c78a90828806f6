package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.uabench.milo.Protocol.ConfigException;

/**
 * The shared golden vectors of contract/vectors (path in the system property uabench.vectors, set
 * by the pom) run through this adapter's own Config, Schema, Histogram, Model and Verify. Milo's
 * adapter has no PubSub roles, so their config vectors do not apply to it.
 */
class ContractVectorsTest {

  private static final List<String> ROLES = List.of("server", "client");

  /** One vectors file; VerificationVectorsTest reads verification.json through it too. */
  static JsonNode vectors(String name) throws IOException {
    Path dir = Path.of(System.getProperty("uabench.vectors", "../../contract/vectors"));
    return Protocol.JSON.readTree(dir.resolve(name).toFile());
  }

  private static Object asRun(String role, JsonNode config) throws ConfigException {
    ObjectNode raw = (ObjectNode) config.deepCopy();
    return role.equals("server") ? Config.server(raw).asRun() : Config.client(raw).asRun();
  }

  /** Numbers compare by value (100 and 100.0 are one value, as in the other adapters). */
  static final Comparator<JsonNode> NUMBERS =
      (a, b) ->
          a.isNumber() && b.isNumber()
              ? Double.compare(a.asDouble(), b.asDouble())
              : a.equals(b) ? 0 : 1;

  @TestFactory
  Stream<DynamicTest> badConfigsNameTheKey() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode vector : vectors("configs.json").get("bad")) {
      String role = vector.get("role").asText();
      if (!ROLES.contains(role)) {
        continue;
      }
      assertEquals("config", vector.get("kind").asText());
      assertEquals(Protocol.EXIT_CONFIG, vector.get("exit").asInt());
      String key = vector.get("key").asText();  // contained in the message (contract/README.md)
      tests.add(DynamicTest.dynamicTest(role + " " + vector.get("config") + " names " + key, () -> {
        ConfigException error =
            assertThrows(ConfigException.class, () -> asRun(role, vector.get("config")));
        assertTrue(error.getMessage().contains(key), error.getMessage() + " does not name " + key);
      }));
    }
    return tests.stream();
  }

  /** An unreadable vector's file: each [hex, times] part's bytes `times` times, in order. */
  private static byte[] fileBytes(JsonNode parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (JsonNode part : parts) {
      byte[] bytes = HexFormat.of().parseHex(part.get(0).asText());
      for (int n = part.get(1).asInt(); n > 0; n--) {
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toByteArray();
  }

  @TestFactory
  Stream<DynamicTest> unreadableConfigsSayWhy(@TempDir Path dir) throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode vector : vectors("configs.json").get("unreadable")) {
      String role = vector.get("role").asText();
      assertEquals("config", vector.get("kind").asText());
      assertEquals(Protocol.EXIT_CONFIG, vector.get("exit").asInt());
      String says = vector.get("says").asText();
      tests.add(DynamicTest.dynamicTest(vector.get("name").asText() + " says " + says, () -> {
        Path file = dir.resolve("config.json");
        Files.write(file, fileBytes(vector.get("parts")));
        ConfigException error =
            assertThrows(ConfigException.class, () -> asRun(role, Config.load(file.toString())));
        assertTrue(error.getMessage().contains(says), error.getMessage() + " does not say " + says);
      }));
    }
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> goodConfigsFillTheDefaults() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode vector : vectors("configs.json").get("good")) {
      String role = vector.get("role").asText();
      if (!ROLES.contains(role)) {
        continue;
      }
      tests.add(DynamicTest.dynamicTest(role + " " + vector.get("config"), () -> {
        JsonNode got = (JsonNode) asRun(role, vector.get("config"));
        JsonNode want = vector.get("filled");
        assertTrue(want.equals(NUMBERS, got), "want " + want + ", got " + got);
      }));
    }
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> histograms() throws IOException {
    JsonNode vectors = vectors("histogram.json");
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode vector : vectors.get("buckets")) {
      tests.add(DynamicTest.dynamicTest("bucket " + vector, () -> {
        long bucket = vector.get("bucket").asLong();
        for (String bound : List.of("value_ns", "low", "high")) {
          assertEquals(bucket, Histogram.bucket(vector.get(bound).asLong()), bound);
        }
      }));
    }
    for (JsonNode vector : vectors.get("histograms")) {
      tests.add(DynamicTest.dynamicTest("histogram " + vector.get("values_ns"), () -> {
        Histogram histogram = new Histogram();
        vector.get("values_ns").forEach(v -> histogram.record(v.asLong()));
        JsonNode got = histogram.toJson();
        assertTrue(vector.get("sparse").equals(NUMBERS, got), "want " + vector.get("sparse") + ", got " + got);
      }));
    }
    return tests.stream();
  }

  /** A verification vector's value as Milo would decode it from that node's DataType. */
  private static Object decoded(String node, JsonNode value) {
    if (node.equals("Tick")) {
      long v = value.asLong();
      return value.isIntegralNumber() && v >= 0 && v <= 0xFFFFFFFFL ? UInteger.valueOf(v) : (Object) v;
    }
    if (node.startsWith("Signal_") || node.equals("Real")) {
      return (float) value.asDouble();
    }
    return value.asDouble();
  }

  @TestFactory
  Stream<DynamicTest> valueFunctions() throws IOException {
    JsonNode vectors = vectors("values.json");
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode v : vectors.get("signal")) {
      tests.add(DynamicTest.dynamicTest("signal " + v, () ->
          assertEquals(v.get("value").asDouble(),
              Model.signal(v.get("index").asInt(), v.get("tick").asLong()))));
    }
    for (JsonNode v : vectors.get("verify")) {
      tests.add(DynamicTest.dynamicTest("verify " + v, () -> {
        String node = v.get("node").asText();
        String reason = Verify.forNode(node).apply(decoded(node, v.get("value")));
        assertEquals(v.get("valid").asBoolean(), reason == null, String.valueOf(reason));
      }));
    }
    tests.add(DynamicTest.dynamicTest("real", () ->
        assertEquals(vectors.get("real").asDouble(), Model.REAL_VALUE)));
    tests.add(contents("page", vectors.get("page"), k -> Model.PAGE[k], Model.PAGE.length));
    tests.add(contents("sdd", vectors.get("sdd"), k -> Model.SDD[k] & 0xFF, Model.SDD.length));
    tests.add(contents("image", vectors.get("image"), k -> Model.IMAGE[k] & 0xFF, Model.IMAGE.length));
    vectors.get("arrays").fields().forEachRemaining(entry -> {
      double[] array = Model.ARRAYS.get(entry.getKey());
      assertNotNull(array, entry.getKey());
      tests.add(contents(entry.getKey(), entry.getValue(), k -> array[k], array.length));
    });
    return tests.stream();
  }

  private static DynamicTest contents(
      String name, JsonNode vector, java.util.function.IntToDoubleFunction element, int length) {
    return DynamicTest.dynamicTest(name, () -> {
      assertEquals(vector.get("length").asInt(), length, name + " length");
      for (JsonNode sample : vector.get("samples")) {
        int k = sample.get(0).asInt();
        assertEquals(sample.get(1).asDouble(), element.applyAsDouble(k), name + "[" + k + "]");
      }
      double sum = 0;
      for (int k = 0; k < length; k++) {
        sum += element.applyAsDouble(k);
      }
      assertEquals(vector.get("sum").asDouble(), sum, name + " sum");
    });
  }
}
