package adapter;

import dev.dyno.protocol.Adapter;
import dev.dyno.protocol.Benchmarks;
import dev.dyno.protocol.Worker;
import java.util.Map;

/**
 * {{name}}: a dyno adapter (docs/adapter-protocol.md), served by dyno's JVM protocol library. Add a
 * benchmark: a {@code Kernel} for the ids it offers ({@code dyno list} shows them; dyno's
 * adapters/testdata/prepare.jsonl has their cases), added to {@link #adapter()}.
 */
public final class Main {
  private Main() {}

  static Adapter adapter() {
    Benchmarks b = new Benchmarks();
    for (String size : new String[] {"1B", "32B", "1KiB", "100KiB"}) {
      b.add("hash/sha256/" + size, "{{name}}-sha256", "java.security", Sha256::new);
    }
    return new Adapter(
        "{{name}}",
        "0.1.0",
        "{{name}}",
        Map.of("java.security (SHA-256)", System.getProperty("java.version")),
        b);
  }

  public static void main(String[] args) {
    Worker.run(Main::adapter);
  }
}
