package dev.dyno.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The ids every worker offers (docs/adapter-protocol.md, "The harness ids"): {@code
 * harness/noop/empty}, the identity, measures the adapter's own loop; {@code harness/sleep/1ms}
 * sleeps 1 ms per operation so that {@code dyno adapter check} can hold the worker's clock against
 * its own.
 */
final class Harness {
  static final String NOOP = "harness/noop/empty";
  static final String SLEEP = "harness/sleep/1ms";

  private Harness() {}

  /** Adds both under {@code <prefix>-noop} and {@code <prefix>-sleep}. */
  static void addTo(Benchmarks b, String prefix) {
    b.add(NOOP, prefix + "-noop", "-", Noop::new);
    b.add(SLEEP, prefix + "-sleep", "-", Sleep::new);
  }

  /** The identity on hex values: the loop's own cost per iteration. */
  static class Noop extends Kernel {
    final byte[][] values;

    Noop(JsonNode cases) {
      values = new byte[cases.size()][];
      for (int i = 0; i < values.length; i++) {
        values[i] = hex(input(cases.get(i)), "value");
      }
    }

    @Override
    public int size() {
      return values.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("value", Hex.encode(values[i]));
    }

    @Override
    public long batch(int iterations) {
      final byte[][] v = values;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += v[p].length;
        if (++p == v.length) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** The identity after a 1 ms sleep. */
  static final class Sleep extends Noop {
    Sleep(JsonNode cases) {
      super(cases);
    }

    private static void nap() {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }

    @Override
    public ObjectNode once(int i) {
      nap();
      return super.once(i);
    }

    @Override
    public long batch(int iterations) {
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        nap();
        acc += super.batch(1);
      }
      return acc;
    }
  }
}
