package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** SPEC §6 latencies: completion order, latencies of at least 1, at most a million listed. */
class LatenciesTest {

  @Test
  void listsEveryRequestInCompletionOrder() throws Exception {
    Latencies latencies = new Latencies();
    latencies.record(30, 5);
    latencies.record(10, 0);
    latencies.record(20, 7);
    String json = Protocol.JSON.writeValueAsString(latencies.toJson());
    assertEquals("{\"send_ns\":[30,10,20],\"latency_ns\":[5,1,7],\"truncated\":0}", json);
  }

  @Test
  void countsWhatIsBeyondAMillion() throws Exception {
    Latencies latencies = new Latencies();
    for (long i = 0; i < Latencies.MAX + 3L; i++) {
      latencies.record(i, i + 1);
    }
    assertEquals(Latencies.MAX, latencies.size());
    assertEquals(3, latencies.truncated());
    JsonNode json = Protocol.JSON.readTree(Protocol.JSON.writeValueAsString(latencies.toJson()));
    assertEquals(Latencies.MAX, json.get("send_ns").size());
    assertEquals(Latencies.MAX, json.get("latency_ns").get(Latencies.MAX - 1).asLong());
    assertEquals(3, json.get("truncated").asLong());
  }
}
