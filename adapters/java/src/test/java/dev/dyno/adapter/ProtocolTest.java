package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.JSON;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.parse;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.run;
import static dev.dyno.adapter.TestSupport.testCase;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.dyno.protocol.Worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProtocolTest {
  static ArrayNode noopCases() {
    ArrayNode cases = JSON.createArrayNode();
    for (String v : List.of("0x", "0x00", "0xdeadbeef")) {
      cases.add(testCase(obj().put("value", v), obj().put("value", v)));
    }
    return cases;
  }

  @Test
  void helloDescribesTheWorker() {
    JsonNode h = worker().handle(parse("{\"type\":\"hello\",\"protocol\":1,\"extra\":true}"));
    assertEquals("hello", h.get("type").asText());
    assertEquals(1, h.get("protocol").asInt());
    assertEquals("java", h.at("/runtime/name").asText());
    assertEquals(System.getProperty("java.runtime.version"), h.at("/runtime/version").asText());
    assertTrue(h.at("/runtime/flags").isArray());
    assertEquals("dyno-adapter-java", h.at("/adapter/name").asText());
    assertTrue(h.get("jit").asBoolean());
    assertEquals("System.nanoTime", h.at("/clock/source").asText());
    assertTrue(h.at("/clock/resolution_ns").asLong() > 0);
    JsonNode libs = h.get("libraries");
    for (String ga :
        List.of(
            "org.bouncycastle:bcprov-jdk18on",
            "org.web3j:crypto",
            "com.fasterxml.jackson.core:jackson-databind",
            "io.consensys.protocols:jc-kzg-4844")) {
      assertTrue(libs.path(ga).asText().matches("\\d+(\\.\\d+)+"), () -> ga + " in " + libs);
    }
    Set<String> pairs = new HashSet<>();
    for (JsonNode b : h.get("benchmarks")) {
      String impl = b.get("implementation").asText();
      assertEquals(impl.toLowerCase(java.util.Locale.ROOT), impl);
      assertTrue(pairs.add(b.get("id").asText() + " " + impl), "duplicate " + b);
      String lib = b.get("library").asText();
      assertTrue(lib.equals("-") || libs.has(lib), () -> "library " + lib + " not in libraries");
    }
    assertTrue(pairs.contains("harness/noop/empty java-noop"));
    assertTrue(pairs.contains("hash/keccak256/32B bouncycastle"));
    assertTrue(pairs.contains("hash/keccak256/32B web3j"));
    assertTrue(pairs.contains("crypto/secp256k1-sign/recid-trial web3j"));
    assertTrue(pairs.contains("jsonrpc/getlogs-typed/1000 jackson"));
  }

  @Test
  void noopPreparesAndRuns() {
    Worker w = worker();
    ArrayNode cases = noopCases();
    JsonNode p = w.handle(prepare("harness/noop/empty", "java-noop", cases));
    TestSupport.assertPrepared(p, cases);
    assertEquals("harness/noop/empty", p.get("id").asText());
    JsonNode r = w.handle(run(1000, 5));
    assertEquals("samples", r.get("type").asText(), r::toString);
    assertEquals(5, r.get("ns").size());
    for (JsonNode ns : r.get("ns")) {
      assertTrue(ns.isIntegralNumber() && ns.asLong() > 0, r::toString);
    }
    // asLong() of a missing node is 0, so each field must first be there
    // and be a whole number
    for (String field : new String[] {"/gc/count", "/gc/time_ns", "/alloc/bytes"}) {
      JsonNode n = r.at(field);
      assertTrue(n.isIntegralNumber() && n.asLong() >= 0, () -> field + " in " + r);
    }
    // the heap holds at least this worker's own objects while it runs
    assertTrue(r.at("/gc/heap_peak_bytes").isIntegralNumber(), r::toString);
    assertTrue(r.at("/gc/heap_peak_bytes").asLong() > 0, r::toString);
    assertFalse(r.has("alloc") && r.get("alloc").has("count"), "object counts are not measured");
  }

  @Test
  void positionCarriesOverBetweenRuns() {
    Worker w = worker();
    w.handle(prepare("harness/noop/empty", "java-noop", noopCases()));
    Worker.blackhole = 0;
    // lengths 0, 1, 4: one iteration per run visits the cases in order, then wraps.
    long[] seen = new long[4];
    for (int i = 0; i < 4; i++) {
      long before = Worker.blackhole;
      w.handle(run(1, 1));
      seen[i] = Worker.blackhole ^ before;
    }
    assertEquals(List.of(0L, 1L, 4L, 0L), List.of(seen[0], seen[1], seen[2], seen[3]));
  }

  @Test
  void corruptedExpectedIsAMismatch() {
    Worker w = worker();
    ArrayNode cases = noopCases();
    JsonNode m = w.handle(prepare("harness/noop/empty", "java-noop", TestSupport.corrupt(cases, 2, "value")));
    assertEquals("mismatch", m.get("type").asText(), m::toString);
    assertEquals(2, m.get("case").asInt());
    assertEquals("value", m.get("field").asText());
    assertEquals("0xdeadbeef", m.get("actual").asText());
    assertEquals("0xdeadbee0", m.get("expected").asText());
    // a failed prepare leaves no current benchmark
    assertEquals("error", w.handle(run(10, 1)).get("type").asText());
  }

  @Test
  void errors() {
    Worker w = worker();
    JsonNode e = w.handle(run(10, 1));
    assertEquals("error", e.get("type").asText());
    assertFalse(e.get("fatal").asBoolean());
    e = w.handle(prepare("crypto/foo/bar", "bouncycastle", noopCases()));
    assertEquals("error", e.get("type").asText());
    assertTrue(e.get("message").asText().contains("crypto/foo/bar"));
    e = w.handle(prepare("hash/keccak256/32B", "no-such-impl", noopCases()));
    assertEquals("error", e.get("type").asText());
    // unparseable input
    ArrayNode bad = JSON.createArrayNode();
    bad.add(testCase(obj().put("data", "0xzz"), obj().put("digest", "0x00")));
    e = w.handle(prepare("hash/keccak256/32B", "bouncycastle", bad));
    assertEquals("error", e.get("type").asText(), e::toString);
    assertEquals("error", w.handle(parse("{\"type\":\"bogus\"}")).get("type").asText());
    w.handle(prepare("harness/noop/empty", "java-noop", noopCases()));
    assertEquals("error", w.handle(run(0, 1)).get("type").asText());
    assertEquals("error", w.handle(run(1, 0)).get("type").asText());
    assertEquals("samples", w.handle(run(1, 1)).get("type").asText());
  }

  private static List<JsonNode> serve(String input, int expectedExit) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Worker w = new Worker(Main.adapter(), out);
    int code = w.serve(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
    assertEquals(expectedExit, code);
    return out.toString(StandardCharsets.UTF_8).lines().map(TestSupport::parse).toList();
  }

  @Test
  void servesJsonLinesUntilEof() {
    String in =
        "{\"type\":\"hello\",\"protocol\":1}\n"
            + prepare("harness/noop/empty", "java-noop", noopCases())
            + "\n"
            + run(100, 3)
            + "\n";
    List<JsonNode> replies = serve(in, 0);
    assertEquals(
        List.of("hello", "prepared", "samples"),
        replies.stream().map(r -> r.get("type").asText()).toList());
  }

  @Test
  void unparseableRequestIsFatal() {
    List<JsonNode> replies = serve("{\"type\":\"hello\",\"protocol\":1}\nnot json\n{\"type\":\"hello\"}\n", 2);
    assertEquals(2, replies.size());
    assertEquals("error", replies.get(1).get("type").asText());
    assertTrue(replies.get(1).get("fatal").asBoolean());
  }
}
