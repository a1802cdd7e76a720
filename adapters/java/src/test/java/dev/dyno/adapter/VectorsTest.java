package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.JSON;
import static dev.dyno.adapter.TestSupport.assertPrepared;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.run;
import static dev.dyno.adapter.TestSupport.testCase;
import static dev.dyno.adapter.TestSupport.vectors;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every implementation against the repository's vectors (vectors/*.json). */
class VectorsTest {
  static final Map<Integer, String> SIZES = Map.of(1, "1B", 32, "32B", 1024, "1KiB", 102400, "100KiB");

  /** Prepares, checks the outputs, runs a little, and checks that a corrupted field mismatches. */
  static void check(String id, String impl, ArrayNode cases, String field) {
    Worker w = worker();
    assertPrepared(w.handle(prepare(id, impl, cases)), cases);
    JsonNode r = w.handle(run(2, 2));
    assertEquals("samples", r.get("type").asText(), r::toString);
    assertEquals(2, r.get("ns").size());
    JsonNode m = w.handle(prepare(id, impl, TestSupport.corrupt(cases, cases.size() - 1, field)));
    assertEquals("mismatch", m.get("type").asText(), m::toString);
    assertEquals(cases.size() - 1, m.get("case").asInt());
    assertEquals(field, m.get("field").asText());
  }

  static ArrayNode hashCases(String alg, int len) {
    ArrayNode cases = JSON.createArrayNode();
    for (JsonNode c : vectors("hash")) {
      if (c.get("algorithm").asText().equals(alg) && c.get("len").asInt() == len) {
        byte[] data = TestSupport.seq(c.get("seed").asLong(), len);
        cases.add(
            testCase(
                obj().put("data", Hex.encode(data)),
                obj().put("digest", c.get("digest").asText())));
      }
    }
    return cases;
  }

  @TestFactory
  List<DynamicTest> hashes() {
    List<String> algs =
        List.of("keccak256", "sha256", "sha384", "sha512", "ripemd160", "blake2b512", "blake2s256");
    return SIZES.entrySet().stream()
        .flatMap(
            size ->
                algs.stream()
                    .flatMap(
                        alg -> {
                          String id = "hash/" + alg + "/" + size.getValue();
                          ArrayNode cases = hashCases(alg, size.getKey());
                          List<String> impls =
                              alg.equals("keccak256")
                                  ? List.of("bouncycastle", "web3j")
                                  : List.of("bouncycastle");
                          return impls.stream()
                              .map(
                                  impl ->
                                      DynamicTest.dynamicTest(
                                          id + " " + impl,
                                          () -> {
                                            assertEquals(8, cases.size());
                                            check(id, impl, cases, "digest");
                                          }));
                        }))
        .toList();
  }

  static ArrayNode secp(Function<JsonNode, JsonNode[]> inputExpected) {
    ArrayNode cases = JSON.createArrayNode();
    for (JsonNode c : vectors("secp256k1")) {
      JsonNode[] ie = inputExpected.apply(c);
      ObjectNodePair.add(cases, ie);
    }
    return cases;
  }

  /** Small helper to add an (input, expected) pair to a cases array. */
  static final class ObjectNodePair {
    static void add(ArrayNode cases, JsonNode[] ie) {
      com.fasterxml.jackson.databind.node.ObjectNode c = obj();
      c.set("input", ie[0]);
      c.set("expected", ie[1]);
      cases.add(c);
    }
  }

  static ArrayNode signCases() {
    return secp(
        c ->
            new JsonNode[] {
              obj().put("private_key", c.get("private_key").asText())
                  .put("message_hash", c.get("message_hash").asText()),
              obj().put("r", c.get("r").asText()).put("s", c.get("s").asText()).put("v", c.get("v").asInt())
            });
  }

  @Test
  void secp256k1SignTrialBouncyCastle() {
    check("crypto/secp256k1-sign/recid-trial", "bouncycastle", signCases(), "s");
  }

  @Test
  void secp256k1SignDirectBouncyCastle() {
    check("crypto/secp256k1-sign/recid-direct", "bouncycastle", signCases(), "v");
  }

  @Test
  void secp256k1SignTrialWeb3j() {
    check("crypto/secp256k1-sign/recid-trial", "web3j", signCases(), "v");
  }

  @Test
  void secp256k1VerifyBouncyCastle() {
    ArrayNode cases =
        secp(
            c ->
                new JsonNode[] {
                  obj().put("public_key", c.get("public_key").asText())
                      .put("message_hash", c.get("message_hash").asText())
                      .put("r", c.get("r").asText())
                      .put("s", c.get("s").asText()),
                  obj().put("valid", true)
                });
    check("crypto/secp256k1-verify/valid", "bouncycastle", cases, "valid");
  }

  @Test
  void secp256k1RecoverWeb3j() {
    ArrayNode cases =
        secp(
            c ->
                new JsonNode[] {
                  obj().put("message_hash", c.get("message_hash").asText())
                      .put("r", c.get("r").asText())
                      .put("s", c.get("s").asText())
                      .put("v", c.get("v").asInt()),
                  obj().put("public_key", c.get("public_key").asText())
                });
    check("crypto/secp256k1-recover/valid", "web3j", cases, "public_key");
  }

  @Test
  void secp256k1Keygen() {
    ArrayNode cases =
        secp(
            c ->
                new JsonNode[] {
                  obj().put("private_key", c.get("private_key").asText()),
                  obj().put("public_key", c.get("public_key").asText())
                });
    check("crypto/secp256k1-keygen/pubkey", "bouncycastle", cases, "public_key");
    check("crypto/secp256k1-keygen/pubkey", "web3j", cases, "public_key");
  }

  static ArrayNode nist(String file, boolean sign) {
    ArrayNode cases = JSON.createArrayNode();
    for (JsonNode c : vectors(file)) {
      JsonNode rs = c.get("rfc6979");
      if (sign) {
        ObjectNodePair.add(
            cases,
            new JsonNode[] {
              obj().put("private_key", c.get("private_key").asText())
                  .put("public_key", c.get("public_key").asText())
                  .put("message", c.get("message").asText()),
              obj().put("r", rs.get("r").asText()).put("s", rs.get("s").asText())
            });
      } else {
        for (JsonNode sig : List.of(rs, c.get("random"))) {
          ObjectNodePair.add(
              cases,
              new JsonNode[] {
                obj().put("public_key", c.get("public_key").asText())
                    .put("message", c.get("message").asText())
                    .put("r", sig.get("r").asText())
                    .put("s", sig.get("s").asText()),
                obj().put("valid", true)
              });
        }
      }
    }
    return cases;
  }

  @Test
  void p256() {
    check("crypto/p256-sign/32B", "bouncycastle", nist("p256", true), "s");
    check("crypto/p256-verify/32B", "bouncycastle", nist("p256", false), "valid");
  }

  @Test
  void p384() {
    check("crypto/p384-sign/32B", "bouncycastle", nist("p384", true), "r");
    check("crypto/p384-verify/32B", "bouncycastle", nist("p384", false), "valid");
  }
}
