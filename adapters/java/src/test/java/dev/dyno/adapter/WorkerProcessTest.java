package dev.dyno.adapter;

import static dev.dyno.adapter.TestSupport.JSON;
import static dev.dyno.adapter.TestSupport.obj;
import static dev.dyno.adapter.TestSupport.prepare;
import static dev.dyno.adapter.TestSupport.run;
import static dev.dyno.adapter.TestSupport.testCase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * End to end: starts the real worker (HOME/run, which ./test passes as dyno.worker after running
 * ./setup) and talks the protocol over its stdin and stdout.
 */
class WorkerProcessTest {
  private BufferedReader out;
  private OutputStream in;

  private JsonNode call(JsonNode req) throws Exception {
    in.write((req.toString() + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
    String line = out.readLine();
    assertNotNull(line, "worker closed stdout after " + req.path("type"));
    return TestSupport.parse(line); // fails on anything that is not a JSON line
  }

  @Test
  void talksTheProtocolOverPipes() throws Exception {
    String worker = System.getProperty("dyno.worker", "");
    assertFalse(worker.isEmpty(), "set -Ddyno.worker=HOME/run (./test does)");
    assertTrue(Files.isExecutable(Path.of(worker)), () -> worker + " is not executable");
    Process p =
        new ProcessBuilder(worker).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      in = p.getOutputStream();
      out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));

      JsonNode hello = call(obj().put("type", "hello").put("protocol", 1));
      assertEquals("hello", hello.get("type").asText());
      assertEquals(1, hello.get("protocol").asInt());
      assertTrue(hello.get("jit").asBoolean());
      assertTrue(hello.at("/runtime/flags").toString().contains("-Xmx"), hello::toString);

      ArrayNode cases = VectorsTest.hashCases("keccak256", 32);
      JsonNode prepared = call(prepare("hash/keccak256/32B", "bouncycastle", cases));
      TestSupport.assertPrepared(prepared, cases);

      JsonNode samples = call(run(1000, 4));
      assertEquals("samples", samples.get("type").asText(), samples::toString);
      assertEquals(4, samples.get("ns").size());
      for (JsonNode ns : samples.get("ns")) {
        assertTrue(ns.asLong() > 0);
      }

      JsonNode mismatch =
          call(prepare("hash/keccak256/32B", "web3j", TestSupport.corrupt(cases, 5, "digest")));
      assertEquals("mismatch", mismatch.get("type").asText(), mismatch::toString);
      assertEquals(5, mismatch.get("case").asInt());

      JsonNode unknown = call(prepare("crypto/unknown/op", "bouncycastle", JSON.createArrayNode()));
      assertEquals("error", unknown.get("type").asText());
      assertFalse(unknown.get("fatal").asBoolean());

      // jc-kzg-4844's native library and web3j's trusted setup must both be inside the shaded jar.
      ArrayNode kzg = KzgTest.cases(KzgTest.validInput(), 50_000);
      TestSupport.assertPrepared(call(prepare(KzgTest.ID, "jc-kzg-4844", kzg)), kzg);
      assertEquals("samples", call(run(10, 2)).get("type").asText());

      ArrayNode noop = JSON.createArrayNode();
      noop.add(testCase(obj().put("value", "0x01"), obj().put("value", "0x01")));
      assertEquals("prepared", call(prepare("harness/noop/empty", "java-noop", noop)).get("type").asText());
      assertEquals(1, call(run(1, 1)).get("ns").size());

      in.close(); // EOF: the worker exits 0
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "worker did not exit on EOF");
      assertEquals(0, p.exitValue());
      assertEquals(null, out.readLine(), "nothing after the last reply");
    } finally {
      p.destroyForcibly();
    }
  }
}
