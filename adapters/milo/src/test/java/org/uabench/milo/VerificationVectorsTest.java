package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.eclipse.milo.opcua.stack.core.types.builtin.DataValue;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.StatusCode;
import org.eclipse.milo.opcua.stack.core.types.builtin.Variant;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * contract/vectors/verification.json, the rules every client implements by hand, replayed through
 * this adapter's own verifiers (TickVerification, ReadBackVerification, LowestInFlight,
 * SubscribeWorkload's lifetime count, Timeline) with Milo's own DataValue, Variant, DateTime,
 * StatusCode and UInteger, so the Milo client is held to the same golden vectors as the others.
 * The file is found as ContractVectorsTest finds the other vectors (-Duabench.vectors=DIR).
 */
class VerificationVectorsTest {

  /** 1970-01-01 in OPC UA DateTime units (100 ns since 1601), by Milo's own conversion. */
  private static final long UNIX_EPOCH = new DateTime(Instant.EPOCH).getUtcTime();
  /** TickVerification's "no tick yet": a request sent before any tick arrived. */
  private static final long NO_TICK_YET = -1;

  // -- one dynamic test per vector of each section, named by the vector --

  @TestFactory
  Stream<DynamicTest> read() throws IOException {
    return each("read", VerificationVectorsTest::named, VerificationVectorsTest::replayRead);
  }

  @TestFactory
  Stream<DynamicTest> readBack() throws IOException {
    return each("read_back", VerificationVectorsTest::named, VerificationVectorsTest::replayReadBack);
  }

  @TestFactory
  Stream<DynamicTest> lowestInFlight() throws IOException {
    return each(
        "lowest_in_flight", VerificationVectorsTest::named, VerificationVectorsTest::replayLowest);
  }

  @TestFactory
  Stream<DynamicTest> lifetime() throws IOException {
    // Lifetime vectors have no name: their inputs are one.
    Function<JsonNode, String> inputs =
        v -> "session timeout " + v.get("session_timeout_ms") + " ms, interval "
            + v.get("publishing_interval_ms") + " ms, keep-alive " + v.get("keep_alive_count");
    return each("lifetime", inputs, VerificationVectorsTest::replayLifetime);
  }

  @TestFactory
  Stream<DynamicTest> timeline() throws IOException {
    return each("timeline", VerificationVectorsTest::named, VerificationVectorsTest::replayTimeline);
  }

  private static Stream<DynamicTest> each(
      String section, Function<JsonNode, String> name, Consumer<JsonNode> replay)
      throws IOException {
    JsonNode vectors = ContractVectorsTest.vectors("verification.json").get(section);
    // A section renamed or emptied would otherwise pass without testing anything.
    assertTrue(vectors != null && vectors.size() > 0, "verification.json has no " + section);
    return StreamSupport.stream(vectors.spliterator(), false).map(v -> {
      String title = section + ": " + name.apply(v);
      return DynamicTest.dynamicTest(title, () -> {
        try {
          replay.accept(v);
        } catch (AssertionError e) {
          // Surefire's report names a dynamic test by its index: say which vector failed.
          throw new AssertionError(title + ": " + e.getMessage(), e);
        }
      });
    });
  }

  private static String named(JsonNode vector) {
    return vector.get("name").asText();
  }

  // -- the sections' replays --

  /**
   * SPEC §3 R1–R4, as the read workload judges a response: each session's TickVerification keeps
   * sentAfter() when a request is sent; a response's values, read at positions first, first+1,
   * ... of the node list, are judged against the Tick it carries and that kept value, each after
   * its R5 check (Verify), warm-up (measured false) judged too but not counted.
   */
  private static void replayRead(JsonNode vector) {
    List<String> nodes = strings(vector.get("nodes"));
    List<TickVerification> sessions =
        IntStream.range(0, vector.get("sessions").asInt())
            .mapToObj(s -> new TickVerification(nodes))
            .toList();
    Map<String, Long> kept = new HashMap<>();
    int number = 0;
    for (JsonNode step : vector.get("steps")) {
      String where = "step " + number++;
      if (step.has("send")) {
        JsonNode send = step.get("send");
        kept.put(send.get("request").asText(), sessions.get(send.get("session").asInt()).sentAfter());
        continue;
      }
      JsonNode response = step.get("response");
      assertNotNull(response, where + " is neither a send nor a response");
      TickVerification session = sessions.get(response.get("session").asInt());
      JsonNode request = response.get("request");
      Long sentAfter = request.isNull() ? NO_TICK_YET : kept.remove(request.asText());
      assertNotNull(sentAfter, where + " answers a request never sent");
      int first = response.get("first").asInt();
      JsonNode values = response.get("values");
      DataValue[] read = new DataValue[values.size()];
      for (int j = 0; j < read.length; j++) {
        JsonNode v = values.get(j);
        assertEquals(nodes.get((first + j) % nodes.size()), v.get("node").asText(), where);
        read[j] = dataValue(v.get("type").asText(), v.get("value"), 0, v.get("source_us"));
      }
      long received = units(response.get("received_us").asLong());
      boolean measured = response.get("measured").asBoolean();
      long tick = session.responseTick(read, first);
      for (int j = 0; j < read.length; j++) {
        int position = (first + j) % nodes.size();
        Object value = read[j].getValue().getValue();
        String failure = Verify.forNode(nodes.get(position)).apply(value);
        if (failure == null) {
          failure =
              session.judge(
                  position, value, read[j].getSourceTime(), tick, sentAfter, received, measured);
        }
        expect(response.get("fails").get(j), failure, where + " value " + j);
      }
    }
    assertEquals(
        vector.get("ticks_advanced").asLong(), TickVerification.ticksAdvanced(sessions),
        "ticks_advanced");
  }

