package dev.dyno.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One prepared benchmark: its cases parsed into native types at prepare time.
 *
 * <p>Every concrete kernel writes its own timed loop in {@link #batch(int)} so that the operation
 * call inside it stays monomorphic and inlinable (one loop per benchmark kind, as JMH benchmarks
 * have one method each). The loop folds every output into a local accumulator that it returns; the
 * caller folds it into a field after reading the clock, so the JIT can neither drop the work nor
 * hoist it out of the loop (the Blackhole idea without the Blackhole call per operation).
 */
public abstract class Kernel {
  /**
   * Thrown by {@link #once(int)} when a check other than the expected fields fails (such as a
   * decode/re-encode round trip); the worker answers it with a {@code mismatch} on {@code field}.
   */
  public static final class Mismatch extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String field;
    final String expected;
    final String actual;

    public Mismatch(String field, String expected, String actual) {
      super(field + ": expected " + expected + ", got " + actual, null, false, false);
      this.field = field;
      this.expected = expected;
      this.actual = actual;
    }
  }

  /** Index of the next case; carries over between samples and requests. */
  protected int pos;

  /** Number of cases. */
  public abstract int size();

  /** Runs the operation once on case {@code i} (untimed) and encodes its output like expected. */
  public abstract ObjectNode once(int i);

  /** Runs {@code iterations} operations cycling through the cases; returns the folded outputs. */
  public abstract long batch(int iterations);

  public static ObjectNode obj() {
    return JsonNodeFactory.instance.objectNode();
  }

  public static String text(JsonNode input, String field) {
    JsonNode v = input.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("input." + field + " missing or not a string");
    }
    return v.asText();
  }

  public static byte[] hex(JsonNode input, String field) {
    return Hex.decode(text(input, field));
  }

  public static byte[] hex(JsonNode input, String field, int len) {
    try {
      return Hex.decode(text(input, field), len);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("input." + field + ": " + e.getMessage(), e);
    }
  }

  public static long number(JsonNode input, String field) {
    JsonNode v = input.get(field);
    if (v == null || !v.canConvertToLong()) {
      throw new IllegalArgumentException("input." + field + " missing or not an integer");
    }
    return v.asLong();
  }

  public static JsonNode input(JsonNode c) {
    JsonNode in = c.get("input");
    if (in == null || !in.isObject()) {
      throw new IllegalArgumentException("case without an input object");
    }
    return in;
  }
}
