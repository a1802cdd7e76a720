package dev.dyno.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Every (id, implementation) an adapter offers, and how to prepare each: its kernel factory. */
public final class Benchmarks {
  /** One offer: its id (or pattern), implementation, library version, and kernel factory. */
  public record Entry(
      String id, String implementation, String library, Function<JsonNode, Kernel> make) {}

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  /** Families whose inputs come from outside files: ids with `*` standing for one path segment. */
  private final List<Entry> patterns = new ArrayList<>();

  /** Offers {@code id} as {@code implementation}, calling {@code library}. */
  public Benchmarks add(
      String id, String implementation, String library, Function<JsonNode, Kernel> make) {
    entries.put(id + "\n" + implementation, new Entry(id, implementation, library, make));
    return this;
  }

  /** Offers every id {@code pattern} covers (`*`: one path segment), listed under patterns. */
  public Benchmarks addPattern(
      String pattern, String implementation, String library, Function<JsonNode, Kernel> make) {
    patterns.add(new Entry(pattern, implementation, library, make));
    return this;
  }

  /** The entry for (id, implementation), or null. */
  public Entry find(String id, String implementation) {
    Entry e = entries.get(id + "\n" + implementation);
    if (e != null) {
      return e;
    }
    for (Entry p : patterns) {
      if (p.implementation().equals(implementation) && matches(p.id(), id)) {
        return p;
      }
    }
    return null;
  }

  /** True if {@code pattern} covers {@code id}: same segments, `*` matching exactly one (non-empty). */
  public static boolean matches(String pattern, String id) {
    String[] want = pattern.split("/", -1);
    String[] have = id.split("/", -1);
    if (want.length != have.length) {
      return false;
    }
    for (int i = 0; i < want.length; i++) {
      if (want[i].equals("*") ? have[i].isEmpty() : !want[i].equals(have[i])) {
        return false;
      }
    }
    return true;
  }

  /** hello's {@code benchmarks}. */
  public List<Entry> all() {
    return new ArrayList<>(entries.values());
  }

  /** hello's {@code patterns}. */
  public List<Entry> patterns() {
    return new ArrayList<>(patterns);
  }
}
