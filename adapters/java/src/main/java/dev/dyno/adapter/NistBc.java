package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.math.BigInteger;
import java.util.function.Supplier;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;

/**
 * {@code crypto/p256-*} and {@code crypto/p384-*}: ECDSA with BouncyCastle, the 32-byte message
 * hashed with SHA-256 / SHA-384 inside the operation, RFC 6979 nonces (HMacDSAKCalculator with the
 * same hash), no low-s normalisation (NIST ECDSA has none).
 */
final class NistBc {
  private NistBc() {}

  /** P-256 with SHA-256 or P-384 with SHA-384. */
  record Curve(String name, ECDomainParameters domain, int size, Supplier<Digest> hash) {
    static Curve of(String name, int size, Supplier<Digest> hash) {
      X9ECParameters p = CustomNamedCurves.getByName(name);
      return new Curve(
          name, new ECDomainParameters(p.getCurve(), p.getG(), p.getN(), p.getH()), size, hash);
    }
  }

  static final Curve P256 = Curve.of("secp256r1", 32, SHA256Digest::new);
  static final Curve P384 = Curve.of("secp384r1", 48, SHA384Digest::new);

  static BigInteger scalar(JsonNode in, String field, Curve c) {
    return new BigInteger(1, Kernel.hex(in, field, c.size()));
  }

  /** Sign: the message digest and the signature, both inside the operation. */
  static final class Sign extends Kernel {
    private final Curve curve;
    private final Digest digest;
    private final byte[] h;
    private final ECDSASigner signer;
    private final ECPrivateKeyParameters[] priv;
    private final byte[][] msg;

    Sign(Curve curve, JsonNode cases) {
      this.curve = curve;
      this.digest = curve.hash().get();
      this.h = new byte[digest.getDigestSize()];
      this.signer = new ECDSASigner(new HMacDSAKCalculator(curve.hash().get()));
      int n = cases.size();
      priv = new ECPrivateKeyParameters[n];
      msg = new byte[n][];
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        priv[i] = new ECPrivateKeyParameters(scalar(in, "private_key", curve), curve.domain());
        msg[i] = hex(in, "message");
      }
    }

    @Override
    public int size() {
      return msg.length;
    }

    private BigInteger[] sign(int i) {
      byte[] m = msg[i];
      digest.update(m, 0, m.length);
      digest.doFinal(h, 0);
      signer.init(true, priv[i]);
      return signer.generateSignature(h);
    }

    @Override
    public ObjectNode once(int i) {
      BigInteger[] rs = sign(i);
      return obj()
          .put("r", Hex.encode(Hex.fixed(rs[0], curve.size())))
          .put("s", Hex.encode(Hex.fixed(rs[1], curve.size())));
    }

    @Override
    public long batch(int iterations) {
      final int n = msg.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        BigInteger[] rs = sign(p);
        acc += rs[0].intValue() ^ rs[1].intValue();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** Verify: the message digest and ECDSASigner.verifySignature. */
  static final class Verify extends Kernel {
    private final Digest digest;
    private final byte[] h;
    private final ECDSASigner verifier = new ECDSASigner();
    private final ECPublicKeyParameters[] pub;
    private final byte[][] msg;
    private final BigInteger[] r;
    private final BigInteger[] s;

    Verify(Curve curve, JsonNode cases) {
      this.digest = curve.hash().get();
      this.h = new byte[digest.getDigestSize()];
      int n = cases.size();
      pub = new ECPublicKeyParameters[n];
      msg = new byte[n][];
      r = new BigInteger[n];
      s = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        JsonNode in = input(cases.get(i));
        pub[i] =
            new ECPublicKeyParameters(
                curve.domain().getCurve().decodePoint(hex(in, "public_key")), curve.domain());
        msg[i] = hex(in, "message");
        r[i] = scalar(in, "r", curve);
        s[i] = scalar(in, "s", curve);
      }
    }

    @Override
    public int size() {
      return msg.length;
    }

    private boolean verify(int i) {
      byte[] m = msg[i];
      digest.update(m, 0, m.length);
      digest.doFinal(h, 0);
      verifier.init(false, pub[i]);
      return verifier.verifySignature(h, r[i], s[i]);
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("valid", verify(i));
    }

    @Override
    public long batch(int iterations) {
      final int n = msg.length;
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
}
