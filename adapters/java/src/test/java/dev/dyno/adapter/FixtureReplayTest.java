package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.assertPrepared;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.dyno.protocol.Benchmarks;
import dev.dyno.protocol.Worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays adapters/testdata/prepare.jsonl (real prepare requests exported by the Rust side): every
 * line an implementation here supports is prepared with each such implementation and must match;
 * a corrupted expected value must be a mismatch; ids no implementation here offers (by exact id or
 * by a hello pattern) are errors.
 */
class FixtureReplayTest {
  static Path fixture() {
    String p = System.getProperty("dyno.fixture", "");
    return p.isEmpty() ? TestSupport.repo().resolve("adapters/testdata/prepare.jsonl") : Path.of(p);
  }

  @TestFactory
  List<DynamicTest> replay() throws IOException {
    Path f = fixture();
    assertTrue(Files.isRegularFile(f), () -> "fixture missing: " + f);
    Map<String, List<String>> impls = new LinkedHashMap<>();
    JsonNode hello = worker().hello();
    for (JsonNode b : hello.get("benchmarks")) {
      impls
          .computeIfAbsent(b.get("id").asText(), k -> new ArrayList<>())
          .add(b.get("implementation").asText());
    }
    JsonNode patterns = hello.get("patterns");
    List<DynamicTest> tests = new ArrayList<>();
    int supported = 0;
    List<String> lines = Files.readAllLines(f);
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n);
      if (line.isBlank()) {
        continue;
      }
      JsonNode req = TestSupport.parse(line);
      String id = req.get("id").asText();
      List<String> ours = new ArrayList<>(impls.getOrDefault(id, List.of()));
      for (JsonNode p : patterns) {
        String impl = p.get("implementation").asText();
        if (Benchmarks.matches(p.get("id").asText(), id) && !ours.contains(impl)) {
          ours.add(impl);
        }
      }
      String where = "line " + (n + 1) + " " + id;
      if (ours.isEmpty()) {
        tests.add(
            DynamicTest.dynamicTest(
                where + " (unsupported)",
                () -> {
                  JsonNode r = worker().handle(req);
                  assertEquals("error", r.get("type").asText(), r::toString);
                }));
        continue;
      }
      supported++;
      for (String impl : ours) {
        tests.add(DynamicTest.dynamicTest(where + " " + impl, () -> replayOne(req, impl)));
      }
    }
    assertTrue(supported > 0, "the fixture has no line this adapter supports");
    return tests;
  }

  static void replayOne(JsonNode line, String impl) {
    ObjectNode req = line.deepCopy();
    req.put("implementation", impl);
    JsonNode cases = req.get("cases");
    Worker w = worker();
    assertPrepared(w.handle(req), cases);
    JsonNode firstExpected = cases.get(0).get("expected");
    String field = firstExpected.fieldNames().next();
    ArrayNode bad = TestSupport.corrupt(cases, 0, field);
    req.set("cases", bad);
    JsonNode m = w.handle(req);
    assertEquals("mismatch", m.get("type").asText(), m::toString);
    assertEquals(0, m.get("case").asInt());
    assertEquals(field, m.get("field").asText());
  }
}
