package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.JSON;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.testCase;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.dyno.protocol.Hex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Generic RLP made here (the fixture has the real blocks): the EIP-155 example transaction and
 * SplitMix64 trees encoded by a small reference encoder in this test, independent of web3j.
 */
class RlpTest {
  /** EIP-155's example signed transaction (nonce 9, chain id 1). */
  static final String EIP155_TX =
      "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080"
          + "25a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761a"
          + "ecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

  static final List<String> INPUTS =
      List.of(
          "tiny-account",
          "small-legacy-tx",
          "small-eip1559-tx",
          "small-header",
          "medium-receipts",
          "medium-body",
          "large-body",
          "large-receipts",
          "vlarge-body");

  /** Reference encoder: a JSON tree (hex string / array) to its RLP. */
  static byte[] encode(JsonNode n) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (n.isTextual()) {
      byte[] b = Hex.decode(n.asText());
      if (b.length == 1 && (b[0] & 0xff) < 0x80) {
        return b;
      }
      header(out, 0x80, b.length);
      out.writeBytes(b);
    } else {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      for (JsonNode c : n) {
        body.writeBytes(encode(c));
      }
      header(out, 0xc0, body.size());
      out.writeBytes(body.toByteArray());
    }
    return out.toByteArray();
  }

  static void header(ByteArrayOutputStream out, int base, int len) {
    if (len <= 55) {
      out.write(base + len);
      return;
    }
    int bytes = (32 - Integer.numberOfLeadingZeros(len) + 7) / 8;
    out.write(base + 55 + bytes);
    for (int i = bytes - 1; i >= 0; i--) {
      out.write(len >>> (8 * i));
    }
  }

  /** lists, strings, bytes of a JSON tree. */
  static long[] counts(JsonNode n) {
    if (n.isTextual()) {
      return new long[] {0, 1, Hex.decode(n.asText()).length};
    }
    long[] c = {1, 0, 0};
    for (JsonNode x : n) {
      long[] d = counts(x);
      for (int i = 0; i < 3; i++) {
        c[i] += d[i];
      }
    }
    return c;
  }

  /**
   * A deterministic tree: byte strings of lengths around the RLP boundaries (0, 1 byte below and
   * above 0x80, 55, 56, 300), nested lists (short and long), an empty list.
   */
  static JsonNode tree(long seed, int depth) {
    byte[] r = TestSupport.seq(seed, 8);
    int kind = (r[0] & 0xff) % (depth == 0 ? 6 : 8);
    switch (kind) {
      case 0:
        return JSON.getNodeFactory().textNode("0x");
      case 1:
        return JSON.getNodeFactory().textNode(Hex.encode(new byte[] {(byte) (r[1] & 0x7f)}));
      case 2:
        return JSON.getNodeFactory().textNode(Hex.encode(new byte[] {(byte) (r[1] | 0x80)}));
      case 3:
        return JSON.getNodeFactory().textNode(Hex.encode(TestSupport.seq(seed + 1, 55)));
      case 4:
        return JSON.getNodeFactory().textNode(Hex.encode(TestSupport.seq(seed + 1, 56)));
      case 5:
        return JSON.getNodeFactory().textNode(Hex.encode(TestSupport.seq(seed + 1, 300)));
      default:
        ArrayNode a = JSON.createArrayNode();
        int n = (r[2] & 0xff) % 12;
        for (int i = 0; i < n; i++) {
          a.add(tree(seed * 31 + i + 1, depth - 1));
        }
        return a;
    }
  }

  static List<JsonNode> trees() {
    List<JsonNode> t = new ArrayList<>();
    t.add(JSON.createArrayNode());
    t.add(JSON.getNodeFactory().textNode("0x00"));
    t.add(JSON.getNodeFactory().textNode("0x"));
    ArrayNode longList = JSON.createArrayNode();
    for (int i = 0; i < 40; i++) {
      longList.add(Hex.encode(TestSupport.seq(i, i % 3)));
    }
    t.add(longList);
    for (long seed = 1; seed <= 40; seed++) {
      ArrayNode root = JSON.createArrayNode();
      root.add(tree(seed, 4));
      root.add(tree(seed + 1000, 4));
      t.add(root);
    }
    return t;
  }

  static ArrayNode decodeCases() {
    ArrayNode cases = JSON.createArrayNode();
    cases.add(
        testCase(
            obj().put("encoded", EIP155_TX),
            obj().put("lists", 1).put("strings", 9).put("bytes", 1 + 5 + 2 + 20 + 8 + 0 + 1 + 32 + 32)));
    for (JsonNode t : trees()) {
      long[] c = counts(t);
      cases.add(
          testCase(
              obj().put("encoded", Hex.encode(encode(t))),
              obj().put("lists", c[0]).put("strings", c[1]).put("bytes", c[2])));
    }
    return cases;
  }

  static ArrayNode encodeCases() {
    ArrayNode cases = JSON.createArrayNode();
    ArrayNode tx = JSON.createArrayNode();
    for (String f :
        List.of(
            "0x09",
            "0x04a817c800",
            "0x5208",
            "0x3535353535353535353535353535353535353535",
            "0x0de0b6b3a7640000",
            "0x",
            "0x25",
            "0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276",
            "0x67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83")) {
      tx.add(f);
    }
    addEncodeCase(cases, tx, EIP155_TX);
    for (JsonNode t : trees()) {
      addEncodeCase(cases, t, Hex.encode(encode(t)));
    }
    return cases;
  }

  /** Adds an encode-generic case {@code tree -> encoded}. */
  static void addEncodeCase(ArrayNode cases, JsonNode tree, String encoded) {
    ObjectNode input = obj();
    input.set("tree", tree);
    cases.add(testCase(input, obj().put("encoded", encoded)));
  }

  @Test
  void referenceEncoderMatchesEip155() {
    assertEquals(EIP155_TX, Hex.encode(encode(encodeCases().get(0).at("/input/tree"))));
  }

  /** The EIP-155 transaction's tree digest, from the case schema written out in Python. */
  static final String EIP155_DIGEST =
      "0xe270da40a7e020e3a20660060bf3abc52f1d3c9af84ce52cb467f0cf440df373";

  @Test
  void decodeDigest() {
    ArrayNode cases = JSON.createArrayNode();
    cases.add(
        testCase(
            obj().put("encoded", EIP155_TX),
            obj().put("lists", 1).put("strings", 9).put("bytes", 101).put("digest", EIP155_DIGEST)));
    VectorsTest.check("rlp/decode-generic/small-legacy-tx", "web3j", cases, "digest");
  }

  @Test
  void decode() {
    ArrayNode cases = decodeCases();
    VectorsTest.check("rlp/decode-generic/small-legacy-tx", "web3j", cases, "lists");
    VectorsTest.check("rlp/decode-generic/medium-body", "web3j", cases, "strings");
    VectorsTest.check("rlp/decode-generic/vlarge-body", "web3j", cases, "bytes");
  }

  @Test
  void encode() {
    ArrayNode cases = encodeCases();
    VectorsTest.check("rlp/encode-generic/small-legacy-tx", "web3j", cases, "encoded");
    VectorsTest.check("rlp/encode-generic/large-receipts", "web3j", cases, "encoded");
  }

  @Test
  void nonCanonicalEncodingIsAMismatchOnEncoded() {
    // 0x00 written as a one-byte string (0x8100) and a short string with a long header.
    for (String bad : List.of("0xc28100", "0xb80100")) {
      ArrayNode cases = JSON.createArrayNode();
      cases.add(testCase(obj().put("encoded", EIP155_TX), obj().put("lists", 1).put("strings", 9).put("bytes", 101)));
      cases.add(testCase(obj().put("encoded", bad), obj().put("lists", 1).put("strings", 1).put("bytes", 1)));
      JsonNode m = worker().handle(prepare("rlp/decode-generic/tiny-account", "web3j", cases));
      assertEquals("mismatch", m.get("type").asText(), m::toString);
      assertEquals(1, m.get("case").asInt(), m::toString);
      assertEquals("encoded", m.get("field").asText(), m::toString);
      assertEquals(bad, m.get("expected").asText());
    }
  }

  @Test
  void trailingBytesOrBadInputAreErrors() {
    for (String bad : List.of(EIP155_TX + "00", "0xzz")) {
      ArrayNode cases = JSON.createArrayNode();
      cases.add(testCase(obj().put("encoded", bad), obj().put("lists", 1).put("strings", 9).put("bytes", 101)));
      JsonNode e = worker().handle(prepare("rlp/decode-generic/small-legacy-tx", "web3j", cases));
      assertEquals("error", e.get("type").asText(), e::toString);
    }
    ArrayNode cases = JSON.createArrayNode();
    cases.add(testCase(obj().put("tree", 5), obj().put("encoded", "0x05")));
    JsonNode e = worker().handle(prepare("rlp/encode-generic/tiny-account", "web3j", cases));
    assertEquals("error", e.get("type").asText(), e::toString);
  }

  @Test
  void helloListsEveryRlpId() {
    JsonNode h = worker().hello();
    Set<String> pairs = new HashSet<>();
    for (JsonNode b : h.get("benchmarks")) {
      if (b.get("id").asText().startsWith("rlp/")) {
        assertEquals("org.web3j:rlp", b.get("library").asText());
        pairs.add(b.get("id").asText() + " " + b.get("implementation").asText());
      }
    }
    assertEquals(18, pairs.size(), pairs::toString);
    for (String in : INPUTS) {
      assertTrue(pairs.contains("rlp/decode-generic/" + in + " web3j"), in);
      assertTrue(pairs.contains("rlp/encode-generic/" + in + " web3j"), in);
    }
    assertTrue(h.get("libraries").path("org.web3j:rlp").asText().matches("\\d+(\\.\\d+)+"));
  }
}
