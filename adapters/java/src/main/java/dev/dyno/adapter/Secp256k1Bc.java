package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.math.BigInteger;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.math.ec.ECAlgorithms;
import org.bouncycastle.math.ec.ECMultiplier;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;
import org.bouncycastle.util.BigIntegers;

/** secp256k1 with BouncyCastle's lightweight API (CustomNamedCurves, ECDSASigner). */
final class Secp256k1Bc {
  static final X9ECParameters PARAMS = CustomNamedCurves.getByName("secp256k1");
  static final ECDomainParameters DOMAIN =
      new ECDomainParameters(PARAMS.getCurve(), PARAMS.getG(), PARAMS.getN(), PARAMS.getH());
  static final BigInteger N = PARAMS.getN();
  static final BigInteger HALF_N = N.shiftRight(1);

  private Secp256k1Bc() {}

  static BigInteger scalar(JsonNode in, String field) {
    return new BigInteger(1, Kernel.hex(in, field, 32));
  }

  static ECPoint point(JsonNode in, String field) {
    return DOMAIN.getCurve().decodePoint(Kernel.hex(in, field, 65)).normalize();
  }

  /**
   * The public key that signed {@code hash} with {@code (r, s)} for recovery id {@code recId} (0
   * or 1; r < n), or null. SEC 1 v2 section 4.1.6, with BouncyCastle's point arithmetic.
   */
  static ECPoint recover(int recId, BigInteger r, BigInteger s, byte[] hash) {
    byte[] compressed = new byte[33];
    compressed[0] = (byte) ((recId & 1) == 1 ? 0x03 : 0x02);
    BigIntegers.asUnsignedByteArray(r, compressed, 1, 32);
    ECPoint bigR;
    try {
      bigR = DOMAIN.getCurve().decodePoint(compressed);
    } catch (IllegalArgumentException e) {
      return null;
    }
    BigInteger e = new BigInteger(1, hash);
    BigInteger rInv = BigIntegers.modOddInverse(N, r);
    BigInteger u1 = N.subtract(e).multiply(rInv).mod(N);
    BigInteger u2 = s.multiply(rInv).mod(N);
    return ECAlgorithms.sumOfTwoMultiplies(DOMAIN.getG(), u1, bigR, u2).normalize();
  }

  /** Fields shared by the two signers: private keys, their public points, message hashes. */
  abstract static class SignBase extends Kernel {
    final ECPrivateKeyParameters[] priv;
    final ECPoint[] pub;
    final byte[][] hash;

    SignBase(JsonNode cases) {
      int n = cases.size();
      priv = new ECPrivateKeyParameters[n];
      pub = new ECPoint[n];
      hash = new byte[n][];
      ECMultiplier m = new FixedPointCombMultiplier();
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        priv[i] = new ECPrivateKeyParameters(scalar(in, "private_key"), DOMAIN);
        pub[i] = m.multiply(DOMAIN.getG(), priv[i].getD()).normalize();
        hash[i] = hex(in, "message_hash", 32);
      }
    }

    @Override
    public final int size() {
      return hash.length;
    }