  /** SPEC §3 W1: one value read back after session 0's sampled write, judged with its C. */
  private static void replayReadBack(JsonNode vector) {
    List<String> nodes = strings(vector.get("nodes"));
    ReadBackVerification judge =
        new ReadBackVerification(
            nodes, vector.get("sessions").asInt(), vector.get("nodes_per_request").asInt());
    DataValue value =
        dataValue(
            vector.get("type").asText(), vector.get("value"), vector.get("status_code").asLong(),
            null);
    String failure =
        judge.judge(
            nodes.indexOf(vector.get("node").asText()), value, vector.get("request").asLong(),
            vector.get("lowest").asLong());
    expect(vector.get("fails"), failure, "the value read back");
  }

  /**
   * SPEC §3 W1's C as session 0's requests are sent and finish. When none is in flight, C is the
   * index the next request gets: the workload asks right after allotting it, so it is in flight.
   */
  private static void replayLowest(JsonNode vector) {
    LowestInFlight tracker = new LowestInFlight(1); // the smallest: the steps also grow it
    long next = 0;
    int number = 0;
    for (JsonNode step : vector.get("steps")) {
      String where = "step " + number++ + " " + step;
      if (step.has("sent")) {
        tracker.sent(step.get("sent").asLong());
        next = step.get("sent").asLong() + 1;
      } else if (step.has("finished")) {
        tracker.completed(step.get("finished").asLong());
      } else if (step.has("lowest")) {
        assertEquals(step.get("lowest").asLong(), tracker.lowest(next), where);
      } else {
        fail(where + ": an unknown step");
      }
    }
  }

  /** SPEC §3 subscribe: the lifetime count SubscribeWorkload asks for. */
  private static void replayLifetime(JsonNode vector) {
    assertEquals(
        vector.get("lifetime_count").asLong(),
        SubscribeWorkload.lifetimeCount(
            vector.get("session_timeout_ms").asDouble(),
            vector.get("publishing_interval_ms").asDouble(),
            vector.get("keep_alive_count").asLong()));
  }

  /**
   * SPEC §6 timeline. The workloads give toJson the timeline's start on the record's clock; here
   * the vector's offset_ns maps the one clock to the other.
   */
  private static void replayTimeline(JsonNode vector) {
    Timeline timeline = new Timeline(vector.get("window_ms").asInt());
    JsonNode begin = vector.get("begin");
    long offset = 0;
    if (!begin.isNull()) {
      timeline.begin(begin.get("start_ns").asLong(), begin.get("span_ns").asLong());
      offset = begin.get("offset_ns").asLong();
    }
    for (JsonNode completion : vector.get("completions")) {
      timeline.completed(completion.get(0).asLong(), completion.get(1).asLong());
    }
    JsonNode got = timeline.toJson(timeline.start() + offset, vector.get("end_ns").asLong());
    JsonNode want = vector.get("record");
    assertTrue(want.equals(ContractVectorsTest.NUMBERS, got), "want " + want + ", got " + got);
  }

  // -- vector values as Milo's types --

  /**
   * A value as Milo decodes it off the wire, a DataValue of a Variant of the vector's type (null:
   * no value), with the StatusCode and the SourceTimestamp (µs since 1970; null: none).
   */
  private static DataValue dataValue(String type, JsonNode value, long status, JsonNode sourceUs) {
    Variant variant = value.isNull() ? Variant.NULL_VALUE : new Variant(decoded(type, value));
    DateTime source =
        sourceUs == null || sourceUs.isNull() ? null : new DateTime(units(sourceUs.asLong()));
    return new DataValue(variant, new StatusCode(status), source, null);
  }

  /** The Java type Milo decodes each built-in type the vectors use into. */
  private static Object decoded(String type, JsonNode value) {
    return switch (type) {
      case "UInt32" -> UInteger.valueOf(value.asLong());
      case "Float" -> (float) value.asDouble();
      case "Double" -> value.asDouble();
      default -> throw new IllegalArgumentException("a vector value of type " + type);
    };
  }

  /** µs since 1970 in the DateTime units TickVerification compares (its receive clock too). */
  private static long units(long us) {
    return UNIX_EPOCH + us * 10;
  }

  private static List<String> strings(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }

  /** A vector's `fails`: null, the value passes; else its failure contains every fragment. */
  private static void expect(JsonNode fragments, String failure, String where) {
    if (fragments.isNull()) {
      assertNull(failure, where);
      return;
    }
    assertNotNull(failure, where + " passed, expected a failure with " + fragments);
    for (JsonNode fragment : fragments) {
      assertTrue(failure.contains(fragment.asText()), where + ": " + failure + " lacks " + fragment);
    }
  }
}
