package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.JSON;
import static dev.dyno.adapter.TestSupport.assertPrepared;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.testCase;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.dyno.protocol.Hex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** getLogs bodies made here (the fixture has the real ones): raw count and typed summary. */
class JsonRpcTest {
  static String hex(long seed, int n) {
    return Hex.encode(TestSupport.seq(seed, n));
  }

  /** A body with {@code n} logs; log i has i % 5 topics and i * 3 data bytes. */
  static String body(int n) {
    ObjectNode root = obj().put("jsonrpc", "2.0").put("id", 1);
    ArrayNode result = root.putArray("result");
    for (int i = 0; i < n; i++) {
      ObjectNode log = result.addObject();
      log.put("address", hex(i, 20));
      ArrayNode topics = log.putArray("topics");
      for (int t = 0; t < i % 5; t++) {
        topics.add(hex(1000L * i + t, 32));
      }
      log.put("data", hex(7L * i, 3 * i));
      log.put("blockNumber", "0x" + Long.toHexString(0x1200000L + i / 4));
      log.put("transactionHash", hex(99L * i, 32));
      log.put("transactionIndex", "0x" + Integer.toHexString(i % 7));
      log.put("blockHash", hex(5L * i, 32));
      log.put("logIndex", "0x" + Integer.toHexString(i));
      log.put("removed", false);
    }
    return root.toString();
  }

  @Test
  void raw() {
    ArrayNode cases = JSON.createArrayNode();
    for (int n : new int[] {0, 1, 57}) {
      cases.add(testCase(obj().put("body", body(n)), obj().put("logs", n)));
    }
    VectorsTest.check("jsonrpc/getlogs-raw/100", "jackson", cases, "logs");
  }

  @Test
  void typed() {
    ArrayNode cases = JSON.createArrayNode();
    for (int n : new int[] {1, 57}) {
      long topics = 0;
      long data = 0;
      for (int i = 0; i < n; i++) {
        topics += i % 5;
        data += 3L * i;
      }
      cases.add(
          testCase(
              obj().put("body", body(n)),
              obj().put("logs", n)
                  .put("topics", topics)
                  .put("data_bytes", data)
                  .put("last_address", hex(n - 1, 20))
                  .put("last_block", 0x1200000L + (n - 1) / 4)));
    }
    VectorsTest.check("jsonrpc/getlogs-typed/1000", "jackson", cases, "last_address");
    VectorsTest.check("jsonrpc/getlogs-typed/5000", "jackson", cases, "data_bytes");
  }

  @Test
  void typedDigestIsReportedAndCompared() {
    // Its value against Rust's generator is checked by the fixture replay (FixtureReplayTest).
    ArrayNode cases = JSON.createArrayNode();
    cases.add(testCase(obj().put("body", body(57)), obj().put("logs", 57)));
    JsonNode reply = worker().handle(prepare("jsonrpc/getlogs-typed/100", "jackson", cases));
    String digest = reply.at("/outputs/0/digest").asText();
    assertEquals(66, digest.length(), reply::toString);
    // Log 1's index 1 made 2: the same counts, another digest.
    String other = body(57).replaceFirst("\"logIndex\":\"0x1\"", "\"logIndex\":\"0x2\"");
    JsonNode again =
        worker()
            .handle(
                prepare(
                    "jsonrpc/getlogs-typed/100",
                    "jackson",
                    JSON.createArrayNode().add(testCase(obj().put("body", other), obj().put("logs", 57)))));
    assertEquals(false, digest.equals(again.at("/outputs/0/digest").asText()), again::toString);
    ArrayNode withDigest = JSON.createArrayNode();
    withDigest.add(testCase(obj().put("body", body(57)), obj().put("logs", 57).put("digest", digest)));
    VectorsTest.check("jsonrpc/getlogs-typed/100", "jackson", withDigest, "digest");
  }

  @Test
  void typedRejectsMalformedHex() {
    String bad = body(3).replaceFirst("\"address\":\"0x[0-9a-f]{2}", "\"address\":\"0x");
    ArrayNode cases = JSON.createArrayNode();
    cases.add(testCase(obj().put("body", bad), obj().put("logs", 3)));
    JsonNode e = worker().handle(prepare("jsonrpc/getlogs-typed/100", "jackson", cases));
    assertEquals("error", e.get("type").asText(), e::toString);
    // the raw parse does not look inside the strings
    assertPrepared(worker().handle(prepare("jsonrpc/getlogs-raw/100", "jackson", cases)), cases);
  }
}
