package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import ethereum.ckzg4844.CKZG4844JNI;
import ethereum.ckzg4844.CKZGException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * {@code precompile/kzg-point-evaluation/<input>} (EIP-4844, address 0x0a) on jc-kzg-4844
 * (C-KZG-4844 over JNI): input {@code input} (192 bytes), {@code gas}; expected {@code output}.
 *
 * <p>The whole precompile is the timed operation: the input is split into versioned hash, z, y,
 * commitment and proof, the versioned hash is checked against {@code 0x01 || sha256(commitment)[1:]}
 * (the JDK's SHA-256), the proof is verified with {@code CKZG4844JNI.verifyKzgProof}, and the
 * 64-byte constant {@code FIELD_ELEMENTS_PER_BLOB || BLS_MODULUS} is returned. A failing call (an
 * invalid input: the EVM consumes all gas) or a call given less than 50000 gas is an {@code error}
 * at prepare. The gas check is done once at prepare.
 */
final class Kzg {
  private Kzg() {}

  /** The precompile's fixed gas cost. */
  static final long GAS = 50_000;

  static final int INPUT_LENGTH = 192;

  /**
   * sha256 of the mainnet KZG ceremony output in c-kzg's text format (the copy c-kzg-4844 and
   * py-evm ship; web3j's copy lacks the final newline, which is added before hashing).
   */
  static final String MAINNET_SETUP_SHA256 =
      "d39b9f2d047cc9dca2de58f264b6a09448ccd34db967881a6713eacacf0f26b7";

  /**
   * The trusted setup's resource. jc-kzg-4844 2.1.6 ships none; web3j crypto (already on the class
   * path) carries the mainnet one at the root of its jar, which is where web3j loads it from.
   */
  static final String SETUP_RESOURCE = "/trusted_setup.txt";

  private static boolean loaded;
  private static String loadError;

  /** The precompile's output: FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS as 32-byte words. */
  static final byte[] RESULT = result();

  private static byte[] result() {
    byte[] r = new byte[64];
    BigInteger n = BigInteger.valueOf(CKZG4844JNI.FIELD_ELEMENTS_PER_BLOB);
    byte[] a = n.toByteArray();
    System.arraycopy(a, 0, r, 32 - a.length, a.length);
    byte[] m = CKZG4844JNI.BLS_MODULUS.toByteArray(); // 32 bytes, or 33 with a leading zero
    int skip = m.length - 32;
    System.arraycopy(m, skip, r, 32, 32);
    return r;
  }

  /**
   * Loads the native library and the mainnet trusted setup, once per JVM (the setup is global to
   * the native library). A failure is remembered and reported to every later prepare.
   */
  static synchronized void loadSetup() {
    if (loaded) {
      return;
    }
    if (loadError != null) {
      throw new IllegalStateException(loadError);
    }
    try {
      byte[] text;
      try (InputStream in = Kzg.class.getResourceAsStream(SETUP_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException(SETUP_RESOURCE + " is not on the class path");
        }
        text = in.readAllBytes();
      }
      if (text.length == 0 || text[text.length - 1] != '\n') {
        text = Arrays.copyOf(text, text.length + 1);
        text[text.length - 1] = '\n';
      }
      String digest = HexFormat.of().formatHex(sha256().digest(text));
      if (!digest.equals(MAINNET_SETUP_SHA256)) {
        throw new IllegalStateException(
            SETUP_RESOURCE + " is not the mainnet setup (sha256 " + digest + ")");
      }
      CKZG4844JNI.loadNativeLibrary();
      Path tmp = Files.createTempFile("dyno-kzg-trusted-setup", ".txt");
      try {
        Files.write(tmp, text);
        CKZG4844JNI.loadTrustedSetup(tmp.toString(), 0);
      } finally {
        Files.deleteIfExists(tmp);
      }
      loaded = true;
    } catch (IOException e) {
      loadError = "KZG trusted setup: " + e;
      throw new UncheckedIOException(loadError, e);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      loadError = "KZG trusted setup: " + e;
      throw new IllegalStateException(loadError, e);
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The precompile call fails (an invalid input). */
  static final class PrecompileFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PrecompileFailure(String message) {
      super(message);
    }
  }

  /** The point-evaluation precompile: {@code CKZG4844JNI.verifyKzgProof} plus EIP-4844's checks. */
  static final class PointEvaluation extends Kernel {
    private final byte[][] in;
    private final MessageDigest sha256 = sha256();
    private final byte[] hash = new byte[32];

    PointEvaluation(JsonNode cases) {
      loadSetup();
      this.in = new byte[cases.size()][];
      for (int i = 0; i < in.length; i++) {
        JsonNode input = Kernel.input(cases.get(i));
        in[i] = Kernel.hex(input, "input");
        long gas = Kernel.number(input, "gas");
        if (gas < GAS) {
          throw new IllegalArgumentException(
              "case " + i + ": out of gas (given " + gas + ", needs " + GAS + ")");
        }
      }
    }

    /** The precompile: the output, or {@link PrecompileFailure}. */
    byte[] call(byte[] data) {
      if (data.length != INPUT_LENGTH) {
        throw new PrecompileFailure("point evaluation input is " + data.length + " bytes, not 192");
      }
      byte[] z = Arrays.copyOfRange(data, 32, 64);
      byte[] y = Arrays.copyOfRange(data, 64, 96);
      byte[] commitment = Arrays.copyOfRange(data, 96, 144);
      byte[] proof = Arrays.copyOfRange(data, 144, 192);
      MessageDigest md = sha256;
      md.update(commitment);
      byte[] h = hash;
      try {
        md.digest(h, 0, 32);
      } catch (java.security.DigestException e) {
        throw new IllegalStateException(e);
      }
      h[0] = 0x01;
      if (!Arrays.equals(h, 0, 32, data, 0, 32)) {
        throw new PrecompileFailure("commitment does not match the versioned hash");
      }
      boolean ok;
      try {
        ok = CKZG4844JNI.verifyKzgProof(commitment, z, y, proof);
      } catch (CKZGException e) {
        throw new PrecompileFailure("KZG proof rejected: " + e.getMessage());
      }
      if (!ok) {
        throw new PrecompileFailure("KZG proof verification failed");
      }
      return RESULT;
    }

    @Override
    public int size() {
      return in.length;
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("output", Hex.encode(call(in[i])));
    }

    @Override
    public long batch(int iterations) {
      final byte[][] data = in;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += call(data[p])[63];
        if (++p == data.length) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
