package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.util.function.Supplier;
import org.bouncycastle.crypto.Digest;
import org.web3j.crypto.Hash;

/** {@code hash/<alg>/<size>}: input {@code data}, expected {@code digest}. */
final class Hashes {
  private Hashes() {}

  static byte[][] inputs(JsonNode cases) {
    byte[][] in = new byte[cases.size()][];
    for (int i = 0; i < in.length; i++) {
      in[i] = Kernel.hex(Kernel.input(cases.get(i)), "data");
    }
    return in;
  }

  /** BouncyCastle's lightweight {@link Digest}: update + doFinal into a reused output buffer. */
  static final class Bc extends Kernel {
    private final Digest digest;
    private final byte[][] in;
    private final byte[] out;

    Bc(Supplier<Digest> factory, JsonNode cases) {
      this.digest = factory.get();
      this.in = inputs(cases);
      this.out = new byte[digest.getDigestSize()];
    }

    @Override
    public int size() {
      return in.length;
    }

    @Override
    public ObjectNode once(int i) {
      digest.update(in[i], 0, in[i].length);
      byte[] d = new byte[digest.getDigestSize()];
      digest.doFinal(d, 0);
      return obj().put("digest", Hex.encode(d));
    }

    @Override
    public long batch(int iterations) {
      final Digest d = digest;
      final byte[][] data = in;
      final byte[] o = out;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        byte[] x = data[p];
        d.update(x, 0, x.length);
        d.doFinal(o, 0);
        acc += o[0];
        if (++p == data.length) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** web3j's {@code Hash.sha3(byte[])} (Keccak-256, a new array per call). */
  static final class Web3jKeccak extends Kernel {
    private final byte[][] in;

    Web3jKeccak(JsonNode cases) {
      this.in = inputs(cases);
    }

    @Override
    public int size() {
      return in.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("digest", Hex.encode(Hash.sha3(in[i])));
    }

    @Override
    public long batch(int iterations) {
      final byte[][] data = in;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += Hash.sha3(data[p])[0];
        if (++p == data.length) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
