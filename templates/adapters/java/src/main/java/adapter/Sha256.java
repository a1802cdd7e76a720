package adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The example: SHA-256 from the JDK on dyno's {@code hash/sha256/*} ids (input data, output digest). */
final class Sha256 extends Kernel {
  private final byte[][] data;
  private final MessageDigest md;

  Sha256(JsonNode cases) {
    data = new byte[cases.size()][];
    for (int i = 0; i < data.length; i++) {
      data[i] = hex(input(cases.get(i)), "data");
    }
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int size() {
    return data.length;
  }

  @Override
  public ObjectNode once(int i) {
    return obj().put("digest", Hex.encode(md.digest(data[i])));
  }

  @Override
  public long batch(int iterations) {
    int p = pos;
    long acc = 0;
    for (int i = 0; i < iterations; i++) {
      acc += md.digest(data[p])[0];
      if (++p == data.length) {
        p = 0;
      }
    }
    pos = p;
    return acc;
  }
}
