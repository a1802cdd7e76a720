package dev.dyno.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The worker: JSON Lines over stdin/stdout, protocol version 1 (docs/adapter-protocol.md). It
 * answers hello, prepare (every output checked against {@code expected}) and run (each sample
 * timed with {@link System#nanoTime}), offers the harness ids, and keeps stdout for protocol lines.
 */
public final class Worker {
  /** The protocol version this library speaks (its major version). */
  public static final int PROTOCOL = 1;

  private final ObjectMapper json;
  private final Adapter adapter;
  private final Benchmarks benchmarks = new Benchmarks();
  private final OutputStream out;
  private final com.sun.management.ThreadMXBean threads;
  private final List<GarbageCollectorMXBean> gcs;
  /** The heap's memory pools: the sum of their peaks bounds the heap's peak from above. */
  private final List<MemoryPoolMXBean> heapPools;

  private Kernel current;

  /** Folded outputs of every batch, written after the clock is read; see {@link Kernel}. */
  public static long blackhole;

  /** A worker for {@code adapter} that writes its replies to {@code out}. */
  public Worker(Adapter adapter, OutputStream out) {
    this.out = out;
    this.adapter = adapter;
    this.json = new ObjectMapper();
    // A getLogs body for 5000 logs is a multi-megabyte string inside one request line.
    this.json
        .getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build());
    for (Benchmarks.Entry e : adapter.benchmarks().all()) {
      benchmarks.add(e.id(), e.implementation(), e.library(), e.make());
    }
    for (Benchmarks.Entry e : adapter.benchmarks().patterns()) {
      benchmarks.addPattern(e.id(), e.implementation(), e.library(), e.make());
    }
    Harness.addTo(benchmarks, adapter.prefix());
    java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
    com.sun.management.ThreadMXBean sun = null;
    if (t instanceof com.sun.management.ThreadMXBean s && s.isThreadAllocatedMemorySupported()) {
      s.setThreadAllocatedMemoryEnabled(true);
      sun = s;
    }
    this.threads = sun;
    this.gcs = ManagementFactory.getGarbageCollectorMXBeans();
    this.heapPools =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP && p.isValid())
            .toList();
  }

  /**
   * The worker's main: moves {@code System.out} to stderr (so nothing a library prints reaches the
   * protocol stream), then builds the adapter and serves stdin until it closes, and exits.
   */
  public static void run(Supplier<Adapter> adapter) {
    PrintStream stdout =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);
    int code = new Worker(adapter.get(), stdout).serve(System.in);
    stdout.flush();
    System.exit(code);
  }

  /** Serves requests until EOF (returns 0) or a fatal error (returns 2). */
  public int serve(InputStream stdin) {
    BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
    try {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode req;
        try {
          req = json.readTree(line);
        } catch (JsonProcessingException e) {
          send(error("unparseable request: " + e.getOriginalMessage(), true));
          return 2;
        }
        if (req == null || !req.isObject() || !req.path("type").isTextual()) {
          send(error("request is not an object with a \"type\"", true));
          return 2;
        }
        ObjectNode reply;
        try {
          reply = handle(req);
        } catch (RuntimeException e) {
          reply = error(req.path("type").asText() + " failed: " + e, false);
        }
        send(reply);
      }
      return 0;
    } catch (IOException e) {
      System.err.println(adapter.name() + ": " + e);
      return 1;
    }
  }

  private void send(ObjectNode msg) throws IOException {
    out.write(json.writeValueAsBytes(msg));
    out.write('\n');
    out.flush();
  }

  public ObjectNode error(String message, boolean fatal) {
    return json.createObjectNode().put("type", "error").put("message", message).put("fatal", fatal);
  }

  /** The reply to one request. */
  public ObjectNode handle(JsonNode req) {
    String type = req.get("type").asText();
    return switch (type) {
      case "hello" -> hello();
      case "prepare" -> prepare(req);
      case "run" -> run(req);
      default -> error("unknown request type " + type, false);
    };
  }

  /** The reply to hello. */
  public ObjectNode hello() {
    ObjectNode r = json.createObjectNode().put("type", "hello").put("protocol", PROTOCOL);
    ObjectNode rt = r.putObject("runtime");
    rt.put("name", "java");
    rt.put("version", System.getProperty("java.runtime.version"));
    ArrayNode flags = rt.putArray("flags");
    ManagementFactory.getRuntimeMXBean().getInputArguments().forEach(flags::add);
    r.putObject("adapter").put("name", adapter.name()).put("version", adapter.version());
    ObjectNode libs = r.putObject("libraries");
    adapter.libraries().forEach(libs::put);
    r.putObject("clock").put("source", "System.nanoTime").put("resolution_ns", clockResolution());
    r.put("jit", true);
    ArrayNode list = r.putArray("benchmarks");
    for (Benchmarks.Entry e : benchmarks.all()) {
      list.addObject()
          .put("id", e.id())
          .put("implementation", e.implementation())
          .put("library", e.library());
    }
    ArrayNode pats = r.putArray("patterns");
    for (Benchmarks.Entry e : benchmarks.patterns()) {
      pats.addObject()
          .put("id", e.id())
          .put("implementation", e.implementation())
          .put("library", e.library());
    }
    return r;
  }

  /** The smallest non-zero step between two System.nanoTime reads. */
  static long clockResolution() {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 1000; i++) {
      long a = System.nanoTime();
      long b;
      do {
        b = System.nanoTime();
      } while (b == a);
      best = Math.min(best, b - a);
    }
    return best;
  }

  ObjectNode prepare(JsonNode req) {
    current = null; // a failed prepare leaves no current benchmark
    String id = req.path("id").asText("");
    String impl = req.path("implementation").asText("");
    Benchmarks.Entry entry = benchmarks.find(id, impl);
    if (entry == null) {
      return error("unknown id " + id + " for implementation " + impl, false);
    }
    JsonNode cases = req.get("cases");
    if (cases == null || !cases.isArray() || cases.isEmpty()) {
      return error("prepare " + id + ": no cases", false);
    }
    Kernel k;
    try {
      k = entry.make().apply(cases);
    } catch (RuntimeException e) {
      return error("prepare " + id + ": cannot parse input: " + e.getMessage(), false);
    }
    ArrayNode outputs = json.createArrayNode();
    for (int i = 0; i < k.size(); i++) {
      ObjectNode got;
      try {
        got = k.once(i);
      } catch (Kernel.Mismatch m) {
        return json.createObjectNode()
            .put("type", "mismatch")
            .put("case", i)
            .put("field", m.field)
            .put("expected", m.expected)
            .put("actual", m.actual);
      } catch (RuntimeException e) {
        return error("prepare " + id + ": case " + i + ": " + e.getMessage(), false);
      }
      JsonNode expected = cases.get(i).get("expected");
      if (expected == null || !expected.isObject()) {
        return error("prepare " + id + ": case " + i + " has no expected object", false);
      }
      for (Map.Entry<String, JsonNode> f : expected.properties()) {
        JsonNode actual = got.get(f.getKey());
        if (actual == null) {
          return error("prepare " + id + ": no output field " + f.getKey(), false);
        }
        if (!same(f.getValue(), actual)) {
          return json.createObjectNode()
              .put("type", "mismatch")
              .put("case", i)
              .put("field", f.getKey())
              .<ObjectNode>set("expected", f.getValue())
              .set("actual", actual);
        }
      }
      outputs.add(got);
    }
    current = k;
    ObjectNode r = json.createObjectNode().put("type", "prepared").put("id", id).put("cases", k.size());
    r.set("outputs", outputs);
    return r;
  }

  /** Field equality in the protocol's encodings: hex case-insensitive, integers by value. */
  public static boolean same(JsonNode expected, JsonNode actual) {
    if (expected.isTextual() && actual.isTextual()) {
      return expected.asText().equalsIgnoreCase(actual.asText());
    }
    if (expected.isIntegralNumber() && actual.isIntegralNumber()) {
      return expected.bigIntegerValue().equals(actual.bigIntegerValue());
    }
    if (expected.isBoolean() && actual.isBoolean()) {
      return expected.booleanValue() == actual.booleanValue();
    }
    return expected.equals(actual);
  }

  ObjectNode run(JsonNode req) {
    if (current == null) {
      return error("run before a successful prepare", false);
    }
    JsonNode it = req.get("iterations");
    JsonNode sa = req.get("samples");
    if (it == null || !it.canConvertToInt() || it.asInt() < 1 || sa == null || !sa.canConvertToInt() || sa.asInt() < 1) {
      return error("run needs integer iterations >= 1 and samples >= 1", false);
    }
    final int iterations = it.asInt();
    final int samples = sa.asInt();
    final Kernel k = current;
    final long[] ns = new long[samples];
    long gcCount0 = 0;
    long gcMs0 = 0;
    for (GarbageCollectorMXBean g : gcs) {
      gcCount0 += Math.max(0, g.getCollectionCount());
      gcMs0 += Math.max(0, g.getCollectionTime());
    }
    for (MemoryPoolMXBean p : heapPools) {
      p.resetPeakUsage();
    }
    long alloc0 = threads != null ? threads.getCurrentThreadAllocatedBytes() : -1;
    for (int s = 0; s < samples; s++) {
      long t0 = System.nanoTime();
      long r = k.batch(iterations);
      long t1 = System.nanoTime();
      ns[s] = t1 - t0;
      blackhole ^= r;
    }
    long alloc1 = threads != null ? threads.getCurrentThreadAllocatedBytes() : -1;
    long gcCount1 = 0;
    long gcMs1 = 0;
    for (GarbageCollectorMXBean g : gcs) {
      gcCount1 += Math.max(0, g.getCollectionCount());
      gcMs1 += Math.max(0, g.getCollectionTime());
    }
    ObjectNode r = json.createObjectNode().put("type", "samples");
    ArrayNode arr = r.putArray("ns");
    for (long v : ns) {
      arr.add(v);
    }
    long heapPeak = 0;
    for (MemoryPoolMXBean p : heapPools) {
      heapPeak += p.getPeakUsage().getUsed();
    }
    r.putObject("gc")
        .put("count", gcCount1 - gcCount0)
        .put("time_ns", (gcMs1 - gcMs0) * 1_000_000L)
        .put("heap_peak_bytes", heapPeak);
    if (threads != null && alloc0 >= 0 && alloc1 >= 0) {
      r.putObject("alloc").put("bytes", alloc1 - alloc0);
    }
    return r;
  }
}
