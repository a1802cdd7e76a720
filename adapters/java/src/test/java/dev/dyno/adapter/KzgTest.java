package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.assertPrepared;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.run;
import static dev.dyno.adapter.TestSupport.testCase;
import static dev.dyno.adapter.TestSupport.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.dyno.protocol.Benchmarks;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** precompile/kzg-point-evaluation/* on jc-kzg-4844: the fixture's valid call and broken copies. */
class KzgTest {
  static final String ID = "precompile/kzg-point-evaluation/pointEvaluation1";
  static final String OUTPUT =
      "0x0000000000000000000000000000000000000000000000000000000000001000"
          + "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";

  /** The fixture's valid point-evaluation input (hex with 0x). */
  static String validInput() throws IOException {
    for (String line : Files.readAllLines(FixtureReplayTest.fixture())) {
      if (line.contains("\"" + ID + "\"")) {
        return TestSupport.parse(line).at("/cases/0/input/input").asText();
      }
    }
    throw new AssertionError(ID + " not in the fixture");
  }

  static ArrayNode cases(String input, long gas) {
    ArrayNode cases = JsonNodeFactory.instance.arrayNode();
    cases.add(testCase(obj().put("input", input).put("gas", gas), obj().put("output", OUTPUT)));
    return cases;
  }

  /** {@code hex} with byte {@code at} XOR-ed with 1. */
  static String flip(String hex, int at) {
    byte[] b = Hex.decode(hex);
    b[at] ^= 1;
    return Hex.encode(b);
  }

  @Test
  void helloDeclaresThePattern() {
    JsonNode h = worker().hello();
    boolean found = false;
    for (JsonNode p : h.get("patterns")) {
      if (p.get("id").asText().equals("precompile/kzg-point-evaluation/*")) {
        assertEquals("jc-kzg-4844", p.get("implementation").asText());
        assertEquals("io.consensys.protocols:jc-kzg-4844", p.get("library").asText());
        assertEquals("2.1.6", h.at("/libraries/io.consensys.protocols:jc-kzg-4844").asText());
        found = true;
      }
    }
    assertTrue(found, h::toString);
  }

  @Test
  void patternCoversOneSegment() {
    assertTrue(Benchmarks.matches("precompile/kzg-point-evaluation/*", ID));
    assertFalse(Benchmarks.matches("precompile/kzg-point-evaluation/*", "precompile/kzg-point-evaluation"));
    assertFalse(Benchmarks.matches("precompile/kzg-point-evaluation/*", "precompile/kzg-point-evaluation/a/b"));
    assertFalse(Benchmarks.matches("precompile/kzg-point-evaluation/*", "precompile/kzg-point-evaluation/"));
    assertFalse(
        Benchmarks.matches("precompile/kzg-point-evaluation/*", "precompile-bytecode/kzg-point-evaluation/x"));
  }

  @Test
  void validCallPreparesAndRuns() throws IOException {
    Worker w = worker();
    ArrayNode cases = cases(validInput(), 50_000);
    assertPrepared(w.handle(prepare(ID, "jc-kzg-4844", cases)), cases);
    JsonNode r = w.handle(run(3, 2));
    assertEquals("samples", r.get("type").asText(), r::toString);
    assertEquals(2, r.get("ns").size());
    // Any other id of the family is covered by the pattern.
    assertPrepared(
        w.handle(prepare("precompile/kzg-point-evaluation/other", "jc-kzg-4844", cases)), cases);
  }

  @Test
  void failingCallsAreErrors() throws IOException {
    String valid = validInput();
    String[][] broken = {
      {flip(valid, 0), "versioned hash"},
      {flip(valid, 100), "commitment"},
      {flip(valid, 40), "z"},
      {flip(valid, 70), "y"},
      {flip(valid, 150), "proof"},
      {valid.substring(0, valid.length() - 2), "191 bytes"},
      {valid + "00", "193 bytes"},
    };
    for (String[] b : broken) {
      JsonNode r = worker().handle(prepare(ID, "jc-kzg-4844", cases(b[0], 50_000)));
      assertEquals("error", r.get("type").asText(), () -> b[1] + ": " + r);
      assertFalse(r.get("fatal").asBoolean());
    }
  }

  @Test
  void tooLittleGasIsAnError() throws IOException {
    JsonNode r = worker().handle(prepare(ID, "jc-kzg-4844", cases(validInput(), 49_999)));
    assertEquals("error", r.get("type").asText(), r::toString);
    assertTrue(r.get("message").asText().contains("out of gas"), r::toString);
  }

  @Test
  void wrongOutputIsAMismatch() throws IOException {
    ArrayNode cases = cases(validInput(), 50_000);
    ((ObjectNode) cases.get(0).get("expected")).put("output", "0x");
    JsonNode r = worker().handle(prepare(ID, "jc-kzg-4844", cases));
    assertEquals("mismatch", r.get("type").asText(), r::toString);
    assertEquals("output", r.get("field").asText());
  }
}
