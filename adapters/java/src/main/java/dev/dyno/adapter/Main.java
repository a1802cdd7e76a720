package dev.dyno.adapter;

import dev.dyno.protocol.Adapter;
import dev.dyno.protocol.Worker;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** The Java adapter's worker: its benchmarks ({@link Registry}) served by dyno's protocol library. */
public final class Main {
  private Main() {}

  /** The adapter as the library sees it: names and versions from the jar's properties. */
  static Adapter adapter() {
    Properties props = new Properties();
    try (InputStream in = Main.class.getResourceAsStream("/dyno-adapter.properties")) {
      if (in == null) {
        throw new IllegalStateException("dyno-adapter.properties missing from the jar");
      }
      props.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> libraries = new LinkedHashMap<>();
    Map<String, String> coordinates = new LinkedHashMap<>();
    for (String key : props.stringPropertyNames().stream().sorted().toList()) {
      if (key.startsWith("library.")) {
        String gav = props.getProperty(key);
        int colon = gav.lastIndexOf(':');
        String ga = gav.substring(0, colon);
        libraries.put(ga, gav.substring(colon + 1));
        coordinates.put(key.substring("library.".length()), ga);
      }
    }
    return new Adapter(
        props.getProperty("adapter.name"),
        props.getProperty("adapter.version"),
        "java",
        libraries,
        new Registry(coordinates).benchmarks());
  }

  public static void main(String[] args) {
    Worker.run(Main::adapter);
  }
}
