package adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dyno.protocol.Worker;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** The example benchmark through the protocol loop, in-process. */
class AdapterTest {
  // SHA-256 of 32 zero bytes, from outside this code (FIPS 180-4; coreutils:
  // `head -c 32 /dev/zero | sha256sum`).
  private static final String ZEROS = "0x" + "00".repeat(32);
  private static final String DIGEST =
      "0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925";

  private final ObjectMapper json = new ObjectMapper();
  private final Worker worker = new Worker(Main.adapter(), new ByteArrayOutputStream());

  private JsonNode prepare(String digest) throws Exception {
    return worker.handle(
        json.readTree(
            "{\"type\":\"prepare\",\"id\":\"hash/sha256/32B\",\"implementation\":\"{{name}}-sha256\","
                + "\"cases\":[{\"input\":{\"data\":\"" + ZEROS + "\"},\"expected\":{\"digest\":\""
                + digest + "\"}}]}"));
  }

  @Test
  void sha256IsCheckedThenTimed() throws Exception {
    assertEquals("prepared", prepare(DIGEST).get("type").asText());
    JsonNode run = worker.handle(json.readTree("{\"type\":\"run\",\"iterations\":100,\"samples\":2}"));
    assertEquals(2, run.get("ns").size());
  }

  @Test
  void aWrongDigestIsAMismatch() throws Exception {
    JsonNode r = prepare(ZEROS);
    assertEquals("mismatch", r.get("type").asText());
    assertEquals("digest", r.get("field").asText());
  }
}
