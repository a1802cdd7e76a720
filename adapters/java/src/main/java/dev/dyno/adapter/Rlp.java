package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bouncycastle.crypto.digests.KeccakDigest;
import org.web3j.rlp.RlpDecoder;
import org.web3j.rlp.RlpEncoder;
import org.web3j.rlp.RlpList;
import org.web3j.rlp.RlpString;
import org.web3j.rlp.RlpType;

/**
 * {@code rlp/decode-generic/<input>} and {@code rlp/encode-generic/<input>} with web3j's RLP
 * ({@code org.web3j:rlp}): the generic tree is {@link RlpList} / {@link RlpString}.
 *
 * <p>{@link RlpDecoder#decode(byte[])} returns a wrapper {@link RlpList} holding every item it
 * found; the encoding's outermost item is that wrapper's only element (the wrapper itself is not
 * counted).
 */
final class Rlp {
  private Rlp() {}

  /** Item counts of a decoded tree: {@code lists}, {@code strings}, {@code bytes} of payload. */
  static final class Counts {
    long lists;
    long strings;
    long bytes;

    void walk(RlpType t) {
      if (t instanceof RlpString s) {
        strings++;
        bytes += s.getBytes().length;
      } else if (t instanceof RlpList l) {
        lists++;
        for (RlpType c : l.getValues()) {
          walk(c);
        }
      } else {
        throw new IllegalStateException("unexpected RLP node " + t);
      }
    }
  }

  /**
   * The tree digest of the case schema: Keccak-256 over a pre-order walk, a byte string as 0x80,
   * u32 BE length, bytes; a list as 0xc0, u32 BE item count, then its items.
   */
  static byte[] digest(RlpType root) {
    KeccakDigest k = new KeccakDigest(256);
    walk(root, k);
    byte[] out = new byte[32];
    k.doFinal(out, 0);
    return out;
  }

  private static void walk(RlpType t, KeccakDigest k) {
    if (t instanceof RlpString s) {
      byte[] b = s.getBytes();
      k.update(head(0x80, b.length), 0, 5);
      k.update(b, 0, b.length);
    } else if (t instanceof RlpList l) {
      k.update(head(0xc0, l.getValues().size()), 0, 5);
      for (RlpType c : l.getValues()) {
        walk(c, k);
      }
    } else {
      throw new IllegalStateException("unexpected RLP node " + t);
    }
  }

  private static byte[] head(int tag, int n) {
    return new byte[] {(byte) tag, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
  }

  /** The one item of an encoding (the decoder's wrapper must hold exactly one). */
  static RlpType item(RlpList wrapper) {
    List<RlpType> v = wrapper.getValues();
    if (v.size() != 1) {
      throw new IllegalArgumentException("input.encoded holds " + v.size() + " RLP items, not 1");
    }
    return v.get(0);
  }

  /** JSON tree (hex string = byte string, array = list) to web3j's tree. */
  static RlpType tree(JsonNode n) {
    if (n.isTextual()) {
      return RlpString.create(Hex.decode(n.asText()));
    }
    if (n.isArray()) {
      List<RlpType> items = new ArrayList<>(n.size());
      for (JsonNode c : n) {
        items.add(tree(c));
      }
      return new RlpList(items);
    }
    throw new IllegalArgumentException("input.tree: expected a hex string or an array, got " + n.getNodeType());
  }

  /**
   * {@code rlp/decode-generic}: {@code RlpDecoder.decode(encoded)}. At prepare the tree is walked
   * for the counts and re-encoded with {@code RlpEncoder.encode}, which must give {@code encoded}
   * back (else a mismatch on {@code encoded}).
   */
  static final class Decode extends Kernel {
    private final byte[][] encoded;

    Decode(JsonNode cases) {
      int n = cases.size();
      encoded = new byte[n][];
      for (int i = 0; i < n; i++) {
        encoded[i] = hex(input(cases.get(i)), "encoded");
      }
    }

    @Override
    public int size() {
      return encoded.length;
    }

    @Override
    public ObjectNode once(int i) {
      RlpType root = item(RlpDecoder.decode(encoded[i]));
      byte[] again = RlpEncoder.encode(root);
      if (!Arrays.equals(again, encoded[i])) {
        throw new Kernel.Mismatch("encoded", Hex.encode(encoded[i]), Hex.encode(again));
      }
      Counts c = new Counts();
      c.walk(root);
      return obj()
          .put("lists", c.lists)
          .put("strings", c.strings)
          .put("bytes", c.bytes)
          .put("digest", Hex.encode(digest(root)));
    }

    @Override
    public long batch(int iterations) {
      final byte[][] e = encoded;
      final int n = e.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        RlpType root = RlpDecoder.decode(e[p]).getValues().get(0);
        acc += root instanceof RlpList l ? l.getValues().size() : ((RlpString) root).getBytes().length;
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** {@code rlp/encode-generic}: {@code RlpEncoder.encode(tree)}, the tree built at prepare. */
  static final class Encode extends Kernel {
    private final RlpType[] trees;

    Encode(JsonNode cases) {
      int n = cases.size();
      trees = new RlpType[n];
      for (int i = 0; i < n; i++) {
        JsonNode t = input(cases.get(i)).get("tree");
        if (t == null) {
          throw new IllegalArgumentException("input.tree missing");
        }
        trees[i] = tree(t);
      }
    }

    @Override
    public int size() {
      return trees.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("encoded", Hex.encode(RlpEncoder.encode(trees[i])));
    }

    @Override
    public long batch(int iterations) {
      final RlpType[] t = trees;
      final int n = t.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        byte[] out = RlpEncoder.encode(t[p]);
        acc += out.length + out[out.length - 1];
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
