package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The timeline of SPEC §6 against the reference's rules (uabench_contract.Timeline): windows from
 * the start of warm-up, completions counted by completion time, arrays cut or padded to end_ns.
 */
class TimelineTest {

  private static final long WINDOW = 100_000_000L;

  @Test
  void countsSuccessfulCompletionsPerWindowFromTheStartOfWarmUp() {
    Timeline timeline = new Timeline(100);
    long start = 5_000;
    timeline.begin(start, 250_000_000L);
    long[][] completions = {
      {start - 1, 7}, {start, 1}, {start + WINDOW - 1, 2}, {start + WINDOW, 3},
      {start + 2 * WINDOW + 1, 4}, {start + 3 * WINDOW, 9}
    };
    for (long[] c : completions) {
      timeline.completed(c[0], c[1]);
    }
    JsonNode json = timeline.toJson(6_000, 6_000 + 250_000_000L);
    assertEquals(
        "{\"window_ms\":100,\"start_ns\":6000,\"ops\":[2,1,1],\"values\":[3,3,4]}", json.toString());
    assertEquals("[2]", timeline.toJson(6_000, 6_000 + WINDOW).get("ops").toString());
    assertEquals("[2,1,1,0]", timeline.toJson(6_000, 6_000 + 4 * WINDOW).get("ops").toString());
    assertEquals(
        "{\"window_ms\":100,\"start_ns\":42,\"ops\":[],\"values\":[]}",
        new Timeline(100).toJson(0, 42).toString());
  }
}
