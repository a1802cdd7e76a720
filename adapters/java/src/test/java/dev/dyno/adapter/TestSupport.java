package dev.dyno.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.dyno.protocol.Worker;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Helpers shared by the tests: the in-process worker, the repo's vectors, SplitMix64 inputs. */
final class TestSupport {
  static final ObjectMapper JSON = new ObjectMapper();

  static {
    JSON.getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build());
  }

  private TestSupport() {}

  /** The repository root (pom.xml passes it as dyno.repo; defaults to ../.. of the module). */
  static Path repo() {
    String p = System.getProperty("dyno.repo");
    return Path.of(p == null || p.isEmpty() ? "../.." : p).toAbsolutePath().normalize();
  }

  static JsonNode read(Path p) {
    try {
      return JSON.readTree(Files.readString(p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode vectors(String name) {
    return read(repo().resolve("vectors").resolve(name + ".json")).get("cases");
  }

  static JsonNode parse(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A fresh in-process worker (its replies are returned, not written). */
  static Worker worker() {
    return new Worker(Main.adapter(), new ByteArrayOutputStream());
  }

  static ObjectNode obj() {
    return JsonNodeFactory.instance.objectNode();
  }

  static ObjectNode prepare(String id, String impl, ArrayNode cases) {
    ObjectNode r = obj().put("type", "prepare").put("id", id).put("implementation", impl);
    r.set("cases", cases);
    return r;
  }

  static ObjectNode run(int iterations, int samples) {
    return obj().put("type", "run").put("iterations", iterations).put("samples", samples);
  }

  static ObjectNode testCase(ObjectNode input, ObjectNode expected) {
    ObjectNode c = obj();
    c.set("input", input);
    c.set("expected", expected);
    return c;
  }

  /** Asserts a {@code prepared} reply whose outputs equal every case's expected fields. */
  static void assertPrepared(JsonNode reply, JsonNode cases) {
    assertEquals("prepared", reply.path("type").asText(), reply::toString);
    assertEquals(cases.size(), reply.path("cases").asInt(), reply::toString);
    JsonNode outs = reply.get("outputs");
    assertEquals(cases.size(), outs.size());
    for (int i = 0; i < cases.size(); i++) {
      JsonNode exp = cases.get(i).get("expected");
      for (Map.Entry<String, JsonNode> f : exp.properties()) {
        JsonNode got = outs.get(i).get(f.getKey());
        final int c = i;
        assertEquals(
            canonical(f.getValue()), canonical(got), () -> "case " + c + " field " + f.getKey());
      }
    }
  }

  static String canonical(JsonNode n) {
    if (n == null) {
      return "<missing>";
    }
    if (n.isTextual()) {
      return n.asText().toLowerCase(java.util.Locale.ROOT);
    }
    if (n.isIntegralNumber()) {
      return n.bigIntegerValue().toString();
    }
    return n.toString();
  }

  /** A copy of {@code cases} whose case {@code i}, field {@code field}, is changed. */
  static ArrayNode corrupt(JsonNode cases, int i, String field) {
    ArrayNode copy = cases.deepCopy();
    ObjectNode exp = (ObjectNode) copy.get(i).get("expected");
    exp.set(field, corrupted(exp.get(field)));
    return copy;
  }

  static JsonNode corrupted(JsonNode v) {
    if (v.isBoolean()) {
      return BooleanNode.valueOf(!v.asBoolean());
    }
    if (v.isIntegralNumber()) {
      return LongNode.valueOf(v.asLong() ^ 1);
    }
    String s = v.asText();
    if (s.length() <= 2) {
      return TextNode.valueOf("0x00");
    }
    char last = s.charAt(s.length() - 1);
    return TextNode.valueOf(s.substring(0, s.length() - 1) + (last == '0' ? '1' : '0'));
  }

  /** SplitMix64 bytes, as crates/workload/src/seq.rs makes benchmark inputs. */
  static byte[] seq(long seed, int n) {
    byte[] out = new byte[n];
    long s = seed;
    for (int i = 0; i < n; i += 8) {
      s += 0x9E3779B97F4A7C15L;
      long z = s;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      z ^= z >>> 31;
      for (int b = 0; b < 8 && i + b < n; b++) {
        out[i + b] = (byte) (z >>> (8 * b));
      }
    }
    return out;
  }
}
