package dev.dyno.protocol;

import java.math.BigInteger;

/** {@code 0x}-prefixed lower-case hex, the protocol's encoding of byte strings. */
public final class Hex {
  private static final char[] DIGITS = "0123456789abcdef".toCharArray();

  private Hex() {}

  public static String encode(byte[] b) {
    char[] out = new char[2 + 2 * b.length];
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < b.length; i++) {
      out[2 + 2 * i] = DIGITS[(b[i] >> 4) & 0xf];
      out[3 + 2 * i] = DIGITS[b[i] & 0xf];
    }
    return new String(out);
  }

  public static byte[] decode(String s) {
    return decode(s.toCharArray(), 0, s.length(), -1);
  }

  public static byte[] decode(String s, int expectedLength) {
    return decode(s.toCharArray(), 0, s.length(), expectedLength);
  }

  /** Decodes {@code 0x}-prefixed hex from a char range; {@code expectedLength < 0} accepts any. */
  public static byte[] decode(char[] c, int off, int len, int expectedLength) {
    if (len >= 2 && c[off] == '0' && (c[off + 1] == 'x' || c[off + 1] == 'X')) {
      off += 2;
      len -= 2;
    }
    if ((len & 1) != 0) {
      throw new IllegalArgumentException("odd-length hex string");
    }
    int n = len / 2;
    if (expectedLength >= 0 && n != expectedLength) {
      throw new IllegalArgumentException(
          "expected " + expectedLength + " bytes of hex, got " + n + " bytes");
    }
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = (byte) ((nibble(c[off + 2 * i]) << 4) | nibble(c[off + 2 * i + 1]));
    }
    return out;
  }

  /** Parses a {@code 0x}-prefixed hex quantity (as JSON-RPC encodes numbers) into a long. */
  public static long quantity(char[] c, int off, int len) {
    if (len >= 2 && c[off] == '0' && (c[off + 1] == 'x' || c[off + 1] == 'X')) {
      off += 2;
      len -= 2;
    }
    if (len == 0 || len > 16) {
      throw new IllegalArgumentException("bad hex quantity");
    }
    long v = 0;
    for (int i = 0; i < len; i++) {
      v = (v << 4) | nibble(c[off + i]);
    }
    return v;
  }

  private static int nibble(char ch) {
    if (ch >= '0' && ch <= '9') {
      return ch - '0';
    }
    if (ch >= 'a' && ch <= 'f') {
      return ch - 'a' + 10;
    }
    if (ch >= 'A' && ch <= 'F') {
      return ch - 'A' + 10;
    }
    throw new IllegalArgumentException("bad hex digit '" + ch + "'");
  }

  /** Big-endian unsigned encoding of {@code v} in exactly {@code size} bytes. */
  public static byte[] fixed(BigInteger v, int size) {
    byte[] raw = v.toByteArray();
    if (raw.length == size) {
      return raw;
    }
    byte[] out = new byte[size];
    if (raw.length > size) {
      int skip = raw.length - size;
      for (int i = 0; i < skip; i++) {
        if (raw[i] != 0) {
          throw new IllegalArgumentException("value does not fit in " + size + " bytes");
        }
      }
      System.arraycopy(raw, skip, out, 0, size);
    } else {
      System.arraycopy(raw, 0, out, size - raw.length, raw.length);
    }
    return out;
  }
}
