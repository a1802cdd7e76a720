package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@code harness/noop/empty}: the identity; measures the loop's own cost per iteration. */
final class Noop extends Kernel {
  private final byte[][] values;

  Noop(JsonNode cases) {
    values = new byte[cases.size()][];
    for (int i = 0; i < values.length; i++) {
      values[i] = hex(input(cases.get(i)), "value");
    }
  }

  @Override
  int size() {
    return values.length;
  }

  @Override
  ObjectNode once(int i) {
    return obj().put("value", Hex.encode(values[i]));
  }

  @Override
  long batch(int iterations) {
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
