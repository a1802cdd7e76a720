package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.math.BigInteger;
import org.web3j.crypto.ECDSASignature;
import org.web3j.crypto.ECKeyPair;
import org.web3j.crypto.Sign;

/** secp256k1 through web3j's {@code Sign} (BouncyCastle underneath). */
final class Web3j {
  private Web3j() {}

  static BigInteger scalar(JsonNode in, String field) {
    return new BigInteger(1, Kernel.hex(in, field, 32));
  }

  /** web3j public keys are 64-byte x||y integers; the protocol wants 0x04||x||y. */
  static byte[] uncompressed(BigInteger pub) {
    byte[] out = new byte[65];
    out[0] = 4;
    System.arraycopy(Hex.fixed(pub, 64), 0, out, 1, 64);
    return out;
  }

  /**
   * {@code crypto/secp256k1-sign/recid-trial}: {@code Sign.signMessage(hash, keyPair, false)}
   * (RFC 6979 nonce, low-s, v by trial recovery; v is 27/28, converted to 0/1 outside the loop).
   */
  static final class SignTrial extends Kernel {
    private final ECKeyPair[] keys;
    private final byte[][] hash;

    SignTrial(JsonNode cases) {
      int n = cases.size();
      keys = new ECKeyPair[n];
      hash = new byte[n][];
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        keys[i] = ECKeyPair.create(scalar(in, "private_key"));
        hash[i] = hex(in, "message_hash", 32);
      }
    }

    @Override
    public int size() {
      return hash.length;
    }

    @Override
    public ObjectNode once(int i) {
      Sign.SignatureData sd = Sign.signMessage(hash[i], keys[i], false);
      return obj()
          .put("r", Hex.encode(sd.getR()))
          .put("s", Hex.encode(sd.getS()))
          .put("v", sd.getV()[0] - 27);
    }

    @Override
    public long batch(int iterations) {
      final int n = hash.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        Sign.SignatureData sd = Sign.signMessage(hash[p], keys[p], false);
        acc += sd.getV()[0] + sd.getS()[31];
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** {@code crypto/secp256k1-recover/valid}: {@code Sign.recoverFromSignature(v, sig, hash)}. */
  static final class Recover extends Kernel {
    private final ECDSASignature[] sig;
    private final int[] v;
    private final byte[][] hash;

    Recover(JsonNode cases) {
      int n = cases.size();
      sig = new ECDSASignature[n];
      v = new int[n];
      hash = new byte[n][];
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        sig[i] = new ECDSASignature(scalar(in, "r"), scalar(in, "s"));
        long vv = number(in, "v");
        if (vv != 0 && vv != 1) {
          throw new IllegalArgumentException("input.v must be 0 or 1");
        }
        v[i] = (int) vv;
        hash[i] = hex(in, "message_hash", 32);
      }
    }

    @Override
    public int size() {
      return hash.length;
    }

    @Override
    public ObjectNode once(int i) {
      BigInteger pub = Sign.recoverFromSignature(v[i], sig[i], hash[i]);
      if (pub == null) {
        throw new IllegalStateException("recovery failed for case " + i);
      }
      return obj().put("public_key", Hex.encode(uncompressed(pub)));
    }

    @Override
    public long batch(int iterations) {
      final int n = hash.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += Sign.recoverFromSignature(v[p], sig[p], hash[p]).intValue();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** {@code crypto/secp256k1-keygen/pubkey}: {@code Sign.publicKeyFromPrivate}. */
  static final class Keygen extends Kernel {
    private final BigInteger[] d;

    Keygen(JsonNode cases) {
      d = new BigInteger[cases.size()];
      for (int i = 0; i < d.length; i++) {
        d[i] = scalar(input(cases.get(i)), "private_key");
      }
    }

    @Override
    public int size() {
      return d.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("public_key", Hex.encode(uncompressed(Sign.publicKeyFromPrivate(d[i]))));
    }

    @Override
    public long batch(int iterations) {
      final int n = d.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += Sign.publicKeyFromPrivate(d[p]).intValue();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
