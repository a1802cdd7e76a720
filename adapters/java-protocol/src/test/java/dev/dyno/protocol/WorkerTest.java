package dev.dyno.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The protocol loop with a toy adapter: byte reversal on {@code toy/reverse/4B}. */
class WorkerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reverses each case's {@code data}. */
  static final class Reverse extends Kernel {
    private final byte[][] data;

    Reverse(JsonNode cases) {
      data = new byte[cases.size()][];
      for (int i = 0; i < data.length; i++) {
        data[i] = hex(input(cases.get(i)), "data");
      }
    }

    static byte[] reverse(byte[] b) {
      byte[] r = new byte[b.length];
      for (int i = 0; i < b.length; i++) {
        r[i] = b[b.length - 1 - i];
      }
      return r;
    }

    @Override
    public int size() {
      return data.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("data", Hex.encode(reverse(data[i])));
    }

    @Override
    public long batch(int iterations) {
      long acc = 0;
      int p = pos;
      for (int i = 0; i < iterations; i++) {
        acc += reverse(data[p])[0];
        if (++p == data.length) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  static Adapter toy() {
    return new Adapter(
        "toy-adapter",
        "0.0.1",
        "toy",
        Map.of("toylib", "1.2.3"),
        new Benchmarks().add("toy/reverse/4B", "toy-reverse", "-", Reverse::new));
  }

  private final Worker worker = new Worker(toy(), new ByteArrayOutputStream());

  JsonNode ask(String request) throws Exception {
    return worker.handle(JSON.readTree(request));
  }

  static String prepare(String id, String impl, String cases) {
    return "{\"type\":\"prepare\",\"id\":\"" + id + "\",\"implementation\":\"" + impl
        + "\",\"cases\":" + cases + "}";
  }

  @Test
  void helloListsTheAdapterAndTheHarnessIds() throws Exception {
    JsonNode h = ask("{\"type\":\"hello\",\"protocol\":1}");
    assertEquals(Worker.PROTOCOL, h.get("protocol").asInt());
    assertEquals("toy-adapter", h.at("/adapter/name").asText());
    assertEquals("1.2.3", h.at("/libraries/toylib").asText());
    List<String> pairs = new ArrayList<>();
    h.get("benchmarks").forEach(b -> pairs.add(b.get("id").asText() + " " + b.get("implementation").asText()));
    assertEquals(
        List.of(
            "toy/reverse/4B toy-reverse",
            "harness/noop/empty toy-noop",
            "harness/sleep/1ms toy-sleep"),
        pairs);
  }

  @Test
  void prepareChecksEveryOutputThenRunTimesTheLoop() throws Exception {
    String good =
        "[{\"input\":{\"data\":\"0x01020304\"},\"expected\":{\"data\":\"0x04030201\"}},"
            + "{\"input\":{\"data\":\"0xaabbccdd\"},\"expected\":{\"data\":\"0xDDCCBBAA\"}}]";
    JsonNode ok = ask(prepare("toy/reverse/4B", "toy-reverse", good));
    assertEquals("prepared", ok.get("type").asText(), ok.toString());
    assertEquals("toy/reverse/4B", ok.get("id").asText());
    assertEquals("0xddccbbaa", ok.at("/outputs/1/data").asText());
    JsonNode run = ask("{\"type\":\"run\",\"iterations\":5,\"samples\":3}");
    assertEquals(3, run.get("ns").size(), run.toString());
    String bad = "[{\"input\":{\"data\":\"0x01020304\"},\"expected\":{\"data\":\"0x00\"}}]";
    JsonNode mismatch = ask(prepare("toy/reverse/4B", "toy-reverse", bad));
    assertEquals("mismatch", mismatch.get("type").asText());
    assertEquals("data", mismatch.get("field").asText());
    assertEquals("0x04030201", mismatch.get("actual").asText());
    // a failed prepare leaves nothing to run
    assertEquals("error", ask("{\"type\":\"run\",\"iterations\":1,\"samples\":1}").get("type").asText());
  }

  @Test
  void errorsAreRepliesThatNameWhatIsWrong() throws Exception {
    JsonNode unknown = ask(prepare("toy/x/y", "toy-reverse", "[{\"input\":{},\"expected\":{}}]"));
    assertEquals("error", unknown.get("type").asText());
    assertFalse(unknown.get("fatal").asBoolean());
    JsonNode noInput =
        ask(prepare("toy/reverse/4B", "toy-reverse", "[{\"input\":{},\"expected\":{\"data\":\"0x\"}}]"));
    assertEquals("error", noInput.get("type").asText());
    assertTrue(noInput.get("message").asText().contains("data"), noInput.toString());
    assertEquals("error", ask("{\"type\":\"run\",\"iterations\":0,\"samples\":1}").get("type").asText());
    assertEquals("error", ask("{\"type\":\"nonsense\"}").get("type").asText());
  }

  @Test
  void theSleepTakesAMillisecondAnOperation() throws Exception {
    String v = "[{\"input\":{\"value\":\"0x01\"},\"expected\":{\"value\":\"0x01\"}}]";
    assertEquals("prepared", ask(prepare("harness/sleep/1ms", "toy-sleep", v)).get("type").asText());
    long t0 = System.nanoTime();
    long ns = ask("{\"type\":\"run\",\"iterations\":5,\"samples\":1}").at("/ns/0").asLong();
    long outside = System.nanoTime() - t0;
    assertTrue(ns >= 5_000_000 && ns <= outside, ns + " ns of " + outside);
  }

  @Test
  void aLineThatIsNotJsonIsAnErrorAndTheEnd() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Worker w = new Worker(toy(), out);
    String in = "{\"type\":\"hello\",\"protocol\":1}\n{not json\n{\"type\":\"hello\",\"protocol\":1}\n";
    int code = w.serve(new ByteArrayInputStream(in.getBytes(StandardCharsets.UTF_8)));
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(2, code);
    assertEquals(2, lines.length, out.toString(StandardCharsets.UTF_8));
    assertTrue(lines[1].contains("\"fatal\":true"), lines[1]);
    Worker ends = new Worker(toy(), new ByteArrayOutputStream());
    assertEquals(0, ends.serve(new ByteArrayInputStream(new byte[0])));
  }

  @Test
  void patternsCoverOneSegmentPerStar() {
    assertTrue(Benchmarks.matches("precompile/x/*", "precompile/x/a"));
    assertFalse(Benchmarks.matches("precompile/x/*", "precompile/x"));
    assertFalse(Benchmarks.matches("precompile/x/*", "precompile/x/"));
    assertFalse(Benchmarks.matches("precompile/x/*", "precompile/x/a/b"));
  }
}