    static ObjectNode sig(BigInteger r, BigInteger s, int v) {
      return obj().put("r", Hex.encode(Hex.fixed(r, 32))).put("s", Hex.encode(Hex.fixed(s, 32))).put("v", v);
    }
  }

  /**
   * {@code crypto/secp256k1-sign/recid-trial}: ECDSASigner with HMacDSAKCalculator(SHA-256) (RFC
   * 6979), low-s normalisation, then the recovery id by trial recovery against the known public key
   * (BouncyCastle's signer does not expose the nonce point R).
   */
  static final class SignTrial extends SignBase {
    private final ECDSASigner signer = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));

    SignTrial(JsonNode cases) {
      super(cases);
    }

    private int sign(int i, BigInteger[] out) {
      signer.init(true, priv[i]);
      BigInteger[] rs = signer.generateSignature(hash[i]);
      BigInteger r = rs[0];
      BigInteger s = rs[1];
      if (s.compareTo(HALF_N) > 0) {
        s = N.subtract(s);
      }
      int v = -1;
      for (int id = 0; id < 2; id++) {
        ECPoint q = recover(id, r, s, hash[i]);
        if (q != null && q.equals(pub[i])) {
          v = id;
          break;
        }
      }
      out[0] = r;
      out[1] = s;
      return v;
    }

    @Override
    public ObjectNode once(int i) {
      BigInteger[] rs = new BigInteger[2];
      int v = sign(i, rs);
      if (v < 0) {
        throw new IllegalStateException("no recovery id reproduces the public key");
      }
      return sig(rs[0], rs[1], v);
    }

    @Override
    public long batch(int iterations) {
      final BigInteger[] rs = new BigInteger[2];
      final int n = hash.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += sign(p, rs) + rs[1].intValue();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /**
   * {@code crypto/secp256k1-sign/recid-direct}: the steps of BouncyCastle's ECDSASigner (RFC 6979
   * nonce from HMacDSAKCalculator(SHA-256), base-point multiply with FixedPointCombMultiplier, the
   * same modular arithmetic), kept in the open so that the recovery id comes from R's y parity
   * (flipped with low-s normalisation) instead of trial recovery.
   */
  static final class SignDirect extends SignBase {
    private final HMacDSAKCalculator k = new HMacDSAKCalculator(new SHA256Digest());
    private final ECMultiplier mult = new FixedPointCombMultiplier();

    SignDirect(JsonNode cases) {
      super(cases);
    }

    private int sign(int i, BigInteger[] out) {
      BigInteger d = priv[i].getD();
      byte[] h = hash[i];
      BigInteger e = new BigInteger(1, h); // 256-bit hash, 256-bit order: no truncation
      k.init(N, d, h);
      BigInteger r;
      BigInteger s;
      ECPoint bigR;
      do {
        BigInteger kk;
        do {
          kk = k.nextK();
          bigR = mult.multiply(DOMAIN.getG(), kk).normalize();
          r = bigR.getAffineXCoord().toBigInteger().mod(N);
        } while (r.signum() == 0);
        s = BigIntegers.modOddInverse(N, kk).multiply(e.add(d.multiply(r))).mod(N);
      } while (s.signum() == 0);
      int v = bigR.getAffineYCoord().testBitZero() ? 1 : 0;
      if (bigR.getAffineXCoord().toBigInteger().compareTo(N) >= 0) {
        v |= 2; // x >= n: probability ~2^-128, not representable in Ethereum's v
      }
      if (s.compareTo(HALF_N) > 0) {
        s = N.subtract(s);
        v ^= 1;
      }
      out[0] = r;
      out[1] = s;
      return v;
    }

    @Override
    public ObjectNode once(int i) {
      BigInteger[] rs = new BigInteger[2];
      int v = sign(i, rs);
      return sig(rs[0], rs[1], v);
    }

    @Override
    public long batch(int iterations) {
      final BigInteger[] rs = new BigInteger[2];
      final int n = hash.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += sign(p, rs) + rs[1].intValue();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** {@code crypto/secp256k1-verify/valid}: ECDSASigner.verifySignature. */
  static final class Verify extends Kernel {
    private final ECDSASigner verifier = new ECDSASigner();
    private final ECPublicKeyParameters[] pub;
    private final byte[][] hash;
    private final BigInteger[] r;
    private final BigInteger[] s;

    Verify(JsonNode cases) {
      int n = cases.size();
      pub = new ECPublicKeyParameters[n];
      hash = new byte[n][];
      r = new BigInteger[n];
      s = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        pub[i] = new ECPublicKeyParameters(point(in, "public_key"), DOMAIN);
        hash[i] = hex(in, "message_hash", 32);
        r[i] = scalar(in, "r");
        s[i] = scalar(in, "s");
      }
    }

    @Override
    public int size() {
      return hash.length;
    }

    private boolean verify(int i) {
      verifier.init(false, pub[i]);
      return verifier.verifySignature(hash[i], r[i], s[i]);
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("valid", verify(i));
    }

    @Override
    public long batch(int iterations) {
      final int n = hash.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += verify(p) ? 1 : 0;
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** {@code crypto/secp256k1-keygen/pubkey}: G multiply (FixedPointCombMultiplier), SEC1 encoding. */
  static final class Keygen extends Kernel {
    private final ECMultiplier mult = new FixedPointCombMultiplier();
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

    private byte[] pubkey(int i) {
      return mult.multiply(DOMAIN.getG(), d[i]).getEncoded(false);
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("public_key", Hex.encode(pubkey(i)));
    }

    @Override
    public long batch(int iterations) {
      final int n = d.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += pubkey(p)[64];
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
